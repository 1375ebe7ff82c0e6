// One value of a report row.
//
// Why this file exists: renderers know nothing of the store or the domain; a report definition
// turns its values into these cells, and each renderer shows them as its format wants. Decimals
// travel as integer units at a scale (`125.50` is `units: 12550, scale: 2`), so money never passes
// through floating point on its way to a file.

/// A value in a report row.
public enum ReportCell: Sendable, Hashable {
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
}
