// One value of a report row.
//
// Why this file exists: renderers know nothing of the store or the domain; a report definition
// turns its values into these cells, and each renderer shows them as its format wants. Decimals
// travel as integer units at a scale (`125.50` is `units: 12550, scale: 2`), so money never passes
// through floating point on its way to a file.

import ValueText

/// A value in a report row.
package enum ReportCell: Sendable, Hashable {
    case null
    case text(String)
    case integer(Int64)
    /// `units × 10^-scale`; `decimal(units: 12550, scale: 2)` is 125.50. An Int128: a stored value fits an
    /// Int64, but a sum of them may not, and it must reach the renderers exact.
    case decimal(units: Int128, scale: Int)
    case double(Double)
    /// A calendar date, with no time zone.
    case date(year: Int, month: Int, day: Int)
    /// An instant, shown in the document's time zone.
    case dateTime(secondsSinceEpoch: Int64)
    case boolean(Bool)
    /// The items of a to-many column (`tags.name`, `customers.at`), each shown as a cell of its own kind would be in
    /// the same column: joined as a list in text and CSV (`"x, y", z`: PlainText.list), an array in JSON.
    case list([ReportCell])
}

extension ReportCell {
    /// Text or a list: what a CSV neutralizes when it begins like a formula.
    var isTextLike: Bool {
        switch self {
        case .text, .list: true
        default: false
        }
    }

    /// A number rounded half away from zero to `scale` decimals, as a decimal (a list's items each): a report shows an average at the
    /// scale of what it averages, and `format: integer` as a whole number. A double goes through its shortest
    /// form; one beyond 38 digits, like every other cell, stays as it is.
    package func rounded(toScale scale: Int) -> ReportCell {
        let scale = max(scale, 0)
        switch self {
        case let .decimal(units, current) where current > scale:
            let shift = current - scale
            guard shift <= 38 else { return .decimal(units: 0, scale: scale) }
            var power: Int128 = 1
            for _ in 0..<shift { power *= 10 }
            var (quotient, remainder) = units.quotientAndRemainder(dividingBy: power)
            if remainder.magnitude >= (power.magnitude + 1) / 2 { quotient += units < 0 ? -1 : 1 }
            return .decimal(units: quotient, scale: scale)
        case let .double(value):
            guard let text = DecimalText(double: value)?.rounded(toScale: scale), let units = text.units else { return self }
            return .decimal(units: units, scale: scale)
        case let .list(items):
            return .list(items.map { $0.rounded(toScale: scale) })
        default:
            return self
        }
    }
}
