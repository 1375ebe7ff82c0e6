// Names SQLite cannot hold apart (issue 26). SQLite compares the names of tables, indexes and columns without
// regard to ASCII case (`NAME` is `name`, `ORDER` is `Order`), and tables and indexes share one namespace; names
// that begin with `sqlite_` are its own. A model whose schema would need two such names — an attribute `NAME` beside
// `name`, an attribute `customer_id` beside the relationship `customer` (whose column that is), an entity
// `Customer_tags` beside the join table of Customer.tags, two indexes of one name — could not be made: `init` failed
// with SQLite's "duplicate column name", and a migration to it failed after copying the store, on every run. So the
// model is checked against the very schema it makes (SchemaBuilder's), before any store is touched.

extension ObjectModel {
    /// SQLite's comparison of names: ASCII letters fold to lower case, every other character is itself.
    static func sqlFold(_ name: String) -> String {
        String(String.UnicodeScalarView(name.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    /// The first pair of schema names the model needs that SQLite would take for one, or a name it keeps for itself.
    func checkSQLNames() throws(ModelError) {
        try checkJoinTableNames()
        let tables = SchemaBuilder.tables(for: self)
        // Tables and indexes: one namespace.
        var objects: [String: (what: String, name: String, subjects: [String])] = [:]
        func claim(_ name: String, _ what: String, _ subjects: [String]) throws(ModelError) {
            if Self.sqlFold(name).hasPrefix("sqlite_") {
                throw ModelError.nameClash("\(what): names that begin with sqlite_ are SQLite's own: give it another name", subjects: subjects)
            }
            if let other = objects[Self.sqlFold(name)] {
                throw ModelError.nameClash("\(what) and \(other.what) would have one name\(Self.caseNote(name, other.name)): "
                                           + "give one of them another name", subjects: other.subjects + subjects)
            }
            objects[Self.sqlFold(name)] = (what, name, subjects)
        }
        for table in tables {
            let (what, subjects) = describe(table)
            try claim(table.name, what, subjects)
            var columns: [String: (what: String, name: String, subjects: [String])] = [:]
            for column in table.columns {
                let (columnWhat, columnSubjects) = describe(column, in: table)
                if let other = columns[Self.sqlFold(column.name)] {
                    throw ModelError.nameClash("\(columnWhat) and \(other.what) would be one column of table \(table.name)"
                                               + "\(Self.caseNote(column.name, other.name)): give one of them another name",
                                               subjects: other.subjects + columnSubjects)
                }
                columns[Self.sqlFold(column.name)] = (columnWhat, column.name, columnSubjects)
            }
        }
        for table in tables {
            let (_, subjects) = describe(table)
            for (name, sql) in table.indexes.sorted(by: { $0.key < $1.key }) {
                // An entity's index has one column, which says the property it serves; a join table's serves its links.
                let column = table.entity == nil ? nil : table.columns.first { sql.hasSuffix("(\(quoted($0.name)))") }
                let owner = column.map { describe($0, in: table) } ?? (what: "", subjects: subjects)
                try claim(name, "the index \(name) of \(owner.what.isEmpty ? "table \(table.name)" : owner.what)", owner.subjects)
            }
        }
    }

    /// Two many-to-many relationships whose join tables get one name: `A.b_c` and `A_b.c` are both `A_b_c`. The
    /// schema has one table for each name (both sides of one relationship share it), so the second relationship's
    /// table was never made and every write to it failed with 74, while `init`, `migrate` and `check` said all was well.
    private func checkJoinTableNames() throws(ModelError) {
        var owners: [String: (name: String, owner: String, subjects: [String])] = [:]
        for e in entities {
            for r in e.relationships {
                guard case .joinTable(let name, _, _) = storage(of: r, in: e) else { continue }
                // Named by the side whose name the table bears, as `the links of …` name them elsewhere.
                let owns = (e.name, r.name) <= (r.destination, r.inverse)
                let owner = owns ? "\(e.name).\(r.name)" : "\(r.destination).\(r.inverse)"
                let subjects = ["\(e.name).\(r.name)", "\(r.destination).\(r.inverse)"]
                if let other = owners[Self.sqlFold(name)] {
                    if other.owner == owner { continue }
                    throw ModelError.nameClash("the links of \(owner) and the links of \(other.owner) would have one name, table \(name)"
                                               + "\(Self.caseNote(name, other.name)): give one of them another name",
                                               subjects: other.subjects + subjects)
                }
                owners[Self.sqlFold(name)] = (name, owner, subjects)
            }
        }
    }

    /// Why two names are one: said when they differ only in case.
    static func caseNote(_ a: String, _ b: String) -> String {
        a == b ? "" : " in SQLite, which does not tell \(a) from \(b)"
    }

    /// A table in words, and the names (`Entity` or `Entity.property`) the model file declares it with.
    private func describe(_ table: TableSpec) -> (String, [String]) {
        if let entity = table.entity { return ("entity \(entity)", [entity]) }
        for e in entities {
            for r in e.relationships {
                if case .joinTable(let name, _, _) = storage(of: r, in: e), name == table.name {
                    return ("the links of \(e.name).\(r.name) (table \(table.name))", ["\(e.name).\(r.name)", "\(r.destination).\(r.inverse)"])
                }
            }
        }
        return ("table \(table.name)", [])
    }

    private func describe(_ column: ColumnSpec, in table: TableSpec) -> (what: String, subjects: [String]) {
        let owner = table.entity ?? table.name
        switch column.role {
        case .id: return ("the object IDs (column id)", table.entity.map { [$0] } ?? [])
        case .attribute(let a): return ("\(owner).\(a.name)", ["\(owner).\(a.name)"])
        case .foreignKey(let r): return ("relationship \(owner).\(r.name) (column \(column.name))", ["\(owner).\(r.name)"])
        case .link(let entity): return ("the links' column \(column.name)", [entity])
        }
    }
}
