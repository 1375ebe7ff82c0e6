// Issue 33, part 3: `update ENTITY --where … --set …` and `delete ENTITY --where …`, validated as a save validates
// (unlike Core Data's NSBatchUpdateRequest): required values, types and ranges read as `set` reads them, unique
// values, the model's rules on every changed object and on every object whose rules read it through relationships
// (two and three deep here), delete rules (Deny refuses the whole batch naming the objects, Cascade and Nullify
// applied). All or nothing: a refusal leaves the store as it was; a dry run leaves the file's bytes and mtime.
// Both suites run on a store file and, as …OnPostgreSQL, on books on PostgreSQL.

import Foundation
import TestSupport
import XCTest

class BatchChangeCommandTests: StoreCommandTestCase {
    override func setUp() {
        super.setUp()
        dir.write("model.yaml", DeepRuleCommandTests.model)   // rules two and three relationships deep
        ok("--model", "model.yaml", "init")                       // (beside the store file too, which reads it)
        ok("add", "Region", "name=North")                              // Region/1
        ok("add", "Region", "name=South")                              // Region/2
        ok("add", "Service", "name=S1")
        ok("add", "Customer", "name=Acme", "code=A", "region=North")   // Customer/1
        ok("add", "Customer", "name=Bolt", "code=B", "region=South")   // Customer/2
        ok("add", "Customer", "name=Cole", "code=C", "region=North")   // Customer/3, no orders
        ok("add", "Order", "number=O1", "customer=Acme", "date=2026-10-01")
        ok("add", "OrderRow", "order=O1", "service=S1", "sum=600")     // OrderRow/1
        ok("add", "Order", "number=O2", "customer=Bolt", "date=2026-10-15")
        ok("add", "OrderRow", "order=O2", "service=S1", "sum=500")     // OrderRow/2
        ok("add", "Order", "number=O3", "customer=Acme", "date=2026-11-02")
        ok("add", "OrderRow", "order=O3", "service=S1", "sum=50")      // OrderRow/3
    }

    /// Everything in the store: its tables as SQLite holds them, or on PostgreSQL as the commands show them.
    func dumpedBooks() throws -> String {
        guard storeKind == .postgresql else { return try dumpStore(store) }
        return dumpThroughCommands(store, entities: [("Region", ["name"])] + Self.defaultModelColumns.map { entity, columns in
            entity == "Customer" ? (entity, columns + ["minimum", "region"]) : (entity, columns)
        }, in: dir.path)
    }

    /// The command is refused with `status` and exactly `messages` (one line each), and the store is unchanged.
    func assertRefused(_ args: [String], status: Int32 = 65, _ messages: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try dumpedBooks()
        let r = bk(args)
        XCTAssertEqual(r.status, status, "\(args): \(r)", file: file, line: line)
        XCTAssertEqual(r.stderr, messages.map { "bookkeeper: \($0)\n" }.joined(), "\(args)", file: file, line: line)
        XCTAssertEqual(r.stdout, "", "\(args)", file: file, line: line)
        XCTAssertEqual(try dumpedBooks(), before, "\(args) changed the store", file: file, line: line)
    }

    func column(_ entity: String, _ columns: String, where predicate: String = "TRUEPREDICATE") -> [String] {
        ok("fetch", entity, "--where", predicate, "--columns", columns, "--format", "csv")
            .split(separator: "\n").dropFirst().map(String.init)
    }

    func assertCheckIsClean(file: StaticString = #filePath, line: UInt = #line) {
        let r = bk("check")
        XCTAssertEqual(r.status, 0, "check: \(r)", file: file, line: line)
    }

    // MARK: Update

    func testAnUpdateChangesEveryObjectThePredicateFindsAndNothingElse() throws {
        let before = try dumpedBooks()
        XCTAssertEqual(ok("update", "Order", "--where", "customer.name == %@", "--arg", "Acme", "--set", "paid=YES", "--set", "made=1"),
                       "updated 2 Order objects\n")
        XCTAssertEqual(column("Order", "number, made, paid"), ["O1,true,true", "O2,false,false", "O3,true,true"])
        // Only the Order table changed.
        let after = try dumpedBooks()
        func withoutOrders(_ dump: String) -> String {
            dump.components(separatedBy: "## ").filter { !$0.hasPrefix("Order\n") }.joined(separator: "## ")
        }
        XCTAssertNotEqual(after, before)
        XCTAssertEqual(withoutOrders(after), withoutOrders(before))
        // Objects that already hold the values are not counted; $TODAY and --param as fetch takes them.
        XCTAssertEqual(ok("update", "Order", "--where", "customer.name == 'Acme' AND date <= $TODAY", "--set", "paid=YES"),
                       "updated 0 Order objects\n")
        XCTAssertEqual(ok("update", "Order", "--where", "date >= $from", "--param", "from=2026-10-10", "--set", "paid=YES"),
                       "updated 1 Order object\n")
        assertCheckIsClean()
    }

    func testAToOneRelationshipIsSetByNaturalKeyOrObjectIDAndClearedWithAnEmptyValue() throws {
        ok("add", "Customer", "name=Dan", "code=D", "region=South")    // Customer/4
        XCTAssertEqual(ok("update", "Order", "--where", "number == 'O2'", "--set", "customer=Dan"), "updated 1 Order object\n")
        XCTAssertEqual(column("Order", "number, customer.name"), ["O1,Acme", "O2,Dan", "O3,Acme"])
        XCTAssertEqual(ok("update", "Order", "--where", "number == 'O2'", "--set", "customer=Customer/2"), "updated 1 Order object\n")
        XCTAssertEqual(ok("update", "Order", "--where", "number == 'O2'", "--set", "customer.code=D"), "updated 1 Order object\n")
        XCTAssertEqual(column("Order", "number, customer.name"), ["O1,Acme", "O2,Dan", "O3,Acme"])
        XCTAssertEqual(ok("update", "Customer", "--where", "name == 'Cole'", "--set", "region=", "--set", "info=no region"),
                       "updated 1 Customer object\n")
        XCTAssertEqual(column("Customer", "name, region.name, info", where: "name == 'Cole'"), ["Cole,,no region"])
        assertCheckIsClean()
    }

    /// A value is read as `set` reads it: the same message, the same status.
    func testValuesAreReadAsSetReadsThem() throws {
        for assignment in ["date=2024-02-30", "minimum=0.001", "minimum=99999999999999999999", "nope=1", "made=maybe",
                           "customer=Nobody", "customer=Order/1"] {
            let entity = assignment.hasPrefix("minimum") ? "Customer" : "Order"
            let key = entity == "Customer" ? "Acme" : "O1"
            let set = bk("set", entity, key, assignment)
            XCTAssertNotEqual(set.status, 0, assignment)
            try assertRefused(["update", entity, "--where", "TRUEPREDICATE", "--set", assignment], status: set.status,
                              [String(set.stderr.dropFirst("bookkeeper: ".count).dropLast())])
        }
    }

    func testEachValidationClassRefusesTheWholeBatch() throws {
        try assertRefused(["update", "Order", "--where", "TRUEPREDICATE", "--set", "date="],
                          ["Order.date is required (Order/1, Order/2, Order/3)"])
        try assertRefused(["update", "Customer", "--where", "name == 'Bolt'", "--set", "code=A"],
                          ["Customer.code \"A\" already exists (Customer/1), so Customer/2 cannot have it"])
        try assertRefused(["update", "Customer", "--where", "TRUEPREDICATE", "--set", "code=Z"],
                          ["Customer.code \"Z\" would be given to 3 objects (Customer/1, Customer/2, Customer/3): it must be unique"])
        try assertRefused(["update", "OrderRow", "--where", "TRUEPREDICATE", "--set", "order="],
                          ["OrderRow.order is required (OrderRow/1, OrderRow/2, OrderRow/3)"])
        // More than five objects: the first five and how many more.
        for n in 4...9 { ok("add", "Order", "number=O\(n)") }
        try assertRefused(["update", "Order", "--where", "TRUEPREDICATE", "--set", "number=X"],
                          ["Order.number \"X\" would be given to 9 objects (Order/1, Order/2, Order/3, Order/4, Order/5 and 4 more): it must be unique"])
    }

    func testARuleThroughRelationshipsIsCheckedOnEveryObjectItReads() throws {
        // Two deep (OrderRow → order → customer.code) and three (→ customer.region).
        try assertRefused(["update", "Customer", "--where", "region.name == 'North'", "--set", "code="],
                          ["OrderRow/1: the row's customer has no code", "OrderRow/3: the row's customer has no code"])
        try assertRefused(["update", "Customer", "--where", "name == 'Acme'", "--set", "region="],
                          ["OrderRow/1: the row's customer has no region", "OrderRow/3: the row's customer has no region"])
        // Backwards through two to-many relationships: the customer's sum of its orders' rows.
        try assertRefused(["update", "OrderRow", "--where", "order.customer.name == 'Acme'", "--set", "sum=501"],
                          ["Customer/1 \"Acme\": its orders' rows sum to more than 1000"])
        XCTAssertEqual(ok("update", "OrderRow", "--where", "order.customer.name == 'Acme'", "--set", "sum=500"), "updated 2 OrderRow objects\n")
        // An order moved to another customer: the new customer and its region, and the former customer.
        try assertRefused(["update", "Order", "--where", "number == 'O2'", "--set", "customer=Acme"],
                          ["Region/1 \"North\": more than 2 orders in the region", "Customer/1 \"Acme\": its orders' rows sum to more than 1000"]
                            .sorted { $0.hasPrefix("Customer") && !$1.hasPrefix("Customer") })
        ok("set", "Customer", "Bolt", "minimum=400")
        ok("add", "Customer", "name=Dan", "code=D", "region=South")
        try assertRefused(["update", "Order", "--where", "number == 'O2'", "--set", "customer=Dan"],
                          ["Customer/2 \"Bolt\": its orders' rows sum to less than its minimum"])
        assertCheckIsClean()
    }

    func testUsageMistakesAre64() throws {
        try assertRefused(["update", "Customer", "--where", "TRUEPREDICATE", "--set", "tags=vip"], status: 64,
                          ["Customer.tags is to-many: a batch update changes attributes and to-one relationships only — use set for each object"])
        try assertRefused(["update", "Customer", "--set", "info=x"], status: 64,
                          ["update needs --where PREDICATE (give TRUEPREDICATE to change every Customer object)"])
        try assertRefused(["update", "Customer", "--where", "TRUEPREDICATE"], status: 64, ["update needs at least one --set key=value"])
        try assertRefused(["update", "Customer", "--where", "TRUEPREDICATE", "--set", "info=x", "--set", "info=y"], status: 64,
                          ["info is given twice: \"info=x\" and \"info=y\" — give one value"])
        try assertRefused(["update", "Customer", "--where", "nmae == 'x'", "--set", "info=x"], status: 64,
                          [String(bk("fetch", "Customer", "--where", "nmae == 'x'").stderr.dropFirst("bookkeeper: ".count).dropLast())])
        try assertRefused(["delete", "Order", "O1", "--where", "TRUEPREDICATE"], status: 64, ["delete takes an ID or --where, not both"])
        try assertRefused(["delete", "Order"], status: 64, ["delete needs an ID, or --where PREDICATE for every object it finds"])
        try assertRefused(["delete", "Order", "O1", "--dry-run"], status: 64, ["--dry-run, --param and --arg go with --where, not with an ID"])
    }

    // MARK: Delete

    func testDenyRefusesTheWholeBatchNamingTheObjects() throws {
        try assertRefused(["delete", "Customer", "--where", "code != nil"], [
            "Customer/1 \"Acme\" cannot be deleted: 2 Order objects refer to it (Order/1 \"O1\", Order/3 \"O3\") — Customer.orders has delete rule Deny",
            "Customer/2 \"Bolt\" cannot be deleted: 1 Order object refers to it (Order/2 \"O2\") — Customer.orders has delete rule Deny",
        ])
        // The single delete words it the same way.
        XCTAssertEqual(bk("delete", "Customer", "Acme").stderr,
                       "bookkeeper: Customer/1 \"Acme\" cannot be deleted: 2 Order objects refer to it (Order/1 \"O1\", Order/3 \"O3\") — Customer.orders has delete rule Deny\n")
        // Objects without orders go.
        XCTAssertEqual(ok("delete", "Customer", "--where", "orders.@count == 0"), "deleted 1 Customer object\n")
        XCTAssertEqual(column("Customer", "name"), ["Acme", "Bolt"])
    }

    func testCascadeDeletesDependantsAndTheSummaryCountsThem() throws {
        XCTAssertEqual(ok("delete", "Order", "--where", "customer.name == 'Acme'"), "deleted 2 Order objects and 2 dependants (2 OrderRow)\n")
        XCTAssertEqual(column("Order", "number"), ["O2"])
        XCTAssertEqual(column("OrderRow", "order.number, sum"), ["O2,500.00"])
        // The deleted IDs are never handed out again.
        XCTAssertEqual(ok("add", "Order", "number=O4"), "Order/4\n")
        assertCheckIsClean()
    }

    func testNullifyClearsReferencesAndARuleItBreaksRefusesTheBatch() throws {
        // Deleting a region clears its customers' region, which the rows' rule three relationships away reads.
        try assertRefused(["delete", "Region", "--where", "name == 'South'"], ["OrderRow/2: the row's customer has no region"])
        ok("add", "Region", "name=East")                               // Region/3
        ok("add", "Customer", "name=Eve", "code=E", "region=East")     // Customer/4, no orders
        XCTAssertEqual(ok("delete", "Region", "--where", "name == 'East'", "--dry-run"),
                       "delete Region/3\nclear Customer/4.region (was Region/3)\nwould delete 1 Region object (dry run: nothing changed)\n")
        XCTAssertEqual(ok("delete", "Region", "--where", "name == 'East'"), "deleted 1 Region object\n")
        XCTAssertEqual(column("Customer", "name, region.name", where: "name == 'Eve'"), ["Eve,"])
        // A required reference a Nullify would clear refuses the batch, naming the objects.
        try assertRefused(["delete", "Service", "--where", "TRUEPREDICATE"], [
            "Service/1 \"S1\" cannot be deleted: 3 OrderRow objects refer to it (OrderRow/1, OrderRow/2, OrderRow/3) — Service.rows has delete rule Deny",
        ])
        assertCheckIsClean()
    }

    // MARK: Dry runs

    func testADryRunListsTheChangesAndLeavesTheStoreFileAsItWas() throws {
        let file = storeKind == .file
        let attributes = { try FileManager.default.attributesOfItem(atPath: self.store) }
        let bytes = file ? try Data(contentsOf: URL(fileURLWithPath: store)) : nil
        let modified = file ? try attributes()[.modificationDate] as? Date : nil
        let dump = try dumpedBooks()
        XCTAssertEqual(ok("update", "Order", "--where", "customer.name == 'Acme'", "--set", "paid=YES", "--set", "customer=Cole", "--dry-run"),
                       "Order/1: paid false → true, customer Customer/1 → Customer/3\n"
                       + "Order/3: paid false → true, customer Customer/1 → Customer/3\n"
                       + "would update 2 Order objects (dry run: nothing changed)\n")
        XCTAssertEqual(ok("delete", "Order", "--where", "number == 'O1'", "--dry-run"),
                       "delete Order/1\ndelete OrderRow/1 (cascade)\nwould delete 1 Order object and 1 dependant (1 OrderRow) (dry run: nothing changed)\n")
        // A dry run checks as the real run does.
        try assertRefused(["update", "Customer", "--where", "name == 'Acme'", "--set", "region=", "--dry-run"],
                          ["OrderRow/1: the row's customer has no region", "OrderRow/3: the row's customer has no region"])
        if file {
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), bytes, "a dry run wrote to the store's file")
            XCTAssertEqual(try attributes()[.modificationDate] as? Date, modified)
        }
        XCTAssertEqual(try dumpedBooks(), dump)
    }
}

/// The built-in model, without a model file: no rule reads an order, so an update is one statement (the
/// predicate's own WHERE, or `WHERE id IN (…)` through a to-one key path); it says and checks the same.
class BatchChangeWithoutRulesCommandTests: StoreCommandTestCase {
    override func setUp() {
        super.setUp()
        ok("init")
        ok("add", "Service", "name=S1")
        ok("add", "Customer", "name=Acme", "code=A")
        ok("add", "Customer", "name=Bolt", "code=B")
        for (n, customer) in [(1, "Acme"), (2, "Bolt"), (3, "Acme"), (4, "Acme")] {
            ok("add", "Order", "number=O\(n)", "customer=\(customer)", "date=2026-10-0\(n)", "made=\(n % 2 == 1 ? "yes" : "no")")
        }
    }

    func testAnUpdateIsOneStatementAndDoesWhatItSays() throws {
        XCTAssertEqual(ok("update", "Order", "--where", "made == 1 AND date <= '2026-10-03'", "--set", "paid=YES"), "updated 2 Order objects\n")
        XCTAssertEqual(ok("update", "Order", "--where", "customer.name == 'Acme'", "--set", "paid=YES"), "updated 1 Order object\n")
        XCTAssertEqual(ok("fetch", "Order", "--columns", "number, paid", "--format", "csv"),
                       "number,paid\nO1,true\nO2,false\nO3,true\nO4,true\n")
        XCTAssertEqual(ok("update", "Order", "--where", "customer.name == 'Acme'", "--set", "paid=YES"), "updated 0 Order objects\n")
        XCTAssertEqual(ok("update", "Order", "--where", "number == 'O2'", "--set", "customer=Acme", "--set", "date=2026-11-30"),
                       "updated 1 Order object\n")
        XCTAssertEqual(ok("fetch", "Order", "--where", "number == 'O2'", "--columns", "customer.name, date", "--format", "csv"),
                       "customer.name,date\nAcme,2026-11-30\n")
        // A value that cannot be is refused naming the objects, whichever way the update would run.
        for predicate in ["made == 1", "customer.name == 'Acme'"] {
            let before = dumpedStore()
            let r = bk("update", "Order", "--where", predicate, "--set", "date=")
            XCTAssertEqual(r.status, 65, "\(r)")
            XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: Order.date is required (Order/1, "), r.stderr)
            XCTAssertEqual(dumpedStore(), before)
        }
        XCTAssertEqual(bk("check").status, 0)
    }

    /// `set OrderRow … sum=` lets the model derive the sum from quantity × price; a batch derives nothing, and says so.
    func testABatchRunsNoneOfTheModelsDerivations() throws {
        ok("add", "OrderRow", "order=O1", "service=S1", "quantity=2", "price=3.50")   // sum 7.00, derived
        let before = dumpedStore()
        let r = bk("update", "OrderRow", "--where", "order.number == 'O1'", "--set", "sum=")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, "bookkeeper: OrderRow.sum is required (OrderRow/1) — a batch update runs none of the model's "
                       + "derivations: give a value, or use set for each object\n")
        XCTAssertEqual(dumpedStore(), before)
        // A new price keeps the sum, as `set` keeps it.
        XCTAssertEqual(ok("update", "OrderRow", "--where", "order.number == 'O1'", "--set", "price=4"), "updated 1 OrderRow object\n")
        XCTAssertEqual(ok("fetch", "OrderRow", "--columns", "price, sum", "--format", "csv"), "price,sum\n4.00,7.00\n")
    }
}

final class BatchChangeCommandTestsOnPostgreSQL: BatchChangeCommandTests {
    override class var storeKind: StoreKind { .postgresql }

    // (Linux's test discovery finds only the tests a class declares itself.)
    override func testAnUpdateChangesEveryObjectThePredicateFindsAndNothingElse() throws { try super.testAnUpdateChangesEveryObjectThePredicateFindsAndNothingElse() }
    override func testAToOneRelationshipIsSetByNaturalKeyOrObjectIDAndClearedWithAnEmptyValue() throws { try super.testAToOneRelationshipIsSetByNaturalKeyOrObjectIDAndClearedWithAnEmptyValue() }
    override func testValuesAreReadAsSetReadsThem() throws { try super.testValuesAreReadAsSetReadsThem() }
    override func testEachValidationClassRefusesTheWholeBatch() throws { try super.testEachValidationClassRefusesTheWholeBatch() }
    override func testARuleThroughRelationshipsIsCheckedOnEveryObjectItReads() throws { try super.testARuleThroughRelationshipsIsCheckedOnEveryObjectItReads() }
    override func testUsageMistakesAre64() throws { try super.testUsageMistakesAre64() }
    override func testDenyRefusesTheWholeBatchNamingTheObjects() throws { try super.testDenyRefusesTheWholeBatchNamingTheObjects() }
    override func testCascadeDeletesDependantsAndTheSummaryCountsThem() throws { try super.testCascadeDeletesDependantsAndTheSummaryCountsThem() }
    override func testNullifyClearsReferencesAndARuleItBreaksRefusesTheBatch() throws { try super.testNullifyClearsReferencesAndARuleItBreaksRefusesTheBatch() }
    override func testADryRunListsTheChangesAndLeavesTheStoreFileAsItWas() throws { try super.testADryRunListsTheChangesAndLeavesTheStoreFileAsItWas() }
}

final class BatchChangeWithoutRulesCommandTestsOnPostgreSQL: BatchChangeWithoutRulesCommandTests {
    override class var storeKind: StoreKind { .postgresql }

    // (Linux's test discovery finds only the tests a class declares itself.)
    override func testAnUpdateIsOneStatementAndDoesWhatItSays() throws { try super.testAnUpdateIsOneStatementAndDoesWhatItSays() }
    override func testABatchRunsNoneOfTheModelsDerivations() throws { try super.testABatchRunsNoneOfTheModelsDerivations() }
}
