import Foundation
import LocalTime

// The in-memory evaluator: the same bound predicate, computed on objects in a context. Domain rules use it,
// and the differential tests use it as the oracle for the SQL compiler, so it follows the same decisions:
// strings compare by their UTF-8 bytes (as SQLite's BINARY collation does, not by Swift's canonical
// equivalence), integers and decimals exactly, NULLs by Apple's two-valued rules.

package struct PredicateEvaluator {
    let context: ObjectContext
    /// The zone whose calendar days the periods of date-times are (the process's: the one outputs show them in).
    let zone: Zone

    package init(context: ObjectContext, zone: Zone = .process) {
        self.context = context
        self.zone = zone
    }

    /// Whether `predicate` holds for `object` (bound with the object's entity as scope 0).
    package func evaluate(_ predicate: BoundPredicate, on object: ManagedObject) throws -> Bool {
        try evaluate(predicate, [0: object])
    }

    func evaluate(_ p: BoundPredicate, _ env: [Int: ManagedObject]) throws -> Bool {
        switch p {
        case .constant(let b): return b
        case .not(let inner): return try !evaluate(inner, env)
        case .and(let a, let b): return try evaluate(a, env) && evaluate(b, env)
        case .or(let a, let b): return try evaluate(a, env) || evaluate(b, env)
        case .quantified(let quantifier, let c, let element):
            let elements = try self.elements(c, env)
            func holds(_ e: ManagedObject) throws -> Bool {
                var inner = env
                inner[c.elementScope] = e
                return try evaluate(element, inner)
            }
            switch quantifier {
            case .any: return try elements.contains(where: holds)
            case .noneOf: return try !elements.contains(where: holds)
            case .all: return try elements.allSatisfy(holds)
            }
        case .comparison(let c):
            return try compare(c, env)
        }
    }

    // MARK: Comparisons

    private func compare(_ c: BoundComparison, _ env: [Int: ManagedObject]) throws -> Bool {
        let left = try value(c.left, env)
        let options = c.options
        func fold(_ s: String) -> String {
            options.isEmpty ? s : TextFolding.fold(s, caseInsensitive: options.contains(.caseInsensitive),
                                                   diacriticInsensitive: options.contains(.diacriticInsensitive))
        }
        switch c.op {
        case .beginsWith, .endsWith, .contains, .like, .matches:
            guard case .string(let text) = left, case .string(let needle) = try value(c.right, env) else { return false }
            return try StringOperators.apply(c.op, text, needle, options)
        case .in:
            guard case .list(let values) = c.right else { return false }
            if left.isNull { return values.contains(where: \.isNull) }
            return values.contains { !$0.isNull && order(left, $0, c.domain, fold: fold) == 0 }
        case .between:
            guard case .list(let values) = c.right, values.count == 2, !left.isNull else { return false }
            guard let lo = order(left, values[0], c.domain, fold: fold), let hi = order(left, values[1], c.domain, fold: fold) else { return false }
            return lo >= 0 && hi <= 0
        default:
            let right = try value(c.right, env)
            if left.isNull || right.isNull {
                let both = left.isNull && right.isNull
                switch c.op {
                case .equal, .lessThanOrEqual, .greaterThanOrEqual: return both
                case .notEqual: return !both
                default: return false
                }
            }
            guard let o = order(left, right, c.domain, fold: fold) else { return c.op == .notEqual }
            switch c.op {
            case .equal: return o == 0
            case .notEqual: return o != 0
            case .lessThan: return o < 0
            case .lessThanOrEqual: return o <= 0
            case .greaterThan: return o > 0
            case .greaterThanOrEqual: return o >= 0
            default: return false
            }
        }
    }

    /// -1, 0, 1 for two non-null values in a domain; nil when they cannot be ordered.
    func order(_ a: Value, _ b: Value, _ domain: ComparisonDomain, fold: (String) -> String) -> Int? {
        switch domain {
        case .exact:
            guard let x = exact(a), let y = exact(b) else { return nil }
            return DecimalNumber.compare(x, y)
        case .real:
            guard let x = real(a), let y = real(b) else { return nil }
            return x < y ? -1 : (x > y ? 1 : 0)
        case .text:
            guard case .string(let x) = a, case .string(let y) = b else { return nil }
            return ValueOrder.bytes(fold(x), fold(y))
        case .stored:
            return ValueOrder.compare(a, b)
        }
    }

    func exact(_ v: Value) -> DecimalNumber? {
        switch v {
        case .integer(let i): DecimalNumber(i)
        case .decimal(let d): d
        default: nil
        }
    }

    func real(_ v: Value) -> Double? {
        switch v {
        case .integer(let i): Double(i)
        case .decimal(let d): Double(d.units) / pow10(d.scale)
        case .double(let d): d
        default: nil
        }
    }

    // MARK: Values

    package func value(_ e: BoundExpression, _ env: [Int: ManagedObject]) throws -> Value {
        switch e {
        case .literal(let v): return v
        case .list: return .null
        case .attribute(let path, let a):
            guard let target = try follow(path, env) else { return .null }
            return target[a.name]
        case .reference(let path, _):
            guard let target = try follow(path, env) else { return .null }
            return target.rowID.map(Value.integer) ?? .integer(-Int64(target.serial))
        case .aggregate(let op, let c, let valuePath, let a):
            let elements = try self.elements(c, env)
            if op == .count && valuePath == nil { return .integer(Int64(elements.count)) }
            var values: [Value] = []
            for element in elements {
                var inner = env
                inner[c.elementScope] = element
                let v = try value(.attribute(valuePath!, a!), inner)
                if !v.isNull { values.append(v) }
            }
            return aggregate(op, values, a!.type)
        case .period(let unit, let inner):
            return PredicateEvaluator.period(unit, of: try value(inner, env), in: zone)
        case .groupAggregate:
            // Group aggregates exist only in grouped SQL fetches.
            return .null
        case .values(let c, let valuePath, let a):
            // As bk_list gives them: the stored values in one text (StoredValue+List.swift).
            var items: [StoredValue] = []
            for element in try elements(c, env) {
                var inner = env
                inner[c.elementScope] = element
                let v = try value(.attribute(valuePath, a), inner)
                if !v.isNull { items.append(v.storedValue(for: a.type)) }
            }
            return items.isEmpty ? .null : .string(StoredValue.listText(items))
        }
    }

    private func aggregate(_ op: AggregateOperator, _ values: [Value], _ type: AttributeType) -> Value {
        switch op {
        case .count:
            return .integer(Int64(values.count))
        case .sum:
            switch type {
            case .double: return .double(values.reduce(0.0) { $0 + (real($1) ?? 0) })
            case .decimal(let s):
                // Int128 units: exact for any number of stored values, as the SQL sum is.
                return .decimal(DecimalNumber(units: exactUnits(values, scale: s), scale: s))
            default:
                let total = exactUnits(values, scale: 0)
                return Int64(exactly: total).map(Value.integer) ?? .decimal(DecimalNumber(units: total, scale: 0))
            }
        case .avg:
            guard !values.isEmpty else { return .null }
            switch type {
            case .decimal(let s):
                // The exact sum, then one division: what the SQL computes too.
                return .double(Double(exactUnits(values, scale: s)) / Double(values.count) / pow10(s))
            case .integer:
                return .double(Double(exactUnits(values, scale: 0)) / Double(values.count))
            default:
                return .double(values.reduce(0.0) { $0 + (real($1) ?? 0) } / Double(values.count))
            }
        case .min, .max:
            guard var best = values.first else { return .null }
            for v in values.dropFirst() {
                let o = ValueOrder.compare(v, best) ?? 0
                if (op == .min && o < 0) || (op == .max && o > 0) { best = v }
            }
            return best
        }
    }

    /// The sum of the values' units at `scale` (they are stored values, so at most that scale).
    private func exactUnits(_ values: [Value], scale: Int) -> Int128 {
        var total: Int128 = 0
        for v in values { if let d = exact(v)?.widened(to: max(scale, exact(v)!.scale)) { total &+= d.units } }
        return total
    }

    private func follow(_ path: ToOnePath, _ env: [Int: ManagedObject]) throws -> ManagedObject? {
        guard var current = env[path.scope] else { return nil }
        for r in path.hops {
            // An object being deleted is gone for every rule (a No Action reference to it reads as none, as `check`
            // reads it once the delete is stored).
            guard let next = try current.currentTarget(r), !next.isDeleted else { return nil }
            current = next
        }
        return current
    }

    /// The elements of a collection: every object reached through its hops, filtered by its SUBQUERY predicate.
    func elements(_ c: BoundCollection, _ env: [Int: ManagedObject]) throws -> [ManagedObject] {
        guard let start = env[c.scope] else { return [] }
        var current = [start]
        for r in c.hops {
            var next: [ManagedObject] = []
            for o in current {
                if r.isToMany { next += try o.members(r) } else if let t = try o.currentTarget(r), !t.isDeleted { next.append(t) }
            }
            current = next
        }
        guard let filter = c.filter else { return current }
        return try current.filter { e in
            var inner = env
            inner[c.elementScope] = e
            return try evaluate(filter, inner)
        }
    }
}

/// The string operators, shared by the evaluator and the SQL functions so both give the same answers.
package enum StringOperators {
    /// Throws for MATCHES when the pattern is not a regular expression or the engine gives up (its
    /// backtracking limit): either would otherwise read as "no match", a wrong answer given in silence.
    package static func apply(_ op: PredicateOperator, _ text: String, _ needle: String,
                              _ options: PredicateStringOptions) throws(TextRegexError) -> Bool {
        let c = options.contains(.caseInsensitive), d = options.contains(.diacriticInsensitive)
        switch op {
        case .like:
            return TextLikePattern.likeMatch(text, pattern: needle, caseInsensitive: c, diacriticInsensitive: d)
        case .matches:
            return try TextRegex.matches(text, pattern: needle, caseInsensitive: c, diacriticInsensitive: d)
        default:
            break
        }
        // An empty needle matches nothing (as NSPredicate).
        guard !needle.isEmpty else { return false }
        let t = Array(TextFolding.fold(text, caseInsensitive: c, diacriticInsensitive: d).utf8)
        let n = Array(TextFolding.fold(needle, caseInsensitive: c, diacriticInsensitive: d).utf8)
        guard n.count <= t.count else { return false }
        switch op {
        case .beginsWith: return t.starts(with: n)
        case .endsWith: return t.suffix(n.count).elementsEqual(n)
        case .contains:
            // A needle that folds to nothing (`CONTAINS[d] '\u{301}'`: only marks) is in every text, as it begins
            // and ends every text; reading n[0] trapped.
            if n.isEmpty || n.count == t.count { return t == n || n.isEmpty }
            for start in 0...(t.count - n.count) where t[start] == n[0] {
                if t[start..<(start + n.count)].elementsEqual(n) { return true }
            }
            return false
        default: return false
        }
    }
}

/// How stored values order, as SQLite orders them: numbers by value, text by UTF-8 bytes, NULL first.
package enum ValueOrder {
    package static func bytes(_ a: String, _ b: String) -> Int {
        var i = a.utf8.makeIterator(), j = b.utf8.makeIterator()
        while true {
            switch (i.next(), j.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    /// Orders two values of the same kind; NULL before everything; nil when the kinds cannot be compared.
    package static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.string(let x), .string(let y)): return bytes(x, y)
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.date(let x), .date(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.dateTime(let x), .dateTime(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.binary(let x), .binary(let y)):
            for (p, q) in zip(x, y) where p != q { return p < q ? -1 : 1 }
            return x.count == y.count ? 0 : (x.count < y.count ? -1 : 1)
        case (.double(let x), .double(let y)): return x < y ? -1 : (x > y ? 1 : 0)
        default:
            let e = PredicateEvaluator.exactValue
            if let x = e(a), let y = e(b) { return DecimalNumber.compare(x, y) }
            let r = PredicateEvaluator.realValue
            if let x = r(a), let y = r(b) { return x < y ? -1 : (x > y ? 1 : 0) }
            return nil
        }
    }
}

extension PredicateEvaluator {
    static func exactValue(_ v: Value) -> DecimalNumber? {
        switch v {
        case .integer(let i): DecimalNumber(i)
        case .decimal(let d): d
        default: nil
        }
    }

    static func realValue(_ v: Value) -> Double? {
        switch v {
        case .integer(let i): Double(i)
        case .decimal(let d): Double(d.units) / pow10(d.scale)
        case .double(let d): d
        default: nil
        }
    }
}

extension PredicateEvaluator {
    /// The period of `unit` holding a date, or a date-time's local date in `zone` (the day `fetch` and reports show
    /// it on, as SQL's bk_localday takes it); NULL for other values and for a local date outside the years 1 to 9999.
    static func period(_ unit: PeriodUnit, of value: Value, in zone: Zone) -> Value {
        switch value {
        case .date(let d): return period(unit, of: d)
        case .dateTime(let t): return t.day(in: zone).map { period(unit, of: $0) } ?? .null
        default: return .null
        }
    }

    /// The period of `unit` holding `day`, as the SQL compiler writes it (the oracle for that SQL).
    static func period(_ unit: PeriodUnit, of day: Day) -> Value {
        func padded(_ n: Int, _ width: Int) -> String {
            let text = String(n)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        switch unit {
        case .year: return .integer(Int64(day.year))
        case .month: return .string(padded(day.year, 4) + "-" + padded(day.month, 2))
        case .quarter: return .string(padded(day.year, 4) + "-Q" + String((day.month + 2) / 3))
        case .week:
            // The Thursday of the day's ISO week decides the year; the week number counts from that year's first one.
            let days = day.daysSinceEpoch
            let weekday = ((days % 7) + 7 + 3) % 7          // 0 Monday … 6 Sunday (1970-01-01 was a Thursday)
            let thursday = days - weekday + 3
            guard let year = Day(daysSinceEpoch: thursday)?.year, let january = Day(year: year, month: 1, day: 1) else { return .null }
            let week = (thursday - january.daysSinceEpoch) / 7 + 1
            return .string(padded(year, 4) + "-W" + padded(week, 2))
        }
    }
}
