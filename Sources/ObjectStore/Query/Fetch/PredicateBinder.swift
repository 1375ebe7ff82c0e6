import Foundation
import LocalTime

// The binder: resolves the key paths of a parsed predicate against the model and gives every literal the
// type of what it is compared with. Its errors point into the predicate text and suggest close names.
//
// Decisions (also in the README's query section):
// - A string literal compared with a Date attribute is a YYYY-MM-DD date (a DateTime one, an ISO date-time);
//   no other coercion: `name == 42` and `made == 1` are type errors.
// - Integers and decimals compare exactly (at a common scale); a Double on either side, or an @avg,
//   compares in floating point.
// - A to-many key path must be quantified (ANY/SOME/ALL/NONE) or aggregated (@count, @sum, …).
// - `$NAME` comes from --param NAME=VALUE and is typed like a command-line value; `$TODAY` is today's date.

package struct PredicateBinder {
    let model: ObjectModel
    var source: PredicateSourceText
    let variables: [String: String]
    /// scope id → entity; scope 0 is the fetched entity.
    private(set) var scopes: [Entity]
    /// SUBQUERY variables visible where binding is, innermost last: name → scope id.
    private var named: [(String, Int)] = []

    package init(model: ObjectModel, entity: Entity, source: PredicateSourceText, variables: [String: String]) {
        self.model = model
        self.source = source
        self.variables = variables
        self.scopes = [entity]
    }

    func error(_ message: String, hint: String? = nil, at range: SourceRange) -> PredicateBindingError {
        PredicateBindingError(message, hint: hint, at: range.start, in: source)
    }

    private mutating func newScope(_ entity: Entity) -> Int {
        scopes.append(entity)
        return scopes.count - 1
    }

    // MARK: Predicates

    package mutating func bind(_ node: PredicateNode) throws(PredicateBindingError) -> BoundPredicate {
        switch node {
        case .constant(let value, _):
            return .constant(value)
        case .not(let inner, _):
            return .not(try bind(inner))
        case .and(let a, let b, _):
            return .and(try bind(a), try bind(b))
        case .or(let a, let b, _):
            return .or(try bind(a), try bind(b))
        case .comparison(let comparison):
            return try bind(comparison)
        }
    }

    private mutating func bind(_ c: PredicateComparison) throws(PredicateBindingError) -> BoundPredicate {
        if let quantifier = c.quantifier {
            guard case .keyPath(let path) = c.left else {
                throw error("\(quantifier.rawValue) needs a to-many key path on its left", at: c.left.range)
            }
            let resolved = try resolve(path)
            guard case .collection(let collection, let rest, let attribute) = resolved else {
                throw error("\(quantifier.rawValue) needs a to-many key path, but \"\(text(path.range))\" is not one",
                            hint: "write \(text(path.range)) \(c.operator.spelling) … without \(quantifier.rawValue)",
                            at: path.range)
            }
            let element: BoundExpression
            if let attribute {
                element = .attribute(ToOnePath(scope: collection.elementScope, hops: rest), attribute)
            } else if let last = rest.last ?? collection.hops.last {
                // `ANY tags == nil` style: compare the element (or the object at the end of its to-one path).
                element = rest.isEmpty
                    ? .reference(ToOnePath(scope: collection.elementScope, hops: []), destination: last.destination)
                    : .reference(ToOnePath(scope: collection.elementScope, hops: rest), destination: last.destination)
            } else {
                throw error("\(quantifier.rawValue) needs a to-many key path", at: path.range)
            }
            if let days = try dayComparison(left: element, leftText: text(path.range), c) {
                return .quantified(quantifier, collection, days)
            }
            let comparison = try comparison(left: element, leftRange: c.left.range, leftText: text(path.range), c)
            return .quantified(quantifier, collection, .comparison(comparison))
        }
        let left = try expression(c.left)
        if case .collectionPath(let path, let relationship) = left {
            throw unquantified(path, relationship, c)
        }
        if let days = try dayComparison(left: left.bound!, leftText: text(c.left.range), c) { return days }
        return .comparison(try comparison(left: left.bound!, leftRange: c.left.range, leftText: text(c.left.range), c))
    }

    /// A date-time compared with a date (`at >= "2024-03-01"`, `at < $TODAY`, a report's date parameter) compares
    /// with the date's local day in $TZ, from its first instant (midnight, or when the clocks skip it, the moment
    /// they do) to the next day's: `at >= D` is at ≥ start(D), `at > D` at ≥ start(D+1), `at <= D` at < start(D+1),
    /// `at < D` at < start(D), `at == D` within [start(D), start(D+1)), `!=` its negation, and `BETWEEN {D1, D2}`
    /// from start(D1) to before start(D2+1). Bound here into plain date-time comparisons, so that SQL and the
    /// in-memory evaluator agree. Nil when the comparison is no such thing.
    private mutating func dayComparison(left: BoundExpression, leftText: String,
                                        _ c: PredicateComparison) throws(PredicateBindingError) -> BoundPredicate? {
        guard left.type == .attribute(.dateTime), c.options.isEmpty else { return nil }
        func day(_ e: PredicateOperand) -> Day? {
            switch e {
            case .string(let s, _), .commandLineValue(let s, _, _): return Day(iso: s)
            case .argumentValue(.date(let d), _, _): return d
            case .keyPath(let path):
                guard let name = path.bareVariable, !isScopeVariable(name), let value = variableText(name) else { return nil }
                return Day(iso: value)
            default: return nil
            }
        }
        let zone = Zone.process
        func start(_ d: Day, plus: Int = 0) -> Int64 { zone.startOfDay(days: Int64(d.daysSinceEpoch + plus)) }
        func compare(_ op: PredicateOperator, _ t: Int64) -> BoundPredicate {
            .comparison(BoundComparison(left: left, op: op, options: [], right: .literal(.dateTime(Timestamp(secondsSinceEpoch: t))),
                                        domain: .stored))
        }
        // Held to the instants a date-time holds (no stored value lies beyond them), so that no text outside the
        // years 1 to 9999 is compared (`10000-01-01…` sorts before `9999-…`).
        func atLeast(_ t: Int64) -> BoundPredicate {
            t > Timestamp.range.upperBound ? .constant(false) : compare(.greaterThanOrEqual, max(t, Timestamp.range.lowerBound))
        }
        func before(_ t: Int64) -> BoundPredicate {
            if t > Timestamp.range.upperBound { return compare(.lessThanOrEqual, Timestamp.range.upperBound) }
            return t <= Timestamp.range.lowerBound ? .constant(false) : compare(.lessThan, t)
        }
        switch (c.operator, c.right) {
        case (.between, .aggregate(let items, _)) where items.count == 2 && (day(items[0]) != nil || day(items[1]) != nil):
            let low: BoundPredicate, high: BoundPredicate
            if let d = day(items[0]) { low = atLeast(start(d)) } else {
                low = .comparison(BoundComparison(left: left, op: .greaterThanOrEqual, options: [],
                                                  right: .literal(try literal(items[0], as: left.type, against: leftText)), domain: .stored))
            }
            if let d = day(items[1]) { high = before(start(d, plus: 1)) } else {
                high = .comparison(BoundComparison(left: left, op: .lessThanOrEqual, options: [],
                                                   right: .literal(try literal(items[1], as: left.type, against: leftText)), domain: .stored))
            }
            return .and(low, high)
        case (.greaterThanOrEqual, let right):
            return day(right).map { atLeast(start($0)) }
        case (.greaterThan, let right):
            return day(right).map { atLeast(start($0, plus: 1)) }
        case (.lessThanOrEqual, let right):
            return day(right).map { before(start($0, plus: 1)) }
        case (.lessThan, let right):
            return day(right).map { before(start($0)) }
        case (.equal, let right):
            return day(right).map { .and(atLeast(start($0)), before(start($0, plus: 1))) }
        case (.notEqual, let right):
            return day(right).map { .not(.and(atLeast(start($0)), before(start($0, plus: 1)))) }
        default:
            return nil
        }
    }

    private func unquantified(_ path: PredicateKeyPath, _ r: EntityRelationship, _ c: PredicateComparison) -> PredicateBindingError {
        var written = text(path.range)
        // `tags == "vip"` compares the elements themselves: suggest their natural key.
        if case .key(let last) = path.components.last?.kind, last == r.name || model.entity(named: r.destination)?.attribute(named: last) == nil,
           let key = model.entity(named: r.destination)?.naturalKey {
            written += ".\(key)"
        }
        return error("\"\(r.name)\" is a to-many relationship — write ANY \(written) \(c.operator.spelling) …, or \(r.name).@count",
                     at: path.range)
    }

    // MARK: Comparisons

    private mutating func comparison(left: BoundExpression, leftRange: SourceRange, leftText: String,
                                     _ c: PredicateComparison) throws(PredicateBindingError) -> BoundComparison {
        let op = c.operator
        let saved = ordering
        ordering = [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual, .between].contains(op)
        defer { ordering = saved }
        let stringOperators: Set<PredicateOperator> = [.beginsWith, .endsWith, .contains, .like, .matches]
        if stringOperators.contains(op), left.type != .attribute(.string), left.type != .null {
            throw error("\(op.spelling) needs a string, but \"\(leftText)\" is \(left.type)", at: c.operatorRange)
        }
        if case .object = left.type, ![.equal, .notEqual, .in].contains(op) {
            throw error("a relationship or SELF can only be compared with ==, != or IN (object IDs, or NULL)", at: c.operatorRange)
        }
        // The right side: a literal list for IN/BETWEEN, else one expression.
        var right: BoundExpression
        switch (op, c.right) {
        case (.between, .aggregate(let items, let range)):
            guard items.count == 2 else {
                throw error("BETWEEN needs two values, {low, high}, but got \(items.count)", at: range)
            }
            right = .list(try items.map { item throws(PredicateBindingError) in try literal(item, as: left.type, against: leftText) })
        case (.between, _):
            throw error("BETWEEN needs {low, high}", at: c.right.range)
        case (.in, .aggregate(let items, _)):
            right = .list(try items.map { item throws(PredicateBindingError) in try literal(item, as: left.type, against: leftText) })
        case (.in, .keyPath(let path)) where path.bareVariable != nil:
            let name = path.bareVariable!
            guard let value = variableText(name) else { throw unknownVariable(name, path.range) }
            let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            right = .list(try items.map { item throws(PredicateBindingError) in
                try valueOf(variable: name) { () throws(PredicateBindingError) in try typed(item, as: left.type, against: leftText, at: path.range) }
            })
        case (.in, .commandLineValue(let value, _, let range)):
            let items = value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            right = .list(try items.map { item throws(PredicateBindingError) in
                try typed(item, as: left.type, against: leftText, at: range)
            })
        case (.in, .keyPath(let path)) where isLiteral(c.left):
            // `'Customer/2' IN customer`: a reference is one object, not a list to look in.
            if case .expression(let bound)? = try? expression(c.right), case .object = bound.type {
                throw error("IN needs a list of values on its right, but \"\(text(path.range))\" is \(bound.type)",
                            hint: "write \(text(path.range)) == \(text(c.left.range))", at: c.right.range)
            }
            throw error("IN needs a list of values, {a, b, c}", hint: "for a to-many key path write ANY path == value",
                        at: c.right.range)
        case (.in, _):
            throw error("IN needs a list of values, {a, b, c}", hint: "for a to-many key path write ANY path == value",
                        at: c.right.range)
        default:
            if isLiteral(c.right) {
                right = .literal(try literal(c.right, as: left.type, against: leftText))
            } else {
                let bound = try expression(c.right)
                if case .collectionPath(let path, let r) = bound { throw unquantified(path, r, c) }
                right = bound.bound!
            }
        }
        // A literal on the left (`5 < rows.@count`) takes the type of the right side.
        var left = left
        if c.quantifier == nil, isLiteral(c.left), !isLiteral(c.right) {
            left = .literal(try literal(c.left, as: right.type, against: text(c.right.range)))
            // An object ID on the left (`'Customer/2' == customer`, `%@ == SELF`) is the same comparison written the
            // other way round: bound as `customer == 'Customer/2'`, so it compiles to the same SQL. (It was refused,
            // the ID already a row number: `cannot compare "'Customer/2'" (Integer) with "customer"`.)
            if case .object = right.type {
                let domain = try self.domain(right, left, op: op, options: c.options, leftText: text(c.right.range),
                                             rightRange: c.left.range, operatorRange: c.operatorRange)
                return BoundComparison(left: right, op: op, options: c.options, right: left, domain: domain)
            }
        }
        let domain = try self.domain(left, right, op: op, options: c.options, leftText: leftText,
                                     rightRange: c.right.range, operatorRange: c.operatorRange)
        if op == .matches, case .literal(.string(let pattern)) = right {
            do {
                try TextRegex.validate(pattern, caseInsensitive: c.options.contains(.caseInsensitive))
            } catch {
                // `name MATCHES $re`: the pattern is the variable's value, so the mistake is that value's
                // (`report --param re='(['` is a usage error naming --param re, as a value of the wrong type is).
                var invalid = self.error("\(error)", at: c.right.range)
                if case .keyPath(let path) = c.right, let name = path.bareVariable, !isScopeVariable(name) { invalid.variable = name }
                throw invalid
            }
        }
        return BoundComparison(left: left, op: op, options: c.options, right: right, domain: domain)
    }

    private func domain(_ left: BoundExpression, _ right: BoundExpression, op: PredicateOperator,
                        options: PredicateStringOptions, leftText: String, rightRange: SourceRange,
                        operatorRange: SourceRange) throws(PredicateBindingError) -> ComparisonDomain {
        let lt = left.type
        var rt = right.type
        // A list's numbers may have different scales: compare at the widest.
        if case .list(let values) = right {
            let scales = values.compactMap { v -> Int? in if case .decimal(let d) = v { d.scale } else { nil } }
            if let widest = scales.max(), rt.isNumeric, rt != .attribute(.double) { rt = .attribute(.decimal(scale: widest)) }
        }
        let stringOperators: Set<PredicateOperator> = [.beginsWith, .endsWith, .contains, .like, .matches]
        if stringOperators.contains(op) {
            for (t, name) in [(lt, leftText), (rt, text(rightRange))] where t != .attribute(.string) && t != .null {
                throw error("\(op.spelling) needs a string, but \"\(name)\" is \(t)", at: operatorRange)
            }
            return .text
        }
        if !options.isEmpty {
            for (t, name) in [(lt, leftText), (rt, text(rightRange))] where t != .attribute(.string) && t != .null {
                throw error("\(options.spelling) applies to strings, but \"\(name)\" is \(t)", at: operatorRange)
            }
        }
        if lt == .null || rt == .null {
            let t = lt == .null ? rt : lt
            return domain(of: t, and: t)
        }
        // A reference compared with literals: object IDs, bound to row numbers (`objectID`; every other literal is
        // refused for a reference before this).
        var objectLiterals = false
        if case .object = lt {
            switch right {
            case .literal, .list: objectLiterals = true
            default: break
            }
        }
        guard objectLiterals || compatible(lt, rt) else {
            throw error("cannot compare \"\(leftText)\" (\(lt)) with \"\(text(rightRange))\" (\(rt))", at: operatorRange)
        }
        if case .object = lt, ![.equal, .notEqual, .in].contains(op) {
            throw error("a relationship or SELF can only be compared with ==, != or IN (object IDs, or NULL)", at: operatorRange)
        }
        return domain(of: lt, and: rt)
    }

    private func domain(of a: ExpressionType, and b: ExpressionType) -> ComparisonDomain {
        switch (a, b) {
        case (.attribute(.string), _): return .text
        case (.attribute(.double), _), (_, .attribute(.double)): return a.isNumeric || b.isNumeric ? .real : .stored
        case (.attribute(let x), .attribute(let y)) where a.isNumeric && b.isNumeric:
            return .exact(scale: max(Self.scale(x), Self.scale(y)))
        case (.attribute(let x), .null) where a.isNumeric:
            return .exact(scale: Self.scale(x))
        default: return .stored
        }
    }

    static func scale(_ t: AttributeType) -> Int {
        if case .decimal(let s) = t { return s }
        return 0
    }

    private func compatible(_ a: ExpressionType, _ b: ExpressionType) -> Bool {
        if a.isNumeric && b.isNumeric { return true }
        switch (a, b) {
        case (.attribute(let x), .attribute(let y)): return x == y
        case (.object(let x), .object(let y)): return x == y
        default: return false
        }
    }

    // MARK: Literals

    private func isLiteral(_ e: PredicateOperand) -> Bool {
        switch e {
        case .string, .number, .boolean, .null, .commandLineValue, .argumentValue: return true
        case .keyPath(let path): return path.bareVariable.map { !isScopeVariable($0) } ?? false
        default: return false
        }
    }

    private func isScopeVariable(_ name: String) -> Bool { named.contains { $0.0 == name } }

    private func variableText(_ name: String) -> String? {
        if let v = variables[name] { return v }
        if name.uppercased() == "TODAY" { return Day.current().description }
        return nil
    }

    private func unknownVariable(_ name: String, _ range: SourceRange) -> PredicateBindingError {
        var unknown = error("unknown variable $\(name)", hint: NextStep.giveVariable(name: name).description, at: range)
        unknown.fact = .unknownVariable(name: name)
        return unknown
    }

    /// A literal expression as a value of `type` (or of its own type when `type` is NULL).
    private func literal(_ e: PredicateOperand, as type: ExpressionType, against other: String) throws(PredicateBindingError) -> Value {
        switch e {
        case .null:
            return .null
        case .boolean(let b, let range):
            guard type == .attribute(.boolean) || type == .null else { throw mismatch(other, type, "\(b ? "YES" : "NO") is a boolean", range) }
            return .boolean(b)
        case .number(let n, let range):
            switch type {
            case .attribute(.boolean):
                return try boolean(number: n.text, against: other, at: range)
            case .null, .attribute(.integer), .attribute(.decimal):
                if n.isInteger, let i = Int64(n.text) { return .integer(i) }
                guard let d = DecimalNumber(exactly: n.text) else { throw error("\(n.text) is too large", at: range) }
                return .decimal(d)
            case .attribute(.double):
                return .double(Double(n.text)!)
            default:
                throw mismatch(other, type, "\(n.text) is a number", range)
            }
        case .string(let s, let range):
            switch type {
            case .null, .attribute(.string): return try text(s, at: range)
            case .attribute(.date), .attribute(.dateTime):
                return try typed(s, as: type, against: other, at: range)
            case .object(let destination): return try objectID(s, of: destination, against: other, at: range)
            default: throw mismatch(other, type, "\"\(s)\" is a string", range)
            }
        case .commandLineValue(let s, _, let range):
            return try typed(s, as: type, against: other, at: range)
        case .argumentValue(let v, let ordinal, let range):
            return try typedArgument(v, ordinal: ordinal, as: type, against: other, at: range)
        case .keyPath(let path):
            // In a list ({0, Int}) a key path is not a value (found by the predicate fuzzer: this was a crash).
            guard let name = path.bareVariable else {
                throw error("expected a value, found the key path \"\(text(path.range))\"; a list holds values and $variables", at: path.range)
            }
            guard let value = variableText(name) else { throw unknownVariable(name, path.range) }
            return try valueOf(variable: name) { () throws(PredicateBindingError) in try typed(value, as: type, against: other, at: path.range) }
        default:
            throw error("expected a value", at: e.range)
        }
    }

    /// `body`'s value of variable `name`; an error in it is marked as the variable's (`PredicateBindingError.variable`).
    private func valueOf(variable name: String, _ body: () throws(PredicateBindingError) -> Value) throws(PredicateBindingError) -> Value {
        do {
            return try body()
        } catch {
            var marked = error
            marked.variable = name
            throw marked
        }
    }

    /// A string value. SQLite's C interface, as GRDB uses it, ends text at a NUL, so a NUL would make SQL and the
    /// in-memory evaluator disagree (found by the predicate fuzzer): refused.
    private func text(_ s: String, at range: SourceRange) throws(PredicateBindingError) -> Value {
        if s.utf8.contains(0) { throw error("\(String(reflecting: s)) \(Value.nulReason)", at: range) }
        if let run = TextNormalForm.overlongMarkRun(s) { throw error("the text " + TextNormalForm.overlongMarkRunReason(run), at: range) }
        return .string(s)
    }

    /// Text from the command line (`--arg`, `--param`) as a value of the type it is compared with.
    private func typed(_ text: String, as type: ExpressionType, against other: String, at range: SourceRange) throws(PredicateBindingError) -> Value {
        switch type {
        case .null, .attribute(.string): return try self.text(text, at: range)
        case .attribute(.integer), .attribute(.decimal):
            if let i = Int64(text) { return .integer(i) }
            if let d = DecimalNumber(exactly: text) { return .decimal(d) }
            throw error("\"\(text)\" is not a number, but \"\(other)\" is \(type)", at: range)
        case .attribute(.boolean) where Self.isNumber(text):
            // `--arg 2`, `--param paid=0.0`: as a number written in the predicate (found by the attack on 0.6.0).
            return try boolean(number: text, against: other, at: range)
        case .attribute(let t):
            do {
                return try Value.parse(text, as: t)
            } catch {
                // A date-time written as one but not one here (a time the clocks skip, an impossible offset, past
                // year 9999) is wrong in itself: "but at is DateTime" would suggest it is of the wrong type.
                if t == .dateTime, Timestamp.scan(text) != .malformed { throw self.error(error.message, at: range) }
                throw self.error("\(error.message), but \"\(other)\" is \(t)", at: range)
            }
        case .object(let destination):
            return try objectID(text, of: destination, against: other, at: range)
        }
    }

    /// A typed `%@` argument (a library caller's): of the type it is compared with, as a literal written in the
    /// predicate must be — a number compares with any number (converted as its text would be), a day with a
    /// date-time (the whole day, bound before this), a string with a reference when it is an object ID.
    private func typedArgument(_ value: Value, ordinal: Int, as type: ExpressionType, against other: String,
                               at range: SourceRange) throws(PredicateBindingError) -> Value {
        switch (value, type) {
        case (.null, _):
            return .null
        case (.string(let s), .null), (.string(let s), .attribute(.string)):
            return try text(s, at: range)
        case (_, .null), (.boolean, .attribute(.boolean)), (.date, .attribute(.date)), (.dateTime, .attribute(.dateTime)),
             (.binary, .attribute(.binary)), (.integer, .attribute(.integer)), (.integer, .attribute(.decimal)),
             (.decimal, .attribute(.integer)), (.decimal, .attribute(.decimal)):
            // An instant outside the years 1 to 9999 compares wrongly with the stored text (attack 18, finding 2).
            if case .dateTime(let t) = value, !Timestamp.range.contains(t.secondsSinceEpoch) {
                throw error("argument \(ordinal) is \(value.kindPhrase), which \(Timestamp.outsideRangeReason)", at: range)
            }
            return value
        case (.integer, .attribute(.double)), (.decimal, .attribute(.double)), (.double, .attribute(.double)),
             (.double, .attribute(.integer)), (.double, .attribute(.decimal)), (.date, .attribute(.dateTime)):
            if case .double(let d) = value, !d.isFinite {
                throw error("argument \(ordinal) is \(value.kindPhrase), which the store cannot hold", at: range)
            }
            return try typed(value.description, as: type, against: other, at: range)
        case (.string(let s), .object(let destination)):
            return try objectID(s, of: destination, against: other, at: range)
        default:
            throw mismatch(other, type, "argument \(ordinal) is \(value.kindPhrase)", range)
        }
    }

    /// An object ID (`Customer/17`) compared with a reference to `destination` (`customer == %@`, `SELF IN %@`): its
    /// row number, which is what the reference is in the store and in the evaluator.
    private func objectID(_ text: String, of destination: String, against other: String, at range: SourceRange) throws(PredicateBindingError) -> Value {
        guard let id = ObjectID(text) else {
            throw error("\"\(other)\" is a reference to \(destination), but \(String(reflecting: text)) is not an object ID",
                        hint: "give one such as \(destination)/17, or compare one of its keys, e.g. \(other == "SELF" ? "" : other + ".")name", at: range)
        }
        if let misspelt = model.misspeltEntity(in: id) { throw error(misspelt, at: range) }
        guard model.entity(named: id.entity) != nil else {
            throw error("there is no entity \"\(id.entity)\" in the object ID \(id), but \"\(other)\" is a reference to \(destination)", at: range)
        }
        guard id.entity == destination else {
            throw error("\(id) is \(article(id.entity)) \(id.entity), but \"\(other)\" is a reference to \(destination)", at: range)
        }
        return .integer(id.rowID)
    }

    /// A number compared with a Boolean, written in the predicate or given with `--arg`/`--param`. NSPredicate
    /// compares a Boolean as the NSNumber it is: `made == 1`, `paid == 0`; any number but zero is true, as the issue
    /// asks and as a C programmer reads it.
    private func boolean(number text: String, against other: String, at range: SourceRange) throws(PredicateBindingError) -> Value {
        guard let d = Double(text), d.isFinite else { throw error("\(text) is too large", at: range) }
        // Ordered, only 1 and 0 mean YES and NO either way: `made < 2` read as `made < YES` answered the 7 orders not
        // made where the number 2 is above every Boolean (found by the attack on 0.6.0 before it landed).
        if ordering && d != 0 && d != 1 {
            throw error("\"\(other)\" is Boolean, ordered only against YES, NO, 1 or 0, but \(text) is another number", at: range)
        }
        return .boolean(d != 0)
    }

    /// Whether the comparison being bound orders its sides (`<`, `<=`, `>`, `>=`, BETWEEN).
    private var ordering = false

    /// Whether `text` is written as a decimal number (`2`, `-0`, `0.0`, `1e3`), not a word Double also reads (`nan`, `inf`).
    static func isNumber(_ text: String) -> Bool {
        guard let first = text.utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") || first == UInt8(ascii: ".")
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else { return false }
        return text.utf8.allSatisfy { ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || "+-.eE".utf8.contains($0) } && Double(text) != nil
    }

    private func article(_ word: String) -> String { "AEIOU".contains(word.first ?? "x") ? "an" : "a" }

    private func mismatch(_ other: String, _ type: ExpressionType, _ what: String, _ range: SourceRange) -> PredicateBindingError {
        error("\"\(other)\" is \(type), but \(what)", at: range)
    }

    // MARK: Key paths

    /// What a key path names.
    enum Resolved {
        case scalar(BoundExpression)
        /// A path through at least one to-many relationship, not aggregated; then to-one hops and maybe an attribute.
        case collection(BoundCollection, rest: [EntityRelationship], attribute: EntityAttribute?)
    }

    /// An expression on one side of a comparison, or the to-many path that must be quantified.
    enum SideExpression {
        case expression(BoundExpression)
        case collectionPath(PredicateKeyPath, EntityRelationship)

        var bound: BoundExpression? { if case .expression(let e) = self { e } else { nil } }
    }

    private mutating func expression(_ e: PredicateOperand) throws(PredicateBindingError) -> SideExpression {
        switch e {
        case .keyPath(let path) where isLiteral(e) && path.bareVariable.flatMap(variableText) != nil:
            // `$c == SELF`, `$n == name`: a $variable is a value on either side, as a literal or `%@` is (it was
            // refused on the left: "$c is a value, not a key path"); `comparison` then types it by the other side.
            return .expression(.literal(try literal(e, as: .null, against: text(e.range))))
        case .keyPath(let path):
            switch try resolve(path) {
            case .scalar(let bound): return .expression(bound)
            case .collection(let c, _, _):
                let firstToMany = c.hops.first { $0.isToMany }!
                return .collectionPath(path, firstToMany)
            }
        case .aggregate(_, let range):
            throw error("a list {…} can only follow IN or BETWEEN", at: range)
        case .valuePlaceholder(let n, let range), .keyPathPlaceholder(let n, let range):
            var missing = error("placeholder \(n) has no argument", hint: NextStep.giveArgumentPerPlaceholder.description, at: range)
            missing.fact = .missingArgument(number: n)
            throw missing
        default:
            // Two literals compared with each other: each keeps its own type.
            return .expression(.literal(try literal(e, as: .null, against: text(e.range))))
        }
    }

    /// Resolves a key path: to-one hops to an attribute or object, a collection, or an aggregate.
    mutating func resolve(_ path: PredicateKeyPath) throws(PredicateBindingError) -> Resolved {
        var scope: Int
        var components = path.components[...]
        switch path.root {
        case .object:
            scope = 0
            // SELF, as NSPredicate writes the object itself (`SELF == %@`, `SELF IN %@`, `SELF.name`), unless the
            // entity has a key of that name.
            if let first = components.first, case .key(let name) = first.kind, name.uppercased() == "SELF",
               scopes[0].attribute(named: name) == nil, scopes[0].relationship(named: name) == nil {
                components.removeFirst()
            }
        case .variable(let name, let range):
            guard let found = named.last(where: { $0.0 == name }) else {
                if components.isEmpty, variableText(name) != nil {
                    throw error("$\(name) is a value, not a key path", at: range)
                }
                throw unknownVariable(name, range)
            }
            scope = found.1
        case .subquery(let subquery):
            let collection = try bindSubquery(subquery)
            guard let first = components.first, case .collectionOperator(let op) = first.kind, op == .count, components.count == 1 else {
                throw error("a SUBQUERY is used through .@count, as in SUBQUERY(…).@count > 0", at: subquery.range)
            }
            return .scalar(.aggregate(.count, collection, value: nil, nil))
        }
        var entity = scopes[scope]
        var hops: [EntityRelationship] = []
        while let component = components.popFirst() {
            switch component.kind {
            case .key(let name):
                if let attribute = entity.attribute(named: name) {
                    if let next = components.first, case .collectionOperator(let op) = next.kind {
                        throw error("\(op.spelling) applies to a to-many relationship; \"\(name)\" is an attribute of \(entity.name)", at: next.range)
                    }
                    if let next = components.first {
                        throw error("\"\(name)\" is an attribute of \(entity.name); it has no key \"\(self.text(next.range).trimmingCharacters(in: CharacterSet(charactersIn: ".")))\"", at: next.range)
                    }
                    return finish(scope: scope, hops: hops, attribute: attribute)
                }
                guard let r = entity.relationship(named: name) else {
                    let suggestion = Suggestions.closest(to: name, in: entity.propertyNames)
                    throw error("unknown key \"\(name)\" on \(entity.name)\(Suggestions.didYouMean(suggestion))", at: component.range)
                }
                hops.append(r)
                entity = model.entity(named: r.destination)!
            case .collectionOperator(let op):
                guard hops.contains(where: \.isToMany) else {
                    let what = hops.last.map { "\"\($0.name)\" is to-one" } ?? "it needs a to-many key path before it"
                    throw error("\(op.spelling) applies to a to-many relationship; \(what)", at: component.range)
                }
                let collection = makeCollection(scope: scope, hops: hops)
                if op == .count {
                    if let next = components.first { throw error("nothing may follow @count", at: next.range) }
                    return .scalar(.aggregate(.count, collection, value: nil, nil))
                }
                // The rest is a to-one path to an attribute of the element.
                var elementEntity = model.entity(named: collection.elementEntity)!
                var rest: [EntityRelationship] = []
                while let c = components.popFirst() {
                    guard case .key(let name) = c.kind else {
                        throw error("\(op.spelling) needs a key after it, as in rows.\(op.spelling).sum", at: c.range)
                    }
                    if let a = elementEntity.attribute(named: name) {
                        if let next = components.first { throw error("\"\(name)\" is an attribute; nothing may follow it", at: next.range) }
                        switch (op, a.type) {
                        case (.sum, .integer), (.sum, .decimal), (.sum, .double), (.avg, .integer), (.avg, .decimal), (.avg, .double),
                             (.min, _), (.max, _):
                            break
                        default:
                            throw error("\(op.spelling) needs a number, but \"\(name)\" is \(a.type)", at: c.range)
                        }
                        let aggregate = AggregateOperator(rawValue: op.rawValue)!
                        return .scalar(.aggregate(aggregate, collection, value: ToOnePath(scope: collection.elementScope, hops: rest), a))
                    }
                    guard let r = elementEntity.relationship(named: name), !r.isToMany else {
                        if elementEntity.relationship(named: name) != nil {
                            throw error("\(op.spelling) takes one to-many path; \"\(name)\" is another to-many relationship", hint: "write \(op.spelling) after the last to-many key", at: c.range)
                        }
                        let suggestion = Suggestions.closest(to: name, in: elementEntity.propertyNames)
                        throw error("unknown key \"\(name)\" on \(elementEntity.name)\(Suggestions.didYouMean(suggestion))", at: c.range)
                    }
                    rest.append(r)
                    elementEntity = model.entity(named: r.destination)!
                }
                throw error("\(op.spelling) needs an attribute after it, as in rows.\(op.spelling).sum", at: component.range)
            }
        }
        return finish(scope: scope, hops: hops, attribute: nil)
    }

    private mutating func finish(scope: Int, hops: [EntityRelationship], attribute: EntityAttribute?) -> Resolved {
        guard let lastToMany = hops.lastIndex(where: \.isToMany) else {
            if let attribute { return .scalar(.attribute(ToOnePath(scope: scope, hops: hops), attribute)) }
            return .scalar(.reference(ToOnePath(scope: scope, hops: hops), destination: hops.last?.destination ?? scopes[scope].name))
        }
        let collection = makeCollection(scope: scope, hops: Array(hops[...lastToMany]))
        return .collection(collection, rest: Array(hops[(lastToMany + 1)...]), attribute: attribute)
    }

    private mutating func makeCollection(scope: Int, hops: [EntityRelationship], filter: BoundPredicate? = nil) -> BoundCollection {
        let element = model.entity(named: hops.last!.destination)!
        return BoundCollection(scope: scope, hops: hops, elementEntity: element.name, elementScope: newScope(element), filter: filter)
    }

    private mutating func bindSubquery(_ s: PredicateSubquery) throws(PredicateBindingError) -> BoundCollection {
        guard case .keyPath(let path) = s.collection else {
            throw error("SUBQUERY needs a to-many key path first", at: s.collection.range)
        }
        guard case .collection(var collection, let rest, let attribute) = try resolve(path), rest.isEmpty, attribute == nil else {
            throw error("SUBQUERY needs a to-many key path first, such as rows", at: path.range)
        }
        named.append((s.variable, collection.elementScope))
        defer { named.removeLast() }
        collection.filter = try bind(s.predicate)
        return collection
    }

    func text(_ range: SourceRange) -> String { String(source.text(in: range)) }
}
