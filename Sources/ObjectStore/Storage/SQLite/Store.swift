import Foundation
import FileOutput
import CSQLiteConfig
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// An open store: one SQLite file (in WAL mode) holding the objects of one model.
///
/// The store records in a metadata table which model wrote it (the model's canonical JSON and hash) and the
/// store format version, so that a store from a newer version, or one that is not a store at all, is refused
/// with a clear error rather than misread. A `Store` is `Sendable`: its reads and writes run one at a time on its
/// connection, so tasks may share it, each with its own `ObjectContext`.
public final class Store: @unchecked Sendable {
    /// The layout version of the store's own tables. Raise it when the metadata or the schema conventions change.
    package static let formatVersion = 1
    static let metaTable = "_bookkeeper_meta"

    /// The store's file, as given.
    public let path: String
    /// The model the store holds objects of.
    public let model: ObjectModel
    /// Whether the store was opened to read only.
    public let isReadOnly: Bool
    /// The file's connection (nil for books on PostgreSQL, which have `books`); only SQLite's parts of the store use it.
    private let fileQueue: DatabaseQueue?
    /// Throws `StoreError.fileOnly` on books on PostgreSQL (a path of SQLite's own that reached them), never a trap.
    var queue: DatabaseQueue {
        get throws {
            guard let fileQueue else { throw StoreError.fileOnly(path: path) }
            return fileQueue
        }
    }
    /// Books on PostgreSQL: their connection and schema; nil for a store file.
    let books: PostgreSQLBooks?
    /// What opening the store migrated, if anything.
    package internal(set) var migration: MigrationResult?
    /// For a dry run: the migration a real run would make first, which the dry run does not make. Its writes run it
    /// at the start of their transaction, which is rolled back (see `batch(dryRun:)`).
    package internal(set) var pendingMigration: MigrationPlan?
    /// For a reader that cannot write the store: the additive migration it needs, which this reader does not make;
    /// the store is read as it is under the model (see `readWithoutMigrating`).
    package internal(set) var readAsItIs: MigrationPlan?
    /// What this process writes, in words (`import of orders.csv`), told to other writers that find the store busy.
    package var activity: String?
    /// Books on PostgreSQL this open brought from an earlier format to the current one (their functions replaced).
    package var upgradedFormat: (from: Int, to: Int)?
    /// The busy note this process wrote beside the store while it holds the write lock.
    var activityNote: SideFile?
    /// Where the schema was last compared with the model (nil when it was not: a read-only store); every write
    /// transaction compares again if the schema changed since (see `confirmSchemaUnchanged`).
    var schemaCheckpoint: SchemaCheckpoint?
    /// Set when another process migrated the store to a model other than this one's while this process waited for
    /// the write lock (see `confirmSchemaUnchanged`): a statement naming what that migration removed says so.
    var migratedAway = false
    /// The file as it was when it was opened as immutable (read without locks), else nil; see `confirmSteadyRead`.
    let unlockedSince: FileIdentity?
    /// How long a read waits for SQLite to be able to give it a snapshot (the `busyTimeout` it was opened with).
    var snapshotWait: TimeInterval = 30
    /// The SQLite connection behind `queue`, for what a failed call leaves on it (`sqlite3_system_errno`).
    private let connection: OpaquePointer?
    /// The same connection as the storage protocol, which the engine's statements run on (`read`, `write`).
    private let fileStorage: SQLiteConnection?
    /// Throws `StoreError.fileOnly` on books on PostgreSQL, as `queue` does.
    var storage: SQLiteConnection {
        get throws {
            guard let fileStorage else { throw StoreError.fileOnly(path: path) }
            return fileStorage
        }
    }

    private init(path: String, model: ObjectModel, readOnly: Bool, queue: DatabaseQueue, unlockedSince: FileIdentity? = nil) {
        self.path = path
        self.model = model
        self.isReadOnly = readOnly
        self.fileQueue = queue
        self.books = nil
        let handle = queue.inDatabase { $0.sqliteConnection }
        self.connection = handle
        self.fileStorage = SQLiteConnection(handle: handle!)
        self.unlockedSince = unlockedSince
        if unlockedSince != nil { Store.registerUnlocked(self) }
    }

    /// Books on PostgreSQL (Store+PostgreSQL.swift).
    init(books: PostgreSQLBooks, model: ObjectModel, readOnly: Bool) {
        self.path = books.location.displayName
        self.model = model
        self.isReadOnly = readOnly
        self.fileQueue = nil
        self.books = books
        self.connection = nil
        self.fileStorage = nil
        self.unlockedSince = nil
    }

    /// `wal` false for a dry run's writer, and for the connections that only roll back a killed writer's journal:
    /// they leave the journal mode as the file has it (asking for WAL would switch a store another tool left in
    /// another mode, a write).
    ///
    /// `checkpointOnClose` false for a dry run's writer when a -wal was beside the store as it opened (see
    /// `openUnchecked`): SQLite's last connection to close copies the log's committed frames into the store file and
    /// removes the -wal and -shm, which changed the file's bytes and its companions (a dry run changes neither). A
    /// read-only connection cannot be the dry run's (it rehearses its writes in a transaction it rolls back), and
    /// SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE leaves the log and the store exactly as they were.
    static func configuration(readOnly: Bool, busyTimeout: TimeInterval, wal: Bool = true,
                              checkpointOnClose: Bool = true) -> Configuration {
        var config = Configuration()
        config.foreignKeysEnabled = true
        config.readonly = readOnly
        config.busyMode = .timeout(busyWait(busyTimeout))
        // WAL is set here, not by GRDB's `.wal`: GRDB then makes and drops a table whenever no -wal file is there
        // (its issue 102, for pools), which committed two schema changes on every opening — the store's bytes
        // changed (change counter, schema cookie) even for a command that was refused or only read (found by the
        // attack on 0.7.0). A store already in WAL mode (every store bookkeeper makes) is not written by this.
        config.journalMode = .default
        config.label = "bookkeeper"
        config.prepareDatabase { db in
            if !readOnly && wal { try db.execute(sql: StoreSQL.sqlite.fileJournal(.writeAheadLog)) }
            for setting in StoreSQL.sqlite.connectionSettings(readOnly: readOnly) { try db.execute(sql: setting) }
            if !checkpointOnClose, let handle = db.sqliteConnection { _ = bk_set_no_checkpoint_on_close(handle, 1) }
            SQLiteDialect().prepare(db)
        }
        return config
    }

    /// The longest busy timeout SQLite takes (`sqlite3_busy_timeout` counts milliseconds in a C int): about 24.8 days.
    package static let longestBusyTimeout: TimeInterval = Double(Int32.max / 1000)

    /// `busyTimeout` as SQLite takes it: above `longestBusyTimeout` (`.infinity` too) that longest, below 0 (or a
    /// NaN, which the public entry points refuse first) 0. GRDB converts it to a C int, a trap beyond (attack 18,
    /// finding 5).
    static func busyWait(_ busyTimeout: TimeInterval) -> TimeInterval {
        busyTimeout >= 0 ? min(busyTimeout, longestBusyTimeout) : 0
    }

    /// `busyTimeout` as a library caller gave it, checked: a NaN or a negative number throws
    /// `StoreError.invalidBusyTimeout`; a longer one than SQLite takes is that longest.
    static func checkedBusyTimeout(_ busyTimeout: TimeInterval, path: String) throws -> TimeInterval {
        guard busyTimeout >= 0 else { throw StoreError.invalidBusyTimeout(path: path, value: "\(busyTimeout)") }
        return busyWait(busyTimeout)
    }

    /// Creates a new store at `path` with the schema of `model`. Fails with `StoreError.alreadyExists` if a file
    /// is already there.
    ///
    /// The store is made whole under a temporary name beside `path` and then linked into place, so no other process
    /// ever finds a half-made store there, and of several creators exactly one wins: link(2) refuses the others with
    /// EEXIST, and they throw `alreadyExists`. (Before, a second creator that found the empty file SQLite had just
    /// made failed, and one that started to write its schema into it removed the first one's store.)
    /// `busyTimeout`: how long a write waits for another process's write lock, in seconds; a NaN or a negative
    /// number throws `StoreError.invalidBusyTimeout`, and more than SQLite takes (about 24.8 days, `.infinity`
    /// too) waits that longest.
    public static func create(at path: String, model: ObjectModel, busyTimeout: TimeInterval = 30) throws -> Store {
        let busyTimeout = try checkedBusyTimeout(busyTimeout, path: path)
        if FileManager.default.fileExists(atPath: path) { throw StoreError.alreadyExists(path: path) }
        ProtectedFiles.protectStore(path)
        // A symlink (dangling: a store to be made where it points) is followed, as opening the path would.
        let target = try creationTarget(path)
        let assembly = try reserveAssemblyName(beside: target, path: path)
        func discardAssembly() {
            for suffix in ["", "-wal", "-shm", "-journal"] { unlink(assembly + suffix) }
        }
        do {
            let building = try DatabaseQueue(path: assembly, configuration: configuration(readOnly: false, busyTimeout: busyTimeout))
            do {
                try building.write { db in
                    try db.execute(sql: metaTableSQL)
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
                        try db.execute(sql: StoreSQL.sqlite.insertMeta(metaTable),
                                       arguments: [key, value])
                    }
                }
                // Closing the only connection checkpoints the log into the file and removes the -wal and -shm.
                try building.close()
            } catch {
                try? building.close()
                throw error
            }
        } catch let error as DatabaseError {
            discardAssembly()
            if let exhausted = OpenFiles.exhausted() { throw exhausted }
            throw StoreError.cannotCreate(path: path, reason: error.message ?? "\(error.resultCode)")
        } catch {
            discardAssembly()
            if let exhausted = OpenFiles.exhausted() { throw exhausted }
            throw StoreError.cannotCreate(path: path, reason: "\(error)")
        }
        if link(assembly, target) != 0 {
            let code = errno
            discardAssembly()
            if code == EEXIST { throw StoreError.alreadyExists(path: path) }
            throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(code)))
        }
        unlink(assembly)
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: busyTimeout))
        } catch let error as DatabaseError {
            if let exhausted = OpenFiles.exhausted() { throw exhausted }
            throw StoreError.cannotCreate(path: path, reason: error.message ?? "\(error.resultCode)")
        }
        let store = Store(path: path, model: model, readOnly: false, queue: queue)
        store.schemaCheckpoint = try? queue.read { db in
            SchemaCheckpoint(version: try schemaVersion(db), model: model, recordedHash: model.versionHash)
        }
        return store
    }

    /// Where a store made at `path` goes: `path`, or the file its symlinks lead to (which may not exist yet).
    private static func creationTarget(_ path: String) throws -> String {
        var current = path
        for _ in 0..<40 {
            var status = stat()
            guard lstat(current, &status) == 0, status.st_mode & S_IFMT == S_IFLNK else { return current }
            guard let destination = try? FileManager.default.destinationOfSymbolicLink(atPath: current) else { return current }
            current = destination.hasPrefix("/") ? destination
                : (URL(fileURLWithPath: current).deletingLastPathComponent().path + "/" + destination)
        }
        throw StoreError.cannotCreate(path: path, reason: "too many levels of symbolic links")
    }

    /// A new, empty file beside `target` (same folder, so it can be linked into place), hidden and named for this
    /// process: `.books.sqlite.creating-PID-N`. A creator killed before it linked its store leaves it behind.
    private static func reserveAssemblyName(beside target: String, path: String) throws -> String {
        let url = URL(fileURLWithPath: target)
        let folder = url.deletingLastPathComponent().path
        for _ in 0..<100 {
            let name = "\(folder)/.\(url.lastPathComponent).creating-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            let fd = Glibc.open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o644)
            if fd >= 0 {
                Glibc.close(fd)
                return name
            }
            if errno != EEXIST { throw StoreError.cannotCreate(path: path, reason: String(cString: strerror(errno))) }
        }
        throw StoreError.cannotCreate(path: path, reason: "no free temporary name beside it")
    }

    /// Opens an existing store, checking that it is a store of a format this build can use (`StoreError` says why
    /// not).
    ///
    /// When the store was written with another model, additive changes (a new entity, a new optional attribute)
    /// are migrated at once after a backup copy is made beside the store; a change that could lose data, or that
    /// the data does not allow, throws a `MigrationError` listing each problem, and nothing is changed. With
    /// `migrate` false, any change throws. A `readOnly` store is usable only when no schema change is needed.
    /// `busyTimeout`: how long a write waits for another process's write lock, in seconds; a NaN or a negative
    /// number throws `StoreError.invalidBusyTimeout`, and more than SQLite takes (about 24.8 days, `.infinity`
    /// too) waits that longest.
    @_disfavoredOverload
    public static func open(at path: String, model: ObjectModel, readOnly: Bool = false, migrate: Bool = true,
                            busyTimeout: TimeInterval = 30) throws -> Store {
        try open(at: path, model: model, readOnly: readOnly, busyTimeout: busyTimeout, migrate: migrate, dryRun: false)
    }

    /// Opens an existing store (see the public `open`), checking that it is a store of a format this build can use.
    ///
    /// When the store was written with another model, additive changes are migrated at once (after a backup copy
    /// is made beside the store; `migration` tells what was done); changes that could lose data, or that the data
    /// does not allow, throw a `MigrationError` listing each problem — see `bookkeeper migrate`. With `migrate`
    /// false, any change throws. A read-only store, or one from a newer bookkeeper opened read-only, is usable
    /// only when no schema change is needed.
    ///
    /// A `dryRun` changes nothing, not a byte of the store: it refuses what the real run would refuse, and keeps
    /// the migration the real run would make first in `pendingMigration` (rehearsed, and rolled back).
    package static func open(at path: String, model: ObjectModel, readOnly: Bool = false, busyTimeout: TimeInterval = 30,
                            migrate: Bool = true, dryRun: Bool = false) throws -> Store {
        let (store, meta) = try openUnchecked(at: path, model: model, readOnly: readOnly, busyTimeout: busyTimeout, dryRun: dryRun)
        let format = Int(meta["format"]!)!
        if format > formatVersion && !store.isReadOnly {
            throw StoreError.newerFormat(path: path, found: format, supported: formatVersion)
        }
        do {
            if meta["model_hash"] != model.versionHash && dryRun {
                store.pendingMigration = try store.plannedMigration(meta: meta, migrate: migrate && format <= formatVersion)
            } else if meta["model_hash"] != model.versionHash {
                // A reader of a writable store still brings it up to date (additive changes only), so that tonight's
                // report runs on last year's store; then it reads as asked.
                if store.isReadOnly && readOnly && format <= formatVersion && FileManager.default.isWritableFile(atPath: path)
                    && folderIsWritable(path) && migrate {
                    // (This reader's connection closed first: the writer's, closed last, removes the -wal and -shm.)
                    try? store.closeQueue()
                    let writer = try open(at: path, model: model, readOnly: false, busyTimeout: busyTimeout, migrate: true)
                    let migration = writer.migration
                    try writer.closeQueue()
                    let reader = try open(at: path, model: model, readOnly: true, busyTimeout: busyTimeout, migrate: false)
                    reader.migration = migration
                    return reader
                }
                if store.isReadOnly && migrate && format <= formatVersion {
                    // This user cannot write the store: read as it is when the command only reads and the change
                    // is additive, else refused (73) in one wording by every command.
                    try store.readWithoutMigrating(writing: !readOnly)
                    return store
                }
                try store.reconcile(meta: meta, migrate: migrate && format <= formatVersion)
            }
        } catch {
            // Closed at once: a connection left to the end of the process left the -wal and -shm files beside the
            // store of a command (a dry run too) that was refused.
            try? store.closeQueue()
            throw error
        }
        return store
    }

    /// Opens the store read-only with the model it records, which its schema was made for: for `check` of a store
    /// that `open` cannot bring to `model` (its schema was changed by another tool, so it is not migrated).
    package static func openRecorded(at path: String, model: ObjectModel, busyTimeout: TimeInterval = 30) throws -> Store {
        let (store, _) = try openUnchecked(at: path, model: model, readOnly: true, busyTimeout: busyTimeout)
        let recorded: ObjectModel
        do {
            recorded = try store.recordedModel()
            try store.closeQueue()
        } catch {
            try? store.closeQueue()
            throw error
        }
        return try open(at: path, model: recorded, readOnly: true, busyTimeout: busyTimeout, migrate: false)
    }

    /// Opens a store for `bookkeeper migrate`: checked to be a store, but not reconciled with the model. A store
    /// this user cannot write is opened read-only, for the plan (`migrate` refuses to apply one: 73).
    package static func openForMigration(at path: String, model: ObjectModel, busyTimeout: TimeInterval = 30, dryRun: Bool = false) throws -> Store {
        let (store, meta) = try openUnchecked(at: path, model: model, readOnly: false, busyTimeout: busyTimeout, dryRun: dryRun)
        let format = Int(meta["format"]!)!
        if format > formatVersion { throw StoreError.newerFormat(path: path, found: format, supported: formatVersion) }
        return store
    }

    /// Opens the store read-only as it is, whatever model it records: for `backup`, which copies it and needs no
    /// migration (a reader that cannot write the store was refused the copy).
    package static func openForCopy(at path: String, model: ObjectModel, busyTimeout: TimeInterval = 30) throws -> Store {
        try openUnchecked(at: path, model: model, readOnly: true, busyTimeout: busyTimeout).0
    }

    private static func openUnchecked(at path: String, model: ObjectModel, readOnly: Bool,
                                      busyTimeout: TimeInterval, dryRun: Bool = false) throws -> (Store, [String: String]) {
        let busyTimeout = try checkedBusyTimeout(busyTimeout, path: path)
        guard dryRun else { return try openUnchecked(at: path, model: model, readOnly: readOnly, busyTimeout: busyTimeout, dryRun: false, hadLog: true) }
        // Whether a -wal was there before this dry run opened the store: then its writer leaves it (and the store file)
        // as it is when it closes; else SQLite removes the -wal and -shm its connections made when the last closes.
        let hadLog = FileManager.default.fileExists(atPath: path + "-wal")
        do {
            return try openUnchecked(at: path, model: model, readOnly: readOnly, busyTimeout: busyTimeout, dryRun: true, hadLog: hadLog)
        } catch {
            if !hadLog { removeCompanionsMade(at: path) }
            throw error
        }
    }

    /// After a dry run refused before its writer's connection was made (a damaged store, not a store): its read-only
    /// connection made the -wal and -shm beside the store, and SQLite removes them only when a writer's connection is
    /// the last to close. So one is opened and closed: SQLite checkpoints the empty log and removes both when no
    /// other connection has the store open, and leaves them when one has (they are that one's then).
    static func removeCompanionsMade(at path: String) {
        // (Never beside a rollback journal, which this writer's read would roll back: a dry run changes no byte.)
        guard FileManager.default.fileExists(atPath: path + "-wal") || FileManager.default.fileExists(atPath: path + "-shm"),
              !FileManager.default.fileExists(atPath: path + "-journal"),
              let queue = try? DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: 0, wal: false))
        else { return }
        // A read opens the log (SQLite opens it at the first read of a store in WAL mode), which the close then ends.
        _ = try? queue.inDatabase { db in try Int.fetchOne(db, sql: StoreSQL.sqlite.schemaVersion) }
        try? queue.close()
    }

    private static func openUnchecked(at path: String, model: ObjectModel, readOnly: Bool, busyTimeout: TimeInterval,
                                      dryRun: Bool, hadLog: Bool) throws -> (Store, [String: String]) {
        ProtectedFiles.protectStore(path)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw StoreError.missing(path: path)
        }
        if isDirectory.boolValue { throw StoreError.notAStore(path: path, reason: "it is a directory") }
        // SQLite would open a FIFO or a device and block on it, or read it as a store: only a regular file is one.
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
            throw StoreError.notAStore(path: path, reason: "it is not a regular file")
        }
        // SQLite reads an empty file as an empty database, which would be called "an SQLite database without
        // bookkeeper metadata"; no store is ever empty (Store.create puts one in place whole).
        if status.st_size == 0 && status.st_mode & S_IFMT == S_IFREG {
            throw StoreError.notAStore(path: path, reason: "the file is empty")
        }
        let readOnly = readOnly || !FileManager.default.isWritableFile(atPath: path)
        var unlockedSince: FileIdentity?
        var queue: DatabaseQueue?
        // A dry run refused here closes its connection at once, for `removeCompanionsMade` to be the last one.
        var handedOver = false
        defer { if dryRun && !handedOver { try? queue?.close() } }
        do {
            // Checked through a read-only connection first: a writer's connection puts the file in WAL mode and
            // GRDB makes sure its WAL file exists (by creating and dropping a table), which would write to a file
            // that is not ours.
            var meta: [String: String] = [:]
            var checkpoint: SchemaCheckpoint?
            let deadline = Date().addingTimeInterval(max(busyTimeout, 0.5))
            var rolledBack = false
            while true {
                do {
                    queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: true, busyTimeout: busyTimeout))
                    meta = try readMeta(queue!)
                    break
                } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_READONLY_ROLLBACK {
                    try? queue?.close()
                    queue = nil
                    // A hot rollback journal beside a store in DELETE mode (a killed writer's): SQLite rolls it back
                    // at the first read of a connection that can write, and a read-only one cannot read until then.
                    // Before, this was "cannot open its -wal or -shm file … retry later" (75) after the whole wait,
                    // or "attempt to write a readonly database" (74), for a store its user could write (attack 27,
                    // finding 7). A dry run changes no byte, so it leaves it; so does a user who cannot write.
                    let canWrite = FileManager.default.isWritableFile(atPath: path) && folderIsWritable(path)
                    guard canWrite, !dryRun, !rolledBack else { throw StoreError.hotJournal(path: path, dryRun: dryRun && canWrite) }
                    try rollBackHotJournal(path, busyTimeout: busyTimeout)
                    rolledBack = true
                } catch let error as DatabaseError where readOnly && (error.resultCode == .SQLITE_READONLY
                            || (error.resultCode == .SQLITE_CANTOPEN && FileManager.default.fileExists(atPath: path + "-wal"))) {
                    try? queue?.close()
                    queue = nil
                    // A store in WAL mode that this user may only read, in a folder it cannot write (another user's
                    // store, read by reports). SQLite reads it with locks through the -wal and -shm files when they
                    // are there (with a read-only -shm, since 3.22), but cannot create them: with no -wal file no
                    // connection has the store open, and the file is read as immutable, without locks — safe only
                    // while no writer starts, which `confirmSteadyRead` checks afterwards.
                    let identity = FileIdentity(path)
                    let noLog = !FileManager.default.fileExists(atPath: path + "-wal")
                    if error.extendedResultCode == .SQLITE_READONLY_DIRECTORY && noLog, let identity {
                        unlockedSince = identity
                        queue = try DatabaseQueue(path: immutableURI(path), configuration: configuration(readOnly: true, busyTimeout: busyTimeout))
                        meta = try readMeta(queue!)
                        break
                    }
                    // Otherwise a writer is starting or stopping (its -wal without its -shm yet, or the other way
                    // round), or SQLite needs write access to set up or recover the -shm: wait for the owner's
                    // connection as for a busy store, then give up with a temporary failure.
                    if Date() >= deadline {
                        throw StoreError.snapshotUnavailable(path: path, reason: unavailableReason(path, error))
                    }
                    usleep(20_000)
                }
            }
            guard let formatText = meta["format"], Int(formatText) != nil else {
                throw StoreError.notAStore(path: path, reason: "it is an SQLite database without bookkeeper metadata")
            }
            if !readOnly {
                // Before the writer's connection is made (which puts the file in WAL mode): a schema another tool
                // changed in a way that would change what writes do is refused untouched.
                if let format = Int(formatText), format <= formatVersion {
                    do {
                        checkpoint = try refuseForeignSchema(queue!, path: path, model: model, meta: meta)
                    } catch {
                        try? queue!.close()
                        throw error
                    }
                }
                try queue!.close()
                queue = try DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: busyTimeout, wal: !dryRun,
                                                                               checkpointOnClose: !(dryRun && hadLog)))
            }
            let store = Store(path: path, model: model, readOnly: readOnly, queue: queue!, unlockedSince: unlockedSince)
            store.snapshotWait = max(busyTimeout, 0.5)
            store.schemaCheckpoint = checkpoint
            handedOver = true
            return (store, meta)
        } catch let error as DatabaseError {
            // SQLite could not open the store or its -wal or -shm for want of descriptors: not the store's fault.
            if [.SQLITE_CANTOPEN, .SQLITE_IOERR].contains(error.resultCode), let exhausted = OpenFiles.exhausted() {
                throw exhausted
            }
            // A writer whose folder is not writable: SQLite cannot make the -wal and -shm files beside the store.
            if !readOnly && [.SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode) && !folderIsWritable(path) {
                throw StoreError.folderNotWritable(path: path)
            }
            switch error.resultCode {
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                // Only a file without SQLite's header is not a store; one with it but broken pages is damaged.
                guard hasSQLiteHeader(path) else {
                    throw StoreError.notAStore(path: path, reason: "the file is not an SQLite database")
                }
                throw confirmDamage(path: path, queue: queue, unlockedSince: unlockedSince, message: error.message)
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw StoreError.busy(path: path, detail: Store.currentActivity(at: path) ?? "another process is writing to it")
            case .SQLITE_CANTOPEN: throw StoreError.notAStore(path: path, reason: "it cannot be opened")
            default:
                let system = queue.flatMap { $0.inDatabase { $0.sqliteConnection } }.map { sqlite3_system_errno($0) } ?? 0
                if let shm = shmFailure(error.extendedResultCode.rawValue, systemErrno: system, path: path) { throw StoreError.sqlite(shm) }
                throw StoreError.sqlite("\(path): \(error.message ?? "\(error.resultCode)")")
            }
        }
    }

    /// A failure to make, grow or map the store's -shm file (SQLITE_IOERR_SHMOPEN, SHMSIZE, SHMMAP, SHMLOCK), which every
    /// reader of a store in WAL mode needs beside it, in words: SQLite says only `disk I/O error`, which reads as a
    /// damaged store (attack 17: a full filesystem). Nil for any other failure.
    static func shmFailure(_ extendedCode: Int32, systemErrno system: Int32, path: String) -> String? {
        // (Composed C macros, which Swift does not import: SQLITE_IOERR | 18<<8 … 21<<8.)
        let shmOpen = SQLITE_IOERR | 18 << 8, shmSize = SQLITE_IOERR | 19 << 8, shmLock = SQLITE_IOERR | 20 << 8, shmMap = SQLITE_IOERR | 21 << 8
        guard [shmOpen, shmSize, shmLock, shmMap].contains(extendedCode) else { return nil }
        let name = "\(fileName(path))-shm"
        let action = extendedCode == shmOpen ? "open" : extendedCode == shmLock ? "lock" : "create or grow"
        // A connection that failed to open leaves no errno to read: a folder whose filesystem has not room for the
        // -shm's first 32 KiB is the likely cause, said as ENOSPC's words.
        var full = system == ENOSPC
        if system == 0 {
            var info = statvfs()
            if statvfs(folderName(path), &info) == 0, UInt64(info.f_bavail) * UInt64(info.f_frsize) < 32_768 { full = true }
        }
        let reason = full ? String(cString: strerror(ENOSPC)) : system != 0 ? String(cString: strerror(system)) : "disk I/O error"
        let advice = full ? " — free space on the filesystem of \(folderName(path))" : ""
        return "\(path): cannot \(action) \(name) beside the store (SQLite's index of its write-ahead log): \(reason)\(advice)"
    }

    /// Rolls back a killed writer's hot journal as SQLite does: a connection that can write reads the store, which
    /// restores the last committed state from the journal and removes it. (Not in WAL mode: the store's journal
    /// mode is left to the connection the command opens next.)
    private static func rollBackHotJournal(_ path: String, busyTimeout: TimeInterval) throws {
        let writer = try DatabaseQueue(path: path, configuration: configuration(readOnly: false, busyTimeout: busyTimeout, wal: false))
        defer { try? writer.close() }
        _ = try writer.inDatabase { db in try Int.fetchOne(db, sql: StoreSQL.sqlite.readSchema) }
    }

    /// Why SQLite cannot give this (read-only) user a snapshot now, in words.
    private static func unavailableReason(_ path: String, _ error: DatabaseError) -> String {
        let fm = FileManager.default
        switch error.extendedResultCode {
        case .SQLITE_READONLY_RECOVERY:
            return "its write-ahead log must be recovered, which needs write access to its -shm file"
        case .SQLITE_READONLY_CANTINIT:
            return "SQLite cannot set up its -shm index without write access"
        default:
            if fm.fileExists(atPath: path + "-wal") && !fm.fileExists(atPath: path + "-shm") {
                return "its write-ahead log has no -shm index beside it, and this user cannot create one in its folder"
            }
            if !fm.fileExists(atPath: path + "-wal") && fm.fileExists(atPath: path + "-shm") {
                return "a writer is closing it"
            }
            return "this user cannot open its -wal or -shm file: \(error.message ?? "\(error.resultCode)")"
        }
    }

    /// Whether this user may create and remove files in the store's folder (where SQLite keeps the -wal and -shm).
    static func folderIsWritable(_ path: String) -> Bool {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent().path
        return access(folder, W_OK | X_OK) == 0
    }

    /// The folder of `path` as the user gave it (`.` for a bare file name), and the file's own name.
    static func folderName(_ path: String) -> String {
        let folder = (path as NSString).deletingLastPathComponent
        return folder.isEmpty ? "." : folder
    }

    static func fileName(_ path: String) -> String { (path as NSString).lastPathComponent }

    /// Whether the file begins with SQLite's header ("SQLite format 3" and a NUL).
    static func hasSQLiteHeader(_ path: String) -> Bool {
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let magic = (try? handle.read(upToCount: 16)) ?? Data()
        return magic == Data("SQLite format 3\u{0}".utf8)
    }

    private static func readMeta(_ queue: DatabaseQueue) throws -> [String: String] {
        try queue.read { db -> [String: String] in
            guard try db.tableExists(metaTable) else { return [:] }
            var meta: [String: String] = [:]
            for row in try Row.fetchAll(db, sql: StoreSQL.sqlite.allMeta(metaTable)) {
                meta[row[0]] = row[1]
            }
            return meta
        }
    }

    /// `file:/abs/path?immutable=1` (SQLite is built with URI file names: SQLITE_USE_URI).
    static func immutableURI(_ path: String) -> String {
        let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "?#%"))
        return "file:" + (absolute.addingPercentEncoding(withAllowedCharacters: allowed) ?? absolute) + "?immutable=1"
    }

    /// Runs `body` on the connection (for reads that see committed data): a store opened read-only in one read
    /// transaction, whose snapshot is taken first (`beginSnapshot`); a writable one outside any transaction.
    package func read<T>(_ body: (any StorageConnection) throws -> T) throws -> T {
        if let books { return try books.read(readOnly: isReadOnly, body) }
        return try readSQLite { _ in try body(storage) }
    }

    /// `read`, with GRDB's connection: for the parts of the store that are SQLite's own (opening, migrating,
    /// checking and copying a store file).
    func readSQLite<T>(_ body: (Database) throws -> T) throws -> T {
        guard isReadOnly else { return try mapErrors(writes: false) { try queue.inDatabase(body) } }
        return try mapErrors(writes: false) {
            try queue.inDatabase { db in
                if db.isInsideTransaction { return try body(db) }
                try beginSnapshot(db)
                do {
                    let result = try body(db)
                    try db.execute(sql: StoreSQL.sqlite.commit)
                    return result
                } catch {
                    try? db.execute(sql: StoreSQL.sqlite.rollback)
                    throw error
                }
            }
        }
    }

    /// Begins a read transaction and takes its snapshot. Through a -shm file this user may only read, SQLite
    /// cannot begin one while a writer that has just opened the store has not yet rebuilt the file's index
    /// (SQLITE_READONLY_RECOVERY, for a moment at the start of every import): that is waited out as a busy store
    /// is. Once the snapshot is taken, the statements of the read need the index no more; before, a statement in
    /// the middle of `check` met that moment and the command exited 75.
    private func beginSnapshot(_ db: Database) throws {
        let deadline = Date().addingTimeInterval(snapshotWait)
        while true {
            try db.execute(sql: StoreSQL.sqlite.beginRead)
            do {
                _ = try Int.fetchOne(db, sql: StoreSQL.sqlite.readSchema)
                return
            } catch let error as DatabaseError where error.resultCode == .SQLITE_READONLY
                        && [.SQLITE_READONLY_RECOVERY, .SQLITE_READONLY_CANTINIT].contains(error.extendedResultCode)
                        && Date() < deadline {
                try? db.execute(sql: StoreSQL.sqlite.rollback)
                usleep(20_000)
            } catch {
                try? db.execute(sql: StoreSQL.sqlite.rollback)
                throw error
            }
        }
    }

    /// Runs `body` in one immediate write transaction: all of it is committed, or none of it.
    /// `rerunnable`: `body` keeps nothing of a run that fails, so it may run again after a rollback (books on
    /// PostgreSQL try a write again that another transaction's serialization failure or deadlock stopped).
    package func write<T>(rerunnable: Bool = false, _ body: (any StorageConnection) throws -> T) throws -> T {
        if let books {
            if isReadOnly { throw StoreError.readOnly(path: path) }
            return try books.write(rerunnable: rerunnable) { connection in
                // A writer that waited for the lock while `migrate --model` changed the books: its model is gone.
                try confirmModelUnchanged(connection)
                try recordMissingIDMarks(connection)
                return try body(connection)
            }
        }
        return try writeSQLite { _ in try body(storage) }
    }

    /// `write`, with GRDB's connection (see `readSQLite`).
    func writeSQLite<T>(_ body: (Database) throws -> T) throws -> T {
        if isReadOnly { throw StoreError.readOnly(path: path) }
        return try mapErrors(inTransaction: true) {
            try queue.inDatabase { db in
                var result: T?
                var committing = false
                defer { if committing { CommitProgress.finish(committed: false) } }
                try db.inTransaction(.immediate) {
                    try confirmSchemaUnchanged(db)
                    beginActivity()
                    defer { endActivity() }
                    try recordMissingIDMarks(storage)
                    result = try body(db)
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

    /// SQLite's messages for a statement beyond its compile-time limits (SQLITE_MAX_EXPR_DEPTH,
    /// SQLITE_MAX_VARIABLE_NUMBER, the parser's stack, the join and compound-select limits, SQLITE_MAX_COLUMN for
    /// ORDER BY and GROUP BY terms: a report sorted by 3,000 keys was an I/O error, found by FuzzDefinitionShape).
    static func isSizeLimit(_ message: String?) -> Bool {
        guard let message = message?.lowercased() else { return false }
        return ["expression tree is too large", "too many sql variables", "parser stack overflow",
                "too many terms in compound select", "at most 64 tables in a join", "too many arguments on function",
                "too many columns", "too many terms in"]
            .contains { message.contains($0) }
    }

    /// SQLite's messages for a statement naming a table or column the schema lacks.
    static func namesSomethingMissing(_ message: String?) -> Bool {
        guard let message else { return false }
        return message.hasPrefix("no such column") || message.hasPrefix("no such table") || message.contains(" has no column named ")
    }

    /// `writes` false for a read (see `fileSizeLimitReached`); `inTransaction` true for the statements of a write
    /// transaction, whose store, -wal and -shm files are open already, so that SQLite's `unable to open database
    /// file` there is about one of its temporary files.
    func mapErrors<T>(writes: Bool = true, inTransaction: Bool = false, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StorageError {
            // A statement of the storage protocol (SQLiteConnection): the same failure as GRDB's, worded alike.
            return try mapErrors(writes: writes, inTransaction: inTransaction) {
                throw DatabaseError(resultCode: ResultCode(rawValue: error.code), message: error.message, sql: error.sql)
            }
        } catch BatchError.constraint(let message) where foreignConstraint(message) != nil {
            // (The refusal of a batch's statement: the transaction is rolled back, the schema can be read.)
            throw foreignConstraint(message)!
        } catch BatchError.sqlite(let message) where !migratedAway && message.hasPrefix("\(path): ") && missingColumn(String(message.dropFirst(path.count + 2))) != nil {
            // (A batch's statement naming a model column another tool renamed or dropped.)
            throw missingColumn(String(message.dropFirst(path.count + 2)))!
        } catch let error as DatabaseError {
            // A temporary file SQLite could not open for want of descriptors.
            if [.SQLITE_CANTOPEN, .SQLITE_IOERR].contains(error.resultCode), let exhausted = OpenFiles.exhausted() {
                throw exhausted
            }
            switch error.resultCode {
            case .SQLITE_BUSY, .SQLITE_LOCKED:
                throw busyError()
            case .SQLITE_READONLY where [.SQLITE_READONLY_RECOVERY, .SQLITE_READONLY_CANTINIT].contains(error.extendedResultCode):
                // A read-only -shm that SQLite cannot use now (see `unavailableReason`), not a write refused.
                throw StoreError.snapshotUnavailable(path: path, reason: Store.unavailableReason(path, error))
            case .SQLITE_READONLY where !isReadOnly && !Store.folderIsWritable(path):
                throw StoreError.folderNotWritable(path: path)
            case .SQLITE_READONLY:
                throw StoreError.readOnly(path: path)
            case .SQLITE_CORRUPT, .SQLITE_NOTADB:
                throw Store.confirmDamage(path: path, queue: fileQueue, unlockedSince: unlockedSince, message: error.message)
            case .SQLITE_ERROR where NonFiniteStoredNumber.fromSQL(error.message) != nil:
                // A sum, an average or a list met a stored infinity (bk_finite, StoreFunctions.swift).
                throw NonFiniteStoredNumber.fromSQL(error.message)!
            case .SQLITE_ERROR where TextRegexError.isDescription(error.message ?? ""):
                throw StoreError.matchFailed(error.message!)
            case .SQLITE_ERROR where Store.isSizeLimit(error.message), .SQLITE_TOOBIG:
                throw StoreError.queryTooLarge(error.message ?? "\(error.resultCode)")
            case .SQLITE_ERROR where migratedAway && Store.namesSomethingMissing(error.message):
                throw StoreError.migratedMeanwhile(path: path, detail: error.message!)
            case .SQLITE_ERROR where Store.namesSomethingMissing(error.message) && missingColumn(error.message) != nil:
                throw missingColumn(error.message)!
            case .SQLITE_CONSTRAINT where foreignConstraint(error.message) != nil:
                throw foreignConstraint(error.message)!
            case .SQLITE_CONSTRAINT where [.SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY].contains(error.extendedResultCode):
                // A model's unique index: another writer stored the value after this one validated.
                throw StoreError.uniqueRefused(path: path, detail: error.message ?? "\(error.extendedResultCode)")
            default:
                if let changed = changedWhileRead() { throw changed }
                if let connection, let shm = Store.shmFailure(error.extendedResultCode.rawValue, systemErrno: sqlite3_system_errno(connection), path: path) {
                    throw StoreError.sqlite(shm)
                }
                let detail = Store.fileSizeLimitReached(error.resultCode.rawValue, connection: connection, path: path, writes: writes,
                                                        inTransaction: inTransaction)
                    .map { ": \($0)" } ?? ""
                throw StoreError.sqlite("\(path): \(error.message ?? "\(error.resultCode)")\(detail)")
            }
        }
    }

    /// What a write that failed with EFBIG reached (SIGXFSZ is ignored, so a write that would pass `ulimit -f` fails):
    /// SQLite's words are only `disk I/O error`, and the file may be one of its temporary files, which a grouped
    /// aggregate or a large sort writes, rather than the store. `writes` false for a read, which writes only those.
    /// Nil for every other failure.
    static func fileSizeLimitReached(_ code: Int32, connection: OpaquePointer?, path: String, writes: Bool,
                                     inTransaction: Bool = false) -> String? {
        guard let connection else { return nil }
        return fileSizeLimitReached(code, systemErrno: sqlite3_system_errno(connection), path: path, writes: writes,
                                    inTransaction: inTransaction)
    }

    /// `inTransaction` true for a statement of an open write transaction: the store, its -wal and -shm are open, so a
    /// file SQLite cannot open is one of its temporary files (an update's or delete's `--where` list, a statement
    /// journal), not the store (`unable to open database file` blamed the store: found by attack 17).
    static func fileSizeLimitReached(_ code: Int32, systemErrno system: Int32, path: String, writes: Bool,
                                     inTransaction: Bool = false) -> String? {
        let primary = code & 0xFF
        // A read writes only SQLite's temporary files, so a full disk or a folder it cannot use is theirs, not the
        // store's (`database or disk is full`, `unable to open database file` blamed the store: found by the attack
        // on 0.6.0 before it landed).
        if !writes && (primary == SQLITE_FULL || (primary == SQLITE_IOERR && system == ENOSPC)) {
            return "SQLite's temporary files (in \(temporaryFolder)) filled its disk — give them a folder with room (SQLITE_TMPDIR)"
        }
        if (!writes || inTransaction) && primary == SQLITE_CANTOPEN {
            let reason = system != 0 ? " (\(String(cString: strerror(system))))" : ""
            return "SQLite cannot make its temporary files in \(temporaryFolder)\(reason) — point SQLITE_TMPDIR at a folder this user may write"
        }
        guard [SQLITE_IOERR, SQLITE_FULL].contains(primary), system == EFBIG else { return nil }
        var limits = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_FSIZE.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max else { return nil }
        let what = "the limit on file size (ulimit -f, \(UInt64(limits.rlim_cur) / 1024) KiB) — raise or remove the limit"
        return writes ? "the store, its -wal or one of SQLite's temporary files (in \(temporaryFolder)) reached \(what)"
            : "one of SQLite's temporary files (in \(temporaryFolder)) reached \(what)"
    }

    /// Where SQLite puts its temporary files: the first of these that is a folder this user may write (os_unix.c).
    static var temporaryFolder: String {
        let environment = ProcessInfo.processInfo.environment
        let candidates = [environment["SQLITE_TMPDIR"], environment["TMPDIR"], "/var/tmp", "/usr/tmp", "/tmp"].compactMap { $0 }
        for folder in candidates where !folder.isEmpty {
            var info = stat()
            if stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR, access(folder, W_OK | X_OK) == 0 { return folder }
        }
        return "."
    }
}

extension Store {
    /// A failure of a batch's statement, in the batch's words (as its statements on SQLite's C API worded them).
    func batchError(_ error: StorageError) -> BatchError {
        if let books { return .store(books.batchFailure(error)) }
        switch error.kind {
        case .busy: return .busy(path: path)
        case .readOnly: return .readOnly(path: path)
        case .constraint: return .constraint(error.description)
        case .damaged: return .store(.damaged(path: path, detail: error.message))
        case .other:
            if let detail = Store.fileSizeLimitReached(error.code, systemErrno: error.systemErrno, path: path, writes: true,
                                                       inTransaction: true) {
                return .sqlite("\(path): \(error.message): \(detail)")
            }
            return .sqlite("\(path): \(error.description)")
        }
    }
}
