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
        XCTAssertTrue(bad.stderr.contains("Note/1.bank refers to Bank/7, which bookkeeper never handed out (written by another tool)"), bad.stderr)
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

    // MARK: Attack 27

    // Finding 2: the mark was raised only by bookkeeper's own deletes. When another tool deleted the newest object,
    // `check` said its ID "was never an object's ID", the next `add` handed it out again, and the dangling reference
    // then pointed at the new object with `check` saying ok. Now the mark is the highest ID ever handed out, raised
    // at inserts too; a store without one takes the table's largest at its first write.
    func testAnIDAnotherToolDeletedIsNeverHandedOutAgain() throws {
        must("init")
        must("add", "Bank", "name=A")
        must("add", "Bank", "name=E")
        must("add", "Note", "name=n4", "bank=E")
        try executeSQL(store, "DELETE FROM Bank WHERE name = 'E'")
        let check = run("check")
        XCTAssertEqual(check.status, 0, "\(check)")
        XCTAssertEqual(check.stdout, """
            note: Note/1.bank refers to deleted Bank/2 (Bank.notes has delete rule No Action)
            ok: \(store) passed the integrity, schema, foreign key and model checks

            """)
        XCTAssertEqual(must("add", "Bank", "name=F"), "Bank/3\n")
        XCTAssertTrue(must("show", "Note", "n4").contains("bank  Bank/2 (missing)"))
        // The batch writer (an import) raises the mark too.
        dir.write("banks.csv", "name\nG\n")
        must("import", "Bank", "banks.csv")
        try executeSQL(store, "DELETE FROM Bank WHERE name = 'G'")
        XCTAssertEqual(must("add", "Bank", "name=H"), "Bank/5\n")
        // A store without marks (written before they existed) takes the largest IDs at its first write.
        try executeSQL(store, "DELETE FROM _bookkeeper_meta WHERE key LIKE 'ids:%'")
        must("add", "Note", "name=n5")
        try executeSQL(store, "DELETE FROM Bank WHERE name = 'H'")
        XCTAssertEqual(must("add", "Bank", "name=I"), "Bank/6\n")
        XCTAssertEqual(run("check").status, 0)
    }

    // Finding 3: `check` called references to IDs 0 and -3 "deleted" (a note, 0): the test was only "at or below
    // the largest handed out". No object is ever given an ID below 1: a problem (65).
    func testCheckCallsAReferenceToAnIDBelowOneAProblem() throws {
        must("init")
        must("add", "Bank", "name=B")
        try executeSQL(store, "INSERT INTO Note (id, name, bank_id) VALUES (100, 'neg', -3), (101, 'zero', 0)")
        let check = run("check")
        XCTAssertEqual(check.status, 65, "\(check)")
        XCTAssertFalse(check.stdout.contains("note:"), check.stdout)
        XCTAssertTrue(check.stderr.contains("Note/100.bank refers to Bank/-3, which no object is ever given (IDs start at 1; written by another tool)"), check.stderr)
        XCTAssertTrue(check.stderr.contains("Note/101.bank refers to Bank/0, which no object is ever given (IDs start at 1; written by another tool)"), check.stderr)
        // Above the highest ID handed out: never handed out either.
        try executeSQL(store, "UPDATE Note SET bank_id = 7 WHERE id = 101")
        XCTAssertTrue(run("check").stderr.contains("Note/101.bank refers to Bank/7, which bookkeeper never handed out (written by another tool)"))
    }

    // Finding 8: changing a No Action rule to another (documented as additive) adds a foreign key, and the
    // references a No Action delete left blocked the migration ("would leave 1 broken reference") and every command
    // after it, with a remedy that did not apply. Now the migration clears them (they read as none everywhere), says
    // so in its plan, and stays automatic; the dry run says what the real run does.
    func testANoActionRuleChangedToNullifyClearsWhatItLeft() throws {
        must("init")
        for bank in ["B1", "B2", "B3"] { must("add", "Bank", "name=\(bank)") }
        for (note, bank) in [("n1", "B1"), ("n2", "B1"), ("n3", "B2"), ("n4", "B3")] { must("add", "Note", "name=\(note)", "bank=\(bank)") }
        must("delete", "Bank", "B1")
        must("delete", "Bank", "B2")
        let before = dir.file("before.sqlite")
        try FileManager.default.copyItem(atPath: store, toPath: before)
        for rule in ["nullify", "deny", "cascade"] {
            try? FileManager.default.removeItem(atPath: store)
            try FileManager.default.copyItem(atPath: before, toPath: store)
            modelFile = dir.write("model.yaml", Self.model.replacingOccurrences(of: "no action", with: rule))
            let dry = run("migrate", "--dry-run")
            XCTAssertEqual(dry.status, 0, "\(rule): \(dry)")
            XCTAssertTrue(dry.stdout.contains("- clear 3 references to deleted objects: Note/1.bank (was Bank/1), Note/2.bank (was Bank/1), Note/3.bank (was Bank/2)\n"),
                          "\(rule): \(dry.stdout)")
            let real = run("migrate")
            XCTAssertEqual(real.status, 0, "\(rule): \(real)")
            XCTAssertTrue(real.stdout.contains("- clear 3 references to deleted objects: Note/1.bank (was Bank/1), Note/2.bank (was Bank/1), Note/3.bank (was Bank/2)\n"),
                          "\(rule): \(real.stdout)")
            XCTAssertEqual(try queryStore(store, "SELECT group_concat(name || ':' || ifnull(bank_id, '-'), ' ') FROM (SELECT * FROM Note ORDER BY id)"),
                           ["n1:- n2:- n3:- n4:3"], rule)
            let check = run("check")
            XCTAssertEqual(check.status, 0, "\(rule): \(check)")
            XCTAssertFalse(check.stdout.contains("note:"), check.stdout)
            XCTAssertEqual(run("list", "Note").status, 0, rule)
        }
        // A required relationship cannot be cleared: the plan is blocked, naming the objects, dry run and real run.
        try? FileManager.default.removeItem(atPath: store)
        try FileManager.default.copyItem(atPath: before, toPath: store)
        try executeSQL(store, "DELETE FROM Note WHERE bank_id IS NULL")
        modelFile = dir.write("model.yaml", Self.model.replacingOccurrences(of: "inverse-delete: no action", with: "inverse-delete: no action, required: true"))
        XCTAssertEqual(run("migrate").status, 0)
        modelFile = dir.write("model.yaml", Self.model.replacingOccurrences(of: "inverse-delete: no action", with: "inverse-delete: nullify, required: true"))
        for args in [["migrate", "--dry-run"], ["migrate"]] {
            let r = runCLI(["--store", store, "--model", modelFile] + args, in: dir.path)
            XCTAssertEqual(r.status, 65, "\(r)")
            XCTAssertTrue((r.stdout + r.stderr).contains("Note.bank is required, but 3 objects refer to a deleted Bank: Note/1.bank (was Bank/1), Note/2.bank (was Bank/1), Note/3.bank (was Bank/2) — set them to another Bank"), "\(r)")
        }
    }

    // Finding 9: `export` wrote a reference to a deleted object as `Bank/1` where import reads a key, so importing
    // it back attached the note to a bank named "Bank/1", or created one with --create-missing. Now it is written
    // empty, as every read sees it, with one warning per relationship.
    func testExportWritesAReferenceToADeletedObjectEmpty() throws {
        must("init")
        must("add", "Bank", "name=B")
        must("add", "Bank", "name=C")
        must("add", "Note", "name=n1", "bank=B")
        must("add", "Note", "name=n2", "bank=B")
        must("add", "Note", "name=n3", "bank=C")
        must("delete", "Bank", "B")
        let export = run("export", "Note", "n.csv")
        XCTAssertEqual(export.status, 0, "\(export)")
        XCTAssertEqual(export.stderr, "bookkeeper: warning: 2 Note.bank refer to a deleted Bank (the first Note/1): written empty\n")
        XCTAssertEqual(try String(contentsOfFile: dir.file("n.csv"), encoding: .utf8), "name,bank\nn1,\nn2,\nn3,C\n")
        must("delete", "Note", "n2")
        XCTAssertEqual(run("export", "Note").stderr, "bookkeeper: warning: 1 Note.bank refers to a deleted Bank (Note/1): written empty\n")
        // The round trip invents no bank.
        let other = dir.file("z.sqlite")
        XCTAssertEqual(runCLI(["--store", other, "--model", modelFile, "init"], in: dir.path).status, 0)
        let imported = runCLI(["--store", other, "--model", modelFile, "import", "Note", "n.csv", "--create-missing"], in: dir.path)
        XCTAssertEqual(imported.status, 0, "\(imported)")
        XCTAssertEqual(try queryStore(other, "SELECT group_concat(name, ' ') FROM Bank"), ["C"])
        XCTAssertEqual(try queryStore(other, "SELECT count(*) FROM Note WHERE bank_id IS NULL"), ["2"])
    }

    // Finding 12: an exhausted ID space was an I/O error (74) without the store's name. It is a condition of the
    // data: 65, the message starting with the store, from add, import and --create-missing alike.
    func testAnExhaustedIDSpaceIs65NamingTheStore() throws {
        must("init")
        try executeSQL(store, "INSERT INTO Bank (id, name) VALUES (9223372036854775807, 'M')")
        let message = "bookkeeper: \(store): Bank: every object ID up to 9223372036854775807 was handed out; no new object can be given one\n"
        let add = run("add", "Bank", "name=N")
        XCTAssertEqual(add.status, 65, "\(add)")
        XCTAssertEqual(add.stderr, message)
        dir.write("banks.csv", "name\nN\n")
        let imported = run("import", "Bank", "banks.csv")
        XCTAssertEqual(imported.status, 65, "\(imported)")
        XCTAssertTrue(imported.stderr.hasPrefix(message), imported.stderr)
        dir.write("notes.csv", "name,bank\nn1,N\n")
        let created = run("import", "Note", "notes.csv", "--create-missing")
        XCTAssertEqual(created.status, 65, "\(created)")
        XCTAssertTrue(created.stderr.hasPrefix(message), created.stderr)
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Bank"), ["1"], "nothing written")
    }
}
