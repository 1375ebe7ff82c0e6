// A user who may only read a store (another user's, in a folder it cannot write), after the model file changed
// (issue 26, finding 7): before, every reading command exited 65 (a data error) while `migrate` exited 73,
// `check` exited 65 with no problem listed, `backup` was refused, and the two dry runs disagreed.
//
// Decided: an additive change is read as it is (new columns as the migration would fill them, new tables
// empty) with one note; a change that is not additive, and every write, is refused with 73 and one wording from
// every command; `backup` copies the store as it is; `check` checks against the model the store records; both
// dry runs print the plan and give the real run's verdict (73).

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ReadOnlyMigrationTests: XCTestCase {
    var dir: TemporaryDirectory!
    var store: String { dir.file("books.sqlite") }
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21", "TZ": "UTC", "BOOKKEEPER_REPORTS": ""]
    /// Additive: a new entity, new attributes (one with a default), a new many-to-many relationship.
    static let additive = """
        entities:
          Bank:
            kind: directory
            key: cert
            attributes:
              name: { type: string, required: true }
              cert: { type: integer, unique: true, required: true }
          Customer:
            attributes:
              vat: { type: string, unique: true }
              grade: { type: string, default: "B" }
            relationships:
              banks: { to: Bank, many: true, inverse-many: true, inverse: customers }
        """
    /// What the store is given first for the change that is not additive: Customer.fax, which `additive` removes.
    static let withFax = """
        entities:
          Customer:
            attributes:
              fax: { type: string }
        """
    static let wording = "books.sqlite: the store was written with another model and needs migrating, and it is read-only for this user"

    /// Commands that only read, with what they print on stdout.
    static let reads: [[String]] = [
        ["list", "Customer"], ["show", "Customer", "Acme Ltd"],
        ["fetch", "Customer", "--columns", "code,name,vat,grade", "--format", "csv"],
        ["fetch", "Bank", "--format", "csv"],
        ["export", "Customer", "/dev/stdout"], ["export", "Bank", "/dev/stdout"],
        ["report", "customers", "--format", "csv", "--output", "/dev/stdout"],
        ["imports"],
    ]
    /// Commands that write, or whose real run would.
    static let writes: [[String]] = [
        ["add", "Tag", "name=new"], ["import", "Tag", "tags.csv"], ["import", "Tag", "tags.csv", "--dry-run"],
        ["migrate"], ["migrate", "--dry-run"], ["init"],
    ]

    override func setUpWithError() throws {
        try OtherUser.skipUnlessAvailable()
        dir = TemporaryDirectory()
        XCTAssertEqual(chmod(dir.path, 0o755), 0)   // the other user may enter the folder, not write in it
        SampleStore.copy(to: store)
        dir.write("additive.yaml", Self.additive)
        dir.write("fax.yaml", Self.withFax)
        dir.write("tags.csv", "name\nfresh\n")
        for file in ["additive.yaml", "fax.yaml", "tags.csv"] { XCTAssertEqual(chmod(dir.file(file), 0o644), 0) }
        XCTAssertEqual(chmod(store, 0o644), 0)
    }

    func reader(_ arguments: [String], model: String = "additive.yaml") -> ProgramResult {
        OtherUser.run(["--store", "books.sqlite", "--model", model] + arguments, in: dir.path, environment: Self.environment)
    }

    /// The store's files (names and contents), which nothing the reader runs may change.
    func snapshot() throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) {
            files[name] = FileManager.default.contents(atPath: dir.file(name))
        }
        return files
    }

    func testReadOnlyUserGetsOneExitCodeForAStoreThatNeedsMigrating() throws {
        // Not additive: the store records Customer.fax, which the model file no longer has.
        let owner = runCLI(["--store", store, "--model", "fax.yaml", "migrate", "--quiet"], in: dir.path)
        XCTAssertEqual(owner.status, 0, "\(owner)")
        XCTAssertEqual(chmod(store, 0o644), 0)
        let before = try snapshot()
        for command in Self.reads + Self.writes + [["check"]] {
            let r = reader(command)
            XCTAssertEqual(r.status, 73, "\(command): \(r)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertTrue(lines.last?.hasPrefix("bookkeeper: " + Self.wording) == true, "\(command): \(r)")
            XCTAssertEqual(lines.filter { $0.contains("needs migrating") }.count, 1, "\(command): one line says it: \(r)")
        }
        // Additive, but the command writes (or its real run would): the same code and line.
        for command in Self.writes {
            let r = reader(command)
            XCTAssertEqual(r.status, 73, "\(command): \(r)")
            XCTAssertTrue(r.stderr.split(separator: "\n").last?.hasPrefix("bookkeeper: " + Self.wording) == true, "\(command): \(r)")
        }
        XCTAssertEqual(try snapshot(), before, "nothing the reader ran changed a file")
    }

    func testReadOnlyUserReadsAStoreThatNeedsAnAdditiveMigrationAsItIs() throws {
        // What the owner's commands print once the store is migrated (a copy, in a folder of the owner's).
        let owners = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: store, toPath: owners.file("books.sqlite"))
        owners.write("additive.yaml", Self.additive)
        let migrated = runCLI(["--store", "books.sqlite", "--model", "additive.yaml", "migrate", "--quiet"], in: owners.path)
        XCTAssertEqual(migrated.status, 0, "\(migrated)")
        let before = try snapshot()
        for command in Self.reads {
            let expected = runCLI(["--store", "books.sqlite", "--model", "additive.yaml"] + command, in: owners.path,
                                  environment: Self.environment)
            XCTAssertEqual(expected.status, 0, "\(command): \(expected)")
            let r = reader(command)
            XCTAssertEqual(r.status, 0, "\(command): \(r)")
            XCTAssertEqual(r.stdout, expected.stdout, "\(command): read as it is, as the migrated store reads")
            let notes = r.stderr.split(separator: "\n").filter { $0.contains("needs migrating") }
            XCTAssertEqual(notes.count, 1, "\(command): one note: \(r)")
            XCTAssertTrue(notes.first?.contains("this user cannot write it, so it was read as it is") == true, "\(r)")
        }
        XCTAssertTrue(reader(["fetch", "Customer", "--columns", "code,grade", "--format", "csv"]).stdout.contains("C001,B"),
                      "the new attribute reads as its default, as the migration fills it")
        XCTAssertEqual(try snapshot(), before, "nothing the reader ran changed a file")
    }

    func testBackupByAReadOnlyUserNeedsNoMigration() throws {
        let out = TemporaryDirectory()
        XCTAssertEqual(chmod(out.path, 0o777), 0)
        let additive = reader(["backup", out.file("additive.sqlite")])
        XCTAssertEqual(additive.status, 0, "\(additive)")
        let owner = runCLI(["--store", store, "--model", "fax.yaml", "migrate", "--quiet"], in: dir.path)
        XCTAssertEqual(owner.status, 0, "\(owner)")
        XCTAssertEqual(chmod(store, 0o644), 0)
        let before = try snapshot()
        let notAdditive = reader(["backup", out.file("fax.sqlite")])
        XCTAssertEqual(notAdditive.status, 0, "a copy needs no migration, whatever the model file says: \(notAdditive)")
        XCTAssertEqual(try snapshot(), before)
        // The copy is the store as it is: it still records Customer.fax, and its owner's model reads it unmigrated.
        let copy = runCLI(["--store", out.file("fax.sqlite"), "--model", "fax.yaml", "fetch", "Customer", "--columns", "code,fax",
                           "--format", "csv"], in: dir.path)
        XCTAssertEqual(copy.status, 0, "\(copy)")
        XCTAssertFalse(copy.stderr.contains("migrated"), "\(copy)")
    }

    func testCheckByAReadOnlyUserNeverExits65WithoutProblems() throws {
        let r = reader(["check"])
        XCTAssertEqual(r.status, 0, "the pending migration is a note, not a problem: \(r)")
        XCTAssertTrue(r.stdout.hasPrefix("ok: books.sqlite passed"), "\(r)")
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { $0.contains("needs migrating") }.count, 1, "\(r)")
        // A store with a real problem: 65, with its problem lines and their count.
        let broken = try Self.breakAValue(store)
        let damaged = reader(["check"])
        XCTAssertEqual(damaged.status, 65, "\(damaged)")
        XCTAssertTrue(damaged.stderr.contains(broken), "\(damaged)")
        XCTAssertTrue(damaged.stderr.contains(" problem found") || damaged.stderr.contains(" problems found"), "\(damaged)")
        // No reading command exits 65 here without the lines that say why.
        for command in Self.reads {
            let c = reader(command)
            if c.status == 65 { XCTAssertTrue(c.stderr.contains("problem"), "\(command): \(c)") }
        }
    }

    /// Points an order at a customer that does not exist, as another tool might; returns the object `check` names.
    static func breakAValue(_ store: String) throws -> String {
        let r = runProgram("/usr/bin/python3", ["-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1]); c.execute('UPDATE "Order" SET customer_id = 999 WHERE id = 1'); c.commit(); c.close()
            """, store], in: "/")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(chmod(store, 0o644), 0)
        return "Order/1"
    }

    func testReadOnlyDryRunsAgreeWithEachOtherAndTheRealRun() throws {
        let before = try snapshot()
        let migratePlan = reader(["migrate", "--dry-run"])
        let importPlan = reader(["import", "Tag", "tags.csv", "--dry-run"])
        let real = reader(["migrate"])
        for r in [migratePlan, importPlan, real] {
            XCTAssertEqual(r.status, 73, "\(r)")
            XCTAssertTrue(r.stderr.split(separator: "\n").last?.hasPrefix("bookkeeper: " + Self.wording) == true, "\(r)")
        }
        // Both dry runs print the plan made against the store as it is.
        XCTAssertTrue(migratePlan.stdout.contains("- add attribute Customer.vat"), "\(migratePlan)")
        XCTAssertTrue(migratePlan.stdout.contains("- add entity Bank"), "\(migratePlan)")
        XCTAssertTrue(importPlan.stderr.contains("a real run would first migrate the store to the current model: "), "\(importPlan)")
        XCTAssertTrue(importPlan.stderr.contains("add attribute Customer.vat"), "\(importPlan)")
        XCTAssertEqual(try snapshot(), before, "the dry runs changed no file")
        // With nothing to migrate, the reader's migrate says so and succeeds, dry or not.
        for command in [["migrate"], ["migrate", "--dry-run"]] {
            let r = OtherUser.run(["--store", "books.sqlite"] + command, in: dir.path, environment: Self.environment)
            XCTAssertEqual(r.status, 0, "\(command): \(r)")
        }
    }

    /// What the store is given first for the changes no table shows: a default and a rule to change or remove.
    static let tablelessBase = """
        entities:
          Customer:
            attributes:
              grade: { type: string, default: "A" }
            rules:
              - { where: "name != nil", message: "names" }
        """
    /// Changes no table shows, each the base changed one way: (kind, model file).
    static let tablelessChanges: [(kind: String, yaml: String)] = [
        ("a new rule the data keeps", tablelessBase + "\n      - { where: \"code != nil\", message: \"codes\" }\n"),
        ("a new rule the data breaks", tablelessBase + "\n      - { where: \"code == nil\", message: \"no codes\" }\n"),
        ("a new sort", tablelessBase + "\n    sort: code desc\n"),
        ("a changed default", tablelessBase.replacingOccurrences(of: "default: \"A\"", with: "default: \"B\"")),
        ("a removed rule", tablelessBase.replacingOccurrences(of: "\n    rules:\n      - { where: \"name != nil\", message: \"names\" }", with: "")),
    ]

    /// Attack 27, finding 4: a reader who cannot write the store, with a pending change no table shows (a rule, a
    /// sort, a default), got four answers: `list` read it without a note, `check` checked the new rules (20 "problems"
    /// for a rule not in force, 65), `migrate --dry-run` gave the one 73 wording and `add` and `import --dry-run` said
    /// "the store is read-only". Now every kind of such change gets, from each command, the answer an additive change
    /// gets: reads as it is with one note (the new sort in force, the new rules not), `check` against the recorded
    /// model, every writer 73 with the one wording. The matrix is (change kind × command); the kinds a quick run
    /// takes are drawn by the printed seed.
    func testEveryChangeNoTableShowsGetsOneAnswerPerCommandFromAReadOnlyUser() throws {
        dir.write("base.yaml", Self.tablelessBase)
        let owner = runCLI(["--store", store, "--model", "base.yaml", "migrate", "--quiet"], in: dir.path)
        XCTAssertEqual(owner.status, 0, "\(owner)")
        for file in ["books.sqlite", "base.yaml"] { XCTAssertEqual(chmod(dir.file(file), 0o644), 0) }
        let seed = Trials.seed(fixed: 2027_04_27)
        let count = Trials.count("BOOKKEEPER_TABLELESS_TRIALS", quick: 2, stress: Self.tablelessChanges.count)
        var g = SeededGenerator(seed: seed)
        let kinds = Array(Self.tablelessChanges.shuffled(using: &g).prefix(count))
        let reads: [[String]] = [
            ["list", "Customer"], ["show", "Customer", "Acme Ltd"], ["fetch", "Customer", "--columns", "code,name,grade", "--format", "csv"],
            ["export", "Customer", "/dev/stdout"], ["report", "customers", "--format", "csv", "--output", "/dev/stdout"], ["imports"],
        ]
        let writes: [[String]] = [
            ["add", "Tag", "name=new"], ["set", "Customer", "Acme Ltd", "info=x"], ["delete", "Tag", "vip"],
            ["import", "Tag", "tags.csv"], ["import", "Tag", "tags.csv", "--dry-run"], ["migrate"], ["migrate", "--dry-run"], ["init"],
        ]
        let before = try snapshot()
        var answers = 0
        for (kind, yaml) in kinds {
            dir.write("changed.yaml", yaml)
            XCTAssertEqual(chmod(dir.file("changed.yaml"), 0o644), 0)
            // What the owner reads once the store is migrated (a copy, in a folder of the owner's): the new sort.
            let owners = TemporaryDirectory()
            try FileManager.default.copyItem(atPath: store, toPath: owners.file("books.sqlite"))
            owners.write("changed.yaml", yaml)
            let migrated = runCLI(["--store", "books.sqlite", "--model", "changed.yaml", "migrate", "--allow-broken-rules", "--quiet"],
                                  in: owners.path, environment: Self.environment)
            XCTAssertEqual(migrated.status, 0, "\(kind): \(migrated)")
            for command in reads {
                let expected = runCLI(["--store", "books.sqlite", "--model", "changed.yaml"] + command, in: owners.path,
                                      environment: Self.environment)
                let r = reader(command, model: "changed.yaml")
                XCTAssertEqual(r.status, 0, "seed \(seed) \(kind) \(command): \(r)")
                XCTAssertEqual(r.stdout, expected.stdout, "seed \(seed) \(kind) \(command): read as the migrated store reads")
                let notes = r.stderr.split(separator: "\n")
                XCTAssertEqual(notes.count, 1, "seed \(seed) \(kind) \(command): one line, the note: \(r)")
                XCTAssertTrue(notes.first?.contains("needs migrating") == true
                              && notes.first?.contains("this user cannot write it, so it was read as it is") == true, "\(kind) \(command): \(r)")
                answers += 1
            }
            let check = reader(["check"], model: "changed.yaml")
            XCTAssertEqual(check.status, 0, "seed \(seed) \(kind): the recorded model's rules, not the new ones: \(check)")
            XCTAssertTrue(check.stdout.hasPrefix("ok: books.sqlite passed") && check.stdout.contains("(against the model it records)"),
                          "seed \(seed) \(kind): \(check)")
            XCTAssertEqual(check.stderr.split(separator: "\n").filter { $0.contains("needs migrating") }.count, 1, "\(kind): \(check)")
            for command in writes {
                let r = reader(command, model: "changed.yaml")
                XCTAssertEqual(r.status, 73, "seed \(seed) \(kind) \(command): \(r)")
                XCTAssertTrue(r.stderr.split(separator: "\n").last?.hasPrefix("bookkeeper: " + Self.wording) == true,
                              "seed \(seed) \(kind) \(command): the one wording: \(r)")
                XCTAssertFalse(r.stderr.contains("the store is read-only"), "seed \(seed) \(kind) \(command): \(r)")
                if command.contains("--dry-run") && command.first == "import" {
                    XCTAssertTrue(r.stderr.contains("a real run would first migrate the store to the current model: "), "\(kind): \(r)")
                }
                answers += 1
            }
        }
        XCTAssertEqual(try snapshot().filter { $0.key != "changed.yaml" }, before, "nothing the reader ran changed a file")
        reportTrials("table-less changes", "seed \(seed), \(kinds.count) kinds (\(kinds.map(\.kind).joined(separator: ", "))), \(answers) answers")
    }

    /// A generated additive change: new attributes on Customer and Order of every type, with and without a default
    /// (a required one has one), a new entity with a to-one or many-to-many relationship to Customer.
    static func generatedAdditiveModel(_ g: inout SeededGenerator) -> (yaml: String, customerColumns: [String]) {
        let kinds: [(type: String, values: [String])] = [
            ("string", ["\"B\"", "\"it's\"", "\"\""]), ("integer", ["0", "-7", "42"]), ("decimal, scale: 2", ["1.25", "-0.5"]),
            ("double", ["2.5", "-1"]), ("boolean", ["true", "false"]), ("date", ["2026-01-31", "today"]),
            ("datetime", ["2026-03-29T01:30:00Z", "now"]),
        ]
        func attributes(_ prefix: String) -> (lines: String, names: [String]) {
            var lines = "", names: [String] = []
            for i in 0..<Int.random(in: 1...3, using: &g) {
                let kind = kinds.randomElement(using: &g)!
                let name = "\(prefix)\(i)"
                var spec = "type: \(kind.type)"
                if Bool.random(using: &g) {
                    spec += ", default: \(kind.values.randomElement(using: &g)!)"
                    if Bool.random(using: &g) { spec += ", required: true" }
                }
                lines += "      \(name): { \(spec) }\n"
                names.append(name)
            }
            return (lines, names)
        }
        let customer = attributes("c")
        let order = attributes("o")
        let fresh = attributes("f")
        let link = Bool.random(using: &g)
            ? "      clients: { to: Customer, many: true, inverse-many: true, inverse: extras }\n"
            : "      client: { to: Customer, inverse: extras }\n"
        let yaml = "entities:\n  Extra:\n    kind: directory\n    attributes:\n      name: { type: string }\n\(fresh.lines)"
            + "    relationships:\n\(link)  Customer:\n    attributes:\n\(customer.lines)  Order:\n    attributes:\n\(order.lines)"
        return (yaml, customer.names)
    }

    /// Differential: whatever additive change is generated, what the reader that cannot write reads equals what the
    /// owner reads once the store is migrated.
    func testGeneratedAdditiveChangesReadAsTheMigratedStoreReads() throws {
        let seed = Trials.seed(fixed: 2026_26_07)
        let count = Trials.count("BOOKKEEPER_READ_AS_IT_IS_TRIALS", quick: 2, stress: 20)
        var g = SeededGenerator(seed: seed)
        var compared = 0
        for trial in 0..<count {
            let (yaml, columns) = Self.generatedAdditiveModel(&g)
            dir.write("generated.yaml", yaml)
            XCTAssertEqual(chmod(dir.file("generated.yaml"), 0o644), 0)
            let owners = TemporaryDirectory()
            try FileManager.default.copyItem(atPath: store, toPath: owners.file("books.sqlite"))
            owners.write("generated.yaml", yaml)
            let migrated = runCLI(["--store", "books.sqlite", "--model", "generated.yaml", "migrate", "--quiet"], in: owners.path,
                                  environment: Self.environment)
            XCTAssertEqual(migrated.status, 0, "seed \(seed) trial \(trial):\n\(yaml)\n\(migrated)")
            for command in [["export", "Customer", "/dev/stdout"], ["export", "Order", "/dev/stdout"], ["export", "Extra", "/dev/stdout"],
                            ["fetch", "Customer", "--columns", (["code"] + columns).joined(separator: ","), "--format", "json"],
                            ["list", "Order"]] {
                let expected = runCLI(["--store", "books.sqlite", "--model", "generated.yaml"] + command, in: owners.path,
                                      environment: Self.environment)
                let r = reader(command, model: "generated.yaml")
                XCTAssertEqual(r.status, expected.status, "seed \(seed) trial \(trial) \(command):\n\(yaml)\n\(r)\n\(expected)")
                XCTAssertEqual(r.stdout, expected.stdout, "seed \(seed) trial \(trial) \(command):\n\(yaml)")
                compared += 1
            }
        }
        reportTrials("read as it is", "seed \(seed), \(count) generated additive changes, \(compared) outputs equal the migrated store's")
    }
}
