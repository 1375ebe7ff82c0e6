// SQLite's (SQL/SQLite/Schema): it relies on SQLite's TEMP schema, searched before the store's.
//
// A reader that cannot write a store the model file has moved ahead of (another user's store, read by cron
// jobs, after its owner changed the model) reads it as it is.
//
// Why this file exists: such a reader could not make the migration opening the store makes, and every reading
// command exited 65 (a data error) while `migrate` exited 73, and `check` said 65 with no problem listed. An
// additive migration adds only tables and columns, which reads can see without it: the connection gets, in its
// own TEMP schema (which a read-only connection may write, and which SQLite searches before the store's),
// an empty table for each new table and a view for each table that gains columns, giving the store's rows with
// the new columns as the migration would fill them (the model's default, else null). Nothing is written to the
// store or beside it. A change that is not additive (a rename, a retyped or removed property) cannot be read
// this way, and is refused as every command refuses it: `StoreError.needsMigratingReadOnly` (73).
//
// A change no table shows (a new or changed rule, a sort, a default) is pending like any other (attack 27,
// finding 4): before, such a reader's `list` said nothing, its `check` checked the rules of the model it could
// not record (20 "problems" for a rule that is not in force), and its writers said "the store is read-only"
// where `migrate` gave the one wording. It is read as it is with the note (the recorded rules, the new sort),
// `check` checks against the recorded model, and every writer gets the one wording.

import Foundation
import GRDB

extension Store {
    /// For a store this user cannot write that records another model: reads it as it is under this model when
    /// the change is additive and the command only reads (`writing` false), setting `readAsItIs`; else throws
    /// `needsMigratingReadOnly`. A change no table shows (a sort, a default, a rule) is such a change too, with
    /// nothing to overlay: its new rules are not in force until the owner migrates (`check` checks the recorded ones).
    func readWithoutMigrating(writing: Bool) throws {
        let plan = try migrationPlan()
        // Migrated meanwhile by its owner (or a hash that differs for a model that does not): read as it is.
        if plan.recordedHash == model.versionHash || (!plan.modelChanged && plan.steps.isEmpty && plan.isAutomatic) { return }
        guard !writing, plan.isAutomatic, plan.unknownNames.isEmpty else {
            throw StoreError.needsMigratingReadOnly(path: path)
        }
        if !plan.steps.isEmpty { try readSQLite { db in try overlayModel(db) } }
        readAsItIs = plan
    }

    /// Puts this model's tables and columns the store lacks into the connection's TEMP schema.
    private func overlayModel(_ db: Database) throws {
        let present = Set(try String.fetchAll(db, sql: "SELECT \"name\" FROM main.sqlite_master WHERE \"type\" = 'table'").map(ObjectModel.sqlFold))
        for table in SchemaBuilder.tables(for: model) {
            guard present.contains(ObjectModel.sqlFold(table.name)) else {
                // A new entity or many-to-many relationship: no objects, no links yet.
                let columns = table.columns.map { $0.role == .id ? "\"id\" INTEGER PRIMARY KEY" : quoted($0.name) }
                try db.execute(sql: "CREATE TEMP TABLE \(quoted(table.name)) (\(columns.joined(separator: ", ")))")
                continue
            }
            let stored = Set(try Row.fetchAll(db, sql: "PRAGMA main.table_info(\(quoted(table.name)))").map { ObjectModel.sqlFold($0["name"] as String) })
            let missing = table.columns.filter { !stored.contains(ObjectModel.sqlFold($0.name)) }
            guard !missing.isEmpty else { continue }
            let added = missing.map { "\(fill(of: $0)) AS \(quoted($0.name))" }
            try db.execute(sql: "CREATE TEMP VIEW \(quoted(table.name)) AS SELECT *, \(added.joined(separator: ", ")) FROM main.\(quoted(table.name))")
        }
    }

    /// The value an additive migration gives existing objects in a new column (`MigrationPlanner.addColumn`).
    private func fill(of column: ColumnSpec) -> String {
        guard case .attribute(let a) = column.role else { return "NULL" }
        let value: Value?
        switch a.defaultValue {
        case .value(let v)?: value = v
        case .today?: value = .date(Day.current())
        case .now?: value = .dateTime(RunMoment.now)
        default: value = nil
        }
        guard let stored = value?.databaseValue(for: a.type) else { return "NULL" }
        // As an SQL literal, as the migration writes its DEFAULT: a view cannot take parameters.
        return MigrationPlanner.literal(stored)
    }
}
