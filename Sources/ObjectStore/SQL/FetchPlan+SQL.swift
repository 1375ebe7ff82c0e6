// A fetch plan as SQL: one statement per selection (objects, columns, count), built by the SQLCompiler with the
// derived tables of FetchPlan+SharedAggregates and FetchPlan+GroupedAggregates.

extension FetchPlan {
    package enum Selection: Sendable {
        /// Whole rows of the fetched entity, for objects.
        case objects
        /// The plan's columns.
        case columns
        /// The number of matching objects.
        case count
    }

    /// The statement and its arguments.
    package func sql(_ selection: Selection, dialect: any SQLDialect) -> (sql: String, arguments: [StoredValue]) {
        sql(selection, dialect: dialect, coverage: nil)
    }

    /// The statement as run on a store: `db` tells which ranges cover so much of their table that its index would
    /// only slow the read (`Store.rangeCoverage`).
    package func sql(_ selection: Selection, in db: any StorageConnection) -> (sql: String, arguments: [StoredValue]) {
        sql(selection, dialect: db.dialect, coverage: Store.rangeCoverage(db))
    }

    /// `shareAggregates: false` writes every use of an aggregate as its own subquery (the statement before issue
    /// 27's derived table), for the tests that compare the two.
    /// `groupAggregates: false` keeps every to-many aggregate a correlated subquery (no grouped derived table,
    /// FetchPlan+GroupedAggregates), for the tests that compare the two.
    func sql(_ selection: Selection, dialect: any SQLDialect, coverage: ((Entity, EntityAttribute, StoredValue?, StoredValue?) -> Double?)?,
             shareAggregates: Bool = true, groupAggregates: Bool = true) -> (sql: String, arguments: [StoredValue]) {
        let s = statement(selection, dialect: dialect, coverage: coverage, shareAggregates: shareAggregates, groupAggregates: groupAggregates)
        return (s.sql, s.arguments)
    }

    /// The statement; `marked` writes each aggregate subquery with its number (`SQLCompiler.marking`), `marks`
    /// giving each aggregate's number by its key.
    func statement(_ selection: Selection, dialect: any SQLDialect, coverage: ((Entity, EntityAttribute, StoredValue?, StoredValue?) -> Double?)?,
                   shareAggregates: Bool = true, groupAggregates: Bool = false, marked: Bool = false)
        -> (sql: String, arguments: [StoredValue], marks: [String: Int]) {
        let compiler = SQLCompiler(model: model, scopes: scopes, dialect: dialect, coverage: coverage)
        compiler.marking = marked
        var q = compiler.rootQuery()
        var shared = shareAggregates ? sharedAggregates(selection, compiler: compiler) : []
        let groups = groupAggregates ? groupedAggregates(selection, compiler: compiler) : []
        // Grouped derived tables (FetchPlan+GroupedAggregates) compute each aggregate once for every object: an
        // aggregate used twice reads its column twice. Not beside the derived table of the aggregates used more
        // than once for one that cannot be grouped.
        let groupedKeys = Set(groups.flatMap { $0.aggregates.map(\.0) })
        if !groups.isEmpty, shared.allSatisfy({ groupedKeys.contains($0.0) }) {
            shared = []
            compiler.shared = FetchPlan.joinGroups(groups, to: q, compiler: compiler)
        }
        if shared.isEmpty {
            if let predicate { q.conditions.append(compiler.compile(predicate, negated: false, in: q)) }
        } else {
            // Each aggregate used more than once becomes a column of a derived table (FetchPlan+SharedAggregates).
            let keys = Set(shared.map(\.0))
            var outer: [BoundPredicate] = []
            if let predicate {
                for term in SQLCompiler.chainTerms(predicate, and: true) {
                    if term.perObjectAggregates.contains(where: { compiler.aggregateKey($0).map(keys.contains) ?? false }) {
                        outer.append(term)
                    } else {
                        q.conditions.append(compiler.compile(term, negated: false, in: q))
                    }
                }
            }
            var inner = ["t0.*"]
            var columns: [String: String] = [:]
            for (i, (key, e)) in shared.enumerated() {
                let name = quoted("@a\(i + 1)")
                inner.append("\(compiler.marked(e, compiler.rawAggregate(e, in: q))) AS \(name)")
                columns[key] = "t0.\(name)"
            }
            let derived = SQLQuery(parent: nil)
            derived.from = "(SELECT \(inner.joined(separator: ", ")) \(q.body()) \(compiler.dialect.derivedTableFence)) t0"
            derived.scopeAliases[0] = "t0"
            q = derived
            compiler.shared = columns
            if let rest = BoundPredicate.all(outer) { q.conditions.append(compiler.compile(rest, negated: false, in: q)) }
        }
        let limited = request.limit != nil || request.offset != nil
        let select: String
        switch selection {
        case .objects: select = "t0.*"
        case .columns:
            select = columns.map { column in
                let value = compiler.scalar(column.expression, .stored, in: q)
                // The object ID's text (NULL stays NULL): the entity's name is bound, not written into the SQL.
                if case .object(let destination) = column.expression.type { return "(\(compiler.bind(.text(destination + "/"))) || \(value))" }
                return value
            }.joined(separator: ", ")
        case .count: select = (limited || isGrouped) && !(isGrouped && groupKeys.isEmpty) ? "1" : "COUNT(*)"
        }
        var order: [String] = []
        let groupTerms = groupKeys.map { compiler.scalar($0, .stored, in: q) }
        if selection != .count || limited {
            for (descriptor, expression) in sortKeys {
                var term = compiler.scalar(expression, .stored, in: q)
                // A sum may be beyond an Int64 (a BLOB), which SQLite would sort after every INTEGER.
                if compiler.isWide(expression, .stored) { term = compiler.dialect.wideOrderKey(term) }
                // Issue 27: ordered by an indexed column and nothing else to go on, SQLite reads the table through
                // that index to skip the sort, at random when the rows were not written in that order (the fetch
                // bench on a store imported in random order: 0.62 s, against 0.19 s scanned and sorted). A unary
                // `+` keeps the column (and its collation) but not the index. With a LIMIT the index order is what
                // makes the first rows cheap, so it stays.
                else if !limited && !isGrouped, case .attribute = expression { term = compiler.dialect.withoutIndex(term) }
                if expression.type == .attribute(.string) { term = compiler.dialect.collate(term, descriptor.comparison) }
                order.append(compiler.dialect.orderTerm(term, ascending: descriptor.ascending))
            }
            // Ties keep a stable order: by object ID, or for groups by their keys.
            if isGrouped { order += groupTerms.map { compiler.dialect.orderTerm($0, ascending: true) } } else { order.append(compiler.dialect.orderTerm("t0.\"id\"", ascending: true)) }
        }
        // Joins are added while compiling, so the body is read last.
        var sql = "SELECT \(select) \(q.body())"
        if !groupTerms.isEmpty { sql += " GROUP BY " + groupTerms.joined(separator: ", ") }
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if limited {
            sql += " LIMIT \(compiler.bind(request.limit.map { .integer(Int64($0)) } ?? compiler.dialect.noLimit))"
            if let offset = request.offset { sql += " OFFSET \(compiler.bind(.integer(Int64(offset))))" }
        }
        if selection == .count && (limited || isGrouped) { sql = "SELECT COUNT(*) FROM (\(sql)) AS n" }
        return (sql, compiler.arguments, compiler.markIDs)
    }
}

extension FetchPlan.Selection: Equatable {}
