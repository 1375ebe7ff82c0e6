import FileOutput
import Foundation
import GRDB
import GRDBSQLite
#if canImport(Glibc)
import Glibc
#endif

extension Store {
    /// Every problem found in the store, one line each (empty when all is well): SQLite's integrity check, the
    /// schema compared with the model's (tables, columns, indexes, triggers, views another tool added, dropped or
    /// changed), broken foreign keys, dangling references of No Action relationships, repeated values of unique
    /// attributes, stored values that are not of their attribute's type (text that is not UTF-8 or holds a NUL,
    /// numbers that are not finite, dates that are not dates…), and objects that break the model's rules.
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
        var shape = SchemaShape()
        var schemaDiffers = false
        try read { db in
            shape = try SchemaShape.read(db)
            let differences = shape.differences(from: try SchemaShape.expected(for: model))
            schemaDiffers = !differences.isEmpty
            var schema = differences.map {
                "schema: \($0.text)" + ($0.blocksWrites ? "; bookkeeper writes nothing to the store until this is undone" : "")
            }
            if schema.count > limit {
                schema = Array(schema.prefix(limit)) + ["schema: … and \(schema.count - limit) more"]
            }
            problems += schema
            // The checks below read only the model's columns that are there (the schema lines name the others).
            func has(_ table: String, _ column: String) -> Bool { shape.table(named: table)?.column(named: column) != nil }
            do {
                for row in try Row.fetchAll(db, sql: "PRAGMA foreign_key_check") {
                    let table: String = row[0], rowID: Int64? = row[1], parent: String = row[2]
                    problems.append("\(rowID.map { "\(table)/\($0)" } ?? "a link in \(table)") refers to a \(parent) that does not exist")
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
                // A foreign key whose parent is no longer a table, or no longer has the key it names.
                problems.append("foreign keys: SQLite cannot check them (\(error.message ?? "\(error.resultCode)"))")
            }
            for entity in model.entities where has(entity.name, "id") {
                let table = quoted(entity.name)
                for r in entity.relationships where !r.isToMany {
                    guard case .foreignKey(let column) = model.storage(of: r, in: entity), has(entity.name, column),
                          has(r.destination, "id"), model.inverse(of: r).deleteRule == .noAction else { continue }
                    let dangling = try Row.fetchAll(db, sql: """
                        SELECT "id", \(quoted(column)) FROM \(table) WHERE \(quoted(column)) IS NOT NULL
                        AND \(quoted(column)) NOT IN (SELECT "id" FROM \(quoted(r.destination))) ORDER BY "id" LIMIT ?
                        """, arguments: [limit])
                    for row in dangling {
                        problems.append("\(entity.name)/\(row[0] as Int64).\(r.name) refers to \(r.destination)/\(row[1] as Int64), which does not exist")
                    }
                }
                problems += try repeatedValues(db, entity, limit: limit, has: has)
                // Text with a NUL (written by another tool; the importer refuses it): every reader shows it only up to
                // the NUL, so the rest would be hidden without a word.
                for a in entity.attributes where a.type == .string && has(entity.name, a.name) {
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT "id", \(quoted(a.name)) FROM \(table)
                        WHERE instr(CAST(\(quoted(a.name)) AS BLOB), x'00') > 0 ORDER BY "id" LIMIT ?
                        """, arguments: [limit])
                    for row in rows {
                        let shown: String = row[1]
                        problems.append("\(entity.name)/\(row[0] as Int64).\(a.name) holds text with a NUL character, "
                            + "which is shown only up to it (\(shown.debugDescription))")
                    }
                }
                // Text that is not UTF-8 (written by another tool; every input is read as text first): each reader
                // shows it with U+FFFD in place of the bytes it cannot read, and a search or a key lookup misses it.
                for a in entity.attributes where a.type == .string && has(entity.name, a.name) {
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT "id", CAST(\(quoted(a.name)) AS BLOB) FROM \(table)
                        WHERE \(StoreFunctions.invalidUTF8)(\(quoted(a.name))) ORDER BY "id" LIMIT ?
                        """, arguments: [limit])
                    for row in rows {
                        let bytes: Data = row[1]
                        let hex = bytes.prefix(32).map { String(format: "%02X", $0) }.joined(separator: " ") + (bytes.count > 32 ? " …" : "")
                        let shown = String(decoding: bytes.prefix(32), as: UTF8.self) + (bytes.count > 32 ? "…" : "")
                        problems.append("\(entity.name)/\(row[0] as Int64).\(a.name) holds text that is not valid UTF-8 "
                            + "(the bytes \(hex)), shown as \(shown.debugDescription)")
                    }
                }
                // Infinities (written by another tool: `UPDATE … SET x = 9e999`). SQLite stores NaN as NULL.
                for a in entity.attributes where a.type == .double && has(entity.name, a.name) {
                    let rows = try Row.fetchAll(db, sql: """
                        SELECT "id", \(quoted(a.name)) > 0 FROM \(table) WHERE \(quoted(a.name)) IN (9e999, -9e999) ORDER BY "id" LIMIT ?
                        """, arguments: [limit])
                    for row in rows {
                        problems.append("\(entity.name)/\(row[0] as Int64).\(a.name) holds a non-finite number (\(row[1] as Bool ? "inf" : "-inf"))")
                    }
                }
                // Values of the wrong kind (written by another tool): dates that are not dates, and so on.
                for a in entity.attributes where ([.date, .dateTime].contains(a.type) || a.type == .boolean) && has(entity.name, a.name) {
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
                            problems.append("\(entity.name)/\(row[0] as Int64).\(a.name) holds \(stored), which is not a \(a.type.name)")
                        }
                    }
                }
            }
        }
        // A rule reads its entity's columns and those of the entities it follows: one the schema lacks is named above.
        for entity in model.entities where !entity.rules.isEmpty {
            do {
                problems += try read { db in try ruleViolations(db, limit: limit, entities: [entity]) }
            } catch StoreError.sqlite(let message) where schemaDiffers {
                problems.append("\(entity.name): its rules cannot be checked against this schema (\(message))")
            }
        }
        return problems
    }

    /// Values of a unique attribute (a natural key too) that several objects share, and one-to-one relationships
    /// that several objects hold to the same object: possible only when the unique index that keeps them unique
    /// was dropped or changed by another tool, which the schema lines name.
    private func repeatedValues(_ db: Database, _ entity: Entity, limit: Int, has: (String, String) -> Bool) throws -> [String] {
        var problems: [String] = []
        let table = quoted(entity.name)
        func repeated(_ column: String) throws -> [(value: DatabaseValue, count: Int, ids: String)] {
            let rows = try Row.fetchAll(db, sql: """
                SELECT \(quoted(column)), COUNT(*) FROM \(table) WHERE \(quoted(column)) IS NOT NULL
                GROUP BY \(quoted(column)) HAVING COUNT(*) > 1 ORDER BY MIN("id") LIMIT ?
                """, arguments: [limit])
            return try rows.map { row in
                let value: DatabaseValue = row[0], count: Int = row[1]
                let ids = try Int64.fetchAll(db, sql: "SELECT \"id\" FROM \(table) WHERE \(quoted(column)) = ? ORDER BY \"id\" LIMIT 6",
                                             arguments: [value])
                let names = ids.prefix(5).map { "\(entity.name)/\($0)" }.joined(separator: ", ") + (count > 5 ? ", …" : "")
                return (value, count, names)
            }
        }
        for a in entity.attributes where (a.isUnique || a.name == entity.naturalKey) && has(entity.name, a.name) {
            for (value, count, ids) in try repeated(a.name) {
                problems.append("\(entity.name).\(a.name)\(a.name == entity.naturalKey ? " (the natural key)" : "") must be unique, "
                    + "but \(count) objects share \"\(Value(databaseValue: value, as: a.type))\" (\(ids))")
            }
        }
        for r in entity.relationships where !r.isToMany && !model.inverse(of: r).isToMany {
            guard case .foreignKey(let column) = model.storage(of: r, in: entity), has(entity.name, column) else { continue }
            for (value, count, ids) in try repeated(column) {
                problems.append("\(entity.name).\(r.name) is one-to-one, but \(count) objects refer to \(r.destination)/\(value) (\(ids))")
            }
        }
        return problems
    }

    /// The objects that break the model's rules, `Entity/ID: message` each, at most `limit` per rule; used by
    /// `check` and by every batch before it commits.
    func ruleViolations(_ db: Database, limit: Int, entities: [Entity]? = nil) throws -> [String] {
        var problems: [String] = []
        for entity in entities ?? model.entities {
            for rule in entity.rules {
                let plan = try FetchPlan(FetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))", limit: limit),
                                         model: model, columns: [])
                let (sql, arguments) = plan.sql(.objects)
                // Named by ID and natural key, as the context names objects (`Order/3 "B-2"`): inside a batch the
                // ID may be one that is rolled back, the key is what the user wrote.
                let key = entity.naturalKey.map(quoted) ?? "NULL"
                let rows = try Row.fetchAll(db, sql: "SELECT \"id\", \(key) FROM (\(sql))", arguments: StatementArguments(arguments))
                for row in rows {
                    let id: Int64 = row[0]
                    let stored: DatabaseValue = row[1]
                    let keyText = stored.isNull ? "" : entity.naturalKey.flatMap(entity.attribute(named:))
                        .map { " \"\(Value(databaseValue: stored, as: $0.type))\"" } ?? ""
                    problems.append("\(entity.name)/\(id)\(keyText): \(rule.message)")
                }
            }
        }
        return problems
    }

    /// A consistent copy of the store at `target` (SQLite's online backup API), assembled through the one output
    /// module: beside the target under a temporary name and renamed when complete (no half copy is ever left at
    /// `target`), or copied into a device or pipe; the store itself and its companions are refused.
    public func backup(to target: String) throws {
        let file = try OutputFile(path: target, assembledAtPath: true)
        let temporary = file.assemblyPath!
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
            try file.commit()
        } catch let error as StoreError {
            file.discard()
            throw error
        } catch let error as DatabaseError {
            file.discard()
            // A write that failed (a full disk, a file-size limit) is an I/O error, named by SQLite's text for the
            // extended code: the backup's own message is often "not an error".
            let primary = error.resultCode
            if primary == .SQLITE_IOERR || primary == .SQLITE_FULL {
                throw StoreError.sqlite("\(target): cannot write the copy (\(String(cString: sqlite3_errstr(error.extendedResultCode.rawValue))))")
            }
            throw StoreError.cannotCreate(path: target, reason: error.message ?? "\(error.resultCode)")
        } catch {
            file.discard()
            throw error
        }
    }
}
