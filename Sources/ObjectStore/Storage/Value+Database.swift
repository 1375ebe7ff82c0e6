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

    /// The one decoder from storage: a stored value of an attribute of `type` as the engine's value. The object
    /// context, `fetch` (its byte fast path writes only what this gives as `.string`: FetchedRow.withASCIIText)
    /// and reports (CellDecoder) all read stored values through it.
    /// A stored value that does not fit the type (written by another tool, which STRICT tables keep to the
    /// column's storage class) comes back as text, so that `check` can report it and nothing is lost; a sum
    /// computed in SQL beyond an Int64 comes back as a wide integer (WideInteger.swift).
    @inline(__always)
    public init(stored: StoredValue, as type: AttributeType) {
        switch stored {
        case .null:
            self = .null
        case .integer(let i):
            switch type {
            case .integer: self = .integer(i)
            case .decimal(let scale): self = .decimal(DecimalNumber(units: Int128(i), scale: scale))
            case .boolean: self = .boolean(i != 0)
            case .double: self = .double(Double(i))
            case .string, .date, .dateTime, .binary: self = .string(String(i))
            }
        case .real(let d):
            self = type == .double ? .double(d) : .string(String(d))
        case .text(let s):
            switch type {
            case .date: self = Day(iso: s).map(Value.date) ?? .string(s)
            case .dateTime: self = Timestamp(iso: s).map(Value.dateTime) ?? .string(s)
            default: self = .string(s)
            }
        case .blob(let data):
            if let wide = WideInteger.decode(blob: data) {
                switch type {
                case .integer: self = .decimal(DecimalNumber(units: wide, scale: 0)); return
                case .decimal(let scale): self = .decimal(DecimalNumber(units: wide, scale: scale)); return
                default: break
                }
            }
            self = .binary(data)
        }
    }
}
