import Foundation

// `check` on books on PostgreSQL (issue 31): what `check` on a store file reports, in the same words and order —
// the schema's lines (here the books' catalog against the model's: PostgreSQLCatalogue), references to objects that
// do not exist, links of join tables, repeated keys, values of another type than their column's, non-finite
// numbers, Booleans other than 0 and 1, decimals beyond their type, text that is not a date, the model's rules and
// the import history — through the storage protocol and the SQL layer's statements in PostgreSQL's dialect.
//
// Two of SQLite's lines have no PostgreSQL counterpart: text with a NUL (a PostgreSQL text value cannot hold one)
// and text that is not UTF-8 (books live only in UTF8 databases, whose server refuses invalid text on the way in).
// SQLite's integrity check is the server's own business (data checksums, amcheck); `check` reads, never writes, so
// the read-only role runs it.

extension Store {
    /// The lines of `check` on books on PostgreSQL (see `check(limit:notes:wording:)`).
    func checkBooks(limit: Int, notes: inout [String], wording: (NextStep) -> String) throws -> [String] {
        guard let books else { return [] }
        let schema = books.location.schema
        let check = CheckSQL(PostgreSQLDialect())
        var problems: [String] = []
        var kept: [String] = []
        var schemaDiffers = false
        try read { db in
            let differences = try PostgreSQLCatalogue.differences(db, schema: schema, model: model, ownTables: [ImportJournal.table])
            schemaDiffers = !differences.isEmpty
            problems += Store.catalogueLines(differences, limit: limit, wording: wording)

            // The model's columns that are there, and those of the model's type: the checks below read only those
            // (the schema's lines name the others; a comparison on a column of another type would fail).
            var types: [String: String] = [:]
            for row in try db.rows(PostgreSQLCatalogue.columns, [.text(schema)]) {
                types["\(row.string(0) ?? "")\u{1F}\(row.string(1) ?? "")"] = row.string(2) ?? ""
            }
            func has(_ table: String, _ column: String) -> Bool { types["\(table)\u{1F}\(column)"] != nil }
            func typed(_ table: String, _ column: String, _ type: String) -> Bool { types["\(table)\u{1F}\(column)"] == type }
            func typed(_ table: String, _ column: String, _ attribute: AttributeType) -> Bool {
                typed(table, column, PostgreSQLSchema.expectedColumn(attribute).type)
            }
            func isID(_ table: String, _ column: String) -> Bool { typed(table, column, "bigint") }

            /// At most `limit` lines, one a row of `sql`, then `… and N more` when there are more.
            func listed(_ sql: String, order: String = quoted("id"), more: String, _ line: (StorageRow) -> String) throws -> [String] {
                let rows = try db.rows(check.firstRows(of: sql, order: order), [.integer(Int64(limit))])
                var lines = rows.map(line)
                if rows.count == limit, let total = try db.int(check.count(of: sql)), total > limit {
                    lines.append("\(more): … and \(total - limit) more")
                }
                return lines
            }
            problems += try idMarkProblems(db, has: isID)

            // Foreign keys PostgreSQL no longer enforces (dropped, or their triggers disabled): the model's, checked
            // whatever the catalog holds, worded and ordered as SQLite's foreign-key check lists broken ones (a
            // table's keys last declared first, each key's rows by ID).
            var foreignKeyLines: [String] = []
            var foreignKeyTotal = 0
            for entity in model.entities where isID(entity.name, "id") {
                for r in entity.relationships.reversed() where !r.isToMany {
                    guard case .foreignKey(let column) = model.storage(of: r, in: entity), isID(entity.name, column),
                          isID(r.destination, "id"), model.inverse(of: r).deleteRule.foreignKeyAction != nil else { continue }
                    let sql = check.missingTargets(entity.name, column: column, destination: r.destination)
                    let rows = try db.rows(check.firstRows(of: sql, order: quoted("id")), [.integer(Int64(limit))])
                    foreignKeyLines += rows.map { "\(entity.name)/\(Store.shown($0[0])) refers to a \(r.destination) that does not exist" }
                    foreignKeyTotal += rows.count < limit ? rows.count : try db.int(check.count(of: sql)) ?? rows.count
                }
            }
            let tables = SchemaBuilder.tables(for: model)
            problems += foreignKeyLines.prefix(limit)
            if foreignKeyTotal > limit { problems.append("foreign keys: … and \(foreignKeyTotal - min(limit, foreignKeyLines.count)) more") }

            // Join tables: links to objects that do not exist, and links kept twice.
            for join in tables where join.entity == nil && join.columns.allSatisfy({ isID(join.name, $0.name) }) {
                let (own, other) = (join.columns[0], join.columns[1])
                guard case .link(let ownEntity) = own.role, case .link(let otherEntity) = other.role,
                      isID(ownEntity, "id"), isID(otherEntity, "id") else { continue }
                problems += try listed(check.brokenLinks(join.name, own: own.name, other: other.name, ownEntity: ownEntity, otherEntity: otherEntity),
                                       order: check.linkOrder, more: join.name) { row in
                    let firstText = "\(ownEntity)/\(Store.shown(row[0]))", secondText = "\(otherEntity)/\(Store.shown(row[1]))"
                    switch (row[2] == .integer(1), row[3] == .integer(1)) {
                    case (true, _): return "\(join.name) links \(firstText) to \(secondText), which does not exist"
                    case (false, true): return "\(join.name) links \(firstText), which does not exist, to \(secondText)"
                    case (false, false): return "\(join.name) links \(firstText) to \(secondText), neither of which exists"
                    }
                }
                problems += try listed(check.repeatedLinks(join.name, own: own.name, other: other.name), order: check.linkOrder, more: join.name) { row in
                    "\(join.name) links \(ownEntity)/\(Store.shown(row[0])) to \(otherEntity)/\(Store.shown(row[1])) "
                        + "\(Store.shown(row[2])) times (a link is kept once; every count of these links is too large)"
                }
            }

            for entity in model.entities where isID(entity.name, "id") {
                let table = entity.name
                // References of No Action relationships (no foreign key): to a deleted object a note, to one never
                // handed out a problem.
                for r in entity.relationships where !r.isToMany {
                    guard case .foreignKey(let column) = model.storage(of: r, in: entity), isID(entity.name, column),
                          isID(r.destination, "id"), model.inverse(of: r).deleteRule == .noAction else { continue }
                    let highest = try Store.highestHandedOutID(db, entity: r.destination)
                    func dangling(handedOut: Bool) -> String {
                        check.danglingReferences(table, column: column, destination: r.destination, highest: highest, handedOut: handedOut)
                    }
                    let rule = "\(r.destination).\(model.inverse(of: r).name) has delete rule No Action"
                    kept += try listed(dangling(handedOut: true), more: "\(entity.name).\(r.name)") { row in
                        "\(entity.name)/\(Store.shown(row[0])).\(r.name) refers to deleted \(r.destination)/\(Store.shown(row[1])) (\(rule))"
                    }
                    problems += try listed(dangling(handedOut: false), more: "\(entity.name).\(r.name)") { row in
                        let belowOne = if case .integer(let id) = row[1] { id < 1 } else { false }
                        return "\(entity.name)/\(Store.shown(row[0])).\(r.name) refers to \(r.destination)/\(Store.shown(row[1])), "
                            + (belowOne ? "which no object is ever given (IDs start at 1; written by another tool)"
                                        : "which bookkeeper never handed out (written by another tool)")
                    }
                }
                problems += try repeatedValues(db, entity, limit: limit, has: has, typed: { typed($0, $1, $2) })
                // Values of another type than their column's: only in a column another tool retyped (named above).
                var stored: [(name: String, column: String, type: AttributeType?)] = entity.attributes.map { ($0.name, $0.name, $0.type) }
                for r in entity.relationships where !r.isToMany {
                    if case .foreignKey(let column) = model.storage(of: r, in: entity) { stored.append((r.name, column, nil)) }
                }
                for (name, column, type) in stored where has(entity.name, column) {
                    let (kind, words) = type.map(Store.storage(of:)) ?? (.integer, "a reference is stored as an integer (an ID)")
                    problems += try listed(check.storedOtherwise(table, column: column, than: kind), more: "\(entity.name).\(name)") { row in
                        "\(entity.name)/\(Store.shown(row[0])).\(name) holds \(Store.describeStored(row[1], bytes: row[2])), where \(words)"
                    }
                }
                // Non-finite numbers: infinities, and NaN, which PostgreSQL stores (SQLite stores it as NULL).
                for a in entity.attributes where a.type == .double && typed(entity.name, a.name, a.type) {
                    problems += try listed(PostgreSQLCatalogue.nonFinite(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        "\(entity.name)/\(Store.shown(row[0])).\(a.name) holds a non-finite number (\(row[1].string ?? ""))"
                    }
                }
                // Booleans other than 0 and 1 (their CHECK dropped: every reader shows them as true).
                for a in entity.attributes where a.type == .boolean && typed(entity.name, a.name, a.type) {
                    problems += try listed(check.otherBooleans(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        "\(entity.name)/\(Store.shown(row[0])).\(a.name) holds \(Store.shown(row[1])), which is not a boolean (0 or 1)"
                    }
                }
                // A decimal of Int64.min units: beyond the type.
                for a in entity.attributes where typed(entity.name, a.name, a.type) {
                    guard case .decimal(let scale) = a.type else { continue }
                    problems += try listed(check.decimalsBeyondRange(table, column: a.name), more: "\(entity.name).\(a.name)") { row in
                        "\(entity.name)/\(Store.shown(row[0])).\(a.name) holds \(Int64.min) units, beyond what Decimal(\(scale)) "
                            + "can hold (±\(DecimalNumber.storedMaximum(scale: scale)))"
                    }
                }
                // Text that is not a date or a date-time, or one written otherwise than bookkeeper stores it.
                for a in entity.attributes where [.date, .dateTime].contains(a.type) && typed(entity.name, a.name, a.type) {
                    var found = 0
                    for row in try db.rows(check.texts(table, column: a.name)) {
                        let bytes: [UInt8] = if case .blob(let b) = row[1] { Array(b) } else { Array((row[1].string ?? "").utf8) }
                        let text = String(decoding: bytes, as: UTF8.self)
                        let value = Value(stored: .text(text), as: a.type)
                        if case .string = value {
                            found += 1
                            if found <= limit {
                                problems.append("\(entity.name)/\(Store.shown(row[0])).\(a.name) holds \(text.debugDescription), which is not a \(a.type.name)")
                            }
                        } else if case .text(let stored) = value.storedValue(for: a.type), stored != text {
                            found += 1
                            if found <= limit {
                                problems.append("\(entity.name)/\(Store.shown(row[0])).\(a.name) holds \(text.debugDescription), which is \(stored) "
                                                + "written otherwise than bookkeeper stores a \(a.type.name), so comparisons and sorts, which read the stored text, miss or misplace it")
                            }
                        }
                    }
                    if found > limit { problems.append("\(entity.name).\(a.name): … and \(found - limit) more") }
                }
            }
        }
        // The model's rules, each entity's in a read of its own (a statement that fails ends its transaction).
        for entity in model.entities where !entity.rules.isEmpty {
            do {
                problems += try read { db in try ruleViolations(db, limit: limit, entities: [entity], counting: true) }
            } catch StoreError.sqlite(let message) where schemaDiffers {
                problems.append("\(entity.name): its rules cannot be checked against this schema (\(message))")
            }
        }
        notes += kept
        var unreadableImports: [String] = []
        for entry in try importHistory() where !entry.unreadable.isEmpty {
            unreadableImports.append("\(ImportJournal.table) row \(entry.id ?? 0) is unreadable: \(entry.unreadable.joined(separator: ", "))")
        }
        problems += unreadableImports.prefix(limit)
        if unreadableImports.count > limit { problems.append("\(ImportJournal.table): … and \(unreadableImports.count - limit) more") }
        return problems
    }

    /// The catalogue's lines: those that refuse the books first, then those that block writes (a cap never hides
    /// them behind harmless ones), at most `limit`, then `… and N more`.
    static func catalogueLines(_ differences: [PostgreSQLCatalogueDifference], limit: Int, wording: (NextStep) -> String) -> [String] {
        let ordered = differences.filter { $0.effect == .refusesBooks } + differences.filter { $0.effect == .blocksWrites }
            + differences.filter { $0.effect == .reported }
        var lines = ordered.prefix(limit).map { difference -> String in
            let effect = switch difference.effect {
            case .refusesBooks: "; every command but check refuses the books until this is undone"
            case .blocksWrites: "; bookkeeper writes nothing to the store until this is undone"
            case .reported: ""
            }
            return "schema: \(difference.text)" + effect
        }
        if ordered.count > limit {
            let hidden = ordered.dropFirst(limit).filter { $0.effect != .reported }.count
            lines.append("schema: … and \(ordered.count - limit) more\(hidden > 0 ? " (\(hidden) of them block writes: \(wording(.tryAWrite)))" : "")")
        }
        return lines
    }

    /// A stored value as `check`'s lines show an ID or a count: `3`.
    static func shown(_ value: StoredValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let i): String(i)
        case .real(let d): String(d)
        case .text(let s): s.debugDescription
        case .blob(let b): "x'" + b.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }

    /// A stored value in words (`describeStored` for SQLite's values): `the text "abc"`, `a blob (the bytes 00 FF)`.
    static func describeStored(_ value: StoredValue, bytes: StoredValue) -> String {
        let data: [UInt8] = if case .blob(let b) = bytes { Array(b) } else { Array((bytes.string ?? "").utf8) }
        let hex = data.prefix(32).map { String(format: "%02X", $0) }.joined(separator: " ") + (data.count > 32 ? " …" : "")
        switch value {
        case .null: return "no value"
        case .integer(let i): return "the integer \(i)"
        case .real(let d): return "the real number \(d)"
        case .text: return "the text \((String(decoding: data.prefix(64), as: UTF8.self) + (data.count > 64 ? "…" : "")).debugDescription)"
        case .blob(let b): return b.isEmpty ? "an empty blob" : "a blob (the bytes \(hex))"
        }
    }

    /// Repeated values of unique attributes and one-to-one relationships (as `repeatedValues` on SQLite).
    private func repeatedValues(_ db: any StorageConnection, _ entity: Entity, limit: Int, has: (String, String) -> Bool,
                                typed: (String, String, AttributeType) -> Bool) throws -> [String] {
        let check = CheckSQL(PostgreSQLDialect())
        var problems: [String] = []
        func repeated(_ column: String, more: String, _ line: (StoredValue, Int, String) -> String) throws {
            let rows = try db.rows(check.repeatedValues(entity.name, column: column), [.integer(Int64(limit))])
            for row in rows {
                let count = row.int(1) ?? 0, ids = row.string(2) ?? ""
                let names = ids.split(separator: ",").map { "\(entity.name)/\($0)" }.joined(separator: ", ") + (count > 5 ? ", …" : "")
                problems.append(line(row[0], count, names))
            }
            if rows.count == limit, let total = try db.int(check.count(of: check.repeatedValueGroups(entity.name, column: column))), total > limit {
                problems.append("\(more): … and \(total - limit) more")
            }
        }
        for a in entity.attributes where (a.isUnique || a.name == entity.naturalKey) && has(entity.name, a.name) {
            try repeated(a.name, more: "\(entity.name).\(a.name)") { value, count, ids in
                "\(entity.name).\(a.name)\(a.name == entity.naturalKey ? " (the natural key)" : "") must be unique, "
                    + "but \(count) objects share \"\(Value(stored: value, as: a.type).text(in: .process))\" (\(ids))"
            }
            guard a.type == .string, typed(entity.name, a.name, a.type) else { continue }
            var byForm: [String: [(id: StoredValue, bytes: [UInt8])]] = [:]
            for row in try db.rows(BatchSQL(PostgreSQLDialect()).nonASCIIKeys(a.name, in: entity.name)) {
                guard let text = row[0].string else { continue }
                byForm[TextNormalForm.nfc(text), default: []].append((row[1], Array(text.utf8)))
            }
            func order(_ id: StoredValue) -> Int64 { id.int64 ?? .max }
            var shared = byForm.filter { Set($0.value.map(\.bytes)).count > 1 }.sorted { order($0.value[0].id) < order($1.value[0].id) }
            if shared.count > limit { shared = Array(shared.prefix(limit)) }
            for (text, group) in shared {
                let ids = group.prefix(5).map { "\(entity.name)/\(Store.shown($0.id))" }.joined(separator: ", ") + (group.count > 5 ? ", …" : "")
                problems.append("\(entity.name).\(a.name)\(a.name == entity.naturalKey ? " (the natural key)" : "") must be unique, "
                                + "but \(group.count) objects share \"\(text)\" in different Unicode normal forms, one key to every command (\(ids))")
            }
        }
        for r in entity.relationships where !r.isToMany && !model.inverse(of: r).isToMany {
            guard case .foreignKey(let column) = model.storage(of: r, in: entity), has(entity.name, column) else { continue }
            try repeated(column, more: "\(entity.name).\(r.name)") { value, count, ids in
                "\(entity.name).\(r.name) is one-to-one, but \(count) objects refer to \(r.destination)/\(Store.shown(value)) (\(ids))"
            }
        }
        return problems
    }
}

extension Store {
    /// The object-ID marks another tool changed (as `idMarkProblems` on SQLite): one that is not an ID, or one
    /// missing for an entity with objects in books that keep marks.
    func idMarkProblems(_ db: any StorageConnection, has: (String, String) -> Bool) throws -> [String] {
        guard try db.tableExists(Store.metaTable) else { return [] }
        let d = PostgreSQLDialect()
        var marks: [String: StoredValue] = [:]
        for row in try db.rows(CheckSQL(d).idMarks(Store.metaTable, prefix: Store.idMarkKey(""))) {
            if let key = row[0].string { marks[key] = row[1] }
        }
        var problems: [String] = []
        for entity in model.entities where has(entity.name, "id") {
            let key = Store.idMarkKey(entity.name)
            let largest = try db.int(StoreSQL(d).largestID(in: entity.name)) ?? 0
            let what = "\(entity.name): the mark of the object IDs handed out (\(key) in \(Store.metaTable))"
            guard let stored = marks[key] else {
                if !marks.isEmpty && largest > 0 {
                    problems.append("\(what) is missing (another tool removed it): an ID of a deleted object could be handed out again")
                }
                continue
            }
            if Store.readIDMark(stored) == nil {
                problems.append("\(what) holds \(Store.markText(stored)), which is not an ID: every add of a \(entity.name) is refused")
            }
        }
        return problems
    }
}
