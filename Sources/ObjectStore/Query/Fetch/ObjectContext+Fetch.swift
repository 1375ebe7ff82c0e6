extension ObjectContext {
    package func fetch(_ plan: FetchPlan) throws -> [ManagedObject] {
        let (sql, arguments) = plan.sql(.objects, dialect: store.dialect)
        let rows = try store.read { db in
            try db.rows(sql, arguments)
        }
        return try rows.map { try materialize($0, plan.entity) }
    }


    /// The same fetch computed in memory, object by object, with the evaluator and the in-memory sorter:
    /// the oracle the SQL compiler is tested against.
    package func fetchInMemory(_ plan: FetchPlan) throws -> [ManagedObject] {
        let evaluator = PredicateEvaluator(context: self)
        var matches: [ManagedObject] = []
        for object in try objects(of: plan.entity.name) {
            if try plan.predicate.map({ try evaluator.evaluate($0, on: object) }) ?? true { matches.append(object) }
        }
        var keyed: [(ManagedObject, [Value])] = []
        for object in matches {
            keyed.append((object, try plan.sortKeys.map { try evaluator.value($0.1, [0: object]) }))
        }
        keyed.sort { a, b in
            for (i, (descriptor, _)) in plan.sortKeys.enumerated() {
                let o = SortOrder.compare(a.1[i], b.1[i], descriptor.comparison)
                if o != 0 { return descriptor.ascending ? o < 0 : o > 0 }
            }
            return a.0.rowID! < b.0.rowID!
        }
        var result = keyed.map(\.0)
        if let offset = plan.request.offset { result = Array(result.dropFirst(offset)) }
        if let limit = plan.request.limit, limit >= 0 { result = Array(result.prefix(limit)) }
        return result
    }
}

extension Store {
    /// Streams the plan's columns row by row from a cursor: memory does not grow with the number of results.
    /// A double that is not finite (stored by another tool, or a sum beyond ±1.8e308) ends it with the error
    /// that says where it came from (Store+NonFinite.swift): `body` never sees one.
    package func fetchColumns(_ plan: FetchPlan, _ body: ([Value]) throws -> Void) throws {
        // One array for every row: emptied, not reallocated, when `body` kept no copy of it (issue 27: a malloc
        // and a free per row of the fetch bench).
        var values: [Value] = []
        values.reserveCapacity(plan.columns.count)
        try fetchRows(plan) { row in
            values.removeAll(keepingCapacity: true)
            for i in 0..<row.count { values.append(row.value(i)) }
            try body(values)
        }
    }

    /// `fetchColumns`, each row handed over as the statement just stepped (`FetchedRow`), its values read in place
    /// as the caller asks: for a writer that needs no `Value` for some cells (fetch's CSV, issue 27).
    package func fetchRows(_ plan: FetchPlan, _ body: (FetchedRow) throws -> Void) throws {
        let nonFinite: Int? = try read { db in
            let (sql, arguments) = plan.sql(.columns, in: db)
            var cursor = try db.cursor(sql, arguments)
            // Each value read in place from the statement the cursor has just stepped: `row[i]` went through GRDB's
            // generic decoding for every value (issue 27: 5% of the fetch bench).
            let row = FetchedRow(statement: cursor.statement, types: plan.columns.map(\.type))
            let doubles = row.types.indices.filter { row.types[$0] == .double }
            while try cursor.step() {
                for i in doubles where row.value(i).isNonFiniteDouble { return i }
                try body(row)
            }
            return nil
        }
        if let i = nonFinite {
            let column = plan.columns[i]
            throw try nonFiniteError(place: "column \"\(column.keyPath)\"", keyPath: column.keyPath)
        }
    }

    /// The number of objects matching the plan.
    package func count(_ plan: FetchPlan) throws -> Int {
        return try read { db in
            let (sql, arguments) = plan.sql(.count, in: db)
            return try db.int(sql, arguments) ?? 0
        }
    }

    /// The SQL of a plan and its bound arguments, as `--explain` shows them.
    package func explain(_ plan: FetchPlan, _ selection: FetchPlan.Selection) -> String {
        // The statement as it would run on this store (its ranges judged against it).
        let (sql, arguments) = (try? read { db in plan.sql(selection, in: db) }) ?? plan.sql(selection, dialect: dialect)
        var lines = [sql]
        for (i, a) in arguments.enumerated() {
            // A number beyond an Int64 is bound as 16 bytes (WideInteger.swift): show the number it stands for.
            if case .blob(let data) = a, let wide = WideInteger.decode(blob: data) {
                lines.append("  ?\(i + 1) = \(wide) (beyond an Int64: bound as 16 bytes)")
            } else {
                lines.append("  ?\(i + 1) = \(a)")
            }
        }
        return lines.joined(separator: "\n")
    }
}

/// How sort keys order in memory, matching the SQL: NULL first, collations as registered in SQLite.
enum SortOrder {
    static func compare(_ a: Value, _ b: Value, _ comparison: SortKey.Comparison) -> Int {
        if case .string(let x) = a, case .string(let y) = b {
            switch comparison {
            case .binary: return ValueOrder.bytes(x, y)
            case .nocase: return TextCollation.nocaseCompare(x, y).rawValue
            case .natural: return TextCollation.naturalCompare(x, y).rawValue
            }
        }
        return ValueOrder.compare(a, b) ?? 0
    }
}

/// One row of a plan's columns, as the statement has just been stepped (`Store.fetchRows`): valid only inside the
/// call that hands it over.
package struct FetchedRow {
    let statement: any StorageStatement
    let types: [AttributeType]

    package var count: Int { types.count }

    /// Column `i`'s value, as `fetchColumns` gives it: its stored value read in place, through the one decoder.
    package func value(_ i: Int) -> Value {
        Value(stored: statement.column(Int32(i)), as: types[i])
    }

    /// Column `i`'s UTF-8, read in place, when `value(i)` is `.string` of exactly those bytes: text stored in a
    /// string column, all ASCII and without NUL (GRDB reads text up to a NUL and repairs what is not UTF-8, so
    /// other text goes through `value(i)`); else nil, and `body` is not called.
    package func withASCIIText<R>(_ i: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R? {
        guard types[i] == .string, let bytes = statement.text(Int32(i)) else { return nil }
        for byte in bytes where byte == 0 || byte >= 0x80 { return nil }
        return try body(bytes)
    }
}
