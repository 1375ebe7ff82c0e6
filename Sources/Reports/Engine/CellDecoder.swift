// From stored values to report cells, in one step per cell.
//
// Why this file exists: the store keeps decimals as integer units at their scale, booleans as 0/1 and
// dates as `YYYY-MM-DD` text (docs/model.md "How the store keeps it"). A report reads the SQL results of its
// fetch plan straight into `ReportCell`s — units stay units, dates are read from their ten bytes —
// without going through `Value` or any text, because this runs once per cell of reports with
// millions of cells. A stored value of an unexpected kind (written by another tool) is shown as it
// is rather than dropped.

import ObjectStore
import ReportRenderers

enum CellDecoder: Sendable {
    case text
    case integer
    case decimal(scale: Int)
    case double
    case boolean
    case date
    case dateTime
    case binary
    /// Decimal units at `scale` shown rounded to `shown` decimals (`format: integer` on a decimal).
    case roundedDecimal(scale: Int, shown: Int)
    /// An average (a REAL) shown as a decimal rounded to `shown` decimals.
    case roundedDouble(shown: Int)

    init(_ type: AttributeType) {
        switch type {
        case .string: self = .text
        case .integer: self = .integer
        case .decimal(let scale): self = .decimal(scale: scale)
        case .double: self = .double
        case .boolean: self = .boolean
        case .date: self = .date
        case .dateTime: self = .dateTime
        case .binary: self = .binary
        }
    }

    @inline(__always)
    func cell(_ value: StoredValue) -> ReportCell {
        switch value {
        case .null:
            return .null
        case .integer(let i):
            switch self {
            case .integer: return .integer(i)
            case .decimal(let scale): return .decimal(units: Int128(i), scale: scale)
            case .boolean: return .boolean(i != 0)
            case .double: return .double(Double(i))
            case .roundedDecimal(let scale, let shown): return ReportCell.decimal(units: Int128(i), scale: scale).rounded(toScale: shown)
            case .roundedDouble(let shown): return ReportCell.decimal(units: Int128(i), scale: 0).rounded(toScale: shown)
            case .text, .date, .dateTime, .binary: return .text(String(i))
            }
        case .real(let d):
            switch self {
            case .text: return .text(String(d))
            case .roundedDouble(let shown), .roundedDecimal(_, let shown): return ReportCell.double(d).rounded(toScale: shown)
            default: return .double(d)
            }
        case .text(let s):
            switch self {
            case .date: return CellDecoder.date(s) ?? .text(s)
            case .dateTime:
                if let t = Timestamp(iso: s) { return .dateTime(secondsSinceEpoch: t.secondsSinceEpoch) }
                return .text(s)
            default: return .text(s)
            }
        case .blob(let data):
            // A sum beyond an Int64 (WideInteger.swift), exact.
            if let wide = WideInteger.decode(blob: data) {
                switch self {
                case .integer: return .decimal(units: wide, scale: 0)
                case .decimal(let scale): return .decimal(units: wide, scale: scale)
                case .roundedDecimal(let scale, let shown): return ReportCell.decimal(units: wide, scale: scale).rounded(toScale: shown)
                default: break
                }
            }
            var hex = "0x"
            for byte in data { hex += (byte < 16 ? "0" : "") + String(byte, radix: 16) }
            return .text(hex)
        }
    }

    /// `YYYY-MM-DD` read from its bytes; nil for anything else (`Day` checks the calendar).
    @inline(__always)
    static func date(_ text: String) -> ReportCell? {
        var text = text
        return text.withUTF8 { b -> ReportCell? in
            guard b.count == 10, b[4] == 0x2D, b[7] == 0x2D else { return nil }
            func number(_ range: Range<Int>) -> Int? {
                var n = 0
                for i in range {
                    let d = Int(b[i]) - 48
                    guard d >= 0 && d <= 9 else { return nil }
                    n = n * 10 + d
                }
                return n
            }
            guard let y = number(0..<4), let m = number(5..<7), let d = number(8..<10),
                  m >= 1, m <= 12, d >= 1, d <= Day.daysInMonth(year: y, month: m), y >= 1 else { return nil }
            return .date(year: y, month: m, day: d)
        }
    }
}

extension CellDecoder: Equatable {}
