import Foundation

// PostgreSQL's migration planner (issue 31): the same decisions and the same words as SQLite's
// (SQL/SQLite/Schema/MigrationPlanner.swift) — what is additive, what loses data, what the data blocks — from the
// same comparison of the two models' tables (SchemaBuilder's TableSpecs), with PostgreSQL's own DDL: a column is
// added, dropped, renamed or constrained in place (ALTER TABLE), never by a table rebuild; a retyped column is a new
// column filled object by object with `Value.converted` — the very function SQLite's bk_convert calls, so each value
// converts exactly as on a store file — then put in the old one's place. PostgreSQL's DDL is transactional: the plan
// runs in one transaction (Store+PostgreSQLMigrate.swift), and a refusal anywhere leaves the books as they were.
//
// Step order: renames; the drops of join tables, keys and indexes the new model changes; each kept table's columns;
// the removed entities' tables; new tables; keys (every table exists by then); indexes.

enum PostgreSQLMigrationPlanner {
    static func plan(from old: ObjectModel, to new: ObjectModel, in db: any StorageConnection,
                     options: MigrationOptions) throws -> MigrationPlan {
        var planner = PostgreSQLPlanner(old: old, new: new, db: db, options: options)
        try planner.run()
        return planner.plan
    }

    // MARK: The per-object conversion (`MigrationPlan.Step.conversion`)

    private static let d = PostgreSQLDialect()
    private static func q(_ name: String) -> String { d.quote(name) }

    /// Up to parameter 2 objects of `table` after ID parameter 1, by ID: (ID, value of `column`).
    static func conversionBatch(table: String, column: String) -> String {
        "SELECT \(q("id")), \(q(column)) FROM \(q(table)) WHERE \(q("id")) > $1 AND \(q(column)) IS NOT NULL ORDER BY \(q("id")) LIMIT $2"
    }

    /// Sets `column` of the object with ID parameter 1 to parameter 2.
    static func conversionWrite(table: String, column: String) -> String {
        "UPDATE \(q(table)) SET \(q(column)) = $2 WHERE \(q("id")) = $1"
    }

    /// The ID and natural key (`key`, else NULL) of each object `fetch` (an objects query) gives. (CheckSQL's
    /// `objects(of:key:)` names no alias for its subquery, which PostgreSQL 15 requires.)
    static func ruleBreakers(of fetch: String, key: String?) -> String {
        "SELECT \(q("id")), \(key.map(q) ?? "NULL") FROM (\(fetch)) AS bk_objects"
    }

    /// The number of rows of `sql`.
    static func count(of sql: String) -> String { "SELECT count(*) FROM (\(sql)) AS bk_objects" }

    /// Taken first by a migration that changes the books: a command that opens them meanwhile waits at its read of
    /// the recorded model until the migration commits (or rolls back), then reads the model the tables have.
    static var lockRecordedModel: String { "LOCK TABLE \(q(Store.metaTable)) IN ACCESS EXCLUSIVE MODE" }

    /// The first step in error, as a blocker reads it: `PostgreSQL refuses the step …: …`.
    static func refusal(_ step: MigrationPlan.Step, _ message: String) -> MigrationPlan.Blocker {
        .data("PostgreSQL refuses the step \(step.sql): \(message)")
    }
}

/// The books' tables, keys and indexes a model wants, by name (PostgreSQLSchema.layout).
private struct PostgreSQLLayout {
    /// Constraint name → (table, the ALTER TABLE … ADD CONSTRAINT statement).
    var keys: [String: (table: String, sql: String)] = [:]
    /// Index name → (table, the CREATE INDEX statement).
    var indexes: [String: (table: String, sql: String)] = [:]
    /// Table → its CREATE TABLE statement.
    var creates: [String: String] = [:]

    init(_ model: ObjectModel) {
        let layout = PostgreSQLSchema.layout(for: model)
        for create in layout.creates { creates[create.table] = create.sql }
        for key in layout.keys { keys[key.name] = (key.table, key.sql) }
        for index in layout.indexes { indexes[index.name] = (index.table, index.sql) }
    }
}

private struct PostgreSQLPlanner {
    let old: ObjectModel
    let new: ObjectModel
    let db: any StorageConnection
    let options: MigrationOptions
    var plan = MigrationPlan()
    /// New entity name → old entity name.
    var entityOrigin: [String: String] = [:]
    /// `Entity.old` → `new` or `Entity.new`, as given.
    var propertyRenames: [String: String] = [:]

    let oldLayout: PostgreSQLLayout
    let newLayout: PostgreSQLLayout

    // The steps by phase (see the file's comment).
    var renameSteps: [MigrationPlan.Step] = []
    var dropSteps: [MigrationPlan.Step] = []
    var columnSteps: [MigrationPlan.Step] = []
    var removeSteps: [MigrationPlan.Step] = []
    var createSteps: [MigrationPlan.Step] = []
    var keySteps: [MigrationPlan.Step] = []
    var indexSteps: [MigrationPlan.Step] = []
    /// Keys and indexes already planned (by name), so that each is made once.
    var keysMade: Set<String> = []
    var indexesMade: Set<String> = []

    private static let d = PostgreSQLDialect()
    private func q(_ name: String) -> String { Self.d.quote(name) }

    init(old: ObjectModel, new: ObjectModel, db: any StorageConnection, options: MigrationOptions) {
        self.old = old
        self.new = new
        self.db = db
        self.options = options
        oldLayout = PostgreSQLLayout(old)
        newLayout = PostgreSQLLayout(new)
        for (from, to) in options.renames {
            if from.contains(".") { propertyRenames[from] = to } else { entityOrigin[to] = from }
        }
    }

    // MARK: Names (as SQLite's planner reads them)

    func oldName(ofEntity name: String) -> String { entityOrigin[name] ?? name }

    func oldName(ofProperty name: String, in entity: String) -> String {
        for (from, to) in propertyRenames where from.hasPrefix(entity + ".") && (to == name || to == "\(entity).\(name)") {
            return String(from.dropFirst(entity.count + 1))
        }
        return name
    }

    /// The renames and defaults given must name something (SQLite's planner's `checkNamesGiven`, the same words).
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

    // MARK: Steps

    static func step(_ sql: String, _ arguments: [StoredValue] = []) -> MigrationPlan.Step {
        MigrationPlan.Step(sql: sql, arguments: arguments)
    }

    func count(_ table: String, where condition: String? = nil) throws -> Int {
        try db.int("SELECT count(*) FROM \(q(table))" + (condition.map { " WHERE \($0)" } ?? "")) ?? 0
    }

    mutating func run() throws {
        plan.modelChanged = old.canonicalJSON != new.canonicalJSON
        let oldTables = Dictionary(uniqueKeysWithValues: SchemaBuilder.tables(for: old).map { ($0.name, $0) })
        let newTables = SchemaBuilder.tables(for: new)

        checkNamesGiven()
        // Renamed entities first, through a temporary name when the new one is an old table's (a swap).
        let entityRenames = entityOrigin.sorted(by: { $0.key < $1.key })
        let viaTemporary = entityRenames.contains { oldTables[$0.key] != nil }
        for (newName, oldName) in entityRenames {
            renameSteps.append(Self.step("ALTER TABLE \(q(oldName)) RENAME TO \(q(viaTemporary ? "_bk_rename_\(newName)" : newName))"))
            plan.changes.append("rename entity \(oldName) to \(newName)")
        }
        if viaTemporary {
            for (newName, _) in entityRenames { renameSteps.append(Self.step("ALTER TABLE \(q("_bk_rename_\(newName)")) RENAME TO \(q(newName))")) }
        }
        // The primary key takes the table's new name too, as `init` names it (through temporary names: a swap).
        for (newName, oldName) in entityRenames {
            renameSteps.append(Self.step("ALTER TABLE \(q(newName)) RENAME CONSTRAINT \(q("\(oldName)_pkey")) TO \(q("_bk_rename_\(newName)_pkey"))"))
        }
        for (newName, _) in entityRenames {
            renameSteps.append(Self.step("ALTER TABLE \(q(newName)) RENAME CONSTRAINT \(q("_bk_rename_\(newName)_pkey")) TO \(q("\(newName)_pkey"))"))
        }
        var removedTables: [String] = []
        for oldEntity in old.entities where !new.entities.contains(where: { oldName(ofEntity: $0.name) == oldEntity.name }) {
            let objects = try count(oldEntity.name)
            plan.dataLoss.append("remove entity \(oldEntity.name) (\(objects) object\(objects == 1 ? "" : "s"))")
            removedTables.append(oldEntity.name)
        }
        moveIDMarks(entityRenames)
        for table in newTables where table.entity != nil {
            let entity = new.entity(named: table.entity!)!
            let from = oldName(ofEntity: entity.name)
            guard let oldEntity = old.entity(named: from), let oldTable = oldTables[from] else {
                createSteps.append(Self.step(newLayout.creates[entity.name]!))
                makeKeysAndIndexes(ofTable: entity.name)
                plan.changes.append("add entity \(entity.name)")
                continue
            }
            try compare(oldTable, oldEntity, table, entity)
        }
        try compareJoinTables(oldTables: oldTables, newTables: newTables.filter { $0.entity == nil })
        if !removedTables.isEmpty {
            // One statement: removed tables that refer to each other go together.
            removeSteps.append(Self.step("DROP TABLE \(removedTables.map(q).joined(separator: ", "))"))
        }
        plan.steps = renameSteps + dropSteps + columnSteps + removeSteps + createSteps + keySteps + indexSteps
        compareRules()
    }

    /// The new model's keys and indexes of `table`, made after every table exists.
    mutating func makeKeysAndIndexes(ofTable table: String, only columns: Set<String>? = nil) {
        for (name, key) in newLayout.keys.sorted(by: { $0.key < $1.key }) where key.table == table && !keysMade.contains(name) {
            if let columns, !columns.contains(where: { key.sql.contains("FOREIGN KEY (\(q($0)))") }) { continue }
            keysMade.insert(name)
            keySteps.append(Self.step(key.sql))
        }
        for (name, index) in newLayout.indexes.sorted(by: { $0.key < $1.key }) where index.table == table && !indexesMade.contains(name) {
            if let columns, !columns.contains(where: { index.sql.contains("(\(q($0))") || index.sql.contains(", \(q($0)))") }) { continue }
            indexesMade.insert(name)
            indexSteps.append(Self.step(index.sql))
        }
    }

    /// The marks of deleted IDs follow their entities (as SQLite's planner moves them).
    mutating func moveIDMarks(_ entityRenames: [(key: String, value: String)]) {
        let meta = q(Store.metaTable)
        let removed = old.entities.filter { e in !new.entities.contains { oldName(ofEntity: $0.name) == e.name } }
        if !removed.isEmpty {
            removeSteps.append(Self.step("DELETE FROM \(meta) WHERE \(q("key")) IN (\(removed.indices.map { "$\($0 + 1)" }.joined(separator: ", ")))",
                                         removed.map { .text(Store.idMarkKey($0.name)) }))
        }
        for (_, oldName) in entityRenames {
            renameSteps.append(Self.step("UPDATE \(meta) SET \(q("key")) = $1 WHERE \(q("key")) = $2",
                                         [.text("_" + Store.idMarkKey(oldName)), .text(Store.idMarkKey(oldName))]))
        }
        for (newName, oldName) in entityRenames {
            renameSteps.append(Self.step("DELETE FROM \(meta) WHERE \(q("key")) = $1 AND EXISTS (SELECT 1 FROM \(meta) WHERE \(q("key")) = $2)",
                                         [.text(Store.idMarkKey(newName)), .text("_" + Store.idMarkKey(oldName))]))
            renameSteps.append(Self.step("UPDATE \(meta) SET \(q("key")) = $1 WHERE \(q("key")) = $2",
                                         [.text(Store.idMarkKey(newName)), .text("_" + Store.idMarkKey(oldName))]))
        }
    }

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
        // (Counted by the old name: the plan is made before any step runs.)
        let rows = try count(oldEntity.name)
        var used: Set<String> = ["id"]
        var renames: [(String, String)] = []
        var alters: [MigrationPlan.Step] = []
        /// Columns made again (retyped): their keys and indexes are made again after.
        var remade: Set<String> = []
        let t = q(name)
        /// Whether SQLite's planner rebuilds this table: it then names no index it adds or drops (the words match).
        var rebuild = false

        for column in table.columns {
            switch column.role {
            case .id, .link:
                continue
            case .attribute(let a):
                let from = oldName(ofProperty: a.name, in: name)
                guard let oldAttribute = oldEntity.attribute(named: from), let oldColumn = oldTable.column(named: from) else {
                    try addColumn(a, entity: name, rows: rows, into: &alters, rebuild: &rebuild)
                    continue
                }
                used.insert(from)
                if from != a.name {
                    renames.append((from, a.name))
                    plan.changes.append("rename attribute \(name).\(from) to \(a.name)")
                }
                var madeAgain = false
                if oldAttribute.type != a.type {
                    rebuild = true
                    try retype(name, table: oldEntity.name, from, oldAttribute.type, a)
                    let temporary = "_bk_new_\(a.name)"
                    alters.append(Self.step("ALTER TABLE \(t) ADD COLUMN \(q(temporary)) \(Self.d.columnType(a.type))"))
                    alters.append(MigrationPlan.Step(sql: PostgreSQLMigrationPlanner.conversionWrite(table: name, column: temporary), arguments: [],
                                                     conversion: .init(table: name, from: a.name, to: temporary, fromType: oldAttribute.type, toType: a.type)))
                    alters.append(Self.step("ALTER TABLE \(t) DROP COLUMN \(q(a.name))"))
                    alters.append(Self.step("ALTER TABLE \(t) RENAME COLUMN \(q(temporary)) TO \(q(a.name))"))
                    if a.type == .boolean { alters.append(Self.step("ALTER TABLE \(t) ADD CHECK (\(q(a.name)) IN (0, 1))")) }
                    remade.insert(a.name)
                    madeAgain = true
                }
                if a.isRequired && !oldColumn.isNotNull {
                    rebuild = true
                    let nulls = try objectIDs(entity: oldEntity.name, where: "\(q(from)) IS NULL")
                    if !nulls.ids.isEmpty {
                        if let text = options.defaults["\(name).\(a.name)"] {
                            do {
                                let v = try Value.parse(text, as: a.type)
                                alters.append(Self.step("UPDATE \(t) SET \(q(a.name)) = $1 WHERE \(q(a.name)) IS NULL", [v.storedValue(for: a.type)]))
                                plan.dataLoss.append("\(name).\(a.name) becomes required: \(nulls.count) object\(nulls.count == 1 ? "" : "s") without one get \"\(text)\"")
                            } catch {
                                plan.blockers.append(.unreadableDefault(attribute: "\(name).\(a.name)", value: text, reason: error.message))
                                continue
                            }
                        } else {
                            plan.blockers.append(.nowRequired(attribute: "\(name).\(a.name)", count: nulls.count, ids: "\(nulls.ids)"))
                        }
                    }
                    plan.changes.append("\(name).\(a.name) becomes required")
                    alters.append(Self.step("ALTER TABLE \(t) ALTER COLUMN \(q(a.name)) SET NOT NULL"))
                } else if !a.isRequired && oldColumn.isNotNull {
                    rebuild = true
                    plan.changes.append("\(name).\(a.name) becomes optional")
                    if !madeAgain { alters.append(Self.step("ALTER TABLE \(t) ALTER COLUMN \(q(a.name)) DROP NOT NULL")) }
                } else if a.isRequired && madeAgain {
                    alters.append(Self.step("ALTER TABLE \(t) ALTER COLUMN \(q(a.name)) SET NOT NULL"))
                }
                if (a.isUnique || a.name == entity.naturalKey) && !(oldAttribute.isUnique || oldAttribute.name == oldEntity.naturalKey) {
                    try checkDuplicates(name, a.name, column: from, table: oldEntity.name)
                    plan.changes.append("\(name).\(a.name) becomes unique")
                }
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
                                                       oldDestination: oldRelationship.destination, required: column.isNotNull, into: &alters)
                        }
                        if column.isNotNull && !oldColumn.isNotNull {
                            let nulls = try objectIDs(entity: oldEntity.name, where: "\(q(oldColumnName)) IS NULL")
                            if !nulls.ids.isEmpty {
                                plan.blockers.append("\(name).\(r.name) is now required, but \(nulls.count) object\(nulls.count == 1 ? " has" : "s have") none (\(nulls.ids))")
                            }
                            alters.append(Self.step("ALTER TABLE \(t) ALTER COLUMN \(q(column.name)) SET NOT NULL"))
                        } else if !column.isNotNull && oldColumn.isNotNull {
                            alters.append(Self.step("ALTER TABLE \(t) ALTER COLUMN \(q(column.name)) DROP NOT NULL"))
                        }
                        // (Its key, when the action changed, is dropped and made again by compareIndexes.)
                        plan.changes.append("\(name).\(r.name) changes its constraints")
                    }
                } else {
                    plan.changes.append("add relationship \(name).\(r.name)")
                    if column.isNotNull { rebuild = true }
                    if column.isNotNull && rows > 0 {
                        plan.blockers.append("\(name).\(r.name) is new and required, but \(rows) existing object\(rows == 1 ? "" : "s") would have none")
                    }
                    alters.append(Self.step("ALTER TABLE \(t) ADD COLUMN \(q(column.name)) bigint\(column.isNotNull ? " NOT NULL" : "")"))
                }
            }
        }
        for oldColumn in oldTable.columns where !used.contains(oldColumn.name) {
            rebuild = true
            let values = try db.int("SELECT count(\(q(oldColumn.name))) FROM \(q(oldEntity.name))") ?? 0
            let what: String
            switch oldColumn.role {
            case .foreignKey(let r): what = "relationship \(name).\(r.name)"
            default: what = "attribute \(name).\(oldColumn.name)"
            }
            plan.dataLoss.append("remove \(what) (\(values) value\(values == 1 ? "" : "s"))")
            // (Its key and indexes go with it.)
            alters.insert(Self.step("ALTER TABLE \(t) DROP COLUMN \(q(oldColumn.name))"), at: 0)
        }
        // Renamed columns through temporary names when a new name is an old column's (a swap).
        let oldColumns = Set(oldTable.columns.map(\.name))
        if renames.contains(where: { oldColumns.contains($0.1) }) {
            for (from, to) in renames { renameSteps.append(Self.step("ALTER TABLE \(t) RENAME COLUMN \(q(from)) TO \(q("_bk_rename_\(to)"))")) }
            for (_, to) in renames { renameSteps.append(Self.step("ALTER TABLE \(t) RENAME COLUMN \(q("_bk_rename_\(to)")) TO \(q(to))")) }
        } else {
            for (from, to) in renames { renameSteps.append(Self.step("ALTER TABLE \(t) RENAME COLUMN \(q(from)) TO \(q(to))")) }
        }
        // A Boolean column's check, named by its table and column as `init` names it, follows their renames.
        for a in entity.attributes where a.type == .boolean && !remade.contains(a.name) {
            let from = oldName(ofProperty: a.name, in: name)
            guard oldEntity.attribute(named: from)?.type == .boolean, oldEntity.name != name || from != a.name else { continue }
            renameSteps.append(Self.step("ALTER TABLE \(t) RENAME CONSTRAINT \(q("\(oldEntity.name)_\(from)_check")) TO \(q("\(name)_\(a.name)_check"))"))
        }
        columnSteps += alters
        compareIndexes(oldTable: oldEntity.name, table: name, words: !rebuild, remade: remade)
    }

    /// A column the old table lacks: added, filled with the model's default (or the one given), then required.
    mutating func addColumn(_ a: EntityAttribute, entity: String, rows: Int, into alters: inout [MigrationPlan.Step], rebuild: inout Bool) throws {
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
        if fill == nil && a.isRequired { rebuild = true }
        let t = q(entity)
        alters.append(Self.step("ALTER TABLE \(t) ADD COLUMN \(q(a.name)) \(Self.d.columnType(a.type))"
                                + (a.type == .boolean ? " CHECK (\(q(a.name)) IN (0, 1))" : "")))
        if let fill, rows > 0 {
            alters.append(Self.step("UPDATE \(t) SET \(q(a.name)) = $1", [fill.storedValue(for: a.type)]))
        }
        if a.isRequired { alters.append(Self.step("ALTER TABLE \(t) ALTER COLUMN \(q(a.name)) SET NOT NULL")) }
    }

    /// A retyped attribute: data loss, blocked while a stored value does not convert (SQLite's words). (Text on
    /// PostgreSQL holds no NUL, and a Boolean column only 0 and 1: the values SQLite's planner also names here
    /// cannot be stored.)
    mutating func retype(_ entity: String, table: String, _ column: String, _ from: AttributeType, _ a: EntityAttribute) throws {
        var failures: [String] = []
        var count = 0
        var after: Int64 = .min
        while true {
            let rows = try db.rows(PostgreSQLMigrationPlanner.conversionBatch(table: table, column: column), [.integer(after), .integer(1000)])
            for row in rows {
                let id = row.int64(0) ?? 0
                let value = Value(stored: row[1], as: from)
                if value.converted(to: a.type) == nil {
                    count += 1
                    if failures.count < 5 { failures.append("\"\(value)\" in \(entity)/\(id)") }
                }
                after = id
            }
            if rows.count < 1000 { break }
        }
        plan.dataLoss.append("change \(entity).\(a.name) from \(from) to \(a.type)")
        if count > 0 {
            plan.blockers.append("\(entity).\(a.name): \(count) value\(count == 1 ? " is" : "s are") not \(a.type) (\(failures.joined(separator: ", "))\(count > 5 ? ", …" : ""))")
        }
    }

    mutating func checkDuplicates(_ entity: String, _ attribute: String, column: String, table: String) throws {
        let rows = try db.rows("""
            SELECT \(q(column)), count(*), string_agg(\(q("id"))::text, ',' ORDER BY \(q("id"))) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL
            GROUP BY \(q(column)) HAVING count(*) > 1 ORDER BY min(\(q("id"))) LIMIT 5
            """)
        for row in rows {
            let ids = (row.string(2) ?? "").split(separator: ",").prefix(5).map { "\(entity)/\($0)" }.joined(separator: ", ")
            plan.blockers.append("\(entity).\(attribute) becomes unique, but \(row.int(1) ?? 0) objects share \(row[0]) (\(ids))")
        }
        // Texts equal in another Unicode normal form are one key to every command (SQLite's planner's words).
        var byForm: [String: [(id: Int64, text: String)]] = [:]
        for row in try db.rows(BatchSQL(Self.d).nonASCIIKeys(column, in: table)) {
            guard let text = row.string(0) else { continue }
            byForm[TextNormalForm.nfc(text), default: []].append((row.int64(1) ?? 0, text))
        }
        var shared = byForm.values.filter { Set($0.map { Array($0.text.utf8) }).count > 1 }
        shared.sort { $0[0].id < $1[0].id }
        for group in shared.prefix(5) {
            let ids = group.prefix(5).map { "\(entity)/\($0.id)" }.joined(separator: ", ") + (group.count > 5 ? ", …" : "")
            plan.blockers.append(.data("\(entity).\(attribute) becomes unique, but \(group.count) objects share \"\(TextNormalForm.nfc(group[0].text))\" "
                                 + "in different Unicode normal forms, one key to every command (\(ids))"))
        }
    }

    func objectIDs(entity: String, where condition: String) throws -> (count: Int, ids: String) {
        let total = try count(entity, where: condition)
        let ids = try db.rows("SELECT \(q("id")) FROM \(q(entity)) WHERE \(condition) ORDER BY \(q("id")) LIMIT 5").compactMap { $0.int64(0) }
        let newName = entityOrigin.first { $0.value == entity }?.key ?? entity
        let text = ids.map { "\(newName)/\($0)" }.joined(separator: ", ") + (total > 5 ? ", …" : "")
        return (total, text)
    }

    /// References a No Action delete left, cleared before a key is added over them (SQLite's planner's words).
    mutating func clearDeletedReferences(_ entity: String, _ r: EntityRelationship, column: String, table: String,
                                         oldDestination: String, required: Bool, into alters: inout [MigrationPlan.Step]) throws {
        let highest = try Store.highestHandedOutID(db, entity: oldDestination)
        func deleted(_ destination: String) -> String {
            "\(q(column)) BETWEEN 1 AND \(highest) AND \(q(column)) NOT IN (SELECT \(q("id")) FROM \(q(destination)))"
        }
        let total = try count(table, where: deleted(oldDestination))
        guard total > 0 else { return }
        let first = try db.rows("SELECT \(q("id")), \(q(column)) FROM \(q(table)) WHERE \(deleted(oldDestination)) ORDER BY \(q("id")) LIMIT 5")
        let named = first.map { "\(entity)/\($0.int64(0) ?? 0).\(r.name) (was \(r.destination)/\($0.int64(1) ?? 0))" }.joined(separator: ", ")
            + (total > 5 ? ", …" : "")
        if required {
            plan.blockers.append(.data("\(entity).\(r.name) is required, but \(total) object\(total == 1 ? " refers" : "s refer") to a deleted "
                                 + "\(r.destination): \(named) — set \(total == 1 ? "it" : "them") to another \(r.destination)"))
            return
        }
        plan.changes.append("clear \(total) reference\(total == 1 ? " to a deleted object" : "s to deleted objects"): \(named)")
        alters.insert(Self.step("UPDATE \(q(entity)) SET \(q(column)) = NULL WHERE \(deleted(r.destination))"), at: 0)
    }

    /// Drops the old model's indexes (and keys) of the table that the new one does not want as they are, and makes
    /// the ones it lacks; `remade`: columns made again or renamed, whose keys and indexes are made again.
    /// The words are SQLite's: `drop index …` for an entity's table, `add index …`.
    mutating func compareIndexes(oldTable: String, table: String, words: Bool, joinTable: Bool = false, remade: Set<String>) {
        func normalised(_ sql: String) -> String { sql.replacingOccurrences(of: " ", with: "").lowercased() }
        let present = oldLayout.indexes.filter { $0.value.table == oldTable }
        let wanted = newLayout.indexes.filter { $0.value.table == table }
        for (name, index) in present.sorted(by: { $0.key < $1.key }) {
            let renamed = index.sql.replacingOccurrences(of: " ON \(q(oldTable)) ", with: " ON \(q(table)) ")
            if let w = wanted[name], normalised(w.sql) == normalised(renamed) { continue }
            dropSteps.append(Self.step("DROP INDEX IF EXISTS \(q(name))"))
            if wanted[name] == nil, words, !joinTable { plan.changes.append("drop index \(name)") }
        }
        for (name, index) in wanted.sorted(by: { $0.key < $1.key }) {
            let current = present[name].map { normalised($0.sql.replacingOccurrences(of: " ON \(q(oldTable)) ", with: " ON \(q(table)) ")) }
            if current != normalised(index.sql) {
                indexesMade.insert(name)
                indexSteps.append(Self.step(index.sql))
                if present[name] == nil, words { plan.changes.append("add index \(name)") }
            }
        }
        // The keys: an old one the new model does not want as it is (a changed action, a renamed table or column,
        // a renamed destination) is dropped, while the columns are changed, and the new one made after.
        func renamed(_ sql: String) -> String { sql.replacingOccurrences(of: "ALTER TABLE \(q(oldTable)) ", with: "ALTER TABLE \(q(table)) ") }
        let presentKeys = oldLayout.keys.filter { $0.value.table == oldTable }
        let wantedKeys = newLayout.keys.filter { $0.value.table == table }
        for (name, key) in presentKeys.sorted(by: { $0.key < $1.key }) where wantedKeys[name]?.sql != renamed(key.sql) {
            // (Renames run first: the table has its new name by then. A dropped column's key is gone with it.)
            dropSteps.append(Self.step("ALTER TABLE \(q(table)) DROP CONSTRAINT IF EXISTS \(q(name))"))
        }
        for (name, key) in wantedKeys.sorted(by: { $0.key < $1.key }) where !keysMade.contains(name) && presentKeys[name].map({ renamed($0.sql) }) != key.sql {
            keysMade.insert(name)
            keySteps.append(Self.step(key.sql))
        }
        makeKeysAndIndexes(ofTable: table, only: remade)
    }

    // MARK: Join tables

    mutating func compareJoinTables(oldTables: [String: TableSpec], newTables: [TableSpec]) throws {
        var usedOld: Set<String> = []
        var words: [String] = []
        for table in newTables {
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
                    compareIndexes(oldTable: oldTable, table: table.name, words: true, joinTable: true, remade: [])
                    continue
                }
                // Made anew under its new name (a temporary one when it keeps its name), the links copied.
                let temporary = "_bk_new_\(table.name)"
                let create = newLayout.creates[table.name]!
                createSteps.append(Self.step(create.replacingOccurrences(of: "CREATE TABLE \(q(table.name)) ", with: "CREATE TABLE \(q(temporary)) ")))
                createSteps.append(Self.step("INSERT INTO \(q(temporary)) (\(q(ownColumn.name)), \(q(otherColumn.name))) SELECT \(q(oldOwn)), \(q(oldOther)) FROM \(q(oldTable))"))
                createSteps.append(Self.step("DROP TABLE \(q(oldTable))"))
                createSteps.append(Self.step("ALTER TABLE \(q(temporary)) RENAME TO \(q(table.name))"))
                makeKeysAndIndexes(ofTable: table.name)
                words.append("rename the links of \(ownEntity).\(r.name)")
            } else {
                createSteps.append(Self.step(newLayout.creates[table.name]!))
                makeKeysAndIndexes(ofTable: table.name)
                words.append("add relationship \(ownEntity).\(r.name) (many-to-many)")
            }
        }
        for (name, _) in oldTables.sorted(by: { $0.key < $1.key }) where oldTables[name]!.entity == nil && !usedOld.contains(name) {
            let links = try count(name)
            plan.dataLoss.append("remove many-to-many links \(name) (\(links) link\(links == 1 ? "" : "s"))")
            dropSteps.append(Self.step("DROP TABLE \(q(name))"))
        }
        plan.changes += words
    }
}
