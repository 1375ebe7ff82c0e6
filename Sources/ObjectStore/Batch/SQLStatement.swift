// Prepared statements over the raw SQLite C API, for the batch writer's hot path.
//
// Why this file exists: a bulk import executes a few statements millions of times. GRDB's
// StatementArguments box every value ([DatabaseValueConvertible?] → DatabaseValue) and check
// arguments per call; measured on the 1M-line bench file that boxing alone cost more than SQLite's
// own work. Here a statement is prepared once (SQL text built from quoted model identifiers only),
// values are bound by index with sqlite3_bind_*, and errors quote the statement, as GRDB's do.

import Foundation
import GRDB
import GRDBSQLite

/// A value as SQLite stores it: what `Value` becomes in a column of a given attribute type.
enum SQLValue: Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

extension Value {
    /// The stored form in a column of `type` (the value must fit; see `Value+Database.swift`).
    func sqlValue(for type: AttributeType) -> SQLValue {
        switch (self, type) {
        case (.null, _): return .null
        case (.string(let s), _): return .text(s)
        case (.integer(let i), _): return .integer(i)
        case (.decimal(let d), .decimal(let scale)):
            // Validation refused values beyond an Int64 before anything is written.
            if d.scale == scale { return .integer(d.storedUnits!) }
            return .integer((d.exactly(atScale: scale) ?? d.rounded(toScale: scale)!).storedUnits!)
        case (.decimal(let d), _): return .integer(d.storedUnits!)
        case (.double(let d), _): return .real(d)
        case (.boolean(let b), _): return .integer(b ? 1 : 0)
        case (.date(let d), _): return .text(SQLValue.iso(d))
        case (.dateTime(let t), _): return .text(t.description)
        case (.binary(let data), _): return .blob(Array(data))
        }
    }
}

extension SQLValue {
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

    /// The value of an attribute of `type` stored as this (the inverse of `Value.sqlValue(for:)`), through the one
    /// decoder (`Value(stored:as:)`).
    func value(as type: AttributeType) -> Value {
        switch self {
        case .null: return .null
        case .integer(let i): return Value(stored: .integer(i), as: type)
        case .real(let d): return Value(stored: .real(d), as: type)
        case .text(let s): return Value(stored: .text(s), as: type)
        case .blob(let b): return Value(stored: .blob(Data(b)), as: type)
        }
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies the bytes before bind returns (the macro is not imported into Swift).
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

final class SQLStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLConnection

    init(_ connection: SQLConnection, sql: String) throws(BatchError) {
        self.connection = connection
        self.sql = sql
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else { throw connection.error(code, sql: sql) }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always)
    func bind(_ index: Int32, _ value: SQLValue) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let i): sqlite3_bind_int64(handle, index, i)
        case .real(let d): sqlite3_bind_double(handle, index, d)
        case .text(var s):
            s.withUTF8 { bytes in
                _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(bytes.baseAddress!).assumingMemoryBound(to: CChar.self),
                                      Int32(bytes.count), sqliteTransient)
            }
        case .blob(let b):
            b.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), sqliteTransient)
            }
        }
    }

    @inline(__always)
    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    /// Runs a statement that returns no rows, then resets it.
    func execute() throws(BatchError) {
        let code = sqlite3_step(handle)
        sqlite3_reset(handle)
        guard code == SQLITE_DONE || code == SQLITE_ROW else { throw connection.error(code, sql: sql) }
    }

    /// Steps once: true when a row is available. Call `reset()` when done reading.
    func step() throws(BatchError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        sqlite3_reset(handle)
        throw connection.error(code, sql: sql)
    }

    func reset() { sqlite3_reset(handle) }

    @inline(__always)
    func int64(_ column: Int32) -> Int64? {
        sqlite3_column_type(handle, column) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, column)
    }

    func column(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_FLOAT: return .real(sqlite3_column_double(handle, column))
        case SQLITE_TEXT:
            let n = Int(sqlite3_column_bytes(handle, column))
            guard let p = sqlite3_column_text(handle, column) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        case SQLITE_BLOB:
            let n = Int(sqlite3_column_bytes(handle, column))
            guard n > 0, let p = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: p, count: n)))
        default: return .null
        }
    }
}

/// The connection a batch runs on, with its statement cache.
final class SQLConnection {
    let handle: OpaquePointer
    let path: String
    private var statements: [String: SQLStatement] = [:]

    init(handle: OpaquePointer, path: String) {
        self.handle = handle
        self.path = path
    }

    /// The prepared statement for `sql`, prepared once.
    func statement(_ sql: String) throws(BatchError) -> SQLStatement {
        if let s = statements[sql] { return s }
        let s = try SQLStatement(self, sql: sql)
        statements[sql] = s
        return s
    }

    func execute(_ sql: String) throws(BatchError) {
        let code = sqlite3_exec(handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else { throw error(code, sql: sql) }
    }

    var lastInsertedRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    func error(_ code: Int32, sql: String) -> BatchError {
        let message = String(cString: sqlite3_errmsg(handle))
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: return .busy(path: path)
        case SQLITE_READONLY: return .readOnly(path: path)
        case SQLITE_CONSTRAINT: return .constraint("\(message) — while executing `\(sql)`")
        case SQLITE_CORRUPT: return .sqlite(Store.damaged(path, message))
        default:
            if let detail = Store.fileSizeLimitReached(code, connection: handle, path: path, writes: true) {
                return .sqlite("\(path): \(message): \(detail)")
            }
            return .sqlite("\(path): \(message) — while executing `\(sql)`")
        }
    }

    func finalizeAll() { statements = [:] }
}
