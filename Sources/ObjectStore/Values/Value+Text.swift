import Foundation
import LocalTime

/// Why a piece of text is not a value of an attribute's type.
package struct ValueParseError: Error, Sendable, Equatable {
    package let text: String
    package let type: AttributeType
    package let reason: String

    /// `"31/02/2024" is not a date (expected YYYY-MM-DD)`
    package var message: String { "\"\(text)\" \(reason)" }
}

extension Value {
    /// Converts command-line text to a value of `type`, strictly: nothing is coerced or truncated.
    /// Dates are `YYYY-MM-DD`; date-times ISO 8601, local in `zone` without an offset (Timestamp+Zone.swift);
    /// booleans yes/no/true/false/y/n/1/0 in any case; decimals use `.` and may not have more places than the
    /// scale; binary is hex with an optional `0x`.
    package static func parse(_ text: String, as type: AttributeType, zone: Zone = .process) throws(ValueParseError) -> Value {
        func fail(_ reason: String) -> ValueParseError { ValueParseError(text: text, type: type, reason: reason) }
        switch type {
        case .string:
            if let run = TextNormalForm.overlongMarkRun(text) { throw fail(TextNormalForm.overlongMarkRunReason(run)) }
            return .string(text)
        case .integer:
            guard let i = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw fail("is not an integer") }
            return .integer(i)
        case .decimal(let scale):
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            guard let d = DecimalNumber(exactly: trimmed) else {
                // `1.0000000000000000001` is a decimal number, with more places than any scale holds.
                throw fail(Value.decimalTextMisfitReason(trimmed, scale: scale) ?? "is not a decimal number")
            }
            guard let scaled = d.exactly(atScale: scale), scaled.fitsStorage else {
                throw fail(Value.decimalMisfitReason(d, scale: scale))
            }
            return .decimal(scaled)
        case .double:
            let trimmed = text.trimmingCharacters(in: .whitespaces)
            // Swift reads hexadecimal floats (`0x10` is 16, `0x1p3` 8), which integers and decimals refuse.
            guard !trimmed.contains(where: { $0 == "x" || $0 == "X" }), let d = Double(trimmed) else { throw fail("is not a number") }
            guard d.isFinite else { throw fail(Value.nonFiniteReason) }
            if d == 0, Value.hasNonzeroDigit(trimmed) { throw fail(Value.underflowReason) }
            return .double(d)
        case .boolean:
            guard let b = parseBoolean(text) else { throw fail("is not a boolean (expected yes/no, true/false or 1/0)") }
            return .boolean(b)
        case .date:
            guard let d = Day(iso: text.trimmingCharacters(in: .whitespaces)) else {
                throw fail("is not a date (expected YYYY-MM-DD)")
            }
            return .date(d)
        case .dateTime:
            switch Timestamp.parse(text.trimmingCharacters(in: .whitespaces), in: zone) {
            case .success(let t): return .dateTime(t)
            case .failure(let problem): throw fail(problem.reason)
            }
        case .binary:
            guard let data = parseHex(text) else { throw fail("is not hexadecimal bytes (expected 0x…)") }
            return .binary(data)
        }
    }

    /// Why an infinity or a NaN (`inf`, `nan`, `1e999`) is not stored: no output could write it.
    package static let nonFiniteReason = "is not a finite number (a double holds at most ±\(Double.greatestFiniteMagnitude); "
        + "infinities and NaN are not stored)"

    /// Why `1e-400` is not stored: a double rounds it to 0, silently.
    package static let underflowReason = "is too small for a double (the smallest above 0 is \(Double.leastNonzeroMagnitude)): "
        + "it would be stored as 0"

    /// Whether a number's digits before its exponent are not all zeros (`1e-400`, not `0.000e5`).
    static func hasNonzeroDigit(_ number: String) -> Bool {
        for c in number.utf8 {
            if c == UInt8(ascii: "e") || c == UInt8(ascii: "E") { return false }
            if c >= UInt8(ascii: "1") && c <= UInt8(ascii: "9") { return true }
        }
        return false
    }

    package static func parseBoolean(_ text: String) -> Bool? {
        switch text.trimmingCharacters(in: .whitespaces).lowercased() {
        case "yes", "y", "true", "1": true
        case "no", "n", "false", "0": false
        default: nil
        }
    }

    static func parseHex(_ text: String) -> Data? {
        var s = Substring(text)
        if s.hasPrefix("0x") || s.hasPrefix("0X") { s = s.dropFirst(2) }
        guard s.utf8.count % 2 == 0 else { return nil }
        var data = Data(capacity: s.utf8.count / 2)
        var high: UInt8?
        for byte in s.utf8 {
            let nibble: UInt8
            switch byte {
            case 48...57: nibble = byte - 48
            case 65...70: nibble = byte - 55
            case 97...102: nibble = byte - 87
            default: return nil
            }
            if let h = high { data.append(h << 4 | nibble); high = nil } else { high = nibble }
        }
        return data
    }
}
