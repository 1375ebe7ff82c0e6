import LocalTime
import ValueText

extension Value {
    /// The value as `fetch --format csv` and the reports write it (ValueText's PlainText: numbers exactly and never
    /// with an exponent, date-times ISO 8601 in `zone` with their offset, booleans `true`/`false`, bytes `0x…`,
    /// null empty): the one text form of a stored value, which `list`, `show` and the messages that quote a stored
    /// value print. (`description` is the form `export` writes and an import reads back in any zone: date-times in
    /// UTC, booleans yes/no.)
    package func text(in zone: Zone) -> String {
        switch self {
        case .null: ""
        case .string(let s): s
        case .integer(let i): String(i)
        case .decimal(let d): PlainText.decimal(units: d.units, scale: d.scale)
        case .double(let d): PlainText.double(d)
        case .boolean(let b): PlainText.boolean(b)
        case .date(let d): PlainText.date(year: d.year, month: d.month, day: d.day)
        case .dateTime(let t): PlainText.dateTime(secondsSinceEpoch: t.secondsSinceEpoch, in: zone)
        case .binary(let data): PlainText.bytes(data)
        }
    }
}
