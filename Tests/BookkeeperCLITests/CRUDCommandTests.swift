import XCTest
import TestSupport

/// End to end: the built `bookkeeper` binary on temporary stores — a file here, books on PostgreSQL in
/// `CRUDCommandTestsOnPostgreSQL`, which runs every test of this class; what only a store file has is in
/// `CRUDFileCommandTests`.
class CRUDCommandTests: StoreCommandTestCase {
    func seed() {
        ok("init")
        ok("add", "Tag", "name=vip")
        ok("add", "Tag", "name=wholesale")
        ok("add", "Customer", "name=Acme Ltd", "code=C042", "tags=wholesale,vip")
        ok("add", "Service", "name=Delivery", "code=S1")
        ok("add", "Order", "number=A-1", "date=2024-03-01", "customer=Acme Ltd")
        ok("add", "OrderRow", "order=A-1", "service=Delivery", "sum=125.50")
    }

    func testInitCreatesAStoreAndIsIdempotent() throws {
        XCTAssertEqual(ok("init"), "created \(storeName)\n")
        ok("add", "Tag", "name=vip")
        let before = dumpedStore()
        let again = bk("init")
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(again.stdout, "")
        XCTAssertTrue(again.stderr.hasPrefix("bookkeeper: \(storeName) ") && again.stderr.hasSuffix("; nothing to do\n"), again.stderr)
        XCTAssertEqual(dumpedStore(), before)
    }

    func testInitOnAStoreSaysItIsAlreadyOne() throws {
        ok("init")
        let again = bk("init")
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.stderr, "bookkeeper: \(storeName) is already a store; nothing to do\n")
    }

    func testAddPrintsTheNewObjectIDAndShowDisplaysIt() {
        seed()
        XCTAssertEqual(ok("add", "OrderRow", "order=A-1", "service.code=S1", "quantity=3", "price=10.25"), "OrderRow/2\n")
        XCTAssertEqual(ok("show", "Order", "A-1"), """
            id        Order/1
            number    A-1
            date      2024-03-01
            made      false
            paid      false
            customer  Acme Ltd
            rows      OrderRow/1, OrderRow/2

            """)
        XCTAssertEqual(ok("show", "Customer", "Customer/1"), """
            id      Customer/1
            name    Acme Ltd
            code    C042
            info
            tags    vip, wholesale
            orders  A-1

            """)
    }

    func testReferencesByNaturalKeyObjectIDOrUniqueAttribute() throws {
        seed()
        ok("add", "Order", "number=A-2", "customer.code=C042")
        ok("add", "Order", "number=A-3", "customer=Customer/1")
        XCTAssertEqual(ok("fetch", "Order", "--columns", "SELF, customer", "--format", "csv"),
                       "SELF,customer\nOrder/1,Customer/1\nOrder/2,Customer/1\nOrder/3,Customer/1\n")
        XCTAssertEqual(ok("fetch", "OrderRow", "--columns", "service", "--format", "csv"), "service\nService/1\n")
    }

    func testListShowsATableWithACount() {
        seed()
        ok("add", "OrderRow", "order=A-1", "service=Delivery", "quantity=3", "price=10.25")
        XCTAssertEqual(ok("list", "OrderRow"), """
            id  quantity  price     sum  order  service
            --  --------  -----  ------  -----  --------
             1     1.000         125.50  A-1    Delivery
             2     3.000  10.25   30.75  A-1    Delivery
            2 objects

            """)
    }

    func testSetChangesValuesAndReportsUnchanged() throws {
        seed()
        XCTAssertEqual(ok("set", "Order", "A-1", "paid=yes", "made=true"), "updated Order/1\n")
        XCTAssertEqual(ok("set", "Order", "Order/1", "paid=yes"), "Order/1 unchanged\n")
        XCTAssertEqual(ok("fetch", "Order", "--columns", "made, paid", "--format", "csv"), "made,paid\ntrue,true\n")
        ok("set", "Customer", "Acme Ltd", "tags-=vip", "info=Since 2019")
        XCTAssertEqual(ok("fetch", "Customer", "--columns", "tags.@count, info", "--format", "csv"), "tags.@count,info\n1,Since 2019\n")
        ok("set", "Customer", "Acme Ltd", "info=")
        XCTAssertEqual(ok("fetch", "Customer", "--where", "info == nil", "--count"), "1\n")
    }

    func testDeleteCascadesAnOrdersRows() throws {
        seed()
        ok("add", "OrderRow", "order=A-1", "service=Delivery", "sum=1")
        XCTAssertEqual(ok("delete", "Order", "A-1"), "deleted Order/1 and 2 dependants (OrderRow/1, OrderRow/2)\n")
        XCTAssertEqual(ok("fetch", "OrderRow", "--count"), "0\n")
        XCTAssertEqual(ok("fetch", "Service", "--count"), "1\n")
    }

    func testDeleteIsDeniedForACustomerWithOrdersAndChangesNothing() throws {
        seed()
        let before = dumpedStore()
        let r = bk("delete", "Customer", "Acme Ltd")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "bookkeeper: Customer/1 \"Acme Ltd\" cannot be deleted: 1 Order object refers to it (Order/1 \"A-1\") — Customer.orders has delete rule Deny\n")
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(dumpedStore(), before)
    }

    func testDeleteNullifiesTagLinks() throws {
        seed()
        XCTAssertEqual(ok("delete", "Tag", "vip"), "deleted Tag/1\n")
        XCTAssertEqual(ok("show", "Customer", "Acme Ltd").split(separator: "\n")[4], "tags    wholesale")
        XCTAssertEqual(ok("fetch", "Customer", "--count"), "1\n")
        XCTAssertEqual(ok("fetch", "Tag", "--columns", "name", "--format", "csv"), "name\nwholesale\n")
    }

    /// A tag named `a, b` and the two tags `a` and `b` printed the same `show` line (`tags    a, b`), and ` x` lost
    /// its space (found by the attack on 0.7.0): the keys are joined as `export` and `fetch --format csv` join them.
    func testToManyItemsAreQuotedAsExportJoinsThem() {
        ok("init")
        for name in ["a", "b", "a, b", " x", "say \"hi\""] { ok("add", "Tag", "name=\(name)") }
        ok("add", "Customer", "name=One", #"tags="a, b""#)
        ok("add", "Customer", "name=Two", "tags=a,b")
        ok("add", "Customer", "name=Three", #"tags=" x",b"#)
        ok("add", "Customer", "name=Four", #"tags="say ""hi""""#)
        let expected = ["One": #""a, b""#, "Two": "a, b", "Three": #"b, " x""#, "Four": #""say ""hi""""#]
        for (customer, tags) in expected {
            let line = ok("show", "Customer", customer).split(separator: "\n").first { $0.hasPrefix("tags") }
            XCTAssertEqual(line.map(String.init), "tags    \(tags)", customer)
            // …which reads back as the same tags.
            ok("set", "Customer", customer, "tags=\(tags)")
            XCTAssertEqual(ok("show", "Customer", customer).split(separator: "\n").first { $0.hasPrefix("tags") }.map(String.init), "tags    \(tags)")
        }
    }

    /// Every kind of bad input: a one-line message naming the place, a documented status, the store unchanged.
    func testBadInputGetsOneLineAStatusAndLeavesTheStoreAlone() throws {
        seed()
        let before = dumpedStore()
        let cases: [([String], Int32, String)] = [
            (["list", "Customr"], 64, "bookkeeper: unknown entity \"Customr\" — did you mean \"Customer\"?"),
            (["add", "Customer", "nmae=x"], 64, "bookkeeper: unknown key \"nmae\" on Customer — did you mean \"name\"?"),
            (["add", "Customer", "name"], 64, "bookkeeper: expected key=value, got \"name\""),
            (["add", "Order", "number=A-9", "date=2024-02-30"], 65, "bookkeeper: Order.date: \"2024-02-30\" is not a date (expected YYYY-MM-DD)"),
            (["add", "Order", "number=A-9", "paid=maybe"], 65, "bookkeeper: Order.paid: \"maybe\" is not a boolean (expected yes/no, true/false or 1/0)"),
            (["add", "OrderRow", "order=A-1", "service=Delivery", "sum=1.005"], 65, "bookkeeper: OrderRow.sum: \"1.005\" has more than 2 decimal places"),
            (["add", "Order", "number=A-9", "customer=Acme"], 65, "bookkeeper: Order.customer: Customer with name \"Acme\" not found"),
            (["add", "Order", "number=A-9", "customer=Acme Ltf"], 65, "bookkeeper: Order.customer: Customer with name \"Acme Ltf\" not found — did you mean \"Acme Ltd\"?"),
            (["add", "Customer", "name=Acme Ltd"], 65, "bookkeeper: Customer.name \"Acme Ltd\" already exists (Customer/1)"),
            (["add", "Customer", "code=X"], 65, "bookkeeper: Customer.name is required"),
            (["add", "OrderRow", "order=A-1"], 65, "bookkeeper: OrderRow.sum is required\nbookkeeper: OrderRow.service is required"),
            (["show", "Customer", "Nobody"], 66, "bookkeeper: Customer with name \"Nobody\" not found"),
            (["show", "Customer", "Customer/99"], 66, "bookkeeper: Customer/99 not found"),
            (["show", "Customer", "Order/1"], 64, "bookkeeper: Order/1 is not a Customer"),
            (["delete", "OrderRow", "first"], 64, "bookkeeper: OrderRow objects have no natural key; name one by its object ID (OrderRow/N), not \"first\""),
            (["set", "Order", "A-1", "row=x"], 64, "bookkeeper: unknown key \"row\" on Order — did you mean \"rows\"?"),
        ]
        for (args, status, message) in cases {
            let r = bk(args)
            XCTAssertEqual(r.status, status, "\(args): \(r)")
            XCTAssertEqual(r.stderr, message + "\n", "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
        XCTAssertEqual(dumpedStore(), before)
    }
}

/// Every test of `CRUDCommandTests` on books on PostgreSQL (the postgresql tier).
final class CRUDCommandTestsOnPostgreSQL: CRUDCommandTests {
    override class var storeKind: StoreKind { .postgresql }

    // Linux's test discovery finds only the tests a class declares itself (swift-package-manager#5573), so each
    // inherited test is named again here; StoreKindSuiteTests checks that none is missing.
    override func testInitCreatesAStoreAndIsIdempotent() throws { try super.testInitCreatesAStoreAndIsIdempotent() }
    override func testInitOnAStoreSaysItIsAlreadyOne() throws { try super.testInitOnAStoreSaysItIsAlreadyOne() }
    override func testAddPrintsTheNewObjectIDAndShowDisplaysIt() { super.testAddPrintsTheNewObjectIDAndShowDisplaysIt() }
    override func testReferencesByNaturalKeyObjectIDOrUniqueAttribute() throws { try super.testReferencesByNaturalKeyObjectIDOrUniqueAttribute() }
    override func testListShowsATableWithACount() { super.testListShowsATableWithACount() }
    override func testSetChangesValuesAndReportsUnchanged() throws { try super.testSetChangesValuesAndReportsUnchanged() }
    override func testDeleteCascadesAnOrdersRows() throws { try super.testDeleteCascadesAnOrdersRows() }
    override func testDeleteIsDeniedForACustomerWithOrdersAndChangesNothing() throws { try super.testDeleteIsDeniedForACustomerWithOrdersAndChangesNothing() }
    override func testDeleteNullifiesTagLinks() throws { try super.testDeleteNullifiesTagLinks() }
    override func testToManyItemsAreQuotedAsExportJoinsThem() { super.testToManyItemsAreQuotedAsExportJoinsThem() }
    override func testBadInputGetsOneLineAStatusAndLeavesTheStoreAlone() throws { try super.testBadInputGetsOneLineAStatusAndLeavesTheStoreAlone() }
}

/// What only a store file has: its SQLite journal mode, the default store path and `$BOOKKEEPER_STORE` as a path,
/// the ways a file is not a store; `model` (on PostgreSQL a command of part 2 of issue 30); help, which needs no store.
final class CRUDFileCommandTests: StoreCommandTestCase {
    func testInitMakesAStoreFileInWALMode() throws {
        XCTAssertEqual(ok("init"), "created \(store)\n")
        XCTAssertEqual(try queryStore(store, "PRAGMA journal_mode"), ["wal"])
    }

    func testStoreComesFromOptionEnvironmentOrDefault() throws {
        XCTAssertEqual(runCLI(["init"], in: dir.path).stdout, "created bookkeeper.sqlite\n")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("bookkeeper.sqlite")))
        let env = runCLI(["init"], in: dir.path, environment: ["BOOKKEEPER_STORE": dir.file("env.sqlite")])
        XCTAssertEqual(env.stdout, "created \(dir.file("env.sqlite"))\n")
        // --store after the command name works as well as before it.
        XCTAssertEqual(runCLI(["init", "--store", "after.sqlite"], in: dir.path).stdout, "created after.sqlite\n")
    }

    func testStoreProblemsAreNamed() throws {
        let missing = bk("list", "Tag")
        XCTAssertEqual(missing.status, 66)
        XCTAssertEqual(missing.stderr, "bookkeeper: \(store): no such store — create it with `bookkeeper init`, or name another with --store\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store), "reading does not create a store")

        dir.write("books.sqlite", "this is not a database, just text that is long enough to fill a header page......")
        let notDB = bk("list", "Tag")
        XCTAssertEqual(notDB.status, 65)
        XCTAssertEqual(notDB.stderr, "bookkeeper: \(store): not a bookkeeper store (the file is not an SQLite database)\n")

        let plain = dir.file("plain.sqlite")
        try executeSQL(plain, "CREATE TABLE t (x)")
        let notStore = runCLI(["--store", plain, "list", "Tag"], in: dir.path)
        XCTAssertEqual(notStore.status, 65)
        XCTAssertEqual(notStore.stderr, "bookkeeper: \(plain): not a bookkeeper store (it is an SQLite database without bookkeeper metadata)\n")

        let newer = dir.file("newer.sqlite")
        XCTAssertEqual(runCLI(["--store", newer, "init"], in: dir.path).status, 0)
        try executeSQL(newer, "UPDATE _bookkeeper_meta SET value = '99' WHERE key = 'format'")
        let fromNewer = runCLI(["--store", newer, "add", "Tag", "name=x"], in: dir.path)
        XCTAssertEqual(fromNewer.status, 65)
        XCTAssertEqual(fromNewer.stderr, "bookkeeper: \(newer): written by a newer version of bookkeeper (store format 99; this version reads up to 1) — it can only be read, by reports and fetches\n")
        let readNewer = runCLI(["--store", newer, "list", "Tag"], in: dir.path)
        XCTAssertEqual(readNewer.status, 0, "a newer store is still read: \(readNewer)")

        let directory = runCLI(["--store", dir.path, "list", "Tag"], in: dir.path)
        XCTAssertEqual(directory.status, 65)
        XCTAssertEqual(directory.stderr, "bookkeeper: \(dir.path): not a bookkeeper store (it is a directory)\n")
    }

    func testModelDescribesEntitiesAttributesAndRelationships() {
        let text = ok("model")
        XCTAssertTrue(text.hasPrefix("Customer (directory, key: name)\n"), text)
        XCTAssertTrue(text.contains("""
              orders    to-many Order     inverse Order.customer, delete rule Deny
            """), text)
        XCTAssertTrue(text.contains("""
              tags      many-to-many Tag  inverse Tag.customers, delete rule Nullify
            """), text)
        XCTAssertTrue(text.hasSuffix("""
            OrderRow (rows)
              property  type            flags
              --------  --------------  ---------------------------------------------------
              quantity  Decimal(3)      required, default 1.000
              price     Decimal(2)
              sum       Decimal(2)      required
              order     to-one Order    required, inverse Order.rows, delete rule Nullify
              service   to-one Service  required, inverse Service.rows, delete rule Nullify

            """), text)
        let json = ok("model", "--format", "json")
        let object = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        XCTAssertEqual((object?["entities"] as? [Any])?.count, 5)
    }

    func testHelpDocumentsExitStatuses() {
        let help = runCLI(["--help"])
        XCTAssertEqual(help.status, 0)
        let words = help.stdout.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for status in ["64 usage error", "65 data error", "66 input missing", "73 cannot create output", "74 I/O error",
                       "75 temporary failure", "78 bad configuration"] {
            XCTAssertTrue(words.contains(status), status)
        }
        let usage = runCLI(["frobnicate"])
        XCTAssertEqual(usage.status, 64)
    }
}
