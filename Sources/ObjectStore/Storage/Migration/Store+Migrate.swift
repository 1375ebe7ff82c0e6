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

    /// The plan that would bring the store to the current model.
    public func migrationPlan(_ options: MigrationOptions = MigrationOptions()) throws -> MigrationPlan {
        let recorded = try recordedModel()
        return try read { db in try MigrationPlanner.plan(from: recorded, to: model, in: db, options: options) }
    }

    /// Applies a plan in one transaction after copying the store beside itself; the store is either fully
    /// migrated or exactly as it was.
    @discardableResult
    public func applyMigration(_ plan: MigrationPlan, backup: Bool = true) throws -> MigrationResult {
        let backupPath = backup && !plan.steps.isEmpty ? try makeBackup(suffix: "before-migration") : nil
        try mapErrors { try queue.inDatabase { db in
            try db.execute(sql: "PRAGMA foreign_keys = OFF")
            defer { try? db.execute(sql: "PRAGMA foreign_keys = ON") }
            var committing = false
            defer { if committing { CommitProgress.finish(committed: false) } }
            var migrated: SchemaCheckpoint?
            try db.inTransaction(.immediate) {
                try confirmSchemaUnchanged(db)
                beginActivity()
                defer { endActivity() }
                for step in plan.steps {
                    try db.execute(sql: step.sql, arguments: StatementArguments(step.arguments))
                }
                let broken = try Row.fetchAll(db, sql: "PRAGMA foreign_key_check")
                if let first = broken.first {
                    throw StoreError.sqlite("\(path): the migration would leave \(broken.count) broken reference\(broken.count == 1 ? "" : "s") (first in table \(first[0] as String), row \(first[1] as Int64? ?? 0)); nothing was changed")
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
        let result = MigrationResult(plan: plan, backupPath: backupPath)
        migration = result
        return result
    }

    /// Brings a store written with another model up to date when that is safe, or says why not.
    func reconcile(meta: [String: String], migrate: Bool) throws {
        let plan = try migrationPlan()
        if plan.steps.isEmpty && plan.isAutomatic {
            // Nothing in the schema changed (rules, sorts, defaults): just record the model.
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
        // A name with an SQLite companion beside it is taken too: SQLite would read the companion with the copy.
        while Store.nameIsTaken(target) { n += 1; target = "\(path).\(suffix)-\(stamp)-\(n)" }
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
