// The bound form of a predicate: every key path resolved against the model, every literal given the type
// of what it is compared with. The SQL compiler and the in-memory evaluator both read this tree, so they
// cannot disagree about what a predicate means — only about how they compute it, which the differential
// tests check.

/// A path of to-one relationships from a scope: the fetched object (scope 0) or a collection element.
package struct ToOnePath: Hashable, Sendable {
    package var scope: Int
    package var hops: [EntityRelationship]
}

/// The elements reached from a scope through relationships of which at least one is to-many,
/// optionally filtered (SUBQUERY). Elements are bound to `elementScope`.
package struct BoundCollection: Hashable, Sendable {
    package var scope: Int
    package var hops: [EntityRelationship]
    package var elementEntity: String
    package var elementScope: Int
    package var filter: BoundPredicate?
}

package enum AggregateOperator: String, Hashable, Sendable {
    case count, sum, avg, min, max
}

/// The type of a bound expression's values.
package enum ExpressionType: Hashable, Sendable, CustomStringConvertible {
    case attribute(AttributeType)
    /// A to-one reference to an object of this entity.
    case object(String)
    /// The literal NULL.
    case null

    package var description: String {
        switch self {
        case .attribute(let t): t.description
        case .object(let e): "a reference to \(e)"
        case .null: "NULL"
        }
    }

    var isNumeric: Bool {
        switch self {
        case .attribute(.integer), .attribute(.decimal), .attribute(.double): true
        default: false
        }
    }
}

package indirect enum BoundExpression: Hashable, Sendable {
    /// A typed constant (`.null` for NULL).
    case literal(Value)
    /// `{a, b}` on the right of IN or BETWEEN.
    case list([Value])
    /// `customer.name`: an attribute at the end of a to-one path.
    case attribute(ToOnePath, EntityAttribute)
    /// `customer`: the object at the end of a non-empty to-one path (compared with NULL).
    case reference(ToOnePath, destination: String)
    /// `rows.@sum.sum`, `tags.@count`, `SUBQUERY(...).@count`.
    case aggregate(AggregateOperator, BoundCollection, value: ToOnePath?, EntityAttribute?)
    /// `tags.name` as a fetched column: the stored values of every element in one text (`StoredValue.listText`),
    /// which `fetch` and reports write each as a value of the attribute, in a list.
    case values(BoundCollection, ToOnePath, EntityAttribute)
    /// `month(date)` (`YYYY-MM` text), `quarter(date)` (`YYYY-Qn`), `week(date)` (ISO 8601: `YYYY-Www`) or
    /// `year(date)` (an integer) of a date or date-time expression.
    case period(PeriodUnit, BoundExpression)
    /// An aggregate over the objects of a group (grouped fetches only): `count`, `sum:rows.sum`.
    /// `weight`, for an average over a to-many path, is the per-object element count to divide by.
    case groupAggregate(AggregateOperator, BoundExpression?, weight: BoundExpression?)

    package var type: ExpressionType {
        switch self {
        case .literal(let v): v.attributeType.map(ExpressionType.attribute) ?? .null
        case .list(let values): values.first(where: { !$0.isNull })?.attributeType.map(ExpressionType.attribute) ?? .null
        case .attribute(_, let a): .attribute(a.type)
        case .reference(_, let d): .object(d)
        case .aggregate(let op, _, _, let a):
            switch op {
            case .count: .attribute(.integer)
            case .avg: .attribute(.double)
            case .sum, .min, .max: .attribute(a!.type)
            }
        case .values: .attribute(.string)
        case .period(let unit, _): unit == .year ? .attribute(.integer) : .attribute(.string)
        case .groupAggregate(let op, let e, _):
            switch op {
            case .count: .attribute(.integer)
            case .avg: .attribute(.double)
            case .sum, .min, .max: e?.type ?? .attribute(.integer)
            }
        }
    }
}

/// How two sides are compared, decided by the binder from their types.
package enum ComparisonDomain: Hashable, Sendable {
    /// Integers and decimals, exactly, at a common scale.
    case exact(scale: Int)
    /// Floating point (a double on either side, or an average).
    case real
    /// Text: binary (UTF-8 byte order) unless string options are given.
    case text
    /// Booleans, dates, date-times, binary and references compare as stored.
    case stored
}

package struct BoundComparison: Hashable, Sendable {
    package var left: BoundExpression
    package var op: PredicateOperator
    package var options: PredicateStringOptions
    package var right: BoundExpression
    package var domain: ComparisonDomain
}

package indirect enum BoundPredicate: Hashable, Sendable {
    case constant(Bool)
    case not(BoundPredicate)
    case and(BoundPredicate, BoundPredicate)
    case or(BoundPredicate, BoundPredicate)
    case comparison(BoundComparison)
    /// `ANY`/`ALL`/`NONE` over a collection; the predicate is about one element (the collection's element scope).
    case quantified(PredicateQuantifier, BoundCollection, BoundPredicate)
}

extension Value {
    /// The attribute type a value naturally has (decimals at their own scale); nil for null.
    var attributeType: AttributeType? {
        switch self {
        case .null: nil
        case .string: .string
        case .integer: .integer
        case .decimal(let d): .decimal(scale: d.scale)
        case .double: .double
        case .boolean: .boolean
        case .date: .date
        case .dateTime: .dateTime
        case .binary: .binary
        }
    }
}

/// Calendar periods a date can be grouped by.
package enum PeriodUnit: String, Hashable, Sendable, CaseIterable {
    case month, quarter, week, year
}

extension BoundPredicate {
    /// The AND of `parts` (nil for none), grouped as a balanced tree, so that many parts neither nest deeply
    /// in the recursive passes nor exceed SQLite's expression depth.
    package static func all(_ parts: [BoundPredicate]) -> BoundPredicate? {
        guard !parts.isEmpty else { return nil }
        func build(_ slice: ArraySlice<BoundPredicate>) -> BoundPredicate {
            if slice.count == 1 { return slice.first! }
            let middle = slice.startIndex + (slice.count + 1) / 2
            return .and(build(slice[..<middle]), build(slice[middle...]))
        }
        return build(parts[...])
    }
}
