// The statements of the batch writer — imports and upserts, key look-ups, line keys and leftovers, links, the
// indexes it drops and makes again, its savepoints and the import history — and of `export`. Their text is built
// here, through the dialect; the files of Batch/ prepare, bind and step them. Parameters are bound in the order
// their placeholders are numbered. Names come from the model (plain names, quoted here); values are never
// written into the text.

struct BatchSQL {
    let d: any SQLDialect
    init(_ d: any SQLDialect) { self.d = d }
    /// The statements in SQLite's dialect (for the parts of the store that are SQLite's own).
    static let sqlite = BatchSQL(SQLiteDialect())
    private func q(_ name: String) -> String { d.quote(name) }
    private func p(_ position: Int) -> String { d.placeholder(position) }

    // MARK: Rows

    /// Inserts `rows` rows of `columns` ("id", the attributes, then the foreign keys), row after row.
    func insertRows(into table: String, columns: [String], rows: Int) -> String {
        d.insertRows(into: table, columns: columns, rows: rows)
    }

    /// The row whose `column` is parameter 1 (the first one found, with `limit`); `select` is a quoted column list.
    func row(_ select: String, from table: String, where column: String, limit: Int? = nil) -> String {
        "SELECT \(select) FROM \(q(table)) WHERE \(q(column)) = \(p(1))" + (limit.map { " LIMIT \($0)" } ?? "")
    }

    /// The IDs of the rows whose `column` is parameter 1, at most `limit`.
    func ids(from table: String, where column: String, limit: Int? = nil) -> String {
        row(q("id"), from: table, where: column, limit: limit)
    }

    /// The rows of `table` whose `column` is parameter 1 and whose ID is above parameter 2, by ID.
    func rowsAfterID(_ select: String, from table: String, where column: String) -> String {
        "SELECT \(select) FROM \(q(table)) WHERE \(q(column)) = \(p(1)) AND \(q("id")) > \(p(2)) ORDER BY \(q("id"))"
    }

    /// Deletes the rows whose `column` is parameter 1 and whose ID is above parameter 2.
    func deleteRowsAfterID(from table: String, where column: String) -> String {
        "DELETE FROM \(q(table)) WHERE \(q(column)) = \(p(1)) AND \(q("id")) > \(p(2))"
    }

    /// Deletes the row whose ID is parameter 1.
    func deleteRow(from table: String) -> String {
        "DELETE FROM \(q(table)) WHERE \(q("id")) = \(p(1))"
    }

    /// Sets `columns` to parameters 1… of the row whose ID is the parameter after them.
    func update(_ table: String, setting columns: [String]) -> String {
        let assignments = columns.enumerated().map { "\(q($1)) = \(p($0 + 1))" }
        return "UPDATE \(q(table)) SET \(assignments.joined(separator: ", ")) WHERE \(q("id")) = \(p(columns.count + 1))"
    }

    /// Sets `column` of the row whose ID is parameter 2 to parameter 1 when it holds another value (parameter 3,
    /// the same value): the changed-rows count then says whether it changed.
    func setReference(_ table: String, column: String) -> String {
        "UPDATE \(q(table)) SET \(q(column)) = \(p(1)) WHERE \(q("id")) = \(p(2)) AND \(d.isDistinct(q(column), p(3)))"
    }

    /// The largest ID in `table` (none when empty).
    func largestID(in table: String) -> String { "SELECT max(\(q("id"))) FROM \(q(table))" }

    /// The value of the store's metadata key bound as parameter 1, as an integer.
    /// The value of key parameter 1 as it is stored.
    func metaValue(_ metaTable: String) -> String {
        "SELECT \(q("value")) FROM \(q(metaTable)) WHERE \(q("key")) = \(p(1))"
    }

    func metaInteger(_ metaTable: String) -> String {
        "SELECT CAST(\(q("value")) AS INTEGER) FROM \(q(metaTable)) WHERE \(q("key")) = \(p(1))"
    }

    /// Whether the object of ID parameter `idParameter` is among the rows of `fetch` (a query whose first column is
    /// "id" and whose own parameters come before it).
    func isAmong(_ fetch: String, idParameter: Int) -> String {
        "SELECT 1 FROM (\(fetch)) AS \(q("among")) WHERE \(q("id")) = \(p(idParameter))"
    }

    // MARK: Keys

    /// `column` of the row whose ID is parameter 1.
    func value(of column: String, in table: String) -> String {
        "SELECT \(q(column)) FROM \(q(table)) WHERE \(q("id")) = \(p(1))"
    }

    /// Every (key, ID) of `column` that is not none.
    func keys(_ column: String, in table: String) -> String {
        "SELECT \(q(column)), \(q("id")) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL"
    }

    /// Up to `limit` values of `column` that are not none.
    func values(_ column: String, in table: String, limit: Int) -> String {
        "SELECT \(q(column)) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL LIMIT \(limit)"
    }

    /// Every (key, ID) of `column` whose text has a character beyond ASCII, by ID.
    func nonASCIIKeys(_ column: String, in table: String) -> String {
        "SELECT \(q(column)), \(q("id")) FROM \(q(table)) WHERE \(d.hasNonASCIIText(q(column))) ORDER BY \(q("id"))"
    }

    // MARK: Links (to-many relationships through a join table)

    /// Adds the link (parameter 1, parameter 2) unless it is there.
    func addLink(_ table: String, own: String, other: String) -> String {
        d.upsert(into: table, columns: [own, other], values: [p(1), p(2)], conflict: [own, other], update: [])
    }

    /// Removes the link (parameter 1, parameter 2).
    func removeLink(_ table: String, own: String, other: String) -> String {
        "DELETE FROM \(q(table)) WHERE \(q(own)) = \(p(1)) AND \(q(other)) = \(p(2))"
    }

    /// The other ends of the links of object parameter 1.
    func links(_ table: String, own: String, other: String) -> String {
        "SELECT \(q(other)) FROM \(q(table)) WHERE \(q(own)) = \(p(1))"
    }

    // MARK: Indexes, savepoints, checks

    func dropIndex(_ name: String) -> String { "DROP INDEX \(q(name))" }
    var indexesOfTable: String { d.indexesOfTable }
    var keyColumnsOfIndex: String { d.keyColumnsOfIndex }
    var indexExists: String { d.indexExists }
    func sortHelpers(_ count: Int) -> String { d.sortHelpers(count) }

    /// The savepoint of one record that `--on-error skip` may roll back alone.
    static let recordSavepoint = "batch_record"
    var beginRecord: String { d.savepoint(Self.recordSavepoint) }
    var keepRecord: String { d.releaseSavepoint(Self.recordSavepoint) }
    var undoRecord: [String] { [d.rollbackToSavepoint(Self.recordSavepoint), d.releaseSavepoint(Self.recordSavepoint)] }

    var foreignKeysEnabled: String { d.foreignKeysEnabled }
    func foreignKeys(on: Bool) -> String { d.foreignKeys(on: on) }
    var foreignKeyCheck: String { d.foreignKeyCheck }
    var dropsIndexesDuringLoads: Bool { d.dropsIndexesDuringLoads }

    // MARK: The import history

    static let journalTable = "_bookkeeper_imports"

    /// The import history's table (on SQLite: `"id" INTEGER PRIMARY KEY, "file" TEXT NOT NULL, …) STRICT`).
    var createJournal: String {
        let text = d.columnType(.string), real = d.columnType(.double), integer = d.columnType(.integer)
        let columns: [(String, String)] = [
            ("file", text), ("sha256", text), ("started_at", text), ("seconds", real), ("entity", text), ("records", integer),
            ("inserted", integer), ("updated", integer), ("unchanged", integer), ("deleted", integer), ("rejected", integer),
            ("counts", text),
        ]
        return "CREATE TABLE IF NOT EXISTS \(q(Self.journalTable)) (\(q("id")) \(d.generatedKey), "
            + columns.map { "\(q($0.0)) \($0.1) NOT NULL" }.joined(separator: ", ")
            + ", \(q("encoding")) \(text))\(d.typedTable)"
    }

    /// Columns added since the table was first made, each nullable (rows from before have no value).
    static let journalAddedColumns = [("encoding", "TEXT")]

    var columnsOfTable: String { d.columnsOfTable }

    func addJournalColumn(_ name: String, _ type: String) -> String {
        "ALTER TABLE \(q(Self.journalTable)) ADD COLUMN \(q(name)) \(type)"
    }

    static let journalColumns = ["file", "sha256", "started_at", "seconds", "entity", "records", "inserted", "updated",
                                 "unchanged", "deleted", "rejected", "counts", "encoding"]

    /// Records one import: `Self.journalColumns` as parameters 1….
    var recordImport: String {
        "INSERT INTO \(q(Self.journalTable)) (\(Self.journalColumns.map(q).joined(separator: ", "))) VALUES ("
            + Self.journalColumns.indices.map { p($0 + 1) }.joined(separator: ", ") + ")"
    }

    /// Every recorded import, oldest first; an older table without the encoding column reads none there.
    func importHistory(hasEncoding: Bool) -> String {
        let columns = ["id", "file", "sha256", "started_at", "seconds", "entity", "records", "rejected", "counts"].map(q)
        let encoding = hasEncoding ? q("encoding") : "NULL AS \(q("encoding"))"
        return "SELECT \((columns + [encoding]).joined(separator: ", ")) FROM \(q(Self.journalTable)) ORDER BY \(q("id"))"
    }

    // MARK: Export

    /// One to-one relationship of an exported entity: the destination's table, its key column, the foreign key.
    struct ExportedReference {
        let table: String
        let keyColumn: String
        let foreignKey: String
    }

    /// The objects of `table` by ID (of the parent bound as parameter 1 when `parentColumn` is given): "id", the
    /// `attributes`, then per reference the destination's key, the stored foreign key, and whether its row exists
    /// (to tell a dangling reference from none).
    func export(_ table: String, attributes: [String], references: [ExportedReference], parentColumn: String?) -> String {
        var columns = ["t.\(q("id"))"] + attributes.map { "t.\(q($0))" }
        var joins: [String] = []
        for (i, r) in references.enumerated() {
            let alias = "j\(i)"
            joins.append("LEFT JOIN \(q(r.table)) \(alias) ON \(alias).\(q("id")) = t.\(q(r.foreignKey))")
            columns.append("\(alias).\(q(r.keyColumn))")
            columns.append("t.\(q(r.foreignKey))")
            columns.append("\(alias).\(q("id")) IS NOT NULL")
        }
        var sql = "SELECT \(columns.joined(separator: ", ")) FROM \(q(table)) t \(joins.joined(separator: " "))"
        if let parentColumn { sql += " WHERE t.\(q(parentColumn)) = \(p(1))" }
        return sql + " ORDER BY t.\(q("id"))"
    }

    /// The keys of the objects linked to the object bound as parameter 1 through `joinTable`, by their ID.
    func exportLinks(_ joinTable: String, own: String, other: String, destination: String, keyColumn: String) -> String {
        "SELECT d.\(q(keyColumn)) FROM \(q(joinTable)) j JOIN \(q(destination)) d ON d.\(q("id")) = j.\(q(other)) "
            + "WHERE j.\(q(own)) = \(p(1)) ORDER BY d.\(q("id"))"
    }
}
