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
    ///
    /// `notes` receives what is no problem but worth a line: references that a No Action delete rule kept to objects
    /// that were deleted (`Note/1.customer refers to deleted Customer/1 (Customer.notes has delete rule No Action)`).
    /// A reference to an ID no object was ever given (another tool wrote it) is a problem.
    package func check(limit: Int = 20, notes: inout [String]) throws -> [String] {
        try check(limit: limit, notes: &notes, wording: \.description)
    }

    /// `check(limit:notes:)`, with the next steps its lines name worded by `wording` (a front end names its command).
    package func check(limit: Int = 20, notes: inout [String], wording: (NextStep) -> String) throws -> [String] {
        if books != nil { return try checkBooks(limit: limit, notes: &notes, wording: wording) }
        // SQLite's integrity check gives one row of text per damaged b-tree, several problems a line each; it may
        // also stop at a page it cannot read, which is damage to list too, not a reason to stop.
        let integrity = try readSQLite { db in try Store.integrityLines(db, limit: limit) }
        try confirmSteadyRead()
        if integrity.isEmpty {
            return try modelChecks(limit: limit, notes: &notes, wording: wording)
        }
        // The other checks read every row, and stop at the damage.
        do {
            return try integrity + modelChecks(limit: limit, notes: &notes, wording: wording)
        } catch StoreError.damaged(_, let detail) {
            return integrity + ["the other checks stopped at the damage (\(detail))"]
        } catch {
            return integrity + ["the other checks stopped at the damage (\(error))"]
        }
    }

    /// `check(limit:notes:)`, its notes left out.
    package func check(limit: Int = 20) throws -> [String] {
        var notes: [String] = []
        return try check(limit: limit, notes: &notes)
    }

    /// The number of problems `check`'s lines stand for: one a line, and N for each `… and N more`.
    package static func problemCount(_ lines: [String]) -> Int {
        lines.reduce(0) { count, line in
            guard let range = line.range(of: "… and "), let n = Int(line[range.upperBound...].prefix { $0.isNumber }),
                  line[range.upperBound...].dropFirst(String(n).count).hasPrefix(" more") else { return count + 1 }
            return count + n
        }
    }

    /// The schema's lines: those that block writes first (a cap never hides them behind harmless ones), at most
    /// `limit`, then `… and N more`.
    static func schemaLines(_ differences: [SchemaDifference], limit: Int, wording: (NextStep) -> String = \.description) -> [String] {
        let ordered = differences.filter(\.blocksWrites) + differences.filter { !$0.blocksWrites }
        var lines = ordered.prefix(limit).map {
            "schema: \($0.text)" + ($0.blocksWrites ? "; bookkeeper writes nothing to the store until this is undone" : "")
        }
        if ordered.count > limit {
            let hidden = ordered.dropFirst(limit).filter(\.blocksWrites).count
            lines.append("schema: … and \(ordered.count - limit) more\(hidden > 0 ? " (\(hidden) of them block writes: \(wording(.tryAWrite)))" : "")")
        }
        return lines
    }

    /// How a value of `type` is stored: SQLite's storage class (`typeof`) and, in words, what a line says.
    static func storage(of type: AttributeType) -> (kind: StoredKind, words: String) {
        switch type {
        case .string: (.text, "a string is stored as text")
        case .integer: (.integer, "an integer is stored as an integer")
        case .decimal(let scale): (.integer, "a decimal is stored as an integer (its units at scale \(scale))")
        case .double: (.real, "a double is stored as a real number")
        case .boolean: (.integer, "a boolean is stored as the integer 0 or 1")
        case .date: (.text, "a date is stored as text (YYYY-MM-DD)")
        case .dateTime: (.text, "a date-time is stored as text (ISO 8601)")
        case .binary: (.blob, "binary data is stored as a blob")
        }
    }

    /// A stored value in words, whatever its storage class: `the text "abc"`, `a blob (the bytes 00 FF 41)`.
    /// `bytes` is the value as a blob (CAST(x AS BLOB)): text is shown from its bytes, so neither a NUL nor bytes
    /// that are not UTF-8 can cut it short or fail to decode.
    static func describeStored(_ value: DatabaseValue, bytes: DatabaseValue) -> String {
        let data = Data.fromDatabaseValue(bytes) ?? Data()
        let hex = data.prefix(32).map { String(format: "%02X", $0) }.joined(separator: " ") + (data.count > 32 ? " …" : "")
        switch value.storage {
        case .null: return "no value"
        case .int64(let i): return "the integer \(i)"
        case .double(let d): return "the real number \(d)"
        case .string: return "the text \((String(decoding: data.prefix(64), as: UTF8.self) + (data.count > 64 ? "…" : "")).debugDescription)"
        case .blob: return data.isEmpty ? "an empty blob" : "a blob (the bytes \(hex))"
        }
    }

    private func modelChecks(limit: Int, notes: inout [String], wording: (NextStep) -> String) throws -> [String] {
        var problems: [String] = []
        var kept: [String] = []
        var shape = SchemaShape()
        var schemaDiffers = false
        try readSQLite { db in
            shape = try SchemaShape.read(db)
            let differences = shape.differences(from: try SchemaShape.expected(for: model))
            schemaDiffers = !differences.isEmpty
            problems += Store.schemaLines(differences, limit: limit, wording: wording)
            // The checks below read only the model's columns that are there (the schema lines name the others).
            func has(_ table: String, _ column: String) -> Bool { shape.table(named: table)?.column(named: column) != nil }
            /// At most `limit` lines, one a row of `sql` (which must not end in ORDER BY or LIMIT: it is wrapped),
            /// then `… and N more` when there are more.
            func listed(_ sql: String, order: String = quoted("id"), more: String, _ line: (Row) -> String) throws -> [String] {
                let rows = try Row.fetchAll(db, sql: CheckSQL.sqlite.firstRows(of: sql, order: order), arguments: [limit])
                var lines = rows.map(line)
                if rows.count == limit, let total = try Int.fetchOne(db, sql: CheckSQL.sqlite.count(of: sql)), total > limit {
                    lines.append("\(more): … and \(total - limit) more")
                }
                return lines
            }
            problems += try idMarkProblems(db, has: has)
            let tables = SchemaBuilder.tables(for: model)
            let joinTables = tables.filter { $0.entity == nil }
            var foreignKeyLines: [String] = []
            do {
                for row in try Row.fetchAll(db, sql: CheckSQL.sqlite.foreignKeyCheck) {
                    let table: String = row[0], rowID: Int64? = row[1], parent: String = row[2]
                    // A join table's broken links are listed below, with the objects they link.
                    if joinTables.contains(where: { $0.name.lowercased() == table.lowercased() }) { continue }
                    foreignKeyLines.append("\(rowID.map { "\(table)/\($0)" } ?? "a link in \(table)") refers to a \(parent) that does not exist")
                }
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR {
                // A foreign key whose parent is no longer a table, or no longer has the key it names.
                problems.append("foreign keys: SQLite cannot check them (\(error.message ?? "\(error.resultCode)"))")
            }
            problems += foreignKeyLines.prefix(limit)
            if foreignKeyLines.count > limit { problems.append("foreign keys: … and \(foreignKeyLines.count - limit) more") }
            // Join tables: links to objects that do not exist (their foreign key removed or changed, so a delete
            // left them — and an object given the same ID later would inherit them), and links kept twice (their
            // primary key removed).
            for join in joinTables where join.columns.allSatisfy({ has(join.name, $0.name) }) {
                let (own, other) = (join.columns[0], join.columns[1])
                guard case .link(let ownEntity) = own.role, case .link(let otherEntity) = other.role,
                      has(ownEntity, "id"), has(otherEntity, "id") else { continue }
                problems += try listed(CheckSQL.sqlite.brokenLinks(join.name, own: own.name, other: other.name, ownEntity: ownEntity, otherEntity: otherEntity),
                                       order: CheckSQL.sqlite.linkOrder, more: join.name) { row in
                    let first: DatabaseValue = row[0], second: DatabaseValue = row[1], firstFound: Bool = row[2], secondFound: Bool = row[3]
                    let firstText = "\(ownEntity)/\(first)", secondText = "\(otherEntity)/\(second)"
                    switch (firstFound, secondFound) {
                    case (true, _): return "\(join.name) links \(firstText) to \(secondText), which does not exist"
                    case (false, true): return "\(join.name) links \(firstText), which does not exist, to \(secondText)"
                    case (false, false): return "\(join.name) links \(firstText) to \(secondText), neither of which exists"
                    }
                }
                problems += try listed(CheckSQL.sqlite.repeatedLinks(join.name, own: own.name, other: other.name),
                                       order: CheckSQL.sqlite.linkOrder, more: join.name) { row in
                    "\(join.name) links \(ownEntity)/\(row[0] as DatabaseValue) to \(otherEntity)/\(row[1] as DatabaseValue) "
                        + "\(row[2] as Int) times (a link is kept once; every count of these links is too large)"
                }
            }
            for entity in model.entities where has(entity.name, "id") {
                let table = entity.name
                for r in entity.relationships where !r.isToMany {
                    guard case .foreignKey(let column) = model.storage(of: r, in: entity), has(entity.name, column),
                          has(r.destination, "id"), model.inverse(of: r).deleteRule == .noAction else { continue }
                    // An ID from 1 up to the largest bookkeeper ever handed out belonged to an object that was
                    // deleted: what a successful delete leaves, a note. One above it, or below 1, was never handed
                    // out (another tool wrote it): a problem.
                    let highest = try Store.highestHandedOutID(storage, entity: r.destination)
                    func dangling(handedOut: Bool) -> String {
                        CheckSQL.sqlite.danglingReferences(table, column: column, destination: r.destination, highest: highest, handedOut: handedOut)
                    }
                    let rule = "\(r.destination).\(model.inverse(of: r).name) has delete rule No Action"
                    kept += try listed(dangling(handedOut: true), more: "\(entity.name).\(r.name)") { row in
                        "\(entity.name)/\(row[0] as DatabaseValue).\(r.name) refers to deleted \(r.destination)/\(row[1] as DatabaseValue) (\(rule))"
                    }
                    problems += try listed(dangling(handedOut: false), more: "\(entity.name).\(r.name)") { row in
                        let target: DatabaseValue = row[1]
                        let belowOne = if case .int64(let id) = target.storage { id < 1 } else { false }
                        return "\(entity.name)/\(row[0] as DatabaseValue).\(r.name) refers to \(r.destination)/\(target), "
                            + (belowOne ? "which no object is ever given (IDs start at 1; written by another tool)"
                                        : "which bookkeeper never handed out (written by another tool)")
                    }
                }
                problems += try repeatedValues(db, entity, limit: limit, has: has)
                // Values of another storage class than their type's (written by another tool, into a table that is not
                // STRICT or a column of type ANY): every reader would show them as something else — `abc` as a price,
                // 1e3 as 10.00, a blob as 0x… — without a word.
                var stored: [(name: String, column: String, type: AttributeType?)] = entity.attributes.map { ($0.name, $0.name, $0.type) }
                for r in entity.relationships where !r.isToMany {
                    if case .foreignKey(let column) = model.storage(of: r, in: entity) { stored.append((r.name, column, nil)) }
                }
                for (name, column, type) in stored where has(entity.name, column) {
                    let (kind, words) = type.map(Store.storage(of:)) ?? (.integer, "a reference is stored as an integer (an ID)")
                    problems += try listed(CheckSQL.sqlite.storedOtherwise(table, column: column, than: kind), more: "\(entity.name).\(name)") { row in
                        "\(entity.name)/\(row[0] as DatabaseValue).\(name) holds \(Store.describeStored(row[1], bytes: row[2])), where \(words)"
                    }
                }
                // Text with a NUL (written by another tool; the importer refuses it): every reader shows it only up to
                // the NUL, so the rest would be hidden without a word.
                for a in entity.attributes where a.type == .string && has(entity.name, a.name) {
                    problems += try listed(CheckSQL.sqlite.textWithNUL(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        let bytes = Data.fromDatabaseValue(row[1]) ?? Data()
                        let shown = String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
                        return "\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds text with a NUL character, which is shown only up to it (\(shown.debugDescription))"
                    }
                }
                // Text that is not UTF-8 (written by another tool; every input is read as text first): each reader
                // shows it with U+FFFD in place of the bytes it cannot read, and a search or a key lookup misses it.
                for a in entity.attributes where a.type == .string && has(entity.name, a.name) {
                    problems += try listed(CheckSQL.sqlite.textNotUTF8(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        let bytes = Data.fromDatabaseValue(row[1]) ?? Data()
                        let hex = bytes.prefix(32).map { String(format: "%02X", $0) }.joined(separator: " ") + (bytes.count > 32 ? " …" : "")
                        let shown = String(decoding: bytes.prefix(32), as: UTF8.self) + (bytes.count > 32 ? "…" : "")
                        return "\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds text that is not valid UTF-8 "
                            + "(the bytes \(hex)), shown as \(shown.debugDescription)"
                    }
                }
                // Infinities (written by another tool: `UPDATE … SET x = 9e999`). SQLite stores NaN as NULL.
                for a in entity.attributes where a.type == .double && has(entity.name, a.name) {
                    problems += try listed(CheckSQL.sqlite.infinities(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        "\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds a non-finite number (\(row[1] as Bool ? "inf" : "-inf"))"
                    }
                }
                // Booleans other than 0 and 1 (every reader shows them as true).
                for a in entity.attributes where a.type == .boolean && has(entity.name, a.name) {
                    problems += try listed(CheckSQL.sqlite.otherBooleans(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        "\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds \(row[1] as DatabaseValue), which is not a boolean (0 or 1)"
                    }
                }
                // A decimal of Int64.min units (written by another tool; every input refuses it): beyond the type.
                for a in entity.attributes where has(entity.name, a.name) {
                    guard case .decimal(let scale) = a.type else { continue }
                    problems += try listed(CheckSQL.sqlite.decimalsBeyondRange(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        "\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds \(Int64.min) units, beyond what Decimal(\(scale)) "
                            + "can hold (±\(DecimalNumber.storedMaximum(scale: scale)))"
                    }
                }
                // Text that is not a date or a date-time (read in Swift, as every reader reads it).
                for a in entity.attributes where [.date, .dateTime].contains(a.type) && has(entity.name, a.name) {
                    let cursor = try Row.fetchCursor(db, sql: CheckSQL.sqlite.texts(table, column: a.name))
                    var found = 0
                    while let row = try cursor.next() {
                        let text = String(decoding: Data.fromDatabaseValue(row[1]) ?? Data(), as: UTF8.self)
                        let value = Value(databaseValue: text.databaseValue, as: a.type)
                        if case .string = value {
                            found += 1
                            if found <= limit {
                                problems.append("\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds \(text.debugDescription), which is not a \(a.type.name)")
                            }
                        } else if case .text(let stored) = value.storedValue(for: a.type), stored != text {
                            // A value in another form (an offset, a space for the T: written by another tool) is shown
                            // as its instant, but predicates and sorts compare the stored text: found and ordered wrongly.
                            found += 1
                            if found <= limit {
                                problems.append("\(entity.name)/\(row[0] as DatabaseValue).\(a.name) holds \(text.debugDescription), which is \(stored) "
                                                + "written otherwise than bookkeeper stores a \(a.type.name), so comparisons and sorts, which read the stored text, miss or misplace it")
                            }
                        }
                    }
                    if found > limit { problems.append("\(entity.name).\(a.name): … and \(found - limit) more") }
                }
            }
        }
        // A rule reads its entity's columns and those of the entities it follows: one the schema lacks is named above.
        for entity in model.entities where !entity.rules.isEmpty {
            do {
                problems += try read { db in try ruleViolations(db, limit: limit, entities: [entity], counting: true) }
            } catch StoreError.sqlite(let message) where schemaDiffers {
                problems.append("\(entity.name): its rules cannot be checked against this schema (\(message))")
            }
        }
        notes += kept
        // The import history: rows another tool changed so that `imports` cannot show them.
        var unreadableImports: [String] = []
        for entry in try importHistory() where !entry.unreadable.isEmpty {
            unreadableImports.append("\(ImportJournal.table) row \(entry.id ?? 0) is unreadable: \(entry.unreadable.joined(separator: ", "))")
        }
        problems += unreadableImports.prefix(limit)
        if unreadableImports.count > limit { problems.append("\(ImportJournal.table): … and \(unreadableImports.count - limit) more") }
        return problems
    }

    /// Values of a unique attribute (a natural key too) that several objects share, and one-to-one relationships
    /// that several objects hold to the same object: possible only when the unique index that keeps them unique
    /// was dropped or changed by another tool, which the schema lines name. Grouped by the stored value itself, and
    /// the objects found by it in SQL (a value that is not UTF-8, or holds a NUL, would not survive a round trip).
    private func repeatedValues(_ db: Database, _ entity: Entity, limit: Int, has: (String, String) -> Bool) throws -> [String] {
        var problems: [String] = []
        func repeated(_ column: String, more: String, _ line: (DatabaseValue, Int, String) -> String) throws {
            let rows = try Row.fetchAll(db, sql: CheckSQL.sqlite.repeatedValues(entity.name, column: column), arguments: [limit])
            for row in rows {
                let count: Int = row[1], ids: String = row[2] ?? ""
                let names = ids.split(separator: ",").map { "\(entity.name)/\($0)" }.joined(separator: ", ") + (count > 5 ? ", …" : "")
                problems.append(line(row[0], count, names))
            }
            if rows.count == limit, let total = try Int.fetchOne(db, sql: CheckSQL.sqlite.count(of: CheckSQL.sqlite.repeatedValueGroups(entity.name, column: column))), total > limit {
                problems.append("\(more): … and \(total - limit) more")
            }
        }
        for a in entity.attributes where (a.isUnique || a.name == entity.naturalKey) && has(entity.name, a.name) {
            try repeated(a.name, more: "\(entity.name).\(a.name)") { value, count, ids in
                "\(entity.name).\(a.name)\(a.name == entity.naturalKey ? " (the natural key)" : "") must be unique, "
                    + "but \(count) objects share \"\(Value(databaseValue: value, as: a.type).text(in: .process))\" (\(ids))"
            }
            // Texts equal in another Unicode normal form are one key to every command (a key matches in any normal
            // form), but the unique index holds their bytes apart: another tool can store both (found by the attack
            // on 0.7.0). Grouped by NFC, compared by bytes (Swift's String equality would call them one).
            guard a.type == .string else { continue }
            var byForm: [String: [(id: DatabaseValue, bytes: [UInt8])]] = [:]
            let texts = try Row.fetchCursor(db, sql: BatchSQL.sqlite.nonASCIIKeys(a.name, in: entity.name))
            while let row = try texts.next() {
                guard let text = row[0] as String? else { continue }
                byForm[TextNormalForm.nfc(text), default: []].append((row[1], Array(text.utf8)))
            }
            func order(_ id: DatabaseValue) -> Int64 { Int64.fromDatabaseValue(id) ?? .max }
            var shared = byForm.filter { Set($0.value.map(\.bytes)).count > 1 }.sorted { order($0.value[0].id) < order($1.value[0].id) }
            if shared.count > limit { shared = Array(shared.prefix(limit)) }
            for (text, group) in shared {
                let ids = group.prefix(5).map { "\(entity.name)/\($0.id)" }.joined(separator: ", ") + (group.count > 5 ? ", …" : "")
                problems.append("\(entity.name).\(a.name)\(a.name == entity.naturalKey ? " (the natural key)" : "") must be unique, "
                                + "but \(group.count) objects share \"\(text)\" in different Unicode normal forms, one key to every command (\(ids))")
            }
        }
        for r in entity.relationships where !r.isToMany && !model.inverse(of: r).isToMany {
            guard case .foreignKey(let column) = model.storage(of: r, in: entity), has(entity.name, column) else { continue }
            try repeated(column, more: "\(entity.name).\(r.name)") { value, count, ids in
                "\(entity.name).\(r.name) is one-to-one, but \(count) objects refer to \(r.destination)/\(value) (\(ids))"
            }
        }
        return problems
    }


    /// A consistent copy of the store at `target` (SQLite's online backup API), assembled through the one output
    /// module: beside the target under a temporary name and renamed when complete (no half copy is ever left at
    /// `target`), or copied into a device or pipe; the store itself and its companions are refused, and so is a
    /// target with an SQLite companion beside it (Store+Backup). A copy put in place is checked where it is.
    package func backup(to target: String) throws {
        let file = try OutputFile(path: target, assembledAtPath: true)
        let temporary = file.assemblyPath!
        if case let .regular(resolved) = file.target {
            file.beforeReplacing = { try Store.refuseStaleCompanions(of: target, resolved: resolved) }
        }
        var connection: OpaquePointer?
        do {
            try file.beforeReplacing?()
            let destination = try DatabaseQueue(path: temporary)
            // No rollback journal for a copy that is thrown away whole when it fails: SQLite's journal beside the
            // temporary copy was left behind by every failed or interrupted backup (found by the attack on 0.6.0).
            connection = try destination.writeWithoutTransaction { db in
                try db.execute(sql: CheckSQL.sqlite.fileJournal(.none))
                return db.sqliteConnection
            }
            try queue.backup(to: destination)
            // SQLite's backup copies pages as they are, a damaged one too: a copy is kept only when it passes
            // SQLite's quick check, so that a backup that exists is one that can be restored.
            let problem = try destination.read { db in try String.fetchOne(db, sql: StoreSQL.sqlite.quickCheck) }.map {
                $0.split(separator: "\n").filter { !$0.hasPrefix("*** in database") }.joined(separator: " ")
            }
            // A copy read without locks while another process wrote is no evidence of damage (see Store+SteadyRead).
            try confirmSteadyRead()
            if let problem, problem != "ok" {
                try? destination.close()
                throw DamagedCopyError(path: path, problem: problem)
            }
            try destination.writeWithoutTransaction { db in try db.execute(sql: CheckSQL.sqlite.fileJournal(.rollback)) }
            try destination.close()
            try file.commit()
            if file.isReplacedAtCommit { try Store.verifyCopyInPlace(target) }
        } catch let error as StoreError {
            file.discard()
            throw error
        } catch let error as DatabaseError {
            file.discard()
            // A write that failed (a full disk, a file-size limit) is an I/O error, named by SQLite's text for the
            // extended code: the backup's own message is often "not an error".
            let primary = error.resultCode
            if primary == .SQLITE_IOERR || primary == .SQLITE_FULL {
                // The system's reason when there is one (`File too large` past `ulimit -f`), as other writers say it.
                let system = connection.map { sqlite3_system_errno($0) } ?? 0
                let reason = system != 0 ? String(cString: strerror(system)) : String(cString: sqlite3_errstr(error.extendedResultCode.rawValue))
                throw StoreError.sqlite("\(target): cannot write the copy (\(reason))")
            }
            throw StoreError.cannotCreate(path: target, reason: error.message ?? "\(error.resultCode)")
        } catch {
            file.discard()
            throw error
        }
    }
}

extension Store {
    /// The object-ID marks another tool changed (Store+ObjectIDs; attack 17, finding 11): one that is not an ID
    /// (every add is refused), or one missing for an entity with objects in a store that keeps marks (a deleted
    /// object's ID could be handed out again).
    func idMarkProblems(_ db: Database, has: (String, String) -> Bool) throws -> [String] {
        guard try db.tableExists(Store.metaTable) else { return [] }
        var marks: [String: StoredValue] = [:]
        for row in try Row.fetchAll(db, sql: CheckSQL.sqlite.idMarks(Store.metaTable, prefix: Store.idMarkKey(""))) {
            let value: DatabaseValue = row[1]
            marks[row[0]] = switch value.storage {
            case .null: .null
            case .int64(let i): .integer(i)
            case .double(let d): .real(d)
            case .string(let s): .text(s)
            case .blob(let b): .blob(b)
            }
        }
        var problems: [String] = []
        for entity in model.entities where has(entity.name, "id") {
            let key = Store.idMarkKey(entity.name)
            let largest = try Int64.fetchOne(db, sql: StoreSQL.sqlite.largestID(in: entity.name)) ?? 0
            let what = "\(entity.name): the mark of the object IDs handed out (\(key) in \(Store.metaTable))"
            guard let stored = marks[key] else {
                if !marks.isEmpty && largest > 0 {
                    problems.append("\(what) is missing (another tool removed it): an ID of a deleted object could be handed out again")
                }
                continue
            }
            // (A mark below the table's largest ID is not listed: rows another tool inserted leave it so, and every
            // writer hands out IDs above both.)
            if Store.readIDMark(stored) == nil {
                problems.append("\(what) holds \(Store.markText(stored)), which is not an ID: every add of a \(entity.name) is refused")
            }
        }
        return problems
    }
}
