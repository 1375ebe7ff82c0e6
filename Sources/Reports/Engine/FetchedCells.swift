// `bookkeeper fetch` writes its values by the renderers' rules (ReportRenderers' CellFormatter), so a
// decimal, date, boolean or null reads the same in a fetch as in a report; here is how a fetched `Value`
// becomes a cell, and which format a column of a value type gets (a report column's default).

import ObjectStore
import ReportRenderers

extension ReportCell {
    /// The cell a report would show for `value`.
    public init(_ value: Value) {
        switch value {
        case .null: self = .null
        case .string(let s): self = .text(s)
        case .integer(let i): self = .integer(i)
        case .decimal(let d): self = .decimal(units: d.units, scale: d.scale)
        case .double(let d): self = .double(d)
        case .boolean(let b): self = .boolean(b)
        case .date(let d): self = .date(year: d.year, month: d.month, day: d.day)
        case .dateTime(let t): self = .dateTime(secondsSinceEpoch: t.secondsSinceEpoch)
        case .binary: self = .text(value.description)
        }
    }
}

extension ColumnFormat {
    /// The format a report column of values of `type` has when its definition names none.
    public init(defaultFor type: AttributeType) {
        self = ColumnFormats.defaultFormat(for: type, isYear: false)
    }
}

extension CellFormatter {
    /// A value of an attribute of `type` as `fetch --format csv` writes it: the one text form of a stored value for
    /// `list` and `show` too (numbers exactly and never with an exponent, date-times ISO 8601 in the run's zone with
    /// their offset, booleans `true`/`false`, binary `0x…` hex, null empty).
    public func plain(_ value: Value, of type: AttributeType) -> String {
        plain(ReportCell(value), as: ColumnFormat(defaultFor: type))
    }
}
