// The bulk write path: a model-driven writer for imports far larger than an ObjectContext can hold.
//
// Why this exists beside ObjectContext: a context keeps every object it touches and validates at save;
// a million-row import through it needs gigabytes and minutes. A BatchWriter runs inside one write
// transaction (rolled back instead of committed for a dry run), writes each record as it comes with
// prepared statements, and keeps in memory only the key caches that references need. It validates each
// record as a context's save does (required values, types and scales, uniqueness, the domain's
// `EntityBehaviour`), so a record that a context would refuse is refused here too, with the same words.
//
// Split by capability: +Upsert (directories and documents by key), +References (key caches, creating
// missing directory items), +Rows (a document's row table, replaced positionally), +Links (many-to-many),
// +Validation, +Savepoints (per-record rollback for imports that skip bad records).

import Foundation

/// What a batch did to one entity.
package struct BatchCounts: Sendable, Equatable, Codable {
    package var inserted = 0
    package var updated = 0
    package var unchanged = 0
    package var deleted = 0

    package init(inserted: Int = 0, updated: Int = 0, unchanged: Int = 0, deleted: Int = 0) {
        self.inserted = inserted
        self.updated = updated
        self.unchanged = unchanged
        self.deleted = deleted
    }

    package var isEmpty: Bool { inserted == 0 && updated == 0 && unchanged == 0 && deleted == 0 }
}

/// What writing one record did.
package enum WriteOutcome: Sendable, Equatable {
    case inserted
    case updated
    case unchanged
    /// The record's key was already written earlier in this batch, with the same values: nothing was done.
    case repeated
    /// The record's key was already written earlier in this batch with other values, and `onRepeat` chose which
    /// to keep (the earlier ones: nothing was done; the later: they were written).
    case conflicted
}

/// What a batch does with a key given again with other values (`import --on-conflict`).
package enum RepeatPolicy: String, Sendable, CaseIterable {
    /// An error naming the properties that differ (the default: a file that disagrees with itself is a question).
    case error
    /// The values first given are kept.
    case first
    /// The values last given are kept.
    case last
}

/// The values a stored row has: attributes in model order, then foreign keys.
struct StoredRow {
    var id: Int64
    var attributes: [StoredValue]
    var references: [Int64?]
}

package final class BatchWriter {
    package let store: Store
    package var model: ObjectModel { store.model }
    let connection: any StorageConnection
    /// The batch's statements, in the connection's dialect.
    let sql: BatchSQL

    @exclusivity(unchecked) var layouts: [String: EntityLayout] = [:]
    /// Rows buffered for multi-row inserts, over all entities.
    @exclusivity(unchecked) var pendingRows = 0
    /// Rows that existed before and were written (or found unchanged) by key in this batch.
    var visited: [String: Set<Int64>] = [:]
    /// Rows --create-missing created for a key no record had given yet: the first record to give the key fills
    /// its row (it is not a key given again). By entity: row IDs count per table.
    var placeholders: [String: Set<Int64>] = [:]
    /// What `upsert` does with a key given again with other values.
    package var onRepeat: RepeatPolicy = .error
    /// Rows replacement state, per rows entity and parent row ID (only parents that existed before).
    var cursors: [String: [Int64: DocumentRowsCursor]] = [:]
    /// Rows matched by their own line key, per rows entity and parent: the rows each document keeps.
    var keyedRows: [String: [Int64: Set<Int64>]] = [:]
    /// Documents counted `unchanged` whose rows may still change: per document entity.
    var unchangedParents: [String: Set<Int64>] = [:]
    /// What the batch did so far, per entity.
    package var counts: [String: BatchCounts] {
        var all: [String: BatchCounts] = [:]
        for (name, l) in layouts where !l.counts.isEmpty { all[name] = l.counts }
        return all
    }

    @exclusivity(unchecked) var savepoint: SavepointState?

    let inserter: BackgroundInserter

    init(store: Store, connection: any StorageConnection) {
        self.store = store
        self.connection = connection
        sql = BatchSQL(connection.dialect)
        inserter = BackgroundInserter(connection: connection, store: store)
    }

    /// A fresh record of `entityName` to fill and write (reuse it with `reset()`).
    package func record(_ entityName: String) throws(BatchError) -> BatchRecord {
        guard let entity = model.entity(named: entityName) else { throw .usage("unknown entity \"\(entityName)\"") }
        return BatchRecord(layout: try layout(entity))
    }

    func layout(_ entity: Entity) throws(BatchError) -> EntityLayout {
        if let l = layouts[entity.name] { return l }
        let l = EntityLayout(entity: entity, model: model)
        layouts[entity.name] = l
        let s = try statement(sql.largestID(in: l.entity.name))
        defer { s.reset() }
        _ = try s.step()
        l.maxIDAtStart = s.int64(0) ?? 0
        // IDs handed out before (and since deleted) are not handed out again (Store+ObjectIDs).
        let mark = try statement(sql.metaValue(Store.metaTable))
        defer { mark.reset() }
        mark.bind(1, .text(Store.idMarkKey(entity.name)))
        let stored = try mark.step() ? mark.column(0) : nil
        guard let handedOutUpTo = Store.readIDMark(stored) else {
            throw .store(StoreError.idMarkUnreadable(path: store.path, entity: entity.name, value: Store.markText(stored)))
        }
        do {
            l.firstNewID = try store.nextObjectID(after: max(l.maxIDAtStart, handedOutUpTo), entity: entity.name)
        } catch {
            throw .dataLimit("\(error)")
        }
        l.nextID = l.firstNewID
        return l
    }

    func layout(named name: String) throws(BatchError) -> EntityLayout {
        if let l = layouts[name] { return l }
        guard let e = model.entity(named: name) else { throw .usage("unknown entity \"\(name)\"") }
        return try layout(e)
    }

    /// The row ID the first object of `entityName` inserted by this batch gets; later ones count up from it.
    package func firstNewRowID(of entityName: String) throws(BatchError) -> Int64 {
        try layout(named: entityName).firstNewID
    }

    /// Whether the row was inserted by this batch.
    @inline(__always)
    func isNew(_ entity: String, _ id: Int64) -> Bool { id > (layouts[entity]?.maxIDAtStart ?? 0) }

    @inline(__always)
    func isNew(_ layout: EntityLayout, _ id: Int64) -> Bool { id > layout.maxIDAtStart }

    func count(_ entity: String, _ change: (inout BatchCounts) -> Void) {
        if let l = layouts[entity] { change(&l.counts) }
    }

    // MARK: Reading stored rows

    func loadRow(_ layout: EntityLayout, id: Int64) throws(BatchError) -> StoredRow? {
        let s = try statement(layout.selectSQL(sql, whereID: ()))
        s.bind(1, id)
        return try readRow(s, layout)
    }

    func loadRow(_ layout: EntityLayout, where column: String, equals value: StoredValue) throws(BatchError) -> StoredRow? {
        let s = try statement(layout.selectSQL(sql, where: column))
        s.bind(1, value)
        return try readRow(s, layout)
    }

    /// Reads the first row `s` returns (columns as `EntityLayout.selectList`) and resets it.
    private func readRow(_ s: BatchStatement, _ layout: EntityLayout) throws(BatchError) -> StoredRow? {
        defer { s.reset() }
        guard try s.step() else { return nil }
        return row(from: s, layout)
    }

    func row(from s: BatchStatement, _ layout: EntityLayout) -> StoredRow {
        let n = layout.entity.attributes.count
        var attributes: [StoredValue] = []
        attributes.reserveCapacity(n)
        for i in 0..<n { attributes.append(s.column(Int32(i + 1))) }
        var references: [Int64?] = []
        references.reserveCapacity(layout.toOne.count)
        for j in 0..<layout.toOne.count { references.append(s.int64(Int32(n + 1 + j))) }
        return StoredRow(id: s.int64(0)!, attributes: attributes, references: references)
    }

    // MARK: Writing rows

    /// Inserts the record's values (all attributes and foreign keys) and returns the new row ID.
    ///
    /// The row ID is assigned here (the next after the largest, as SQLite would) and the row is buffered:
    /// rows go to SQLite in multi-row INSERTs of up to 256 rows, which halves SQLite's per-statement work on
    /// a bulk load, and on a second thread (`BackgroundInserter`), so SQLite inserts while this thread reads
    /// and checks the next records. Every other statement of the batch first writes out what is buffered
    /// and waits for it (`statement(_:)`, `execute(_:)`), so reads always see every row written before them.
    func insertRow(_ r: BatchRecord, _ layout: EntityLayout) throws(BatchError) -> Int64 {
        if layout.deferredIndexes == nil { try prepareIndexes(layout) }
        let id = layout.nextID
        layout.nextID = id + 1
        if savepoint != nil { logUndo { layout.nextID = id } }
        // The buffer is moved into a local while the row is appended: one access to the class's property
        // instead of one per value (each is a runtime exclusivity check).
        var pending: [StoredValue] = []
        swap(&pending, &layout.pending)
        pending.append(.integer(id))
        let types = layout.types
        for k in 0..<r.count {
            pending.append(r.values[k].storedValue(for: types[k]))
        }
        for k in 0..<r.referenceCount {
            pending.append(r.references[k].map(StoredValue.integer) ?? .null)
        }
        swap(&pending, &layout.pending)
        layout.pendingRows += 1
        pendingRows += 1
        if !layout.liveIndexes.isEmpty { try followIndexes(layout) }
        if layout.pendingRows == layout.chunkRows { try flush(layout) }
        return id
    }

    /// Writes out (hands to the background inserter) the rows buffered for one entity.
    func flush(_ layout: EntityLayout) throws(BatchError) {
        let n = layout.pendingRows
        guard n > 0 else { return }
        var values: [StoredValue] = inserter.spareBuffer()
        swap(&values, &layout.pending)
        layout.pendingRows = 0
        pendingRows -= n
        try inserter.submit(BackgroundInserter.Job(layout: layout, values: values, rows: n))
    }

    /// Writes out every buffered row and waits until SQLite has them all.
    func flushAll() throws(BatchError) {
        if pendingRows > 0 {
            for l in layouts.values.sorted(by: { $0.entity.name < $1.entity.name }) where l.pendingRows > 0 { try flush(l) }
        }
        try inserter.drain()
    }

    /// A prepared statement, after writing out the buffered rows. (Every use of the connection outside the
    /// background inserter goes through here or `execute(_:)`, so the two never use it at once.)
    func statement(_ sql: String) throws(BatchError) -> BatchStatement {
        try flushAll()
        do { return BatchStatement(statement: try connection.statement(sql), store: store) } catch { throw store.batchError(error) }
    }

    /// Runs SQL text, after writing out the buffered rows.
    func execute(_ sql: String) throws(BatchError) {
        try flushAll()
        do { try connection.execute(sql) } catch { throw store.batchError(error) }
    }

    /// Writes the columns where the record differs from `stored`; returns whether anything changed.
    func updateRow(_ r: BatchRecord, _ layout: EntityLayout, stored: StoredRow) throws(BatchError) -> Bool {
        var assignments: [String] = []
        var values: [StoredValue] = []
        for k in 0..<r.count {
            let v = r.values[k].storedValue(for: layout.types[k])
            if v != stored.attributes[k] {
                assignments.append(layout.names[k])
                values.append(v)
            }
        }
        for (k, fk) in layout.toOne.enumerated() where r.references[k] != stored.references[k] {
            assignments.append(fk.column)
            values.append(r.references[k].map(StoredValue.integer) ?? .null)
        }
        if assignments.isEmpty { return false }
        let s = try statement(sql.update(layout.entity.name, setting: assignments))
        for (i, v) in values.enumerated() { s.bind(Int32(i + 1), v) }
        s.bind(Int32(values.count + 1), stored.id)
        try s.execute()
        return true
    }

    /// Gives the attributes the record does not give their defaults (an insert).
    @inline(__always)
    func applyDefaults(_ r: BatchRecord, _ layout: EntityLayout) {
        for k in 0..<r.count where !r.given[k] {
            if let v = layout.constantDefaults[k] {
                r.values[k] = v
            } else if layout.hasDynamicDefaults, let d = layout.defaults[k] {
                r.values[k] = d == .today ? .date(Day.current()) : .dateTime(RunMoment.now)
            } else {
                r.values[k] = .null
            }
        }
    }

    /// Gives the attributes and references the record does not give their stored values (an update).
    func applyStored(_ r: BatchRecord, _ layout: EntityLayout, _ stored: StoredRow) {
        for k in 0..<r.count where !r.given[k] {
            r.values[k] = Value(stored: stored.attributes[k], as: layout.types[k])
        }
        for k in 0..<layout.toOne.count where !r.referenceGiven[k] {
            r.references[k] = stored.references[k]
        }
    }

    /// Records, for each entity the batch inserted or deleted rows of, that no ID it handed out or found is handed
    /// out again: one statement per entity, at the end of the batch.
    func markHandedOutIDs(_ db: any StorageConnection) throws {
        for l in layouts.values where l.deletedRows || l.nextID > l.firstNewID {
            try Store.raiseIDMark(db, entity: l.entity.name, to: l.nextID - 1)
        }
    }

    /// Stops the background inserter (dropping what it has not written: the batch failed) and finalizes
    /// the statements, before the transaction ends.
    func close() {
        inserter.stop()
        connection.finalizeStatements()
    }
}
