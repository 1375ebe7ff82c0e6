// The object context's statements — one object read, inserted, updated or deleted, its links, the values a save
// moves out of the way, the reads behind relationships and key look-ups — built here through the dialect.

struct ContextSQL {
    let d: any SQLDialect
    init(_ d: any SQLDialect) { self.d = d }
    /// The statements in SQLite's dialect (for the parts of the store that are SQLite's own).
    static let sqlite = ContextSQL(SQLiteDialect())
    private func q(_ name: String) -> String { d.quote(name) }
    private func p(_ position: Int) -> String { d.placeholder(position) }

    // MARK: Writes

    /// Inserts one object: "id", then `columns`, as parameters 1….
    func insert(into table: String, columns: [String]) -> String {
        let all = ["id"] + columns
        return "INSERT INTO \(q(table)) (\(all.map(q).joined(separator: ", "))) VALUES ("
            + all.indices.map { p($0 + 1) }.joined(separator: ", ") + ")"
    }

    /// Sets `columns` of the object whose ID is the parameter after them.
    func update(_ table: String, setting columns: [String]) -> String { BatchSQL(d).update(table, setting: columns) }

    /// Clears `column` of the object whose ID is parameter 1.
    func clear(_ table: String, column: String) -> String {
        "UPDATE \(q(table)) SET \(q(column)) = NULL WHERE \(q("id")) = \(p(1))"
    }

    /// Deletes the object whose ID is parameter 1.
    func delete(from table: String) -> String { BatchSQL(d).deleteRow(from: table) }

    /// The smallest (or largest) value of `column`.
    func extreme(_ column: String, in table: String, largest: Bool) -> String {
        "SELECT \(largest ? "max" : "min")(\(q(column))) FROM \(q(table))"
    }

    func addLink(_ table: String, own: String, other: String) -> String { BatchSQL(d).addLink(table, own: own, other: other) }
    func removeLink(_ table: String, own: String, other: String) -> String { BatchSQL(d).removeLink(table, own: own, other: other) }

    // MARK: Reads

    /// The object whose ID is parameter 1, every column.
    func object(in table: String) -> String { "SELECT * FROM \(q(table)) WHERE \(q("id")) = \(p(1))" }

    /// Whether `column` of the object whose ID is parameter 2 holds exactly parameter 1 (its stored bytes).
    func stored(_ table: String, column: String) -> String {
        "SELECT \(d.isNotDistinct(q(column), p(1))) FROM \(q(table)) WHERE \(q("id")) = \(p(2))"
    }

    /// Every object, every column, by ID.
    func objects(in table: String) -> String { "SELECT * FROM \(q(table)) ORDER BY \(q("id"))" }

    /// The objects whose `column` is parameter 1, every column, by ID.
    func objects(in table: String, where column: String) -> String {
        "SELECT * FROM \(q(table)) WHERE \(q(column)) = \(p(1)) ORDER BY \(q("id"))"
    }

    /// The objects whose text in `column` has a character beyond ASCII, every column, by ID.
    func objects(in table: String, nonASCIIIn column: String) -> String {
        "SELECT * FROM \(q(table)) WHERE \(d.hasNonASCIIText(q(column))) ORDER BY \(q("id"))"
    }

    /// The objects of `destination` linked through `joinTable` to the object bound as parameter 1, by ID.
    func linked(_ destination: String, through joinTable: String, own: String, other: String) -> String {
        "SELECT d.* FROM \(q(destination)) d JOIN \(q(joinTable)) j ON j.\(q(other)) = d.\(q("id")) "
            + "WHERE j.\(q(own)) = \(p(1)) ORDER BY d.\(q("id"))"
    }

    /// The IDs of the objects whose `column` is parameter 1.
    func ids(in table: String, where column: String) -> String { BatchSQL(d).ids(from: table, where: column) }

    /// The number of objects.
    func count(in table: String) -> String { "SELECT COUNT(*) FROM \(q(table))" }

    /// Every value of `column` that is not none.
    func values(_ column: String, in table: String) -> String {
        "SELECT \(q(column)) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL ORDER BY \(q("id"))"
    }
}
