import Foundation

/// A value as the store keeps it (SQLite's storage classes), before it is decoded as an attribute type: decimals are
/// integer units at their attribute's scale, booleans 0/1, dates and date-times ISO text (docs/model.md "How the store
/// keeps it"). What the storage protocol binds and reads. Every stored value the engine reads becomes a `Value`
/// through one decoder, `Value(stored:as:)` (Value+Stored.swift): the object context, `fetch` and reports alike.
package enum StoredValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}
