import Foundation
import FileOutput
import GRDB
#if canImport(Glibc)
import Glibc
#endif

// Reads that must give one committed state, and damage that must be real before it is called damage.
//
// A user who may only read a store, in a folder it cannot write, cannot create the store's -wal and -shm files.
// SQLite (3.22 and later; checked with 3.40.1, two processes, see docs/cron.md) then reads it with
// locks — one snapshot, writers or not — whenever those files exist, even when the -shm is read-only and no
// other connection is open (it builds the index in heap memory). Without them it can read the file only as
// immutable, without locks: right while nobody writes, torn when a writer starts and checkpoints under it. So
// such a read records the file's identity when it opens it, and the result counts only if the file is the same
// and still has no -wal file at the end (`confirmSteadyRead`); otherwise the command fails as temporary (75).

/// What changes when a process writes a file: its inode, size and modification and change times (nanoseconds).
struct FileIdentity: Equatable {
    let device: UInt64, inode: UInt64, size: Int64
    let modified: timespec, changed: timespec

    init?(_ path: String) {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        device = UInt64(info.st_dev)
        inode = UInt64(info.st_ino)
        size = Int64(info.st_size)
        modified = info.st_mtim
        changed = info.st_ctim
    }

    static func == (a: FileIdentity, b: FileIdentity) -> Bool {
        a.device == b.device && a.inode == b.inode && a.size == b.size
            && a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
            && a.changed.tv_sec == b.changed.tv_sec && a.changed.tv_nsec == b.changed.tv_nsec
    }
}

extension Store {
    private static let unlockedLock = NSLock()
    nonisolated(unsafe) private static var unlocked: [Store] = []

    static func registerUnlocked(_ store: Store) {
        unlockedLock.lock()
        defer { unlockedLock.unlock() }
        // The first such read: from now on no output of this process is made final (renamed into place) unless
        // every store read without locks stayed one state — the library's own check, which no caller has to set.
        if unlocked.isEmpty { OutputFile.addCommitCheck { try Store.confirmSteadyReads() } }
        unlocked.append(store)
    }

    /// Whether the store may have changed under a read without locks: nil when the read was steady.
    func changedWhileRead() -> StoreError? {
        guard let since = unlockedSince else { return nil }
        // A -wal file means a writer has it open; its checkpoint may have written pages this read used (the
        // times alone could miss a write in the same clock tick as the one before).
        if FileIdentity(path) == since && !FileManager.default.fileExists(atPath: path + "-wal") { return nil }
        return .snapshotUnavailable(path: path, reason: Store.changedDuringRead)
    }

    static let changedDuringRead = "another process wrote to it during the read, and this user cannot create the -wal "
        + "and -shm files beside it that would have kept the read to one snapshot"


    /// Throws when this store was read without locks and another process wrote to it meanwhile.
    package func confirmSteadyRead() throws {
        if let changed = changedWhileRead() { throw changed }
    }

    /// `confirmSteadyRead` for every store this process read without locks: called before a result is
    /// committed (an output file renamed into place, a success status).
    package static func confirmSteadyReads() throws {
        unlockedLock.lock()
        let stores = unlocked
        unlockedLock.unlock()
        for store in stores { try store.confirmSteadyRead() }
    }

    /// SQLite reported a malformed page. A page read while another process rewrote it looks the same, so the
    /// damage is confirmed by SQLite's own check, on a fresh read, before the store is called damaged;
    /// otherwise it is a temporary failure.
    static func confirmDamage(path: String, queue: DatabaseQueue?, unlockedSince: FileIdentity?, message: String?) -> StoreError {
        let message = message ?? "database disk image is malformed"
        let changed = StoreError.snapshotUnavailable(path: path, reason: changedDuringRead)
        func moved() -> Bool {
            guard let since = unlockedSince else { return false }
            return FileIdentity(path) != since || FileManager.default.fileExists(atPath: path + "-wal")
        }
        if moved() { return changed }
        let verdict: [String]
        do {
            verdict = try withCheckConnection(path: path, queue: queue) { db in
                try String.fetchAll(db, sql: StoreSQL.sqlite.quickCheck)
            }
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            return moved() ? changed : .damaged(path: path, detail: message)
        } catch {
            return moved() ? changed : .snapshotUnavailable(path: path, reason: "SQLite reported \"\(message)\", and its integrity check could not run (\(error))")
        }
        if moved() { return changed }
        if verdict == ["ok"] {
            return .snapshotUnavailable(path: path, reason: "SQLite reported \"\(message)\", but its integrity check then found the store sound: it changed during the read")
        }
        return .damaged(path: path, detail: message)
    }

    /// Runs `body` on `queue`, or on a new read-only connection (immutable when SQLite cannot create the -wal
    /// and -shm files and none is there) when there is none.
    private static func withCheckConnection<T>(path: String, queue: DatabaseQueue?, _ body: (Database) throws -> T) throws -> T {
        if let queue { return try queue.inDatabase(body) }
        let config = configuration(readOnly: true, busyTimeout: 5)
        do {
            return try DatabaseQueue(path: path, configuration: config).inDatabase(body)
        } catch let error as DatabaseError where error.extendedResultCode == .SQLITE_READONLY_DIRECTORY
                    && !FileManager.default.fileExists(atPath: path + "-wal") {
            return try DatabaseQueue(path: immutableURI(path), configuration: config).inDatabase(body)
        }
    }

    /// SQLite's integrity check, a line per problem (`integrity: …`, at most `limit` and a count of the rest);
    /// when SQLite stops at the damage (a page it cannot read, a schema it cannot parse), that is a line too.
    static func integrityLines(_ db: Database, limit: Int) throws -> [String] {
        var lines: [String] = []
        // The check reads every page itself and says what is wrong with each; with the connection's cell size
        // check on, the first damaged cell stopped it with "malformed" instead (see Store.configuration).
        try db.execute(sql: StoreSQL.sqlite.checkPagesOnRead(false))
        defer { try? db.execute(sql: StoreSQL.sqlite.checkPagesOnRead(true)) }
        do {
            let cursor = try String.fetchCursor(db, sql: StoreSQL.sqlite.integrityCheck)
            while let text = try cursor.next() {
                if text == "ok" { continue }
                for line in text.split(separator: "\n") where !line.hasPrefix("*** in database") {
                    lines.append("integrity: \(line)")
                }
            }
        } catch let error as DatabaseError where [.SQLITE_CORRUPT, .SQLITE_NOTADB].contains(error.resultCode) {
            lines.append("integrity: \(error.message ?? "database disk image is malformed") (SQLite's check stopped there)")
        }
        if lines.count > limit {
            lines = Array(lines.prefix(limit)) + ["integrity: … and \(lines.count - limit) more"]
        }
        return lines
    }

    /// The integrity problems of a store that cannot be opened as a store (its schema or metadata pages are
    /// damaged): for `check`, which lists the damage rather than refusing.
    package static func integrityProblems(at path: String, limit: Int = 20) -> [String] {
        do {
            let lines = try withCheckConnection(path: path, queue: nil) { db in try integrityLines(db, limit: limit) }
            return lines.isEmpty ? ["integrity: SQLite's check finds no damage, but the store's metadata cannot be read"] : lines
        } catch {
            return ["integrity: \((error as? DatabaseError)?.message ?? "\(error)") (SQLite's check could not start)"]
        }
    }
}
