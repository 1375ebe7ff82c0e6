import XCTest
import Bookkeeping
import ObjectStore
import TestSupport

final class BookkeepingModelTests: XCTestCase {
    let model = BookkeepingModel.model

    func testDeclaresTheDirectoriesAndDocuments() {
        XCTAssertEqual(model.entities.map(\.name), ["Customer", "Service", "Tag", "Order", "OrderRow"])
        XCTAssertEqual(model.entities.map(\.kind), [.directory, .directory, .directory, .document, .rows])
        XCTAssertEqual(model.entities.map(\.naturalKey), ["name", "name", "name", "number", nil])
        let customer = model.entity(named: "Customer")!
        XCTAssertEqual(customer.relationship(named: "orders")?.deleteRule, .deny)
        XCTAssertEqual(customer.relationship(named: "tags")?.deleteRule, .nullify)
        XCTAssertEqual(model.entity(named: "Order")!.relationship(named: "rows")?.deleteRule, .cascade)
        XCTAssertEqual(model.entity(named: "Service")!.relationship(named: "rows")?.deleteRule, .deny)
        XCTAssertEqual(model.entity(named: "OrderRow")!.attribute(named: "quantity")?.type, .decimal(scale: 3))
    }

    private func saveRow(quantity: String?, price: String?, sum: String? = nil) throws -> Value {
        let dir = TemporaryDirectory()
        let store = try Store.create(at: dir.file("s.sqlite"), model: model)
        let c = ObjectContext(store: store)
        let order = try c.insert("Order"); order["number"] = .string("A-1")
        let service = try c.insert("Service"); service["name"] = .string("Delivery")
        let row = try c.insert("OrderRow")
        try row.setObject(order, for: "order")
        try row.setObject(service, for: "service")
        var assignments: [Assignment] = []
        if let quantity { assignments.append(Assignment(key: "quantity", value: quantity)) }
        if let price { assignments.append(Assignment(key: "price", value: price)) }
        if let sum { assignments.append(Assignment(key: "sum", value: sum)) }
        try c.apply(assignments, to: row)
        try c.save()
        return try ObjectContext(store: store).object(with: row.objectID!)["sum"]
    }

    func testARowsSumIsQuantityTimesPriceRoundedHalfToEven() throws {
        XCTAssertEqual(try saveRow(quantity: "3", price: "10.25").description, "30.75")
        XCTAssertEqual(try saveRow(quantity: "0.5", price: "0.25").description, "0.12", "0.125 rounds to even")
        XCTAssertEqual(try saveRow(quantity: "1.5", price: "0.25").description, "0.38", "0.375 rounds to even")
        XCTAssertEqual(try saveRow(quantity: nil, price: "7.10").description, "7.10", "quantity defaults to 1")
        XCTAssertEqual(try saveRow(quantity: "2", price: "10", sum: "15").description, "15.00", "a given sum is kept")
    }

    func testARowNeedsASumOrAPrice() {
        XCTAssertThrowsError(try saveRow(quantity: "2", price: nil)) { error in
            XCTAssertEqual("\(error)", "OrderRow.sum is required")
        }
    }
}
