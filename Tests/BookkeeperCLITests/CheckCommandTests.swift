import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// `check` on what another tool did to the data, on both kinds of store (issue 31): the same tamper — written with
/// the `sqlite3` shell on a store file, with SQL as the books' owner on PostgreSQL (as a superuser with
/// `session_replication_role = replica` where a foreign key would stop it, which turns off its triggers without a
/// change to the schema) — gives the same lines and exit status, and `check` changes nothing. What differs by kind
/// is only in the schema's lines (`schema: …`, the books' catalog in each store's own terms): a test that meets one
/// compares the other lines byte for byte and names the schema line it expects of each kind.
/// `CheckCommandTestsOnPostgreSQL` runs every test on PostgreSQL; the catalogue in PostgreSQL's terms is
/// `PostgreSQLTamperCheckTests`, SQLite's `SchemaTamperTests`.
class CheckCommandTests: StoreCommandTestCase {
    func seed() {
        ok("init")
        ok("add", "Tag", "name=vip")
        ok("add", "Tag", "name=wholesale")
        ok("add", "Customer", "name=Acme Ltd", "code=C042", "tags=wholesale,vip")
        ok("add", "Customer", "name=Bolt", "info=Berlin office")
        ok("add", "Service", "name=Delivery", "code=S1")
        ok("add", "Order", "number=A-1", "date=2024-03-01", "customer=Acme Ltd")
        ok("add", "Order", "number=A-2", "date=2024-03-02", "customer=Bolt", "paid=yes")
        ok("add", "OrderRow", "order=A-1", "service=Delivery", "sum=125.50")
        ok("add", "OrderRow", "order=A-2", "service=Delivery", "quantity=2", "price=10.25")
    }

    /// Books of the default model extended by `yaml`: beside the store file (every command reads it there), or
    /// recorded in books on PostgreSQL by `init --model`.
    func initialize(model yaml: String) {
        let file = dir.write("model.yaml", yaml)
        let r = storeKind == .file ? bk("init") : bk(["--model", file, "init"])
        XCTAssertEqual(r.status, 0, "\(r)")
    }

    /// Runs `statements` on the store as another tool would: the `sqlite3` shell with foreign keys off, or the books'
    /// owner on PostgreSQL (`superuser`: a superuser whose session fires no foreign key's triggers).
    func tamper(_ statements: [String], superuser: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        switch storeKind {
        case .file:
            let r = try? runTool(["/usr/bin/sqlite3", store, (["PRAGMA foreign_keys = OFF"] + statements).joined(separator: ";\n")])
            XCTAssertEqual(r?.status, 0, "sqlite3: \(r?.error ?? "could not run")", file: file, line: line)
        case .postgresql:
            do {
                let schema = try PostgreSQLLocation(uri: store).schema
                let conninfo = superuser ? try PostgreSQLTestDatabase.conninfo(user: "postgres") : try PostgreSQLTestDatabase.requireConninfo()
                let connection = try PostgreSQLConnection(conninfo: conninfo)
                defer { connection.close() }
                try connection.execute("SET search_path TO \"\(schema)\"")
                if superuser { try connection.execute("SET session_replication_role = replica") }
                for statement in statements { try connection.execute(statement) }
            } catch {
                XCTFail("tamper: \(error)", file: file, line: line)
            }
        }
    }

    func tamper(_ statements: String..., superuser: Bool = false, file: StaticString = #filePath, line: UInt = #line) {
        tamper(statements, superuser: superuser, file: file, line: line)
    }

    /// `check`'s lines on stderr without the `bookkeeper: STORE: ` before each, and its status; asserts that it
    /// changed nothing (the books as the commands show them, before and after).
    func check(entities: [(String, [String])] = StoreCommandTestCase.defaultModelColumns,
               file: StaticString = #filePath, line: UInt = #line) -> (status: Int32, lines: [String], stdout: String) {
        let before = dumpThroughCommands(store, entities: entities, in: dir.path, file: file, line: line)
        let r = bk("check")
        XCTAssertEqual(dumpThroughCommands(store, entities: entities, in: dir.path, file: file, line: line), before,
                       "check changed the books", file: file, line: line)
        let prefix = "bookkeeper: \(storeName): "
        let lines = r.stderr.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix(prefix) }, "\(r)", file: file, line: line)
        return (r.status, lines.map { String($0.dropFirst(prefix.count)) }, r.stdout)
    }

    /// Asserts that `check` lists exactly `expected` (and the schema lines `schema`, when the test names them for
    /// this kind), then the count, with exit 65.
    func assertCheck(_ expected: [String], schema: [String]? = nil, problems: Int? = nil,
                     entities: [(String, [String])] = StoreCommandTestCase.defaultModelColumns,
                     file: StaticString = #filePath, line: UInt = #line) {
        let r = check(entities: entities, file: file, line: line)
        XCTAssertEqual(r.status, 65, "\(r)", file: file, line: line)
        let schemaLines = r.lines.filter { $0.hasPrefix("schema: ") }
        if let schema { XCTAssertEqual(schemaLines, schema, file: file, line: line) }
        let count = problems ?? (expected.count + schemaLines.count)
        XCTAssertEqual(r.lines.filter { !$0.hasPrefix("schema: ") }, expected + ["\(count) problem\(count == 1 ? "" : "s") found"], file: file, line: line)
    }

    /// The line each kind gives for the model's unique index on Customer.name, dropped.
    var droppedNameIndex: String {
        switch storeKind {
        case .file:
            #"schema: index "Customer_name_unique" is missing (CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name")); bookkeeper writes nothing to the store until this is undone"#
        case .postgresql:
            #"schema: index "Customer_name_unique" of the model is missing (CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer" ("name")): nothing keeps Customer.name unique; bookkeeper writes nothing to the store until this is undone"#
        }
    }

    // MARK: The tests

    func testBooksAsCommandsLeaveThemCheckClean() {
        seed()
        ok("delete", "OrderRow", "OrderRow/2")
        ok("set", "Customer", "Bolt", "tags=vip")
        let r = check()
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(r.lines, [])
        XCTAssertEqual(r.stdout, "ok: \(storeName) passed the integrity, schema, foreign key and model checks\n")
        XCTAssertEqual(bk("--quiet", "check").stdout, "")
    }

    func testARepeatedNaturalKeyOnceItsUniqueIndexWasDroppedAndWritesAreRefused() {
        seed()
        tamper(#"DROP INDEX "Customer_name_unique""#, #"INSERT INTO "Customer" ("id", "name") VALUES (9, 'Acme Ltd')"#)
        assertCheck([#"Customer.name (the natural key) must be unique, but 2 objects share "Acme Ltd" (Customer/1, Customer/9)"#],
                    schema: storeKind == .file ? nil : [droppedNameIndex])
        let before = dumpedStore()
        let r = bk("add", "Tag", "name=new")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.hasSuffix("so bookkeeper writes nothing to it until that is undone; nothing was changed — `bookkeeper check` lists every difference\n"), r.stderr)
        XCTAssertEqual(dumpedStore(), before)
    }

    func testABooleanOtherThanZeroOrOne() {
        seed()
        if storeKind == .postgresql { tamper(#"ALTER TABLE "Order" DROP CONSTRAINT "Order_made_check""#) }
        tamper(#"UPDATE "Order" SET "made" = 2 WHERE "id" = 2"#)
        assertCheck(["Order/2.made holds 2, which is not a boolean (0 or 1)"],
                    schema: storeKind == .file ? [] : ["schema: the CHECK (made IN (0, 1)) of Order.made is missing: it may hold other numbers"])
    }

    func testAReferenceToAnObjectThatDoesNotExist() {
        seed()
        tamper([#"UPDATE "OrderRow" SET "order_id" = 77 WHERE "id" = 2"#, #"DELETE FROM "Service""#], superuser: true)
        // (As SQLite's foreign-key check lists them: a table's keys last declared first, each key's rows by ID.)
        assertCheck(["OrderRow/1 refers to a Service that does not exist", "OrderRow/2 refers to a Service that does not exist",
                     "OrderRow/2 refers to a Order that does not exist"], schema: [])
    }

    func testLinksToObjectsThatDoNotExist() {
        seed()
        tamper([#"INSERT INTO "Customer_tags" ("Customer_id", "Tag_id") VALUES (2, 9)"#,
                #"INSERT INTO "Customer_tags" ("Customer_id", "Tag_id") VALUES (8, 1)"#,
                #"INSERT INTO "Customer_tags" ("Customer_id", "Tag_id") VALUES (8, 9)"#], superuser: true)
        assertCheck(["Customer_tags links Customer/2 to Tag/9, which does not exist",
                     "Customer_tags links Customer/8, which does not exist, to Tag/1",
                     "Customer_tags links Customer/8 to Tag/9, neither of which exists"], schema: [])
    }

    func testADecimalOfInt64MinUnitsAndADateThatIsNotADate() {
        seed()
        tamper(#"UPDATE "OrderRow" SET "price" = -9223372036854775808 WHERE "id" = 1"#, #"UPDATE "Order" SET "date" = 'yesterday' WHERE "id" = 2"#)
        assertCheck([#"Order/2.date holds "yesterday", which is not a date"#,
                     "OrderRow/1.price holds -9223372036854775808 units, beyond what Decimal(2) can hold (±92233720368547758.07)"], schema: [])
    }

    func testAnIDMarkAnotherToolChanged() {
        seed()
        let mark = "Customer: the mark of the object IDs handed out (ids:Customer in _bookkeeper_meta)"
        tamper("UPDATE _bookkeeper_meta SET value = 'abc' WHERE key = 'ids:Customer'")
        assertCheck([#"\#(mark) holds "abc", which is not an ID: every add of a Customer is refused"#], schema: [])
        tamper("DELETE FROM _bookkeeper_meta WHERE key = 'ids:Customer'")
        assertCheck(["\(mark) is missing (another tool removed it): an ID of a deleted object could be handed out again"], schema: [])
    }

    static let parcels = """
        entities:
          Parcel:
            kind: directory
            key: label
            attributes:
              label: { type: string, required: true }
              weight: { type: double }
              pieces: { type: integer }
            rules:
              - { where: "pieces == nil OR pieces >= 0", message: "pieces are never negative" }
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
    static let parcelColumns: [(String, [String])] = [("Parcel", ["label", "weight", "pieces"]), ("Bank", ["name"]), ("Note", ["name", "bank"])]

    func testNonFiniteNumbersAndObjectsThatBreakARule() {
        initialize(model: Self.parcels)
        for (label, count) in [("a", "1"), ("b", "2"), ("c", "3")] { ok("add", "Parcel", "label=\(label)", "weight=1.5", "pieces=\(count)") }
        let (infinity, minus) = storeKind == .file ? ("9e999", "-9e999") : ("'Infinity'", "'-Infinity'")
        tamper(#"UPDATE "Parcel" SET "weight" = \#(infinity) WHERE "id" = 1"#, #"UPDATE "Parcel" SET "weight" = \#(minus) WHERE "id" = 2"#,
               #"UPDATE "Parcel" SET "pieces" = -4 WHERE "id" = 3"#)
        assertCheck(["Parcel/1.weight holds a non-finite number (inf)", "Parcel/2.weight holds a non-finite number (-inf)",
                     #"Parcel/3 "c": pieces are never negative"#], schema: [], entities: [("Parcel", ["label", "pieces"])])
    }

    func testWhatANoActionDeleteLeftIsANoteAndAnIDNeverHandedOutAProblem() {
        initialize(model: Self.parcels)
        ok("add", "Bank", "name=First")
        ok("add", "Note", "name=n1", "bank=Bank/1")
        ok("add", "Note", "name=n2")
        ok("delete", "Bank", "Bank/1")
        let r = check(entities: Self.parcelColumns)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(r.stdout, "note: Note/1.bank refers to deleted Bank/1 (Bank.notes has delete rule No Action)\n"
                       + "ok: \(storeName) passed the integrity, schema, foreign key and model checks\n")
        tamper(#"UPDATE "Note" SET "bank_id" = 7 WHERE "id" = 2"#)
        assertCheck(["Note/2.bank refers to Bank/7, which bookkeeper never handed out (written by another tool)"], schema: [],
                    entities: Self.parcelColumns)
    }

    func testEachKindIsListedTwentyTimesThenCounted() {
        ok("init")
        for n in 1...23 { ok("add", "Order", "number=N-\(n)", "date=2024-01-01") }
        if storeKind == .postgresql { tamper(#"ALTER TABLE "Order" DROP CONSTRAINT "Order_paid_check""#) }
        tamper(#"UPDATE "Order" SET "paid" = 5"#)
        let r = check()
        XCTAssertEqual(r.status, 65)
        let lines = r.lines.filter { !$0.hasPrefix("schema: ") }
        XCTAssertEqual(lines, (1...20).map { "Order/\($0).paid holds 5, which is not a boolean (0 or 1)" }
                       + ["Order.paid: … and 3 more", "\(storeKind == .file ? 23 : 24) problems found"])
    }
}

final class CheckCommandTestsOnPostgreSQL: CheckCommandTests {
    override class var storeKind: StoreKind { .postgresql }

    // Linux's test discovery finds only the tests a class declares itself (swift-package-manager#5573), so each
    // inherited test is named again.
    override func testBooksAsCommandsLeaveThemCheckClean() { super.testBooksAsCommandsLeaveThemCheckClean() }
    override func testARepeatedNaturalKeyOnceItsUniqueIndexWasDroppedAndWritesAreRefused() { super.testARepeatedNaturalKeyOnceItsUniqueIndexWasDroppedAndWritesAreRefused() }
    override func testABooleanOtherThanZeroOrOne() { super.testABooleanOtherThanZeroOrOne() }
    override func testAReferenceToAnObjectThatDoesNotExist() { super.testAReferenceToAnObjectThatDoesNotExist() }
    override func testLinksToObjectsThatDoNotExist() { super.testLinksToObjectsThatDoNotExist() }
    override func testADecimalOfInt64MinUnitsAndADateThatIsNotADate() { super.testADecimalOfInt64MinUnitsAndADateThatIsNotADate() }
    override func testAnIDMarkAnotherToolChanged() { super.testAnIDMarkAnotherToolChanged() }
    override func testNonFiniteNumbersAndObjectsThatBreakARule() { super.testNonFiniteNumbersAndObjectsThatBreakARule() }
    override func testWhatANoActionDeleteLeftIsANoteAndAnIDNeverHandedOutAProblem() { super.testWhatANoActionDeleteLeftIsANoteAndAnIDNeverHandedOutAProblem() }
    override func testEachKindIsListedTwentyTimesThenCounted() { super.testEachKindIsListedTwentyTimesThenCounted() }
}
