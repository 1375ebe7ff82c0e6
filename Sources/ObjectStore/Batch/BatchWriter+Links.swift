// Many-to-many links (a customer's tags): a record that gives a relationship's list makes the stored
// links exactly that list, adding and removing only the difference.

extension BatchWriter {
    /// Writes the links the record gives; returns whether any link was added or removed.
    func writeLinks(_ r: BatchRecord, _ layout: EntityLayout, rowID: Int64, isNew: Bool) throws(BatchError) -> Bool {
        var changed = false
        for (k, m) in layout.manyToMany.enumerated() {
            guard let wanted = r.links[k] else { continue }
            let existing = isNew ? [] : try storedLinks(m, rowID)
            let wantedSet = Set(wanted)
            let insert = try statement(sql.addLink(m.table, own: m.ownColumn, other: m.otherColumn))
            for other in wanted where !existing.contains(other) {
                insert.bind(1, rowID)
                insert.bind(2, other)
                try insert.execute()
                changed = true
            }
            let delete = try statement(sql.removeLink(m.table, own: m.ownColumn, other: m.otherColumn))
            for other in existing where !wantedSet.contains(other) {
                delete.bind(1, rowID)
                delete.bind(2, other)
                try delete.execute()
                changed = true
            }
        }
        return changed
    }

    /// The relationships whose stored links differ from those the record gives.
    func linkDifferences(_ r: BatchRecord, _ layout: EntityLayout, rowID: Int64) throws(BatchError) -> [String] {
        var names: [String] = []
        for (k, m) in layout.manyToMany.enumerated() {
            guard let wanted = r.links[k] else { continue }
            if Set(wanted) != (try storedLinks(m, rowID)) { names.append(m.relationship.name) }
        }
        return names
    }

    func storedLinks(_ m: EntityLayout.ManyToMany, _ rowID: Int64) throws(BatchError) -> Set<Int64> {
        let s = try statement(sql.links(m.table, own: m.ownColumn, other: m.otherColumn))
        s.bind(1, rowID)
        defer { s.reset() }
        var ids: Set<Int64> = []
        while try s.step() { ids.insert(s.int64(0)!) }
        return ids
    }
}
