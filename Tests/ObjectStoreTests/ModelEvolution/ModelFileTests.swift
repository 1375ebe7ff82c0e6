import XCTest
import TestSupport
@testable import ObjectStore

final class ModelFileTests: XCTestCase {
    /// A base model standing in for a domain's built-in one: Customer and Order.
    static let base: ObjectModel = try! ObjectModel(entities: [
        Entity("Customer", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
        ], relationships: [
            EntityRelationship("orders", to: "Order", inverse: "customer", toMany: true, deleteRule: .deny),
        ]),
        Entity("Order", kind: .document, naturalKey: "number", attributes: [
            EntityAttribute("number", .string, required: true, unique: true),
            EntityAttribute("date", .date, required: true, default: .today),
        ], relationships: [
            EntityRelationship("customer", to: "Customer", inverse: "orders"),
        ]),
    ])

    static let example = ModelFixtures.banks

    func testTheIssuesExampleExtendsTheModel() throws {
        let model = try ModelFile.parse(Self.example, name: "model.yaml", extending: Self.base)
        let bank = try XCTUnwrap(model.entity(named: "Bank"))
        XCTAssertEqual(bank.kind, .directory)
        XCTAssertEqual(bank.naturalKey, "cert")
        XCTAssertEqual(bank.attributes.map(\.name), ["name", "city", "cert", "closed", "deposits"])
        XCTAssertEqual(bank.attribute(named: "deposits")?.type, .decimal(scale: 2))
        XCTAssertEqual(bank.defaultSort, "closed desc, name")
        XCTAssertEqual(bank.rules, [ModelRule("deposits == nil OR deposits >= 0", message: "deposits cannot be negative")])
        let customers = try XCTUnwrap(bank.relationship(named: "customers"))
        XCTAssertTrue(customers.isToMany)
        XCTAssertEqual(customers.deleteRule, .nullify)
        let customer = try XCTUnwrap(model.entity(named: "Customer"))
        XCTAssertEqual(customer.attribute(named: "vat")?.isUnique, true)
        XCTAssertEqual(customer.relationship(named: "bank")?.isToMany, false)
        XCTAssertEqual(model.storage(of: customer.relationship(named: "bank")!, in: customer), .foreignKey(column: "bank_id"))
    }

    func testRulesAreCheckedOnSave() throws {
        let model = try ModelFile.parse(Self.example, name: "model.yaml", extending: Self.base)
        let dir = TemporaryDirectory()
        let store = try Store.create(at: dir.file("s.sqlite"), model: model)
        let c = ObjectContext(store: store)
        let bank = try c.insert("Bank")
        try c.apply(["name=First", "cert=12", "deposits=-1.00"].map { try Assignment(parsing: $0) }, to: bank)
        XCTAssertThrowsError(try c.save()) { XCTAssertEqual("\($0)", "new Bank \"12\": deposits cannot be negative") }
        bank["deposits"] = .decimal(DecimalNumber(units: 100, scale: 2))
        XCTAssertNoThrow(try c.save())
    }

    func message(_ yaml: String) -> String {
        do {
            _ = try ModelFile.parse(yaml, name: "model.yaml", extending: Self.base)
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    /// Attack 27, finding 15: `cust: { to: Nope }` was told it `needs inverse:`, and a wrong `inverse:` was placed at
    /// the `to:` line. An unknown destination is named first, at the `to:` value (with a suggestion when one is close),
    /// whether `inverse:` is given or not; a destination declared later in the file is known; a wrong inverse is named
    /// at the `inverse:` value, on its own line.
    func testAnUnknownDestinationIsNamedAtItsValueAndAWrongInverseAtItsOwnLine() {
        let note = "entities:\n  Note:\n    kind: directory\n    attributes: { name: { type: string } }\n    relationships:\n"
        XCTAssertEqual(message(note + "      cust: { to: Nope }\n"), "model.yaml:6:19: Note.cust points to unknown entity Nope — did you mean \"Note\"?")
        XCTAssertEqual(message(note + "      cust: { to: Custmer }\n"),
                       "model.yaml:6:19: Note.cust points to unknown entity Custmer — did you mean \"Customer\"?")
        XCTAssertEqual(message(note + "      cust:\n        inverse: notes\n        to: Zzz\n"), "model.yaml:8:13: Note.cust points to unknown entity Zzz")
        XCTAssertEqual(message(note + "      memo: { to: Memo }\n  Memo:\n    kind: directory\n"),
                       "model.yaml:6:7: relationship Note.memo needs inverse: (the relationship's name on Memo)", "declared later: known")
        XCTAssertEqual(message(note + "      cust:\n        to: Customer\n        inverse: name\n"),
                       "model.yaml:8:18: Customer.name is an attribute, so it cannot be the inverse of Note.cust")
        XCTAssertEqual(message(note + "      cust:\n        to: Customer\n        inverse: orders\n"),
                       "model.yaml:8:18: the inverse of Note.cust is Customer.orders, which points to Order.customer instead")
    }

    func testMistakesNameTheirPlace() {
        XCTAssertEqual(message("entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: strin }\n"),
                       "model.yaml:5:21: unknown type \"strin\" — did you mean \"string\"? (types: string, integer, decimal, double, boolean, date, datetime, binary)")
        XCTAssertEqual(message("entities:\n  Bank:\n    kind: drectory\n"),
                       "model.yaml:3:11: kind must be directory, document or rows, not \"drectory\" — did you mean \"directory\"?")
        XCTAssertEqual(message("entities:\n  Bank:\n    attributes: {}\n"),
                       "model.yaml:2:3: new entity Bank needs a kind: directory, document or rows")
        XCTAssertEqual(message("entities:\n  Customer:\n    relationships:\n      bank: { to: Bnk, inverse: customers }\n"),
                       "model.yaml:4:19: Customer.bank points to unknown entity Bnk")
        XCTAssertEqual(message("""
            entities:
              Bank:
                kind: directory
                attributes: { name: { type: string } }
                relationships:
                  customers: { to: Customer, inverse: banks, many: yes }
              Customer:
                relationships:
                  bank: { to: Bank, inverse: customers }
            """), "model.yaml:9:34: the inverse of Customer.bank is Bank.customers, which points to Customer.banks instead")
        XCTAssertEqual(message("entities:\n  Bank:\n    kind: directory\n    attributes: { name: { type: string } }\n    rules:\n      - { where: \"nam == 'x'\", message: m }\n"),
                       "model.yaml:6:19: unknown key \"nam\" on Bank — did you mean \"name\"?")
        XCTAssertEqual(message("entities:\n  Bank:\n    kind: directory\n    attributes: { name: { type: string } }\n    rules:\n      - { where: \"name ==\", message: m }\n"),
                       "model.yaml:6:24: expected a value after \"==\", found end of input")
        XCTAssertEqual(message("entities:\n  Customer:\n    attributes:\n      name: { type: string }\n"),
                       "model.yaml:4:7: Customer.name is already in the model")
        XCTAssertEqual(message("entities:\n  Customer:\n    atributes: {}\n"),
                       "model.yaml:3:5: unknown key \"atributes\" in entity Customer — did you mean \"attributes\"? (allowed: kind, key, attributes, relationships, rules, sort)")
        XCTAssertEqual(message("entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: string, default: [1] }\n"),
                       "model.yaml:5:38: default must be a single value")
        XCTAssertEqual(message("entities:\n  Bank: [\n"), "model.yaml:3:1: not valid YAML: did not find expected node content")
        XCTAssertEqual(message("entities:\n  Bank:\n    kind: directory\n    attributes: { name: { type: string } }\n    sort: nme\n"),
                       "model.yaml:5:11: unknown key \"nme\" on Bank — did you mean \"name\"?")
    }
}
