// Issue 26 ("Trust, part 6"), rules through any depth: a rule that looks through two or three relationships is
// checked again whenever an object on its key path changes — a row added, set or deleted, orders or rows imported,
// a customer's field changed, an order relinked to another customer, a deletion that cascades or nullifies. Before,
// only rules one relationship away were: each of these exited 0, and `check` then failed (65). Each test runs the
// built binary; a refusal is one line naming the object and its rule, with the store unchanged.

import Foundation
import TestSupport
import XCTest

final class DeepRuleCommandTests: StoreCommandTestCase {
    /// Two rules on Customer through orders and their rows (two hops), one on Region through its customers' orders
    /// (two), two on OrderRow through its order's customer (two) and that customer's region (three).
    static let model = """
        entities:
          Region:
            kind: directory
            attributes:
              name: { type: string, required: true }
            rules:
              - { where: "customers.orders.@count <= 2", message: "more than 2 orders in the region" }
          Customer:
            attributes:
              minimum: { type: decimal, scale: 2 }
            relationships:
              region: { to: Region, inverse: customers, delete: nullify }
            rules:
              - { where: "orders.rows.@sum.sum <= 1000", message: "its orders' rows sum to more than 1000" }
              - { where: "minimum == nil OR orders.rows.@sum.sum >= minimum", message: "its orders' rows sum to less than its minimum" }
          OrderRow:
            rules:
              - { where: "order.customer == nil OR order.customer.code != nil", message: "the row's customer has no code" }
              - { where: "order.customer == nil OR order.customer.region != nil", message: "the row's customer has no region" }
        """

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", Self.model)   // beside the store: every command reads it
        ok("init")
        ok("add", "Region", "name=North")
        ok("add", "Region", "name=South")
        ok("add", "Service", "name=S1")
        ok("add", "Customer", "name=Acme", "code=A", "region=North")   // Customer/1
        ok("add", "Customer", "name=Bolt", "code=B", "region=South")   // Customer/2
        ok("add", "Customer", "name=Cole", "code=C", "region=North")   // Customer/3, no orders
        ok("add", "Order", "number=O1", "customer=Acme")
        ok("add", "OrderRow", "order=O1", "service=S1", "sum=600")     // OrderRow/1
        ok("add", "Order", "number=O2", "customer=Bolt")
        ok("add", "OrderRow", "order=O2", "service=S1", "sum=500")     // OrderRow/2
        ok("add", "Order", "number=O3", "customer=Acme")
        ok("add", "OrderRow", "order=O3", "service=S1", "sum=50")      // OrderRow/3
    }

    /// The command is refused with exactly `message` (one line), and nothing in the store changed.
    func assertRefused(_ args: String..., message: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try storeFingerprint(store)
        let r = bk(args)
        XCTAssertEqual(r.status, 65, "\(args): \(r)", file: file, line: line)
        XCTAssertEqual(r.stderr, "bookkeeper: \(message)\n", "\(args)", file: file, line: line)
        XCTAssertEqual(try storeFingerprint(store), before, "\(args) changed the store", file: file, line: line)
    }

    func assertCheckIsClean(file: StaticString = #filePath, line: UInt = #line) {
        let r = bk("check")
        XCTAssertEqual(r.status, 0, "check: \(r)", file: file, line: line)
    }

    func testARowAddedSetOrDeletedIsCheckedAgainstItsCustomersRule() throws {
        try assertRefused("add", "OrderRow", "order=O1", "service=S1", "sum=400",
                          message: "Customer/1 \"Acme\": its orders' rows sum to more than 1000")
        ok("add", "OrderRow", "order=O1", "service=S1", "sum=300")     // OrderRow/4: 950
        try assertRefused("set", "OrderRow", "OrderRow/3", "sum=101",
                          message: "Customer/1 \"Acme\": its orders' rows sum to more than 1000")
        ok("set", "OrderRow", "OrderRow/3", "sum=100")                 // 1000
        ok("set", "Customer", "Acme", "minimum=950")
        try assertRefused("delete", "OrderRow", "OrderRow/3",
                          message: "Customer/1 \"Acme\": its orders' rows sum to less than its minimum")
        ok("set", "OrderRow", "OrderRow/3", "sum=50")                  // 950
        // A row moved to another customer's order: both customers are checked.
        try assertRefused("set", "OrderRow", "OrderRow/4", "order=O2",
                          message: "Customer/1 \"Acme\": its orders' rows sum to less than its minimum")
        ok("set", "Customer", "Acme", "minimum=")
        try assertRefused("set", "OrderRow", "OrderRow/1", "order=O2",
                          message: "Customer/2 \"Bolt\": its orders' rows sum to more than 1000")
        ok("set", "OrderRow", "OrderRow/4", "order=O2")                // Bolt 800, Acme 650
        ok("delete", "OrderRow", "OrderRow/3")
        assertCheckIsClean()
    }

    func testAnImportOfOrdersOrRowsIsCheckedAgainstItsCustomersRule() throws {
        dir.write("orders.csv", "number,customer,rows.service,rows.sum\nO4,Bolt,S1,300\nO4,Bolt,S1,300\n")
        let before = try storeFingerprint(store)
        let orders = bk("import", "Order", "orders.csv")
        XCTAssertEqual(orders.status, 65, "\(orders)")
        XCTAssertEqual(orders.stderr, """
            bookkeeper: Customer/2 "Bolt": its orders' rows sum to more than 1000
            bookkeeper: nothing was imported: the objects above would break the model's rules

            """)
        XCTAssertEqual(try storeFingerprint(store), before)
        // (A document's rows in the file replace its rows: O2's 500 becomes 600 + 500.)
        dir.write("rows.csv", "order.number,service,sum\nO2,S1,600\nO2,S1,500\n")
        let rows = bk("import", "OrderRow", "rows.csv")
        XCTAssertEqual(rows.status, 65, "\(rows)")
        XCTAssertTrue(rows.stderr.hasPrefix("bookkeeper: Customer/2 \"Bolt\": its orders' rows sum to more than 1000\n"), rows.stderr)
        XCTAssertEqual(try storeFingerprint(store), before)
        // Within the limit: imported.
        dir.write("orders.csv", "number,customer,rows.service,rows.sum\nO4,Bolt,S1,200\nO4,Bolt,S1,100\n")
        ok("import", "Order", "orders.csv")
        dir.write("rows.csv", "order.number,service,sum\nO2,S1,400\n")
        ok("import", "OrderRow", "rows.csv")
        assertCheckIsClean()
    }

    func testACustomersFieldChangeIsCheckedAgainstItsOrdersRowsRules() throws {
        try assertRefused("set", "Customer", "Bolt", "code=", message: "OrderRow/2: the row's customer has no code")
        try assertRefused("set", "Customer", "Bolt", "region=", message: "OrderRow/2: the row's customer has no region")
        // From the region's side too (three relationships from the row).
        try assertRefused("set", "Region", "South", "customers-=Bolt", message: "OrderRow/2: the row's customer has no region")
        ok("set", "Customer", "Bolt", "code=B2")
        ok("set", "Customer", "Cole", "code=")                         // no orders: no row reads it
        assertCheckIsClean()
    }

    func testRelinkingAnOrderToAnotherCustomerIsCheckedForBoth() throws {
        // The new customer's sum.
        try assertRefused("set", "Order", "O1", "customer=Bolt", message: "Customer/2 \"Bolt\": its orders' rows sum to more than 1000")
        try assertRefused("set", "Customer", "Bolt", "orders+=O1", message: "Customer/2 \"Bolt\": its orders' rows sum to more than 1000")
        try assertRefused("add", "Customer", "name=Dent", "code=D", "region=South", "orders=O1,O2",
                          message: "new Customer \"Dent\": its orders' rows sum to more than 1000")
        // The former customer's minimum.
        ok("set", "Customer", "Acme", "minimum=600")
        try assertRefused("set", "Order", "O1", "customer=Cole", message: "Customer/1 \"Acme\": its orders' rows sum to less than its minimum")
        try assertRefused("set", "Customer", "Cole", "orders+=O1", message: "Customer/1 \"Acme\": its orders' rows sum to less than its minimum")
        // The rows' rules through the new customer: one without a code.
        ok("set", "Customer", "Cole", "code=")
        try assertRefused("set", "Order", "O3", "customer=Cole", message: "OrderRow/3: the row's customer has no code")
        ok("set", "Customer", "Cole", "code=C")
        ok("set", "Order", "O3", "customer=Cole")
        // The region of the new customer: its orders, two relationships from the region.
        try assertRefused("set", "Order", "O2", "customer=Cole", message: "Region/1 \"North\": more than 2 orders in the region")
        try assertRefused("set", "Customer", "Cole", "orders+=O2", message: "Region/1 \"North\": more than 2 orders in the region")
        ok("set", "Customer", "Cole", "region=South")
        ok("set", "Order", "O2", "customer=Cole")                      // Cole 550 in South, Bolt none
        assertCheckIsClean()
    }

    func testDeletingWithCascadeOrNullifyIsCheckedAgainstTheRulesItReaches() throws {
        // Cascade: an order's rows go with it, and its customer's sum falls below the minimum.
        ok("set", "Customer", "Acme", "minimum=100")
        try assertRefused("delete", "Order", "O1", message: "Customer/1 \"Acme\": its orders' rows sum to less than its minimum")
        ok("delete", "Order", "O3")
        // Nullify: a region's customers lose it, and their orders' rows break their rule three relationships away.
        try assertRefused("delete", "Region", "South", message: "OrderRow/2: the row's customer has no region")
        ok("set", "Customer", "Bolt", "region=North")
        ok("delete", "Region", "South")
        assertCheckIsClean()
    }
}
