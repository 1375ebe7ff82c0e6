import Foundation
import GRDB

/// An open store: one SQLite file (in WAL mode) holding the objects of one model.
///
/// The store records in a metadata table which model wrote it (the model's canonical JSON and hash) and the
/// store format version, so that a store from a newer bookkeeper, or one that is not a store at all, is refused
/// with a clear message rather than misread.
public final class Store: @unchecked Sendable {
    /// The layout version of the store's own tables. Raise it when the metadata or the schema conventions change.
    public static let formatVersion = 1
    static let metaTable = "_bookkeeper_meta"

    public let path: String
    public let model: Model
    public let isReadOnly: Bool
    let queue: DatabaseQueue
    /// What opening the store migrated, if anything.
    public internal(set) var migration: MigrationResult?
    /// What this process writes, in words (`import of orders.csv`), told to other writers that find the store busy.
    public var activity: String?

    private init(path: String, model: Model, readOnly: Bool, queue: DatabaseQueue) {
        self.path = path
        self.model = model
        self.isReadOnly = readOnly
        self.queue = queue
    }

    static func configuration(readOnly: Bool, busyTimeout: TimeInterval) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.readonly = readOnly
        config.busyMode = .timeout(busyTimeout)
        config.journalMode = readOnly ? .default : .wal
        config.label = "bookkeeper"
        config.prepareDatabase { db in
            if !readOnly { try db.execute(sql: "PRAGMA synchronous = NORMAL") }
            StoreFunctions.register(in: db)
        }
        return config
    }

    /// Creates a new store at `path` with the schema of `model`. Fails if a file is already there.
    public static func create(at path: String, model: Model, busyTimeout: TimeInterval = 30) throws -> Store {
        if FileManager.default.fileExists(atPath: path) { throw StoreError.alreadyExists(path: path) }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: busyTimeout))
        } catch let error as DatabaseError {
            throw StoreError.cannotCreate(path: path, reason: error.message ?? "\(error.resultCode)")
        }
        do {
            try queue.write { db in
                try db.execute(sql: "CREATE TABLE \(quoted(metaTable)) (\"key\" TEXT PRIMARY KEY, \"value\" TEXT NOT NULL) STRICT")
                for statement in SchemaBuilder.statements(for: model) {
                    try db.execute(sql: statement)
                }
                let meta: [(String, String)] = [
                    ("format", String(formatVersion)),
                    ("model_hash", model.versionHash),
                    ("model", model.canonicalJSON),
                    ("created_at", Timestamp.now().description),
                ]
                for (key, value) in meta {
                    try db.execute(sql: "INSERT INTO \(quoted(metaTable)) (\"key\", \"value\") VALUES (?, ?)",
                                   arguments: [key, value])
                }
            }
        } catch {
            try? FileManager.default.removeItem(atPath: path)
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw StoreError.cannotCreate(path: path, reason: "\(error)")
        }
        return Store(path: path, model: model, readOnly: false, queue: queue)
    }

    /// Opens an existing store, checking that it is a bookkeeper store of a format this build can use.
    ///
    /// When the store was written with another model, additive changes are migrated at once (after a backup copy
    /// is made beside the store; `migration` tells what was done); changes that could lose data, or that the data
    /// does not allow, throw a `MigrationError` listing each problem — see `bookkeeper migrate`. With `migrate`
    /// false, any change throws. A read-only store, or one from a newer bookkeeper opened read-only, is usable
    /// only when no schema change is needed.
    public static func open(at path: String, model: Model, readOnly: Bool = false, busyTimeout: TimeInterval = 30,
                            migrate: Bool = true) throws -> Store {
        let (store, meta) = try openUnchecked(at: path, model: model, readOnly: readOnly, busyTimeout: busyTimeout)
        let format = Int(meta["format"]!)!
        if format > formatVersion && !store.isReadOnly {
            throw StoreError.newerFormat(path: path, found: format, supported: formatVersion)
        }
        if meta["model_hash"] != model.versionHash {
            // A reader of a writable store still brings it up to date (additive changes only), so that tonight's
            // report runs on last year's store; then it reads as asked.
            if store.isReadOnly && readOnly && format <= formatVersion && FileManager.default.isWritableFile(atPath: path) && migrate {
                let writer = try open(at: path, model: model, readOnly: false, busyTimeout: busyTimeout, migrate: true)
                let migration = writer.migration
                try writer.queue.close()
                let reader = try open(at: path, model: model, readOnly: true, busyTimeout: busyTimeout, migrate: false)
                reader.migration = migration
                return reader
            }
            try store.reconcile(meta: meta, migrate: migrate && format <= formatVersion)
        }
        return store
    }

    /// Opens a store for `bookkeeper migrate`: checked to be a store, but not reconciled with the model.
    public static func openForMigration(at path: String, model: Model, busyTimeout: TimeInterval = 30) throws -> Store {
        let (store, meta) = try openUnchecked(at: path, model: model, readOnly: false, busyTimeout: busyTimeout)
        let format = Int(meta["format"]!)!
        if format > formatVersion { throw StoreError.newerFormat(path: path, found: format, supported: formatVersion) }
        if store.isReadOnly { throw StoreError.readOnly(path: path) }
        return store
    }

    private static func openUnchecked(at path: String, model: Model, readOnly: Bool,
                                      busyTimeout: TimeInterval) throws -> (Store, [String: String]) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError.missing(path: path)
        }
        if isDirectory.boolValue { throw StoreError.notAStore(path: path, reason: "it is a directory") }
        let readOnly = readOnly || !FileManager.default.isWritableFile(atPath: path)
        do {
            // Checked through a read-only connection first: a writer's connection puts the file in WAL mode and
            // GRDB makes sure its WAL file exists (by creating and dropping a table), which would write to a file
            // that is not ours.
            var queue: DatabaseQueue
            var meta: [String: String]
            do {
                queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: true, busyTimeout: busyTimeout))
                meta = try readMeta(queue)
            } catch let error as DatabaseError where readOnly && error.resultCode == .SQLITE_READONLY
                        && !FileManager.default.fileExists(atPath: path + "-wal") {
                // A store in WAL mode that this user may only read, in a folder it cannot write (another user's
                // store, read by reports): SQLite cannot create the shared-memory file beside it, so it refuses
                // even to read. No connection has the store open (there is no -wal file), so the file is read as
                // immutable, without locks. (When its owner has it open, the -wal and -shm files exist and the
                // ordinary read-only open above works, with locks.)
                queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration(readOnly: true, busyTimeout: busyTimeout))
                meta = try readMeta(queue)
            }
            guard let formatText = meta["format"], Int(formatText) != nil else {
                throw StoreError.notAStore(path: path, reason: "it is an SQLite database without bookkeeper metadata")
            }
            if !readOnly {
                try queue.close()
                queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: busyTimeout))
            }
            return (Store(path: path, model: model, readOnly: readOnly, queue: queue), meta)
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_NOTADB: throw StoreError.notAStore(path: path, reason: "the file is not an SQLite database")
            case .SQLITE_CORRUPT: throw StoreError.notAStore(path: path, reason: "the database file is corrupt")
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw StoreError.busy(path: path, detail: Store.currentActivity(at: path) ?? "another process is writing to it")
            case .SQLITE_CANTOPEN: throw StoreError.notAStore(path: path, reason: "it cannot be opened")
            default: throw StoreError.sqlite("\(path): \(error.message ?? "\(error.resultCode)")")
            }
        }
    }

    private static func readMeta(_ queue: DatabaseQueue) throws -> [String: String] {
        try queue.read { db -> [String: String] in
            guard try db.tableExists(metaTable) else { return [:] }
            var meta: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT \"key\", \"value\" FROM \(quoted(metaTable))") {
                meta[row[0]] = row[1]
            }
            return meta
        }
    }

    /// `file:/abs/path?immutable=1` (SQLite is built with URI file names: SQLITE_USE_URI).
    private static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// Runs `body` on the connection outside any transaction (for reads that see committed data).
    package func read<T>(_ body: (Database) throws -> T) throws -> T {
        try mapErrors { try queue.inDatabase(body) }
    }

    /// Runs `body` in one immediate write transaction: all of it is committed, or none of it.
    package func write<T>(_ body: (Database) throws -> T) throws -> T {
        if isReadOnly { throw StoreError.readOnly(path: path) }
        return try mapErrors {
            try queue.inDatabase { db in
                var result: T?
                try db.inTransaction(.immediate) {
                    beginActivity()
                    defer { endActivity() }
                    result = try body(db)
                    return .commit
                }
                return result!
            }
        }
    }

    /// SQLite's messages for a statement beyond its compile-time limits (SQLITE_MAX_EXPR_DEPTH,
    /// SQLITE_MAX_VARIABLE_NUMBER, the parser's stack, the join and compound-select limits).
    static func isSizeLimit(_ message: String?) -> Bool {
        guard let message = message?.lowercased() else { return false }
        return ["expression tree is too large", "too many sql variables", "parser stack overflow",
                "too many terms in compound select", "at most 64 tables in a join", "too many arguments on function",
                "too many columns"]
            .contains { message.contains($0) }
    }

    /// The words for a damaged store, wherever SQLite meets the damage.
    static func damaged(_ path: String, _ message: String?) -> String {
        "\(path): \(message ?? "database disk image is malformed") — the store is damaged: `bookkeeper check` lists the damage; restore it from a backup"
    }

    func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw busyError()
            case .SQLITE_READONLY:
                throw StoreError.readOnly(path: path)
            case .SQLITE_CORRUPT:
                throw StoreError.sqlite(Store.damaged(path, error.message))
            case .SQLITE_ERROR where TextRegexError.isDescription(error.message ?? ""):
                throw StoreError.matchFailed(error.message!)
            case .SQLITE_ERROR where Store.isSizeLimit(error.message), .SQLITE_TOOBIG:
                throw StoreError.queryTooLarge(error.message ?? "\(error.resultCode)")
            default:
                throw StoreError.sqlite("\(path): \(error.message ?? "\(error.resultCode)")")
            }
        }
    }
}
