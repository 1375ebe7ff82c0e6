// The common cells as UTF-8 bytes, without building a String: the CSV and text renderers' inner loop.
//
// Why this file exists: a report of 200,000 rows is 800,000 cells, and going through `DecimalText` (an
// array of digits, another for the text, then a String) and `CalendarText` (a String per part) for each
// decimal and date was most of what CSV and text cost beyond the statement (issue 27). These write the
// same bytes as `CellText` (CellBytesTests compares them on random cells); a cell they do not cover returns
// false and the caller takes `CellText`'s String.

import ValueText

enum CellBytes {
    /// Appends `CellText.plain(cell, as: format, decimalSeparator:)` for integers, decimals and dates; false (and
    /// nothing appended) for any other cell.
    @inline(__always)
    static func appendPlain(_ cell: ReportCell, as format: ColumnFormat, decimalSeparator: UInt8,
                            to out: inout [UInt8]) -> Bool {
        switch cell {
        case .null:
            return true
        case let .integer(value):
            let minimum = format == .money ? 2 : 0
            // Always with a point: `CellText.plain` writes an integer's decimals (money's `.00`) without the dialect's
            // separator.
            appendDecimal(negative: value < 0, magnitude: UInt128(value.magnitude), scale: 0,
                          minimumScale: format.isNumeric ? minimum : 0,
                          decimalSeparator: CellText.point, grouping: nil, to: &out)
            return true
        case let .decimal(units, scale):
            appendDecimal(negative: units < 0, magnitude: units.magnitude, scale: scale,
                          minimumScale: format == .money ? 2 : 0,
                          decimalSeparator: format.isNumeric ? decimalSeparator : CellText.point, grouping: nil, to: &out)
            return true
        case let .date(year, month, day):
            return appendDate(year: year, month: month, day: day, to: &out)
        default:
            return false
        }
    }

    /// Appends `CellText.display(cell, as: format)` for integers, decimals (money only at a scale of at most 2,
    /// which needs no rounding) and dates; false (and nothing appended) for any other cell.
    @inline(__always)
    static func appendDisplay(_ cell: ReportCell, as format: ColumnFormat, to out: inout [UInt8]) -> Bool {
        let point = CellText.point
        if case .null = cell { return true }
        switch format {
        case .money, .integer, .number:
            let grouping: UInt8? = format == .money ? UInt8(ascii: ",") : nil
            let minimum = format == .money ? 2 : 0
            switch cell {
            case let .integer(value):
                appendDecimal(negative: value < 0, magnitude: UInt128(value.magnitude), scale: 0, minimumScale: minimum,
                              decimalSeparator: point, grouping: grouping, to: &out)
                return true
            case let .decimal(units, scale) where format != .money || scale <= 2:
                appendDecimal(negative: units < 0, magnitude: units.magnitude, scale: scale, minimumScale: minimum,
                              decimalSeparator: point, grouping: grouping, to: &out)
                return true
            case let .date(year, month, day):
                return appendDate(year: year, month: month, day: day, to: &out)
            default:
                return false
            }
        case .percent:
            if case let .date(year, month, day) = cell { return appendDate(year: year, month: month, day: day, to: &out) }
            return false
        case .text, .code, .date, .dateTime, .boolean:
            switch cell {
            case let .integer(value):
                appendDecimal(negative: value < 0, magnitude: UInt128(value.magnitude), scale: 0, minimumScale: 0,
                              decimalSeparator: point, grouping: nil, to: &out)
                return true
            case let .decimal(units, scale):
                appendDecimal(negative: units < 0, magnitude: units.magnitude, scale: scale, minimumScale: 0,
                              decimalSeparator: point, grouping: nil, to: &out)
                return true
            case let .date(year, month, day):
                return appendDate(year: year, month: month, day: day, to: &out)
            default:
                return false
            }
        }
    }

    /// `YYYY-MM-DD` for the years 0…9999 with a month and day of at most two digits (CalendarText.isoDate);
    /// false for others.
    @inline(__always)
    static func appendDate(year: Int, month: Int, day: Int, to out: inout [UInt8]) -> Bool {
        guard year >= 0, year <= 9999, month >= 0, month <= 99, day >= 0, day <= 99 else { return false }
        let zero = UInt8(ascii: "0"), dash = UInt8(ascii: "-")
        out.append(zero + UInt8(year / 1000))
        out.append(zero + UInt8(year / 100 % 10))
        out.append(zero + UInt8(year / 10 % 10))
        out.append(zero + UInt8(year % 10))
        out.append(dash)
        out.append(zero + UInt8(month / 10))
        out.append(zero + UInt8(month % 10))
        out.append(dash)
        out.append(zero + UInt8(day / 10))
        out.append(zero + UInt8(day % 10))
        return true
    }

    /// `DecimalText(units: ±magnitude, scale: scale).withMinimumScale(minimumScale).text(decimalSeparator:
    /// groupingSeparator:)`, written straight into `out`.
    static func appendDecimal(negative: Bool, magnitude: UInt128, scale: Int, minimumScale: Int,
                              decimalSeparator: UInt8, grouping: UInt8?, to out: inout [UInt8]) {
        // A zero at a negative scale is a single 0 (DecimalText drops the integer part's leading zeros).
        let scale = magnitude == 0 ? max(scale, 0) : scale
        // The magnitude's digits, most significant first (at most 39 for a UInt128).
        var digits: (UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0)   // 40 bytes
        let count = withUnsafeMutableBytes(of: &digits) { raw -> Int in
            let buffer = raw.bindMemory(to: UInt8.self)
            var i = buffer.count
            if magnitude <= UInt128(UInt64.max) {
                var value = UInt64(magnitude)
                repeat {
                    i -= 1
                    buffer[i] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                } while value > 0
            } else {
                var value = magnitude
                repeat {
                    i -= 1
                    buffer[i] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                } while value > 0
            }
            return buffer.count - i
        }
        let trailingZeros = max(minimumScale, scale, 0) - max(scale, 0) + max(-scale, 0)
        let shownScale = max(scale, minimumScale, 0)
        // Digits in all: the magnitude's, then `trailingZeros` zeros; the last `shownScale` of them are decimals.
        let total = count + trailingZeros
        let integerCount = total - shownScale
        if negative && magnitude != 0 { out.append(UInt8(ascii: "-")) }
        withUnsafeBytes(of: &digits) { raw in
            let buffer = raw.bindMemory(to: UInt8.self)
            let first = buffer.count - count
            @inline(__always) func digit(_ k: Int) -> UInt8 { k < count ? buffer[first + k] : UInt8(ascii: "0") }
            if integerCount <= 0 {
                out.append(UInt8(ascii: "0"))
            } else {
                for k in 0..<integerCount {
                    if let grouping, k > 0, (integerCount - k) % 3 == 0 { out.append(grouping) }
                    out.append(digit(k))
                }
            }
            if shownScale > 0 {
                out.append(decimalSeparator)
                if integerCount < 0 { out.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: -integerCount)) }
                for k in max(integerCount, 0)..<total { out.append(digit(k)) }
            }
        }
    }
}
