
// The predicate compiler: a bound predicate becomes SQL text and its arguments. Values are always bound
// parameters (`?N`), identifiers come only from the model and are quoted — nothing a user typed is ever
// spliced into the SQL. To-one key paths become LEFT JOINs (one per distinct path), to-many ones correlated
// EXISTS / aggregate subqueries, so one fetch is one statement whatever the number of results.
//
// NULLs follow Apple's two-valued rules. In WHERE, SQL's NULL already acts as false; a NOT is pushed down to
// the comparisons (De Morgan), and a negated comparison is written `(…) IS NOT 1`, which is true when the
// comparison is false *or* NULL — so `NOT (x < 5)` holds for a null x, as in NSPredicate.

/// One SELECT being built: its FROM item, joins, conditions, and the aliases of the scopes it defines.
final class SQLQuery {
    let parent: SQLQuery?
    var from: String = ""
    var joins: [String] = []
    var conditions: [String] = []
    var scopeAliases: [Int: String] = [:]
    var pathAliases: [String: String] = [:]
    /// In an uncorrelated collection query (`SQLCompiler.collectionQuery(correlated: false)`), the column that
    /// holds each element's owner's ID.
    var ownerKey: String?

    init(parent: SQLQuery?) { self.parent = parent }

    /// The query (this one or an enclosing one) that defines `scope`.
    func owner(of scope: Int) -> SQLQuery {
        var q: SQLQuery? = self
        while let current = q {
            if current.scopeAliases[scope] != nil { return current }
            q = current.parent
        }
        preconditionFailure("scope \(scope) is not defined in this query")
    }

    func body() -> String {
        var sql = "FROM \(from)"
        if !joins.isEmpty { sql += " " + joins.joined(separator: " ") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return sql
    }
}

/// Compiles bound predicates and expressions into SQL with numbered arguments.
package final class SQLCompiler {
    let model: ObjectModel
    let scopes: [Entity]
    let dialect: any SQLDialect
    /// The form the sum being compiled takes beyond an Int64 (see `ordering`).
    private var sumForm: WideForm = .exact
    private(set) var arguments: [StoredValue] = []
    private var aliasCount = 0
    /// The share of the fetched entity's rows (0...1) a range on one of its indexed attributes covers, when the
    /// statement is compiled against a store (`RangeCoverage`); nil compiles without it.
    let coverage: ((_ entity: Entity, _ attribute: EntityAttribute, _ low: StoredValue?, _ high: StoredValue?) -> Double?)?

    init(model: ObjectModel, scopes: [Entity], dialect: any SQLDialect,
         coverage: ((_ entity: Entity, _ attribute: EntityAttribute, _ low: StoredValue?, _ high: StoredValue?) -> Double?)? = nil) {
        self.model = model
        self.scopes = scopes
        self.dialect = dialect
        self.coverage = coverage
    }

    /// Issue 27: SQLite (without STAT4) takes any range on an indexed column for selective and reads the table
    /// through the index, at random when the rows were not written in the index's order: the shipped
    /// `unpaid-orders` report, whose default range covers every order, took 0.53 s that way on a store imported
    /// in random order, and 0.14 s scanned. When the store says the range covers at least a fifth of the rows
    /// (the index's min and max, by `coverage`), the column is written `+column`: the same value and collation,
    /// but no index. The same holds for an object reached by to-one relationships (`order.date` in the
    /// `order-details` and `sales-by-service` reports over OrderRow): SQLite led its join with the date index and
    /// read `"Order"` through it at random, where the plain statement scans `"order"`; the share is that of the
    /// object's own table.
    private func unindexed(_ column: String, _ c: BoundComparison, low: StoredValue?, high: StoredValue?, in q: SQLQuery) -> String {
        guard let coverage, q.parent == nil, case .attribute(let path, let a) = c.left, path.scope == 0,
              a.isIndexed || a.isUnique, c.options.isEmpty,
              let entity = path.hops.last.map({ model.entity(named: $0.destination) }) ?? scopes[0],
              let share = coverage(entity, a, low, high), share >= 0.2 else { return column }
        return "+" + column
    }

    /// Binds a value and returns its placeholder. Numbered, so the order of compilation does not matter.
    func bind(_ value: StoredValue) -> String {
        arguments.append(value)
        return dialect.placeholder(arguments.count)
    }

    func newAlias(_ prefix: String = "t") -> String {
        aliasCount += 1
        return "\(prefix)\(aliasCount)"
    }

    /// The root query over the fetched entity, alias `t0`.
    func rootQuery() -> SQLQuery {
        let q = SQLQuery(parent: nil)
        q.from = "\(quoted(scopes[0].name)) t0"
        q.scopeAliases[0] = "t0"
        return q
    }

    // MARK: Paths

    /// The alias of the object at the end of a to-one path, LEFT JOINed into the query that owns its scope.
    func alias(of path: ToOnePath, in query: SQLQuery) -> String {
        let owner = query.owner(of: path.scope)
        var current = owner.scopeAliases[path.scope]!
        var entity = scopes[path.scope]
        var key = "\(path.scope)"
        for r in path.hops {
            key += ".\(r.name)"
            if let existing = owner.pathAliases[key] {
                current = existing
            } else {
                let a = newAlias()
                let d = quoted(r.destination)
                switch model.storage(of: r, in: entity) {
                case .foreignKey(let column):
                    owner.joins.append("LEFT JOIN \(d) \(a) ON \(a).\"id\" = \(current).\(quoted(column))")
                case .inverseForeignKey(_, let column):
                    owner.joins.append("LEFT JOIN \(d) \(a) ON \(a).\(quoted(column)) = \(current).\"id\"")
                case .joinTable:
                    preconditionFailure("a to-one path cannot cross a many-to-many relationship")
                }
                owner.pathAliases[key] = a
                current = a
            }
            entity = model.entity(named: r.destination)!
        }
        return current
    }

    /// A correlated subquery over a collection's elements (FROM, joins and conditions; the caller picks the SELECT).
    /// `correlated: false` leaves out the condition that ties the elements to the object (a grouped derived table,
    /// FetchPlan+GroupedAggregates) and puts the element side of that condition, the owner's ID, in `ownerKey`:
    /// only for a collection whose first hop is to-many.
    func collectionQuery(_ c: BoundCollection, in outer: SQLQuery, correlated: Bool = true) -> SQLQuery {
        let q = SQLQuery(parent: outer)
        var current = alias(of: ToOnePath(scope: c.scope, hops: []), in: outer)
        var entity = scopes[c.scope]
        for (i, r) in c.hops.enumerated() {
            let a = newAlias()
            let d = quoted(r.destination)
            switch model.storage(of: r, in: entity) {
            case .foreignKey(let column):
                precondition(correlated || i > 0, "a grouped collection begins with a to-many hop")
                if i == 0 { q.from = "\(d) \(a)"; q.conditions.append("\(a).\"id\" = \(current).\(quoted(column))") }
                else { q.joins.append("JOIN \(d) \(a) ON \(a).\"id\" = \(current).\(quoted(column))") }
            case .inverseForeignKey(_, let column):
                if i == 0 {
                    q.from = "\(d) \(a)"
                    if correlated { q.conditions.append("\(a).\(quoted(column)) = \(current).\"id\"") } else { q.ownerKey = "\(a).\(quoted(column))" }
                }
                else { q.joins.append("JOIN \(d) \(a) ON \(a).\(quoted(column)) = \(current).\"id\"") }
            case .joinTable(let table, let own, let other):
                let j = newAlias("j")
                if i == 0 {
                    q.from = "\(quoted(table)) \(j) JOIN \(d) \(a) ON \(a).\"id\" = \(j).\(quoted(other))"
                    if correlated { q.conditions.append("\(j).\(quoted(own)) = \(current).\"id\"") } else { q.ownerKey = "\(j).\(quoted(own))" }
                } else {
                    q.joins.append("JOIN \(quoted(table)) \(j) ON \(j).\(quoted(own)) = \(current).\"id\" JOIN \(d) \(a) ON \(a).\"id\" = \(j).\(quoted(other))")
                }
            }
            current = a
            entity = model.entity(named: r.destination)!
        }
        q.scopeAliases[c.elementScope] = current
        if let filter = c.filter { q.conditions.append(compile(filter, negated: false, in: q)) }
        return q
    }

    // MARK: Predicates

    /// SQL that is true exactly where the predicate (or, negated, its negation) holds, NULL counting as false.
    func compile(_ p: BoundPredicate, negated: Bool, in q: SQLQuery) -> String {
        switch p {
        case .constant(let b):
            return dialect.constant(b != negated)
        case .not(let inner):
            return compile(inner, negated: !negated, in: q)
        case .and, .or:
            // A chain is written flat, in groups of at most `chainGroup` terms: SQLite's parser overflows its
            // stack (100 entries) at about 40 nested parentheses, and its expression tree may be at most 1,000
            // deep, so neither one pair of parentheses per AND nor one flat list of 5,000 terms would do.
            var isAnd = false
            if case .and = p { isAnd = true }
            let parts = Self.chainTerms(p, and: isAnd).map { compile($0, negated: negated, in: q) }
            return Self.grouped(parts, isAnd != negated ? " AND " : " OR ")
        case .quantified(let quantifier, let c, let element):
            let sub = collectionQuery(c, in: q)
            let exists: String
            switch quantifier {
            case .any:
                sub.conditions.append(compile(element, negated: false, in: sub))
                exists = "EXISTS (SELECT 1 \(sub.body()))"
            case .noneOf:
                sub.conditions.append(compile(element, negated: false, in: sub))
                exists = "NOT EXISTS (SELECT 1 \(sub.body()))"
            case .all:
                sub.conditions.append(compile(element, negated: true, in: sub))
                exists = "NOT EXISTS (SELECT 1 \(sub.body()))"
            }
            return negated ? "NOT \(exists)" : exists
        case .comparison(let c):
            let sql = comparison(c, in: q)
            return negated ? dialect.isNotTrue(sql) : sql
        }
    }

    static let chainGroup = 64

    /// The terms of the AND (or OR) chain at `p`, left to right, found without recursion.
    static func chainTerms(_ p: BoundPredicate, and: Bool) -> [BoundPredicate] {
        var terms: [BoundPredicate] = []
        var stack = [p]
        while let next = stack.popLast() {
            switch next {
            case .and(let l, let r) where and, .or(let l, let r) where !and:
                stack.append(r)
                stack.append(l)
            default:
                terms.append(next)
            }
        }
        return terms
    }

    /// `(a AND b AND …)`, nested in groups of `chainGroup` when longer: depth log64(n).
    private static func grouped(_ parts: [String], _ word: String) -> String {
        var level = parts
        while level.count > chainGroup {
            level = stride(from: 0, to: level.count, by: chainGroup).map {
                "(" + level[$0..<min($0 + chainGroup, level.count)].joined(separator: word) + ")"
            }
        }
        return "(" + level.joined(separator: word) + ")"
    }

    private func comparison(_ c: BoundComparison, in q: SQLQuery) -> String {
        let folds = c.domain == .text && !c.options.isEmpty
        let flags = Int(c.options.rawValue)
        switch c.op {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            return dialect.stringMatch(c.op, scalar(c.left, c.domain, in: q), scalar(c.right, c.domain, in: q), options: "\(flags)")
        case .in:
            let l = side(c.left, c, in: q)
            guard case .list(let values) = c.right else { preconditionFailure("IN without a list") }
            let items = values.filter { !$0.isNull }.map { literal($0, c.domain, fold: folds ? c.options : []) }
            var sql = items.isEmpty ? dialect.constant(false) : dialect.inList(l, items, bind: bind)
            if values.contains(where: \.isNull) { sql = "(\(sql) OR \(l) IS NULL)" }
            return sql
        case .between:
            // Equality needs nothing: a number has one SQL form (an INTEGER, or beyond an Int64 its 16 bytes).
            // Order does: see `ordering`.
            let wide = ordering(c)
            let saved = sumForm
            sumForm = wide == .comparable ? .comparable : .exact
            defer { sumForm = saved }
            var l = side(c.left, c, in: q)
            guard case .list(let values) = c.right, values.count == 2 else { preconditionFailure("BETWEEN without two values") }
            let (low, high) = (literal(values[0], c.domain, fold: folds ? c.options : []), literal(values[1], c.domain, fold: folds ? c.options : []))
            if wide == .native && !folds { l = unindexed(l, c, low: low, high: high, in: q) }
            let (lo, hi) = (bind(low), bind(high))
            if wide == .function { return "(\(dialect.wideComparison(l, ">=", lo)) AND \(dialect.wideComparison(l, "<=", hi)))" }
            return "(\(l) >= \(lo) AND \(l) <= \(hi))"
        case .equal:
            return dialect.isNotDistinct(side(c.left, c, in: q), side(c.right, c, in: q))
        case .notEqual:
            return dialect.isDistinct(side(c.left, c, in: q), side(c.right, c, in: q))
        case .lessThan, .greaterThan, .lessThanOrEqual, .greaterThanOrEqual:
            let wide = ordering(c)
            let saved = sumForm
            sumForm = wide == .comparable ? .comparable : .exact
            defer { sumForm = saved }
            var l = side(c.left, c, in: q)
            let r = side(c.right, c, in: q)
            if wide == .native, !folds, case .literal(let v) = c.right, !v.isNull {
                let bound = literal(v, c.domain, fold: [])
                let below = c.op == .lessThan || c.op == .lessThanOrEqual
                l = unindexed(l, c, low: below ? nil : bound, high: below ? bound : nil, in: q)
            }
            let sql = wide == .function ? dialect.wideComparison(l, c.op.rawValue, r) : "\(l) \(c.op.rawValue) \(r)"
            // x <= NULL holds only when x is NULL too.
            if c.op == .lessThan || c.op == .greaterThan { return sql }
            if case .literal(let v) = c.right, !v.isNull { return sql }
            return "(\(sql) OR (\(l) IS NULL AND \(r) IS NULL))"
        }
    }

    /// How an ordering comparison meets numbers beyond an Int64.
    private enum Ordering { case native, comparable, function }

    /// SQLite orders every INTEGER before every BLOB, so a wide number (16 bytes) cannot be ordered with its
    /// own operators. When only one side is a sum and the other always fits an Int64, the sum is written in
    /// its comparable form (a REAL beyond the Int64 range) and SQLite's operators stay right; otherwise both
    /// sides go through the dialect's comparison function.
    private func ordering(_ c: BoundComparison) -> Ordering {
        guard case .exact = c.domain else { return .native }
        var sides = [c.left]
        if case .list(let values) = c.right { sides += values.map(BoundExpression.literal) } else { sides.append(c.right) }
        let wide = sides.filter { isWide($0, c.domain) }
        if wide.isEmpty { return .native }
        if wide.count == 1, isPlainSum(wide[0], c.domain) { return .comparable }
        return .function
    }

    /// A sum compared at its own scale: the one kind of wide value that has a comparable form.
    private func isPlainSum(_ e: BoundExpression, _ domain: ComparisonDomain) -> Bool {
        switch e {
        case .aggregate(.sum, _, _, let a): return !scaledUp(a!.type, domain)
        case .groupAggregate(.sum, let inner?, _): return !isWide(inner, .stored) && !scaledUp(typeOf(inner), domain)
        default: return false
        }
    }

    /// Whether `e`, brought to `domain`, may be beyond an Int64: an exact sum, a number scaled up, a wide literal.
    func isWide(_ e: BoundExpression, _ domain: ComparisonDomain) -> Bool {
        switch e {
        case .literal(let v):
            guard case .exact = domain else { return false }
            if case .blob = literal(v, domain, fold: []) { return true }
            return false
        case .list, .reference, .values, .period:
            return false
        case .attribute(_, let a):
            return scaledUp(a.type, domain)
        case .aggregate(let op, _, _, let a):
            switch op {
            case .count: return scaledUp(.integer, domain)
            case .avg: return false
            case .sum: return a!.type != .double
            case .min, .max: return scaledUp(a!.type, domain)
            }
        case .groupAggregate(let op, let inner, _):
            guard let inner else { return scaledUp(.integer, domain) }
            switch op {
            case .count: return scaledUp(.integer, domain)
            case .avg: return false
            case .sum: return typeOf(inner) != .double
            case .min, .max: return isWide(inner, .stored) || scaledUp(typeOf(inner), domain)
            }
        }
    }

    private func scaledUp(_ type: AttributeType, _ domain: ComparisonDomain) -> Bool {
        guard case .exact(let s) = domain else { return false }
        switch type {
        case .integer, .decimal: return s > PredicateBinder.scale(type)
        default: return false
        }
    }

    /// One side of a comparison, folded for `[c]`/`[d]` when the comparison asks for it.
    private func side(_ e: BoundExpression, _ c: BoundComparison, in q: SQLQuery) -> String {
        let folds = c.domain == .text && !c.options.isEmpty
        if folds {
            if case .literal(let v) = e { return bind(literal(v, c.domain, fold: c.options)) }
            return dialect.fold(scalar(e, c.domain, in: q), c.options)
        }
        return scalar(e, c.domain, in: q)
    }

    // MARK: Expressions

    /// A literal as stored for a comparison domain: exact numbers as integer units at the domain's scale.
    func literal(_ v: Value, _ domain: ComparisonDomain, fold: PredicateStringOptions) -> StoredValue {
        switch (v, domain) {
        case (.null, _): return .null
        case (.integer(let i), .exact(let s)):
            return dialect.wideValue(DecimalNumber(i).widened(to: s)?.units ?? (i > 0 ? Int128.max : Int128.min))
        case (.decimal(let d), .exact(let s)):
            // Beyond an Int128 at the domain's scale, a literal is beyond every sum of stored values too.
            return dialect.wideValue(d.widened(to: max(s, d.scale))?.units ?? (d.units > 0 ? Int128.max : Int128.min))
        case (.integer(let i), .real): return .real(Double(i))
        case (.decimal(let d), .real): return .real(Double(d.units) / pow10(d.scale))
        case (.string(let s), _) where !fold.isEmpty:
            return .text(TextFolding.fold(s, caseInsensitive: fold.contains(.caseInsensitive),
                                    diacriticInsensitive: fold.contains(.diacriticInsensitive)))
        default:
            return v.storedValue(for: v.attributeType ?? .string)
        }
    }

    /// A scalar expression's SQL, its numbers brought to the comparison domain (exact units or REAL).
    func scalar(_ e: BoundExpression, _ domain: ComparisonDomain, in q: SQLQuery) -> String {
        switch e {
        case .literal(let v):
            return bind(literal(v, domain, fold: []))
        case .list:
            preconditionFailure("a list is not a scalar")
        case .attribute(let path, let a):
            let column = "\(alias(of: path, in: q)).\(quoted(a.name))"
            // A Boolean means one thing for its whole column: what the decoder reads (nonzero is yes).
            if a.type == .boolean { return dialect.storedBoolean(column) }
            return numeric(column, a.type, domain, wide: false)
        case .reference(let path, _):
            return "\(alias(of: path, in: q)).\"id\""
        case .aggregate(let op, _, _, let a):
            // Computed once per object in the fetch's derived table when the fetch uses it more than once.
            var raw: String
            if let column = sharedColumn(e) {
                raw = column
                // The derived table holds the exact form; a comparison that wants the comparable one converts
                // the rare wide value.
                if op == .sum, a!.type != .double, sumForm == .comparable {
                    raw = dialect.comparableSum(column)
                }
            } else {
                raw = marked(e, rawAggregate(e, in: q))
            }
            switch op {
            case .count: return numeric(raw, .integer, domain, wide: false)
            case .sum: return a!.type == .double ? numeric(raw, .double, domain, wide: false) : numeric(raw, a!.type, domain, wide: true)
            case .avg: return raw
            case .min, .max: return numeric(raw, a!.type, domain, wide: false)
            }
        case .period(let unit, let inner):
            // A date-time's period is that of its local date (dialect.localDay, in the zone outputs show it in), not of
            // the UTC date its stored text begins with.
            let stored = scalar(inner, .stored, in: q)
            let value = typeOf(inner) == .dateTime ? dialect.localDay(stored) : stored
            return dialect.period(unit, ofDay: value)
        case .groupAggregate(let op, let inner, let weight):
            guard let inner else { return "COUNT(*)" }
            var value = scalar(inner, .stored, in: q)
            if op == .sum || op == .avg, case .attribute(let path, let a) = inner { value = finite(value, path, a, in: q) }
            let scale: Int
            if case .attribute(let t) = inner.type { scale = PredicateBinder.scale(t) } else { scale = 0 }
            let innerWide = isWide(inner, .stored)
            let isDouble = typeOf(inner) == .double
            switch op {
            case .count: return "COUNT(\(value))"
            case .sum:
                if isDouble { return numeric("COALESCE(SUM(\(value)), 0.0)", .double, domain, wide: false) }
                let sum = innerWide ? dialect.wideSum(value) : dialect.exactSum(value, beyond: sumForm)
                return numeric("COALESCE(\(sum), 0)", typeOf(inner), domain, wide: true)
            case .avg:
                // Sums for an average are exact, then divided once in floating point (an average is a Double).
                func realSum(_ v: String, wide: Bool) -> String {
                    dialect.castReal(wide ? dialect.wideReal(dialect.wideSum(v)) : dialect.exactSum(v, beyond: .real))
                }
                let total = isDouble ? "SUM(\(value))" : realSum(value, wide: innerWide)
                let average = weight.map { w -> String in
                    "(\(total) / NULLIF(\(realSum(scalar(w, .stored, in: q), wide: isWide(w, .stored))), 0))"
                } ?? (isDouble ? "AVG(\(value))" : "(\(total) / COUNT(\(value)))")
                return scale == 0 ? average : "(\(average) / \(pow10(scale)))"
            case .min, .max:
                if innerWide { return numeric(dialect.wideExtreme(op == .min, value), typeOf(inner), domain, wide: true) }
                return numeric("\(op.rawValue.uppercased())(\(value))", typeOf(inner), domain, wide: false)
            }
        case .values(let c, let valuePath, let a):
            let sub = collectionQuery(c, in: q)
            let element = sub.scopeAliases[c.elementScope]!
            let value = finite("\(alias(of: valuePath, in: sub)).\(quoted(a.name))", valuePath, a, in: sub)
            // Each item formatted by its type in Swift (dialect.valueList): group_concat wrote SQLite's storage (decimal
            // units, 1/0, 15-digit doubles) and split nothing that held its ", ".
            return "(SELECT \(dialect.valueList("v", a.type)) FROM (SELECT \(value) AS v \(sub.body()) ORDER BY \(element).\"id\") AS l)"
        }
    }

    /// A per-object aggregate as its correlated subquery, before `numeric` brings it to a comparison domain: a
    /// sum in the form `sumForm` asks for (exact unless a comparison wants the comparable one), an average
    /// already divided and scaled.
    func rawAggregate(_ e: BoundExpression, in q: SQLQuery) -> String {
        guard case .aggregate(let op, let c, _, let a) = e else { preconditionFailure("not an aggregate") }
        let form = sumForm
        let sub = collectionQuery(c, in: q)
        // The form is read before the subquery's own comparisons (compiled above) could change it.
        let value = aggregateTerm(e, form: form, in: sub)
        return finishedAggregate(op, a, "(SELECT \(value) \(sub.body()))", grouped: false)
    }

    /// The aggregate function call of per-object aggregate `e` over the elements of `sub` (a collection query
    /// whose element scope is `e`'s): what its correlated subquery selects, and what a grouped derived table
    /// selects per owner. A sum in `form`; an average exact, divided, not yet scaled.
    func aggregateTerm(_ e: BoundExpression, form: WideForm, in sub: SQLQuery) -> String {
        guard case .aggregate(let op, _, let valuePath, let a) = e else { preconditionFailure("not an aggregate") }
        var value = "*"
        if let valuePath, let a {
            value = "\(alias(of: valuePath, in: sub)).\(quoted(a.name))"
            if op == .sum || op == .avg { value = finite(value, valuePath, a, in: sub) }
        }
        switch op {
        case .count: return "COUNT(\(value))"
        case .sum: return a!.type == .double ? "SUM(\(value))" : dialect.exactSum(value, beyond: form)
        // The exact sum divided once, as the evaluator does (SQLite's AVG adds in floating point).
        case .avg: return a!.type == .double ? "AVG(\(value))" : "\(dialect.castReal(dialect.exactSum(value, beyond: .real))) / COUNT(\(value))"
        case .min, .max: return "\(op.rawValue.uppercased())(\(value))"
        }
    }

    /// The value of an aggregate from `term`, its `aggregateTerm` computed over the object's elements (a
    /// correlated subquery), or read from a grouped derived table's column (`grouped`: NULL for an object that
    /// has no elements, no row there). Over no elements a count is 0, a sum 0 (0.0 for doubles), an average, a
    /// minimum and a maximum NULL, either way; an average is brought to its attribute's scale.
    func finishedAggregate(_ op: AggregateOperator, _ a: EntityAttribute?, _ term: String, grouped: Bool) -> String {
        switch op {
        case .count: return grouped ? "COALESCE(\(term), 0)" : term
        case .sum: return "COALESCE(\(term), \(a!.type == .double ? "0.0" : "0"))"
        case .avg:
            let scale = PredicateBinder.scale(a!.type)
            return scale == 0 ? term : "(\(term) / \(pow10(scale)))"
        case .min, .max: return term
        }
    }

    // MARK: Aggregates computed once

    /// Issue 27: the columns of the fetch's derived table that hold per-object aggregates used more than once
    /// (in the predicate, the columns, the sort, the group keys), by `aggregateKey`; read in place of the
    /// correlated subquery. Empty unless `FetchPlan.sql` made a derived table.
    var shared: [String: String] = [:]

    /// What identifies a per-object aggregate of the fetched object (scope 0): its exact-form SQL and arguments
    /// compiled on their own. Two bindings of `rows.@sum.sum` (each with scopes of its own) are the same
    /// aggregate exactly when they compile to the same statement. Nil for anything else, and for aggregates of
    /// a collection element (a SUBQUERY's scope), which are not one value per fetched object.
    func aggregateKey(_ e: BoundExpression) -> String? {
        guard case .aggregate(_, let c, _, _) = e, c.scope == 0 else { return nil }
        let scratch = SQLCompiler(model: model, scopes: scopes, dialect: dialect)
        let sql = scratch.rawAggregate(e, in: scratch.rootQuery())
        return ([sql] + scratch.arguments.map { String(reflecting: $0) }).joined(separator: "\u{1F}")
    }

    /// Whether each aggregate subquery written is marked with its number (`/*bk:N*/`, N by `markIDs`), so that the
    /// copies in the statement can be counted: a BETWEEN or a `<=` may write its side twice.
    var marking = false
    var markIDs: [String: Int] = [:]

    /// `raw`, the SQL of aggregate `e`, with its number in front when `marking`.
    func marked(_ e: BoundExpression, _ raw: String) -> String {
        guard marking, let key = aggregateKey(e) else { return raw }
        let id = markIDs[key] ?? markIDs.count
        markIDs[key] = id
        return "/*bk:\(id)*/" + raw
    }

    private func sharedColumn(_ e: BoundExpression) -> String? {
        guard !shared.isEmpty, let key = aggregateKey(e) else { return nil }
        return shared[key]
    }

    /// A double attribute's column read where SQLite would compute with it (a sum, an average, a list): wrapped
    /// so that a stored infinity fails the statement, naming the object, instead of turning a sum into ±∞ or
    /// (+∞ + −∞) NULL. Other types are read as they are.
    private func finite(_ column: String, _ path: ToOnePath, _ a: EntityAttribute, in q: SQLQuery) -> String {
        guard a.type == .double else { return column }
        let entity = path.hops.last?.destination ?? scopes[path.scope].name
        return dialect.finite(column, entity: entity, attribute: a.name, id: "\(alias(of: path, in: q)).\"id\"")
    }

    private func typeOf(_ e: BoundExpression) -> AttributeType {
        if case .attribute(let t) = e.type { return t }
        return .integer
    }

    /// Scales a stored number for a domain: decimals to the exact domain's scale, or to REAL. `wide` says the
    /// number may be beyond an Int64 already. Scaling up is exact (never SQLite's `*`, which turns an overflow
    /// into an approximate REAL).
    private func numeric(_ sql: String, _ type: AttributeType, _ domain: ComparisonDomain, wide: Bool) -> String {
        let own = PredicateBinder.scale(type)
        switch (type, domain) {
        case (.integer, .exact(let s)), (.decimal, .exact(let s)):
            return s > own ? dialect.wideScaled(sql, by: s - own) : sql
        case (.decimal, .real):
            return "(\(wide ? dialect.wideReal(sql) : sql) / \(pow10(own)))"
        case (.integer, .real):
            return wide ? dialect.wideReal(sql) : sql
        default:
            return sql
        }
    }
}

/// 10^n as a Double, for scaling stored decimals to REAL.
func pow10(_ n: Int) -> Double {
    var p = 1.0
    for _ in 0..<n { p *= 10 }
    return p
}
