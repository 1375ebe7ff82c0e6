import GRDB

// An object ID is never handed out twice in a store. SQLite gives a new row the ID after the largest its table
// holds, so deleting the newest object let the next one take its ID — and a reference that a No Action delete left
// then pointed, without a word, at the new object (issue 26). Every delete records the largest ID it removed from
// an entity's table (`ids:<Entity>` in the metadata table, one row per entity, written once per save or batch), and
// every writer gives new objects IDs above that mark as well as above the table's largest. The rows themselves need
// nothing: a table rebuilt by a migration keeps its IDs, and the metadata table is never rebuilt. A store written
// before the mark existed starts it at its first delete.
extension Store {
    /// The metadata key of `entity`'s mark.
    static func idMarkKey(_ entity: String) -> String { "ids:\(entity)" }

    /// The largest ID a delete removed from `entity`'s table, or 0.
    static func deletedIDMark(_ db: Database, entity: String) throws -> Int64 {
        try Int64.fetchOne(db, sql: "SELECT CAST(\"value\" AS INTEGER) FROM \(quoted(metaTable)) WHERE \"key\" = ?",
                           arguments: [idMarkKey(entity)]) ?? 0
    }

    /// The largest ID ever handed out to `entity`: its table's largest, or a deleted one's above it.
    static func highestHandedOutID(_ db: Database, entity: String) throws -> Int64 {
        let stored = try Int64.fetchOne(db, sql: "SELECT max(\"id\") FROM \(quoted(entity))") ?? 0
        return max(stored, try deletedIDMark(db, entity: entity))
    }

    /// The ID the next new object of `entity` gets.
    static func nextObjectID(_ db: Database, entity: String) throws -> Int64 {
        try nextObjectID(after: highestHandedOutID(db, entity: entity), entity: entity)
    }

    static func nextObjectID(after highest: Int64, entity: String) throws -> Int64 {
        // (SQLite would then pick a free ID at random, possibly a deleted one.)
        guard highest < Int64.max else {
            throw StoreError.sqlite("\(entity): every object ID up to \(Int64.max) was handed out; no new object can be given one")
        }
        return highest + 1
    }

    /// SQL that raises `entity`'s mark to `?2` (never lowers it); `?1` is the key.
    static let raiseIDMarkSQL = """
        INSERT INTO \(quoted(metaTable)) ("key", "value") VALUES (?1, CAST(?2 AS TEXT))
        ON CONFLICT("key") DO UPDATE SET "value" = CAST(max(CAST("value" AS INTEGER), ?2) AS TEXT)
        """

    /// Records that a delete removed `entity`'s objects up to ID `id`.
    static func raiseDeletedIDMark(_ db: Database, entity: String, to id: Int64) throws {
        try db.cachedStatement(sql: raiseIDMarkSQL).execute(arguments: [idMarkKey(entity), id])
    }
}
