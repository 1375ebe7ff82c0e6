import ObjectStore

/// The bookkeeping model: directories (customers, services, tags) and documents (orders with their rows).
/// Declared as data for the object store; the only behaviour is deriving a row's sum from quantity × price.
package enum BookkeepingModel {
    package static let model: ObjectModel = {
        let customer = Entity("Customer", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
            EntityAttribute("code", .string, unique: true),
            EntityAttribute("info", .string),
        ], relationships: [
            EntityRelationship("tags", to: "Tag", inverse: "customers", toMany: true, deleteRule: .nullify),
            EntityRelationship("orders", to: "Order", inverse: "customer", toMany: true, deleteRule: .deny),
        ])
        let service = Entity("Service", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
            EntityAttribute("code", .string, unique: true),
            EntityAttribute("info", .string),
        ], relationships: [
            EntityRelationship("rows", to: "OrderRow", inverse: "service", toMany: true, deleteRule: .deny),
        ])
        let tag = Entity("Tag", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
        ], relationships: [
            EntityRelationship("customers", to: "Customer", inverse: "tags", toMany: true, deleteRule: .nullify),
        ])
        let order = Entity("Order", kind: .document, naturalKey: "number", attributes: [
            EntityAttribute("number", .string, required: true, unique: true),
            EntityAttribute("date", .date, required: true, default: .today, indexed: true),
            EntityAttribute("made", .boolean, required: true, default: .value(.boolean(false))),
            EntityAttribute("paid", .boolean, required: true, default: .value(.boolean(false))),
        ], relationships: [
            EntityRelationship("customer", to: "Customer", inverse: "orders", deleteRule: .nullify),
            EntityRelationship("rows", to: "OrderRow", inverse: "order", toMany: true, deleteRule: .cascade),
        ])
        let row = Entity("OrderRow", kind: .rows, attributes: [
            EntityAttribute("quantity", .decimal(scale: 3), required: true, default: .value(.decimal(DecimalNumber(1)))),
            EntityAttribute("price", .decimal(scale: 2)),
            EntityAttribute("sum", .decimal(scale: 2), required: true),
        ], relationships: [
            EntityRelationship("order", to: "Order", inverse: "rows", required: true, deleteRule: .nullify),
            EntityRelationship("service", to: "Service", inverse: "rows", required: true, deleteRule: .nullify),
        ])
        do {
            return try ObjectModel(entities: [customer, service, tag, order, row],
                             behaviours: ["OrderRow": EntityBehaviour(willSave: deriveRowSum, validate: checkRowSum,
                                                                       rangeCheckedByBehaviour: ["sum"])])
        } catch {
            fatalError("the built-in bookkeeping model is invalid: \(error)")
        }
    }()

    /// A row without a sum but with a price gets `quantity × price`, rounded half-to-even to cents.
    @Sendable static func deriveRowSum(_ row: any ObjectValues) {
        guard row["sum"].isNull, case .decimal(let price) = row["price"] else { return }
        let quantity: DecimalNumber
        if case .decimal(let q) = row["quantity"] { quantity = q } else { quantity = DecimalNumber(1) }
        if let product = quantity.multiplied(by: price), let sum = product.rounded(toScale: 2) {
            row["sum"] = .decimal(sum)
        }
    }

    /// A derived sum beyond what `sum` holds is named as quantity × price, with both values: the user never
    /// typed it. (The store's own check then skips it: `rangeCheckedByBehaviour`.)
    @Sendable static func checkRowSum(_ row: any ObjectValues) -> [String] {
        guard case .decimal(let sum) = row["sum"] else { return [] }
        // Every imported row comes here: the common case (cents that fit) returns before any arithmetic.
        if sum.scale == 2 && sum.fitsStorage { return [] }
        guard let cents = sum.exactly(atScale: 2), !cents.fitsStorage else { return [] }
        let quantity: DecimalNumber
        if case .decimal(let q) = row["quantity"] { quantity = q } else { quantity = DecimalNumber(1) }
        guard case .decimal(let price) = row["price"], quantity.multiplied(by: price)?.rounded(toScale: 2) == sum else {
            return ["OrderRow.sum \(Value.decimalMisfit(sum, scale: 2))"]
        }
        return ["OrderRow.sum: quantity × price = \(quantity) × \(price) = \(sum), beyond what Decimal(2) can hold (±\(DecimalNumber.storedMaximum(scale: 2)))"]
    }
}
