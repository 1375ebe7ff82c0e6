import Foundation
import GRDB

// The one place where values cross into and out of SQLite's storage classes.

extension Value {
    /// The value as stored in a column of `type`: decimals as integer units at the attribute's scale,
    /// booleans as 0/1, dates and date-times as ISO text. The value must fit the type.
    func databaseValue(for type: AttributeType) -> DatabaseValue {
        switch (self, type) {
        case (.null, _): return .null
        case (.string(let s), _): return s.databaseValue
        case (.integer(let i), _): return i.databaseValue
        case (.decimal(let d), .decimal(let scale)):
            return (d.exactly(atScale: scale) ?? d.rounded(toScale: scale)!).wideDatabaseValue
        case (.decimal(let d), _): return d.wideDatabaseValue
        case (.double(let d), _): return d.databaseValue
        case (.boolean(let b), _): return (b ? 1 : 0).databaseValue
        case (.date(let d), _): return d.description.databaseValue
        case (.dateTime(let t), _): return t.description.databaseValue
        case (.binary(let data), _): return data.databaseValue
        }
    }

    /// Reads a stored value back as `type`: `Value(stored:as:)`, from what GRDB has read.
    init(databaseValue dbValue: DatabaseValue, as type: AttributeType) {
        self.init(stored: StoredValue(dbValue), as: type)
    }

    /// The one decoder from storage, to a `Value` (`StoredValue.decoded(as:)` has the rules).
    @inlinable
    public init(stored: StoredValue, as type: AttributeType) {
        self = stored.decoded(as: type)
    }
}

/// What a stored value can be decoded to: the engine's `Value`, or a reader's own form of the same values (a report's
/// cells, which `StoredValue.decoded(as:)` builds directly, without a `Value` in between, once per cell).
public protocol StoredValueDecodable {
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
    public static func decimal(units: Int128, scale: Int) -> Value { .decimal(DecimalNumber(units: units, scale: scale)) }
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
    public func decoded<T: StoredValueDecodable>(as type: AttributeType) -> T {
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
