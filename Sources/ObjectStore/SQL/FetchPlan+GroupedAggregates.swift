// Issue 27: a fetch that needs the to-many aggregates of every object it reads computes them in one grouped pass.
//
// `Customer` with the columns `orders.@count`, `orders.@max.date`, `orders.rows.@sum.sum` (the customers report)
// wrote three correlated subqueries per customer, each reaching `"Order"` through `Order_customer_id`: 1.06 s of
// CPU in `sqlite3` on the bench store (20,000 customers, 200,000 orders, 1,000,000 rows), where the hand-written
// statement groups the orders per customer once (0.80 s). Each collection that the fetch aggregates over
// (`orders`, `orders.rows`) becomes one derived table with a column per aggregate, grouped by the owner's ID and
// LEFT JOINed to the fetched object:
//
//     SELECT … COALESCE(g1."@a1", 0), g1."@a2", COALESCE(g2."@a1", 0) FROM "Customer" t0
//     LEFT JOIN (SELECT t3."customer_id" AS "@owner", COUNT(*) AS "@a1", MAX(t3."date") AS "@a2" FROM "Order" t3
//                GROUP BY +t3."customer_id") g1 ON g1."@owner" = t0."id"
//     LEFT JOIN (SELECT t5."customer_id" AS "@owner", bk_sum(t6."sum") AS "@a1" FROM "Order" t5
//                JOIN "OrderRow" t6 ON t6."order_id" = t5."id" GROUP BY +t5."customer_id") g2 ON g2."@owner" = t0."id"
//
// (0.46 s on the same store; the tags list, a to-many attribute list, costs 0.035 s and stays as it is). The `+`
// keeps SQLite from grouping in the order of the owner index, which reads the elements at random (1.02 s): it
// scans them and sorts. SQLite materializes each table once and reads it through an automatic index. The same
// aggregate functions run over the same elements, so every value is what the correlated subquery gives, exact
// sums included; only an object without elements has no row in the table, and `SQLCompiler.finishedAggregate`
// gives it what the subquery gave over none (count 0, sum 0, average, min and max NULL).
//
// The rule: grouped only when the aggregates are needed for every object the fetch reads — no LIMIT or OFFSET
// (the sort may then stop after a few objects), and no conjunct of the predicate without such an aggregate (it
// may be selective, and the correlated form computes the aggregates only for the objects it leaves; the grouped
// form always reads every element). Only aggregates of the fetched object (not of a SUBQUERY's element) over a
// collection without a filter, whose first hop is to-many, and not a sum or average of doubles. Not with the derived table of aggregates used more
// than once (FetchPlan+SharedAggregates) for some other aggregate: then everything stays as that one writes it.

extension FetchPlan {
    /// One grouped derived table: the collection's path, and its aggregates (key, expression), each key once.
    struct AggregateGroup {
        let path: String
        var aggregates: [(String, BoundExpression)]
    }

    /// The collections whose aggregates the statement for `selection` computes in grouped derived tables, by the
    /// rule above; empty when it keeps the correlated subqueries.
    func groupedAggregates(_ selection: Selection, compiler: SQLCompiler) -> [AggregateGroup] {
        guard request.limit == nil, request.offset == nil else { return [] }
        func groupable(_ e: BoundExpression) -> Bool {
            guard case .aggregate(let op, let c, _, let a) = e, c.scope == 0, c.filter == nil, let first = c.hops.first,
                  first.isToMany, compiler.aggregateKey(e) != nil else { return false }
            // A sum or average of doubles fails on a stored infinity (`SQLCompiler.finite`): the grouped table
            // would read the elements of objects the fetch does not read too.
            return !((op == .sum || op == .avg) && a?.type == .double)
        }
        if let predicate {
            for term in SQLCompiler.chainTerms(predicate, and: true) where !term.perObjectAggregates.contains(where: groupable) {
                return []
            }
        }
        var groups: [AggregateGroup] = []
        var seen = Set<String>()
        for (key, e) in aggregateUses(selection, compiler: compiler) where groupable(e) && seen.insert(key).inserted {
            guard case .aggregate(_, let c, _, _) = e else { continue }
            let path = c.hops.map(\.name).joined(separator: ".")
            if let i = groups.firstIndex(where: { $0.path == path }) { groups[i].aggregates.append((key, e)) }
            else { groups.append(AggregateGroup(path: path, aggregates: [(key, e)])) }
        }
        return groups
    }

    /// LEFT JOINs each group's derived table to `q` (the root query) and returns, by aggregate key, the SQL that
    /// reads each aggregate there, for `SQLCompiler.shared`.
    static func joinGroups(_ groups: [AggregateGroup], to q: SQLQuery, compiler: SQLCompiler) -> [String: String] {
        var columns: [String: String] = [:]
        for group in groups {
            guard case .aggregate(_, let first, _, _) = group.aggregates[0].1 else { continue }
            let sub = compiler.collectionQuery(first, in: q, correlated: false)
            let element = sub.scopeAliases[first.elementScope]!
            let g = compiler.newAlias("g")
            var select = ["\(sub.ownerKey!) AS \"@owner\""]
            for (i, (key, e)) in group.aggregates.enumerated() {
                guard case .aggregate(let op, let c, _, let a) = e else { continue }
                // Another binding of the same path: its own scope, the same elements.
                sub.scopeAliases[c.elementScope] = element
                let name = quoted("@a\(i + 1)")
                select.append("\(compiler.aggregateTerm(e, form: .exact, in: sub)) AS \(name)")
                columns[key] = compiler.finishedAggregate(op, a, "\(g).\(name)", grouped: true)
            }
            q.joins.append("LEFT JOIN (SELECT \(select.joined(separator: ", ")) \(sub.body()) GROUP BY \(compiler.dialect.withoutIndex(sub.ownerKey!))) \(g) ON \(g).\"@owner\" = \(q.scopeAliases[0]!).\"id\"")
        }
        return columns
    }
}
