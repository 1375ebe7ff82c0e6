// The SQLite schema generated from the model: one STRICT table per entity, foreign keys whose ON DELETE
// mirrors the engine's delete rules (a backstop: the engine applies the rules itself first), a join table
// per many-to-many relationship, and indexes on unique, indexed, natural-key and foreign-key columns.

extension AttributeType {
    /// The STRICT column type. Decimals are scaled integers; dates and date-times are ISO text.
    var columnType: String {
        switch self {
        case .string, .date, .dateTime: "TEXT"
        case .integer, .decimal, .boolean: "INTEGER"
        case .double: "REAL"
        case .binary: "BLOB"
        }
    }
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

public enum SchemaBuilder {
    /// The statements that create the whole schema, in order.
    public static func statements(for model: Model) -> [String] {
        var tables: [String] = []
        var indexes: [String] = []
        var joinTables: [String: String] = [:]
        for entity in model.entities {
            let table = quoted(entity.name)
            var columns = ["\"id\" INTEGER PRIMARY KEY"]
            for a in entity.attributes {
                columns.append("\(quoted(a.name)) \(a.type.columnType)\(a.isRequired ? " NOT NULL" : "")")
                if a.isUnique || a.name == entity.naturalKey {
                    indexes.append("CREATE UNIQUE INDEX \(quoted("\(entity.name)_\(a.name)_unique")) ON \(table)(\(quoted(a.name)))")
                } else if a.isIndexed {
                    indexes.append("CREATE INDEX \(quoted("\(entity.name)_\(a.name)_index")) ON \(table)(\(quoted(a.name)))")
                }
            }
            for r in entity.relationships {
                switch model.storage(of: r, in: entity) {
                case .foreignKey(let column):
                    let inverse = model.inverse(of: r)
                    var def = "\(quoted(column)) INTEGER\(r.isRequired ? " NOT NULL" : "")"
                    if let action = inverse.deleteRule.foreignKeyAction {
                        def += " REFERENCES \(quoted(r.destination))(\"id\") ON DELETE \(action)"
                    }
                    columns.append(def)
                    let unique = !inverse.isToMany
                    indexes.append("CREATE \(unique ? "UNIQUE " : "")INDEX \(quoted("\(entity.name)_\(column)")) ON \(table)(\(quoted(column)))")
                case .joinTable(let name, let own, let other):
                    guard joinTables[name] == nil else { continue }
                    let inverse = model.inverse(of: r)
                    _ = inverse
                    joinTables[name] = """
                        CREATE TABLE \(quoted(name)) (\
                        \(quoted(own)) INTEGER NOT NULL REFERENCES \(quoted(entity.name))("id") ON DELETE CASCADE, \
                        \(quoted(other)) INTEGER NOT NULL REFERENCES \(quoted(r.destination))("id") ON DELETE CASCADE, \
                        PRIMARY KEY (\(quoted(own)), \(quoted(other)))) STRICT, WITHOUT ROWID
                        """
                    indexes.append("CREATE INDEX \(quoted("\(name)_\(other)")) ON \(quoted(name))(\(quoted(other)), \(quoted(own)))")
                case .inverseForeignKey:
                    break
                }
            }
            tables.append("CREATE TABLE \(table) (\(columns.joined(separator: ", "))) STRICT")
        }
        return tables + joinTables.keys.sorted().map { joinTables[$0]! } + indexes
    }
}
