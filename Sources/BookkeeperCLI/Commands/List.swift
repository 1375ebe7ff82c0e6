import ArgumentParser
import LocalTime
import ObjectStore

struct List: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the objects of an entity: ID, attributes and to-one relationships.")

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String

    func run() throws {
        let context = try openContext(readOnly: true)
        let entity = try context.model.entity(self.entity)
        let toOne = entity.relationships.filter { !$0.isToMany }
        let numeric: (AttributeType) -> Bool = {
            switch $0 { case .integer, .decimal, .double: true; default: false }
        }
        var table = TextTable(
            headers: ["id"] + entity.attributes.map(\.name) + toOne.map(\.name),
            alignments: [.right] + entity.attributes.map { numeric($0.type) ? .right : .left } + toOne.map { _ in .left })
        // The entity's default sort (from the model file), else object ID order.
        let objects = try context.fetch(ObjectFetchRequest(entity: entity.name, sortDescriptors: try SortKey.parseList(entity.defaultSort ?? "")))
        // Each value as `fetch --format csv` writes it (date-times in $TZ).
        let zone = try Zone.current()
        for o in objects {
            try List.refuseNonFinite(o)
            var row = [String(o.rowID!)]
            row += entity.attributes.map { o[$0.name].text(in: zone) }
            row += try toOne.map { try Show.target(o, $0.name) }
            table.append(row)
        }
        print(table.render())
        print("\(objects.count) \(objects.count == 1 ? "object" : "objects")")
    }

    /// An infinity another tool stored is refused, naming it, as every output refuses it (Store+NonFinite.swift).
    static func refuseNonFinite(_ object: ManagedObject) throws {
        for a in object.entity.attributes where a.type == .double {
            if case .double(let d) = object[a.name], !d.isFinite {
                throw NonFiniteStoredNumber(object: object.objectID!, attribute: a.name, value: d)
            }
        }
    }
}
