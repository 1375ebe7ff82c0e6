import Foundation

// The storage protocol: what the engine asks of the database behind a store. The object context, fetches, batch
// changes, the batch writer and export run their statements (built by the SQL layer, `ObjectStore/SQL/`) through a
// `StorageConnection` and read what comes back as `StoredValue`s; none of them names SQLite or GRDB. SQLite is the one
// implementation (`SQL/SQLite/SQLiteConnection.swift`); a second store is a second conformance, its dialect, and a
// row in DialectConformanceTests.

/// A connection to the database behind a store, for the length of one `Store.read`, `write` or `batch`.
///
/// Not for two threads at once (the batch writer's background inserter and its own thread take turns).
package protocol StorageConnection: AnyObject {
    /// Runs one statement whose rows, if any, are not read.
    func execute(_ sql: String, _ arguments: [StoredValue]) throws(StorageError)
    /// The statement for `sql`, prepared once for this connection and reused by every later call with the same text
    /// (a statement run once per object or per record).
    func statement(_ sql: String) throws(StorageError) -> any StorageStatement
    /// A statement prepared for one use, not kept (a query built for one fetch).
    func prepare(_ sql: String) throws(StorageError) -> any StorageStatement
    /// Rows inserted, updated or deleted by the last statement that wrote.
    var changes: Int { get }
    /// The row ID of the last row inserted.
    var lastInsertedID: Int64 { get }
    /// Whether a transaction is open on the connection.
    var isInsideTransaction: Bool { get }
    /// Runs `body` in a transaction of `kind`: committed when `body` says so, rolled back when it says so or throws.
    func transaction(_ kind: TransactionKind, _ body: () throws -> TransactionEnd) throws
    /// Whether the database has a table named `name` (the store's own tables: metadata, import history).
    func tableExists(_ name: String) throws(StorageError) -> Bool
    /// The names of `table`'s columns, in order.
    func columns(of table: String) throws(StorageError) -> [String]
    /// Loads `rows` rows into `table`: `values` holds each row's `columns` in order, row after row. The fastest way
    /// the database has to take many new rows (SQLite: one multi-row INSERT, prepared once per table and row count).
    func bulkInsert(into table: String, columns: [String], values: [StoredValue], rows: Int) throws(StorageError)
    /// Drops every statement `statement(_:)` kept (before the transaction that used them ends, or the store closes).
    func finalizeStatements()
}

/// How a transaction begins: `deferred` takes its locks as its statements need them (a read's snapshot);
/// `immediate` takes the write lock at once, so two writers never both read and then fail to write.
package enum TransactionKind: Sendable { case deferred, immediate }

/// How `StorageConnection.transaction` ends.
package enum TransactionEnd: Sendable { case commit, rollback }

/// A prepared statement. Arguments are numbered from 1; columns from 0.
package protocol StorageStatement: AnyObject {
    var sql: String { get }
    /// Binds argument `index`.
    func bind(_ index: Int32, _ value: StoredValue)
    /// Binds `arguments` as arguments 1…n.
    func bind(_ arguments: [StoredValue])
    /// Runs the statement to its end, then resets it (its bindings are kept).
    func execute() throws(StorageError)
    /// Steps once: true when a row is available to read with `column(_:)`. Call `reset()` after the last read.
    func step() throws(StorageError) -> Bool
    /// Makes the statement ready to run again.
    func reset()
    /// The number of columns of its rows.
    var columnCount: Int { get }
    /// The name of column `index` (as the statement's SELECT names it).
    func columnName(_ index: Int32) -> String
    /// Column `index` of the row the statement has just stepped to.
    func column(_ index: Int32) -> StoredValue
    /// Column `index` exactly as stored: text whole, NULs and all (the batch writer compares a record's values
    /// with these before it writes, so a value another tool stored with a NUL is rewritten, not judged unchanged).
    func exactColumn(_ index: Int32) -> StoredValue
    /// Column `index` as an integer, nil for NULL (faster than `column(_:)` for IDs).
    func int64(_ index: Int32) -> Int64?
    /// Column `index`'s text bytes, in place (valid until the statement steps or resets), or nil when it is not
    /// text — for writers that copy text out without making a `String` (fetch's byte path). Not a closure: a
    /// generic method through the protocol cost a fetch of 56,529 rows 13% of its time.
    func text(_ index: Int32) -> UnsafeBufferPointer<UInt8>?
}

/// A failure of the database, in the engine's terms; the implementation's own codes are kept for the store, which
/// words the message (`Store.mapErrors`).
package struct StorageError: Error, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Another connection holds a lock this one needs.
        case busy
        /// The database refuses to be written (a read-only file or role).
        case readOnly
        /// A constraint the database enforces (unique, foreign key, check).
        case constraint
        /// The database found its file damaged, or not a database.
        case damaged
        /// Anything else: the message says what.
        case other
    }
    package let kind: Kind
    /// The database's own words.
    package let message: String
    /// The statement that failed, when a statement did.
    package let sql: String?
    /// The implementation's code for the failure (SQLite: the extended result code).
    package let code: Int32
    /// What the operating system said beneath the failure (SQLite: `sqlite3_system_errno`), 0 when nothing.
    package let systemErrno: Int32
    /// The failure's SQLSTATE (PostgreSQL: `23505` a unique violation, `42501` no privilege), nil from SQLite.
    package let sqlState: String?

    package init(kind: Kind, message: String, sql: String?, code: Int32, systemErrno: Int32 = 0, sqlState: String? = nil) {
        self.kind = kind
        self.message = message
        self.sql = sql
        self.code = code
        self.systemErrno = systemErrno
        self.sqlState = sqlState
    }

    package var description: String {
        sql.map { "\(message) — while executing `\($0)`" } ?? message
    }
}

/// One row of a query, as stored values.
package struct StorageRow: Sendable {
    package var values: [StoredValue]
    /// The columns' names, shared by the rows of one statement.
    package var names: [String]
    package init(_ values: [StoredValue], names: [String] = []) {
        self.values = values
        self.names = names
    }
    package subscript(_ index: Int) -> StoredValue { values[index] }
    /// The column named `name` (ASCII case ignored, as SQL names are), nil when the row has none.
    package subscript(_ name: String) -> StoredValue? {
        for (i, n) in names.enumerated() where n == name || ObjectModel.sqlFold(n) == ObjectModel.sqlFold(name) { return values[i] }
        return nil
    }
    package func int64(_ index: Int) -> Int64? { values[index].int64 }
    package func int(_ index: Int) -> Int? { values[index].int64.map { Int($0) } }
    package func string(_ index: Int) -> String? { values[index].string }
    package var count: Int { values.count }
}

extension StoredValue {
    // Read as a statement's typed column reads it (SQLite's sqlite3_column_int64, _double, _text, which GRDB's
    // `Int64.fetchOne` and friends use): a number given as text is taken for its number, a number asked for as text
    // gives its digits. The engine's statements ask each column for what it holds; this only keeps the reading
    // as it was.

    /// An integer: a real's whole part, text's number; nil for NULL and bytes.
    package var int64: Int64? {
        switch self {
        case .integer(let i): return i
        case .real(let d): return d.isNaN ? 0 : d >= 9.223372036854775807e18 ? .max : d <= -9.223372036854775808e18 ? .min : Int64(d)
        case .text(let s):
            let t = s.trimmingCharacters(in: .whitespaces)
            return Int64(t) ?? Double(t).map { StoredValue.real($0).int64! } ?? 0
        case .null, .blob: return nil
        }
    }

    /// Text: text as it is, a number's digits, bytes as UTF-8; nil for NULL.
    package var string: String? {
        switch self {
        case .text(let s): return s
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .blob(let b): return String(decoding: b, as: UTF8.self)
        case .null: return nil
        }
    }

    /// A real: an integer's value, text's number; nil for NULL and bytes.
    package var double: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .real(let d): return d
        case .text(let s): return Double(s.trimmingCharacters(in: .whitespaces)) ?? 0
        case .null, .blob: return nil
        }
    }

    /// Whether a number is not zero; nil for NULL and bytes.
    package var bool: Bool? { int64.map { $0 != 0 } }
}

extension StorageConnection {
    /// Every row of a query.
    package func rows(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> [StorageRow] {
        let s = try prepare(sql)
        s.bind(arguments)
        return try s.allRows()
    }

    /// Every row of a query through the statement kept for `sql` (a query run once per object).
    package func cachedRows(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> [StorageRow] {
        let s = try statement(sql)
        s.bind(arguments)
        return try s.allRows()
    }

    /// The first column of the first row, nil when there is no row.
    package func value(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> StoredValue? {
        let s = try prepare(sql)
        s.bind(arguments)
        guard try s.step() else { return nil }
        defer { s.reset() }
        return s.column(0)
    }

    package func int(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> Int? {
        try value(sql, arguments)?.int64.map { Int($0) }
    }

    package func int64(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> Int64? {
        try value(sql, arguments)?.int64
    }

    package func string(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> String? {
        try value(sql, arguments)?.string
    }

    package func double(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> Double? {
        try value(sql, arguments)?.double
    }

    package func bool(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> Bool? {
        try value(sql, arguments)?.bool
    }

    /// The first column of every row.
    package func column(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> [StoredValue] {
        try rows(sql, arguments).map { $0[0] }
    }

    package func execute(_ sql: String) throws(StorageError) { try execute(sql, []) }

    /// Runs `sql` through the statement kept for it (a statement run once per object).
    package func execute(cached sql: String, _ arguments: [StoredValue]) throws(StorageError) {
        let s = try statement(sql)
        s.bind(arguments)
        try s.execute()
    }

    /// A cursor over the rows of `sql`, stepped one row at a time.
    package func cursor(_ sql: String, _ arguments: [StoredValue] = []) throws(StorageError) -> StorageCursor {
        let s = try prepare(sql)
        s.bind(arguments)
        return StorageCursor(statement: s)
    }
}

extension StorageStatement {
    /// Every row the statement gives, from the start; the statement is reset after.
    package func allRows() throws(StorageError) -> [StorageRow] {
        var rows: [StorageRow] = []
        let n = Int32(columnCount)
        let names = (0..<n).map(columnName)
        defer { reset() }
        while try step() {
            var values: [StoredValue] = []
            values.reserveCapacity(Int(n))
            for i in 0..<n { values.append(column(i)) }
            rows.append(StorageRow(values, names: names))
        }
        return rows
    }
}

/// The rows of a statement, one at a time.
package struct StorageCursor {
    package let statement: any StorageStatement
    private var done = false
    private var names: [String] = []

    package init(statement: any StorageStatement) { self.statement = statement }

    /// Steps to the next row (read it through `statement.column(_:)`); false after the last, when the statement
    /// is reset.
    package mutating func step() throws(StorageError) -> Bool {
        if done { return false }
        if try statement.step() { return true }
        done = true
        statement.reset()
        return false
    }

    /// The next row, nil after the last.
    package mutating func next() throws(StorageError) -> StorageRow? {
        guard try step() else { return nil }
        let n = Int32(statement.columnCount)
        if names.count != Int(n) { names = (0..<n).map(statement.columnName) }
        var values: [StoredValue] = []
        values.reserveCapacity(Int(n))
        for i in 0..<n { values.append(statement.column(i)) }
        return StorageRow(values, names: names)
    }
}

extension StoredValue: CustomStringConvertible {
    /// As `--explain` lists a bound argument and messages name a stored value: a number's digits, text quoted,
    /// bytes by their count, `NULL`.
    package var description: String {
        switch self {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return String(d)
        case .text(let s): return String(reflecting: s)
        case .blob(let data): return "Data(\(data.description))"
        }
    }
}
