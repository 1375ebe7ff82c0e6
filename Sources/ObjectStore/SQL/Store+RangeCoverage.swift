// Issue 27: how much of a table a range on one of its indexed columns covers, from the index's own min and max (two
// seeks), so that the statement can leave the index alone when the range is not selective (SQLCompiler.unindexed).
// Debian's SQLite has no STAT4 to know it, and ANALYZE's sqlite_stat1 does not change the plan for a range.

extension Store {
    /// The share (0...1) of `entity`'s rows whose `attribute` lies in [low, high] (nil: open), estimated from the
    /// column's min and max, as if its values were spread evenly between them; nil when there is nothing to go on
    /// (an empty table, text, a blob).
    static func rangeCoverage(_ db: any StorageConnection) -> (Entity, EntityAttribute, StoredValue?, StoredValue?) -> Double? {
        // A database that keeps statistics of its own plans ranges itself.
        guard !db.dialect.plansRangesItself else { return { _, _, _, _ in nil } }
        var seen: [String: StorageRow] = [:]
        return { entity, attribute, low, high in
            let table = quoted(entity.name)
            let column = quoted(attribute.name)
            let position: String?
            switch attribute.type {
            case .date, .dateTime: position = "julianday"
            case .integer, .decimal, .double: position = ""
            default: position = nil
            }
            let key = "\(entity.name).\(attribute.name)"
            let bounds: StorageRow
            if let known = seen[key] { bounds = known } else {
                guard let row = try? db.rows("SELECT (SELECT min(\(column)) FROM \(table)), (SELECT max(\(column)) FROM \(table))").first
                else { return nil }
                seen[key] = row
                bounds = row
            }
            let (lo, hi) = (bounds[0], bounds[1])
            if lo == .null || hi == .null { return nil }
            // The whole span, whatever the type: SQLite compares as it will in the statement.
            let f = position ?? ""
            guard let row = try? db.rows("""
                SELECT (?1 IS NULL OR ?1 <= ?3) AND (?2 IS NULL OR ?2 >= ?4), \(f)(?1), \(f)(?2), \(f)(?3), \(f)(?4)
                """, [low ?? .null, high ?? .null, lo, hi]).first else { return nil }
            if row[0].bool == true { return 1 }
            guard position != nil, let min = row[3].double, let max = row[4].double, max > min else { return nil }
            let from = row[1].double.map { Swift.max($0, min) } ?? min
            let to = row[2].double.map { Swift.min($0, max) } ?? max
            return to < from ? 0 : (to - from) / (max - min)
        }
    }
}
