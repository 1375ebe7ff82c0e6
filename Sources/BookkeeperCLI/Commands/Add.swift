import ArgumentParser
import ObjectStore

struct Add: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Add an object; prints its object ID.",
        discussion: """
            Values: dates YYYY-MM-DD; booleans yes/no/true/false/1/0; decimals with a point; a to-one relationship \
            by the target's natural key, object ID, or another unique key (customer.code=C042); a to-many \
            relationship as a comma-separated list of natural keys.
            Example: bookkeeper add Order number=A-1 date=2024-03-01 customer="Acme Ltd"
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity (Customer, Service, Tag, Order, OrderRow).") var entity: String
    @Argument(help: "key=value assignments.") var assignments: [String] = []

    func run() throws {
        let parsed = try assignments.map { try Assignment(parsing: $0) }
        try Assignment.checkNoConflicts(parsed)
        let context = try openContext()
        let object = try context.insert(entity)
        try context.apply(parsed, to: object)
        try context.save()
        confirm(object.objectID!.description)
    }
}
