// The statements of `check`: what it lists (references to no object, links kept twice, values of another kind
// than their column's, text with a NUL or not UTF-8, infinities, booleans other than 0 and 1, repeated keys, the
// objects that break a rule) and the counts of the rest, built here through the dialect.

struct CheckSQL {
    let d: any SQLDialect
    init(_ d: any SQLDialect) { self.d = d }
    /// The statements in SQLite's dialect (for the parts of the store that are SQLite's own).
    static let sqlite = CheckSQL(SQLiteDialect())
    private func q(_ name: String) -> String { d.quote(name) }
    private func p(_ position: Int) -> String { d.placeholder(position) }

    /// The first rows of `sql` by `order`, as many as parameter 1 (`sql` must not end in ORDER BY or LIMIT).
    func firstRows(of sql: String, order: String) -> String {
        "SELECT * FROM (\(sql)) AS r ORDER BY \(order) LIMIT \(p(1))"
    }

    /// The number of rows of `sql`.
    func count(of sql: String) -> String { "SELECT COUNT(*) FROM (\(sql)) AS n" }

    /// The order of `brokenLinks` and `repeatedLinks`.
    var linkOrder: String { "a, b" }

    /// The links of `joinTable` (columns a, b) to an object that does not exist, and whether each end exists.
    func brokenLinks(_ joinTable: String, own: String, other: String, ownEntity: String, otherEntity: String) -> String {
        let a = q(own), b = q(other)
        let no = d.constant(false)
        return "SELECT a, b, aFound, bFound FROM (SELECT \(a) AS a, \(b) AS b, coalesce(\(a) IN (SELECT \(q("id")) FROM \(q(ownEntity))), \(no)) AS aFound, "
            + "coalesce(\(b) IN (SELECT \(q("id")) FROM \(q(otherEntity))), \(no)) AS bFound FROM \(q(joinTable))) AS l WHERE NOT aFound OR NOT bFound"
    }

    /// The links of `joinTable` kept more than once (columns a, b, and how many times).
    func repeatedLinks(_ joinTable: String, own: String, other: String) -> String {
        let a = q(own), b = q(other)
        return "SELECT \(a) AS a, \(b) AS b, COUNT(*) AS n FROM \(q(joinTable)) GROUP BY \(a), \(b) HAVING COUNT(*) > 1"
    }

    /// The objects of `table` whose `column` refers to no object of `destination` (ID, target): to an ID from 1 to
    /// `highest` (handed out, so deleted) when `handedOut`, else to one never handed out.
    func danglingReferences(_ table: String, column: String, destination: String, highest: Int64, handedOut: Bool) -> String {
        let c = q(column)
        let range = "\(c) BETWEEN 1 AND \(highest)"
        return "SELECT \(q("id")), \(c) AS target FROM \(q(table)) WHERE \(c) IS NOT NULL "
            + "AND \(c) NOT IN (SELECT \(q("id")) FROM \(q(destination))) AND " + (handedOut ? range : "NOT (\(range))")
    }

    /// The objects whose `column` is stored as another kind than `kind` (ID, value, its bytes).
    func storedOtherwise(_ table: String, column: String, than kind: StoredKind) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(c) AS v, \(d.storedBytes(c)) AS bytes FROM \(q(table)) WHERE \(d.isStoredOtherwise(c, than: kind))"
    }

    /// The objects whose text in `column` holds a NUL (ID, its bytes).
    func textWithNUL(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(d.storedBytes(c)) FROM \(q(table)) WHERE \(d.isStored(c, as: .text)) AND \(d.containsNUL(d.storedBytes(c)))"
    }

    /// The objects whose text in `column` is not UTF-8 (ID, its bytes).
    func textNotUTF8(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(d.storedBytes(c)) FROM \(q(table)) WHERE \(d.isStored(c, as: .text)) AND \(d.invalidUTF8(c))"
    }

    /// The objects whose `column` holds an infinity (ID, whether it is +∞).
    func infinities(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(c) > 0 FROM \(q(table)) WHERE \(d.isStored(c, as: .real)) AND \(d.isNonFinite(c))"
    }

    /// The objects whose boolean `column` holds an integer other than 0 and 1 (ID, value).
    func otherBooleans(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(c) FROM \(q(table)) WHERE \(d.isStored(c, as: .integer)) AND \(c) NOT IN (0, 1)"
    }

    /// The objects whose decimal `column` holds Int64.min units (ID): beyond the type, which holds ±Int64.max units.
    func decimalsBeyondRange(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")) FROM \(q(table)) WHERE \(d.isStored(c, as: .integer)) AND \(c) = \(Int64.min)"
    }

    /// Every object-ID mark in the metadata table (key, value as stored).
    func idMarks(_ metaTable: String, prefix: String) -> String {
        "SELECT \(q("key")), \(q("value")) FROM \(q(metaTable)) WHERE substr(\(q("key")), 1, \(prefix.utf8.count)) = '\(prefix)'"
    }

    /// Every object whose `column` holds text (ID, its bytes), by ID.
    func texts(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(d.storedBytes(c)) FROM \(q(table)) WHERE \(d.isStored(c, as: .text)) ORDER BY \(q("id"))"
    }

    /// The values of `column` that several objects share (value, count, the first ID).
    func repeatedValueGroups(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(c) AS v, COUNT(*) AS n, MIN(\(q("id"))) AS first FROM \(q(table)) WHERE \(c) IS NOT NULL GROUP BY \(c) HAVING COUNT(*) > 1"
    }

    /// The first groups of `repeatedValueGroups` (by their first object, as many as parameter 1): value, count,
    /// and the IDs of its first five objects joined with commas.
    func repeatedValues(_ table: String, column: String) -> String {
        let c = q(column), id = q("id")
        let firstFive = "SELECT \(id) FROM \(q(table)) AS o WHERE o.\(c) = g.v ORDER BY \(id) LIMIT 5"
        return "SELECT v, n, (SELECT \(d.joinedWithCommas(id)) FROM (\(firstFive)) AS f) "
            + "FROM (\(repeatedValueGroups(table, column: column))) AS g ORDER BY first LIMIT \(p(1))"
    }

    /// The objects of `fetch` (a query whose first column is "id"): ID and natural key (none without one).
    func objects(of fetch: String, key: String?) -> String {
        "SELECT \(q("id")), \(key.map(q) ?? "NULL") FROM (\(fetch)) AS o"
    }

    /// The objects of `table` whose `column` refers to no object of `destination` (ID, target): what a foreign key
    /// PostgreSQL no longer enforces (dropped, or its triggers disabled) let in.
    func missingTargets(_ table: String, column: String, destination: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), \(c) AS target FROM \(q(table)) WHERE \(c) IS NOT NULL AND \(c) NOT IN (SELECT \(q("id")) FROM \(q(destination)))"
    }

    var foreignKeyCheck: String { d.foreignKeyCheck }
    func fileJournal(_ kind: FileJournal) -> String { d.fileJournal(kind) }
}
