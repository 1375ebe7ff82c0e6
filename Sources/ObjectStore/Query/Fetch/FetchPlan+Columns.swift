// Columns, group keys and sort keys are written the same way:
//   a key path                 number, customer.name, rows.@sum.sum, tags.name (a to-many list)
//   a period of a date         month(date) → "2024-03", year(date) → 2024
//   an aggregate over a group  count, count:rows, sum:rows.sum, avg:price, min:date, max:rows.@sum.sum
// An aggregate makes the fetch a grouped one (Core Data's dictionary results with propertiesToGroupBy):
// one row per distinct value of the group keys, or one row for everything when there are none.
// An aggregate over a to-many path flattens it: sum:rows.sum is the sum of every row of every object in
// the group, avg:rows.sum their average (weighted by each object's rows, not an average of averages).

extension PredicateBinder {
    /// Binds one column, group key or sort key written as text; `origin` names it in errors.
    mutating func bindColumn(_ text: String, origin: PredicateSourceOrigin) throws(PredicateBindingError) -> BoundExpression {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let lead = text.prefix { $0 == " " }.count
        let origin = origin.at(column: origin.column + lead)
        source = PredicateSourceText(trimmed, origin: origin)
        let lower = trimmed.lowercased()
        // Periods: month(keypath), year(keypath).
        for unit in PeriodUnit.allCases where lower.hasPrefix(unit.rawValue + "(") && lower.hasSuffix(")") {
            let inner = String(trimmed.dropFirst(unit.rawValue.count + 1).dropLast())
            let innerOrigin = origin.at(column: origin.column + unit.rawValue.count + 1)
            let e = try scalarKeyPath(inner, origin: innerOrigin)
            guard e.type == .attribute(.date) || e.type == .attribute(.dateTime) else {
                throw PredicateBindingError("\(unit.rawValue)() needs a date, but \"\(inner)\" is \(e.type)",
                                            at: .start, in: PredicateSourceText(trimmed, origin: origin))
            }
            return .period(unit, e)
        }
        // Aggregates: count, op:keypath (op may be written @op).
        let operators = ["count", "sum", "avg", "min", "max"]
        var head = lower
        if head.hasPrefix("@") { head.removeFirst() }
        if head == "count" { return .groupAggregate(.count, nil, weight: nil) }
        if let colon = head.firstIndex(of: ":"), operators.contains(String(head[..<colon])) {
            let op = AggregateOperator(rawValue: String(head[..<colon]))!
            let skip = trimmed.distance(from: trimmed.startIndex, to: trimmed.firstIndex(of: ":")!) + 1
            let pathText = String(trimmed.dropFirst(skip))
            let pathOrigin = origin.at(column: origin.column + skip)
            return try groupAggregate(op, pathText, origin: pathOrigin)
        }
        let path = try parseKeyPath(trimmed, origin: origin)
        switch try resolve(path) {
        case .scalar(let e):
            return e
        case .collection(let c, let rest, let attribute):
            // A to-many path lists the values; without an attribute, the elements' natural keys.
            let end = rest.last.map { model.entity(named: $0.destination)! } ?? model.entity(named: c.elementEntity)!
            guard let a = attribute ?? end.naturalKey.flatMap(end.attribute(named:)) else {
                throw error("\"\(trimmed)\" needs an attribute at its end, or an aggregate such as .@count", at: path.range)
            }
            return .values(c, ToOnePath(scope: c.elementScope, hops: rest), a)
        }
    }

    /// Parses a key path written at `origin`, making it the source that later errors point into.
    private mutating func parseKeyPath(_ text: String, origin: PredicateSourceOrigin) throws(PredicateBindingError) -> PredicateKeyPath {
        let source = PredicateSourceText(text, origin: origin)
        self.source = source
        do {
            return try PredicateParser.parseKeyPath(source)
        } catch {
            throw PredicateBindingError(error.message, hint: error.hint, at: error.position, in: source)
        }
    }

    private mutating func scalarKeyPath(_ text: String, origin: PredicateSourceOrigin) throws(PredicateBindingError) -> BoundExpression {
        let path = try parseKeyPath(text, origin: origin)
        switch try resolve(path) {
        case .scalar(let e): return e
        case .collection(let c, _, _):
            let r = c.hops.first { $0.isToMany }!
            throw self.error("\"\(r.name)\" is a to-many relationship — use an aggregate such as \(r.name).@count", at: path.range)
        }
    }

    private mutating func groupAggregate(_ op: AggregateOperator, _ text: String, origin: PredicateSourceOrigin) throws(PredicateBindingError) -> BoundExpression {
        let path = try parseKeyPath(text, origin: origin)
        switch try resolve(path) {
        case .scalar(let e):
            if [.sum, .avg].contains(op), !e.type.isNumeric {
                throw self.error("\(op.rawValue) needs a number, but \"\(text)\" is \(e.type)", at: path.range)
            }
            return .groupAggregate(op, e, weight: nil)
        case .collection(let c, let rest, let attribute):
            let valuePath = ToOnePath(scope: c.elementScope, hops: rest)
            guard let attribute else {
                if op == .count { return .groupAggregate(.sum, .aggregate(.count, c, value: nil, nil), weight: nil) }
                throw self.error("\(op.rawValue) needs an attribute at the end of \"\(text)\"", at: path.range)
            }
            if [.sum, .avg].contains(op), !ExpressionType.attribute(attribute.type).isNumeric {
                throw self.error("\(op.rawValue) needs a number, but \"\(attribute.name)\" is \(attribute.type)", at: path.range)
            }
            let perObject: (AggregateOperator) -> BoundExpression = { .aggregate($0, c, value: valuePath, attribute) }
            switch op {
            case .count: return .groupAggregate(.sum, perObject(.count), weight: nil)
            case .sum: return .groupAggregate(.sum, perObject(.sum), weight: nil)
            case .min: return .groupAggregate(.min, perObject(.min), weight: nil)
            case .max: return .groupAggregate(.max, perObject(.max), weight: nil)
            case .avg: return .groupAggregate(.avg, perObject(.sum), weight: perObject(.count))
            }
        }
    }
}

extension BoundExpression {
    /// Whether the expression aggregates over a group.
    var isGroupAggregate: Bool {
        if case .groupAggregate = self { return true }
        return false
    }
}
