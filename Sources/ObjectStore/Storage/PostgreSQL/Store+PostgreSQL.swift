import Foundation
import LocalTime

// Books on PostgreSQL (issue 30): opening and creating them, and the reads and writes of `Store` on one libpq
// connection. The model lives in the books: `init` records it, and every other opening reads it from there (one
// machine's model file never changes everyone's books); a schema of their own holds the tables, the metadata and our
// functions. A write is one transaction holding the books' advisory lock (two writers take turns, as two SQLite
// writers do); a read is one REPEATABLE READ READ ONLY snapshot, the owner's as a reader's. Each transaction sets the
// books' search_path, time zone and lock timeout itself (SET LOCAL, with BEGIN: `transactionSettings`), so books
// read through a pooler in transaction mode, which lends each transaction any server session, are these books and
// no other's (docs/postgresql.md, "PgBouncer").

/// The connection to books on PostgreSQL, used by one statement sequence at a time.
final class PostgreSQLBooks: @unchecked Sendable {
    let location: PostgreSQLLocation
    let connection: PostgreSQLConnection
    private let lock = NSRecursiveLock()

    init(location: PostgreSQLLocation, connection: PostgreSQLConnection) {
        self.location = location
        self.connection = connection
    }

    /// The advisory lock's key for the books in `schema`: writers of the same books take turns, other books' do not
    /// wait (FNV-1a of the schema's name, a stable number across machines and versions).
    static func writeLockKey(schema: String) -> Int64 {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in "bookkeeper:\(schema)".utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100000001b3
        }
        return Int64(bitPattern: hash)
    }

    /// Runs `body` in one read-only transaction (or in the transaction under way: a read inside a write). Every read
    /// is one, whether or not the store is `readOnly`: outside a transaction no setting of ours holds (a pooler may
    /// run each statement on another client's server session).
    func read<T>(readOnly: Bool, _ body: (any StorageConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        // (A read is not tried again: its body may have written rows out already.)
        return try Self.retryingSerializationFailures(attempts: 1, path: location.displayName) {
            try mapErrors(writing: false) {
                guard !connection.isInsideTransaction else { return try body(connection) }
                var result: T?
                try connection.transaction(.deferred, readOnly: true) {
                    result = try body(connection)
                    return .commit
                }
                return result!
            }
        }
    }

    /// How many times a write whose body may run again is tried when PostgreSQL cannot serialize it with another
    /// transaction (40001, or 40P01 a deadlock) before it is refused (75).
    static let serializationAttempts = 3

    /// Runs `body` in one write transaction holding the books' lock. `rerunnable`: `body` may run again after a
    /// rollback (it keeps nothing of a failed run), so a serialization failure or deadlock is retried, up to
    /// `serializationAttempts` tries in all, after a short jittered pause. `rollingBack`: the transaction is rolled
    /// back when `body` returns (a dry run: everything done and checked, nothing kept).
    func write<T>(rerunnable: Bool = false, rollingBack: Bool = false, _ body: (any StorageConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        return try Self.retryingSerializationFailures(attempts: rerunnable ? Self.serializationAttempts : 1, path: location.displayName) {
            try mapErrors(writing: true) {
                var result: T?
                var committing = false
                defer { if committing { CommitProgress.finish(committed: false) } }
                try connection.transaction(.immediate) {
                    result = try body(connection)
                    if rollingBack { return .rollback }
                    CommitProgress.beginCommit()
                    committing = true
                    return .commit
                }
                committing = false
                CommitProgress.finish(committed: true)
                return result!
            }
        }
    }

    /// Runs `attempt` up to `attempts` times while it fails with a serialization failure or deadlock (`StoreError.busy`
    /// carrying SQLSTATE 40001 or 40P01 is not thrown for those: `SerializationFailure` is, until the last try, which
    /// is refused as `StoreError.serializationFailed`). Pauses 10–40 ms, then 20–80 ms, … between tries.
    static func retryingSerializationFailures<T>(attempts: Int, path: String, pause: (Int) -> Void = PostgreSQLBooks.pause,
                                                 _ attempt: () throws -> T) throws -> T {
        var tries = 0
        while true {
            tries += 1
            do {
                return try attempt()
            } catch let failure as SerializationFailure {
                if tries >= attempts {
                    throw StoreError.serializationFailed(path: path, sqlState: failure.sqlState, attempts: tries, detail: failure.message)
                }
                pause(tries)
            }
        }
    }

    /// A short pause before try `tries + 1`, jittered so that two writers that failed together do not meet again.
    static func pause(_ tries: Int) {
        let base = 10_000 << min(tries - 1, 4)
        usleep(UInt32(base + Int.random(in: 0...(3 * base))))
    }

    /// A serialization failure or deadlock, before the retries decide what it becomes.
    struct SerializationFailure: Error {
        let sqlState: String
        let message: String
    }

    /// A failure of the server, in the store's words. `writing`: the failure of a write transaction, whose change
    /// a lost connection may have left committed or not.
    func mapErrors<T>(writing: Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            if PostgreSQLConnection.isConnectionLost(error, handle: connection.handle) {
                let change: StoreError.LostChange = !writing ? .reading : connection.commitOutcomeUnknown ? .outcomeUnknown : .nothingChanged
                throw StoreError.connectionLost(path: location.displayName, reason: PostgreSQLConnection.plainReason(error.message), change: change)
            }
            if let state = error.sqlState, state == "40001" || state == "40P01" {
                throw SerializationFailure(sqlState: state, message: PostgreSQLConnection.plainReason(error.message))
            }
            throw storeError(error)
        }
    }

    /// A failure of a batch's statement (the batch writer's own, which it words as a `BatchError`): a lost
    /// connection, a serialization failure or deadlock (not tried again: a batch reads its input once) and the
    /// server's refusals in the store's words, as `write` gives them.
    func batchFailure(_ error: StorageError) -> StoreError {
        if PostgreSQLConnection.isConnectionLost(error, handle: connection.handle) {
            return StoreError.connectionLost(path: location.displayName, reason: PostgreSQLConnection.plainReason(error.message),
                                             change: .nothingChanged)
        }
        if let state = error.sqlState, state == "40001" || state == "40P01" {
            return StoreError.serializationFailed(path: location.displayName, sqlState: state, attempts: 1,
                                                  detail: PostgreSQLConnection.plainReason(error.message))
        }
        return storeError(error) as? StoreError ?? StoreError.sqlite("\(location.displayName): \(error.message)")
    }

    func storeError(_ error: StorageError) -> Error {
        let path = location.displayName
        switch error.kind {
        // A lock not had within the wait (lock_timeout). (A serialization failure or deadlock with another tool's
        // transaction is `SerializationFailure`, tried again when it may be: bookkeeper's own writers take turns under
        // the books' lock, so none of theirs fails so.)
        case .busy: return StoreError.busy(path: path, detail: error.sqlState == "55P03" ? "another process is writing to it" : error.message)
        case .readOnly: return StoreError.readOnly(path: path)
        case .damaged: return StoreError.damaged(path: path, detail: error.message)
        case .constraint where error.sqlState == "23505":
            // A model's unique index: another writer stored the value after this one validated.
            return StoreError.uniqueRefused(path: path, detail: error.message)
        case .constraint, .other:
            if let nonFinite = NonFiniteStoredNumber.fromSQL(error.message) { return nonFinite }
            if TextRegexError.isDescription(error.message) { return StoreError.matchFailed(error.message) }
            if error.sqlState == "2201B", error.message.hasPrefix("regular expression failed: ") {
                // A pattern PostgreSQL compiled but gave up matching on some value (its engine's limits, as ICU's
                // time limit on SQLite): the statement names no pattern, so neither can the message.
                return StoreError.matchFailed("MATCHES could not finish on a value: PostgreSQL's regular expressions gave up ("
                                              + error.message.dropFirst("regular expression failed: ".count) + ")")
            }
            return StoreError.sqlite("\(path): \(error.message)")
        }
    }
}

extension Store {
    /// The format the metadata table records for books on PostgreSQL. 2: the SQL functions of 0.10.1 (MATCHES[c]
    /// reads a set of one character as ICU does); a version that changes a function's text raises it, so that books
    /// made earlier get the new functions from the first command that writes them (PostgreSQLFunctionsFormatTests).
    package static let postgreSQLFormat = 2

    /// Every function `init` creates in `schema`, in order.
    static func functionStatements(schema: String) -> [String] {
        PostgreSQLFunctions.statements(schema: schema) + PostgreSQLSchema.functions(schema: schema)
    }

    /// Connects to the server `location` names, refusing what libpq refuses in the store's words.
    private static func connect(_ location: PostgreSQLLocation) throws -> PostgreSQLConnection {
        let path = location.displayName
        do {
            return try PostgreSQLConnection(conninfo: location.connectionString,
                                            writeLockKey: PostgreSQLBooks.writeLockKey(schema: location.schema))
        } catch {
            // libpq quotes a URI it cannot read, password and all (attack 19): never in our words.
            let reason = location.hidingSecrets(error.reason.replacingOccurrences(of: location.connectionString, with: "the URI")
                .replacingOccurrences(of: location.conninfo, with: "the URI"))
            switch error.kind {
            case .unreachable: throw StoreError.serverUnreachable(path: path, reason: reason)
            case .authentication: throw StoreError.authenticationFailed(path: path, reason: reason)
            case .databaseMissing: throw StoreError.databaseMissing(path: path, reason: reason)
            case .serverTooOld, .notUTF8: throw StoreError.serverUnsupported(path: path, reason: reason)
            case .other where reason.lowercased().contains("invalid") || reason.contains("URI"):
                // A parameter libpq does not know, a value it does not take, a URI it cannot read.
                throw StoreError.invalidConnection(path: path, reason: reason)
            case .other: throw StoreError.serverUnreachable(path: path, reason: reason)
            }
        }
    }

    /// Makes books for `model` in `location`'s schema (made when missing; an empty one is used) and opens them.
    package static func create(books location: PostgreSQLLocation, model: ObjectModel) throws -> Store {
        let connection = try connect(location)
        connection.transactionSettings += "; " + PostgreSQLSchema.searchPath(location.schema, local: true)
        let books = PostgreSQLBooks(location: location, connection: connection)
        let d = PostgreSQLDialect()
        try books.write { db in
            let exists = try db.int(PostgreSQLSchema.schemaExists, [.text(location.schema)]) ?? 0
            if exists > 0 {
                let tables = try db.int(PostgreSQLSchema.tablesInSchema, [.text(location.schema)]) ?? 0
                if tables > 0 { throw StoreError.alreadyExists(path: location.displayName) }
            } else {
                try db.execute(PostgreSQLSchema.createSchema(location.schema))
            }
            try db.execute(PostgreSQLSchema.searchPath(location.schema, local: true))
            for statement in functionStatements(schema: location.schema) { try db.execute(statement) }
            try db.execute(PostgreSQLSchema.metaTable)
            for statement in PostgreSQLSchema.tables(for: model) { try db.execute(statement) }
            let meta: [(String, String)] = [
                ("format", String(postgreSQLFormat)),
                ("model_hash", model.versionHash),
                ("model", model.canonicalJSON),
                ("created_at", Timestamp.now().description),
            ]
            for (key, value) in meta { try db.execute(StoreSQL(d).insertMeta(metaTable), [.text(key), .text(value)]) }
        }
        connection.close()
        return try open(books: location, behaviours: model)
    }

    /// Opens the books in `location`'s schema with the model recorded in them.
    /// `behaviours`: the model whose entities' behaviours (the domain's, in code) the recorded model is given.
    /// `busyTimeout`: how long a write waits for the books' lock (and any other lock) before it is refused as busy.
    /// `checking`: for `check`, which lists what another tool changed in the books' schema rather than being refused
    /// for it.
    package static func open(books location: PostgreSQLLocation, behaviours: ObjectModel, readOnly: Bool = false,
                             busyTimeout: TimeInterval = 30, checking: Bool = false) throws -> Store {
        let busyTimeout = try checkedBusyTimeout(busyTimeout, path: location.displayName)
        let connection = try connect(location)
        // Every transaction's settings (the time zone's once the server has taken it, below).
        // (0 is "wait for ever" to PostgreSQL: the shortest wait it takes instead.)
        let lockTimeout = PostgreSQLSchema.lockTimeout(milliseconds: max(1, Int(min(busyTimeout, Store.longestBusyTimeout) * 1000)))
        connection.transactionSettings += "; " + PostgreSQLSchema.searchPath(location.schema, local: true) + "; " + lockTimeout
        let books = PostgreSQLBooks(location: location, connection: connection)
        let path = location.displayName
        let d = PostgreSQLDialect()
        let (meta, canWrite) = try books.read(readOnly: readOnly) { db -> ([String: String], Bool) in
            guard try db.int(PostgreSQLSchema.schemaExists, [.text(location.schema)]) ?? 0 > 0 else {
                throw StoreError.missing(path: path)
            }
            guard try db.int(PostgreSQLSchema.mayUseSchema, [.text(location.schema)]) == 1 else {
                throw StoreError.accessDenied(path: path, reason: "no USAGE privilege on schema \(location.schema)")
            }
            do {
                try db.execute(PostgreSQLSchema.timeZone(Self.processZoneName))
            } catch {
                // (A zone with leap seconds, right/…, or one the server's zone data lacks.)
                throw StoreError.serverUnsupported(path: path, reason: "it does not know the time zone \(Self.processZoneName) "
                                                   + "that local dates are computed in (TZ): \((error as? StorageError)?.message ?? "\(error)")")
            }
            guard try db.tableExists(metaTable) else {
                throw StoreError.notAStore(path: path, reason: "its schema has no \(metaTable) table")
            }
            var meta: [String: String] = [:]
            for row in try db.rows(StoreSQL(d).allMeta(metaTable)) {
                if let key = row.string(0), let value = row.string(1) { meta[key] = value }
            }
            if !checking { try refuseForeignSchema(db, location: location, meta: meta, behaviours: behaviours, writing: !readOnly) }
            let canWrite = try db.int(PostgreSQLSchema.mayUpdate, [.text("\(d.quote(location.schema)).\(d.quote(metaTable))")]) ?? 0
            return (meta, canWrite == 1)
        }
        connection.transactionSettings += "; " + PostgreSQLSchema.timeZone(Self.processZoneName)
        guard let formatText = meta["format"], let format = Int(formatText) else {
            throw StoreError.notAStore(path: path, reason: "no format version in its \(metaTable) table")
        }
        guard format <= postgreSQLFormat else {
            throw StoreError.newerFormat(path: path, found: format, supported: postgreSQLFormat)
        }
        var upgradedFrom: Int?
        if format < postgreSQLFormat {
            // Books of an earlier format answer by that version's functions: brought up to date by a command that
            // may write (under the books' lock, once: another writer may have done it meanwhile), never by a read.
            guard !readOnly, canWrite else {
                throw StoreError.olderFormat(path: path, found: format, supported: postgreSQLFormat)
            }
            upgradedFrom = try books.write { db -> Int? in
                guard let found = try db.string(StoreSQL(d).metaValue(metaTable), [.text("format")]).flatMap({ Int($0) }),
                      found < postgreSQLFormat else { return nil }
                for statement in functionStatements(schema: location.schema) { try db.execute(statement) }
                try db.execute(StoreSQL(d).putMeta(metaTable), [.text("format"), .text(String(postgreSQLFormat))])
                return found
            }
        }
        guard let modelText = meta["model"], let json = try? JSONSerialization.jsonObject(with: Data(modelText.utf8)),
              let model = try? ObjectModel(jsonObject: json, behaviours: behaviours.behaviours) else {
            throw StoreError.notAStore(path: path, reason: "its recorded model cannot be read")
        }
        let store = Store(books: books, model: model, readOnly: readOnly || !canWrite)
        store.upgradedFormat = upgradedFrom.map { (from: $0, to: postgreSQLFormat) }
        return store
    }

    /// The zone the process shows times in (TZ, else /etc/localtime), by the name the server knows it by.
    static var processZoneName: String {
        var name = Zone.process.name
        if name.hasPrefix(":") { name.removeFirst() }
        if let range = name.range(of: "zoneinfo/") { name = String(name[range.upperBound...]) }
        return name
    }


    /// Refuses books whose tables another tool changed so that answers or writes would differ from the model's: a
    /// model column of another type or collation, or missing (every command); a trigger, a rule or row-level security
    /// on the books' tables (they act on bookkeeper's writes unseen). As SQLite's `refuseForeignSchema`: one line each,
    /// exit 65, nothing changed.
    /// `writing`: a command that writes, which is also refused for what blocks writes (a unique index, a primary or
    /// foreign key missing or changed: PostgreSQLCatalogue), as on a store file.
    private static func refuseForeignSchema(_ db: any StorageConnection, location: PostgreSQLLocation, meta: [String: String],
                                            behaviours: ObjectModel, writing: Bool) throws {
        guard let modelText = meta["model"], let json = try? JSONSerialization.jsonObject(with: Data(modelText.utf8)),
              let model = try? ObjectModel(jsonObject: json, behaviours: behaviours.behaviours) else { return }
        var columns: [String: (type: String, collation: String?)] = [:]
        for row in try db.rows(PostgreSQLSchema.columnsOfSchema, [.text(location.schema)]) {
            columns["\(row.string(0) ?? "").\(row.string(1) ?? "")"] = (row.string(2) ?? "", row.string(3))
        }
        var problems: [String] = []
        for entity in model.entities {
            for a in entity.attributes {
                let expected = PostgreSQLSchema.expectedColumn(a.type)
                guard let found = columns["\(entity.name).\(a.name)"] else {
                    problems.append("\(entity.name).\(a.name) is missing from the books (another tool renamed or dropped its column)")
                    continue
                }
                if found.type != expected.type || found.collation != expected.collation {
                    problems.append("\(entity.name).\(a.name) is \(PostgreSQLSchema.spelling(found)), not the model's "
                                    + "\(PostgreSQLSchema.spelling(expected)) (another tool changed it)")
                }
            }
        }
        for row in try db.rows(PostgreSQLSchema.foreignBehaviour, [.text(location.schema)]) {
            let what = row.string(0) ?? "", table = row.string(1) ?? "", name = row.string(2) ?? ""
            problems.append(name.isEmpty ? "\(what) is on for \(table) (another tool turned it on)"
                            : "\(what) \"\(name)\" on \(table) is not the model's (another tool added it)")
        }
        if !problems.isEmpty { throw ForeignSchemaError(path: location.displayName, problems: problems) }
        let refused = try PostgreSQLCatalogue.differences(db, schema: location.schema, model: model, ownTables: [ImportJournal.table], functions: false)
            .filter { $0.effect == .refusesBooks || (writing && $0.effect == .blocksWrites) }
        if !refused.isEmpty { throw ForeignSchemaError(path: location.displayName, problems: refused.map(\.text)) }
    }
}
