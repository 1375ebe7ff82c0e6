// Issue 14 ("Trust, part 2"): the object graph stays consistent whatever the command. Each test is named after
// what it broke; each runs the built binary on a temporary store and checks the store (and `check`) afterwards.

import Foundation
import TestSupport
import XCTest

final class GraphConsistencyTests: StoreCommandTestCase {
    override func setUp() {
        super.setUp()
        SampleStore.copy(to: store)
    }

    func checkIsClean(file: StaticString = #filePath, line: UInt = #line) {
        let r = bk("check")
        XCTAssertEqual(r.status, 0, "check: \(r)", file: file, line: line)
    }

    func customerOf(_ order: String) throws -> String? {
        try queryStore(store, "SELECT c.name FROM \"Order\" o LEFT JOIN Customer c ON c.id = o.customer_id WHERE o.number = '\(order)'").first ?? nil
    }

    // MARK: Relationships from both sides

    func testAddingACustomerWithOrdersMovesThemToIt() throws {
        XCTAssertEqual(try customerOf("2026-001"), "Smith & Sons")
        ok("add", "Customer", "name=NewC", "orders=2026-001,2026-002")
        XCTAssertEqual(try customerOf("2026-001"), "NewC")
        XCTAssertEqual(try customerOf("2026-002"), "NewC")
        XCTAssertTrue(ok("show", "Customer", "NewC").contains("orders  2026-001, 2026-002"))
        XCTAssertFalse(ok("show", "Customer", "Smith & Sons").contains("2026-001"))
        checkIsClean()
    }

    func testRelationshipsChangeFromEitherSideWithAddAndRemove() throws {
        ok("add", "Customer", "name=NewC")
        ok("set", "Order", "2026-003", "customer=NewC")
        ok("set", "Customer", "NewC", "orders+=2026-004")
        XCTAssertEqual(try customerOf("2026-003"), "NewC")
        XCTAssertEqual(try customerOf("2026-004"), "NewC")
        ok("set", "Customer", "NewC", "orders-=2026-003")
        XCTAssertEqual(try customerOf("2026-003"), nil)
        // Many-to-many, from the tag's side and from the customer's.
        ok("set", "Tag", "vip", "customers+=NewC")
        XCTAssertTrue(ok("show", "Customer", "NewC").contains("tags    vip"))
        ok("set", "Customer", "NewC", "tags-=vip")
        XCTAssertFalse(ok("show", "Tag", "vip").contains("NewC"))
        checkIsClean()
    }

    func testARequiredInverseLeftEmptyIsAValidationErrorNamingIt() throws {
        let before = try storeFingerprint(store)
        let r = bk("set", "Order", "2026-001", "rows=OrderRow/5")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("bookkeeper: OrderRow/1: OrderRow.order is required\n"), r.stderr)
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    // MARK: Every problem of a command, value errors included

    func testAllValueErrorsOfOneCommandAreReported() throws {
        let before = try storeFingerprint(store)
        let r = bk("add", "Order", "number=Z-1", "date=2024-02-30", "paid=maybe", "customer=Acme Ltf")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: Order.date: "2024-02-30" is not a date (expected YYYY-MM-DD)
            bookkeeper: Order.paid: "maybe" is not a boolean (expected yes/no, true/false or 1/0)
            bookkeeper: Order.customer: Customer with name "Acme Ltf" not found — did you mean "Acme Ltd"?

            """)
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    // MARK: Rules hold for every object a save affects

    static let ruleModel = """
        entities:
          Order:
            attributes:
              total: { type: decimal, scale: 2, default: 0 }
            rules:
              - { where: "total == rows.@sum.sum", message: "total must equal the sum of the rows" }
        """

    func testADocumentRuleHoldsWhenARowChanges() throws {
        let model = dir.write("rules.yaml", Self.ruleModel)
        func run(_ args: String...) -> CLIResult { runCLI(["--store", dir.file("r.sqlite"), "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        XCTAssertEqual(run("add", "Service", "name=S1").status, 0)
        dir.write("o.csv", "number,total,rows.service,rows.sum\nB-1,7,S1,3\nB-1,7,S1,4\n")
        XCTAssertEqual(run("import", "Order", "o.csv").status, 0)
        // A row changed, added or deleted on its own breaks its document's rule: refused.
        let set = run("set", "OrderRow", "OrderRow/1", "sum=5")
        XCTAssertEqual(set.status, 65, "\(set)")
        XCTAssertEqual(set.stderr, "bookkeeper: Order/1 \"B-1\": total must equal the sum of the rows\n")
        XCTAssertEqual(run("add", "OrderRow", "order=B-1", "service=S1", "sum=1").status, 65)
        XCTAssertEqual(run("delete", "OrderRow", "OrderRow/2").status, 65)
        // An import of rows alone that breaks it: nothing imported.
        dir.write("rows.csv", "order.number,service,sum\nB-1,S1,1\n")
        let rows = run("import", "OrderRow", "rows.csv")
        XCTAssertEqual(rows.status, 65, "\(rows)")
        XCTAssertEqual(rows.stderr, "bookkeeper: Order/1 \"B-1\": total must equal the sum of the rows\nbookkeeper: nothing was imported: the objects above would break the model's rules\n")
        // A document import whose total disagrees with its rows: nothing imported.
        dir.write("bad.csv", "number,total,rows.service,rows.sum\nB-2,1,S1,5\n")
        XCTAssertEqual(run("import", "Order", "bad.csv").status, 65)
        let check = run("check")
        XCTAssertEqual(check.status, 0, "check finds nothing a successful command created: \(check)")
        XCTAssertEqual(try queryStore(dir.file("r.sqlite"), "SELECT group_concat(sum, ' ') FROM OrderRow"), ["300 400"], "the rows as imported (cents)")
    }

    // MARK: No Action leaves a dangling reference that every command can show

    func testNoActionDanglingReferencesShowAsMissing() throws {
        let model = dir.write("banks.yaml", """
            entities:
              Bank:
                kind: directory
                attributes:
                  name: { type: string, required: true }
              Customer:
                relationships:
                  bank: { to: Bank, inverse: customers, delete: nullify, inverse-delete: no action }
            """)
        let s = dir.file("b.sqlite")
        func run(_ args: String...) -> CLIResult { runCLI(["--store", s, "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        XCTAssertEqual(run("add", "Bank", "name=B1").status, 0)
        XCTAssertEqual(run("add", "Customer", "name=C1", "bank=B1").status, 0)
        XCTAssertEqual(run("delete", "Bank", "B1").status, 0)
        let show = run("show", "Customer", "C1")
        XCTAssertEqual(show.status, 0, "\(show)")
        XCTAssertTrue(show.stdout.contains("bank    Bank/1 (missing)"), show.stdout)
        let list = run("list", "Customer")
        XCTAssertEqual(list.status, 0, "\(list)")
        XCTAssertTrue(list.stdout.contains("Bank/1 (missing)"), list.stdout)
        // What a successful delete left is no problem (issue 26): a note, and 0.
        let check = run("check")
        XCTAssertEqual(check.status, 0, "\(check)")
        XCTAssertTrue(check.stdout.contains("note: Customer/1.bank refers to deleted Bank/1 (Bank.customers has delete rule No Action)"), check.stdout)
        let export = run("export", "Customer")
        XCTAssertEqual(export.status, 0, "\(export)")
        XCTAssertEqual(export.stdout, "name,code,info,bank,tags\nC1,,,,\n")
        XCTAssertEqual(export.stderr, "bookkeeper: warning: 1 Customer.bank refers to a deleted Bank (Customer/1): written empty\n")
        // The object can still be changed.
        XCTAssertEqual(run("set", "Customer", "C1", "info=still editable").status, 0)
    }

    // MARK: Rows with their own line key

    func testRowsWithALineKeyAreMatchedByItNotByPosition() throws {
        let model = dir.write("lines.yaml", "entities:\n  OrderRow:\n    attributes:\n      line: { type: integer, unique: true }\n")
        let s = dir.file("l.sqlite")
        func run(_ args: String...) -> CLIResult { runCLI(["--store", s, "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        XCTAssertEqual(run("add", "Order", "number=I-1").status, 0)
        XCTAssertEqual(run("add", "Order", "number=I-2").status, 0)
        dir.write("lines.csv", "line,order.number,service.name,sum\n1,I-1,T1,1\n2,I-1,T2,2\n3,I-2,T1,3\n")
        XCTAssertEqual(run("import", "OrderRow", "lines.csv", "--create-missing").status, 0)
        // Reordered: nothing changes.
        dir.write("reordered.csv", "line,order.number,service.name,sum\n2,I-1,T2,2\n1,I-1,T1,1\n3,I-2,T1,3\n")
        let again = run("import", "OrderRow", "reordered.csv")
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertTrue(again.stdout.contains("0 inserted, 0 updated, 3 unchanged, 0 deleted"), again.stdout)
        // A line moved to another document keeps its row ID; the document named loses the lines it no longer has.
        dir.write("moved.csv", "line,order.number,service.name,sum\n1,I-2,T1,9\n")
        let moved = run("import", "OrderRow", "moved.csv")
        XCTAssertEqual(moved.status, 0, "\(moved)")
        XCTAssertEqual(try queryStore(s, "SELECT group_concat(id || ':' || line || ':' || order_id, ' ') FROM (SELECT * FROM OrderRow ORDER BY id)"),
                       ["1:1:2 2:2:1"])
        // The same line key twice with other values is a conflict, not a silent last-wins.
        dir.write("twice.csv", "line,order.number,service.name,sum\n5,I-1,T1,1\n5,I-1,T1,2\n")
        let twice = run("import", "OrderRow", "twice.csv")
        XCTAssertEqual(twice.status, 65, "\(twice)")
        XCTAssertEqual(try queryStore(s, "SELECT count(*) FROM OrderRow WHERE line = 5"), ["0"])
        XCTAssertEqual(run("check").status, 0)
    }

    // MARK: Documents whose lines are apart, with --on-error skip

    /// Seen: an order whose two lines were not adjacent and disagreed on its date was stored with its first line,
    /// the second rejected — and re-importing the fixed reject replaced the rows, losing the first. Now the
    /// document is rejected with all its lines (the file is read again), the others are kept, and the fixed
    /// rejects file imports the whole document.
    func testADocumentWhoseLinesAreApartIsRejectedWithAllItsLines() throws {
        ok("add", "Service", "name=S9")
        dir.write("apart.csv", """
            number,date,rows.service,rows.sum
            A-1,2024-01-01,S9,1
            B-1,2024-01-01,S9,2
            A-1,2024-01-02,S9,3
            C-1,2024-01-01,S9,4
            C-1,2024-01-01,S9,x
            A-1,2024-01-01,S9,5
            D-1,2024-01-01,S9,6

            """)
        let r = bk("import", "Order", "apart.csv", "--on-error", "skip", "--rejects", "rejects.csv")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: apart.csv:4:5: column "date": Order with number "A-1" was given earlier on line 2 with other values (date) (--on-conflict first or last keeps one)
            bookkeeper: apart.csv:6:19: column "rows.sum": "x" is not a decimal number
            bookkeeper: 5 records rejected (written to rejects.csv); the others were imported

            """)
        XCTAssertTrue(r.stdout.contains("Order     2 inserted, 0 updated, 0 unchanged, 2 rejected"), r.stdout)
        XCTAssertTrue(r.stdout.contains("OrderRow  2 inserted, 0 updated, 0 unchanged, 0 deleted, 5 rejected"), r.stdout)
        XCTAssertEqual(try queryStore(store, "SELECT group_concat(number, ' ') FROM (SELECT number FROM \"Order\" WHERE number LIKE '_-1' ORDER BY number)"), ["B-1 D-1"])
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number LIKE '_-1'"), ["2"])
        let rejects = try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8)
        XCTAssertEqual(rejects, """
            number,date,rows.service,rows.sum,reason
            A-1,2024-01-01,S9,1,"rejected with Order ""A-1"" (line 4: column ""date"": Order with number ""A-1"" was given earlier on line 2 with other values (date) (--on-conflict first or last keeps one))"
            A-1,2024-01-02,S9,3,"column ""date"": Order with number ""A-1"" was given earlier on line 2 with other values (date) (--on-conflict first or last keeps one)"
            C-1,2024-01-01,S9,4,"rejected with Order ""C-1"" (line 6: column ""rows.sum"": ""x"" is not a decimal number)"
            C-1,2024-01-01,S9,x,"column ""rows.sum"": ""x"" is not a decimal number"
            A-1,2024-01-01,S9,5,"rejected with Order ""A-1"" (line 4: column ""date"": Order with number ""A-1"" was given earlier on line 2 with other values (date) (--on-conflict first or last keeps one))"

            """)
        checkIsClean()

        // Fixed, the rejects file imports every line of both documents.
        dir.write("fixed.csv", rejects.replacingOccurrences(of: "2024-01-02", with: "2024-01-01").replacingOccurrences(of: "S9,x", with: "S9,7"))
        let again = bk("import", "Order", "fixed.csv")
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(try queryStore(store, "SELECT group_concat(sum, ' ') FROM (SELECT r.sum FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number = 'A-1' ORDER BY r.id)"),
                       ["100 300 500"])
        XCTAssertEqual(try queryStore(store, "SELECT group_concat(sum, ' ') FROM (SELECT r.sum FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number = 'C-1' ORDER BY r.id)"),
                       ["400 700"])
        checkIsClean()
    }

    /// A rule broken only by a document's later stretch (its total is the sum of all its rows) rejects the whole
    /// document too, with the rule's message on the stretch that broke it.
    func testADocumentWhoseLaterLinesBreakARuleIsRejectedWhole() throws {
        let model = dir.write("rules.yaml", Self.ruleModel)
        let s = dir.file("apart.sqlite")
        func run(_ args: String...) -> CLIResult { runCLI(["--store", s, "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        XCTAssertEqual(run("add", "Service", "name=S1").status, 0)
        dir.write("apart.csv", "number,total,rows.service,rows.sum\nO1,3,S1,3\nO2,1,S1,1\nO1,3,S1,2\n")
        let r = run("import", "Order", "apart.csv", "--on-error", "skip", "--rejects", "rejects.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: apart.csv:4: Order \"O1\": total must equal the sum of the rows\nbookkeeper: 2 records rejected (written to rejects.csv); the others were imported\n")
        XCTAssertEqual(try queryStore(s, "SELECT group_concat(number, ' ') FROM \"Order\""), ["O2"])
        XCTAssertEqual(try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8), """
            number,total,rows.service,rows.sum,reason
            O1,3,S1,3,"rejected with Order ""O1"" (line 4: total must equal the sum of the rows)"
            O1,3,S1,2,"Order ""O1"": total must equal the sum of the rows"

            """)
        XCTAssertEqual(run("check").status, 0)
    }

    /// A rule is about the whole document: an order whose first lines alone do not add up to its total, but all its
    /// lines do, is kept (as without --on-error skip); one whose lines never add up is rejected with all of them.
    func testADocumentApartIsJudgedByItsRulesWithAllItsRows() throws {
        let model = dir.write("rules.yaml", Self.ruleModel)
        let s = dir.file("whole.sqlite")
        func run(_ args: String...) -> CLIResult { runCLI(["--store", s, "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        XCTAssertEqual(run("add", "Service", "name=S1").status, 0)
        dir.write("apart.csv", "number,total,rows.service,rows.sum\nO1,3,S1,1\nO2,1,S1,1\nO1,3,S1,2\nO3,4,S1,1\nO2,1,S1,0\nO3,4,S1,2\n")
        let r = run("import", "Order", "apart.csv", "--on-error", "skip", "--rejects", "rejects.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: apart.csv:7: Order \"O3\": total must equal the sum of the rows\nbookkeeper: 2 records rejected (written to rejects.csv); the others were imported\n")
        XCTAssertEqual(try queryStore(s, "SELECT group_concat(number || ':' || total, ' ') FROM (SELECT * FROM \"Order\" ORDER BY number)"), ["O1:300 O2:100"])
        XCTAssertEqual(try queryStore(s, "SELECT count(*) FROM OrderRow"), ["4"])
        XCTAssertEqual(try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8), """
            number,total,rows.service,rows.sum,reason
            O3,4,S1,1,"rejected with Order ""O3"" (line 7: total must equal the sum of the rows)"
            O3,4,S1,2,"Order ""O3"": total must equal the sum of the rows"

            """)
        XCTAssertEqual(run("check").status, 0)
    }

    /// Standard input cannot be read again: the import is refused whole and says how to import it.
    func testADocumentApartOnStandardInputRefusesTheImport() throws {
        ok("add", "Service", "name=S9")
        let before = try storeFingerprint(store)
        let text = "number,date,rows.service,rows.sum\nA-1,2024-01-01,S9,1\nB-1,2024-01-01,S9,2\nA-1,2024-01-02,S9,3\n"
        let r = runCLI(["--store", store, "import", "Order", "-", "--on-error", "skip", "--rejects", "rejects.csv"], in: dir.path, stdin: text)
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: -:4:5: column "date": Order with number "A-1" was given earlier on line 2 with other values (date) (--on-conflict first or last keeps one)
            bookkeeper: Order "A-1": its lines are not together (line 2 was accepted, line 4 is wrong), so the document can be neither kept nor rejected whole from standard input, which cannot be read again; nothing was imported — put each document's lines together, fix line 4, or import from a regular file, which is read again to reject the document whole

            """)
        XCTAssertEqual(try storeFingerprint(store), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("rejects.csv")))

        // A document rejected in its first stretch is rejected with its later lines in one pass.
        dir.write("firstbad.csv", "number,date,rows.service,rows.sum\nA-1,2024-01-01,S9,x\nB-1,2024-01-01,S9,2\nA-1,2024-01-01,S9,3\n")
        let s = bk("import", "Order", "firstbad.csv", "--on-error", "skip", "--rejects", "rejects.csv")
        XCTAssertEqual(s.status, 65)
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM \"Order\" WHERE number = 'A-1'"), ["0"])
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM \"Order\" WHERE number = 'B-1'"), ["1"])
        XCTAssertEqual(try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8), """
            number,date,rows.service,rows.sum,reason
            A-1,2024-01-01,S9,x,"column ""rows.sum"": ""x"" is not a decimal number"
            A-1,2024-01-01,S9,3,"rejected with Order ""A-1"" (its lines from line 2 on were rejected)"

            """)
        checkIsClean()
    }

    /// Found by ModelBasedGraphTests (seeds 11 and 4804): with --on-error skip, one document that broke the
    /// document-rows rule made the whole import fail; and a document given fewer rows than it had was judged
    /// with its old rows still there.
    func testSkipRejectsOnlyTheDocumentThatBreaksARule() throws {
        let model = dir.write("rules.yaml", Self.ruleModel)
        let s = dir.file("k.sqlite")
        func run(_ args: String...) -> CLIResult { runCLI(["--store", s, "--model", model] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        for service in ["S1", "S2"] { XCTAssertEqual(run("add", "Service", "name=\(service)").status, 0) }
        dir.write("first.csv", "number,total,rows.service,rows.sum\nO1,3,S1,1\nO1,3,S2,2\n")
        XCTAssertEqual(run("import", "Order", "first.csv").status, 0)
        dir.write("mixed.csv", "number,total,rows.service,rows.sum\nO5,6.01,S2,2\nO5,6.01,S1,4\nO4,6,S1,5\nO4,6,S2,1\nO1,1,S1,1\n")
        let r = run("import", "Order", "mixed.csv", "--on-error", "skip")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: mixed.csv:2: Order \"O5\": total must equal the sum of the rows\nbookkeeper: 2 records rejected; the others were imported\n")
        XCTAssertEqual(try queryStore(s, "SELECT group_concat(number || ':' || total, ' ') FROM (SELECT * FROM \"Order\" ORDER BY number)"), ["O1:100 O4:600"])
        XCTAssertEqual(try queryStore(s, "SELECT count(*) FROM OrderRow"), ["3"], "O1 has one row now, O4 two")
        XCTAssertEqual(run("check").status, 0)
    }

    /// A rows import giving only sums reset the stored quantity and price (and called it "updated").
    func testARowsImportKeepsTheColumnsTheFileDoesNotHave() throws {
        let s = dir.file("q.sqlite")
        func run(_ args: String...) -> CLIResult { runCLI(["--store", s] + args, in: dir.path) }
        XCTAssertEqual(run("init").status, 0)
        XCTAssertEqual(run("add", "Service", "name=S1").status, 0)
        XCTAssertEqual(run("add", "Order", "number=O1").status, 0)
        XCTAssertEqual(run("add", "OrderRow", "order=O1", "service=S1", "quantity=5", "price=3").status, 0)
        dir.write("sums.csv", "order,service,sum\nO1,S1,15.00\n")
        let same = run("import", "OrderRow", "sums.csv")
        XCTAssertTrue(same.stdout.contains("0 inserted, 0 updated, 1 unchanged"), same.stdout)
        // A new price alone: the quantity stays and the derived sum follows.
        dir.write("price.csv", "order,service,price\nO1,S1,4.00\n")
        XCTAssertEqual(run("import", "OrderRow", "price.csv").status, 0)
        XCTAssertEqual(try queryStore(s, "SELECT quantity || ' ' || price || ' ' || sum FROM OrderRow"), ["5000 400 2000"])
    }
}
