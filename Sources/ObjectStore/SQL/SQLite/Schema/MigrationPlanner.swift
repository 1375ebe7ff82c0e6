import Foundation
import GRDB

// SQLite's migration planner (SQL/SQLite/Schema): SQLite alters little in place, so a change rebuilds a table; a
// second store brings its own planner (PostgreSQL alters a column's type or constraint in place).
//
// The migration planner compares the schema the recorded model wants with the schema the current model wants,
// table by table, and looks at the data where a change could lose it or fail:
// - additive changes (a new entity, a new optional attribute or one with a default, a new relationship, a new
//   index, a uniqueness the data already satisfies, loosening a requirement) are automatic: CREATE TABLE,
//   ALTER TABLE ADD COLUMN, CREATE INDEX, or a table rebuild that keeps every value;
// - removing or retyping an attribute, relationship or entity loses data and needs --allow-data-loss;
// - a requirement that existing objects do not meet (NULLs for a newly required attribute, duplicates for a new
//   uniqueness, values that do not convert to a new type) blocks until the data is fixed or mapped (--default).
// A table is rebuilt the way SQLite recommends: create the new table, copy, drop the old, rename.

enum MigrationPlanner {
    /// A stored value as an SQL literal, for ALTER TABLE … DEFAULT (which cannot take parameters).
    static func literal(_ v: DatabaseValue) -> String {
        switch v.storage {
        case .null: return "NULL"
        case .int64(let i): return String(i)
        case .double(let d): return "\(d)"
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'"
        }
    }
    static func plan(from old: ObjectModel, to new: ObjectModel, in db: Database, options: MigrationOptions) throws -> MigrationPlan {
        var planner = Planner(old: old, new: new, db: db, options: options)
        try planner.run()
        return planner.plan
    }
}

private struct Planner {
    let old: ObjectModel
    let new: ObjectModel
    let db: Database
    let options: MigrationOptions
    var plan = MigrationPlan()
    /// New entity name → old entity name.
    var entityOrigin: [String: String] = [:]
    /// `Entity.old` → `new` or `Entity.new`, as given.
    var propertyRenames: [String: String] = [:]
    var indexSteps: [MigrationPlan.Step] = []

    init(old: ObjectModel, new: ObjectModel, db: Database, options: MigrationOptions) {
        self.old = old
        self.new = new
        self.db = db
        self.options = options
        for (from, to) in options.renames {
            if from.contains(".") { propertyRenames[from] = to } else { entityOrigin[to] = from }
        }
    }

    func oldName(ofEntity name: String) -> String { entityOrigin[name] ?? name }

    /// The old name of a property of a (new) entity.
    func oldName(ofProperty name: String, in entity: String) -> String {
        for (from, to) in propertyRenames where from.hasPrefix(entity + ".") && to == name {
            return String(from.dropFirst(entity.count + 1))
        }
        // Also accept Entity.old=Entity.new.
        for (from, to) in propertyRenames where from.hasPrefix(entity + ".") && to == "\(entity).\(name)" {
            return String(from.dropFirst(entity.count + 1))
        }
        return name
    }

    /// The names given with --rename and --default must name something: in the model, and (for the old name of a
    /// rename) in the store. A rename an earlier run already made names its new name in both, and is left out, so a
    /// cron job that keeps its --rename stays idempotent.
    mutating func checkNamesGiven() {
        for (newName, oldName) in entityOrigin.sorted(by: { $0.key < $1.key }) {
            let given = MigrationPlan.Given.rename(from: oldName, to: newName)
            if new.entity(named: newName) == nil {
                plan.unknownNames.append(.init(given: given, problem: "the model has no entity \(newName)\(Suggestions.didYouMean(Suggestions.closest(to: newName, in: new.entities.map(\.name))))"))
            } else if old.entity(named: oldName) == nil {
                if old.entity(named: newName) == nil {
                    plan.unknownNames.append(.init(given: given, problem: "the store has no entity \(oldName)\(Suggestions.didYouMean(Suggestions.closest(to: oldName, in: old.entities.map(\.name))))"))
                }
            } else {
                continue
            }
            entityOrigin[newName] = nil
        }
        for (from, to) in propertyRenames.sorted(by: { $0.key < $1.key }) {
            let given = MigrationPlan.Given.rename(from: from, to: to)
            let parts = from.split(separator: ".", maxSplits: 1).map(String.init)
            let entityName = parts[0], oldProperty = parts.count > 1 ? parts[1] : ""
            let newProperty = to.hasPrefix(entityName + ".") ? String(to.dropFirst(entityName.count + 1)) : to
            let stored = old.entity(named: oldName(ofEntity: entityName))
            if let entity = new.entity(named: entityName) {
                if !entity.propertyNames.contains(newProperty) {
                    plan.unknownNames.append(.init(given: given, problem: "the model has no property \(entityName).\(newProperty)\(Suggestions.didYouMean(Suggestions.closest(to: newProperty, in: entity.propertyNames)))"))
                } else if stored?.propertyNames.contains(oldProperty) == true {
                    continue
                } else if stored?.propertyNames.contains(newProperty) != true {
                    plan.unknownNames.append(.init(given: given, problem: "the store has no property \(stored?.name ?? entityName).\(oldProperty)\(Suggestions.didYouMean(Suggestions.closest(to: oldProperty, in: stored?.propertyNames ?? [])))"))
                }
            } else {
                plan.unknownNames.append(.init(given: given, problem: "the model has no entity \(entityName)\(Suggestions.didYouMean(Suggestions.closest(to: entityName, in: new.entities.map(\.name))))"))
            }
            propertyRenames[from] = nil
        }
        for (key, value) in options.defaults.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let entity = new.entity(named: parts[0]), entity.attribute(named: parts[1]) == nil else { continue }
            plan.unknownNames.append(.init(given: .defaultValue(attribute: key, value: value), problem: "the model has no attribute \(key)\(Suggestions.didYouMean(Suggestions.closest(to: parts[1], in: entity.attributes.map(\.name))))"))
        }
        for (key, value) in options.defaults.sorted(by: { $0.key < $1.key }) {
            let entityName = String(key.split(separator: ".", maxSplits: 1)[0])
            guard new.entity(named: entityName) == nil else { continue }
            plan.unknownNames.append(.init(given: .defaultValue(attribute: key, value: value), problem: "the model has no entity \(entityName)\(Suggestions.didYouMean(Suggestions.closest(to: entityName, in: new.entities.map(\.name))))"))
        }
    }

    mutating func step(_ sql: String, _ arguments: [DatabaseValue] = []) {
        plan.steps.append(MigrationPlan.Step(sql: sql, arguments: arguments.map { StoredValue($0) }))
    }

    /// Tables the plan drops: removed, or rebuilt (dropped and replaced by a new table of the same name).
    var droppedTables: [String] = []

    /// The marks of deleted IDs (Store+ObjectIDs) follow their entities: a removed entity's goes, a renamed one's
    /// takes the new name (through a parked name, so that a swap keeps both).
    mutating func moveIDMarks(_ entityRenames: [(key: String, value: String)]) {
        let meta = quoted(Store.metaTable)
        let removed = old.entities.filter { e in !new.entities.contains { oldName(ofEntity: $0.name) == e.name } }
        if !removed.isEmpty {
            step("DELETE FROM \(meta) WHERE \"key\" IN (\(removed.map { _ in "?" }.joined(separator: ", ")))",
                 removed.map { Store.idMarkKey($0.name).databaseValue })
        }
        for (_, oldName) in entityRenames {
            step("UPDATE \(meta) SET \"key\" = ? WHERE \"key\" = ?", ["_" + Store.idMarkKey(oldName), Store.idMarkKey(oldName)].map(\.databaseValue))
        }
        for (newName, oldName) in entityRenames {
            step("UPDATE OR REPLACE \(meta) SET \"key\" = ? WHERE \"key\" = ?", [Store.idMarkKey(newName), "_" + Store.idMarkKey(oldName)].map(\.databaseValue))
        }
    }

    mutating func dropTable(_ name: String) {
        droppedTables.append(name)
        step("DROP TABLE \(quoted(name))")
    }

    /// What another tool added that a dropped table takes with it. A view that reads it: SQLite refuses to rename
    /// the rebuilt table while a view refers to one that is gone (`error in view …`, once an I/O error), so the plan
    /// is blocked, naming the view. An index that is not the model's: dropped with the table, said in the plan (its
    /// statement quoted, to make it again) — a migration never drops something without a word.
    mutating func checkForeignObjectsOnDroppedTables() throws {
        guard !droppedTables.isEmpty else { return }
        let newNames = Set(SchemaBuilder.tables(for: new).map { $0.name.lowercased() })
        let oldIndexes = Set(SchemaBuilder.tables(for: old).flatMap { $0.indexes.keys.map { $0.lowercased() } })
        func fate(_ table: String) -> String { newNames.contains(table.lowercased()) ? "rebuilds" : "removes" }
        let dropped = Set(droppedTables.map { $0.lowercased() })
        let renames = plan.steps.contains { $0.sql.hasPrefix("ALTER TABLE") }
        for view in try String.fetchAll(db, sql: "SELECT \"name\" FROM sqlite_master WHERE \"type\" = 'view' ORDER BY \"name\"") {
            do {
                let read = try Self.tablesRead(by: view, db).filter { dropped.contains($0.lowercased()) }
                if let table = read.first {
                    plan.blockers.append(.data("view \(quoted(view)) (not the model's) reads table \(quoted(table)), which the migration \(fate(table)): "
                                         + "drop it first (DROP VIEW \(quoted(view))), and make it again after if it is still wanted"))
                }
            } catch let error as DatabaseError where renames {
                // Already broken: SQLite checks every view when it renames a table, and would refuse.
                plan.blockers.append(.data("view \(quoted(view)) (not the model's) cannot be read (\(error.message ?? "\(error.resultCode)")), and SQLite "
                                     + "changes no table while it is there: drop it first (DROP VIEW \(quoted(view)))"))
            }
        }
        for table in droppedTables {
            let indexes = try Row.fetchAll(db, sql: """
                SELECT "name", "sql" FROM sqlite_master WHERE "type" = 'index' AND "sql" IS NOT NULL AND lower("tbl_name") = lower(?) ORDER BY "name"
                """, arguments: [table])
            for row in indexes where !oldIndexes.contains((row[0] as String).lowercased()) {
                plan.changes.append("drop index \(row[0] as String) (not the model's) with table \(table), which the migration \(fate(table)); "
                                    + "make it again after if it is still wanted: \(SchemaShape.oneLine(row[1]))")
            }
        }
    }

    /// The tables a view reads, found from the program SQLite compiles for it (each b-tree it opens).
    static func tablesRead(by view: String, _ db: Database) throws -> [String] {
        var tables: [String] = []
        for row in try Row.fetchAll(db, sql: "EXPLAIN SELECT * FROM \(quoted(view))") where (row["opcode"] as String) == "OpenRead" {
            let root: Int = row["p2"]
            if let table = try String.fetchOne(db, sql: "SELECT \"tbl_name\" FROM sqlite_master WHERE \"rootpage\" = ?", arguments: [root]),
               !tables.contains(table) {
                tables.append(table)
            }
        }
        return tables
    }

    mutating func run() throws {
        plan.modelChanged = old.canonicalJSON != new.canonicalJSON
        let oldTables = Dictionary(uniqueKeysWithValues: SchemaBuilder.tables(for: old).map { ($0.name, $0) })
        let newTables = SchemaBuilder.tables(for: new)

        checkNamesGiven()
        // Renamed entities first, so that everything after works on the new names; through a temporary name when
        // the new one is taken in SQLite's eyes (Bank=BANK, a swap), and after the removed entities are dropped.
        let oldTableNames = Set(oldTables.values.flatMap { [$0.name] + $0.indexes.keys }.map(ObjectModel.sqlFold))
        let entityRenames = entityOrigin.sorted(by: { $0.key < $1.key })
        let renameViaTemporary = entityRenames.contains { oldTableNames.contains(ObjectModel.sqlFold($0.key)) }
        for (newName, oldName) in entityRenames {
            step("ALTER TABLE \(quoted(oldName)) RENAME TO \(quoted(renameViaTemporary ? "_bk_rename_\(newName)" : newName))")
            plan.changes.append("rename entity \(oldName) to \(newName)")
        }
        // Removed entities next: a new table may take a name that SQLite cannot tell from a removed one's.
        for oldEntity in old.entities where !new.entities.contains(where: { oldName(ofEntity: $0.name) == oldEntity.name }) {
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(oldEntity.name))") ?? 0
            plan.dataLoss.append("remove entity \(oldEntity.name) (\(count) object\(count == 1 ? "" : "s"))")
            dropTable(oldEntity.name)
        }
        if renameViaTemporary {
            for (newName, _) in entityRenames { step("ALTER TABLE \(quoted("_bk_rename_\(newName)")) RENAME TO \(quoted(newName))") }
        }
        moveIDMarks(entityRenames)
        for table in newTables where table.entity != nil {
            let entity = new.entity(named: table.entity!)!
            let from = oldName(ofEntity: entity.name)
            guard let oldEntity = old.entity(named: from), let oldTable = oldTables[from] else {
                step(table.createSQL())
                indexSteps += table.indexes.sorted { $0.key < $1.key }.map { MigrationPlan.Step(sql: $0.value, arguments: []) }
                plan.changes.append("add entity \(entity.name)")
                continue
            }
            try compare(oldTable, oldEntity, table, entity)
        }
        try compareJoinTables(oldTables: oldTables, newTables: newTables.filter { $0.entity == nil })
        plan.steps += indexSteps
        try checkForeignObjectsOnDroppedTables()
        compareRules()
    }

    /// Rules an entity gains or changes: once the steps have run, its objects are checked against them
    /// (`Store.rehearse`, and the migration itself), since existing data may break them.
    mutating func compareRules() {
        for entity in new.entities {
            let before = old.entity(named: oldName(ofEntity: entity.name))?.rules ?? []
            let added = entity.rules.filter { !before.contains($0) }
            guard !added.isEmpty else { continue }
            plan.newRules[entity.name] = added
            plan.changes += added.map { "add rule to \(entity.name): \($0.message)" }
        }
    }

    // MARK: Entity tables

    mutating func compare(_ oldTable: TableSpec, _ oldEntity: Entity, _ table: TableSpec, _ entity: Entity) throws {
        let name = entity.name
        let rows = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(oldEntity.name))") ?? 0
        var rebuild = false
        var renames: [(String, String)] = []
        var additions: [(ColumnSpec, String)] = []   // column, SQL default literal ("" for none)
        var sources: [String: String] = [:]          // new column → SQL expression over the old table
        var arguments: [DatabaseValue] = []
        var used: Set<String> = ["id"]
        sources["id"] = "\"id\""

        func bound(_ v: DatabaseValue) -> String {
            arguments.append(v)
            return "?"
        }

        for column in table.columns {
            switch column.role {
            case .id, .link:
                continue
            case .attribute(let a):
                let from = oldName(ofProperty: a.name, in: name)
                guard let oldAttribute = oldEntity.attribute(named: from), let oldColumn = oldTable.column(named: from) else {
                    try addColumn(column, attribute: a, entity: name, rows: rows, rebuild: &rebuild, additions: &additions,
                                  sources: &sources, bound: bound)
                    continue
                }
                used.insert(from)
                if from != a.name {
                    renames.append((from, a.name))
                    plan.changes.append("rename attribute \(name).\(from) to \(a.name)")
                }
                var expression = quoted(from)
                if oldAttribute.type != a.type {
                    rebuild = true
                    try retype(name, from, oldAttribute.type, a)
                    expression = SQLiteDialect().convert(quoted(from), from: oldAttribute.type, to: a.type)
                }
                if a.isRequired && !oldColumn.isNotNull {
                    rebuild = true
                    let nulls = try objectIDs(entity: oldEntity.name, where: "\(quoted(from)) IS NULL")
                    if !nulls.ids.isEmpty {
                        if let text = options.defaults["\(name).\(a.name)"] {
                            let v: Value
                            do { v = try Value.parse(text, as: a.type) } catch {
                                // The reason too: a time the clocks skip is a DateTime's form, but no instant.
                                plan.blockers.append(.unreadableDefault(attribute: "\(name).\(a.name)", value: text, reason: error.message))
                                continue
                            }
                            expression = "COALESCE(\(expression), \(bound(v.databaseValue(for: a.type))))"
                            plan.dataLoss.append("\(name).\(a.name) becomes required: \(nulls.count) object\(nulls.count == 1 ? "" : "s") without one get \"\(text)\"")
                        } else {
                            plan.blockers.append(.nowRequired(attribute: "\(name).\(a.name)", count: nulls.count, ids: "\(nulls.ids)"))
                        }
                    }
                    plan.changes.append("\(name).\(a.name) becomes required")
                } else if !a.isRequired && oldColumn.isNotNull {
                    rebuild = true
                    plan.changes.append("\(name).\(a.name) becomes optional")
                }
                if (a.isUnique || a.name == entity.naturalKey) && !(oldAttribute.isUnique || oldAttribute.name == oldEntity.naturalKey) {
                    try checkDuplicates(name, a.name, column: from, table: oldEntity.name)
                    plan.changes.append("\(name).\(a.name) becomes unique")
                }
                sources[a.name] = expression
            case .foreignKey(let r):
                let from = oldName(ofProperty: r.name, in: name)
                if let oldRelationship = oldEntity.relationship(named: from),
                   case .foreignKey(let oldColumnName) = old.storage(of: oldRelationship, in: oldEntity),
                   oldRelationship.destination == oldName(ofEntity: r.destination),
                   let oldColumn = oldTable.column(named: oldColumnName) {
                    used.insert(oldColumnName)
                    if oldColumnName != column.name { renames.append((oldColumnName, column.name)) }
                    if oldColumn.definition != column.definition {
                        rebuild = true
                        if column.definition.contains(" REFERENCES "), !oldColumn.definition.contains(" REFERENCES ") {
                            try clearDeletedReferences(name, r, column: oldColumnName, table: oldEntity.name,
                                                       oldDestination: oldRelationship.destination, required: column.isNotNull)
                        }
                        if column.isNotNull && !oldColumn.isNotNull {
                            let nulls = try objectIDs(entity: oldEntity.name, where: "\(quoted(oldColumnName)) IS NULL")
                            if !nulls.ids.isEmpty {
                                plan.blockers.append("\(name).\(r.name) is now required, but \(nulls.count) object\(nulls.count == 1 ? " has" : "s have") none (\(nulls.ids))")
                            }
                        }
                        plan.changes.append("\(name).\(r.name) changes its constraints")
                    }
                    sources[column.name] = quoted(oldColumnName)
                } else {
                    plan.changes.append("add relationship \(name).\(r.name)")
                    if column.isNotNull {
                        rebuild = true
                        if rows > 0 {
                            plan.blockers.append("\(name).\(r.name) is new and required, but \(rows) existing object\(rows == 1 ? "" : "s") would have none")
                        }
                    } else {
                        additions.append((column, ""))
                    }
                    sources[column.name] = "NULL"
                }
            }
        }
        for oldColumn in oldTable.columns where !used.contains(oldColumn.name) {
            rebuild = true
            let values = try Int.fetchOne(db, sql: "SELECT COUNT(\(quoted(oldColumn.name))) FROM \(quoted(oldEntity.name))") ?? 0
            let what: String
            switch oldColumn.role {
            case .foreignKey(let r): what = "relationship \(name).\(r.name)"
            default: what = "attribute \(name).\(oldColumn.name)"
            }
            plan.dataLoss.append("remove \(what) (\(values) value\(values == 1 ? "" : "s"))")
        }
        if rebuild {
            let temporary = "_bk_new_\(name)"
            let columns = table.columns.map(\.name)
            step(table.createSQL(as: temporary))
            step("INSERT INTO \(quoted(temporary)) (\(columns.map(quoted).joined(separator: ", "))) SELECT \(columns.map { sources[$0] ?? "NULL" }.joined(separator: ", ")) FROM \(quoted(name))", arguments)
            dropTable(name)
            step("ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(name))")
            indexSteps += table.indexes.sorted { $0.key < $1.key }.map { MigrationPlan.Step(sql: $0.value, arguments: []) }
            return
        }
        // Through temporary names when a new name is taken in SQLite's eyes: a swap (a=b, b=a), a change of case.
        let oldColumns = Set(oldTable.columns.map { ObjectModel.sqlFold($0.name) })
        if renames.contains(where: { oldColumns.contains(ObjectModel.sqlFold($0.1)) }) {
            for (from, to) in renames { step("ALTER TABLE \(quoted(name)) RENAME COLUMN \(quoted(from)) TO \(quoted("_bk_rename_\(to)"))") }
            for (_, to) in renames { step("ALTER TABLE \(quoted(name)) RENAME COLUMN \(quoted("_bk_rename_\(to)")) TO \(quoted(to))") }
        } else {
            for (from, to) in renames { step("ALTER TABLE \(quoted(name)) RENAME COLUMN \(quoted(from)) TO \(quoted(to))") }
        }
        for (column, defaultLiteral) in additions {
            step("ALTER TABLE \(quoted(name)) ADD COLUMN \(column.sql)\(defaultLiteral.isEmpty ? "" : " DEFAULT \(defaultLiteral)")")
        }
        try compareIndexes(table, renamedFrom: oldEntity.name)
    }

    /// A foreign key the migration adds over a column that had none (a No Action rule changed to another, which is
    /// additive): references a No Action delete left (to an ID from 1 up to the highest the destination ever handed
    /// out) read as none everywhere, and are cleared first, said in the plan with the first few named — else the
    /// new key would block the migration, and every command after it. One of a required relationship cannot be
    /// cleared: a blocker naming it. (An ID never handed out was written by another tool: the key check blocks.)
    mutating func clearDeletedReferences(_ entity: String, _ r: EntityRelationship, column: String, table: String,
                                         oldDestination: String, required: Bool) throws {
        let highest = try Store.highestHandedOutID(db.storage, entity: oldDestination)
        func deleted(_ destination: String) -> String {
            "\(quoted(column)) BETWEEN 1 AND \(highest) AND \(quoted(column)) NOT IN (SELECT \"id\" FROM \(quoted(destination)))"
        }
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(table)) WHERE \(deleted(oldDestination))") ?? 0
        guard count > 0 else { return }
        let first = try Row.fetchAll(db, sql: "SELECT \"id\", \(quoted(column)) FROM \(quoted(table)) WHERE \(deleted(oldDestination)) ORDER BY \"id\" LIMIT 5")
        let named = first.map { "\(entity)/\($0[0] as Int64).\(r.name) (was \(r.destination)/\($0[1] as Int64))" }.joined(separator: ", ")
            + (count > 5 ? ", …" : "")
        if required {
            plan.blockers.append(.data("\(entity).\(r.name) is required, but \(count) object\(count == 1 ? " refers" : "s refer") to a deleted "
                                 + "\(r.destination): \(named) — set \(count == 1 ? "it" : "them") to another \(r.destination)"))
            return
        }
        plan.changes.append("clear \(count) reference\(count == 1 ? " to a deleted object" : "s to deleted objects"): \(named)")
        // (The table has its new name by now, and so has the destination: renames come first.)
        step("UPDATE \(quoted(entity)) SET \(quoted(column)) = NULL WHERE \(deleted(r.destination))")
    }

    /// A column the old table lacks: added in place when SQLite allows it, else by a rebuild.
    mutating func addColumn(_ column: ColumnSpec, attribute a: EntityAttribute, entity: String, rows: Int, rebuild: inout Bool,
                            additions: inout [(ColumnSpec, String)], sources: inout [String: String],
                            bound: (DatabaseValue) -> String) throws {
        plan.changes.append("add attribute \(entity).\(a.name)")
        var fill: Value?
        if case .value(let v)? = a.defaultValue { fill = v }
        if a.defaultValue == .today { fill = .date(Day.current()) }
        if a.defaultValue == .now { fill = .dateTime(RunMoment.now) }
        if let text = options.defaults["\(entity).\(a.name)"] {
            let v: Value
            do { v = try Value.parse(text, as: a.type) } catch {
                plan.blockers.append(.unreadableDefault(attribute: "\(entity).\(a.name)", value: text, reason: error.message))
                return
            }
            fill = v
        }
        if a.isUnique && rows > 1 && fill != nil {
            plan.blockers.append("\(entity).\(a.name) is new and unique, so \(rows) existing objects cannot all get \"\(fill!)\"")
        }
        if a.isRequired && fill == nil && rows > 0 {
            plan.blockers.append(.newRequired(attribute: "\(entity).\(a.name)", count: rows))
        }
        if let fill {
            additions.append((column, Self.literal(fill.databaseValue(for: a.type))))
            sources[a.name] = bound(fill.databaseValue(for: a.type))
        } else {
            if a.isRequired { rebuild = true } else { additions.append((column, "")) }
            sources[a.name] = "NULL"
        }
    }

    mutating func retype(_ entity: String, _ column: String, _ from: AttributeType, _ a: EntityAttribute) throws {
        let table = oldName(ofEntity: entity)
        var failures: [String] = []
        var count = 0
        let rows = try Row.fetchCursor(db, sql: "SELECT \"id\", \(quoted(column)) FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL ORDER BY \"id\"")
        var failed: Set<Int64> = []
        while let row = try rows.next() {
            let value = Value(databaseValue: row[1], as: from)
            if value.converted(to: a.type) == nil {
                count += 1
                failed.insert(row[0])
                if failures.count < 5 { failures.append("\"\(value)\" in \(entity)/\(row[0] as Int64)") }
            }
        }
        // Values `check` names, which every reader shows as something else: text holding a NUL (read up to it:
        // "1<NUL>2" converted to 1) and Booleans other than 0 and 1 (2 became 1). Not converted: the data is fixed
        // first (found by the attack on 0.7.0).
        var unreadable: [(Int64, String)] = []
        if from == .string {
            for row in try Row.fetchAll(db, sql: CheckSQL.sqlite.textWithNUL(table, column: column)) {
                let bytes = Data.fromDatabaseValue(row[1]) ?? Data()
                unreadable.append((row[0], String(decoding: bytes, as: UTF8.self).replacingOccurrences(of: "\u{0}", with: "<NUL>")))
            }
        } else if from == .boolean {
            for row in try Row.fetchAll(db, sql: CheckSQL.sqlite.otherBooleans(table, column: column)) { unreadable.append((row[0], "\(row[1] as DatabaseValue)")) }
        }
        for (id, shown) in unreadable.sorted(by: { $0.0 < $1.0 }) where !failed.contains(id) {
            count += 1
            if failures.count < 5 { failures.append("\"\(shown)\" in \(entity)/\(id), which no reader shows as stored") }
        }
        plan.dataLoss.append("change \(entity).\(a.name) from \(from) to \(a.type)")
        if count > 0 {
            plan.blockers.append("\(entity).\(a.name): \(count) value\(count == 1 ? " is" : "s are") not \(a.type) (\(failures.joined(separator: ", "))\(count > 5 ? ", …" : ""))")
        }
    }

    mutating func checkDuplicates(_ entity: String, _ attribute: String, column: String, table: String) throws {
        let rows = try Row.fetchAll(db, sql: """
            SELECT \(quoted(column)), COUNT(*), group_concat("id") FROM \(quoted(table)) WHERE \(quoted(column)) IS NOT NULL
            GROUP BY \(quoted(column)) HAVING COUNT(*) > 1 ORDER BY MIN("id") LIMIT 5
            """)
        for row in rows {
            let value: DatabaseValue = row[0]
            let ids = (row[2] as String).split(separator: ",").prefix(5).map { "\(entity)/\($0)" }.joined(separator: ", ")
            plan.blockers.append("\(entity).\(attribute) becomes unique, but \(row[1] as Int) objects share \(value) (\(ids))")
        }
        // Texts equal in another Unicode normal form (café typed precomposed and decomposed) are one key to every
        // command (a key matches in any normal form), though their bytes differ: a uniqueness over them would let an
        // import update one or the other by how the key is spelt (found by the attack on 0.7.0).
        var byForm: [String: [(id: Int64, text: String)]] = [:]
        let texts = try Row.fetchCursor(db, sql: BatchSQL.sqlite.nonASCIIKeys(column, in: table))
        while let row = try texts.next() {
            guard let text = row[0] as String? else { continue }
            byForm[TextNormalForm.nfc(text), default: []].append((row[1], text))
        }
        // (By bytes: Swift's String equality is canonical equivalence, under which the two are one.)
        var shared = byForm.values.filter { Set($0.map { Array($0.text.utf8) }).count > 1 }
        shared.sort { $0[0].id < $1[0].id }
        for group in shared.prefix(5) {
            let ids = group.prefix(5).map { "\(entity)/\($0.id)" }.joined(separator: ", ") + (group.count > 5 ? ", …" : "")
            plan.blockers.append(.data("\(entity).\(attribute) becomes unique, but \(group.count) objects share \"\(TextNormalForm.nfc(group[0].text))\" "
                                 + "in different Unicode normal forms, one key to every command (\(ids))"))
        }
    }

    func objectIDs(entity: String, where condition: String) throws -> (count: Int, ids: String) {
        let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(entity)) WHERE \(condition)") ?? 0
        let ids = try Int64.fetchAll(db, sql: "SELECT \"id\" FROM \(quoted(entity)) WHERE \(condition) ORDER BY \"id\" LIMIT 5")
        let newName = entityOrigin.first { $0.value == entity }?.key ?? entity
        let text = ids.map { "\(newName)/\($0)" }.joined(separator: ", ") + (count > 5 ? ", …" : "")
        return (count, text)
    }

    /// Drops indexes the model no longer wants and creates the ones it lacks (or whose definition changed).
    mutating func compareIndexes(_ table: TableSpec, renamedFrom oldTable: String) throws {
        let existing = try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                                        arguments: [oldTable])
        var present: [String: String] = [:]
        for row in existing { present[row[0]] = row[1] }
        for (name, sql) in present.sorted(by: { $0.key < $1.key }) {
            let wanted = table.indexes[name]
            if wanted == nil || Self.normalised(wanted!) != Self.normalised(sql.replacingOccurrences(of: quoted(oldTable), with: quoted(table.name))) {
                step("DROP INDEX \(quoted(name))")
                if wanted == nil, table.entity != nil { plan.changes.append("drop index \(name)") }
            }
        }
        for (name, sql) in table.indexes.sorted(by: { $0.key < $1.key }) {
            let current = present[name].map { Self.normalised($0.replacingOccurrences(of: quoted(oldTable), with: quoted(table.name))) }
            if current != Self.normalised(sql) {
                indexSteps.append(MigrationPlan.Step(sql: sql, arguments: []))
                if present[name] == nil { plan.changes.append("add index \(name)") }
            }
        }
    }

    // MARK: Join tables

    mutating func compareJoinTables(oldTables: [String: TableSpec], newTables: [TableSpec]) throws {
        var usedOld: Set<String> = []
        let start = plan.steps.count
        for table in newTables {
            // The relationship this join table stores, in the new model and (through renames) in the old one.
            let (ownColumn, otherColumn) = (table.columns[0], table.columns[1])
            guard case .link(let ownEntity) = ownColumn.role, case .link(let otherEntity) = otherColumn.role,
                  let entity = new.entity(named: ownEntity),
                  let r = entity.relationships.first(where: { r in
                      if case .joinTable(let t, _, _) = new.storage(of: r, in: entity) { return t == table.name }
                      return false
                  }) else { continue }
            let oldEntityName = oldName(ofEntity: ownEntity)
            let oldRelationshipName = oldName(ofProperty: r.name, in: ownEntity)
            if let oldEntity = old.entity(named: oldEntityName), let oldR = oldEntity.relationship(named: oldRelationshipName),
               case .joinTable(let oldTable, let oldOwn, let oldOther) = old.storage(of: oldR, in: oldEntity),
               oldR.destination == oldName(ofEntity: otherEntity), oldTables[oldTable] != nil {
                usedOld.insert(oldTable)
                if oldTable == table.name && oldOwn == ownColumn.name && oldOther == otherColumn.name {
                    try compareIndexes(table, renamedFrom: oldTable)
                    continue
                }
                let temporary = "_bk_new_\(table.name)"
                step(table.createSQL(as: temporary))
                step("INSERT INTO \(quoted(temporary)) (\(quoted(ownColumn.name)), \(quoted(otherColumn.name))) SELECT \(quoted(oldOwn)), \(quoted(oldOther)) FROM \(quoted(oldTable))")
                dropTable(oldTable)
                step("ALTER TABLE \(quoted(temporary)) RENAME TO \(quoted(table.name))")
                indexSteps += table.indexes.sorted { $0.key < $1.key }.map { MigrationPlan.Step(sql: $0.value, arguments: []) }
                plan.changes.append("rename the links of \(ownEntity).\(r.name)")
            } else {
                step(table.createSQL())
                indexSteps += table.indexes.sorted { $0.key < $1.key }.map { MigrationPlan.Step(sql: $0.value, arguments: []) }
                plan.changes.append("add relationship \(ownEntity).\(r.name) (many-to-many)")
            }
        }
        // The removed ones are dropped first: a new table may take a name SQLite cannot tell from theirs.
        let kept = Array(plan.steps[start...])
        plan.steps.removeSubrange(start...)
        for (name, _) in oldTables.sorted(by: { $0.key < $1.key }) where oldTables[name]!.entity == nil && !usedOld.contains(name) {
            let links = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(name))") ?? 0
            // A removed entity's join tables go with it; say so once, for the relationship.
            plan.dataLoss.append("remove many-to-many links \(name) (\(links) link\(links == 1 ? "" : "s"))")
            dropTable(name)
        }
        plan.steps += kept
    }

    // MARK: Helpers

    static func literal(_ v: DatabaseValue) -> String { MigrationPlanner.literal(v) }

    static func normalised(_ sql: String) -> String {
        sql.replacingOccurrences(of: " ", with: "").lowercased()
    }
}
