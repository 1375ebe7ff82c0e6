import GRDB
import GRDBSQLite

// Exact sums of stored integers as SQLite aggregates written against its C API.
//
// Why this file exists: SQLite's SUM fails with "integer overflow" past an Int64, so a sum of stored decimals
// must add in 128 bits. GRDB's aggregate wrapper boxes every argument and calls through a class per step, and
// native sums of 32-bit halves joined in SQL cost SQLite extra work on every row; these callbacks do what
// SQLite's own sumStep does, one call per row reading the value in place (docs/design/exact-sums.md).
//
// The running total lives in SQLite's aggregate context (zeroed, 8-byte aligned) as three words: the low and
// high 64 bits of an Int128 and the count of values added, so an empty or all-NULL group gives NULL, as SUM.
enum ExactSum {
    /// `bk_sum(v)`: exact; beyond an Int64 the 16-byte form of WideInteger.swift (WideForm.exact).
    static let exact = "bk_sum"
    /// `bk_sum_comparable(v)`: beyond an Int64 a REAL strictly outside its range (WideForm.comparable).
    static let comparable = "bk_sum_comparable"
    /// `bk_sum_real(v)`: the sum as the nearest REAL (for averages; WideForm.real).
    static let real = "bk_sum_real"
    /// `bk_wide_total(v)`: the exact sum of values that may themselves be 16-byte wide numbers.
    static let wideTotal = "bk_wide_total"

    static func register(in db: Database) {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC
        let finals: [(String, @convention(c) (OpaquePointer?) -> Void)] = [
            (exact, finalExact), (comparable, finalComparable), (real, finalReal), (wideTotal, finalExact),
        ]
        for (name, final) in finals {
            let step: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void =
                name == wideTotal ? stepWide : stepInteger
            // Registration fails only on a misuse of the API (a bad name or argument count), a programming error.
            let code = sqlite3_create_function_v2(db.sqliteConnection, name, 1, flags, nil, nil, step, final, nil)
            precondition(code == SQLITE_OK, "registering \(name) failed: \(code)")
        }
    }

    private static let stateSize: Int32 = 24

    private static func state(_ context: OpaquePointer?, create: Bool) -> UnsafeMutableRawPointer? {
        sqlite3_aggregate_context(context, create ? stateSize : 0)
    }

    private static func load(_ state: UnsafeMutableRawPointer) -> Int128 {
        let low = state.load(as: UInt64.self)
        let high = state.load(fromByteOffset: 8, as: UInt64.self)
        return Int128(bitPattern: UInt128(high) << 64 | UInt128(low))
    }

    private static func store(_ value: Int128, count: Int64, in state: UnsafeMutableRawPointer) {
        let bits = UInt128(bitPattern: value)
        state.storeBytes(of: UInt64(truncatingIfNeeded: bits), as: UInt64.self)
        state.storeBytes(of: UInt64(truncatingIfNeeded: bits >> 64), toByteOffset: 8, as: UInt64.self)
        state.storeBytes(of: count, toByteOffset: 16, as: Int64.self)
    }

    // Stored units are Int64, so 2^64 of them cannot leave an Int128: no overflow check is needed here.
    // A REAL or TEXT value is read as an integer, as SUM's integer path and `>>` do.
    private static let stepInteger: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = arguments?[0], sqlite3_value_type(value) != SQLITE_NULL,
              let state = state(context, create: true) else { return }
        let count = state.load(fromByteOffset: 16, as: Int64.self)
        store(load(state) &+ Int128(sqlite3_value_int64(value)), count: count + 1, in: state)
    }

    private static let stepWide: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = arguments?[0], let state = state(context, create: true) else { return }
        let x: Int128
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: return
        case SQLITE_BLOB:
            let length = Int(sqlite3_value_bytes(value))
            guard length == WideInteger.byteCount, let bytes = sqlite3_value_blob(value) else { return }
            x = WideInteger.decode(bytes: UnsafeRawBufferPointer(start: bytes, count: length))
        default:
            x = Int128(sqlite3_value_int64(value))
        }
        let count = state.load(fromByteOffset: 16, as: Int64.self)
        let (sum, overflow) = load(state).addingReportingOverflow(x)
        if overflow {
            sqlite3_result_error(context, "a sum beyond 38 digits", -1)
            return
        }
        store(sum, count: count + 1, in: state)
    }

    /// The total so far, or nil when no value was added (the result is then NULL).
    private static func total(_ context: OpaquePointer?) -> Int128? {
        guard let state = state(context, create: false), state.load(fromByteOffset: 16, as: Int64.self) > 0 else {
            return nil
        }
        return load(state)
    }

    private static let finalExact: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let total = total(context) else { return sqlite3_result_null(context) }
        if let small = Int64(exactly: total) { return sqlite3_result_int64(context, small) }
        let bytes = WideInteger.orderKeyBytes(total)
        bytes.withUnsafeBytes { buffer in
            sqlite3_result_blob(context, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
        }
    }

    private static let finalComparable: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let total = total(context) else { return sqlite3_result_null(context) }
        switch WideInteger.comparable(total).storage {
        case .int64(let small): sqlite3_result_int64(context, small)
        case .double(let real): sqlite3_result_double(context, real)
        default: preconditionFailure("WideInteger.comparable gives an INTEGER or a REAL")
        }
    }

    private static let finalReal: @convention(c) (OpaquePointer?) -> Void = { context in
        guard let total = total(context) else { return sqlite3_result_null(context) }
        sqlite3_result_double(context, Double(total))
    }
}
