// A document's row table (an order's rows), replaced by the rows a batch gives for it.
//
// Rows are matched by position: the n-th row given for a document is compared with the document's n-th
// stored row (in row-ID order). An equal row is left alone, a different one is updated in place (it keeps
// its row ID), rows beyond the stored ones are inserted, and stored rows beyond the given ones are deleted
// when the batch finishes (`finishRows()`), because a document's rows may arrive in several stretches.
// So giving a document the rows it already has writes nothing — not even new row IDs.
//
// Rows that carry their own unique key (real exports have line IDs: Chinook's InvoiceLineId) are matched by
// that key instead (`putKeyedRow`): the stored row with the key is updated in place (moved to this document if
// it belonged to another), a key not stored yet is inserted, and at the end the document's stored rows that no
// line named are deleted. A second run of the same file then changes nothing.
//
// Memory: a document's stored rows are loaded when its first row arrives and dropped at `endRows(of:)`;
// what stays per document that existed before the batch is a small cursor.

struct DocumentRowsCursor {
    /// Stored rows after `lastID` still to be compared (loaded lazily), and the next one's index.
    var pending: [StoredRow]?
    var position = 0
    /// Rows given so far, and the ID of the last row kept, updated or inserted for them.
    var given = 0
    var lastID: Int64 = 0
    /// Whether stored rows may remain beyond `lastID` (to delete at the end).
    var mayHaveLeftovers = true
}

extension BatchWriter {
    /// The to-one relationship from a rows entity to its document, and the document's layout.
    @inline(__always)
    func parentLink(_ layout: EntityLayout) throws(BatchError) -> ParentLink {
        if let known = layout.parent, let known { return known }
        return try findParentLink(layout)
    }

    private func findParentLink(_ layout: EntityLayout) throws(BatchError) -> ParentLink {
        if layout.parent == nil {
            for (k, fk) in layout.toOne.enumerated() {
                if let d = model.entity(named: fk.relationship.destination), d.kind == .document,
                   model.inverse(of: fk.relationship).isToMany {
                    let found = ParentLink(index: k, relationship: fk.relationship, layout: try self.layout(d))
                    layout.parent = .some(found)
                    return found
                }
            }
            layout.parent = .some(nil)
        }
        throw .usage("\(layout.entity.name) is not the row table of a document")
    }

    /// Whether a document's rows need matching against stored ones: it existed before, and so did rows.
    @inline(__always)
    func hasStoredRows(_ rows: EntityLayout, _ parentLayout: EntityLayout, _ parent: Int64) -> Bool {
        rows.maxIDAtStart > 0 && !isNew(parentLayout, parent)
    }

    /// Gives document `parent` (a row ID of the rows entity's document) its next row. The row's reference to
    /// the document is set here. Returns what was done to the row.
    @discardableResult
    package func putRow(_ row: BatchRecord, parent: Int64) throws(BatchError) -> WriteOutcome {
        let layout = row.layout
        let e = layout.entity
        let link = try parentLink(layout)
        let parentLayout = link.layout
        row.references[link.index] = parent
        row.referenceGiven[link.index] = true
        applyDefaults(row, layout)
        if let k = layout.lineKey, !row.values[k].isNull {
            return try putKeyedRow(row, layout, parent: parent, key: k, link: link)
        }
        if !hasStoredRows(layout, parentLayout, parent) {
            layout.willSave?(row)
            let issues = try validate(row, layout, stored: nil)
            if !issues.isEmpty { throw .invalid(issues) }
            try cacheInserted(row, layout, try insertRow(row, layout))
            layout.counts.inserted += 1
            return .inserted
        }
        var cursor = cursors[e.name]?[parent] ?? DocumentRowsCursor()
        let before = cursor
        if cursor.pending == nil { cursor.pending = try storedRows(layout, link.relationship, parent, after: cursor.lastID) }
        let outcome: WriteOutcome
        if cursor.position < cursor.pending!.count {
            let stored = cursor.pending![cursor.position]
            // The row in this place keeps what the file does not give (a file of sums alone keeps the stored
            // quantities and prices): only the columns the file has are updated.
            applyStoredKeepingDerivations(row, layout, stored)
            row.references[link.index] = parent
            layout.willSave?(row)
            let issues = try validate(row, layout, stored: stored)
            if !issues.isEmpty { throw .invalid(issues) }
            cursor.position += 1
            cursor.lastID = stored.id
            if try updateRow(row, layout, stored: stored) {
                try cacheUpdated(row, stored)
                outcome = .updated
            } else {
                outcome = .unchanged
            }
        } else {
            layout.willSave?(row)
            let issues = try validate(row, layout, stored: nil)
            if !issues.isEmpty { throw .invalid(issues) }
            cursor.lastID = try insertRow(row, layout)
            try cacheInserted(row, layout, cursor.lastID)
            outcome = .inserted
        }
        cursor.given += 1
        setCursor(e.name, parent, cursor, before: before)
        switch outcome {
        case .inserted: layout.counts.inserted += 1
        case .updated: layout.counts.updated += 1
        default: layout.counts.unchanged += 1
        }
        if outcome != .unchanged { parentChanged(parentLayout.entity.name, parent) }
        return outcome
    }

    /// Gives the row the stored values of the columns the file does not have — except a value the domain derives
    /// from the others (a sum that is quantity × price in the stored row), which is left empty so that `willSave`
    /// derives it again from the new values: a file that changes a price alone gets the new sum.
    func applyStoredKeepingDerivations(_ row: BatchRecord, _ layout: EntityLayout, _ stored: StoredRow) {
        applyStored(row, layout, stored)
        guard let willSave = layout.willSave else { return }
        let probe = BatchRecord(layout: layout)
        for k in 0..<row.count where !row.given[k] && !row.values[k].isNull {
            for j in 0..<row.count { probe.values[j] = Value(stored: stored.attributes[j], as: layout.types[j]) }
            probe.values[k] = .null
            willSave(probe)
            if probe.values[k] == row.values[k] { row.values[k] = .null }
        }
    }

    /// A row matched by its own unique key (see the header).
    private func putKeyedRow(_ row: BatchRecord, _ layout: EntityLayout, parent: Int64, key k: Int,
                             link: ParentLink) throws(BatchError) -> WriteOutcome {
        let e = layout.entity
        let a = e.attributes[k]
        let value = row.values[k].storedValue(for: a.type)
        var found: StoredRow?
        if layout.maxIDAtStart == 0 {
            // The table was empty: the key cache knows every row (the unique index may be dropped until the end).
            if let id = try cached(keyCache(layout, k), value) {
                let s = try statement(sql.row(layout.selectList, from: layout.entity.name, where: "id"))
                s.bind(1, id)
                if try s.step() { found = self.row(from: s, layout) }
                s.reset()
            }
        } else {
            let s = try statement(sql.row(layout.selectList, from: layout.entity.name, where: a.name, limit: 1))
            s.bind(1, value)
            if try s.step() { found = self.row(from: s, layout) }
            s.reset()
        }
        if found == nil, case .text(let text) = value, !TextFolding.isASCII(text),
           let id = try canonicalMatch(text, keyCache(layout, k), layout), let stored = try loadRow(layout, id: id) {
            // The same line key in another normal form: this row, keeping the key's first spelling.
            found = stored
            row.values[k] = Value(stored: stored.attributes[k], as: a.type)
        }
        noteKeyedParent(e.name, parent)
        guard let stored = found else {
            layout.willSave?(row)
            let issues = try validate(row, layout, stored: nil, knownAbsent: k)
            if !issues.isEmpty { throw .invalid(issues) }
            let id = try insertRow(row, layout)
            try cacheInserted(row, layout, id)
            noteKeyedRow(e.name, parent, id)
            layout.counts.inserted += 1
            parentChanged(link.layout.entity.name, parent)
            return .inserted
        }
        applyStoredKeepingDerivations(row, layout, stored)
        row.references[link.index] = parent
        layout.willSave?(row)
        let issues = try validate(row, layout, stored: stored)
        if !issues.isEmpty { throw .invalid(issues) }
        // The same line key twice in one batch: the same values are a repeat, others a conflict.
        if isNew(layout, stored.id) || visited[e.name]?.contains(stored.id) == true {
            let differing = differences(row, layout, stored)
            if !differing.isEmpty {
                throw .repeatedKey(entity: e.name, key: a.name, value: row.values[k].description, rowID: stored.id, properties: differing)
            }
            return .repeated
        }
        if visited[e.name, default: []].insert(stored.id).inserted, savepoint != nil {
            logUndo { self.visited[e.name]?.remove(stored.id) }
        }
        noteKeyedRow(e.name, parent, stored.id)
        let formerParent = stored.references[link.index]
        if try updateRow(row, layout, stored: stored) {
            try cacheUpdated(row, stored)
            layout.counts.updated += 1
            parentChanged(link.layout.entity.name, parent)
            if let formerParent, formerParent != parent { parentChanged(link.layout.entity.name, formerParent) }
            return .updated
        }
        layout.counts.unchanged += 1
        return .unchanged
    }

    private func noteKeyedParent(_ entity: String, _ parent: Int64) {
        guard keyedRows[entity]?[parent] == nil else { return }
        keyedRows[entity, default: [:]][parent] = []
        if savepoint != nil { logUndo { self.keyedRows[entity]?[parent] = nil } }
    }

    private func noteKeyedRow(_ entity: String, _ parent: Int64, _ id: Int64) {
        if keyedRows[entity, default: [:]][parent, default: []].insert(id).inserted, savepoint != nil {
            logUndo { self.keyedRows[entity]?[parent]?.remove(id) }
        }
    }

    /// Marks that document `parent` is given rows in this batch, even none at all (so its stored rows are
    /// deleted at the end). Call it for a document given with no rows.
    package func beginRows(_ rowsEntity: String, of parent: Int64) throws(BatchError) {
        try beginRows(layout(named: rowsEntity), of: parent)
    }

    /// `beginRows` for the entity of `row` (a record made for the rows entity).
    package func beginRows(like row: BatchRecord, of parent: Int64) throws(BatchError) {
        try beginRows(row.layout, of: parent)
    }

    func beginRows(_ layout: EntityLayout, of parent: Int64) throws(BatchError) {
        let parentLayout = try parentLink(layout).layout
        if !hasStoredRows(layout, parentLayout, parent) || cursors[layout.entity.name]?[parent] != nil { return }
        setCursor(layout.entity.name, parent, DocumentRowsCursor(), before: nil)
    }

    /// Done with `parent`'s rows for now: forgets the stored rows loaded for it (more may come later).
    package func endRows(_ rowsEntity: String, of parent: Int64) {
        guard !cursors.isEmpty, var cursor = cursors[rowsEntity]?[parent], let pending = cursor.pending else { return }
        let before = cursor
        cursor.mayHaveLeftovers = cursor.position < pending.count
        cursor.pending = nil
        cursor.position = 0
        setCursor(rowsEntity, parent, cursor, before: before)
    }

    /// Deletes the stored rows that no row given in this batch took the place of. Call once, at the end.
    package func finishRows() throws(BatchError) {
        for (rowsEntity, byParent) in cursors.sorted(by: { $0.key < $1.key }) {
            for (parent, cursor) in byParent.sorted(by: { $0.key < $1.key }) where keyedRows[rowsEntity]?[parent] == nil {
                try deleteLeftovers(rowsEntity, of: parent, cursor)
            }
        }
        cursors = [:]
        for (rowsEntity, byParent) in keyedRows.sorted(by: { $0.key < $1.key }) {
            for (parent, kept) in byParent.sorted(by: { $0.key < $1.key }) {
                try deleteKeyedLeftovers(rowsEntity, of: parent, keeping: kept)
            }
        }
        keyedRows = [:]
    }

    /// `finishRows` for one document now, so that its rows are final before its rules are checked (an import
    /// with `--on-error skip` checks each document as it ends). Rows given for it later are added after these.
    package func finishRows(_ rowsEntity: String, of parent: Int64) throws(BatchError) {
        if let kept = keyedRows[rowsEntity]?[parent] {
            try deleteKeyedLeftovers(rowsEntity, of: parent, keeping: kept)
            return
        }
        guard let cursor = cursors[rowsEntity]?[parent] else { return }
        try deleteLeftovers(rowsEntity, of: parent, cursor)
        var done = cursor
        done.pending = nil
        done.position = 0
        done.mayHaveLeftovers = false
        setCursor(rowsEntity, parent, done, before: cursor)
    }

    /// Deletes the stored rows of `parent` that no row given in this batch took the place of (by position).
    private func deleteLeftovers(_ rowsEntity: String, of parent: Int64, _ cursor: DocumentRowsCursor) throws(BatchError) {
        if let pending = cursor.pending, cursor.position >= pending.count { return }
        if cursor.pending == nil && !cursor.mayHaveLeftovers { return }
        let layout = try layout(named: rowsEntity)
        let link = try parentLink(layout)
        for r in layout.entity.relationships where r.deleteRule == .cascade || r.deleteRule == .deny {
            throw .usage("\(rowsEntity).\(r.name) has delete rule \(r.deleteRule.displayName); a batch cannot replace such rows")
        }
        let s = try statement(sql.deleteRowsAfterID(from: layout.entity.name, where: layout.toOne[link.index].column))
        s.bind(1, parent)
        s.bind(2, cursor.lastID)
        try s.execute()
        let deleted = Int(connection.changes)
        if deleted > 0 {
            layout.deletedRows = true
            count(rowsEntity) { $0.deleted += deleted }
            parentChanged(link.relationship.destination, parent)
        }
    }

    /// Deletes the stored rows of `parent`, matched by their line key, that no line named.
    private func deleteKeyedLeftovers(_ rowsEntity: String, of parent: Int64, keeping kept: Set<Int64>) throws(BatchError) {
        let layout = try layout(named: rowsEntity)
        // A table empty when the batch began holds only rows this batch inserted, and a line key names one row
        // for the whole batch (given again with other values it is an error): nothing can be left over. The
        // parent's index may be dropped until the end, and a scan per document made a spread file quadratic.
        if layout.maxIDAtStart == 0 { return }
        let link = try parentLink(layout)
        let select = try statement(sql.ids(from: layout.entity.name, where: layout.toOne[link.index].column))
        select.bind(1, parent)
        var leftovers: [Int64] = []
        while try select.step() {
            let id = select.int64(0)!
            if !kept.contains(id) { leftovers.append(id) }
        }
        select.reset()
        guard !leftovers.isEmpty else { return }
        let delete = try statement(sql.deleteRow(from: layout.entity.name))
        for id in leftovers {
            delete.bind(1, id)
            try delete.execute()
        }
        layout.deletedRows = true
        count(rowsEntity) { $0.deleted += leftovers.count }
        parentChanged(link.relationship.destination, parent)
    }

    private func storedRows(_ layout: EntityLayout, _ pr: EntityRelationship, _ parent: Int64, after lastID: Int64) throws(BatchError) -> [StoredRow] {
        let column = layout.toOne.first { $0.relationship.name == pr.name }!.column
        let s = try statement(sql.rowsAfterID(layout.selectList, from: layout.entity.name, where: column))
        s.bind(1, parent)
        s.bind(2, lastID)
        defer { s.reset() }
        var rows: [StoredRow] = []
        while try s.step() { rows.append(row(from: s, layout)) }
        return rows
    }

    private func setCursor(_ entity: String, _ parent: Int64, _ cursor: DocumentRowsCursor, before: DocumentRowsCursor?) {
        if savepoint != nil { logUndo { self.cursors[entity, default: [:]][parent] = before } }
        cursors[entity, default: [:]][parent] = cursor
    }

    func noteUnchangedParent(_ entity: String, _ id: Int64) {
        if unchangedParents[entity, default: []].insert(id).inserted, savepoint != nil {
            logUndo { self.unchangedParents[entity]?.remove(id) }
        }
    }

    /// A document's rows changed: a document counted unchanged becomes updated.
    func parentChanged(_ entity: String, _ id: Int64) {
        guard unchangedParents[entity]?.remove(id) != nil else { return }
        if savepoint != nil { logUndo { self.unchangedParents[entity]?.insert(id) } }
        count(entity) {
            $0.unchanged -= 1
            $0.updated += 1
        }
    }
}
