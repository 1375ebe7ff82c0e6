// The store's own statements — its metadata table (format, model, object ID marks), the read of infinities a sum
// met, the reads that begin a snapshot or check a copy — built here through the dialect.

struct StoreSQL {
    let d: any SQLDialect
    init(_ d: any SQLDialect) { self.d = d }
    /// The statements in SQLite's dialect (for the parts of the store that are SQLite's own).
    static let sqlite = StoreSQL(SQLiteDialect())
    private func q(_ name: String) -> String { d.quote(name) }
    private func p(_ position: Int) -> String { d.placeholder(position) }

    // MARK: The metadata table

    func createMeta(_ table: String) -> String {
        "CREATE TABLE \(q(table)) (\(q("key")) TEXT PRIMARY KEY, \(q("value")) TEXT NOT NULL) STRICT"
    }

    /// Adds the pair (parameter 1, parameter 2).
    func insertMeta(_ table: String) -> String {
        "INSERT INTO \(q(table)) (\(q("key")), \(q("value"))) VALUES (\(p(1)), \(p(2)))"
    }

    /// Every (key, value).
    func allMeta(_ table: String) -> String { "SELECT \(q("key")), \(q("value")) FROM \(q(table))" }

    /// The value of key parameter 1.
    func metaValue(_ table: String) -> String {
        "SELECT \(q("value")) FROM \(q(table)) WHERE \(q("key")) = \(p(1))"
    }

    /// Sets key parameter 1 to parameter 2, adding the key when missing.
    func putMeta(_ table: String) -> String {
        d.upsert(into: table, columns: ["key", "value"], values: [p(1), p(2)], conflict: ["key"], update: ["value"])
    }

    /// The value of key parameter 1, as an integer.
    func metaInteger(_ table: String) -> String { BatchSQL(d).metaInteger(table) }

    /// The keys that begin with `prefix` (a plain text: no pattern characters).
    func metaKeys(_ table: String, prefix: String) -> String {
        "SELECT \(q("key")) FROM \(q(table)) WHERE substr(\(q("key")), 1, \(prefix.utf8.count)) = '\(prefix.replacingOccurrences(of: "'", with: "''"))'"
    }

    /// Raises the integer under key parameter 1 to parameter 2 (never lowers it), adding the key when missing.
    func raiseMetaInteger(_ table: String) -> String {
        let current = d.castInteger("\(q(table)).\(q("value"))")
        return "INSERT INTO \(q(table)) (\(q("key")), \(q("value"))) VALUES (\(p(1)), CAST(\(p(2)) AS TEXT)) "
            + "ON CONFLICT(\(q("key"))) DO UPDATE SET \(q("value")) = CAST(\(d.greater(current, p(2))) AS TEXT)"
    }

    /// Adds key parameter 1 with the largest ID of `entity`'s table (0 when empty), unless the key is there.
    func insertLargestID(_ table: String, of entity: String) -> String {
        d.insertMissing(into: table, columns: ["key", "value"],
                        select: "SELECT \(p(1)), CAST(coalesce(max(\(q("id"))), 0) AS TEXT) FROM \(q(entity))", conflict: ["key"])
    }

    // MARK: Reads

    func largestID(in table: String) -> String { BatchSQL(d).largestID(in: table) }

    /// The first object of `entity` (by ID) whose `attribute` is not a finite number: ID and value.
    func firstNonFinite(_ entity: String, _ attribute: String) -> String {
        "SELECT \(q("id")), \(q(attribute)) FROM \(q(entity)) WHERE \(d.isNonFinite(q(attribute))) ORDER BY \(q("id")) LIMIT 1"
    }

    var tableExists: String { d.tableExists }
    var schemaVersion: String { d.schemaVersion }
    var readSchema: String { d.readSchema }
    var beginRead: String { d.beginRead }
    var commit: String { d.commit }
    var rollback: String { d.rollback }
    var quickCheck: String { d.quickCheck }
    var integrityCheck: String { d.integrityCheck }
    func checkPagesOnRead(_ on: Bool) -> String { d.checkPagesOnRead(on) }
    func connectionSettings(readOnly: Bool) -> [String] { d.connectionSettings(readOnly: readOnly) }
    func fileJournal(_ kind: FileJournal) -> String { d.fileJournal(kind) }
}
