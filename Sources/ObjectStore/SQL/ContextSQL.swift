// The object context's statements — one object read, inserted, updated or deleted, its links, the values a save
// moves out of the way, the reads behind relationships and key look-ups — built here through the dialect.

enum ContextSQL {
    private static var d: any SQLDialect { Store.dialect }
    private static func q(_ name: String) -> String { d.quote(name) }
    private static func p(_ position: Int) -> String { d.placeholder(position) }

    // MARK: Writes

    /// Inserts one object: "id", then `columns`, as parameters 1….
    static func insert(into table: String, columns: [String]) -> String {
        let all = ["id"] + columns
        return "INSERT INTO \(q(table)) (\(all.map(q).joined(separator: ", "))) VALUES ("
            + all.indices.map { p($0 + 1) }.joined(separator: ", ") + ")"
    }

    /// Sets `columns` of the object whose ID is the parameter after them.
    static func update(_ table: String, setting columns: [String]) -> String { BatchSQL.update(table, setting: columns) }

    /// Clears `column` of the object whose ID is parameter 1.
    static func clear(_ table: String, column: String) -> String {
        "UPDATE \(q(table)) SET \(q(column)) = NULL WHERE \(q("id")) = \(p(1))"
    }

    /// Deletes the object whose ID is parameter 1.
    static func delete(from table: String) -> String { BatchSQL.deleteRow(from: table) }

    /// The smallest (or largest) value of `column`.
    static func extreme(_ column: String, in table: String, largest: Bool) -> String {
        "SELECT \(largest ? "max" : "min")(\(q(column))) FROM \(q(table))"
    }

    static func addLink(_ table: String, own: String, other: String) -> String { BatchSQL.addLink(table, own: own, other: other) }
    static func removeLink(_ table: String, own: String, other: String) -> String { BatchSQL.removeLink(table, own: own, other: other) }

    // MARK: Reads

    /// The object whose ID is parameter 1, every column.
    static func object(in table: String) -> String { "SELECT * FROM \(q(table)) WHERE \(q("id")) = \(p(1))" }

    /// Whether `column` of the object whose ID is parameter 2 holds exactly parameter 1 (its stored bytes).
    static func stored(_ table: String, column: String) -> String {
        "SELECT \(q(column)) IS \(p(1)) FROM \(q(table)) WHERE \(q("id")) = \(p(2))"
    }

    /// Every object, every column, by ID.
    static func objects(in table: String) -> String { "SELECT * FROM \(q(table)) ORDER BY \(q("id"))" }

    /// The objects whose `column` is parameter 1, every column, by ID.
    static func objects(in table: String, where column: String) -> String {
        "SELECT * FROM \(q(table)) WHERE \(q(column)) = \(p(1)) ORDER BY \(q("id"))"
    }

    /// The objects whose text in `column` has a character beyond ASCII, every column, by ID.
    static func objects(in table: String, nonASCIIIn column: String) -> String {
        "SELECT * FROM \(q(table)) WHERE \(d.hasNonASCIIText(q(column))) ORDER BY \(q("id"))"
    }

    /// The objects of `destination` linked through `joinTable` to the object bound as parameter 1, by ID.
    static func linked(_ destination: String, through joinTable: String, own: String, other: String) -> String {
        "SELECT d.* FROM \(q(destination)) d JOIN \(q(joinTable)) j ON j.\(q(other)) = d.\(q("id")) "
            + "WHERE j.\(q(own)) = \(p(1)) ORDER BY d.\(q("id"))"
    }

    /// The IDs of the objects whose `column` is parameter 1.
    static func ids(in table: String, where column: String) -> String { BatchSQL.ids(from: table, where: column) }

    /// The number of objects.
    static func count(in table: String) -> String { "SELECT COUNT(*) FROM \(q(table))" }

    /// Every value of `column` that is not none.
    static func values(_ column: String, in table: String) -> String {
        "SELECT \(q(column)) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL"
    }
}
