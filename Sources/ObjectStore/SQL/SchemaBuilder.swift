// The SQLite schema generated from the model: one STRICT table per entity, foreign keys whose ON DELETE
// mirrors the engine's delete rules (a backstop: the engine applies the rules itself first), a join table
// per many-to-many relationship, and indexes on unique, indexed, natural-key and foreign-key columns.
// Tables are described as `TableSpec`s so that migrations can compare the schema two models want.

extension AttributeType {
    /// The STRICT column type. Decimals are scaled integers; dates and date-times are ISO text.
    var columnType: String { SQLiteDialect().columnType(self) }
}

extension DeleteRule {
    /// The foreign key action matching this rule, or nil when the store keeps no foreign key (No Action).
    var foreignKeyAction: String? {
        switch self {
        case .nullify: "SET NULL"
        case .cascade: "CASCADE"
        case .deny: "RESTRICT"
        case .noAction: nil
        }
    }
}

/// One column as the model wants it.
struct ColumnSpec: Hashable {
    enum Role: Hashable {
        case id
        case attribute(EntityAttribute)
        case foreignKey(EntityRelationship)
        /// A join table's column holding the id of an object of `entity`.
        case link(entity: String)
    }

    let name: String
    /// The column definition after its name: `TEXT NOT NULL`, `INTEGER REFERENCES "Customer"("id") ON DELETE RESTRICT`.
    let definition: String
    let role: Role

    var sql: String { "\(quoted(name)) \(definition)" }
    var isNotNull: Bool { definition.contains("NOT NULL") }
}

/// One table as the model wants it, with its indexes.
struct TableSpec: Hashable {
    let name: String
    /// The entity it stores, or nil for a join table.
    let entity: String?
    var columns: [ColumnSpec]
    /// `PRIMARY KEY (…)` for a join table.
    var tableConstraint: String?
    var options: String
    /// Index name → its CREATE statement.
    var indexes: [String: String]

    func createSQL(as tableName: String? = nil) -> String {
        var parts = columns.map(\.sql)
        if let tableConstraint { parts.append(tableConstraint) }
        return "CREATE TABLE \(quoted(tableName ?? name)) (\(parts.joined(separator: ", "))) \(options)"
    }

    func column(named name: String) -> ColumnSpec? { columns.first { $0.name == name } }
}

package enum SchemaBuilder {
    /// The statements that create the whole schema, in order.
    package static func statements(for model: ObjectModel) -> [String] {
        let tables = self.tables(for: model)
        let entityTables = tables.filter { $0.entity != nil }
        let joinTables = tables.filter { $0.entity == nil }
        return entityTables.map { $0.createSQL() } + joinTables.map { $0.createSQL() }
            + entityTables.flatMap { t in t.indexes.sorted { $0.key < $1.key }.map(\.value) }
            + joinTables.flatMap { t in t.indexes.sorted { $0.key < $1.key }.map(\.value) }
    }

    /// Every table the model wants: the entities' in model order, then the join tables by name.
    static func tables(for model: ObjectModel) -> [TableSpec] {
        var entityTables: [TableSpec] = []
        var joinTables: [String: TableSpec] = [:]
        for entity in model.entities {
            let table = quoted(entity.name)
            var spec = TableSpec(name: entity.name, entity: entity.name,
                                 columns: [ColumnSpec(name: "id", definition: "INTEGER PRIMARY KEY", role: .id)],
                                 tableConstraint: nil, options: "STRICT", indexes: [:])
            for a in entity.attributes {
                spec.columns.append(ColumnSpec(name: a.name, definition: "\(a.type.columnType)\(a.isRequired ? " NOT NULL" : "")",
                                               role: .attribute(a)))
                if a.isUnique || a.name == entity.naturalKey {
                    let name = "\(entity.name)_\(a.name)_unique"
                    spec.indexes[name] = "CREATE UNIQUE INDEX \(quoted(name)) ON \(table)(\(quoted(a.name)))"
                } else if a.isIndexed {
                    let name = "\(entity.name)_\(a.name)_index"
                    spec.indexes[name] = "CREATE INDEX \(quoted(name)) ON \(table)(\(quoted(a.name)))"
                }
            }
            for r in entity.relationships {
                switch model.storage(of: r, in: entity) {
                case .foreignKey(let column):
                    let inverse = model.inverse(of: r)
                    var def = "INTEGER\(r.isRequired ? " NOT NULL" : "")"
                    if let action = inverse.deleteRule.foreignKeyAction {
                        def += " REFERENCES \(quoted(r.destination))(\"id\") ON DELETE \(action)"
                    }
                    spec.columns.append(ColumnSpec(name: column, definition: def, role: .foreignKey(r)))
                    let name = "\(entity.name)_\(column)"
                    spec.indexes[name] = "CREATE \(inverse.isToMany ? "" : "UNIQUE ")INDEX \(quoted(name)) ON \(table)(\(quoted(column)))"
                case .joinTable(let name, let own, let other):
                    guard joinTables[name] == nil else { continue }
                    let index = "\(name)_\(other)"
                    joinTables[name] = TableSpec(
                        name: name, entity: nil,
                        columns: [
                            ColumnSpec(name: own, definition: "INTEGER NOT NULL REFERENCES \(quoted(entity.name))(\"id\") ON DELETE CASCADE",
                                       role: .link(entity: entity.name)),
                            ColumnSpec(name: other, definition: "INTEGER NOT NULL REFERENCES \(quoted(r.destination))(\"id\") ON DELETE CASCADE",
                                       role: .link(entity: r.destination)),
                        ],
                        tableConstraint: "PRIMARY KEY (\(quoted(own)), \(quoted(other)))", options: "STRICT, WITHOUT ROWID",
                        indexes: [index: "CREATE INDEX \(quoted(index)) ON \(quoted(name))(\(quoted(other)), \(quoted(own)))"])
                case .inverseForeignKey:
                    break
                }
            }
            entityTables.append(spec)
        }
        return entityTables + joinTables.keys.sorted().map { joinTables[$0]! }
    }
}
