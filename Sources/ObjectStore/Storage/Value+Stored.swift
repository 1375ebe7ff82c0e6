import Foundation

// The one place where values cross into and out of storage classes (StoredValue).

extension Value {
    /// The value as stored in a column of `type`: decimals as integer units at the attribute's scale (beyond an
    /// Int64 only in a predicate's constants, as WideInteger.swift encodes them), booleans as 0/1, dates and
    /// date-times as ISO text. The value must fit the type.
    @inline(__always)
    func storedValue(for type: AttributeType) -> StoredValue {
        switch (self, type) {
        case (.null, _): return .null
        case (.string(let s), _): return .text(s)
        case (.integer(let i), _): return .integer(i)
        case (.decimal(let d), .decimal(let scale)):
            if d.scale == scale, let units = d.storedUnits { return .integer(units) }
            return (d.exactly(atScale: scale) ?? d.rounded(toScale: scale)!).wideStoredValue
        case (.decimal(let d), _): return d.wideStoredValue
        case (.double(let d), _): return .real(d)
        case (.boolean(let b), _): return .integer(b ? 1 : 0)
        case (.date(let d), _): return .text(StoredValue.iso(d))
        case (.dateTime(let t), _): return .text(t.description)
        case (.binary(let data), _): return .blob(data)
        }
    }

    /// The one decoder from storage, to a `Value` (`StoredValue.decoded(as:)` has the rules).
    package init(stored: StoredValue, as type: AttributeType) {
        self = stored.decoded(as: type)
    }
}

extension StoredValue {
    /// `YYYY-MM-DD` without the several small strings `Day.description` makes.
    static func iso(_ d: Day) -> String {
        guard (1...9999).contains(d.year) else { return d.description }
        return String(unsafeUninitializedCapacity: 10) { out in
            var y = d.year
            for i in (0..<4).reversed() { out[i] = UInt8(48 + y % 10); y /= 10 }
            out[4] = UInt8(ascii: "-")
            out[5] = UInt8(48 + d.month / 10); out[6] = UInt8(48 + d.month % 10)
            out[7] = UInt8(ascii: "-")
            out[8] = UInt8(48 + d.day / 10); out[9] = UInt8(48 + d.day % 10)
            return 10
        }
    }
}

/// What a stored value can be decoded to: the engine's `Value`, or a reader's own form of the same values (a report's
/// cells, which `StoredValue.decoded(as:)` builds directly, without a `Value` in between, once per cell).
package protocol StoredValueDecodable {
    static var null: Self { get }
    static func string(_ text: String) -> Self
    static func integer(_ value: Int64) -> Self
    static func decimal(units: Int128, scale: Int) -> Self
    static func double(_ value: Double) -> Self
    static func boolean(_ value: Bool) -> Self
    static func date(_ day: Day) -> Self
    static func dateTime(_ instant: Timestamp) -> Self
    static func binary(_ bytes: Data) -> Self
}

extension Value: StoredValueDecodable {
    @inlinable
    package static func decimal(units: Int128, scale: Int) -> Value { .decimal(DecimalNumber(units: units, scale: scale)) }
}

extension StoredValue {
    /// The one decoder from storage: a stored value of an attribute of `type` as the engine's value. The object
    /// context, `fetch` (its byte fast path writes only what this gives as `.string`: FetchedRow.withASCIIText),
    /// reports (CellDecoder, to cells) and the batch writer all read stored values through it.
    /// A stored value that does not fit the type (written by another tool, which STRICT tables keep to the
    /// column's storage class) comes back as text, so that `check` can report it and nothing is lost; a sum
    /// computed in SQL beyond an Int64 comes back as a wide integer (WideInteger.swift). Inlinable, so that each
    /// reader's form is built directly.
    @inlinable
    package func decoded<T: StoredValueDecodable>(as type: AttributeType) -> T {
        switch self {
        case .null:
            return .null
        case .integer(let i):
            switch type {
            case .integer: return .integer(i)
            case .decimal(let scale): return .decimal(units: Int128(i), scale: scale)
            case .boolean: return .boolean(i != 0)
            case .double: return .double(Double(i))
            case .string, .date, .dateTime, .binary: return .string(String(i))
            }
        case .real(let d):
            return type == .double ? .double(d) : .string(String(d))
        case .text(let s):
            switch type {
            case .date:
                if let day = StoredValue.day(s) { return .date(day) }
                return .string(s)
            case .dateTime:
                if let instant = StoredValue.instant(s) { return .dateTime(instant) }
                return .string(s)
            default:
                return .string(s)
            }
        case .blob(let data):
            if let wide = WideInteger.decode(blob: data) {
                switch type {
                case .integer: return .decimal(units: wide, scale: 0)
                case .decimal(let scale): return .decimal(units: wide, scale: scale)
                default: break
                }
            }
            return .binary(data)
        }
    }

    /// `Day(iso:)` and `Timestamp(iso:)` for a String, specialized here: called from `decoded(as:)` inlined in another
    /// module, the generic initializers ran unspecialized (5% of a report of a million dates).
    @usableFromInline
    static func day(_ text: String) -> Day? { Day(iso: text) }

    @usableFromInline
    static func instant(_ text: String) -> Timestamp? { Timestamp(iso: text) }
}
