// Text from a CSV cell → a value of an attribute's type, for import. Strict: a value that does not fit is
// an error, never coerced or truncated. Works on the cell's bytes (numbers, dates and booleans are ASCII),
// so the hot path makes no String for them.
//
// - Decimal: exact, never through floating point: `1234.50`, `1,234.50`, `-3`; with `decimalComma`
//   `1.234,50`. Grouping as 1C and Excel write it in Russian, German, Polish and Swiss locales: the
//   mark that is not the decimal one, a space, a no-break space (U+00A0), a narrow no-break space
//   (U+202F) or an apostrophe (`1 234,50`, `1'234.50`), one of them throughout, standing every three
//   digits after a first group of one to three (`12 34,5` is an error, never a joined number); no more
//   places than the scale.
// - Integer: digits with an optional sign and the same grouping.
// - Date: `dateFormat` (default YYYY-MM-DD); time parts are ignored for a Date. DateTime: with a format
//   that has time parts, that format, a local time in `zone` ($TZ); otherwise ISO 8601, local in `zone` without
//   an offset (ObjectStore's Timestamp+Zone.swift: a skipped local time is an error, a doubled one the earlier).
// - Boolean: yes/no, true/false, y/n, 1/0 in any case.
// - String: the text as it is (codes keep their leading zeros, spaces are kept); a NUL byte is refused.
// Numbers, dates and booleans may have spaces around them.

import CSV
import Foundation
import LocalTime
import ObjectStore

/// Why a cell's text is not a value: `"31/02/2024" is not a date in format %d/%m/%Y`.
package struct ConversionError: Error, Equatable, Sendable {
    package let message: String
}

package struct ValueConverter: Sendable {
    package var decimalComma: Bool
    /// Whether the user gave the mark (--decimal-comma, --decimal-point): only then may a message name the other
    /// option as the remedy. Decided from a column's values, the mark is not the user's to change value by value.
    package var markGiven = true
    package var dateFormat: DateFormat?
    /// The no-break spaces as the input's encoding writes them (UTF-8: two and three bytes; a code
    /// page: its own byte, 0xA0 in Windows-125x, 0x9A in KOI8-R, 0xFF in CP866), also grouping marks.
    package var spaceGroupings: [[UInt8]] = [[0xC2, 0xA0], [0xE2, 0x80, 0xAF]]

    /// The zone of date-times written without an offset: the one outputs show them in.
    package var zone: Zone

    package init(decimalComma: Bool = false, dateFormat: DateFormat? = nil, zone: Zone) {
        self.decimalComma = decimalComma
        self.dateFormat = dateFormat
        self.zone = zone
    }

    /// Converts the text of a non-empty cell (empty cells and null tokens are the caller's: they are null).
    /// `text` makes the cell's String when needed (for strings and messages).
    @inline(__always)
    package func convert(_ bytes: UnsafeBufferPointer<UInt8>, as type: AttributeType,
                        text: () -> String) throws(ConversionError) -> Value {
        switch type {
        case .string:
            // SQLite's C interface, as the store uses it, ends text at a NUL byte: refuse it rather than lose
            // the rest of the value.
            if let base = bytes.baseAddress, memchr(base, 0, bytes.count) != nil {
                throw ConversionError(message: "the value contains a NUL byte, which text in the store cannot hold")
            }
            let string = text()
            if let run = TextNormalForm.overlongMarkRun(string) {
                throw ConversionError(message: "the value " + TextNormalForm.overlongMarkRunReason(run))
            }
            return .string(string)
        case .decimal(let scale):
            guard let (units, places) = number(trimmed(bytes), allowFraction: true) else {
                // A number too long for an Int64 is named as such, not as "not a number".
                // A number too long for an Int64 is named as such, not as "not a number" (with either mark).
                var plain = text().trimmingCharacters(in: .whitespaces)
                if decimalComma { plain = plain.replacingOccurrences(of: ".", with: "").replacingOccurrences(of: ",", with: ".") }
                if plain.utf8.count(where: { $0 >= 48 && $0 <= 57 }) > 18 {
                    if let wide = DecimalNumber(exactly: plain) { throw fail(text(), Value.decimalMisfitReason(wide, scale: scale)) }
                    // More places than any scale holds (`1.0000000000000000001`): still a decimal number.
                    if let reason = Value.decimalTextMisfitReason(plain, scale: scale) { throw fail(text(), reason) }
                }
                throw fail(text(), "is not a decimal number\(decimalHint(bytes))")
            }
            let d = DecimalNumber(units: Int128(units), scale: places)
            guard let scaled = d.exactly(atScale: scale), scaled.fitsStorage else {
                throw fail(text(), Value.decimalMisfitReason(d, scale: scale))
            }
            return .decimal(scaled)
        case .integer:
            guard let (units, _) = number(trimmed(bytes), allowFraction: false) else {
                throw fail(text(), "is not an integer")
            }
            return .integer(units)
        case .boolean:
            let t = trimmed(bytes)
            if let b = ValueConverter.boolean(t) { return .boolean(b) }
            throw fail(text(), "is not a boolean (expected yes/no, true/false, y/n or 1/0)")
        case .date:
            let t = trimmed(bytes)
            let format = dateFormat ?? .iso
            guard let (day, _) = format.parse(t) else { throw fail(text(), "is not a date in format \(format)") }
            return .date(day)
        case .dateTime:
            if let format = dateFormat, format.hasTime {
                guard let (day, seconds) = format.parse(trimmed(bytes)) else {
                    throw fail(text(), "is not a date and time in format \(format)")
                }
                switch Timestamp.local(Int64(day.daysSinceEpoch) * 86400 + Int64(seconds), in: zone) {
                case .success(let t): return .dateTime(t)
                case .failure(let problem): throw fail(text(), problem.reason)
                }
            }
            switch Timestamp.parse(text().trimmingCharacters(in: .whitespaces), in: zone) {
            case .success(let t): return .dateTime(t)
            case .failure(let problem): throw fail(text(), problem.reason)
            }
        case .double, .binary:
            do { return try Value.parse(text(), as: type, zone: zone) } catch { throw ConversionError(message: error.message) }
        }
    }

    private func fail(_ text: String, _ reason: String) -> ConversionError {
        ConversionError(message: "\"\(text)\" \(reason)")
    }

    /// A remedy for a number that did not parse: the other decimal separator convention.
    private func decimalHint(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        guard markGiven else { return "" }
        let t = trimmed(bytes)
        let comma = t.contains(UInt8(ascii: ",")), point = t.contains(UInt8(ascii: "."))
        if !decimalComma && comma {
            return " — try --decimal-comma"
        }
        if decimalComma && point && !comma {
            return " — with --decimal-comma the decimal separator is a comma"
        }
        return ""
    }

    static func boolean(_ t: UnsafeBufferPointer<UInt8>) -> Bool? {
        var lower: UInt64 = 0
        guard t.count <= 5, t.count > 0 else { return nil }
        for b in t { lower = lower << 8 | UInt64(b >= 65 && b <= 90 ? b | 0x20 : b) }
        switch lower {
        case 0x79_65_73, 0x79, 0x74_72_75_65, 0x31: return true            // yes y true 1
        case 0x6E_6F, 0x6E, 0x66_61_6C_73_65, 0x30: return false          // no n false 0
        default: return nil
        }
    }

    @inline(__always)
    func trimmed(_ b: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        var s = 0, e = b.count
        while s < e, b[s] == 32 || b[s] == 9 { s += 1 }
        while e > s, b[e - 1] == 32 || b[e - 1] == 9 { e -= 1 }
        if s == 0 && e == b.count { return b }
        return UnsafeBufferPointer(rebasing: b[s..<e])
    }

    /// The length of the grouping mark at `i`, if one stands there.
    @inline(__always)
    func groupingMark(_ b: UnsafeBufferPointer<UInt8>, at i: Int, group: UInt8) -> Int? {
        let c = b[i]
        if c == group || c == 0x20 || c == 0x27 { return 1 }
        if c < 0x80 { return nil }
        for s in spaceGroupings where i + s.count <= b.count {
            var k = 0
            while k < s.count, b[i + k] == s[k] { k += 1 }
            if k == s.count { return s.count }
        }
        return nil
    }

    /// Parses `[+-]digits[grouped][.fraction]` exactly: (units, places). Nil when malformed or too large.
    @inline(__always)
    func number(_ b: UnsafeBufferPointer<UInt8>, allowFraction: Bool) -> (Int64, Int)? {
        let point = decimalComma ? UInt8(ascii: ",") : UInt8(ascii: ".")
        let group = decimalComma ? UInt8(ascii: ".") : UInt8(ascii: ",")
        var i = 0
        let n = b.count
        guard n > 0 else { return nil }
        var negative = false
        if b[0] == UInt8(ascii: "-") || b[0] == UInt8(ascii: "+") {
            negative = b[0] == UInt8(ascii: "-")
            i = 1
        }
        var units: Int64 = 0
        var digits = 0
        var places = 0
        var groupDigits = 0      // digits since the last grouping separator
        var grouped = false
        var separator: [UInt8] = []     // the grouping mark in use: one kind throughout
        var inFraction = false
        var pendingZeros = 0
        while i < n {
            let c = b[i]
            if c >= 48 && c <= 57 {
                // Zeros after the point wait until a later digit needs them: trailing ones change nothing
                // (`1.0000000000000000000000` is 1) and must not overflow or exceed the largest scale.
                if inFraction && c == 48 { pendingZeros += 1; digits += 1; i += 1; continue }
                while pendingZeros > 0 {
                    let (m, o) = units.multipliedReportingOverflow(by: 10)
                    if o { return nil }
                    units = m
                    places += 1
                    pendingZeros -= 1
                }
                // Accumulated with its sign, so that -9223372036854775808 (Int64.min, which `export` writes) is read too.
                let (m, o1) = units.multipliedReportingOverflow(by: 10)
                let (a, o2) = negative ? m.subtractingReportingOverflow(Int64(c - 48)) : m.addingReportingOverflow(Int64(c - 48))
                if o1 || o2 { return nil }
                units = a
                digits += 1
                if inFraction { places += 1 } else { groupDigits += 1 }
            } else if !inFraction, let length = groupingMark(b, at: i, group: group) {
                // The first group has 1–3 digits, every later one exactly 3.
                if digits == 0 || (grouped ? groupDigits != 3 : groupDigits > 3) { return nil }
                let mark = Array(b[i..<i + length])
                if grouped && mark != separator { return nil }
                separator = mark
                grouped = true
                groupDigits = 0
                i += length
                continue
            } else if c == point && !inFraction && allowFraction {
                if grouped && groupDigits != 3 { return nil }
                inFraction = true
            } else {
                return nil
            }
            i += 1
        }
        if grouped && !inFraction && groupDigits != 3 { return nil }
        DecimalNumber.keepTrailingZeros(pendingZeros, units: &units, scale: &places)
        guard digits > 0, places <= DecimalNumber.maxScale else { return nil }
        return (units, places)
    }
}
