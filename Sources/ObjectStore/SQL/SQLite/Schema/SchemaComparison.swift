// SQLite's own (SQL/SQLite/Schema): it reads SQLite's catalog and speaks of SQLite's schema (STRICT, WITHOUT ROWID,
// AUTOINCREMENT, collations); a second store brings its own reader and comparison.
//
// The store's schema compared with the schema its model makes (issue 25: `check` sees what another tool did).
//
// The expected schema is not written down a second time: it is made by the same statements `Store.create` runs
// (the metadata table, SchemaBuilder's tables and indexes, the import history's table), in an in-memory database,
// and both databases are then described the same way, through SQLite's own account of them (PRAGMA table_list,
// table_xinfo, foreign_key_list, index_list, index_xinfo, sqlite3_table_column_metadata). Two schemas so compare by
// what they do rather than by how their SQL is spelt: a table a migration rebuilt, renamed or gave a column with
// ALTER TABLE (which appends it, with a DEFAULT) compares equal to a new one. Column order and defaults are not
// compared (migrations change both, and neither changes what a value means); CHECK constraints and DEFERRABLE
// foreign keys are not visible through these pragmas and are not compared either.
//
// Tables whose names begin with sqlite_ are SQLite's own (sqlite_sequence, and sqlite_stat1 and sqlite_stat4, which
// ANALYZE makes): never differences. The import history's table is made on first use, and its `encoding` column by
// the first import that records one: each may be missing.

import Foundation
import GRDB
import GRDBSQLite

/// One way the store's schema differs from the schema its model makes.
struct SchemaDifference: Equatable {
    /// The difference in words, one line.
    let text: String
    /// Whether bookkeeper refuses to write while it is there — each makes a write store, match or delete something
    /// else without a word: a trigger on a table bookkeeper writes (it would run with each of its writes); one of
    /// the model's unique indexes, or a join table's primary key, missing or changed (nothing would keep those values
    /// unique); a model column of another type (SQLite would convert what is written), collation (a look-up by it
    /// would match other values), foreign key (bookkeeper relies on the model's ON DELETE to remove links) or primary
    /// key; an extra foreign key that acts on a delete. Not: a missing or extra NOT NULL (bookkeeper checks required
    /// values itself), a table that is not STRICT but whose columns have the model's types (each value is written as
    /// its own storage class, which the column's affinity keeps), extra nullable columns, extra indexes that are not
    /// unique, tables, views and missing tables or columns (statements that need them fail loudly).
    let blocksWrites: Bool
}

/// The schema objects of one SQLite database, as SQLite describes them.
struct SchemaShape {
    struct Column {
        let name: String
        /// The declared type, upper case (`TEXT`, `ANY`, or empty).
        var type = ""
        var notNull = false
        var primaryKey = false
        var autoincrement = false
        /// Upper case; nil for BINARY, SQLite's default.
        var collation: String?
        /// `REFERENCES "Customer"("id") ON DELETE RESTRICT`, one per foreign key of this column alone.
        var references: [String] = []
        /// ` GENERATED ALWAYS AS (…)`, ` HIDDEN` or empty.
        var hidden = ""

        /// `TEXT NOT NULL`, `INTEGER PRIMARY KEY`, `INTEGER REFERENCES "Customer"("id") ON DELETE RESTRICT`.
        var definition: String {
            var definition = type
            if notNull { definition += " NOT NULL" }
            if primaryKey { definition += " PRIMARY KEY" }
            if autoincrement { definition += " AUTOINCREMENT" }
            if let collation { definition += " COLLATE \(collation)" }
            for clause in references { definition += " " + clause }
            return (definition + hidden).trimmingCharacters(in: .whitespaces)
        }

        /// How this column (a store's) differs from `wanted` (the model's) in a way that changes what a write
        /// stores, matches or deletes, in words; empty when it does not. NOT NULL is not among them: bookkeeper
        /// refuses a missing required value itself before it writes, so SQLite's NOT NULL only repeats that.
        func writeChanges(from wanted: Column) -> [String] {
            var changes: [String] = []
            if type.lowercased() != wanted.type.lowercased() {
                changes.append("its type \(type.isEmpty ? "(none)" : type) makes SQLite store or convert values otherwise")
            }
            if collation?.lowercased() != wanted.collation?.lowercased() {
                changes.append("its collation \(collation ?? "BINARY") makes look-ups by it match other values")
            }
            if references.map({ $0.lowercased() }) != wanted.references.map({ $0.lowercased() }) {
                changes.append(wanted.references.isEmpty
                    ? "its foreign key changes what a delete does"
                    : "bookkeeper relies on the model's foreign key to remove or keep linked rows on a delete")
            }
            if primaryKey != wanted.primaryKey || autoincrement != wanted.autoincrement {
                changes.append("its primary key is not the model's, which gives each object its ID")
            }
            if hidden != wanted.hidden { changes.append("it is \(hidden.isEmpty ? "not generated" : "generated or hidden")") }
            return changes
        }

        /// An extra column's foreign key that deletes or changes the rows of its own table when a row it refers to is
        /// deleted (CASCADE, SET NULL, SET DEFAULT): a delete by bookkeeper would change a model table through it.
        var actsOnDelete: Bool { references.contains(where: SchemaShape.actsOnDelete) }
    }

    /// Whether a foreign key clause deletes or changes rows when its parent row is deleted.
    static func actsOnDelete(_ clause: String) -> Bool {
        ["ON DELETE CASCADE", "ON DELETE SET NULL", "ON DELETE SET DEFAULT"].contains { clause.uppercased().contains($0) }
    }

    struct Table {
        let name: String
        var columns: [Column]
        /// STRICT, WITHOUT ROWID.
        var options: [String]
        /// A primary key of several columns and the UNIQUE constraints (SQLite keeps them in automatic indexes), and
        /// foreign keys of several columns: `PRIMARY KEY ("a", "b")`.
        var constraints: [String]

        func column(named name: String) -> Column? { columns.first { $0.name.lowercased() == name.lowercased() } }
    }

    struct Index {
        let name: String
        let table: String
        let unique: Bool
        let partial: Bool
        /// `"name"`, `"name" DESC`, `"name" COLLATE NOCASE`, `<expression>`.
        let keys: [String]
        let sql: String

        /// What it does, without its name.
        var shape: String { "\(unique ? "UNIQUE " : "")\(table.lowercased())(\(keys.joined(separator: ", ").lowercased()))\(partial ? " WHERE" : "")" }
    }

    var tables: [Table] = []
    var indexes: [Index] = []
    var triggers: [(name: String, table: String)] = []
    var views: [String] = []

    func table(named name: String) -> Table? { tables.first { $0.name.lowercased() == name.lowercased() } }
    func index(named name: String) -> Index? { indexes.first { $0.name.lowercased() == name.lowercased() } }

    /// The schema of the database `db` is connected to (its main schema).
    ///
    /// Read in a fixed number of statements, each pragma joined with `sqlite_master`, not a few per table and index:
    /// a model of 400 entities made several thousand statements, run twice for each write, and took seconds.
    static func read(_ db: Database) throws -> SchemaShape {
        var shape = SchemaShape()
        var options: [String: [String]] = [:]
        for row in try Row.fetchAll(db, sql: "SELECT \"name\", \"wr\", \"strict\" FROM pragma_table_list WHERE \"schema\" = 'main'") {
            let name: String = row[0]
            options[name.lowercased()] = (row[2] as Int == 1 ? ["STRICT"] : []) + (row[1] as Int == 1 ? ["WITHOUT ROWID"] : [])
        }
        // Every table's columns, foreign keys and indexes, and every index's keys, grouped by the table or index.
        let columnRows = Dictionary(grouping: try Row.fetchAll(db, sql: """
            SELECT m."name", p."name", p."type", p."notnull", p."pk", p."hidden"
            FROM sqlite_master m JOIN pragma_table_xinfo(m."name") p WHERE m."type" = 'table' ORDER BY m."name", p."cid"
            """), by: { $0[0] as String })
        let keyRows = Dictionary(grouping: try Row.fetchAll(db, sql: """
            SELECT m."name", f."id", f."table", f."from", f."to", f."on_update", f."on_delete"
            FROM sqlite_master m JOIN pragma_foreign_key_list(m."name") f WHERE m."type" = 'table' ORDER BY m."name", f."id", f."seq"
            """), by: { $0[0] as String })
        let indexRows = Dictionary(grouping: try Row.fetchAll(db, sql: """
            SELECT m."name", l."name", l."unique", l."partial", l."origin"
            FROM sqlite_master m JOIN pragma_index_list(m."name") l WHERE m."type" = 'table' ORDER BY m."name", l."name"
            """), by: { $0[0] as String })
        var indexKeys: [String: [String]] = [:]
        for row in try Row.fetchAll(db, sql: """
            SELECT l."name", x."cid", x."name", x."desc", x."coll"
            FROM sqlite_master m JOIN pragma_index_list(m."name") l JOIN pragma_index_xinfo(l."name") x
            WHERE m."type" = 'table' AND x."key" = 1 ORDER BY l."name", x."seqno"
            """) {
            let cid: Int = row[1]
            var key = cid == -2 ? "<expression>" : cid == -1 ? "rowid" : quoted(row[2] as String)
            if row[3] as Int == 1 { key += " DESC" }
            if let collation = row[4] as String?, collation.uppercased() != "BINARY" { key += " COLLATE \(collation.uppercased())" }
            indexKeys[row[0], default: []].append(key)
        }
        var indexInfo: [String: (unique: Bool, partial: Bool)] = [:]
        for rows in indexRows.values {
            for row in rows { indexInfo[row[1]] = (row[2] as Int == 1, row[3] as Int == 1) }
        }
        let objects = try Row.fetchAll(db, sql: "SELECT \"type\", \"name\", \"tbl_name\", \"sql\" FROM sqlite_master ORDER BY \"type\", \"name\"")
        for row in objects {
            let type: String = row[0], name: String = row[1], table: String = row[2], sql: String? = row[3]
            switch type {
            case "table":
                if name.lowercased().hasPrefix("sqlite_") { continue }
                var table = readTable(db, name: name, options: options[name.lowercased()] ?? [], columns: columnRows[name] ?? [],
                                      keys: keyRows[name] ?? [], indexes: indexRows[name] ?? [], indexKeys: indexKeys)
                // No pragma lists CHECK constraints: they are read from the table's SQL (the model's tables have none).
                table.constraints = (table.constraints + checkConstraints(sql ?? "")).sorted()
                shape.tables.append(table)
            case "index":
                // An automatic index (a UNIQUE or PRIMARY KEY constraint) belongs to its table, read with it.
                guard let sql else { continue }
                let info = indexInfo[name]
                shape.indexes.append(Index(name: name, table: table, unique: info?.unique == true, partial: info?.partial == true,
                                           keys: indexKeys[name] ?? [], sql: sql))
            case "trigger":
                shape.triggers.append((name, table))
            case "view":
                shape.views.append(name)
            default:
                continue
            }
        }
        return shape
    }

    private static func readTable(_ db: Database, name: String, options: [String], columns rows: [Row], keys: [Row],
                                  indexes: [Row], indexKeys: [String: [String]]) -> Table {
        // Rows as read above: the table's name first, then the pragma's columns.
        let primaryKey = rows.filter { ($0[4] as Int) > 0 }.sorted { ($0[4] as Int) < ($1[4] as Int) }.map { $0[1] as String }
        // Foreign keys: one of a single column is part of that column's definition.
        var references: [String: [String]] = [:]
        var constraints: [String] = []
        for (_, group) in Dictionary(grouping: keys, by: { $0[1] as Int }).sorted(by: { $0.key < $1.key }) {
            let parent: String = group[0][2], onUpdate: String = group[0][5], onDelete: String = group[0][6]
            let targets = group.compactMap { $0[4] as String? }
            var clause = "REFERENCES \(quoted(parent))" + (targets.isEmpty ? "" : "(\(targets.map(quoted).joined(separator: ", ")))")
            if onDelete != "NO ACTION" { clause += " ON DELETE \(onDelete)" }
            if onUpdate != "NO ACTION" { clause += " ON UPDATE \(onUpdate)" }
            if group.count == 1 {
                references[(group[0][3] as String).lowercased(), default: []].append(clause)
            } else {
                constraints.append("FOREIGN KEY (\(group.map { quoted($0[3]) }.joined(separator: ", "))) \(clause)")
            }
        }
        var columns: [Column] = []
        for row in rows {
            let column: String = row[1], type: String = row[2], notNull = row[3] as Int == 1, hidden: Int = row[5]
            let (collation, autoincrement) = columnMetadata(db, table: name, column: column)
            var c = Column(name: column, type: type.uppercased(), notNull: notNull)
            c.primaryKey = primaryKey.count == 1 && primaryKey[0] == column
            c.autoincrement = autoincrement
            if let collation, collation.uppercased() != "BINARY" { c.collation = collation.uppercased() }
            c.references = references[column.lowercased()] ?? []
            c.hidden = hidden == 2 || hidden == 3 ? " GENERATED ALWAYS AS (…)" : hidden != 0 ? " HIDDEN" : ""
            columns.append(c)
        }
        if primaryKey.count > 1 { constraints.append("PRIMARY KEY (\(primaryKey.map(quoted).joined(separator: ", ")))") }
        for row in indexes where row[4] as String == "u" {
            constraints.append("UNIQUE (\((indexKeys[row[1] as String] ?? []).joined(separator: ", ")))")
        }
        return Table(name: name, columns: columns, options: options, constraints: constraints.sorted())
    }

    /// The CHECK constraints of a table's SQL, each as `CHECK constraint name` (a named one) or `CHECK (expression)`:
    /// the words outside quotes and brackets, and a CHECK's parenthesised expression as written.
    static func checkConstraints(_ sql: String) -> [String] {
        let characters = Array(sql)
        var found: [String] = []
        var words: [String] = []
        var i = 0
        while i < characters.count {
            let c = characters[i]
            if let close: Character = c == "\"" ? "\"" : c == "'" ? "'" : c == "`" ? "`" : c == "[" ? "]" : nil {
                var j = i + 1
                while j < characters.count && characters[j] != close { j += 1 }
                words.append(String(characters[(i + 1)..<min(j, characters.count)]))
                i = j + 1
                continue
            }
            if c.isLetter || c == "_" {
                var j = i
                while j < characters.count && (characters[j].isLetter || characters[j].isNumber || characters[j] == "_") { j += 1 }
                let word = String(characters[i..<j])
                i = j
                guard word.uppercased() == "CHECK" else { words.append(word); continue }
                while i < characters.count && characters[i].isWhitespace { i += 1 }
                var depth = 0, end = i
                while end < characters.count {
                    if characters[end] == "(" { depth += 1 }
                    if characters[end] == ")" { depth -= 1; if depth == 0 { break } }
                    end += 1
                }
                let expression = String(characters[i..<min(end + 1, characters.count)])
                if words.count >= 2 && words[words.count - 2].uppercased() == "CONSTRAINT" {
                    found.append("CHECK constraint \(words[words.count - 1])")
                } else {
                    found.append("CHECK \(expression)")
                }
                words.append(word)
                i = end + 1
                continue
            }
            i += 1
        }
        return found
    }

    /// A column's collation and whether it is AUTOINCREMENT, which no pragma tells.
    private static func columnMetadata(_ db: Database, table: String, column: String) -> (String?, Bool) {
        var type: UnsafePointer<CChar>?
        var collation: UnsafePointer<CChar>?
        var notNull: Int32 = 0, primaryKey: Int32 = 0, autoincrement: Int32 = 0
        let code = sqlite3_table_column_metadata(db.sqliteConnection, "main", table, column, &type, &collation,
                                                 &notNull, &primaryKey, &autoincrement)
        guard code == SQLITE_OK else { return (nil, false) }
        return (collation.map { String(cString: $0) }, autoincrement != 0)
    }
}

extension SchemaShape {
    /// The schema `Store.create` makes for `model`, with the import history's table, made in memory.
    static func expected(for model: ObjectModel) throws -> SchemaShape {
        let statements = [Store.metaTableSQL, ImportJournal.createSQL] + SchemaBuilder.statements(for: model)
        let key = statements.joined(separator: ";\n")
        // Made once a process for each schema: a write compares it at opening and again in its transaction.
        if let shape = expectedLock.withLock({ expectedShapes[key] }) { return shape }
        let queue = try DatabaseQueue()
        defer { try? queue.close() }
        let shape = try queue.inDatabase { db in
            for statement in statements { try db.execute(sql: statement) }
            return try read(db)
        }
        expectedLock.withLock { expectedShapes[key] = shape }
        return shape
    }

    private static let expectedLock = NSLock()
    nonisolated(unsafe) private static var expectedShapes: [String: SchemaShape] = [:]

    /// Tables and columns that may be missing: made on first use.
    static let optionalTables: Set<String> = [ImportJournal.table.lowercased()]
    static let optionalColumns: Set<String> = ImportJournal.addedColumns.map { "\(ImportJournal.table).\($0.0)".lowercased() }
        .reduce(into: Set<String>()) { $0.insert($1) }

    /// Every way `self` (a store's schema) differs from `expected`, in a fixed order: tables and their columns,
    /// indexes, triggers, views.
    func differences(from expected: SchemaShape) -> [SchemaDifference] {
        var found: [SchemaDifference] = []
        func add(_ text: String, blocks: Bool = false) { found.append(SchemaDifference(text: text, blocksWrites: blocks)) }
        // Looked up by name once each: a search of the list for every name made a model of 400 entities take
        // seconds to open for writing (each name against every other, lowercased each time).
        func byName<T>(_ items: [T], _ name: (T) -> String) -> [String: T] {
            Dictionary(items.map { (name($0).lowercased(), $0) }, uniquingKeysWith: { first, _ in first })
        }
        let tableNamed = byName(tables, \.name), indexNamed = byName(indexes, \.name)
        let expectedTableNamed = byName(expected.tables, \.name), expectedIndexNamed = byName(expected.indexes, \.name)
        func table(named name: String) -> Table? { tableNamed[name.lowercased()] }
        func index(named name: String) -> Index? { indexNamed[name.lowercased()] }
        // A unique index the model names, present under another name with the same shape (a tool that rebuilds
        // tables may rename indexes): it keeps the same values unique, so it is reported but blocks nothing.
        var sameShapeElsewhere: [String: Index] = [:]
        var renamed: Set<String> = []
        for index in indexes where expectedIndexNamed[index.name.lowercased()] == nil {
            sameShapeElsewhere[index.shape] = sameShapeElsewhere[index.shape] ?? index
        }
        for wanted in expected.tables {
            guard let table = table(named: wanted.name) else {
                if !SchemaShape.optionalTables.contains(wanted.name.lowercased()) { add("table \(quoted(wanted.name)) is missing") }
                continue
            }
            if table.options != wanted.options {
                add("table \(quoted(wanted.name)) is \(table.options.isEmpty ? "not STRICT" : table.options.joined(separator: ", ")) "
                    + "where the model's is \(wanted.options.isEmpty ? "not STRICT" : wanted.options.joined(separator: ", "))")
            }
            for c in wanted.constraints where !table.constraints.contains(where: { $0.lowercased() == c.lowercased() }) {
                // The model's only table constraint is a join table's primary key, which keeps each link once.
                let keeps = c.hasPrefix("PRIMARY KEY") || c.hasPrefix("UNIQUE")
                add("table \(quoted(wanted.name)) lacks the model's \(c)\(keeps ? ", so nothing keeps those values unique" : "")", blocks: keeps)
            }
            for c in table.constraints where !wanted.constraints.contains(where: { $0.lowercased() == c.lowercased() }) {
                // Another UNIQUE or a foreign key that refuses makes a write fail loudly; one that acts on a delete
                // changes a model table's rows without a word.
                let acts = c.hasPrefix("FOREIGN KEY") && SchemaShape.actsOnDelete(c)
                add("table \(quoted(wanted.name)) has \(c), which the model's has not\(acts ? " (it changes what a delete does)" : "")", blocks: acts)
            }
            for column in wanted.columns {
                guard let present = table.column(named: column.name) else {
                    if !SchemaShape.optionalColumns.contains("\(wanted.name).\(column.name)".lowercased()) {
                        add("column \(wanted.name).\(column.name) is missing")
                    }
                    continue
                }
                if present.definition.lowercased() != column.definition.lowercased() {
                    let changes = present.writeChanges(from: column)
                    add("column \(wanted.name).\(column.name) is \(present.definition) where the model's is \(column.definition)"
                        + (changes.isEmpty ? "" : " (\(changes.joined(separator: "; ")))"), blocks: !changes.isEmpty)
                }
            }
            for column in table.columns where wanted.column(named: column.name) == nil {
                add("column \(wanted.name).\(column.name) is not the model's"
                    + (column.actsOnDelete ? " (\(column.definition): its foreign key changes what a delete does)" : ""),
                    blocks: column.actsOnDelete)
            }
        }
        for table in tables where expectedTableNamed[table.name.lowercased()] == nil {
            add("table \(quoted(table.name)) is not the model's")
        }
        for wanted in expected.indexes {
            // A unique index the model wants that is gone or changed: nothing keeps those values unique.
            let columns = "\(wanted.table).\(wanted.keys.map { $0.replacingOccurrences(of: "\"", with: "") }.joined(separator: ", "))"
            guard let index = index(named: wanted.name) else {
                if let other = sameShapeElsewhere[wanted.shape] {
                    renamed.insert(other.name.lowercased())
                    add("index \(quoted(wanted.name)) is named \(quoted(other.name)) in the store (the same index: \(Self.oneLine(other.sql)))")
                    continue
                }
                if !SchemaShape.optionalTables.contains(wanted.table.lowercased()) || table(named: wanted.table) != nil {
                    add("index \(quoted(wanted.name)) is missing\(wanted.unique ? ", so nothing keeps \(columns) unique" : "") "
                        + "(the model's: \(wanted.sql))", blocks: wanted.unique)
                }
                continue
            }
            if index.shape != wanted.shape {
                let keeps = wanted.unique ? ", which keeps \(columns) unique" : ""
                if Self.oneLine(index.sql).lowercased() == Self.oneLine(wanted.sql).lowercased() {
                    // The same statement: the difference is the collation an index takes from its column.
                    add("index \(quoted(wanted.name)) is the model's statement, but compares \(index.keys.joined(separator: ", ")) "
                        + "(the collation of the column it indexes) where the model's compares \(wanted.keys.joined(separator: ", "))\(keeps)",
                        blocks: wanted.unique)
                } else {
                    add("index \(quoted(wanted.name)) is \(Self.oneLine(index.sql)) where the model's is \(wanted.sql)\(keeps)", blocks: wanted.unique)
                }
            }
        }
        for index in indexes where expectedIndexNamed[index.name.lowercased()] == nil && !renamed.contains(index.name.lowercased()) {
            add("index \(quoted(index.name)) is not the model's (\(Self.oneLine(index.sql)))")
        }
        for trigger in triggers {
            // A trigger on a table bookkeeper writes runs with its writes; one on another table never does.
            if expectedTableNamed[trigger.table.lowercased()] != nil {
                add("trigger \(quoted(trigger.name)) on \(quoted(trigger.table)) is not the model's: it would run with bookkeeper's writes "
                    + "(drop it: DROP TRIGGER \(quoted(trigger.name)))", blocks: true)
            } else {
                add("trigger \(quoted(trigger.name)) on \(quoted(trigger.table)) is not the model's")
            }
        }
        for view in views {
            add("view \(quoted(view)) is not the model's")
        }
        return found
    }

    /// SQL as one line: runs of white space (line feeds in a trigger or an index written by hand) as one space.
    static func oneLine(_ sql: String) -> String {
        sql.split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}

/// Writes refused because another tool changed the store's schema in a way that would change what they do.
package struct ForeignSchemaError: CategorizedError, Equatable {
    /// The store's check lists every difference.
    package var nextStep: NextStep { .runCheck }

    package let path: String
    /// The differences that block writes, one line each.
    package let problems: [String]

    package var category: ErrorCategory { .data }
    package var description: String { messages.joined(separator: "\n") }
    package var messages: [String] {
        problems.map { "\(path): \($0)" }
            + ["\(path): the store's schema is not the model's (another tool changed it), so bookkeeper writes nothing to it "
               + "until that is undone; nothing was changed"]
    }
}

extension Store {
    static var metaTableSQL: String { StoreSQL.sqlite.createMeta(metaTable) }

    /// How the store's schema differs from the one `model` makes.
    static func schemaDifferences(_ db: Database, model: ObjectModel) throws -> [SchemaDifference] {
        try SchemaShape.read(db).differences(from: SchemaShape.expected(for: model))
    }

    /// Refuses a store whose schema another tool changed in a way that would change what writes do (see
    /// `SchemaDifference.blocksWrites`), before anything is written: `meta` is the store's metadata, whose
    /// recorded model is the one its schema was made for. Returns the schema it compared (see `SchemaCheckpoint`).
    static func refuseForeignSchema(_ queue: DatabaseQueue, path: String, model: ObjectModel, meta: [String: String]) throws -> SchemaCheckpoint? {
        var expected = model
        if meta["model_hash"] != model.versionHash {
            // The store is still at the model it records (opening migrates it after this check).
            guard let text = meta["model"], let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
                  let recorded = try? ObjectModel(jsonObject: json, behaviours: model.behaviours) else { return nil }
            expected = recorded
        }
        // In one read transaction: the schema compared is the one at that schema version.
        let (version, blocking) = try queue.read { db in
            (try Store.schemaVersion(db), try schemaDifferences(db, model: expected).filter(\.blocksWrites))
        }
        if !blocking.isEmpty { throw ForeignSchemaError(path: path, problems: blocking.map(\.text)) }
        return SchemaCheckpoint(version: version, model: expected, recordedHash: meta["model_hash"])
    }

    static func schemaVersion(_ db: Database) throws -> Int {
        try Int.fetchOne(db, sql: StoreSQL.sqlite.schemaVersion) ?? 0
    }

    /// Called first inside each write transaction (after BEGIN IMMEDIATE, which holds the write lock, so the schema
    /// cannot change until it ends): when another tool changed the schema since it was compared on opening (a
    /// trigger added while an import read its input), it is compared again, and the write refused if it must be.
    ///
    /// The schema may also have changed because another process migrated the store while this one waited for the
    /// lock: the store then records another model. When it is this command's model, the schema is compared with it
    /// from now on. When it is not (a job started with yesterday's model file while `migrate` ran), the write goes
    /// on, on the migrated store; only a statement naming a table or column the migration removed fails, and it
    /// says so (`migratedAway`, see `mapErrors`: 75, run it again) — before, SQLite's `no such column` (74).
    func confirmSchemaUnchanged(_ db: Database) throws {
        guard let checkpoint = schemaCheckpoint else { return }
        let version = try Store.schemaVersion(db)
        if version == checkpoint.version { return }
        var compared = checkpoint.model
        let recorded = try Store.recordedHash(db)
        if let recorded, let before = checkpoint.recordedHash, recorded != before {
            if recorded == model.versionHash { compared = model } else { migratedAway = true }
        }
        let blocking = try Store.schemaDifferences(db, model: compared).filter(\.blocksWrites)
        if !blocking.isEmpty { throw ForeignSchemaError(path: path, problems: blocking.map(\.text)) }
        schemaCheckpoint = SchemaCheckpoint(version: version, model: compared, recordedHash: recorded)
    }
}

/// The schema version (SQLite's `PRAGMA schema_version`, which every schema change raises) at which the store's
/// schema was last compared with `model` and found to block no write.
struct SchemaCheckpoint {
    let version: Int
    let model: ObjectModel
    /// The model hash the store recorded then (nil: not known); another one later means another process migrated it.
    var recordedHash: String?
}
