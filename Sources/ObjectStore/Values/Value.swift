import Foundation

/// The type of an attribute. A decimal carries its scale: the number of digits kept after the point.
public enum AttributeType: Sendable, Hashable, CustomStringConvertible {
    /// Text (UTF-8, compared by code point unless a predicate or sort says otherwise).
    case string
    /// A 64-bit signed integer.
    case integer
    /// An exact decimal kept with `scale` digits after the point (0 to 18).
    case decimal(scale: Int)
    /// A finite binary floating-point number.
    case double
    /// Yes or no.
    case boolean
    /// A calendar day, without a time or zone (`Day`).
    case date
    /// An instant, in whole seconds (`Timestamp`), shown in the zone of the run.
    case dateTime
    /// Bytes.
    case binary

    /// The name used in model files: `string`, `decimal`, `datetime`.
    public var name: String {
        switch self {
        case .string: "string"
        case .integer: "integer"
        case .decimal: "decimal"
        case .double: "double"
        case .boolean: "boolean"
        case .date: "date"
        case .dateTime: "datetime"
        case .binary: "binary"
        }
    }

    /// The name a person reads in a message: `Decimal(2)`, `Boolean`.
    public var description: String {
        switch self {
        case .string: "String"
        case .integer: "Integer"
        case .decimal(let scale): "Decimal(\(scale))"
        case .double: "Double"
        case .boolean: "Boolean"
        case .date: "Date"
        case .dateTime: "DateTime"
        case .binary: "Binary"
        }
    }
}

/// One attribute value. Typed: the store converts to and from SQLite's storage classes in one place
/// (`Value+Stored.swift`), and text input in one other (`Value+Text.swift`).
public enum Value: Sendable, Hashable, CustomStringConvertible {
    /// No value.
    case null
    /// A `string` value.
    case string(String)
    /// An `integer` value.
    case integer(Int64)
    /// A `decimal` value; an attribute keeps it at its scale.
    case decimal(DecimalNumber)
    /// A `double` value.
    case double(Double)
    /// A `boolean` value.
    case boolean(Bool)
    /// A `date` value.
    case date(Day)
    /// A `dateTime` value.
    case dateTime(Timestamp)
    /// A `binary` value.
    case binary(Data)

    /// Whether this is `.null`.
    public var isNull: Bool { if case .null = self { true } else { false } }

    /// `fits`, for values the importer's converters made: their text was checked for a NUL and mark runs as it was
    /// read, so the batch writer's hot loop does not scan every text twice.
    package func fitsConverted(_ type: AttributeType) -> Bool {
        if case .string = self, case .string = type { return true }
        return fits(type)
    }

    /// Whether the value can be stored in an attribute of `type` (null fits every type). Text holding a NUL or more
    /// combining marks in a row than the store takes, and an instant outside the years 1 to 9999 in UTC, fit no
    /// attribute: the store would cut the text short, or compare and sort the instant wrongly (attack 18).
    public func fits(_ type: AttributeType) -> Bool {
        switch (self, type) {
        case (.null, _), (.integer, .integer), (.boolean, .boolean), (.date, .date), (.binary, .binary):
            return true
        case (.string(let s), .string):
            return Value.textMisfitReason(s) == nil
        case (.dateTime(let t), .dateTime):
            return Timestamp.range.contains(t.secondsSinceEpoch)
        case (.double(let d), .double):
            // No output can write an infinity or a NaN so that it reads back (Store+NonFinite.swift).
            return d.isFinite
        case (.decimal(let d), .decimal(let scale)):
            return d.exactly(atScale: scale)?.fitsStorage == true
        default:
            return false
        }
    }

    /// The value's one text form, as every output shows it: decimals at their scale, dates ISO, booleans yes/no,
    /// binary as hex; null as the empty string.
    public var description: String {
        switch self {
        case .null: ""
        case .string(let s): s
        case .integer(let i): String(i)
        case .decimal(let d): d.description
        case .double(let d): Value.format(double: d)
        case .boolean(let b): b ? "yes" : "no"
        case .date(let d): d.description
        case .dateTime(let t): t.description
        case .binary(let data): "0x" + data.map { String(format: "%02x", $0) }.joined()
        }
    }

    /// Why a value of an attribute's own type does not fit it, worded after the attribute's name, as the command
    /// line's input and the fetch arguments word it: `"a\0b" contains a NUL character (\0), which text in the store
    /// cannot hold`, `"10000-01-01T00:00:00Z" falls outside the years 1 to 9999 in UTC`; nil for any other value
    /// (decimals have `decimalMisfit`).
    package func unstorableReason(in type: AttributeType) -> String? {
        switch (self, type) {
        case (.string(let s), .string): Value.textMisfitReason(s)
        case (.dateTime(let t), .dateTime) where !Timestamp.range.contains(t.secondsSinceEpoch):
            "\"\(t)\" \(Timestamp.outsideRangeReason)"
        case (.double(let d), .double) where !d.isFinite: Value.nonFiniteReason
        default: nil
        }
    }

    /// Why text cannot be stored (a NUL, which SQLite's C interface ends text at; a run of combining marks longer
    /// than the Stream-Safe Text Format's), or nil. Shared with the fetch arguments (PredicateBinder `text`).
    package static func textMisfitReason(_ s: String) -> String? {
        if s.utf8.contains(0) { return "\(String(reflecting: s)) \(nulReason)" }
        if let run = TextNormalForm.overlongMarkRun(s) { return TextNormalForm.overlongMarkRunReason(run) }
        return nil
    }

    /// Why text with a NUL is refused, after the quoted text.
    package static let nulReason = "contains a NUL character (\\0), which text in the store cannot hold"

    /// Why a decimal does not fit an attribute of `scale`, worded after the attribute's name:
    /// `1.005 has more than 2 decimal places`, `92233720368547758.08 is beyond what Decimal(2) can hold (±92233720368547758.07)`.
    package static func decimalMisfit(_ d: DecimalNumber, scale: Int) -> String {
        "\(d) \(decimalMisfitReason(d, scale: scale))"
    }

    /// The reason alone: `has more than 2 decimal places`, `is beyond what Decimal(2) can hold (±…)`.
    package static func decimalMisfitReason(_ d: DecimalNumber, scale: Int) -> String {
        if d.exactly(atScale: scale) == nil, d.rounded(toScale: scale) != nil {
            return "has more than \(scale) decimal place\(scale == 1 ? "" : "s")"
        }
        return "is beyond what Decimal(\(scale)) can hold (±\(DecimalNumber.storedMaximum(scale: scale)))"
    }

    /// Why decimal text that `DecimalNumber(exactly:)` cannot hold does not fit an attribute of `scale`: a nonzero
    /// digit past the 18th place (`1.0000000000000000001`) has more places than the scale, and more digits than
    /// the units hold are beyond the range. Nil when the text is not a decimal number at all (`1.2.3`, `12a`).
    package static func decimalTextMisfitReason(_ text: some StringProtocol, scale: Int) -> String? {
        var bytes = Array(text.utf8)[...]
        if let first = bytes.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        let parts = bytes.split(separator: UInt8(ascii: "."), maxSplits: 1, omittingEmptySubsequences: false)
        let isDigit = { (b: UInt8) in b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9") }
        guard parts.allSatisfy({ $0.allSatisfy(isDigit) }), parts.contains(where: { !$0.isEmpty }) else { return nil }
        let places = parts.count == 2 ? (parts[1].lastIndex { $0 != UInt8(ascii: "0") }.map { $0 - parts[1].startIndex + 1 } ?? 0) : 0
        if places > scale { return "has more than \(scale) decimal place\(scale == 1 ? "" : "s")" }
        return "is beyond what Decimal(\(scale)) can hold (±\(DecimalNumber.storedMaximum(scale: scale)))"
    }

    /// What the value is, for a message: `the integer 5`, `the string "x"`, `NULL`.
    package var kindPhrase: String {
        switch self {
        case .null: "NULL"
        case .string(let s): "the string \(String(reflecting: s))"
        case .integer: "the integer \(self)"
        case .decimal: "the decimal \(self)"
        case .double: "the double \(self)"
        case .boolean: "the boolean \(self)"
        case .date: "the date \(self)"
        case .dateTime: "the date-time \(self)"
        case .binary: "binary data"
        }
    }

    static func format(double d: Double) -> String {
        if d == d.rounded(), abs(d) < 1e15 { return String(Int64(d)) }
        return String(d)
    }
}
