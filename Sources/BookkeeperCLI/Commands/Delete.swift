import ArgumentParser
import ObjectStore

struct Delete: StoreCommand {
    static let configuration = CommandConfiguration(
        abstract: "Delete an object, applying the model's delete rules.",
        discussion: """
            Cascade deletes dependants too (an order's rows), Nullify clears references to the object, \
            and Deny refuses while related objects exist (a customer with orders). ID is the natural key or an \
            object ID, as for show.
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "Natural key, or object ID (Customer/17).") var id: String

    func run() throws {
        let context = try openContext()
        let object = try context.resolve(id, in: entity)
        let objectID = object.objectID!
        context.delete(object)
        let result = try context.save()
        let cascaded = result.deleted.filter { $0 != objectID }.sorted()
        var line = "deleted \(objectID)"
        if !cascaded.isEmpty {
            line += " and \(cascaded.count) dependant\(cascaded.count == 1 ? "" : "s") (\(cascaded.map(\.description).joined(separator: ", ")))"
        }
        confirm(line)
    }
}
