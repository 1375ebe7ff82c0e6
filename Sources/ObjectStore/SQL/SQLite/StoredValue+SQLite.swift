import Foundation
import GRDB
import GRDBSQLite

// Stored values as SQLite's C API and GRDB give and take them: for the SQLite implementation of the storage protocol
// (SQLiteConnection), the functions the store registers, and the SQLite-only parts of the store (migration, check).

extension StoredValue {
    /// Column `index` of the row `statement` has just stepped to, read in place (no `Row`, no `DatabaseValue`:
    /// going through them instantiated generic metadata for every value, which a 100,000-row report showed).
    /// Text is read up to a NUL, and bytes that are not UTF-8 are repaired (U+FFFD), as GRDB reads text
    /// (`DatabaseValue` below): the importer refuses NUL, so only another tool can have written one, and
    /// `check` names such values.
    @inline(__always)
    package init(statement: OpaquePointer, index: Int32) {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: self = .integer(sqlite3_column_int64(statement, index))
        case SQLITE_FLOAT: self = .real(sqlite3_column_double(statement, index))
        case SQLITE_TEXT:
            let bytes = sqlite3_column_text(statement, index)
            let stored = Int(sqlite3_column_bytes(statement, index))
            let count = bytes.map { strnlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self), stored) } ?? 0
            self = .text(bytes.map { String(decoding: UnsafeBufferPointer(start: $0, count: count), as: UTF8.self) } ?? "")
        case SQLITE_BLOB:
            let bytes = sqlite3_column_blob(statement, index)
            let count = Int(sqlite3_column_bytes(statement, index))
            self = .blob(bytes.map { Data(bytes: $0, count: count) } ?? Data())
        default:
            self = .null
        }
    }

    /// The stored value GRDB has read (a function's argument).
    package init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let data): self = .blob(data)
        }
    }
}

extension StoredValue {
    /// As GRDB binds it (SQLite's own functions give values back through GRDB).
    package var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .integer(let i): return i.databaseValue
        case .real(let d): return d.databaseValue
        case .text(let s): return s.databaseValue
        case .blob(let b): return b.databaseValue
        }
    }
}

extension Value {
    /// As GRDB binds the value in a column of `type` (`storedValue(for:)`).
    func databaseValue(for type: AttributeType) -> DatabaseValue { storedValue(for: type).databaseValue }

    /// Reads a value GRDB has read as `type`, through the one decoder.
    init(databaseValue: DatabaseValue, as type: AttributeType) {
        self.init(stored: StoredValue(databaseValue), as: type)
    }
}
