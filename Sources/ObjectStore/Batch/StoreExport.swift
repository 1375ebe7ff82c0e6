// Reading every object of an entity for an export, in object ID order, with each to-one reference and
// many-to-many link named by its target's key (natural key, else the first unique attribute) and, for a
// document, its rows. One query per entity plus one per document for its rows and per object for links:
// an export streams; it never holds more than one document.


/// One object as an export sees it.
package struct ExportedObject: Sendable {
    package var rowID: Int64
    /// Attribute values, in the entity's attribute order.
    package var attributes: [Value]
    /// To-one relationship name → the target's key value (null when there is none).
    package var references: [String: Value]
    /// To-one relationship name → the stored ID of a target that no longer exists (No Action).
    package var dangling: [String: ObjectID] = [:]
    /// Many-to-many relationship name → the targets' key values, in object ID order.
    package var links: [String: [Value]]
    /// A document's rows (when asked for), in object ID order.
    package var rows: [ExportedObject]
}

extension ObjectModel {
    /// The attribute that names objects of `entity` in references: the natural key, else the first unique attribute.
    package func referenceKey(of entity: Entity) -> EntityAttribute? {
        if let nk = entity.naturalKey, let a = entity.attribute(named: nk) { return a }
        return entity.attributes.first { $0.isUnique }
    }

    /// The to-one relationships stored on `entity` and the many-to-many ones it owns (whose join table is
    /// named after it, so each link is written once, on the side imported last): what an export writes.
    package func exportedRelationships(of entity: Entity) -> (toOne: [EntityRelationship], manyToMany: [EntityRelationship]) {
        var toOne: [EntityRelationship] = [], manyToMany: [EntityRelationship] = []
        for r in entity.relationships {
            switch storage(of: r, in: entity) {
            case .foreignKey: toOne.append(r)
            case .joinTable(let table, _, _) where table == "\(entity.name)_\(r.name)": manyToMany.append(r)
            case .joinTable, .inverseForeignKey: break
            }
        }
        return (toOne, manyToMany)
    }

    /// Refuses (64) an export of `entity` when a relationship it writes leads to an entity with no key to name its
    /// objects by. Asked before anything is written: `export Note` wrote the header to standard output, then failed.
    package func refuseUnnameableReferences(of entity: Entity) throws {
        let (toOne, manyToMany) = exportedRelationships(of: entity)
        for r in toOne + manyToMany {
            guard let d = self.entity(named: r.destination), referenceKey(of: d) == nil else { continue }
            throw BatchError.usage("\(entity.name).\(r.name): \(d.name) has no natural key or unique attribute to name it by")
        }
    }
}

extension Store {
    /// Calls `body` with every object of `entityName`, in object ID order; with `rows`, each document comes
    /// with its rows (through the to-many relationship named `rows`).
    package func forEachObject(of entityName: String, rows rowsRelationship: String? = nil,
                              _ body: (ExportedObject) throws -> Void) throws {
        let entity = try model.entity(entityName)
        try read { db in
            let main = try ObjectQuery(model: model, entity: entity, db: db, parentColumn: nil)
            var rowsQuery: ObjectQuery?
            if let name = rowsRelationship, let r = entity.relationship(named: name),
               let d = model.entity(named: r.destination),
               case .inverseForeignKey(_, let column) = model.storage(of: r, in: entity) {
                rowsQuery = try ObjectQuery(model: model, entity: d, db: db, parentColumn: column)
            }
            var cursor = StorageCursor(statement: main.statement)
            while let row = try cursor.next() {
                var object = try main.object(row)
                if let rowsQuery {
                    rowsQuery.statement.bind([.integer(object.rowID)])
                    object.rows = try rowsQuery.statement.allRows().map { try rowsQuery.object($0) }
                }
                try body(object)
            }
        }
    }
}

/// The SELECT for one entity's objects with their references' keys, and the link queries.
private struct ObjectQuery {
    let entity: Entity
    let statement: any StorageStatement
    let toOne: [(EntityRelationship, AttributeType)]
    let links: [(EntityRelationship, any StorageStatement, AttributeType)]

    init(model: ObjectModel, entity: Entity, db: any StorageConnection, parentColumn: String?) throws {
        self.entity = entity
        let (toOne, manyToMany) = model.exportedRelationships(of: entity)
        var references: [BatchSQL.ExportedReference] = []
        var refTypes: [(EntityRelationship, AttributeType)] = []
        for r in toOne {
            let d = model.entity(named: r.destination)!
            guard let key = model.referenceKey(of: d), case .foreignKey(let column) = model.storage(of: r, in: entity) else {
                throw BatchError.usage("\(entity.name).\(r.name): \(d.name) has no natural key or unique attribute to name it by")
            }
            references.append(BatchSQL.ExportedReference(table: d.name, keyColumn: key.name, foreignKey: column))
            refTypes.append((r, key.type))
        }
        statement = try db.prepare(BatchSQL(db.dialect).export(entity.name, attributes: entity.attributes.map(\.name),
                                                              references: references, parentColumn: parentColumn))
        self.toOne = refTypes
        var links: [(EntityRelationship, any StorageStatement, AttributeType)] = []
        for r in manyToMany {
            let d = model.entity(named: r.destination)!
            guard let key = model.referenceKey(of: d), case .joinTable(let table, let own, let other) = model.storage(of: r, in: entity) else {
                throw BatchError.usage("\(entity.name).\(r.name): \(d.name) has no natural key or unique attribute to name it by")
            }
            let s = try db.prepare(BatchSQL(db.dialect).exportLinks(table, own: own, other: other, destination: d.name, keyColumn: key.name))
            links.append((r, s, key.type))
        }
        self.links = links
    }

    func object(_ row: StorageRow) throws -> ExportedObject {
        let id = row.int64(0) ?? 0
        var attributes: [Value] = []
        for (i, a) in entity.attributes.enumerated() {
            attributes.append(Value(stored: row[i + 1], as: a.type))
        }
        var references: [String: Value] = [:]
        let base = entity.attributes.count + 1
        var dangling: [String: ObjectID] = [:]
        for (k, (r, type)) in toOne.enumerated() {
            references[r.name] = Value(stored: row[base + 3 * k], as: type)
            let stored = row.int64(base + 3 * k + 1)
            let exists = row[base + 3 * k + 2].bool ?? false
            if let stored, !exists { dangling[r.name] = ObjectID(entity: r.destination, rowID: stored) }
        }
        var links: [String: [Value]] = [:]
        for (r, s, type) in self.links {
            s.bind([.integer(id)])
            links[r.name] = try s.allRows().map { Value(stored: $0[0], as: type) }
        }
        return ExportedObject(rowID: id, attributes: attributes, references: references, dangling: dangling, links: links, rows: [])
    }
}
