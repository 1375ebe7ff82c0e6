// Issue 27: a per-object aggregate used more than once in one fetch is computed once per object.
//
// `Order where rows.@sum.sum > 1000` with the column `rows.@sum.sum` wrote the same correlated subquery in the WHERE
// and in the columns, and SQLite computed it twice for every order that passed (and a sort by it, or a report's
// `sort: sum:rows.sum desc` beside its column, a third or second time). When one appears more than once, the
// fetched entity is read through a derived table that adds each such aggregate as a column:
//
//     SELECT <columns> FROM (SELECT t0.*, <aggregate> AS "@a1" FROM "Order" t0 WHERE <the rest> LIMIT -1 OFFSET 0) t0
//     LEFT JOIN … WHERE <the conjuncts that use it, reading t0."@a1"> ORDER BY …
//
// The conjuncts of the predicate that do not use a shared aggregate filter inside, so the aggregate is computed
// only for the objects they leave, as before. `OFFSET 0` keeps SQLite from flattening the derived table back into
// the outer query (flattening rule 14), which would write the subquery back in every place it is read, and from
// pushing the outer WHERE into it; SQLite runs it as a co-routine, row by row, without storing it. The column holds
// the aggregate as the columns show it (a sum exact, 0 over no elements; count, average, min and max as their
// subqueries give them, NULL over none), and each use brings it to its comparison domain as the subquery would
// have been (SQLCompiler.scalar).
//
// A grouped fetch reads each per-object aggregate through the derived table even when it uses it once (see
// `sharedAggregates`). Not for a fetch with a LIMIT or OFFSET that is not grouped: the sort may then read an index to stop after a few
// rows, and the columns are computed only for those; nor for whole objects (`.objects`, whose `t0.*` the derived
// table would widen).

extension FetchPlan {
    /// The per-object aggregates that the statement for `selection` would compute more than once, each once, in
    /// the order first met: (key, expression). Counted in the statement as written without them (marked,
    /// `SQLCompiler.marking`): a use in the predicate, the columns, the sort or the group keys is one copy, and
    /// a comparison that writes its side twice (`BETWEEN` beyond an Int64, `x <= y` with a NULL rule, an `IN`
    /// with nil) two.
    func sharedAggregates(_ selection: Selection, compiler: SQLCompiler) -> [(String, BoundExpression)] {
        let limited = request.limit != nil || request.offset != nil
        guard selection != .objects, isGrouped || !limited else { return [] }
        let uses = aggregateUses(selection, compiler: compiler)
        guard !uses.isEmpty else { return [] }
        let written = statement(selection, dialect: compiler.dialect, coverage: nil, shareAggregates: false, marked: true)
        let copies = FetchPlan.markedCopies(written.sql)
        var order: [(String, BoundExpression)] = []
        var seen = Set<String>()
        // A grouped fetch takes every per-object aggregate into the derived table, even one used once: written in
        // place, SQLite evaluates its correlated subquery after the sorter that forms the groups, in group order —
        // at random across the rows when the groups do not follow the ids (sales-by-month on a store imported in
        // random order loaded 153,086 pages for 10,518; 0.50 s of CPU against 0.24 s in the derived table).
        let least = isGrouped ? 1 : 2
        for (key, e) in uses where seen.insert(key).inserted {
            if let id = written.marks[key], copies[id, default: 0] >= least { order.append((key, e)) }
        }
        return order
    }

    /// How many times each marked aggregate (`/*bk:N*/`) is written in `sql`, by N.
    static func markedCopies(_ sql: String) -> [Int: Int] {
        var copies: [Int: Int] = [:]
        var rest = sql[...]
        while let start = rest.range(of: "/*bk:") {
            rest = rest[start.upperBound...]
            guard let end = rest.range(of: "*/"), let id = Int(rest[..<end.lowerBound]) else { continue }
            copies[id, default: 0] += 1
            rest = rest[end.upperBound...]
        }
        return copies
    }

    /// Every use of a per-object aggregate of the fetched object in the statement for `selection` (the predicate,
    /// the columns, the sort keys when it sorts, the group keys), with its key (`SQLCompiler.aggregateKey`).
    func aggregateUses(_ selection: Selection, compiler: SQLCompiler) -> [(String, BoundExpression)] {
        let limited = request.limit != nil || request.offset != nil
        var expressions: [BoundExpression] = []
        if let predicate { expressions += predicate.perObjectAggregates }
        if selection == .columns { for column in columns { column.expression.collectAggregates(into: &expressions) } }
        if selection != .count || limited { for (_, e) in sortKeys { e.collectAggregates(into: &expressions) } }
        for e in groupKeys { e.collectAggregates(into: &expressions) }
        return expressions.compactMap { e in compiler.aggregateKey(e).map { ($0, e) } }
    }
}

extension BoundPredicate {
    /// Every per-object aggregate in the predicate, its SUBQUERY filters included, in order; found with a stack
    /// (a chain of 5,000 ANDs is a tree 5,000 deep).
    var perObjectAggregates: [BoundExpression] {
        var found: [BoundExpression] = []
        var stack = [self]
        while let p = stack.popLast() {
            switch p {
            case .constant: break
            case .not(let inner): stack.append(inner)
            case .and(let a, let b), .or(let a, let b): stack.append(b); stack.append(a)
            case .comparison(let c):
                c.left.collectAggregates(into: &found)
                c.right.collectAggregates(into: &found)
            case .quantified(_, let c, let element):
                if let filter = c.filter { stack.append(filter) }
                stack.append(element)
            }
        }
        return found
    }
}

extension BoundExpression {
    /// Appends every `.aggregate` in the expression (and in the filters of its collections) to `found`.
    func collectAggregates(into found: inout [BoundExpression]) {
        switch self {
        case .literal, .list, .attribute, .reference: break
        case .aggregate(_, let c, _, _):
            found.append(self)
            if let filter = c.filter { found += filter.perObjectAggregates }
        case .values(let c, _, _):
            if let filter = c.filter { found += filter.perObjectAggregates }
        case .period(_, let inner): inner.collectAggregates(into: &found)
        case .groupAggregate(_, let e, let weight):
            e?.collectAggregates(into: &found)
            weight?.collectAggregates(into: &found)
        }
    }
}
