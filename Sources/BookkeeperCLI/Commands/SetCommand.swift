import ArgumentParser
import ObjectStore

struct SetCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change an object's values.",
        discussion: """
            ID is the natural key or an object ID (Customer/17): a natural key spelt like an object ID is the key, \
            and a text that is one object's ID and another's key is refused as ambiguous (64). A key matches in any \
            Unicode normal form. key= (empty) clears a value; for a to-many relationship key+=a,b adds and key-=a \
            removes.
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "Natural key, or object ID (Customer/17).") var id: String
    @Argument(help: "key=value assignments.") var assignments: [String] = []

    func validate() throws {
        if assignments.isEmpty { throw ValidationError("give at least one key=value to set") }
    }

    func run() throws {
        let parsed = try assignments.map { try Assignment(parsing: $0) }
        try Assignment.checkNoConflicts(parsed)
        let context = try openContext()
        let object = try context.resolve(id, in: entity)
        try context.apply(parsed, to: object)
        let result = try context.save()
        confirm(result.updated.isEmpty ? "\(object.objectID!) unchanged" : "updated \(object.objectID!)")
    }
}
