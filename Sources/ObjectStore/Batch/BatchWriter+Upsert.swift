// Upsert by key: a record whose key is new is inserted; a known key's row gets the values that changed
// (only those the record gives); a row whose values are all equal is left alone — not even rewritten,
// so importing the same file twice changes nothing.

extension BatchWriter {
    /// Inserts or updates `r` by the attribute `key` (which must be unique, and given). Returns the row ID and
    /// what was done. A key already written earlier in this batch is `.repeated` when the values agree, and
    /// an error naming the differing properties when they do not.
    @discardableResult
    package func upsert(_ r: BatchRecord, by key: String) throws(BatchError) -> (rowID: Int64, outcome: WriteOutcome) {
        let layout = r.layout
        let e = layout.entity
        let a: EntityAttribute
        do { a = try e.identifyingKey(key) } catch { throw .usage(error.description) }
        let ki = layout.attributeIndex[a.name]!
        guard r.given[ki], !r.values[ki].isNull else {
            throw .invalid([BatchIssue(key: key, message: "\(e.name).\(key) is required")])
        }
        guard r.values[ki].fitsConverted(a.type) else {
            throw .invalid([BatchIssue(key: key, message: r.values[ki].unstorableReason(in: a.type).map { "\(e.name).\(key) \($0)" }
                                       ?? "\(e.name).\(key) \"\(r.values[ki])\" is not a \(a.type)")])
        }
        let keyValue = r.values[ki].storedValue(for: a.type)
        let cache = try keyCache(layout, ki)
        var stored: StoredRow?
        if let id = try cached(cache, keyValue) {
            stored = try loadRow(layout, id: id)
        } else if !cache.authoritative {
            stored = try loadRow(layout, where: key, equals: keyValue)
            if let stored { try cacheSet(cache, keyValue, stored.id) }
        }
        if stored == nil, case .text(let text) = keyValue, !TextFolding.isASCII(text),
           let id = try canonicalMatch(text, cache, layout), let found = try loadRow(layout, id: id) {
            // The same key in another normal form: this row, whose key keeps the spelling it was first given.
            stored = found
            r.values[ki] = Value(stored: found.attributes[ki], as: a.type)
        }

        guard let stored else {
            applyDefaults(r, layout)
            layout.willSave?(r)
            let issues = try validate(r, layout, stored: nil, knownAbsent: ki)
            if !issues.isEmpty { throw .invalid(issues) }
            let id = try insertRow(r, layout)
            try cacheInserted(r, layout, id)
            _ = try writeLinks(r, layout, rowID: id, isNew: true)
            layout.counts.inserted += 1
            return (id, .inserted)
        }

        applyStored(r, layout, stored)
        layout.willSave?(r)
        let issues = try validate(r, layout, stored: stored)
        if !issues.isEmpty { throw .invalid(issues) }

        if !placeholders.isEmpty, placeholders[e.name]?.remove(stored.id) != nil {
            // A row --create-missing made for a reference (counted inserted then): this record is its first.
            logUndo { self.placeholders[e.name]?.insert(stored.id) }
            if try updateRow(r, layout, stored: stored) { try cacheUpdated(r, stored) }
            _ = try writeLinks(r, layout, rowID: stored.id, isNew: false)
            return (stored.id, .inserted)
        }
        if isNew(e.name, stored.id) || visited[e.name]?.contains(stored.id) == true {
            var differing = differences(r, layout, stored)
            differing += try linkDifferences(r, layout, rowID: stored.id)
            if differing.isEmpty { return (stored.id, .repeated) }
            switch onRepeat {
            case .error:
                throw .repeatedKey(entity: e.name, key: key, value: r.values[ki].description, rowID: stored.id, properties: differing)
            case .first:
                return (stored.id, .conflicted)
            case .last:
                var changed = try updateRow(r, layout, stored: stored)
                if changed { try cacheUpdated(r, stored) }
                changed = try writeLinks(r, layout, rowID: stored.id, isNew: false) || changed
                // A row counted unchanged by its first line is now updated (a new one stays inserted).
                if changed { parentChanged(e.name, stored.id) }
                return (stored.id, .conflicted)
            }
        }

        var changed = try updateRow(r, layout, stored: stored)
        if changed { try cacheUpdated(r, stored) }
        changed = try writeLinks(r, layout, rowID: stored.id, isNew: false) || changed
        markVisited(e.name, stored.id)
        if changed {
            layout.counts.updated += 1
        } else {
            layout.counts.unchanged += 1
            if e.kind == .document || onRepeat == .last { noteUnchangedParent(e.name, stored.id) }
        }
        return (stored.id, changed ? .updated : .unchanged)
    }

    /// Upserts by the entity's natural key.
    @discardableResult
    package func upsert(_ r: BatchRecord) throws(BatchError) -> (rowID: Int64, outcome: WriteOutcome) {
        let key: EntityAttribute
        do { key = try r.entity.identifyingKey() } catch { throw .usage(error.description) }
        return try upsert(r, by: key.name)
    }

    /// The attributes and to-one relationships where the record differs from the stored row.
    func differences(_ r: BatchRecord, _ layout: EntityLayout, _ stored: StoredRow) -> [String] {
        var names: [String] = []
        for (k, a) in layout.entity.attributes.enumerated() where r.values[k].storedValue(for: a.type) != stored.attributes[k] {
            names.append(a.name)
        }
        for (k, fk) in layout.toOne.enumerated() where r.references[k] != stored.references[k] {
            names.append(fk.relationship.name)
        }
        return names
    }

    func markVisited(_ entity: String, _ id: Int64) {
        if visited[entity, default: []].insert(id).inserted, savepoint != nil {
            logUndo { self.visited[entity]?.remove(id) }
        }
    }
}
