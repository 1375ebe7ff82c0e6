// Cells to values, and a failed write back to the line and column at fault.

import CSV
import Foundation
import ObjectStore

extension ImportPass {
    // MARK: Cells

    @inline(__always)
    func isNull(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { cells.isNull(bytes) }

    /// A cell's text, or nil when empty or a null token.
    @inline(__always)
    func text(_ record: CSVRecord, _ i: Int, _ cells: Cells) -> String? {
        let empty = record.withBytes(ofField: i) { cells.isNull($0) }
        return empty ? nil : record[i]
    }

    /// A column's problem on this record, placed at the field.
    func issue(_ record: CSVRecord, _ column: Column?, _ message: String) -> ImportIssue {
        var text = message
        if let column { text = "column \"\(column.name)\": \(message)" }
        if headerless, record.line == 1, column != nil, message.contains(" is not ") {
            text += " — is line 1 a header the mapping does not know?"
        }
        let position = column.map { record.position(ofField: $0.index) }
        return ImportIssue(line: position?.line ?? record.line, column: position?.column, record: record.number, message: text)
    }

    /// Fills `r` from the columns, resolving references. Returns the problems (empty: all cells converted).
    func fill(_ r: BatchRecord, from record: CSVRecord, columns: [Column], writer: BatchWriter) -> [ImportIssue] {
        if !pendingSelf.isEmpty { pendingSelf.removeAll(keepingCapacity: true) }
        var problems: [ImportIssue] = []
        let cells = self.cells
        let fields = record.count
        for c in columns where c.index < fields {
            do {
                switch c.target {
                case .attribute:
                    let type = c.type
                    let decides = c.index < tallies.count && c.isNumber
                    let value: Value = try record.withBytes(ofField: c.index) { bytes in
                        if cells.isNull(bytes) { return .null }
                        switch decides ? self.mark(for: c, bytes, record) : nil {
                        case .comma: return try cells.commaConverter.convert(bytes, as: type) { record[c.index] }
                        case .point: return try cells.pointConverter.convert(bytes, as: type) { record[c.index] }
                        case nil: return try cells.converter.convert(bytes, as: type) { record[c.index] }
                        }
                    }
                    if value.isNull && c.hasDefault { continue }
                    r.set(value, at: c.attributeIndex)
                case .reference:
                    if c.defers {
                        r.setReference(at: c.propertyIndex, to: try deferrable(record, c))
                        continue
                    }
                    if let memo = c.memo {
                        let id: Int64? = try record.withBytes(ofField: c.index) { bytes in
                            if cells.isNull(bytes) { return nil }
                            if let id = memo.get(bytes) { return id }
                            let id = try c.resolver!.id(forText: record[c.index])
                            memo.set(bytes, id)
                            return id
                        }
                        r.setReference(at: c.propertyIndex, to: id)
                        continue
                    }
                    guard let t = text(record, c.index, cells) else { r.setReference(at: c.propertyIndex, to: nil); continue }
                    if c.textKey {
                        r.setReference(at: c.propertyIndex, to: try c.resolver!.id(forText: t))
                        continue
                    }
                    // A key that is a number is read with its column's decimal mark, as an attribute's value is.
                    let converter = c.isNumber && c.index < tallies.count
                        ? record.withBytes(ofField: c.index) { self.converter(for: c, $0, record) } : cells.converter
                    r.setReference(at: c.propertyIndex, to: try reference(t, keyType: c.type, c.resolver!, converter: converter))
                case .links:
                    var ids: [Int64] = []
                    if let t = text(record, c.index, cells) {
                        // Keys as `export` writes them: `a, b`, or in quotes when a key needs them (`"x, y", z`).
                        let items: [String]
                        do { items = try ListText.split(t, separator: cells.listSeparator) } catch { throw ConversionError(message: error.message) }
                        for k in items {
                            ids.append(c.textKey ? try c.resolver!.id(forText: k) : try reference(k, keyType: c.type, c.resolver!))
                        }
                    }
                    r.setLinks(at: c.propertyIndex, to: ids)
                }
            } catch let error as ConversionError {
                problems.append(issue(record, c, error.message))
            } catch let error as BatchError {
                problems.append(issue(record, c, message(for: error, destination: c.target)))
            } catch {
                problems.append(issue(record, c, "\(error)"))
            }
        }
        return problems
    }

    /// A reference to the imported entity: the row ID when its key is known, else nil for now, the key waiting in
    /// `pendingSelf` for `noteDeferred`.
    func deferrable(_ record: CSVRecord, _ c: Column) throws -> Int64? {
        guard let t = text(record, c.index, cells) else { return nil }
        let value: Value
        if c.textKey {
            value = .string(t)
        } else {
            let converter = c.isNumber && c.index < tallies.count
                ? record.withBytes(ofField: c.index) { self.converter(for: c, $0, record) } : cells.converter
            value = try Array(t.utf8).withUnsafeBufferPointer { bytes in try converter.convert(bytes, as: c.type) { t } }
        }
        if let id = try c.resolver!.existingID(for: value) { return id }
        let p = record.position(ofField: c.index)
        pendingSelf.append(DeferredReference(column: c, value: value, line: p.line, fieldColumn: p.column, record: record.number))
        return nil
    }

    /// After record `id` was written from `record` with `outcome`: its references that wait for the end of the file.
    /// A key given again must agree on them as on its other values (they were written empty, so the writer could
    /// not tell); the problems, as the writer words a key given again with other values.
    func noteDeferred(_ id: Int64, _ outcome: WriteOutcome, _ record: CSVRecord, _ columns: [Column],
                      notingConflict: Bool = true) -> [ImportIssue] {
        guard !deferringColumns.isEmpty else { return [] }
        defer { pendingSelf.removeAll(keepingCapacity: true) }
        var differing: [Column] = []
        for c in deferringColumns where c.index < record.count {
            let slot = DeferredSlot(row: id, property: c.propertyIndex)
            var new = pendingSelf.first { $0.column === c }
            switch outcome {
            case .inserted, .updated, .unchanged:
                new?.unchanged = outcome == .unchanged
                setDeferred(slot, new)
            case .conflicted:
                // The writer kept the earlier values (first) or wrote these (last).
                if settings.onConflict == .last { setDeferred(slot, new) }
            case .repeated:
                let earlier = deferredSlots[slot].flatMap { deferred[$0] }
                if earlier?.value != new?.value { differing.append(c) }
            }
        }
        guard !differing.isEmpty else { return [] }
        switch settings.onConflict {
        case .error:
            let error = BatchError.repeatedKey(entity: entity.name, key: key!, value: record[keyColumn], rowID: id,
                                               properties: differing.map { $0.target.property })
            return issues(of: error, record, columns: columns)
        case .first:
            break
        case .last:
            for c in differing {
                let slot = DeferredSlot(row: id, property: c.propertyIndex)
                let earlier = deferredSlots[slot].flatMap { deferred[$0] }
                var new = pendingSelf.first { $0.column === c }
                new?.unchanged = earlier?.unchanged ?? false
                setDeferred(slot, new)
            }
        }
        if notingConflict { noteConflict(line: record.line, id: id, label: "\(entity.name) \"\(record[keyColumn])\"") }
        return []
    }

    private func setDeferred(_ slot: DeferredSlot, _ reference: DeferredReference?) {
        if let i = deferredSlots[slot] { deferred[i] = nil; deferredSlots[slot] = nil }
        guard let reference else { return }
        deferredSlots[slot] = deferred.count
        deferred.append(reference)
    }

    /// At the end of the file: each waiting reference resolved (with --create-missing, its object created) and
    /// written; a key still missing is the error it would have been on its line, at its place.
    func resolveDeferred(_ writer: BatchWriter) throws {
        for (slot, i) in deferredSlots.sorted(by: { $0.value < $1.value }) {
            guard let d = deferred[i] else { continue }
            do {
                let target = try d.column.finalResolver!.id(for: d.value)
                try writer.setReference(of: entity.name, rowID: slot.row, at: slot.property, to: target, wasUnchanged: d.unchanged)
            } catch {
                if isFatal(error) { throw error }
                issues.add(ImportIssue(line: d.line, column: d.fieldColumn, record: d.record,
                                       message: "column \"\(d.column.name)\": \(message(for: error, destination: d.column.target))"))
            }
        }
        deferred = []
        deferredSlots = [:]
    }

    func reference(_ text: String, keyType: AttributeType, _ resolver: ReferenceResolver,
                   converter: ValueConverter? = nil) throws -> Int64 {
        let converter = converter ?? cells.converter
        let value: Value = try Array(text.utf8).withUnsafeBufferPointer { bytes in
            try converter.convert(bytes, as: keyType) { text }
        }
        return try resolver.id(for: value)
    }

    func message(for error: BatchError, destination: ColumnTarget?) -> String {
        if case .notFound(let e, _, _, _) = error, !settings.createMissing, model.entity(named: e)?.kind == .directory {
            return "\(error) (--create-missing creates it)"
        }
        return error.description
    }

    /// The issues of a failed write, each at the column of the property at fault.
    func issues(of error: Error, _ record: CSVRecord, columns: [Column]) -> [ImportIssue] {
        guard let batch = error as? BatchError else { return [issue(record, nil, "\(error)")] }
        if case .invalid(let list) = batch {
            return list.map { i in issue(record, columns.first { $0.target.property == i.key }, i.message) }
        }
        if case .repeatedKey(let repeated, _, _, let rowID, let properties) = batch {
            // --on-conflict chooses between the values of a directory's or a document's key given twice; a row
            // table's line key given twice with other values stays an error.
            let hint = model.entity(named: repeated)?.kind == .rows ? "" : " (--on-conflict first or last keeps one)"
            let column = columns.first { $0.target.property == properties.first }
            let earlier = firstLines[rowID].map { " on line \($0)" } ?? ""
            return [issue(record, column, batch.description.replacingOccurrences(of: "given earlier", with: "given earlier\(earlier)")
                          + hint)]
        }
        return [issue(record, nil, message(for: batch, destination: nil))]
    }

    /// A store error (busy, I/O) ends the import; a record's problem does not.
    func isFatal(_ error: Error) -> Bool {
        guard let batch = error as? BatchError else { return true }
        switch batch {
        // A constraint SQLite enforced is not one record's: validation foresees them all, and rows reach SQLite in
        // chunks on another thread, so it could not be placed. It ends the import.
        case .invalid, .notFound, .repeatedKey: return false
        default: return true
        }
    }

    func reject(_ raws: [String], reason: String, entity: String, count: Int = 1, key: String? = nil) throws {
        rejectedCounts[entity, default: 0] += count
        rejectedLines += raws.count
        for raw in raws { try writeReject(raw, reason: reason, key: key) }
    }

    /// Every rejected line goes through here: to the rejects file, and to the accepted rejects to be matched.
    func writeReject(_ raw: String, reason: String, key: String? = nil) throws {
        accepted?.note(raw: raw, reason: reason)
        try rejects?.reject(raw, reason: reason, key: key)
    }

    /// A key given again with other values, kept by --on-conflict first or last: counted, and the first few
    /// places kept for the summary.
    func noteConflict(line: Int, id: Int64, label: String) {
        conflicts += 1
        guard conflictNotes.count < 5 else { return }
        let earlier = firstLines[id].map { " (first given on line \($0))" } ?? ""
        conflictNotes.append("line \(line): \(label)\(earlier)")
    }

    func checkFieldCount(_ record: CSVRecord, expected: Int) -> ImportIssue? {
        guard record.count != expected else { return nil }
        let e = CSVError(file: file, line: record.line, kind: .fieldCountMismatch(found: record.count, expected: expected, expectedIsHeader: !headerless))
        return ImportIssue(line: record.line, record: record.number, message: e.message)
    }
}

/// A reference whose key the file had not given yet where it was read (see `ImportPlan.Column.defers`).
struct DeferredReference {
    let column: ImportPlan.Column
    let value: Value
    /// Its place in the file, for the message if the key never comes.
    let line: Int
    let fieldColumn: Int
    let record: Int
    /// Whether its row was counted unchanged (it is counted updated if the reference then changes it).
    var unchanged = false
}

struct DeferredSlot: Hashable {
    let row: Int64
    let property: Int
}
