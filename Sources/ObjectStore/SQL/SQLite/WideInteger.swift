import Foundation
import GRDB

// Integers beyond an Int64 inside SQLite: sums of stored decimals and integers.
//
// Why this file exists: a stored value is an Int64 (units at the attribute's scale), but the sum of two of
// them may not be, and SQLite's SUM then fails with "integer overflow". The sums add in 128 bits
// (ExactSum.swift); a result that fits an Int64 stays an INTEGER, a wider one is a 16-byte BLOB, the Int128
// big-endian with its sign bit flipped, so that equal values are equal bytes and blobs sort as the numbers
// do. Comparisons that may meet such a value go through `bk_wide_cmp`, since SQLite orders every INTEGER
// before every BLOB; sort keys through `bk_wide_order`.
package enum WideInteger {
    static let byteCount = 16
    /// `bk_wide_comparable(x)`: a wide value in its comparable form (`comparable`), for a sum computed once in
    /// its exact form and then compared with SQLite's own operators.
    static let comparableFunction = "bk_wide_comparable"
    /// `bk_wide_min(x)`, `bk_wide_max(x)`: MIN and MAX of possibly wide values.
    static let minimumFunction = "bk_wide_min", maximumFunction = "bk_wide_max"
    /// `bk_wide_cmp(a, b)`: -1, 0 or 1 as a is below, at or above b; NULL when either is.
    static let compareFunction = "bk_wide_cmp"
    /// `bk_wide_scale(x, n)`: x × 10^n exactly.
    static let scaleFunction = "bk_wide_scale"
    /// `bk_wide_real(x)`: x as the nearest REAL.
    static let realFunction = "bk_wide_real"
    /// `bk_wide_order(x)`: a sort key ordering possibly wide values by value.
    static let orderFunction = "bk_wide_order"

    /// The SQL value of `value`: an INTEGER when it fits, else the 16-byte encoding.
    package static func encode(_ value: Int128) -> StoredValue {
        if let small = Int64(exactly: value) { return .integer(small) }
        return .blob(orderKey(value))
    }

    /// An INTEGER when it fits, else a REAL on the same side of every Int64 (-2^63 - 1 would round to -2^63).
    static func comparable(_ value: Int128) -> DatabaseValue {
        if let small = Int64(exactly: value) { return small.databaseValue }
        var real = Double(value)
        if value < 0, real >= -0x1p63 { real = (-0x1p63).nextDown }
        return real.databaseValue
    }

    /// The 16 bytes whose byte order is the numeric order (sign bit flipped, big-endian).
    static func orderKey(_ value: Int128) -> Data { Data(orderKeyBytes(value)) }

    static func orderKeyBytes(_ value: Int128) -> [UInt8] {
        let biased = UInt128(bitPattern: value) ^ (UInt128(1) << 127)
        var bytes = [UInt8](repeating: 0, count: byteCount)
        for i in 0..<byteCount { bytes[byteCount - 1 - i] = UInt8(truncatingIfNeeded: biased >> (8 * UInt128(i))) }
        return bytes
    }

    /// An INTEGER or a 16-byte wide value as an Int128; nil for anything else.
    package static func decode(_ value: DatabaseValue) -> Int128? {
        switch value.storage {
        case .int64(let i): return Int128(i)
        case .blob(let data): return decode(blob: data)
        default: return nil
        }
    }

    package static func decode(blob data: Data) -> Int128? {
        guard data.count == byteCount else { return nil }
        return data.withUnsafeBytes { decode(bytes: $0) }
    }

    /// The Int128 of exactly `byteCount` bytes in the order-key form.
    static func decode(bytes: UnsafeRawBufferPointer) -> Int128 {
        var biased: UInt128 = 0
        for byte in bytes { biased = biased << 8 | UInt128(byte) }
        return Int128(bitPattern: biased ^ (UInt128(1) << 127))
    }

    static func register(in db: Database) {
        ExactSum.register(in: db)
        db.add(function: DatabaseFunction(minimumFunction, argumentCount: 1, pure: true, aggregate: WideMinimum.self))
        db.add(function: DatabaseFunction(maximumFunction, argumentCount: 1, pure: true, aggregate: WideMaximum.self))
        // -1, 0 or 1 as the first number is below, equal to or above the second; NULL if either is NULL.
        db.add(function: DatabaseFunction(compareFunction, argumentCount: 2, pure: true) { values in
            guard let a = decode(values[0]), let b = decode(values[1]) else { return nil }
            return a < b ? -1 : (a > b ? 1 : 0)
        })
        // x × 10^k exactly (bringing a number to a larger scale to compare it).
        db.add(function: DatabaseFunction(scaleFunction, argumentCount: 2, pure: true) { values in
            guard let x = decode(values[0]), let k = Int.fromDatabaseValue(values[1]) else { return nil }
            let (product, overflow) = x.multipliedReportingOverflow(by: DecimalNumber.powerOfTen(k))
            if overflow { throw WideIntegerError(message: "a number beyond 38 digits cannot be compared") }
            return encode(product).databaseValue
        })
        // The number as a REAL (a sum compared with a Double or an average).
        db.add(function: DatabaseFunction(realFunction, argumentCount: 1, pure: true) { values in
            guard let x = decode(values[0]) else { return values[0] }
            return Double(x)
        })
        db.add(function: DatabaseFunction(comparableFunction, argumentCount: 1, pure: true) { values in
            guard let x = decode(values[0]) else { return values[0] }
            return comparable(x)
        })
        // A sort key that orders INTEGERs and wide values together; NULL stays NULL (first ascending).
        db.add(function: DatabaseFunction(orderFunction, argumentCount: 1, pure: true) { values in
            guard let x = decode(values[0]) else { return values[0] }
            return orderKey(x)
        })
    }
}

struct WideMinimum: DatabaseAggregate {
    var value: Int128?
    mutating func step(_ values: [DatabaseValue]) {
        guard let x = WideInteger.decode(values[0]) else { return }
        value = Swift.min(value ?? x, x)
    }
    func finalize() -> (any DatabaseValueConvertible)? { value.map { WideInteger.encode($0).databaseValue } }
}

struct WideMaximum: DatabaseAggregate {
    var value: Int128?
    mutating func step(_ values: [DatabaseValue]) {
        guard let x = WideInteger.decode(values[0]) else { return }
        value = Swift.max(value ?? x, x)
    }
    func finalize() -> (any DatabaseValueConvertible)? { value.map { WideInteger.encode($0).databaseValue } }
}

extension DatabaseValue.Storage {
    var isBlob: Bool { if case .blob = self { true } else { false } }
}

struct WideIntegerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}
