import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#endif

extension Store {
    /// Every problem found in the store, one line each (empty when all is well): SQLite's integrity check,
    /// broken foreign keys, dangling references of No Action relationships, stored values that are not of
    /// their attribute's type, and objects that break the model's rules.
    public func check(limit: Int = 20) throws -> [String] {
        // SQLite's integrity check gives one row of text per damaged b-tree, several problems a line each; it may
        // also stop at a page it cannot read, which is damage to list too, not a reason to stop.
        let integrity = try read { db in try Store.integrityLines(db, limit: limit) }
        try confirmSteadyRead()
        if integrity.isEmpty {
            return try modelChecks(limit: limit)
        }
        // The other checks read every row, and stop at the damage.
        do {
            return try integrity + modelChecks(limit: limit)
        } catch StoreError.damaged(_, let detail) {
            return integrity + ["the other checks stopped at the damage (\(detail))"]
        } catch {
            return integrity + ["the other checks stopped at the damage (\(error))"]
        }
    }

    private func modelChecks(limit: Int) throws -> [String] {
        var problems: [String] = []
        try read { db in
            for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                let table: String = row[0], rowID: Int64? = row[1], parent: String = row[2]
                problems.append("\(rowID.map { "\(table)/\($0)" } ?? "a link in \(table)") refers to a \(parent) that does not exist")
            }
            for entity in model.entities {
                let table = quoted(entity.name)
                for r in entity.relationships where !r.isToMany {
                    guard case .foreignKey(let column) = model.storage(of: r, in: entity),
                          model.inverse(of: r).deleteRule == .noAction else { continue }
                    let dangling = try Row.fetchAll(db, sql: """
                        SELECT "id", \(quoted(column)) FROM \(table) WHERE \(quoted(column)) IS NOT NULL
                        AND \(quoted(column)) NOT IN (SELECT "id" FROM \(quoted(r.destination))) ORDER BY "id" LIMIT ?
                        """, arguments: [limit])
                    for row in dangling {
                        problems.append("\(entity.name)/\(row[0] as Int64).\(r.name) refers to \(r.destination)/\(row[1] as Int64), which does not exist")
                    }
                }
                // Values of the wrong kind (written by another tool): dates that are not dates, and so on.
                for a in entity.attributes where [.date, .dateTime].contains(a.type) || a.type == .boolean {
                    let cursor = try Row.fetchCursor(db, sql: "SELECT \"id\", \(quoted(a.name)) FROM \(table) WHERE \(quoted(a.name)) IS NOT NULL")
                    var found = 0
                    while let row = try cursor.next(), found < limit {
                        let stored: DatabaseValue = row[1]
                        let value = Value(databaseValue: stored, as: a.type)
                        let bad: Bool
                        switch (a.type, value, stored.storage) {
                        case (.boolean, _, .int64(let i)): bad = i != 0 && i != 1
                        case (.date, .date, _), (.dateTime, .dateTime, _): bad = false
                        default: bad = a.type != .boolean
                        }
                        if bad {
                            found += 1
                            problems.append("\(entity.name)/\(row[0] as Int64).\(a.name) holds \(stored), which is not a \(a.type)")
                        }
                    }
                }
            }
        }
        for entity in model.entities {
            for rule in entity.rules {
                let plan = try FetchPlan(FetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))", limit: limit),
                                         model: model, columns: [])
                let (sql, arguments) = plan.sql(.objects)
                let ids = try read { db in try Int64.fetchAll(db, sql: "SELECT \"id\" FROM (\(sql))", arguments: StatementArguments(arguments)) }
                for id in ids { problems.append("\(entity.name)/\(id): \(rule.message)") }
            }
        }
        return problems
    }

    /// A consistent copy of the store at `target` (SQLite's online backup API), written beside it under a
    /// temporary name and renamed when complete, so no half copy is ever left at `target`.
    public func backup(to target: String) throws {
        let directory = URL(fileURLWithPath: target).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw StoreError.cannotCreate(path: target, reason: "no such directory \(directory)")
        }
        let temporary = target + ".partial-\(ProcessInfo.processInfo.processIdentifier)"
        do {
            let destination = try DatabaseQueue(path: temporary)
            try queue.backup(to: destination)
            // SQLite's backup copies pages as they are, a damaged one too: a copy is kept only when it passes
            // SQLite's quick check, so that a backup that exists is one that can be restored.
            let problem = try destination.read { db in try String.fetchOne(db, sql: "PRAGMA quick_check(1)") }.map {
                $0.split(separator: "\n").filter { !$0.hasPrefix("*** in database") }.joined(separator: " ")
            }
            // A copy read without locks while another process wrote is no evidence of damage (see Store+SteadyRead).
            try confirmSteadyRead()
            if let problem, problem != "ok" {
                try? destination.close()
                throw StoreError.sqlite(Store.damaged(path, "the copy fails SQLite's integrity check (\(problem))") + ". No copy was kept.")
            }
            try destination.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
            try destination.close()
            guard rename(temporary, target) == 0 else {
                throw StoreError.cannotCreate(path: target, reason: String(cString: strerror(errno)))
            }
            // The copy was synced when its connection committed; sync the folder too, so the rename survives a crash.
            let folder = Glibc.open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if folder >= 0 {
                defer { Glibc.close(folder) }
                if fsync(folder) != 0 {
                    throw StoreError.sqlite("\(target): cannot sync its folder (\(String(cString: strerror(errno))))")
                }
            }
        } catch let error as StoreError {
            try? FileManager.default.removeItem(atPath: temporary)
            throw error
        } catch let error as DatabaseError {
            try? FileManager.default.removeItem(atPath: temporary)
            // A write that failed (a full disk, a file-size limit) is an I/O error, named by SQLite's text for the
            // extended code: the backup's own message is often "not an error".
            let primary = error.resultCode
            if primary == .SQLITE_IOERR || primary == .SQLITE_FULL {
                throw StoreError.sqlite("\(target): cannot write the copy (\(String(cString: sqlite3_errstr(error.extendedResultCode.rawValue))))")
            }
            throw StoreError.cannotCreate(path: target, reason: error.message ?? "\(error.resultCode)")
        }
    }
}
