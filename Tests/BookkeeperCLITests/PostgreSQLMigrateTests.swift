// `migrate --model FILE` on books on PostgreSQL (issue 31): the same sequence of models brought to a store file and
// to books on PostgreSQL answers the same — each migration's status, words and refusals, and afterwards every object
// as `fetch` shows it, and the recorded model (a dry run with it says "up to date" on both). Then what only books on
// PostgreSQL have: `migrate` without a model file, a refusal found mid-way leaving the schema byte for byte as it was
// (pg_dump), a writer that waited for the lock meanwhile, a reader during a migration, a role that may not write.

import Foundation
@testable import ObjectStore
import TestSupport
import XCTest

/// One step of a sequence: the model file's text, the migrate arguments, and the commands run after it.
struct MigrationStep {
    var model: String
    var arguments: [String] = []
    var then: [[String]] = []
}

/// A migration sequence applied to a store file and to books on PostgreSQL side by side.
final class PostgreSQLMigrateDifferentialTests: XCTestCase {
    static let m1 = """
        entities:
          Bank:
            kind: directory
            attributes:
              name:     { type: string, required: true }
              open:     { type: boolean }
              city:     { type: string }
              deposits: { type: decimal, scale: 2 }
          Customer:
            attributes:
              tier: { type: string }
              fax:  { type: string }
            relationships:
              bank: { to: Bank, inverse: customers, delete: nullify }

        """
    static let m2 = """
        entities:
          Bank:
            kind: directory
            attributes:
              name:     { type: string, required: true }
              open:     { type: boolean }
              city:     { type: string }
              deposits: { type: decimal, scale: 2 }
          Customer:
            attributes:
              tier: { type: integer, required: true, indexed: true }
              vat:  { type: string, unique: true }
            relationships:
              bank: { to: Bank, inverse: customers, delete: nullify }

        """
    /// Decimal scale 2 → 4, a newly required city (a default given), a delete rule changed, a new rule Bob breaks.
    static let m3 = """
        entities:
          Bank:
            kind: directory
            attributes:
              name:     { type: string, required: true }
              open:     { type: boolean }
              city:     { type: string, required: true }
              deposits: { type: decimal, scale: 4 }
          Customer:
            attributes:
              tier: { type: integer, required: true, indexed: true }
              vat:  { type: string, unique: true }
            relationships:
              bank: { to: Bank, inverse: customers, delete: cascade }
            rules:
              - { where: "tier < 5", message: "tier is below 5" }

        """
    /// Renames: Bank → Lender, Customer.vat → taxid.
    static let m4 = """
        entities:
          Lender:
            kind: directory
            attributes:
              name:     { type: string, required: true }
              open:     { type: boolean }
              city:     { type: string, required: true }
              deposits: { type: decimal, scale: 4 }
          Customer:
            attributes:
              tier:  { type: integer, required: true, indexed: true }
              taxid: { type: string, unique: true }
            relationships:
              bank: { to: Lender, inverse: customers, delete: cascade }

        """
    /// Lender removed (and Customer.bank); a new entity with a many-to-many relationship.
    static let m5 = """
        entities:
          Group:
            kind: directory
            attributes:
              name: { type: string, required: true }
              rank: { type: integer, default: 1 }
          Customer:
            attributes:
              tier:  { type: integer, required: true, indexed: true }
              taxid: { type: string, unique: true }
            relationships:
              groups: { to: Group, inverse: members, many: yes, inverse-many: yes }

        """
    /// The many-to-many removed, tier back to text, Group.rank to a double, taxid optional but no longer unique.
    static let m6 = """
        entities:
          Group:
            kind: directory
            attributes:
              name: { type: string, required: true }
              rank: { type: double }
          Customer:
            attributes:
              tier:  { type: string }
              taxid: { type: string }

        """

    static let steps: [MigrationStep] = [
        MigrationStep(model: m1, then: [["add", "Bank", "name=North", "city=Oslo", "deposits=12.5", "open=yes"], ["add", "Bank", "name=South", "deposits=-3"],
                                        ["add", "Customer", "name=Ann", "code=A", "tier=3", "fax=1", "bank=North"],
                                        ["add", "Customer", "name=Bob", "tier=x", "bank=South"], ["add", "Customer", "name=Cy", "tier=07"],
                                        ["add", "Order", "number=O-1", "customer=Ann", "date=2026-01-02"]]),
        // Refused: data loss without its flag, a value that does not convert, a required attribute without values.
        MigrationStep(model: m2),
        MigrationStep(model: m2, arguments: ["--allow-data-loss"], then: [["set", "Customer", "Bob", "tier=5"]]),
        MigrationStep(model: m2, arguments: ["--allow-data-loss"], then: [["set", "Customer", "Ann", "vat=NO1"]]),
        // Refused by a default that is no value, then by the rule Bob breaks (found by running the steps).
        MigrationStep(model: m3, arguments: ["--allow-data-loss", "--default", "Bank.city=Bergen", "--default", "Bank.cty=x"]),
        MigrationStep(model: m3, arguments: ["--allow-data-loss", "--default", "Bank.city=Bergen"]),
        MigrationStep(model: m3, arguments: ["--allow-data-loss", "--default", "Bank.city=Bergen", "--allow-broken-rules"],
                      then: [["set", "Customer", "Bob", "tier=4"]]),
        MigrationStep(model: m4, arguments: ["--rename", "Bank=Lender", "--rename", "Customer.vat=taxid"],
                      then: [["add", "Lender", "name=East", "city=Rome", "deposits=1.2345"], ["set", "Customer", "Cy", "bank=East", "taxid=CY"]]),
        MigrationStep(model: m5, arguments: ["--allow-data-loss"],
                      then: [["add", "Group", "name=G1"], ["add", "Group", "name=G2", "rank=7"], ["set", "Customer", "Ann", "groups+=G1,G2"]]),
        MigrationStep(model: m6, arguments: ["--allow-data-loss"], then: [["add", "Customer", "name=Di", "tier=x", "taxid=NO1"]]),
    ]

    /// The entities and columns each step's model has, for the dumps.
    static func columns(_ model: String) -> [(String, [String])] {
        var entities: [(String, [String])] = [("Customer", ["name", "code", "info", "tags.name", "orders.number"]),
                                              ("Order", ["number", "date", "made", "paid", "customer"])]
        switch model {
        case m1: entities[0].1 += ["tier", "fax", "bank"]; entities.append(("Bank", ["name", "open", "city", "deposits"]))
        case m2: entities[0].1 += ["tier", "vat", "bank"]; entities.append(("Bank", ["name", "open", "city", "deposits"]))
        case m3: entities[0].1 += ["tier", "vat", "bank"]; entities.append(("Bank", ["name", "open", "city", "deposits"]))
        case m4: entities[0].1 += ["tier", "taxid", "bank"]; entities.append(("Lender", ["name", "open", "city", "deposits", "customers.name"]))
        case m5: entities[0].1 += ["tier", "taxid", "groups.name"]; entities.append(("Group", ["name", "rank", "members.name"]))
        default: entities[0].1 += ["tier", "taxid"]; entities.append(("Group", ["name", "rank"]))
        }
        return entities
    }

    /// A migration's stdout as a person reads it, without its SQL (each kind's own).
    static func words(_ text: String) -> String {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("SQL (") { break }
            lines.append(String(line))
        }
        return lines.joined(separator: "\n")
    }

    func testTheSameSequenceOfModelsAnswersTheSameOnBothKinds() throws {
        let dir = TemporaryDirectory()
        let books = try StoreKind.postgresql.freshStore(for: self, in: dir)
        let file = dir.file("books.sqlite")
        var current = "m1.yaml"
        var currentModel = Self.m1
        dir.write("m1.yaml", Self.m1)
        XCTAssertEqual(runCLI(["--store", file, "--model", current, "init"], in: dir.path).status, 0)
        XCTAssertEqual(runCLI(["--store", books.argument, "--model", current, "init"], in: dir.path).status, 0)
        var statuses: [Int32] = []
        for (n, step) in Self.steps.enumerated() {
            let model = "m\(n + 1)-step.yaml"
            dir.write(model, step.model)
            if n > 0 {
                let onFile = runCLI(["--store", file, "--model", model, "migrate"] + step.arguments, in: dir.path)
                let onBooks = runCLI(["--store", books.argument, "--model", model, "migrate"] + step.arguments, in: dir.path)
                let context = "step \(n): \(step.arguments)\nfile: \(onFile)\nbooks: \(onBooks)"
                XCTAssertEqual(onBooks.status, onFile.status, context)
                // (A store file's migration names its before-migration copy; the books need none.)
                func named(_ text: String) -> String {
                    text.replacingOccurrences(of: #" \(backup: [^)]*\)"#, with: "", options: .regularExpression)
                        .replacingOccurrences(of: " (a backup copy is kept)", with: "")
                        .replacingOccurrences(of: file, with: books.displayName)
                }
                XCTAssertEqual(onBooks.stdout, named(onFile.stdout), context)
                XCTAssertEqual(onBooks.stderr, named(onFile.stderr), context)
                // The dry run with the same model, afterwards: the same plan on both (up to date after a migration).
                let dryFile = runCLI(["--store", file, "--model", model, "migrate", "--dry-run"] + step.arguments, in: dir.path)
                let dryBooks = runCLI(["--store", books.argument, "--model", model, "migrate", "--dry-run"] + step.arguments, in: dir.path)
                XCTAssertEqual(dryBooks.status, dryFile.status, "\(context)\ndry file: \(dryFile)\ndry books: \(dryBooks)")
                XCTAssertEqual(Self.words(dryBooks.stdout), Self.words(dryFile.stdout), "\(context)\ndry file: \(dryFile)\ndry books: \(dryBooks)")
                statuses.append(onFile.status)
                if onFile.status == 0 {
                    current = model
                    currentModel = step.model
                    XCTAssertEqual(dryBooks.stdout, "the store is up to date with the model\n", context)
                    // The migrated books' tables, columns, keys and indexes are those `init` makes for the model.
                    let fresh = try StoreKind.postgresql.freshStore(for: self, in: dir)
                    XCTAssertEqual(runCLI(["--store", fresh.argument, "--model", model, "init"], in: dir.path).status, 0)
                    XCTAssertEqual(try Self.catalog(books.argument), try Self.catalog(fresh.argument), "step \(n): the schema is not init's")
                }
            }
            for command in step.then {
                let onFile = runCLI(["--store", file, "--model", current] + command, in: dir.path)
                let onBooks = runCLI(["--store", books.argument] + command, in: dir.path)
                XCTAssertEqual(onFile.status, 0, "\(command): \(onFile)")
                XCTAssertEqual(onBooks.status, 0, "\(command): \(onBooks)")
            }
            let entities = Self.columns(currentModel)
            // (The file store reads with its model file; the books with the model they record.)
            var booksDump = ""
            for (entity, columns) in entities {
                let r = runCLI(["--store", books.argument, "fetch", entity, "--columns", (["SELF"] + columns).joined(separator: ", "),
                                "--sort", "SELF", "--format", "json"], in: dir.path)
                XCTAssertEqual(r.status, 0, "step \(n), \(entity): \(r)")
                booksDump += "## \(entity)\n" + r.stdout
            }
            XCTAssertEqual(booksDump, fileDump(current, dir: dir, file: file, entities: entities), "after step \(n)")
        }
        // Refusals and migrations both ran.
        XCTAssertTrue(statuses.contains(0) && statuses.contains(65), "\(statuses)")
    }

    /// The books' tables and columns (type, collation, nullability; not their order), indexes and constraints, by
    /// name and definition, with the schema's name left out.
    static func catalog(_ uri: String) throws -> String {
        let location = try PostgreSQLLocation(uri: uri)
        let connection = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { connection.close() }
        let schema = StoredValue.text(location.schema)
        var lines: [String] = []
        for (sql, what) in [
            ("SELECT table_name::text, column_name::text, data_type::text, coalesce(collation_name::text, ''), is_nullable::text "
             + "FROM information_schema.columns WHERE table_schema = $1 ORDER BY 1, 2", "column"),
            ("SELECT tablename::text, indexname::text, indexdef FROM pg_indexes WHERE schemaname = $1 ORDER BY 2", "index"),
            ("SELECT c.relname::text, k.conname::text, pg_get_constraintdef(k.oid) FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid "
             + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 ORDER BY 1, 2", "constraint"),
        ] {
            for row in try connection.rows(sql, [schema]) {
                lines.append(what + " " + row.values.map { $0.string ?? "NULL" }.joined(separator: " | ")
                    .replacingOccurrences(of: location.schema + ".", with: ""))
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Everything in the store file as `fetch` shows it, read with the model file `model`.
    func fileDump(_ model: String, dir: TemporaryDirectory, file: String, entities: [(String, [String])]) -> String {
        var out = ""
        for (entity, columns) in entities {
            let r = runCLI(["--store", file, "--model", model, "fetch", entity, "--columns", (["SELF"] + columns).joined(separator: ", "),
                            "--sort", "SELF", "--format", "json"], in: dir.path)
            XCTAssertEqual(r.status, 0, "\(entity): \(r)")
            out += "## \(entity)\n" + r.stdout
        }
        return out
    }
}

/// What only books on PostgreSQL have: their model changes by `migrate --model FILE` alone, in one transaction.
final class PostgreSQLMigrateTests: XCTestCase {
    static let tiers = "entities:\n  Customer:\n    attributes:\n      tier: { type: string }\n      fax: { type: string }\n"
    static let integerTiers = "entities:\n  Customer:\n    attributes:\n      tier: { type: integer }\n"
    /// Tier to an integer, and a rule every tier above 4 breaks: found only once the steps have run.
    static let ruledTiers = "entities:\n  Customer:\n    attributes:\n      tier: { type: integer }\n    rules:\n"
        + "      - { where: \"tier == nil OR tier < 5\", message: \"tier is below 5\" }\n"

    var dir: TemporaryDirectory!
    var books: (uri: String, location: PostgreSQLLocation)!

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir = TemporaryDirectory()
        books = try PostgreSQLTestDatabase.freshBooks(self)
        dir.write("tiers.yaml", Self.tiers)
        dir.write("integer.yaml", Self.integerTiers)
        dir.write("ruled.yaml", Self.ruledTiers)
        XCTAssertEqual(bk("--model", "tiers.yaml", "init").status, 0)
    }

    @discardableResult
    func bk(_ args: String...) -> CLIResult { runCLI(["--store", books.uri] + args, in: dir.path) }

    /// The books' schema as pg_dump writes it, data and all: what "as it was, byte for byte" means here.
    func schemaDump() throws -> String {
        let r = try runTool(["/usr/bin/env", "pg_dump", "--no-owner", "--schema", books.location.schema,
                             "--host", PostgreSQLTestDatabase.host ?? "", "--port", PostgreSQLTestDatabase.port ?? "",
                             "--username", "bk_owner", "bk_test"])
        XCTAssertEqual(r.status, 0, r.error)
        // (Without the random key of pg_dump's \restrict and \unrestrict lines, new in each dump.)
        return String(decoding: r.output, as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            .filter { !$0.hasPrefix("\\restrict ") && !$0.hasPrefix("\\unrestrict ") }.joined(separator: "\n")
    }

    func testMigrateWithoutAModelFileChangesNothingAndSaysHowTo() throws {
        for arguments in [["migrate"], ["migrate", "--dry-run"], ["migrate", "--allow-data-loss"]] {
            let r = runCLI(["--store", books.uri] + arguments, in: dir.path)
            XCTAssertEqual(r.status, 64, "\(arguments): \(r)")
            XCTAssertEqual(r.stdout, "")
            XCTAssertEqual(r.stderr, "bookkeeper: \(books.location.displayName): nothing to migrate: books on PostgreSQL keep their model; "
                           + "give --model FILE to bring them to that file's model\n")
        }
        // A model file beside the books (or $BOOKKEEPER_MODEL's) changes nothing either: the recorded model rules.
        let r = runCLI(["--store", books.uri, "--model", "integer.yaml", "add", "Customer", "name=Ann", "tier=x"], in: dir.path)
        XCTAssertEqual(r.status, 0, "\(r)")
    }

    /// A migration refused by what only running its steps shows (a new rule existing objects break), after its
    /// DDL and conversions ran: rolled back whole — pg_dump of the schema is what it was, byte for byte.
    func testARefusalFoundMidwayLeavesTheSchemaByteForByte() throws {
        XCTAssertEqual(bk("add", "Customer", "name=Ann", "tier=3", "fax=1").status, 0)
        XCTAssertEqual(bk("add", "Customer", "name=Bob", "tier=7").status, 0)
        let before = try schemaDump()
        let r = bk("--model", "ruled.yaml", "migrate", "--allow-data-loss")
        XCTAssertEqual(r.status, 65, "\(r)")
        let name = books.location.displayName
        XCTAssertEqual(r.stderr, """
            bookkeeper: \(name): existing objects break the model's new rules, so the store was not migrated
            bookkeeper: \(name): would lose data: change Customer.tier from String to Integer
            bookkeeper: \(name): would lose data: remove attribute Customer.fax (1 value)
            bookkeeper: \(name): would break a new rule: Customer/2 "Bob": tier is below 5
            bookkeeper: \(name): to accept this, run `bookkeeper migrate --allow-data-loss --allow-broken-rules` (`check` lists the objects that break a rule until they are fixed); `bookkeeper migrate --dry-run` shows the plan

            """)
        XCTAssertEqual(try schemaDump(), before)
        // A value that does not convert: refused by the plan, naming the object and the value; nothing changed.
        XCTAssertEqual(bk("add", "Customer", "name=Cy", "tier=x7").status, 0)
        let withCy = try schemaDump()
        let refused = bk("--model", "integer.yaml", "migrate", "--allow-data-loss")
        XCTAssertEqual(refused.status, 65, "\(refused)")
        XCTAssertTrue(refused.stderr.contains("bookkeeper: \(name): blocked: Customer.tier: 1 value is not Integer (\"x7\" in Customer/3)\n"), refused.stderr)
        XCTAssertEqual(try schemaDump(), withCy)
        // The dry run runs the steps too, and rolls them back.
        XCTAssertEqual(bk("set", "Customer", "Cy", "tier=").status, 0)
        let dryBefore = try schemaDump()
        let dry = bk("--model", "ruled.yaml", "migrate", "--dry-run", "--allow-data-loss")
        XCTAssertEqual(dry.status, 65, "\(dry)")
        XCTAssertTrue(dry.stdout.contains("- breaks a new rule: Customer/2 \"Bob\": tier is below 5\n"), dry.stdout)
        XCTAssertEqual(try schemaDump(), dryBefore)
        // Accepted: migrated, with no copy made anywhere (the folder holds the model files alone).
        let accepted = bk("--model", "ruled.yaml", "migrate", "--allow-data-loss", "--allow-broken-rules")
        XCTAssertEqual(accepted.status, 0, "\(accepted)")
        XCTAssertTrue(accepted.stdout.hasSuffix("migrated \(name)\n"), accepted.stdout)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), ["integer.yaml", "ruled.yaml", "tiers.yaml"])
        XCTAssertEqual(bk("fetch", "Customer", "--columns", "name, tier", "--format", "csv").stdout, "name,tier\nAnn,3\nBob,7\nCy,\n")
    }

    /// A writer that opened the books before a migration committed waits for their lock, then finds another model
    /// recorded: refused (75, run it again), nothing written; run again, it uses the new model. A reader that opens
    /// the books meanwhile waits for the migration and reads the new model.
    func testAWriterThatWaitedForTheMigrationIsRefusedAndTheNextRunUsesTheNewModel() throws {
        let owner = try PostgreSQLTestDatabase.connect(self, schema: "\"\(books.location.schema)\"")
        // Enough objects that the conversion takes a while (each is written back by its ID).
        try owner.execute("INSERT INTO \"Customer\" (id, name, tier) SELECT g, 'c' || g, (g % 10)::text FROM generate_series(1, 30000) g")
        nonisolated(unsafe) var migration: CLIResult?
        let migrated = DispatchSemaphore(value: 0)
        let uri = books.uri, path = dir.path
        DispatchQueue.global().async {
            migration = runCLI(["--store", uri, "--model", "integer.yaml", "migrate", "--allow-data-loss"], in: path)
            migrated.signal()
        }
        // Until the migration holds the books' lock.
        var held = false
        for _ in 0..<400 where !held {
            usleep(25_000)
            held = (try owner.int("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND granted") ?? 0) > 0
        }
        XCTAssertTrue(held, "the migration never took the lock")
        nonisolated(unsafe) var writer: CLIResult?
        nonisolated(unsafe) var reader: CLIResult?
        let wrote = DispatchSemaphore(value: 0), read = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            writer = runCLI(["--store", uri, "--wait", "120", "add", "Customer", "name=Zed", "tier=4"], in: path)
            wrote.signal()
        }
        DispatchQueue.global().async {
            reader = runCLI(["--store", uri, "fetch", "Customer", "--where", "name == 'c7'", "--columns", "name, tier", "--format", "csv"], in: path)
            read.signal()
        }
        migrated.wait()
        wrote.wait()
        read.wait()
        XCTAssertEqual(migration?.status, 0, "\(String(describing: migration))")
        let name = books.location.displayName
        print("writer during the migration: exit \(writer?.status ?? -1); reader: exit \(reader?.status ?? -1)")
        // (The writer may have opened the books after the migration committed: then it simply writes.)
        if writer?.status == 75 {
            XCTAssertEqual(writer?.stderr, "bookkeeper: \(name): another process migrated the store to another model while this command "
                           + "waited (the books record another model now) — run it again\n")
            XCTAssertEqual(bk("add", "Customer", "name=Zed", "tier=4").status, 0)
        } else {
            XCTAssertEqual(writer?.status, 0, "\(String(describing: writer))")
        }
        // The old model's text "7" or the new model's 7 read the same in CSV: either way, whole and not mixed.
        XCTAssertEqual(reader?.status, 0, "\(String(describing: reader))")
        XCTAssertEqual(reader?.stdout, "name,tier\nc7,7\n")
        // Every command after uses the new model: tier is an integer now.
        XCTAssertEqual(bk("fetch", "Customer", "--where", "tier == 4 AND name == 'Zed'", "--count").stdout, "1\n")
        let typed = bk("add", "Customer", "name=Yu", "tier=x")
        XCTAssertEqual(typed.status, 65, "\(typed)")
    }

    /// The writer's side of that race, made certain: a writer that opened the books waits for their lock while another
    /// session holding it records another model (as a migration does, and commits): the writer is refused (75)
    /// without writing, rather than writing by a model the books no longer have.
    func testAWriterWaitingForTheLockWhileTheModelChangesIsRefused() throws {
        let holder = try PostgreSQLTestDatabase.connect(self, schema: "\"\(books.location.schema)\"")
        try holder.execute("BEGIN")
        try holder.execute("SELECT pg_advisory_xact_lock($1)", [.integer(PostgreSQLBooks.writeLockKey(schema: books.location.schema))])
        nonisolated(unsafe) var writer: CLIResult?
        let wrote = DispatchSemaphore(value: 0)
        let uri = books.uri, path = dir.path
        DispatchQueue.global().async {
            writer = runCLI(["--store", uri, "--wait", "60", "add", "Customer", "name=Zed", "tier=4"], in: path)
            wrote.signal()
        }
        var waiting = 0
        for _ in 0..<400 where waiting == 0 {
            usleep(25_000)
            waiting = try holder.int("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND NOT granted") ?? 0
        }
        XCTAssertEqual(waiting, 1, "the writer never waited for the lock")
        let hash = try holder.string("SELECT value FROM _bookkeeper_meta WHERE key = 'model_hash'") ?? ""
        try holder.execute("UPDATE _bookkeeper_meta SET value = 'another' WHERE key = 'model_hash'")
        try holder.execute("COMMIT")
        wrote.wait()
        XCTAssertEqual(writer?.status, 75, "\(String(describing: writer))")
        XCTAssertEqual(writer?.stderr, "bookkeeper: \(books.location.displayName): another process migrated the store to another model while "
                       + "this command waited (the books record another model now) — run it again\n")
        XCTAssertEqual(try holder.int("SELECT count(*) FROM \"Customer\""), 0)
        try holder.execute("UPDATE _bookkeeper_meta SET value = $1 WHERE key = 'model_hash'", [.text(hash)])
        XCTAssertEqual(bk("add", "Customer", "name=Zed", "tier=4").status, 0)
    }

    /// A role that may not write the books: its dry run shows the plan, its real run is refused (73), as on a store
    /// file a user cannot write.
    func testARoleThatMayNotWriteTheBooksIsShownThePlanAndRefused() throws {
        XCTAssertEqual(bk("add", "Customer", "name=Ann", "tier=3").status, 0)
        let owner = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { owner.close() }
        let schema = "\"\(books.location.schema)\""
        try owner.execute("GRANT USAGE ON SCHEMA \(schema) TO bk_reader")
        try owner.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \(schema) TO bk_reader")
        let reader = books.uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        let before = try schemaDump()
        let dry = runCLI(["--store", reader, "--model", "integer.yaml", "migrate", "--dry-run", "--allow-data-loss"], in: dir.path)
        XCTAssertEqual(dry.status, 73, "\(dry)")
        XCTAssertTrue(dry.stdout.hasPrefix("- loses data: change Customer.tier from String to Integer\n"), dry.stdout)
        let real = runCLI(["--store", reader, "--model", "integer.yaml", "migrate", "--allow-data-loss"], in: dir.path)
        XCTAssertEqual(real.status, 73, "\(real)")
        XCTAssertEqual(try schemaDump(), before)
    }
}
