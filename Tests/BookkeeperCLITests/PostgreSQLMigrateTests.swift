// `migrate --model FILE` on books on PostgreSQL (issue 31): the same sequence of models brought to a store file and
// to books on PostgreSQL answers the same — each migration's status, words and refusals, and afterwards every object
// as `fetch` shows it, and the recorded model (a dry run with it says "up to date" on both). Then what only books on
// PostgreSQL have: `migrate` without a model file, a refusal found mid-way leaving the schema byte for byte as it was
// (pg_dump), a writer that waited for the lock meanwhile, a reader during a migration, a role that may not write.

import Foundation
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
        MigrationStep(model: m1, then: [["add", "Bank", "name=North", "city=Oslo", "deposits=12.5"], ["add", "Bank", "name=South", "deposits=-3"],
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
        case m1: entities[0].1 += ["tier", "fax", "bank"]; entities.append(("Bank", ["name", "city", "deposits"]))
        case m2: entities[0].1 += ["tier", "vat", "bank"]; entities.append(("Bank", ["name", "city", "deposits"]))
        case m3: entities[0].1 += ["tier", "vat", "bank"]; entities.append(("Bank", ["name", "city", "deposits"]))
        case m4: entities[0].1 += ["tier", "taxid", "bank"]; entities.append(("Lender", ["name", "city", "deposits", "customers.name"]))
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
