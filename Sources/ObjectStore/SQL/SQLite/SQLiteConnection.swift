// The storage protocol over SQLite's C API (StorageConnection.swift has the protocol).
//
// Why the C API and not GRDB's `Statement`: a bulk import executes a few statements millions of times and a report
// reads every value of 100,000 rows. GRDB's StatementArguments box every value ([DatabaseValueConvertible?] →
// DatabaseValue) and check arguments per call, and its `Row` decodes each value through generic metadata; measured
// on the 1M-line bench file that boxing alone cost more than SQLite's own work. Here a statement is prepared once,
// values are bound by index with sqlite3_bind_*, read in place with sqlite3_column_*, and errors quote the statement
// as GRDB's do. GRDB still opens the connection (configuration, busy handler, functions) and serialises its use.

import Foundation
import GRDBSQLite

/// `SQLITE_TRANSIENT`: SQLite copies the bytes before bind returns (the macro is not imported into Swift).
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A connection to a store's SQLite file, with the statements it keeps.
package final class SQLiteConnection: StorageConnection {
    let handle: OpaquePointer
    private var statements: [String: SQLiteStatement] = [:]
    /// Bulk inserts' statements by table, columns and row count.
    private var bulkStatements: [String: [Int: SQLiteStatement]] = [:]

    package var dialect: any SQLDialect { SQLiteDialect() }

    package init(handle: OpaquePointer) {
        self.handle = handle
    }

    package func statement(_ sql: String) throws(StorageError) -> any StorageStatement { try kept(sql) }

    /// The statement kept for `sql`, as its concrete type.
    func kept(_ sql: String) throws(StorageError) -> SQLiteStatement {
        if let s = statements[sql] { return s }
        let s = try SQLiteStatement(self, sql: sql, persistent: true)
        statements[sql] = s
        return s
    }

    package func prepare(_ sql: String) throws(StorageError) -> any StorageStatement {
        try SQLiteStatement(self, sql: sql, persistent: false)
    }

    package func execute(_ sql: String, _ arguments: [StoredValue]) throws(StorageError) {
        if arguments.isEmpty {
            // sqlite3_exec runs every statement of the text (a schema script, a pragma and its value).
            let code = sqlite3_exec(handle, sql, nil, nil, nil)
            guard code == SQLITE_OK else { throw error(code, sql: sql) }
            return
        }
        let s = try SQLiteStatement(self, sql: sql, persistent: false)
        s.bind(arguments)
        try s.execute()
    }

    package var changes: Int { Int(sqlite3_changes64(handle)) }
    package var lastInsertedID: Int64 { sqlite3_last_insert_rowid(handle) }
    package var isInsideTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    package func transaction(_ kind: TransactionKind, _ body: () throws -> TransactionEnd) throws {
        try execute(kind == .immediate ? SQLiteDialect().beginWriteTransaction : SQLiteDialect().beginRead, [])
        let end: TransactionEnd
        do {
            end = try body()
        } catch {
            // (SQLite may have rolled back already: an I/O error, a full disk.)
            if isInsideTransaction { try? execute(SQLiteDialect().rollback, []) }
            throw error
        }
        switch end {
        case .commit:
            do {
                try execute(SQLiteDialect().commit, [])
            } catch {
                if isInsideTransaction { try? execute(SQLiteDialect().rollback, []) }
                throw error
            }
        case .rollback:
            try execute(SQLiteDialect().rollback, [])
        }
    }

    package func tableExists(_ name: String) throws(StorageError) -> Bool {
        try bool(StoreSQL.sqlite.tableExists, [.text(name)]) ?? false
    }

    package func columns(of table: String) throws(StorageError) -> [String] {
        try rows(BatchSQL.sqlite.columnsOfTable, [.text(table)]).compactMap { $0.string(0) }
    }

    package func bulkInsert(into table: String, columns: [String], values: [StoredValue], rows: Int) throws(StorageError) {
        let key = table + "\u{0}" + columns.joined(separator: "\u{0}")
        let s: SQLiteStatement
        if let known = bulkStatements[key]?[rows] {
            s = known
        } else {
            s = try SQLiteStatement(self, sql: BatchSQL.sqlite.insertRows(into: table, columns: columns, rows: rows), persistent: true)
            bulkStatements[key, default: [:]][rows] = s
        }
        var i: Int32 = 1
        for v in values {
            s.bind(i, v)
            i += 1
        }
        try s.execute()
    }

    package func finalizeStatements() {
        statements = [:]
        bulkStatements = [:]
    }

    /// SQLite's failure `code` (of `sql`) in the engine's terms, with SQLite's words and codes.
    func error(_ code: Int32, sql: String?) -> StorageError {
        let extended = sqlite3_extended_errcode(handle)
        let message = String(cString: sqlite3_errmsg(handle))
        let kind: StorageError.Kind
        switch code & 0xFF {
        case SQLITE_BUSY, SQLITE_LOCKED: kind = .busy
        case SQLITE_READONLY: kind = .readOnly
        case SQLITE_CONSTRAINT: kind = .constraint
        case SQLITE_CORRUPT, SQLITE_NOTADB: kind = .damaged
        default: kind = .other
        }
        // The extended code when SQLite has one for this failure (it is the primary code's refinement).
        let full = (extended & 0xFF) == (code & 0xFF) ? extended : code
        return StorageError(kind: kind, message: message, sql: sql, code: full, systemErrno: sqlite3_system_errno(handle))
    }
}

/// A prepared SQLite statement.
package final class SQLiteStatement: StorageStatement {
    let handle: OpaquePointer
    package let sql: String
    private unowned let connection: SQLiteConnection

    init(_ connection: SQLiteConnection, sql: String, persistent: Bool) throws(StorageError) {
        self.connection = connection
        self.sql = sql
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, persistent ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0,
                                      &statement, nil)
        guard code == SQLITE_OK, let statement else { throw connection.error(code, sql: sql) }
        handle = statement
    }

    deinit { sqlite3_finalize(handle) }

    @inline(__always)
    package func bind(_ index: Int32, _ value: StoredValue) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let i): sqlite3_bind_int64(handle, index, i)
        case .real(let d): sqlite3_bind_double(handle, index, d)
        case .text(var s):
            s.withUTF8 { bytes in
                _ = sqlite3_bind_text(handle, index, UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self), Int32(bytes.count), sqliteTransient)
            }
        case .blob(let b):
            b.withUnsafeBytes { raw in
                _ = sqlite3_bind_blob(handle, index, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(raw.count), sqliteTransient)
            }
        }
    }

    package func bind(_ arguments: [StoredValue]) {
        sqlite3_clear_bindings(handle)
        var i: Int32 = 1
        for a in arguments {
            bind(i, a)
            i += 1
        }
    }

    package func execute() throws(StorageError) {
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_ROW { continue }
            sqlite3_reset(handle)
            guard code == SQLITE_DONE else { throw connection.error(code, sql: sql) }
            return
        }
    }

    @inline(__always)
    package func step() throws(StorageError) -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE { return false }
        sqlite3_reset(handle)
        throw connection.error(code, sql: sql)
    }

    package func reset() { sqlite3_reset(handle) }

    package var columnCount: Int { Int(sqlite3_column_count(handle)) }

    package func columnName(_ index: Int32) -> String { sqlite3_column_name(handle, index).map { String(cString: $0) } ?? "" }

    /// Text is read up to a NUL and repaired where it is not UTF-8, as every reader of the store reads it
    /// (`StoredValue(statement:index:)`).
    @inline(__always)
    package func column(_ index: Int32) -> StoredValue { StoredValue(statement: handle, index: index) }

    @inline(__always)
    package func int64(_ index: Int32) -> Int64? {
        sqlite3_column_type(handle, index) == SQLITE_NULL ? nil : sqlite3_column_int64(handle, index)
    }

    package func text(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard sqlite3_column_type(handle, index) == SQLITE_TEXT, let text = sqlite3_column_text(handle, index) else { return nil }
        return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(handle, index)))
    }

    package func exactColumn(_ index: Int32) -> StoredValue {
        switch sqlite3_column_type(handle, index) {
        case SQLITE_TEXT:
            let n = Int(sqlite3_column_bytes(handle, index))
            guard let p = sqlite3_column_text(handle, index) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self))
        default:
            return column(index)
        }
    }
}

import GRDB

extension Database {
    /// This GRDB connection as the storage protocol, for the SQLite-only parts of the store (migration, check) that
    /// call the engine's own readers. (Statements are not kept: `Store.storage` keeps the engine's.)
    var storage: SQLiteConnection { SQLiteConnection(handle: sqliteConnection!) }
}
