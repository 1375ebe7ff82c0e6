// An object ID is never handed out twice in a store. SQLite gives a new row the ID after the largest its table
// holds, so deleting the newest object let the next one take its ID — and a reference that a No Action delete left
// then pointed, without a word, at the new object (issue 26). Each entity has a mark (`ids:<Entity>` in the metadata
// table): the highest ID bookkeeper ever handed out for it, raised when objects are inserted and when they are
// deleted (one statement per entity per save or batch), and every writer gives new objects IDs above the mark as
// well as above the table's largest. Since the mark is raised at inserts, a delete made by another tool (`sqlite3`)
// cannot bring an ID back either (attack 27). The rows themselves need nothing: a table rebuilt by a migration
// keeps its IDs, and the metadata table is never rebuilt. A store without a mark for an entity (written before
// marks existed, or an entity a migration added) takes its table's largest ID at its first write.
extension Store {
    /// The metadata key of `entity`'s mark.
    static func idMarkKey(_ entity: String) -> String { "ids:\(entity)" }

    /// The highest ID bookkeeper recorded handing out for `entity`, or 0.
    static func idMark(_ db: any StorageConnection, entity: String) throws -> Int64 {
        try db.int64(StoreSQL(db.dialect).metaInteger(metaTable), [.text(idMarkKey(entity))]) ?? 0
    }

    /// The largest ID ever handed out to `entity`: its mark, or its table's largest above it (written by another
    /// tool, or a store without a mark).
    static func highestHandedOutID(_ db: any StorageConnection, entity: String) throws -> Int64 {
        let stored = try db.int64(StoreSQL(db.dialect).largestID(in: entity)) ?? 0
        return max(stored, try idMark(db, entity: entity))
    }

    /// The ID the next new object of `entity` gets.
    func nextObjectID(_ db: any StorageConnection, entity: String) throws -> Int64 {
        try confirmIDMarkReadable(db, entity: entity)
        return try nextObjectID(after: Store.highestHandedOutID(db, entity: entity), entity: entity)
    }

    /// A mark as stored, read: an ID (digits, within Int64) or nil when it is not one (another tool wrote it:
    /// `abc`, `-5`, `1e3`, 22 digits, which SQLite's CAST read as 0 or Int64.max). An absent mark is 0.
    static func readIDMark(_ value: StoredValue?) -> Int64? {
        switch value {
        case nil, .null?: return 0
        case .integer(let id)?: return id >= 0 ? id : nil
        case .text(let text)?:
            guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return nil }
            return Int64(text)
        case .real?, .blob?: return nil
        }
    }

    /// Refuses to hand out IDs of `entity` when its mark is not an ID (attack 17: a mark of 22 digits made every add
    /// say that every ID was handed out; `abc` was read as 0, so a deleted object's ID could come back).
    func confirmIDMarkReadable(_ db: any StorageConnection, entity: String) throws {
        let stored = try db.value(StoreSQL(db.dialect).metaValue(Store.metaTable), [.text(Store.idMarkKey(entity))])
        if Store.readIDMark(stored) == nil {
            throw StoreError.idMarkUnreadable(path: path, entity: entity, value: Store.markText(stored))
        }
    }

    /// A stored mark in a line: `"abc"`, `1.5`.
    static func markText(_ value: StoredValue?) -> String {
        switch value {
        case .text(let text)?: text.debugDescription
        case .integer(let i)?: String(i)
        case .real(let d)?: String(d)
        case .blob?: "a blob"
        case .null?, nil: "nothing"
        }
    }

    func nextObjectID(after highest: Int64, entity: String) throws -> Int64 {
        // (SQLite would then pick a free ID at random, possibly a deleted one.) A condition of the data: 65.
        guard highest < Int64.max else { throw StoreError.idsExhausted(path: path, entity: entity) }
        return highest + 1
    }

    /// SQL that raises `entity`'s mark to `?2` (never lowers it); `?1` is the key.
    static func raiseIDMarkSQL(_ dialect: any SQLDialect) -> String { StoreSQL(dialect).raiseMetaInteger(metaTable) }

    /// Records that `entity`'s objects up to ID `id` were handed out (inserted, or deleted).
    static func raiseIDMark(_ db: any StorageConnection, entity: String, to id: Int64) throws {
        try db.execute(cached: raiseIDMarkSQL(db.dialect), [.text(idMarkKey(entity)), .integer(id)])
    }

    /// Gives every entity of the model without a mark its table's largest ID (in the write transaction, before
    /// anything is written): a store written before marks existed, or an entity a migration added. One query when
    /// every entity has its mark.
    func recordMissingIDMarks(_ db: any StorageConnection) throws {
        let present = Set(try db.column(StoreSQL(db.dialect).metaKeys(Store.metaTable, prefix: Store.idMarkKey(""))).compactMap(\.string))
        for entity in model.entities where !present.contains(Store.idMarkKey(entity.name)) {
            guard try db.tableExists(entity.name) else { continue }
            try db.execute(StoreSQL(db.dialect).insertLargestID(Store.metaTable, of: entity.name), [.text(Store.idMarkKey(entity.name))])
        }
    }
}
