import Foundation
import LocalTime

/// Why a piece of text is not a value of an attribute's type.
public struct ValueParseError: Error, Sendable, Equatable {
    public let text: String
    public let type: AttributeType
    public let reason: String

    /// `"31/02/2024" is not a date (expected YYYY-MM-DD)`
    public var message: String { "\"\(text)\" \(reason)" }
}

extension Value {
    /// Converts command-line text to a value of `type`, strictly: nothing is coerced or truncated.
    /// Dates are `YYYY-MM-DD`; date-times ISO 8601, local in `zone` without an offset (Timestamp+Zone.swift);
    /// booleans yes/no/true/false/y/n/1/0 in any case; decimals use `.` and may not have more places than the
    /// scale; binary is hex with an optional `0x`.
    public static func parse(_ text: String, as type: AttributeType, zone: Zone = .process) throws(ValueParseError) -> Value {
        func fail(_ reason: String) -> ValueParseError { ValueParseError(text: text, type: type, reason: reason) }
        switch type {
        case .string:
            return .string(text)
        case .integer:
            guard let i = Int64(text.trimmingCharacters(in: .whitespaces)) else { throw fail("is not an integer") }
            return .integer(i)
        case .decimal(let scale):
            guard let d = DecimalNumber(exactly: text.trimmingCharacters(in: .whitespaces)) else {
                throw fail("is not a decimal number")
            }
            guard let scaled = d.exactly(atScale: scale), scaled.fitsStorage else {
                throw fail(Value.decimalMisfitReason(d, scale: scale))
            }
            return .decimal(scaled)
        case .double:
            guard let d = Double(text.trimmingCharacters(in: .whitespaces)) else { throw fail("is not a number") }
            guard d.isFinite else { throw fail(Value.nonFiniteReason) }
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
    public static let nonFiniteReason = "is not a finite number (a double holds at most ±\(Double.greatestFiniteMagnitude); "
        + "infinities and NaN are not stored)"

    public static func parseBoolean(_ text: String) -> Bool? {
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
