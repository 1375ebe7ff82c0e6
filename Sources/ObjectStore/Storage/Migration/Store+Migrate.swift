import FileOutput
import Foundation
import GRDB

/// What a migration did.
public struct MigrationResult: Sendable {
    public let plan: MigrationPlan
    /// The copy of the store taken before migrating, beside it.
    public let backupPath: String?
}

extension Store {
    /// The model the store was written with, as recorded in its metadata.
    public func recordedModel() throws -> Model {
        let text = try read { db in
            try String.fetchOne(db, sql: "SELECT \"value\" FROM \(quoted(Store.metaTable)) WHERE \"key\" = 'model'")
        }
        guard let text, let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
            throw StoreError.notAStore(path: path, reason: "its recorded model is missing or unreadable")
        }
        return try Model(jsonObject: json, behaviours: model.behaviours)
    }

    /// Closes the connection now: at the end of a command that failed, one left open left the -wal and -shm files
    /// beside the store.
    public func closeConnection() {
        try? queue.close()
    }

    /// The plan that would bring the store to the current model.
    public func migrationPlan(_ options: MigrationOptions = MigrationOptions()) throws -> MigrationPlan {
        let recorded = try recordedModel()
        return try read { db in try MigrationPlanner.plan(from: recorded, to: model, in: db, options: options) }
    }

    /// Applies a plan in one transaction after copying the store beside itself; the store is either fully
    /// migrated or exactly as it was. What only running the steps shows (SQLite refusing a statement, broken
    /// references, objects that break a new rule) refuses it as `rehearse` finds it, with a `MigrationError`, and the
    /// copy made for it is removed: a migration that cannot be made leaves nothing behind.
    @discardableResult
    public func applyMigration(_ plan: MigrationPlan, options: MigrationOptions = MigrationOptions(), backup: Bool = true) throws -> MigrationResult {
        let backupPath = backup && !plan.steps.isEmpty ? try makeBackup(suffix: "before-migration") : nil
        var committing = false
        var applied = plan
        do {
            try mapErrors { try queue.inDatabase { db in
                try db.execute(sql: "PRAGMA foreign_keys = OFF")
                defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
                defer { if committing { CommitProgress.finish(committed: false) } }
                var migrated: SchemaCheckpoint?
                try db.inTransaction(.immediate) {
                    try confirmSchemaUnchanged(db)
                    beginActivity()
                    defer { endActivity() }
                    let found = try runSteps(plan, db)
                    applied = found
                    // (What the plan said before it ran — data loss — the caller has accepted or refused.)
                    guard found.blockers.isEmpty && (found.brokenRules.isEmpty || options.allowBrokenRules) else {
                        throw MigrationError(path: path, plan: found, reason: found.blockers.isEmpty
                                             ? "existing objects break the model's new rules, so the store was not migrated"
                                             : "the migration cannot be made as planned, so the store was not migrated")
                    }
                    try recordModel(db)
                    // The schema is now the model's, changed by this transaction alone (it holds the write lock).
                    migrated = SchemaCheckpoint(version: try Store.schemaVersion(db), model: model)
                    CommitProgress.beginCommit()
                    committing = true
                    return .commit
                }
                committing = false
                CommitProgress.finish(committed: true)
                if let migrated { schemaCheckpoint = migrated }
            } }
        } catch {
            // Rolled back before its commit began: the store is as the copy has it, which is not needed.
            if !committing, let backupPath { try? FileManager.default.removeItem(atPath: backupPath) }
            throw error
        }
        let result = MigrationResult(plan: applied, backupPath: backupPath)
        // What opening the store migrated: its schema (a rule alone changes only the recorded model).
        if !plan.steps.isEmpty { migration = result }
        return result
    }

    /// Runs the plan in a transaction that is always rolled back, and returns it with what only running it shows:
    /// a statement SQLite refuses (a name it takes for another), references it would break, the objects that break
    /// a rule the model adds. Nothing is written (a dry run's verdict is the real run's).
    public func rehearse(_ plan: MigrationPlan) throws -> MigrationPlan {
        var found = plan
        try mapErrors { try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            try db.inTransaction(.immediate) {
                try confirmSchemaUnchanged(db)
                beginActivity()
                defer { endActivity() }
                found = try runSteps(plan, db)
                return .rollback
            }
        } }
        return found
    }

    /// Runs the steps (inside the caller's transaction, foreign keys off), then checks the references and the
    /// new rules; returns the plan with what it found. A statement SQLite refuses ends it.
    func runSteps(_ plan: MigrationPlan, _ db: Database) throws -> MigrationPlan {
        var found = plan
        for step in plan.steps {
            do {
                try db.execute(sql: step.sql, arguments: StatementArguments(step.arguments))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR || error.resultCode == .SQLITE_CONSTRAINT {
                found.blockers.append("SQLite refuses the step \(step.sql): \(error.message ?? "\(error.resultCode)")")
                return found
            }
        }
        let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
        if let first = broken.first {
            found.blockers.append("the migration would leave \(broken.count) broken reference\(broken.count == 1 ? "" : "s") (first in table \(first[0] as String), row \(first[1] as Int64? ?? 0))")
        }
        let ruled = plan.newRules.sorted { $0.key < $1.key }.compactMap { name, rules -> Entity? in
            guard var entity = model.entity(named: name) else { return nil }
            entity.rules = rules
            return entity
        }
        if !ruled.isEmpty {
            found.brokenRules = try ruleViolations(db, limit: 5, entities: ruled, counting: true)
        }
        return found
    }

    /// Brings a store written with another model up to date when that is safe, or says why not.
    func reconcile(meta: [String: String], migrate: Bool) throws {
        let plan = try migrationPlan()
        if plan.steps.isEmpty && plan.isAutomatic && (isReadOnly || plan.newRules.isEmpty) {
            // Nothing in the schema changed (sorts, defaults, delete rules), and no rule was added that existing
            // objects must be checked against: just record the model.
            if !isReadOnly { try write { db in try recordModel(db) } }
            return
        }
        if isReadOnly {
            throw MigrationError(path: path, plan: plan, reason: "the store was written with another model and needs migrating, but it is opened read-only")
        }
        guard migrate else {
            throw MigrationError(path: path, plan: plan, reason: "the store was written with another model; run `bookkeeper migrate`")
        }
        guard plan.isAutomatic else {
            throw MigrationError(path: path, plan: plan, reason: "the model changed in ways that could lose data, so the store was not migrated")
        }
        try applyMigration(plan)
    }

    /// What a dry run does where `reconcile` migrates: the same refusals, and the plan the real run would carry out
    /// first, run and rolled back (`rehearse`); the store is not changed. Nil when there is nothing to migrate.
    func plannedMigration(meta: [String: String], migrate: Bool) throws -> MigrationPlan? {
        let plan = try migrationPlan()
        if plan.steps.isEmpty && plan.newRules.isEmpty && plan.isAutomatic { return nil }
        if isReadOnly {
            throw MigrationError(path: path, plan: plan, reason: "the store was written with another model and needs migrating, but it is opened read-only")
        }
        guard migrate else {
            throw MigrationError(path: path, plan: plan, reason: "the store was written with another model; run `bookkeeper migrate`")
        }
        guard plan.isAutomatic else {
            throw MigrationError(path: path, plan: plan, reason: "the model changed in ways that could lose data, so the store was not migrated")
        }
        let found = try rehearse(plan)
        guard found.isAutomatic else {
            throw MigrationError(path: path, plan: found, reason: found.blockers.isEmpty
                                 ? "existing objects break the model's new rules, so the store was not migrated"
                                 : "the migration cannot be made as planned, so the store was not migrated")
        }
        return found
    }

    private func recordModel(_ db: Database) throws {
        for (key, value) in [("model_hash", model.versionHash), ("model", model.canonicalJSON), ("migrated_at", Timestamp.now().description)] {
            try db.execute(sql: "INSERT OR REPLACE INTO \(quoted(Store.metaTable)) (\"key\", \"value\") VALUES (?, ?)", arguments: [key, value])
        }
    }

    /// A consistent copy of the store beside it (SQLite's online backup), named `<store>.<suffix>-<UTC time>`.
    public func makeBackup(suffix: String) throws -> String {
        let stamp = Timestamp.now().description.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        var target = "\(path).\(suffix)-\(stamp)"
        var n = 1
        while FileManager.default.fileExists(atPath: target) { n += 1; target = "\(path).\(suffix)-\(stamp)-\(n)" }
        // Through the one output module: assembled under a temporary name and put in place only when whole.
        let file = try OutputFile(path: target, assembledAtPath: true)
        do {
            let destination = try DatabaseQueue(path: file.assemblyPath!)
            try queue.backup(to: destination)
            try destination.close()
            try file.commit()
        } catch {
            file.discard()
            throw StoreError.cannotCreate(path: target, reason: "backup copy failed: \(error)")
        }
        return target
    }
}
