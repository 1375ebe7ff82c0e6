// The storage protocol over libpq, PostgreSQL's C client library (StorageConnection.swift has the protocol; the
// SQLite implementation, SQL/SQLite/SQLiteConnection.swift, is the model this one follows). Only the files of this
// folder import CLibPQ or call libpq (SQLBoundaryTests).
//
// Nothing outlives a transaction on the server (docs/postgresql.md, "PgBouncer"): a pooler in transaction mode
// (PgBouncer's `pool_mode = transaction`) hands each transaction whichever server connection is free, so what one
// transaction leaves on its server session — a setting, a named prepared statement — is another client's next, and
// the next transaction of this one may find another client's instead. So every unit of work is a transaction whose
// first round trip is BEGIN and the settings it depends on, each `SET LOCAL` (`transactionSettings`), plus the
// books' advisory lock for a write (`pg_advisory_xact_lock`, transaction-scoped); the session itself is never SET.
//
// Statements use `$1…$n` placeholders. `prepare(_:)` runs the unnamed statement once per execution
// (PQsendQueryParams); `statement(_:)` keeps a named server-side statement, prepared on its first execution inside
// a transaction with that binding's parameter types, and prepared again under another name when a later binding's
// types differ (a NULL first, a number later). Named statements live for one transaction: their names carry a
// random token of this connection (`bk_<token>_<n>`: no other client's statement can have one), they are
// DEALLOCATEd in the same round trip as the COMMIT (before it) or the ROLLBACK (after it), and the next transaction
// prepares them again; outside a transaction a kept statement runs unnamed. Values are bound as: integer → int8, real → float8 (NaN, Infinity as PostgreSQL spells
// them), text → unknown (the server infers the type from where it stands, so text bound beside a date or a bigint
// column works, and `SELECT $1` alone is text), bytes → bytea in binary, NULL → unknown. Results come as text and
// are read by the column's type (`PostgreSQLValue.stored`).
//
// Rows stream: every query runs in single-row mode, so a million-row fetch holds one row at a time. libpq runs one
// query at a time per connection, where SQLite steps several statements side by side; so when a statement starts
// while another is still streaming, the other one's remaining rows are read into memory first (correct, not
// streaming: the engine does not nest queries on its large reads). A statement reset mid-way reads and drops the
// rest, or outside a transaction cancels the query after the first thousand rows (a cancel inside a transaction
// would abort the transaction).

import CLibPQ
import Foundation

// MARK: Connecting

/// Why a connection to a PostgreSQL server was not made, in the engine's terms, with libpq's reason.
package struct PostgreSQLConnectError: Error, CustomStringConvertible, Equatable {
    package enum Kind: Sendable, Equatable {
        /// No server answered: no socket, a refused connection, a host name that does not resolve.
        case unreachable
        /// The server refused the role: a wrong or missing password, no pg_hba.conf entry, an unknown role.
        case authentication
        /// The server has no database of that name.
        case databaseMissing
        /// The server is older than PostgreSQL 15 (its version, as `14.5`).
        case serverTooOld(version: String)
        /// The database's encoding is not UTF8 (the encoding's name).
        case notUTF8(encoding: String)
        /// Anything else: the reason says what.
        case other
    }
    package let kind: Kind
    /// libpq's reason (or ours, for the version and the encoding) on one line, trimmed; never a password.
    package let reason: String

    package init(kind: Kind, reason: String) {
        self.kind = kind
        self.reason = reason
    }

    package var description: String { reason }

    /// libpq's message on one line: its lines trimmed and joined, the password (when one was given) masked.
    static func oneLine(_ message: String, hiding passwords: [String] = []) -> String {
        var line = message.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
            .joined(separator: " ")
        // libpq does not print the password; should a later version or a message quoting the conninfo do so, it is
        // masked (a password of one or two characters would mask innocent letters, so is left alone).
        for password in passwords where password.count >= 3 {
            line = line.replacingOccurrences(of: password, with: "***")
        }
        return line
    }

    /// The kind of a failed connection, from libpq's message: libpq gives no SQLSTATE for a connection that failed,
    /// so its (English, untranslated: the client's messages are not localised here) phrases decide —
    /// "Connection refused", "No such file or directory" (no socket in that folder), "could not translate host
    /// name", "Network is unreachable", "No route to host", "timeout expired" → unreachable; "password
    /// authentication failed", "no password supplied", "no pg_hba.conf entry", `role "x" does not exist`, "SCRAM
    /// authentication", "authentication method" → authentication; `database "x" does not exist` → databaseMissing;
    /// anything else → other.
    package static func classify(message: String) -> Kind {
        func has(_ phrase: String) -> Bool { message.range(of: phrase, options: .caseInsensitive) != nil }
        if has("password authentication failed") || has("no password supplied") || has("no pg_hba.conf entry")
            || (has("role \"") && has("\" does not exist")) || has("SCRAM authentication") || has("authentication method")
            || has("Peer authentication failed") {
            return .authentication
        }
        if has("database \"") && has("\" does not exist") { return .databaseMissing }
        if has("Connection refused") || has("No such file or directory") || has("could not translate host name")
            || has("Network is unreachable") || has("No route to host") || has("timeout expired")
            || has("could not connect to server") {
            return .unreachable
        }
        return .other
    }

    /// The refusal of a server older than 15, nil for 15 and later. `serverVersionNumber` is `server_version_num`
    /// (libpq's PQserverVersion): 150004 for 15.4, 140011 for 14.11, 90624 for 9.6.24; 0 when unknown.
    package static func versionRefusal(serverVersionNumber: Int) -> PostgreSQLConnectError? {
        guard serverVersionNumber < 150000 else { return nil }
        let version: String
        if serverVersionNumber >= 100000 {
            version = "\(serverVersionNumber / 10000).\(serverVersionNumber % 10000)"
        } else if serverVersionNumber > 0 {
            version = "\(serverVersionNumber / 10000).\(serverVersionNumber / 100 % 100).\(serverVersionNumber % 100)"
        } else {
            version = "unknown"
        }
        return PostgreSQLConnectError(kind: .serverTooOld(version: version),
                                      reason: "the server runs PostgreSQL \(version); Bookkeeper needs PostgreSQL 15 or later")
    }
}

/// The SQL this connection runs of its own accord (the store's SQL is built by the dialect).
enum PostgreSQLConnectionSQL {
    // Every setting the readings and writings depend on, whatever the role, the database, PGOPTIONS or the server
    // session a pooler lends set (attack 19: extra_float_digits = 0 read doubles to 15 digits; bytea_output = escape
    // read bytes as their escapes), for the transaction only (SET LOCAL: a pooler's next client gets the session
    // as it was).
    static let settings = "SET LOCAL client_encoding = 'UTF8'; SET LOCAL DateStyle = 'ISO, MDY'; SET LOCAL IntervalStyle = 'postgres'; "
        + "SET LOCAL TimeZone = 'UTC'; SET LOCAL standard_conforming_strings = on; SET LOCAL extra_float_digits = 1; "
        + "SET LOCAL bytea_output = 'hex'"
    /// A transaction that may write (READ COMMITTED, whatever default_transaction_isolation says), or one that only
    /// reads, from one snapshot (REPEATABLE READ READ ONLY).
    static func begin(readOnly: Bool) -> String {
        readOnly ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN ISOLATION LEVEL READ COMMITTED"
    }
    static let begin = "BEGIN"
    static let commit = "COMMIT"
    static let rollback = "ROLLBACK"
    static func writeLock(_ key: Int64) -> String { "SELECT pg_advisory_xact_lock(\(key))" }
    static let lastValue = "SAVEPOINT bk_lastval; SELECT lastval(); RELEASE SAVEPOINT bk_lastval"
    static let lastValueUndo = "ROLLBACK TO SAVEPOINT bk_lastval; RELEASE SAVEPOINT bk_lastval"
    static let lastValueOutside = "SELECT lastval()"
    static let tableExists = """
        SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
        WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind IN ('r', 'p'))
        """
    static let columns = """
        SELECT a.attname FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_class c ON c.oid = a.attrelid \
        JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace \
        WHERE n.nspname = current_schema() AND c.relname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 \
        AND NOT a.attisdropped ORDER BY a.attnum
        """
    static func deallocate(_ name: String) -> String { "DEALLOCATE \(name)" }
    static func quoted(_ identifier: String) -> String { "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
    static func insertRows(into table: String, columns: [String], rows: Int) -> String {
        var sql = "INSERT INTO \(quoted(table)) (\(columns.map(quoted).joined(separator: ", "))) VALUES "
        var n = 1
        for row in 0..<rows {
            sql += row == 0 ? "(" : ", ("
            for column in 0..<columns.count {
                if column > 0 { sql += ", " }
                sql += "$\(n)"
                n += 1
            }
            sql += ")"
        }
        return sql
    }
}

// MARK: The connection

/// A connection to a PostgreSQL database, with the statements it keeps.
package final class PostgreSQLConnection: StorageConnection {
    /// libpq's connection; nil once closed.
    private(set) var handle: OpaquePointer?
    /// The advisory lock an `.immediate` transaction takes (`pg_advisory_xact_lock`), so two writers of one set of
    /// books take turns as SQLite's writers do; nil: none.
    package let writeLockKey: Int64?
    /// PostgreSQL's limit on a statement's parameters (a 16-bit count in the protocol).
    package static let maximumParameters = 65_535

    private var statements: [String: PostgreSQLStatement] = [:]
    /// Bulk inserts' statements by table, columns and row count.
    private var bulkStatements: [String: [Int: PostgreSQLStatement]] = [:]
    /// The named server-side statements this transaction prepared, DEALLOCATEd as it ends.
    private var preparedInTransaction: [String] = []
    private var nextName = 0
    /// This connection's part of every statement name: random, so that no other client sharing a pooled server
    /// session can have a statement of the same name.
    package let statementToken: String = {
        var generator = SystemRandomNumberGenerator()
        return String(generator.next() as UInt64, radix: 36)
    }()
    /// Counts the transactions ended: a kept statement prepared in an earlier one is prepared again.
    private(set) var transactionGeneration = 0
    /// What every transaction sets first, after BEGIN and in the same round trip: `SET LOCAL` statements (or
    /// `set_config(…, true)`), joined by "; ". The books add their search_path, time zone and lock timeout
    /// (Store+PostgreSQL.swift).
    package var transactionSettings = PostgreSQLConnectionSQL.settings
    /// The statement whose rows are streaming (libpq runs one query at a time).
    weak var active: PostgreSQLStatement?
    /// `changes`: rows written by the last INSERT, UPDATE, DELETE or MERGE.
    var lastChanges = 0
    /// Whether the last `transaction` failed with the connection lost while its COMMIT was under way: whether the
    /// server committed it is not known.
    package private(set) var commitOutcomeUnknown = false

    /// Connects with `conninfo` — anything PQconnectdb takes: `key=value` pairs or a `postgresql://` URI; libpq's
    /// environment (PGHOST, PGPORT, PGUSER, PGPASSWORD, PGSSLMODE…) and ~/.pgpass apply by themselves — and refuses
    /// a server older than 15 or a database whose encoding is not UTF8. The session is not SET: every transaction
    /// sets its client encoding (UTF8), date style (ISO), time zone (UTC), standard-conforming strings… itself
    /// (`transactionSettings`).
    package var dialect: any SQLDialect { PostgreSQLDialect() }

    package init(conninfo: String, writeLockKey: Int64? = nil) throws(PostgreSQLConnectError) {
        self.writeLockKey = writeLockKey
        guard let connection = PQconnectdb(conninfo) else {
            throw PostgreSQLConnectError(kind: .other, reason: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(connection))
            PQfinish(connection)
            let line = PostgreSQLConnectError.oneLine(message, hiding: Self.passwords(in: conninfo))
            throw PostgreSQLConnectError(kind: PostgreSQLConnectError.classify(message: message), reason: line)
        }
        // Notices (`schema "x" already exists, skipping`) are not the engine's output: libpq prints them on stderr.
        PQsetNoticeProcessor(connection, { _, _ in }, nil)
        handle = connection
        if let refusal = PostgreSQLConnectError.versionRefusal(serverVersionNumber: Int(PQserverVersion(connection))) {
            close()
            throw refusal
        }
        let encoding = PQparameterStatus(connection, "server_encoding").map { String(cString: $0) } ?? ""
        guard encoding == "UTF8" else {
            close()
            throw PostgreSQLConnectError(kind: .notUTF8(encoding: encoding),
                                         reason: "the database's encoding is \(encoding.isEmpty ? "unknown" : encoding), not UTF8")
        }
    }

    deinit { close() }

    /// Finishes the connection (the server ends its session: an open transaction rolls back).
    package func close() {
        guard let handle else { return }
        active?.abandon()
        statements = [:]
        bulkStatements = [:]
        PQfinish(handle)
        self.handle = nil
    }

    /// The password `conninfo` (or PGPASSWORD) gives, to keep out of messages.
    private static func passwords(in conninfo: String) -> [String] {
        var found: [String] = []
        if let p = ProcessInfo.processInfo.environment["PGPASSWORD"], !p.isEmpty { found.append(p) }
        guard let options = PQconninfoParse(conninfo, nil) else { return found }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if String(cString: keyword) == "password", let value = option.pointee.val { found.append(String(cString: value)) }
            option += 1
        }
        return found
    }

    /// The open connection, or the error of a closed one.
    func open(sql: String?) throws(StorageError) -> OpaquePointer {
        guard let handle else { throw StorageError(kind: .other, message: "the connection is closed", sql: sql, code: 0) }
        return handle
    }

    /// A statement name no other statement of this connection has, nor any other client's.
    func newName() -> String {
        nextName += 1
        return "bk_\(statementToken)_\(nextName)"
    }

    /// Notes a named statement prepared in this transaction (DEALLOCATEd as it ends).
    func notePrepared(_ name: String) {
        preparedInTransaction.append(name)
    }

    /// The DEALLOCATE statements of this transaction's named statements, each followed by "; " (none: ""), and
    /// forgets them: they are sent with the COMMIT or the ROLLBACK.
    private func takeDeallocations() -> String {
        defer {
            preparedInTransaction = []
            transactionGeneration += 1
        }
        return preparedInTransaction.map { PostgreSQLConnectionSQL.deallocate($0) + "; " }.joined()
    }

    /// Makes the connection free for a new query: a statement still streaming reads its remaining rows into memory.
    func yieldActive(to statement: PostgreSQLStatement? = nil) {
        guard let streaming = active else { return }
        active = nil
        if streaming !== statement { streaming.bufferRemainingResults() }
    }

    package func statement(_ sql: String) throws(StorageError) -> any StorageStatement { kept(sql) }

    func kept(_ sql: String) -> PostgreSQLStatement {
        if let s = statements[sql] { return s }
        let s = PostgreSQLStatement(self, sql: sql, persistent: true)
        statements[sql] = s
        return s
    }

    package func prepare(_ sql: String) throws(StorageError) -> any StorageStatement {
        PostgreSQLStatement(self, sql: sql, persistent: false)
    }

    package func execute(_ sql: String, _ arguments: [StoredValue]) throws(StorageError) {
        if arguments.isEmpty {
            // The simple query protocol runs every statement of the text (a schema script, SET and its value).
            let handle = try open(sql: sql)
            yieldActive()
            guard PQsendQuery(handle, sql) == 1 else { throw connectionError(sql: sql) }
            var failure: StorageError?
            while let result = PQgetResult(handle) {
                if failure == nil { failure = check(result, sql: sql) }
                PQclear(result)
            }
            if let failure { throw failure }
            return
        }
        let s = PostgreSQLStatement(self, sql: sql, persistent: false)
        s.bind(arguments)
        try s.execute()
    }

    package var changes: Int { lastChanges }

    /// The value `lastval()` gives: the last identity or serial value this session drew (0 when none was).
    package var lastInsertedID: Int64 {
        guard let handle else { return 0 }
        yieldActive()
        if !isInsideTransaction {
            return (try? int64(PostgreSQLConnectionSQL.lastValueOutside)) ?? 0
        }
        // Inside a transaction a failed lastval() (none drawn yet) would abort the transaction: under a savepoint.
        guard PQsendQuery(handle, PostgreSQLConnectionSQL.lastValue) == 1 else { return 0 }
        var value: Int64 = 0
        var failed = false
        while let result = PQgetResult(handle) {
            switch PQresultStatus(result) {
            case PGRES_TUPLES_OK where PQntuples(result) == 1:
                value = PostgreSQLValue.integer(result, 0, 0) ?? 0
            case PGRES_FATAL_ERROR, PGRES_NONFATAL_ERROR, PGRES_BAD_RESPONSE:
                failed = true
            default:
                break
            }
            PQclear(result)
        }
        if failed { try? execute(PostgreSQLConnectionSQL.lastValueUndo, []) }
        return value
    }

    package var isInsideTransaction: Bool {
        guard let handle else { return false }
        switch PQtransactionStatus(handle) {
        case PQTRANS_INTRANS, PQTRANS_INERROR: return true
        case PQTRANS_ACTIVE: return active?.startedInsideTransaction ?? false
        default: return false
        }
    }

    package func transaction(_ kind: TransactionKind, _ body: () throws -> TransactionEnd) throws {
        try transaction(kind, readOnly: false, body)
    }

    /// A transaction: BEGIN, `transactionSettings` and, for an `.immediate` one, the books' advisory lock, in one
    /// round trip; `readOnly`: a read-only one from one snapshot (REPEATABLE READ READ ONLY).
    package func transaction(_ kind: TransactionKind, readOnly: Bool, _ body: () throws -> TransactionEnd) throws {
        // PostgreSQL only warns of a BEGIN inside a transaction, and the inner COMMIT would commit the outer one's
        // work: refused, as SQLite refuses it.
        if isInsideTransaction {
            throw StorageError(kind: .other, message: "cannot start a transaction within a transaction",
                               sql: PostgreSQLConnectionSQL.begin, code: 0, sqlState: "25001")
        }
        var begin = PostgreSQLConnectionSQL.begin(readOnly: readOnly)
        if !transactionSettings.isEmpty { begin += "; " + transactionSettings }
        if kind == .immediate, !readOnly, let writeLockKey { begin += "; " + PostgreSQLConnectionSQL.writeLock(writeLockKey) }
        let end: TransactionEnd
        do {
            try execute(begin, [])
            end = try body()
        } catch {
            rollbackQuietly()
            throw error
        }
        switch end {
        case .commit:
            yieldActive()
            // COMMIT of a transaction an error aborted rolls it back and says only "ROLLBACK": not a commit.
            if let handle, PQtransactionStatus(handle) == PQTRANS_INERROR {
                rollbackQuietly()
                throw StorageError(kind: .other, message: "the transaction was rolled back: a statement in it failed",
                                   sql: PostgreSQLConnectionSQL.commit, code: 0, sqlState: "25P02")
            }
            // A connection lost before COMMIT is sent changed nothing (the server rolls back the session's
            // transaction); one lost while COMMIT is under way leaves the outcome unknown to us.
            if let handle, PQstatus(handle) != CONNECTION_OK {
                _ = takeDeallocations()
                throw connectionError(sql: PostgreSQLConnectionSQL.commit)
            }
            commitOutcomeUnknown = false
            // (The named statements go first, in the same round trip: after the COMMIT a pooler may have lent the
            // server session to another client.)
            do {
                try execute(takeDeallocations() + PostgreSQLConnectionSQL.commit, [])
            } catch {
                commitOutcomeUnknown = Self.isConnectionLost(error, handle: handle)
                rollbackQuietly()
                throw error
            }
        case .rollback:
            yieldActive()
            try execute(rollbackAndDeallocate(), [])
        }
    }

    /// ROLLBACK, then the DEALLOCATE of this transaction's named statements in the same round trip (an aborted
    /// transaction runs nothing but ROLLBACK; after it, on the same server session, they may run).
    private func rollbackAndDeallocate() -> String {
        let deallocations = takeDeallocations()
        return PostgreSQLConnectionSQL.rollback + (deallocations.isEmpty ? "" : "; " + deallocations.dropLast(2))
    }

    private func rollbackQuietly() {
        if isInsideTransaction {
            yieldActive()
            try? execute(rollbackAndDeallocate(), [])
        } else {
            // (Nothing is prepared outside a transaction; a COMMIT that failed has deallocated them already.)
            preparedInTransaction = []
            transactionGeneration += 1
        }
    }

    package func tableExists(_ name: String) throws(StorageError) -> Bool {
        try bool(PostgreSQLConnectionSQL.tableExists, [.text(name)]) ?? false
    }

    package func columns(of table: String) throws(StorageError) -> [String] {
        try rows(PostgreSQLConnectionSQL.columns, [.text(table)]).compactMap { $0.string(0) }
    }

    /// One multi-row INSERT per at most 65,535 values (PostgreSQL's limit on a statement's parameters), each kept.
    package func bulkInsert(into table: String, columns: [String], values: [StoredValue], rows: Int) throws(StorageError) {
        guard rows > 0, !columns.isEmpty else { return }
        let key = table + "\u{0}" + columns.joined(separator: "\u{0}")
        let perStatement = max(1, Self.maximumParameters / columns.count)
        var row = 0
        while row < rows {
            let count = min(perStatement, rows - row)
            let s: PostgreSQLStatement
            if let known = bulkStatements[key]?[count] {
                s = known
            } else {
                s = PostgreSQLStatement(self, sql: PostgreSQLConnectionSQL.insertRows(into: table, columns: columns, rows: count),
                                        persistent: true)
                bulkStatements[key, default: [:]][count] = s
            }
            s.bind(Array(values[(row * columns.count)..<((row + count) * columns.count)]))
            try s.execute()
            row += count
        }
        lastChanges = rows
    }

    /// Drops the kept statements (their server-side statements are DEALLOCATEd as the transaction ends: none lives
    /// longer).
    package func finalizeStatements() {
        let kept = Array(statements.values) + bulkStatements.values.flatMap(\.values)
        statements = [:]
        bulkStatements = [:]
        for s in kept where active === s {
            active = nil
            s.bufferRemainingResults()
        }
    }

    // MARK: Errors

    /// The failure a result reports, nil when it reports none; records the rows a write changed.
    func check(_ result: OpaquePointer, sql: String) -> StorageError? {
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_EMPTY_QUERY, PGRES_COPY_IN, PGRES_COPY_OUT:
            noteChanges(result)
            return nil
        default:
            return error(result, sql: sql)
        }
    }

    func noteChanges(_ result: OpaquePointer) {
        guard let status = PQcmdStatus(result) else { return }
        // SQLite's changes() counts the rows of INSERT, UPDATE and DELETE only (not a SELECT's).
        switch status.pointee {
        case 0x49, 0x55, 0x44, 0x4D:  // I(NSERT), U(PDATE), D(ELETE), M(ERGE)
            let word = String(cString: status)
            if word.hasPrefix("INSERT") || word.hasPrefix("UPDATE") || word.hasPrefix("DELETE") || word.hasPrefix("MERGE") {
                lastChanges = Int(String(cString: PQcmdTuples(result))) ?? 0
            }
        default:
            break
        }
    }

    /// A failed result in the engine's terms: the kind by SQLSTATE, the server's primary message with its DETAIL.
    func error(_ result: OpaquePointer, sql: String?) -> StorageError {
        func field(_ code: Character) -> String? {
            PQresultErrorField(result, Int32(code.asciiValue!)).map { String(cString: $0) }
        }
        guard let state = field("C") else { return connectionError(sql: sql) }
        var message = field("M") ?? String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
        if let detail = field("D"), !detail.isEmpty {
            message += " (" + detail.split(whereSeparator: \.isNewline).joined(separator: " ") + ")"
        }
        return StorageError(kind: Self.kind(sqlState: state), message: message, sql: sql, code: 0, sqlState: state)
    }

    /// The failure the connection itself reports (lost, not sent), with libpq's words.
    func connectionError(sql: String?) -> StorageError {
        let message = handle.map { Self.plainReason(String(cString: PQerrorMessage($0))) } ?? "the connection is closed"
        let lost = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
        return StorageError(kind: .other, message: message.isEmpty ? "the server did not answer" : message, sql: sql, code: 0,
                            sqlState: lost ? "08006" : nil)
    }

    /// libpq's error text on one line without its decorations: the severity (`FATAL:  `, `ERROR:  `), the statement
    /// excerpt with its caret (`LINE 1: INSERT INTO … ^`), and its guess "This probably means the server terminated
    /// abnormally …" — its lines joined by "; ".
    package static func plainReason(_ message: String) -> String {
        var reasons: [String] = []
        var afterExcerpt = false
        for raw in message.split(whereSeparator: \.isNewline) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if afterExcerpt, line.hasSuffix("^") { afterExcerpt = false; continue }
            afterExcerpt = false
            if line.hasPrefix("LINE "), line.dropFirst(5).first?.isNumber == true { afterExcerpt = true; continue }
            if line.isEmpty || line.hasPrefix("This probably means the server terminated abnormally") || line == "before or while processing the request." { continue }
            for severity in ["FATAL:", "ERROR:", "PANIC:"] where line.hasPrefix(severity) {
                line = String(line.dropFirst(severity.count)).trimmingCharacters(in: .whitespaces)
            }
            if !line.isEmpty && !reasons.contains(line) { reasons.append(line) }
        }
        return reasons.joined(separator: "; ")
    }

    /// Whether `error` says the connection is gone: the server ended the session (57P01 an administrator's
    /// shutdown, 57P02 a crash shutdown, 57P03 a server not accepting connections now), a connection failure (class
    /// 08), or libpq's connection is no longer usable.
    package static func isConnectionLost(_ error: Error, handle: OpaquePointer?) -> Bool {
        if let handle, PQstatus(handle) != CONNECTION_OK { return true }
        guard let state = (error as? StorageError)?.sqlState else { return false }
        return ["57P01", "57P02", "57P03"].contains(state) || state.hasPrefix("08")
    }

    /// Whether the connection is lost (libpq's status is no longer OK).
    package var isLost: Bool { handle.map { PQstatus($0) != CONNECTION_OK } ?? true }

    /// The engine's kind of a failure with SQLSTATE `state`: 40001 (serialization), 40P01 (deadlock), 55P03 (lock
    /// not available) → busy; 25006 (read-only transaction), 42501 (insufficient privilege) → readOnly; class 23
    /// (integrity) → constraint; XX001, XX002 (data or index corrupted) → damaged; anything else → other.
    package static func kind(sqlState state: String) -> StorageError.Kind {
        switch state {
        case "40001", "40P01", "55P03": return .busy
        case "25006", "42501": return .readOnly
        case "XX001", "XX002": return .damaged
        default: return state.hasPrefix("23") ? .constraint : .other
        }
    }
}

// MARK: Statements

/// A statement of a PostgreSQL connection: its SQL, its bindings, and the rows of its current execution.
package final class PostgreSQLStatement: StorageStatement {
    package let sql: String
    private unowned let connection: PostgreSQLConnection
    /// Kept (`statement(_:)`): named server-side statements by the parameter types they were prepared with.
    private let persistent: Bool
    /// The named statements of the transaction `preparedGeneration` (`connection.transactionGeneration`).
    private var prepared: [[Oid]: String] = [:]
    private var preparedGeneration = -1
    private var arguments: [StoredValue] = []

    private enum State { case idle, streaming, buffered, done }
    private var state = State.idle
    /// Results read ahead while another statement needed the connection.
    private var buffer: [OpaquePointer] = []
    private var bufferIndex = 0
    /// The result holding the current row (single-row mode: one row each), or the metadata of an empty result.
    private var current: OpaquePointer?
    private var hasRow = false
    /// The column types of the current execution (type OIDs), read from its first result.
    private var types: [Oid] = []
    private var names: [String]?
    /// The failure met while reading ahead, thrown by the step that reaches it.
    private var pendingError: StorageError?
    private(set) var startedInsideTransaction = false
    private var rowsRead = 0

    init(_ connection: PostgreSQLConnection, sql: String, persistent: Bool) {
        self.connection = connection
        self.sql = sql
        self.persistent = persistent
    }

    deinit {
        if state == .streaming { connection.active = nil; drain(cancelling: false) }
        clearResults()
    }

    // MARK: Binding

    package func bind(_ index: Int32, _ value: StoredValue) {
        let i = Int(index) - 1
        guard i >= 0 else { return }
        if i >= arguments.count { arguments += Array(repeating: .null, count: i + 1 - arguments.count) }
        arguments[i] = value
    }

    package func bind(_ arguments: [StoredValue]) { self.arguments = arguments }

    // MARK: Running

    /// Sends the query with its bindings and sets single-row mode.
    private func begin() throws(StorageError) {
        if state != .idle { reset() }
        let handle = try connection.open(sql: sql)
        connection.yieldActive(to: self)
        let parameters = try PostgreSQLParameters(arguments, sql: sql)
        startedInsideTransaction = PQtransactionStatus(handle) != PQTRANS_IDLE
        if preparedGeneration != connection.transactionGeneration {
            prepared = [:]
            preparedGeneration = connection.transactionGeneration
        }
        let sent: Int32
        // (Outside a transaction, where a pooler may run each statement on another server session, unnamed.)
        if persistent && startedInsideTransaction {
            let name: String
            if let known = prepared[parameters.types] {
                name = known
            } else {
                name = connection.newName()
                let result = parameters.types.withUnsafeBufferPointer { PQprepare(handle, name, sql, Int32($0.count), $0.baseAddress) }
                guard let result else { throw connection.connectionError(sql: sql) }
                defer { PQclear(result) }
                if PQresultStatus(result) != PGRES_COMMAND_OK { throw connection.error(result, sql: sql) }
                prepared[parameters.types] = name
                connection.notePrepared(name)
            }
            sent = parameters.withPointers { n, _, values, lengths, formats in
                PQsendQueryPrepared(handle, name, n, values, lengths, formats, 0)
            }
        } else {
            sent = parameters.withPointers { n, types, values, lengths, formats in
                PQsendQueryParams(handle, sql, n, types, values, lengths, formats, 0)
            }
        }
        guard sent == 1 else { throw connection.connectionError(sql: sql) }
        PQsetSingleRowMode(handle)
        state = .streaming
        rowsRead = 0
        names = nil
        connection.active = self
    }

    /// The next result of the execution, nil after the last.
    private func nextResult() -> OpaquePointer? {
        switch state {
        case .streaming:
            guard let handle = connection.handle, let result = PQgetResult(handle) else {
                state = .done
                if connection.active === self { connection.active = nil }
                return nil
            }
            return result
        case .buffered:
            if bufferIndex < buffer.count {
                let result = buffer[bufferIndex]
                bufferIndex += 1  // (taken: clearResults frees only those after it)
                return result
            }
            buffer = []
            bufferIndex = 0
            state = .done
            return nil
        case .idle, .done:
            return nil
        }
    }

    /// Reads the rest of the execution into memory: another statement needs the connection.
    func bufferRemainingResults() {
        guard state == .streaming, let handle = connection.handle else { return }
        while let result = PQgetResult(handle) { buffer.append(result) }
        state = .buffered
    }

    /// Forgets the execution: the connection closed beneath it.
    func abandon() {
        state = .idle
        clearResults()
    }

    package func execute() throws(StorageError) {
        try begin()
        var failure: StorageError?
        while let result = nextResult() {
            if failure == nil { failure = connection.check(result, sql: sql) }
            PQclear(result)
        }
        state = .idle
        if let failure { throw failure }
    }

    package func step() throws(StorageError) -> Bool {
        if let current {
            PQclear(current)
            self.current = nil
            hasRow = false
        }
        if state == .idle { try begin() }
        while let result = nextResult() {
            let status = PQresultStatus(result)
            if status == PGRES_SINGLE_TUPLE {
                describe(result)
                current = result
                hasRow = true
                rowsRead += 1
                return true
            }
            if let failure = connection.check(result, sql: sql) {
                PQclear(result)
                while let rest = nextResult() { PQclear(rest) }
                state = .idle
                throw failure
            }
            if status == PGRES_TUPLES_OK {
                // The end of the rows: kept for its columns' names and types (a query that gave no row).
                describe(result)
                current = result
            } else {
                PQclear(result)
            }
        }
        return false
    }

    private func describe(_ result: OpaquePointer) {
        guard names == nil else { return }
        let n = PQnfields(result)
        types = (0..<n).map { PQftype(result, $0) }
        names = (0..<n).map { String(cString: PQfname(result, $0)) }
    }

    package func reset() {
        if state == .streaming {
            connection.active = nil
            drain(cancelling: !startedInsideTransaction)
        }
        clearResults()
        state = .idle
    }

    /// Reads and drops what is left of a streaming execution; outside a transaction, a query with more than a
    /// thousand rows left is cancelled (its cancellation error is the expected end).
    private func drain(cancelling: Bool) {
        guard let handle = connection.handle else { return }
        var dropped = 0
        while let result = PQgetResult(handle) {
            PQclear(result)
            dropped += 1
            if dropped == 1000 && cancelling, let cancel = PQgetCancel(handle) {
                var message = [CChar](repeating: 0, count: 256)
                _ = PQcancel(cancel, &message, Int32(message.count))
                PQfreeCancel(cancel)
            }
        }
        state = .done
    }

    private func clearResults() {
        if let current { PQclear(current) }
        current = nil
        hasRow = false
        if bufferIndex < buffer.count { for r in buffer[bufferIndex...] { PQclear(r) } }
        buffer = []
        bufferIndex = 0
    }

    // MARK: Reading

    /// Known once the statement has run (a statement asked before its first step is run to its first row).
    package var columnCount: Int {
        if names == nil { ensureDescribed() }
        return names?.count ?? 0
    }

    package func columnName(_ index: Int32) -> String {
        if names == nil { ensureDescribed() }
        guard let names, Int(index) < names.count, index >= 0 else { return "" }
        return names[Int(index)]
    }

    /// The columns of a statement not yet run: the server describes the statement (no row is read).
    private func ensureDescribed() {
        guard let handle = connection.handle else { return }
        connection.yieldActive(to: self)
        if preparedGeneration != connection.transactionGeneration {
            prepared = [:]
            preparedGeneration = connection.transactionGeneration
        }
        let name = persistent ? nil : ""
        if let name {
            let prepared = PQprepare(handle, name, sql, 0, nil)
            defer { if let prepared { PQclear(prepared) } }
            guard let prepared, PQresultStatus(prepared) == PGRES_COMMAND_OK else { return }
        }
        let described: OpaquePointer?
        if let name {
            described = PQdescribePrepared(handle, name)
        } else if let known = self.prepared.values.first {
            described = PQdescribePrepared(handle, known)
        } else {
            let temporary = connection.newName()
            let prepared = PQprepare(handle, temporary, sql, 0, nil)
            defer { if let prepared { PQclear(prepared) } }
            guard let prepared, PQresultStatus(prepared) == PGRES_COMMAND_OK else { return }
            described = PQdescribePrepared(handle, temporary)
            if let dropped = PQexec(handle, PostgreSQLConnectionSQL.deallocate(temporary)) { PQclear(dropped) }
        }
        guard let described else { return }
        defer { PQclear(described) }
        if PQresultStatus(described) == PGRES_COMMAND_OK { describe(described) }
    }

    @inline(__always)
    package func column(_ index: Int32) -> StoredValue {
        guard hasRow, let current, Int(index) < types.count else { return .null }
        return PostgreSQLValue.stored(current, index, type: types[Int(index)])
    }

    package func exactColumn(_ index: Int32) -> StoredValue { column(index) }

    @inline(__always)
    package func int64(_ index: Int32) -> Int64? {
        guard hasRow, let current, Int(index) < types.count, PQgetisnull(current, 0, index) == 0 else { return nil }
        if PostgreSQLValue.isInteger(types[Int(index)]) { return PostgreSQLValue.integer(current, 0, index) }
        return column(index).int64
    }

    package func text(_ index: Int32) -> UnsafeBufferPointer<UInt8>? {
        guard hasRow, let current, Int(index) < types.count, PQgetisnull(current, 0, index) == 0,
              PostgreSQLValue.isText(types[Int(index)]), let p = PQgetvalue(current, 0, index) else { return nil }
        return UnsafeBufferPointer(start: UnsafeRawPointer(p).assumingMemoryBound(to: UInt8.self), count: Int(PQgetlength(current, 0, index)))
    }
}

// MARK: Values

/// Bound values as libpq takes them: type OIDs, NUL-terminated text (numbers in PostgreSQL's spelling) or bytes,
/// lengths and formats.
struct PostgreSQLParameters {
    var types: [Oid] = []
    /// Every value's bytes, one after another (text ones NUL-terminated); nil offsets are NULLs.
    var bytes: [UInt8] = []
    var offsets: [Int?] = []
    var lengths: [Int32] = []
    var formats: [Int32] = []

    static let int8: Oid = 20, float8: Oid = 701, bytea: Oid = 17, unknown: Oid = 0

    init(_ values: [StoredValue], sql: String) throws(StorageError) {
        types.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .null:
                append(type: Self.unknown, nil as [UInt8]?, format: 0)
            case .integer(let i):
                append(type: Self.int8, Array(String(i).utf8), format: 0)
            case .real(let d):
                append(type: Self.float8, Array(PostgreSQLValue.spelling(d).utf8), format: 0)
            case .text(let s):
                var s = s
                let ok = s.withUTF8 { (u: UnsafeBufferPointer<UInt8>) -> Bool in
                    guard !u.contains(0) else { return false }
                    append(type: Self.unknown, u, format: 0)
                    return true
                }
                guard ok else {
                    throw StorageError(kind: .other, message: "invalid byte sequence for encoding \"UTF8\": 0x00 (text with a NUL character)",
                                       sql: sql, code: 0, sqlState: "22021")
                }
            case .blob(let data):
                data.withUnsafeBytes { append(type: Self.bytea, $0.bindMemory(to: UInt8.self), format: 1) }
            }
        }
    }

    private mutating func append<C: Collection>(type: Oid, _ value: C?, format: Int32) where C.Element == UInt8 {
        types.append(type)
        formats.append(format)
        guard let value else {
            offsets.append(nil)
            lengths.append(0)
            return
        }
        offsets.append(bytes.count)
        bytes.append(contentsOf: value)
        lengths.append(Int32(value.count))
        bytes.append(0)
    }

    /// Calls `body` with the count, types, value pointers, lengths and formats libpq's query functions take.
    func withPointers<R>(_ body: (Int32, UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?,
                                  UnsafePointer<Int32>?) -> R) -> R {
        bytes.withUnsafeBufferPointer { all in
            let base = UnsafeRawPointer(all.baseAddress).map { $0.assumingMemoryBound(to: CChar.self) }
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in offset.flatMap { o in base.map { $0 + o } } }
            return types.withUnsafeBufferPointer { types in
                pointers.withUnsafeBufferPointer { values in
                    lengths.withUnsafeBufferPointer { lengths in
                        formats.withUnsafeBufferPointer { formats in
                            body(Int32(types.count), types.baseAddress, values.baseAddress, lengths.baseAddress, formats.baseAddress)
                        }
                    }
                }
            }
        }
    }
}

/// Reading a result's values (text format) as stored values, by the column's type.
enum PostgreSQLValue {
    static let bool: Oid = 16, bytea: Oid = 17, int8: Oid = 20, int2: Oid = 21, int4: Oid = 23
    static let float4: Oid = 700, float8: Oid = 701, numeric: Oid = 1700

    @inline(__always)
    static func isInteger(_ type: Oid) -> Bool { type == int8 || type == int4 || type == int2 }

    /// Whether a column of `type` reads as text (everything but numbers, booleans and bytea).
    @inline(__always)
    static func isText(_ type: Oid) -> Bool {
        !(isInteger(type) || type == float8 || type == float4 || type == numeric || type == bool || type == bytea)
    }

    /// A double as PostgreSQL's float8 input reads it back exactly (Swift's shortest round-trip digits).
    static func spelling(_ d: Double) -> String {
        if d.isNaN { return "NaN" }
        if d.isInfinite { return d < 0 ? "-Infinity" : "Infinity" }
        return "\(d)"
    }

    @inline(__always)
    static func bytes(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> UnsafeBufferPointer<UInt8> {
        let p = UnsafeRawPointer(PQgetvalue(result, row, column)!).assumingMemoryBound(to: UInt8.self)
        return UnsafeBufferPointer(start: p, count: Int(PQgetlength(result, row, column)))
    }

    /// An integer column's value (nil for NULL).
    @inline(__always)
    static func integer(_ result: OpaquePointer, _ row: Int32, _ column: Int32) -> Int64? {
        guard PQgetisnull(result, row, column) == 0 else { return nil }
        return parseInteger(bytes(result, row, column))
    }

    /// Decimal digits with an optional sign, nil when they are not an Int64.
    static func parseInteger(_ b: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard !b.isEmpty else { return nil }
        var i = 0
        let negative = b[0] == 0x2D
        if negative || b[0] == 0x2B { i = 1 }
        guard i < b.count else { return nil }
        var value: Int64 = 0
        while i < b.count {
            let digit = b[i] &- 0x30
            guard digit < 10 else { return nil }
            // Accumulated negatively, so Int64.min fits.
            let (m, o1) = value.multipliedReportingOverflow(by: 10)
            let (s, o2) = m.subtractingReportingOverflow(Int64(digit))
            if o1 || o2 { return nil }
            value = s
            i += 1
        }
        if negative { return value }
        return value == .min ? nil : -value
    }

    static func stored(_ result: OpaquePointer, _ column: Int32, type: Oid) -> StoredValue {
        guard PQgetisnull(result, 0, column) == 0 else { return .null }
        let b = bytes(result, 0, column)
        switch type {
        case int8, int4, int2:
            return parseInteger(b).map(StoredValue.integer) ?? .text(String(decoding: b, as: UTF8.self))
        case float8, float4:
            return .real(Double(String(decoding: b, as: UTF8.self)) ?? .nan)
        case numeric:
            return numericValue(String(decoding: b, as: UTF8.self))
        case bool:
            return .integer(b.first == 0x74 ? 1 : 0)  // 't'
        case bytea:
            return .blob(hexBytes(b))
        default:
            return .text(String(decoding: b, as: UTF8.self))
        }
    }

    /// numeric's text: an integer when integral and within Int64 (trailing zeros of the fraction aside), the engine's
    /// wide form when integral beyond Int64 (an exact wide sum: WideInteger.swift), the digits as text beyond an
    /// Int128, a real when it has a fraction or is NaN or infinite.
    static func numericValue(_ text: String) -> StoredValue {
        var whole = Substring(text)
        if let dot = text.firstIndex(of: ".") {
            let fraction = text[text.index(after: dot)...]
            guard fraction.allSatisfy({ $0 == "0" }) else { return .real(Double(text) ?? .nan) }
            whole = text[..<dot]
        }
        let digits = whole.first == "-" || whole.first == "+" ? whole.dropFirst() : whole
        guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return .real(Double(text) ?? .nan) }
        if let i = Int64(whole) { return .integer(i) }
        // Beyond an Int64, the engine's form of a wide number (WideInteger.swift), as SQLite's exact sums give it.
        let signed = whole.hasPrefix("+") ? whole.dropFirst() : whole
        return Int128(signed).map(WideInteger.encode) ?? .text(String(signed))
    }

    /// bytea's hex output (`\x0a1b…`) as bytes.
    static func hexBytes(_ b: UnsafeBufferPointer<UInt8>) -> Data {
        guard b.count >= 2, b[0] == 0x5C, b[1] == 0x78 else { return Data(b) }
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x61...0x66: return c - 0x61 + 10
            case 0x41...0x46: return c - 0x41 + 10
            default: return 0
            }
        }
        let n = (b.count - 2) / 2
        var bytes = [UInt8](repeating: 0, count: n)
        for i in 0..<n { bytes[i] = nibble(b[2 + 2 * i]) << 4 | nibble(b[3 + 2 * i]) }
        return Data(bytes)
    }
}
