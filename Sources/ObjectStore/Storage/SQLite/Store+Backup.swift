// A copy of a store is only a backup if it opens as the store, where it is put.
//
// Why this file exists: `backup weekly.sqlite` where a killed job had left `weekly.sqlite-wal` said "backed up"
// and exited 0, and the copy opened as another database: SQLite reads a `-wal` (or rolls back a hot `-journal`)
// found beside a database file whatever file it belongs to. Such a companion is never ours to delete (a process
// may be using it), so a target with one beside it is refused, naming it, before anything is written, and again
// just before the copy is put in place; once in place the copy is opened there, as a restore would open it,
// companions included, and checked.

import FileOutput
import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

extension Store {
    /// The files SQLite reads beside a database file of that name.
    static let companionSuffixes = ["-wal", "-shm", "-journal"]

    /// The first SQLite companion beside `target` (as spelt, and beside the file a symlink leads to, where SQLite
    /// looks), as spelt for messages; nil when there is none. Any kind of file counts, a dangling link too.
    static func companion(of target: String, resolved: String?) -> String? {
        for suffix in companionSuffixes {
            for base in [target, resolved].compactMap({ $0 }) {
                var status = stat()
                if lstat(base + suffix, &status) == 0 { return base + suffix }
            }
        }
        return nil
    }

    /// Refuses (73) a copy's target with an SQLite companion beside it; devices, pipes and standard output have none.
    package static func refuseStaleCompanions(of target: String) throws {
        guard case let .regular(resolved) = try OutputTarget.resolve(target) else { return }
        try refuseStaleCompanions(of: target, resolved: resolved)
    }

    static func refuseStaleCompanions(of target: String, resolved: String?, what: String = "the copy") throws {
        guard let companion = companion(of: target, resolved: resolved) else { return }
        throw FileOutputError(path: target, message: "refusing to write: \(companion) is beside it, and SQLite would take it "
                              + "for \(what)'s own; it is left alone (a process may be using it): move it away if none is",
                              kind: .cannotCreate)
    }

    /// Refuses (73) to create a store at `path` with an SQLite companion beside it (`init`): the new store would
    /// open as whatever the companion holds.
    /// A companion of a store that another `init` has just created is its own: only one beside no store counts.
    package static func refuseStaleCompanions(ofNewStore path: String) throws {
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        guard !FileManager.default.fileExists(atPath: path), companion(of: path, resolved: resolved) != nil,
              !FileManager.default.fileExists(atPath: path) else { return }
        try refuseStaleCompanions(of: path, resolved: resolved, what: "the new store")
    }

    /// Whether `path` or one of its companions exists (a migration's copy takes the next name instead).
    static func nameIsTaken(_ path: String) -> Bool {
        FileManager.default.fileExists(atPath: path) || companion(of: path, resolved: nil) != nil
    }

    /// Opens the copy now at `target` read-only, as a restore would (companions included, none created), and
    /// throws unless it passes SQLite's quick check and reads as a bookkeeper store.
    static func verifyCopyInPlace(_ target: String) throws {
        var problem: String?
        do {
            var configuration = Configuration()
            configuration.readonly = true
            let copy = try DatabaseQueue(path: target, configuration: configuration)
            defer { try? copy.close() }
            problem = try copy.read { db -> String? in
                let check = try String.fetchOne(db, sql: StoreSQL.sqlite.quickCheck) ?? "no answer"
                guard check == "ok" else { return check.split(separator: "\n").joined(separator: " ") }
                let format = try String.fetchOne(db, sql: StoreSQL.sqlite.metaValue(metaTable), arguments: ["format"])
                return format == nil ? "it has no bookkeeper metadata" : nil
            }
        } catch let error as DatabaseError {
            problem = error.message ?? "\(error.resultCode)"
        }
        if let problem {
            throw StoreError.sqlite("\(target): the copy was put in place, but it does not open there as the store "
                                    + "(\(problem)): do not rely on it")
        }
    }
}
