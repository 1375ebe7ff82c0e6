// How a column is shown: chosen from its value type unless the definition says `format:`, and a
// format the values cannot have (`money` for a name) is an error in the definition.
//
//     value type          default format   formats it may ask for
//     String              text             text, code
//     Integer             integer          integer, number, money, percent, code, text
//     Decimal(n)          number           number, money, integer, percent, code, text
//     Double (avg:…)      number           number, money, integer, percent, code, text
//     Boolean             boolean          boolean, text
//     Date                date             date, text, code
//     DateTime            dateTime         dateTime, date, text, code
//
// Month, quarter and week periods are text (`2026-03`, `2026-Q1`, `2026-W09`); a year period is an integer,
// shown as `code` by default so that 2026 is not written `2,026` nor summed. (XLSX writes every period as a date:
// ReportColumn.period.)

import ObjectStore
import ReportRenderers

enum ColumnFormats {
    /// The format for values of `type` when the definition does not say.
    static func defaultFormat(for type: AttributeType, isYear: Bool) -> ColumnFormat {
        if isYear { return .code }
        switch type {
        case .string, .binary: return .text
        case .integer: return .integer
        case .decimal, .double: return .number
        case .boolean: return .boolean
        case .date: return .date
        case .dateTime: return .dateTime
        }
    }

    /// The format named `name` (as the definition writes it: `money`, `datetime`).
    static func format(named name: String) -> ColumnFormat? {
        ColumnFormat(rawValue: name) ?? ColumnFormat.allCases.first { $0.rawValue.lowercased() == name.lowercased() }
    }

    /// Whether values of `type` can be shown as `format`.
    static func fits(_ format: ColumnFormat, _ type: AttributeType) -> Bool {
        switch format {
        case .text, .code: return true
        case .integer, .number, .money, .percent:
            switch type {
            case .integer, .decimal, .double: return true
            default: return false
            }
        case .boolean: return type == .boolean
        case .date: return type == .date || type == .dateTime
        case .dateTime: return type == .dateTime
        }
    }

    /// What values of a format are, for messages: `money needs a number`.
    static func needs(_ format: ColumnFormat) -> String {
        switch format {
        case .integer, .number, .money, .percent: return "a number"
        case .boolean: return "a boolean"
        case .date: return "a date"
        case .dateTime: return "a date-time"
        case .text, .code: return "any value"
        }
    }

    /// Whether a format's values can be summed in totals.
    static func isNumeric(_ format: ColumnFormat) -> Bool {
        switch format {
        case .integer, .number, .money, .percent: return true
        default: return false
        }
    }
}
