/// Why a store could not be opened, read or written.
public enum StoreError: CategorizedError, Equatable {
    /// No store is at `path`.
    case missing(path: String)
    /// A file is already at `path`, where a store was to be created.
    case alreadyExists(path: String)
    /// The file at `path` is not a store; `reason` says what it is instead.
    case notAStore(path: String, reason: String)
    /// The store's format version (`found`) is newer than this build's (`supported`): written by a newer version.
    case newerFormat(path: String, found: Int, supported: Int)
    /// Books on PostgreSQL of an earlier format (`found`) than this build's (`supported`), which this command may not
    /// bring up to date: it only reads, or the role may not write them. Their functions would answer as the earlier
    /// version's.
    case olderFormat(path: String, found: Int, supported: Int)
    /// The store was written with another model, and the change is not one to make on opening.
    case modelMismatch(path: String)
    /// Another process held the store's lock past the busy timeout; try again later.
    case busy(path: String, detail: String)
    /// The store cannot be written by this user, or was opened to read only.
    case readOnly(path: String)
    /// The store needs a migration this user cannot make (it cannot write the store), and it cannot be read as it
    /// is (the change is not additive, or the command writes): one code and one wording from every command.
    case needsMigratingReadOnly(path: String)
    /// The store file may be written, but not its folder, where SQLite must create the -wal and -shm files.
    case folderNotWritable(path: String)
    /// The store could not be created at `path`, for `reason`.
    case cannotCreate(path: String, reason: String)
    /// A killed writer's rollback journal is beside the store (DELETE mode), and this user cannot write the store,
    /// or this is a dry run (which changes no byte): a user who can write it rolls it back by running any command.
    case hotJournal(path: String, dryRun: Bool)
    /// SQLite cannot give this (read-only) user one committed snapshot now: retry later.
    case snapshotUnavailable(path: String, reason: String)
    /// Another process migrated the store to another model while this command waited for the write lock, and a
    /// statement named what that migration removed (SQLite's message): run it again, with the model file as it is now.
    case migratedMeanwhile(path: String, detail: String)
    /// Damage SQLite's integrity check confirmed.
    case damaged(path: String, detail: String)
    /// SQLite failed otherwise: its message.
    case sqlite(String)
    /// SQLite refused a statement for its size (an expression nested too deep, too many bound values): the
    /// query asked too much, which is the user's to change, not an I/O failure.
    case queryTooLarge(String)
    /// A MATCHES that could not be decided for a stored value (a pattern from the data that is not a regular
    /// expression, or the engine's backtracking limit): an error, never "no match".
    case matchFailed(String)
    /// Every object ID of an entity was handed out (the largest is Int64.max): a condition of the data, not of the disk.
    case idsExhausted(path: String, entity: String)
    /// A UNIQUE index or CHECK constraint that is not the model's (another tool added it) refused a write, which was
    /// rolled back: `constraint` names it (`unique index "u_info" on Customer(info)`, `CHECK constraint no_unpaid`).
    case foreignConstraint(path: String, constraint: String)
    /// A column of the model is missing from the store (another tool renamed or dropped it): `column` as the model
    /// names it (`Customer.info`).
    case missingColumn(path: String, column: String)
    /// An entity's object-ID mark in the metadata table is not an ID (another tool changed it): `value` as stored.
    case idMarkUnreadable(path: String, entity: String, value: String)
    /// The `busyTimeout` given to `Store.create` or `Store.open` is not a number of seconds (a NaN, or below 0):
    /// `value` as written.
    case invalidBusyTimeout(path: String, value: String)

    /// The PostgreSQL server of books cannot be reached (libpq's `reason`): not running, a wrong host, port or
    /// socket folder, or a network failure.
    case serverUnreachable(path: String, reason: String)
    /// The PostgreSQL server refused this user's authentication (libpq's `reason`).
    case authenticationFailed(path: String, reason: String)
    /// The PostgreSQL database named does not exist (libpq's `reason`).
    case databaseMissing(path: String, reason: String)
    /// The PostgreSQL server cannot hold books: older than version 15, or a database whose encoding is not UTF8.
    case serverUnsupported(path: String, reason: String)
    /// libpq cannot use the connection URI or one of its parameters (`reason`, its words without the password).
    case invalidConnection(path: String, reason: String)
    /// The PostgreSQL role may not use the books' schema (no USAGE on it).
    case accessDenied(path: String, reason: String)
    /// The connection to the PostgreSQL server was lost during a command (the server stopped or ended the session,
    /// the network failed): `reason` in libpq's or the server's words, on one line; `change` says what became of a
    /// write.
    case connectionLost(path: String, reason: String, change: LostChange)
    /// A unique index of the model refused a write (`detail`, the database's words): another writer stored the same
    /// value after this one validated its change. Nothing was changed.
    case uniqueRefused(path: String, detail: String)
    /// PostgreSQL could not serialize the transaction with another one (SQLSTATE 40001, or 40P01 a deadlock) on
    /// every one of `attempts` tries: `detail`, the server's words.
    case serializationFailed(path: String, sqlState: String, attempts: Int, detail: String)
    /// A part of the store that only a store file has (SQLite's own connection) was asked of books on PostgreSQL: a
    /// command that does not work there yet, refused rather than trapping.
    case fileOnly(path: String)

    /// What a connection lost mid-command did to the change a command was making.
    public enum LostChange: Sendable, Equatable {
        /// The command was reading: nothing to say of a change.
        case reading
        /// The connection was lost before COMMIT was sent: the server rolled the change back.
        case nothingChanged
        /// The connection was lost while COMMIT was under way: the server may or may not have committed it.
        case outcomeUnknown
    }

    package var category: ErrorCategory {
        switch self {
        case .missing: .missingInput
        case .alreadyExists: .cannotCreateOutput
        case .notAStore, .newerFormat, .modelMismatch: .data
        case .busy, .snapshotUnavailable, .migratedMeanwhile, .hotJournal: .temporaryFailure
        case .damaged: .io
        case .readOnly, .folderNotWritable, .needsMigratingReadOnly, .olderFormat: .cannotCreateOutput
        case .cannotCreate: .cannotCreateOutput
        case .sqlite: .io
        case .queryTooLarge, .invalidBusyTimeout, .fileOnly: .usage
        case .serverUnreachable, .serverUnsupported, .connectionLost: .unavailable
        case .uniqueRefused: .data
        case .serializationFailed: .temporaryFailure
        case .authenticationFailed, .accessDenied: .permission
        case .invalidConnection: .usage
        case .databaseMissing: .missingInput
        case .matchFailed, .idsExhausted, .foreignConstraint, .missingColumn, .idMarkUnreadable: .data
        }
    }

    /// What a person can do about it, when the error has one remedy a front end words (the command line names
    /// its command); `description` says none.
    package var nextStep: NextStep? {
        switch self {
        case .missing: .createStore
        case .needsMigratingReadOnly: .ownerMigrates
        case .olderFormat: .upgradeBooks
        case .damaged, .foreignConstraint, .missingColumn, .idMarkUnreadable: .runCheck
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .missing(let path):
            "\(path): no such store"
        case .alreadyExists(let path):
            "\(path): a store already exists there"
        case .notAStore(let path, let reason):
            "\(path): not a bookkeeper store (\(reason))"
        case .newerFormat(let path, let found, let supported):
            "\(path): written by a newer version of bookkeeper (store format \(found); this version reads up to \(supported)) — it can only be read, by reports and fetches"
        case .olderFormat(let path, let found, let supported):
            "\(path): books of format \(found), made by an earlier version of bookkeeper, whose SQL functions this version "
                + "(format \(supported)) replaces before it reads them; a read changes nothing — " + NextStep.upgradeBooks.description
        case .modelMismatch(let path):
            "\(path): the store was written with a different model"
        case .busy(let path, let detail):
            "\(path): store is busy (\(detail))"
        case .readOnly(let path):
            "\(path): the store is read-only"
        case .needsMigratingReadOnly(let path):
            "\(path): the store was written with another model and needs migrating, and it is read-only for this user "
                + "— its owner must migrate it"
        case .folderNotWritable(let path):
            "\(path): cannot write the store: its folder \(Store.folderName(path)) must be writable by this user too, "
                + "for SQLite's \(Store.fileName(path))-wal and -shm files beside it"
        case .cannotCreate(let path, let reason):
            "\(path): cannot create the store (\(reason))"
        case .hotJournal(let path, let dryRun):
            "\(path): a killed writer's journal (\(Store.fileName(path))-journal) must be rolled back by a user who can write the store"
                + (dryRun ? " (a dry run changes nothing, so it leaves it: any other command by such a user rolls it back)" : "")
        case .snapshotUnavailable(let path, let reason):
            "\(path): cannot read one consistent state of the store now (\(reason)) — retry later"
        case .migratedMeanwhile(let path, let detail):
            "\(path): another process migrated the store to another model while this command waited (\(detail)) — run it again"
        case .damaged(let path, let detail):
            "\(path): \(detail) — the store is damaged; restore it from a backup"
        case .sqlite(let message):
            message
        case .matchFailed(let message):
            "where: \(message)"
        case .idsExhausted(let path, let entity):
            "\(path): \(entity): every object ID up to \(Int64.max) was handed out; no new object can be given one"
        case .foreignConstraint(let path, let constraint):
            "\(path): the store's \(constraint) refused the change; it is not the model's (another tool added it) "
                + "— nothing was changed"
        case .missingColumn(let path, let column):
            "\(path): \(column) is missing from the store (another tool renamed or dropped its column), so the store's "
                + "schema differs from the model's"
        case .idMarkUnreadable(let path, let entity, let value):
            "\(path): \(entity): the mark of the object IDs handed out (\(Store.idMarkKey(entity)) in \(Store.metaTable)) is unreadable: "
                + "it holds \(value), which is not an ID (another tool changed it) — no new object is given one"
        case .serverUnreachable(let path, let reason):
            "\(path): cannot reach the database server (\(reason))"
        case .authenticationFailed(let path, let reason):
            "\(path): the database server refused this user (\(reason))"
        case .databaseMissing(let path, let reason):
            "\(path): no such database (\(reason))"
        case .serverUnsupported(let path, let reason):
            "\(path): the database server cannot hold books (\(reason))"
        case .invalidConnection(let path, let reason):
            "\(path): the connection cannot be made as written (\(reason))"
        case .accessDenied(let path, let reason):
            "\(path): this user may not use the books (\(reason))"
        case .connectionLost(let path, let reason, .reading):
            "\(path): the connection to the database server was lost (\(reason))"
        case .connectionLost(let path, let reason, .nothingChanged):
            "\(path): the connection to the database server was lost (\(reason)) — nothing was changed"
        case .connectionLost(let path, let reason, .outcomeUnknown):
            "\(path): the connection to the database server was lost while the change was being committed (\(reason)) "
                + "— it may or may not have been saved; look before running it again"
        case .uniqueRefused(let path, let detail):
            "\(path): \(detail) — another writer stored the same value meanwhile; nothing was changed"
        case .fileOnly(let path):
            "\(path): this works on store files (SQLite) only, not on books on PostgreSQL yet"
        case .serializationFailed(let path, let sqlState, let attempts, let detail):
            "\(path): \(sqlState == "40P01" ? "a deadlock with another transaction" : "another transaction's concurrent change") "
                + "(SQLSTATE \(sqlState): \(detail)) stopped the command on each of \(attempts) tries — nothing was changed; retry later"
        case .invalidBusyTimeout(let path, let value):
            "\(path): busyTimeout \(value) is not a number of seconds to wait (give 0 or more; 0 does not wait)"
        case .queryTooLarge(let message):
            // The limit names the clause (ORDER BY, columns); only a predicate's is the `where:`.
            (message.contains(" BY ") || message.contains("columns") ? "" : "where: ")
                + "the query is too large for SQLite (\(message)) — use fewer terms, shorter lists or less nesting"
        }
    }
}

/// A backup's copy failed SQLite's integrity check (`problem`, its words): the store is damaged, and no copy was kept.
package struct DamagedCopyError: CategorizedError, Equatable {
    package let path: String
    package let problem: String

    package init(path: String, problem: String) {
        self.path = path
        self.problem = problem
    }

    package var category: ErrorCategory { .io }
    /// The store's check lists the damage.
    package var nextStep: NextStep { .runCheck }

    package var description: String {
        "\(path): the copy fails SQLite's integrity check (\(problem)) — the store is damaged; restore it from a backup. No copy was kept."
    }
}
