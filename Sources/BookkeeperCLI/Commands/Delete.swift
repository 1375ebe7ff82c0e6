import ArgumentParser
import ObjectStore

struct Delete: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object, applying the model's delete rules.",
        discussion: """
            Cascade deletes dependants too (an order's rows), Nullify clears references to the object, \
            and Deny refuses while related objects exist (a customer with orders). No Action keeps the references \
            (one line says how many): they read as none, and a deletion that would break a rule through them is \
            refused. A deleted object's ID is never given to another. ID is the natural key or an object ID, as \
            for show.
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
        for kept in result.keptReferences {
            let shown = kept.deleted.prefix(5).map(\.description).joined(separator: ", ") + (kept.deleted.count > 5 ? ", …" : "")
            let entity = kept.relationship.prefix { $0 != "." }
            let noun = kept.referring == 1 ? "\(entity) still refers" : "\(entity) objects still refer"
            confirm("\(kept.referring) \(noun) to deleted \(shown) through \(kept.relationship) (\(kept.rule) has delete rule No Action)")
        }
    }
}
