import ArgumentParser
import LocalTime
import ObjectStore

struct Show: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one object with its relationships.",
        discussion: """
            ID is the natural key or an object ID (Customer/17): a natural key spelt like an object ID is the key, \
            and a text that is one object's ID and another's key is refused as ambiguous (64). A key matches in any \
            Unicode normal form (é typed precomposed or as e and a combining accent).
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "Natural key, or object ID (Customer/17).") var id: String

    func run() throws {
        let context = try openContext(readOnly: true)
        let object = try context.resolve(id, in: entity)
        try List.refuseNonFinite(object)
        // Each value as `fetch --format csv` writes it (date-times in $TZ).
        let zone = try Zone.current()
        var lines: [(String, String)] = [("id", object.objectID!.description)]
        for a in object.entity.attributes {
            lines.append((a.name, oneLine(object[a.name].text(in: zone))))
        }
        for r in object.entity.relationships {
            if r.isToMany {
                let members = try object.objects(for: r.name)
                // Joined as `export` and `fetch` join a list (a key holding a comma, a quote or an outer space is in
                // quotes): a tag named `a, b` and the two tags `a` and `b` printed the same line (found by the attack
                // on 0.7.0).
                lines.append((r.name, oneLine(ListText.join(members.map(Show.name)))))
            } else {
                lines.append((r.name, try Show.target(object, r.name)))
            }
        }
        let width = lines.map(\.0.count).max() ?? 0
        for (key, value) in lines {
            let padded = key + String(repeating: " ", count: width - key.count)
            print(value.isEmpty ? key : "\(padded)  \(value)")
        }
    }

    /// A to-one relationship as shown: the target's name, empty, or the stored ID of a target that is gone
    /// (`Bank/1 (missing)`: a No Action relationship whose target was deleted).
    static func target(_ object: ManagedObject, _ relationship: String) throws -> String {
        if let target = try object.object(for: relationship) { return name(target) }
        return try object.danglingTarget(for: relationship).map { "\($0) (missing)" } ?? ""
    }

    /// How a related object is shown: its natural key (written as its own value is: `naturalKeyText`), or its object
    /// ID when it has none.
    static func name(_ o: ManagedObject) -> String {
        o.naturalKeyText.map(oneLine) ?? o.displayID
    }
}
