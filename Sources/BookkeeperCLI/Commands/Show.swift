import ArgumentParser
import LocalTime
import ObjectStore
import ReportRenderers
import Reports

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
        let cells = CellFormatter(timeZone: try Zone.current())
        var lines: [(String, String)] = [("id", object.objectID!.description)]
        for a in object.entity.attributes {
            lines.append((a.name, oneLine(cells.plain(object[a.name], of: a.type))))
        }
        for r in object.entity.relationships {
            if r.isToMany {
                let members = try object.objects(for: r.name)
                lines.append((r.name, members.map { Show.name($0, cells) }.joined(separator: ", ")))
            } else {
                lines.append((r.name, try Show.target(object, r.name, cells)))
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
    static func target(_ object: ManagedObject, _ relationship: String, _ cells: CellFormatter) throws -> String {
        if let target = try object.object(for: relationship) { return name(target, cells) }
        return try object.danglingTarget(for: relationship).map { "\($0) (missing)" } ?? ""
    }

    /// How a related object is shown: its natural key (as its own value is shown), or its object ID when it has none.
    static func name(_ o: ManagedObject, _ cells: CellFormatter) -> String {
        guard let key = o.entity.naturalKey.flatMap(o.entity.attribute(named:)), !o[key.name].isNull else { return o.displayID }
        return oneLine(cells.plain(o[key.name], of: key.type))
    }
}
