// How a cell reads as text, for each kind of output — in one place, so the text report, CSV, JSON
// and XLSX's column widths agree. The plain form of each kind of value is ValueText's PlainText, which the engine's
// `Value.text(in:)` (list, show, messages) writes too.
//
// Two forms:
// - display (text report; XLSX widths): money rounded half away from zero to 2 decimals with
//   thousands separators (`1,234.50`), decimals at their scale, percentages ×100 with `%`
//   (0.125 → `12.5%`), dates `YYYY-MM-DD`, date-times `YYYY-MM-DD HH:MM` in the document's zone,
//   booleans `yes`/`no`, null empty.
// - plain (CSV, and the text of JSON values): numbers exactly, with no grouping (`1234.50`; money
//   has at least 2 decimals and is never rounded), percentages as the fraction (`0.125`), dates
//   `YYYY-MM-DD`, date-times ISO 8601 with offset (`2026-11-21T21:00:00+00:00`), booleans
//   `true`/`false`, null empty. The decimal separator is `.` or, for excel-eu, `,`.
// In both, doubles are shown in their shortest exact form without exponent, negative zero as 0,
// NaN and infinities as `NaN`, `Infinity`, `-Infinity`. A cell of another kind than its column's
// format (text in a money column) is shown as its own kind would be; numbers in `code` and
// `text` columns are shown plain.

import Foundation
import LocalTime
import ValueText

struct CellText {
    let timeZone: Zone
    static let point = UInt8(ascii: ".")

    // MARK: Display

    func display(_ cell: ReportCell, as format: ColumnFormat) -> String {
        switch cell {
        case .null: return ""
        case let .text(text): return text
        case let .integer(value):
            return format.isNumeric ? displayNumber(DecimalText(integer: value), as: format) : String(value)
        case let .decimal(units, scale):
            let number = DecimalText(units: units, scale: scale)
            return format.isNumeric ? displayNumber(number, as: format) : number.text()
        case let .double(value):
            guard let number = DecimalText(double: value) else { return CellText.nonFinite(value) }
            return format.isNumeric ? displayNumber(number, as: format) : number.text()
        case let .date(year, month, day):
            return CalendarText.isoDate(year: year, month: month, day: day)
        case let .dateTime(seconds):
            let local = LocalDateTime(secondsSinceEpoch: seconds, timeZone: timeZone)
            return format == .date ? local.isoDate : local.minutesText
        case let .boolean(value):
            return value ? "yes" : "no"
        case let .list(items):
            return PlainText.list(items.map { display($0, as: format) })
        }
    }

    func displayNumber(_ number: DecimalText, as format: ColumnFormat) -> String {
        switch format {
        case .money: return number.rounded(toScale: 2).text(groupingSeparator: UInt8(ascii: ","))
        case .percent: return number.timesPowerOfTen(2).text() + "%"
        default: return number.text()
        }
    }

    // MARK: Plain

    func plain(_ cell: ReportCell, as format: ColumnFormat, decimalSeparator: UInt8 = CellText.point) -> String {
        let separator = format.isNumeric ? decimalSeparator : CellText.point
        switch cell {
        case .null: return ""
        case let .text(text): return text
        case let .integer(value):
            return format.isNumeric ? plainNumber(DecimalText(integer: value), as: format) : String(value)
        case let .decimal(units, scale):
            return plainNumber(DecimalText(units: units, scale: scale), as: format, decimalSeparator: separator)
        case let .double(value):
            guard let number = DecimalText(double: value) else { return CellText.nonFinite(value) }
            return plainNumber(number, as: format, decimalSeparator: separator)
        case let .date(year, month, day):
            return PlainText.date(year: year, month: month, day: day)
        case let .dateTime(seconds):
            if format == .date { return LocalDateTime(secondsSinceEpoch: seconds, timeZone: timeZone).isoDate }
            return PlainText.dateTime(secondsSinceEpoch: seconds, in: timeZone)
        case let .boolean(value):
            return PlainText.boolean(value)
        case let .list(items):
            return PlainText.list(items.map { plain($0, as: format, decimalSeparator: decimalSeparator) })
        }
    }

    func plainNumber(_ number: DecimalText, as format: ColumnFormat, decimalSeparator: UInt8 = CellText.point) -> String {
        switch format {
        case .money: return number.withMinimumScale(2).text(decimalSeparator: decimalSeparator)
        default: return number.text(decimalSeparator: decimalSeparator)
        }
    }

    static func nonFinite(_ value: Double) -> String { PlainText.nonFinite(value) }
}
