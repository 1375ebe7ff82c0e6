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
        case .binary: self = .text(value.text(in: .utc))
        }
    }
}

extension ColumnFormat {
    /// The format a report column of values of `type` has when its definition names none.
    public init(defaultFor type: AttributeType) {
        self = ColumnFormats.defaultFormat(for: type, isYear: false)
    }
}
