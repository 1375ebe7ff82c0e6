// Issue 26, attack finding 1: a No Action delete exited 0 with a dangling reference that `check` failed (65), the
// rules that read through the reference were not checked again, and the next `add` took the deleted object's ID
// (the tables' INTEGER PRIMARY KEY hands out the largest plus one), so the reference quietly pointed at another
// object. Now an object ID is never handed out twice — through `add`, imports, migrations that rebuild or rename
// tables — a delete re-checks every rule that reaches the deleted object, and `check` notes (0) what a No Action
// delete kept. Each test runs the built binary.

import Foundation
import TestSupport
import XCTest

final class NoActionDeleteTests: StoreCommandTestCase {
    static let model = """
        entities:
          Bank:
            kind: directory
            attributes:
              name: { type: string }
          Note:
            kind: directory
            attributes:
              name: { type: string }
            relationships:
              bank: { to: Bank, inverse: notes, inverse-delete: no action }
        """

    var modelFile: String!

    override func setUp() {
        super.setUp()
        modelFile = dir.write("model.yaml", Self.model)
    }

    @discardableResult
    func run(_ args: String...) -> CLIResult { runCLI(["--store", store, "--model", modelFile] + args, in: dir.path) }

    @discardableResult
    func must(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = runCLI(["--store", store, "--model", modelFile] + args, in: dir.path)
        XCTAssertEqual(r.status, 0, "\(args): \(r)", file: file, line: line)
        return r.stdout
    }

    func testNoActionDeleteNeverLetsTheNextObjectTakeOverTheReference() throws {
        must("init")
        XCTAssertEqual(must("add", "Bank", "name=First"), "Bank/1\n")
        XCTAssertEqual(must("add", "Bank", "name=Second"), "Bank/2\n")
        must("add", "Note", "name=n1", "bank=Second")
        XCTAssertEqual(must("delete", "Bank", "Second"), """
            deleted Bank/2
            1 Note still refers to deleted Bank/2 through Note.bank (Bank.notes has delete rule No Action)

            """)
        // The newest object was deleted: its ID is not handed out again.
        XCTAssertEqual(must("add", "Bank", "name=Third"), "Bank/3\n")
        XCTAssertTrue(must("show", "Note", "n1").contains("bank  Bank/2 (missing)"))
        must("delete", "Bank", "Third")
        // A migration that rebuilds the table keeps the mark (a name that becomes required rebuilds Bank).
        modelFile = dir.write("model.yaml", Self.model.replacingOccurrences(of: "name: { type: string }\n  Note", with: "name: { type: string, required: true }\n  Note"))
        must("migrate")
        XCTAssertEqual(try queryStore(store, "SELECT sql FROM sqlite_master WHERE name = 'Bank'").first ?? nil,
                       #"CREATE TABLE "Bank" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL) STRICT"#, "rebuilt")
        XCTAssertEqual(must("add", "Bank", "name=Fourth"), "Bank/4\n")
        must("delete", "Bank", "Fourth")
        // So does a rename of the entity.
        modelFile = dir.write("model.yaml", Self.model.replacingOccurrences(of: "Bank", with: "Lender"))
        XCTAssertTrue(must("migrate", "--rename", "Bank=Lender").contains("migrated"))
        XCTAssertEqual(must("add", "Lender", "name=Fifth"), "Lender/5\n")
        XCTAssertTrue(must("show", "Note", "n1").contains("bank  Lender/2 (missing)"))
        // An import (the batch writer) too.
        dir.write("lenders.csv", "name\nSixth\n")
        must("delete", "Lender", "Fifth")
        must("import", "Lender", "lenders.csv")
        XCTAssertEqual(must("show", "Lender", "Sixth").split(separator: "\n").first, "id     Lender/6")
        XCTAssertEqual(run("check").status, 0)
    }

    func testNoActionDeleteIsRefusedWhenARuleThroughTheReferenceBreaks() throws {
        modelFile = dir.write("model.yaml", Self.model + """

                rules:
                  - { where: "bank.name != nil", message: "a note needs a named bank" }
            """)
        must("init")
        must("add", "Bank", "name=B")
        must("add", "Note", "name=n1", "bank=B")
        let before = try dumpStore(store)
        let r = run("delete", "Bank", "B")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: Note/1 \"n1\": a note needs a named bank\n")
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(try dumpStore(store), before, "nothing written")
        XCTAssertEqual(run("check").status, 0)
    }

    func testCheckAcceptsWhatANoActionDeleteLeft() throws {
        must("init")
        must("add", "Bank", "name=B")
        must("add", "Note", "name=n1", "bank=B")
        must("delete", "Bank", "B")
        let check = run("check")
        XCTAssertEqual(check.status, 0, "\(check)")
        XCTAssertEqual(check.stdout, """
            note: Note/1.bank refers to deleted Bank/1 (Bank.notes has delete rule No Action)
            ok: \(store) passed the integrity, schema, foreign key and model checks

            """)
        XCTAssertEqual(run("-q", "check").stdout, "")
        // An ID no object was ever given (written by another tool) is a problem.
        try executeSQL(store, "UPDATE Note SET bank_id = 7")
        let bad = run("check")
        XCTAssertEqual(bad.status, 65, "\(bad)")
        XCTAssertTrue(bad.stderr.contains("Note/1.bank refers to Bank/7, which does not exist and was never an object's ID (written by another tool)"), bad.stderr)
    }

    func testAnImportThatReplacesRowsNeverHandsOutTheirIDsAgain() throws {
        SampleStore.copy(to: store)
        let highest = try XCTUnwrap(queryStore(store, "SELECT max(id) FROM OrderRow").first ?? nil)
        let order = try XCTUnwrap(queryStore(store, "SELECT o.number FROM \"Order\" o JOIN OrderRow r ON r.order_id = o.id WHERE r.id = \(highest)").first ?? nil)
        let service = try XCTUnwrap(queryStore(store, "SELECT name FROM Service LIMIT 1").first ?? nil)
        // The order's rows replaced by one: its newest row (the table's largest ID) is deleted ...
        dir.write("one.csv", "number,rows.service,rows.sum\n\(order),\(service),1\n")
        XCTAssertEqual(bk("import", "Order", "one.csv").status, 0)
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM OrderRow WHERE id = \(highest)"), ["0"])
        // ... and neither the next import's new row nor `add` takes its ID.
        dir.write("two.csv", "number,rows.service,rows.sum\n\(order),\(service),1\n\(order),\(service),2\n")
        XCTAssertEqual(bk("import", "Order", "two.csv").status, 0)
        ok("add", "OrderRow", "order=\(order)", "service=\(service)", "sum=3")
        let next = Int64(highest)! + 1
        XCTAssertEqual(try queryStore(store, "SELECT id || '|' || sum FROM OrderRow WHERE id >= \(highest) ORDER BY id").map { $0 ?? "" },
                       ["\(next)|200", "\(next + 1)|300"])
    }
}
