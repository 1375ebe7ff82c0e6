import FileOutput
import Foundation
import GRDB

/// What a migration did.
package struct MigrationResult: Sendable {
    package let plan: MigrationPlan
    /// The copy of the store taken before migrating, beside it.
    package let backupPath: String?
}

extension Store {
    /// The model the store was written with, as recorded in its metadata.
    package func recordedModel() throws -> ObjectModel {
        try readSQLite { db in try recordedModel(db) }
    }

    func recordedModel(_ db: Database) throws -> ObjectModel {
        let text = try String.fetchOne(db, sql: StoreSQL.sqlite.metaValue(Store.metaTable), arguments: ["model"])
        guard let text, let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)) else {
            throw StoreError.notAStore(path: path, reason: "its recorded model is missing or unreadable")
        }
        return try ObjectModel(jsonObject: json, behaviours: model.behaviours)
    }

    /// Closes the connection now: at the end of a command that failed, one left open left the -wal and -shm files
    /// beside the store.
    package func closeConnection() {
        if let books {
            books.connection.close()
            return
        }
        try? closeQueue()
    }

    /// Closes the connection, after the statements kept on it (SQLite will not close a connection that has some).
    func closeQueue() throws {
        try storage.finalizeStatements()
        try queue.close()
    }

    /// The hash of the model the store records now.
    static func recordedHash(_ db: Database) throws -> String? {
        try String.fetchOne(db, sql: StoreSQL.sqlite.metaValue(metaTable), arguments: ["model_hash"])
    }

    /// The plan that would bring the store to the current model, made from one state of the store (the recorded
    /// model and the schema read in one transaction).
    package func migrationPlan(_ options: MigrationOptions = MigrationOptions()) throws -> MigrationPlan {
        try readSQLite { db in
            func plan() throws -> MigrationPlan {
                var plan = try MigrationPlanner.plan(from: try recordedModel(db), to: model, in: db, options: options)
                plan.recordedHash = try Store.recordedHash(db)
                return plan
            }
            if db.isInsideTransaction { return try plan() }
            var made: MigrationPlan?
            try db.inTransaction(.deferred) {
                made = try plan()
                return .commit
            }
            return made!
        }
    }

    /// Applies a plan in one transaction after copying the store beside itself; the store is either fully
    /// migrated or exactly as it was.
    ///
    /// Whether to migrate is decided again under the write lock: when the store no longer records the model the
    /// plan was made from — another process migrated it while this one planned or waited for the lock (jobs started
    /// together after the model file changed) — nothing is done, no backup made, and nil returned, for the caller
    /// to plan again; if the store is now at this model, it is used as it is. Before, every job that started at
    /// once migrated again and all but one failed with "duplicate column name" (74).
    ///
    /// What only running the steps shows (SQLite refusing a statement, broken references, objects that break a new
    /// rule) refuses it as `rehearse` finds it, with a `MigrationError`; the copy made for it is then removed: a
    /// migration that cannot be made leaves nothing behind. (Data loss the caller has accepted or refused before.)
    @discardableResult
    package func applyMigration(_ plan: MigrationPlan, options: MigrationOptions = MigrationOptions(),
                               backup: Bool = true) throws -> MigrationResult? {
        var backupPath: String?
        var applied = false
        var found = plan
        var committing = false
        do { try mapErrors { try queue.inDatabase { db in
            try db.execute(sql: BatchSQL.sqlite.foreignKeys(on: false))
            defer { try? db.execute(sql: BatchSQL.sqlite.foreignKeys(on: true)) }
            defer { if committing { CommitProgress.finish(committed: false) } }
            var migrated: SchemaCheckpoint?
            try db.inTransaction(.immediate) {
                if let expected = plan.recordedHash, let now = try Store.recordedHash(db), now != expected {
                    if now == model.versionHash { migrated = try checkpointAtModel(db) }
                    return .rollback
                }
                try confirmSchemaUnchanged(db)
                beginActivity()
                defer { endActivity() }
                // Copied while this transaction holds the write lock and has changed nothing: the copy is exactly the
                // store this migration starts from, and only the process that migrates makes one.
                if backup && !plan.steps.isEmpty { backupPath = try makeLockedBackup(suffix: "before-migration") }
                found = try runSteps(plan, db)
                guard found.blockers.isEmpty && (found.brokenRules.isEmpty || options.allowBrokenRules) else {
                    throw MigrationError(path: path, plan: found, reason: found.blockers.isEmpty
                                         ? "existing objects break the model's new rules, so the store was not migrated"
                                         : "the migration cannot be made as planned, so the store was not migrated")
                }
                try recordModel(db)
                // The schema is now the model's, changed by this transaction alone (it holds the write lock).
                migrated = SchemaCheckpoint(version: try Store.schemaVersion(db), model: model, recordedHash: model.versionHash)
                applied = true
                CommitProgress.beginCommit()
                committing = true
                return .commit
            }
            if applied {
                committing = false
                CommitProgress.finish(committed: true)
            }
            if let migrated { schemaCheckpoint = migrated }
        } } } catch {
            // Rolled back before its commit began: the store is as the copy has it, which is not needed.
            if !committing, let backupPath { try? FileManager.default.removeItem(atPath: backupPath) }
            throw error
        }
        guard applied else { return nil }
        let result = MigrationResult(plan: found, backupPath: backupPath)
        // What opening the store migrated, said on stderr: its schema, or only the recorded model (a new rule the
        // data keeps), which is a write too.
        migration = result
        return result
    }

    /// Runs the plan in a transaction that is always rolled back, and returns it with what only running it shows:
    /// a statement SQLite refuses (a name it takes for another), references it would break, the objects that break
    /// a rule the model adds. Nothing is written (a dry run's verdict is the real run's).
    ///
    /// Nil, as from `applyMigration`, when under the write lock the store no longer records the model the plan was
    /// made from: another process migrated it while this one planned or waited for the lock, and the caller plans
    /// again from the store as it is now. Before, the dry run ran the old plan's steps on the migrated store and
    /// called it blocked ("duplicate column name", 65) where the real run in the same race found it migrated (0).
    package func rehearse(_ plan: MigrationPlan) throws -> MigrationPlan? {
        var found: MigrationPlan? = plan
        try mapErrors { try queue.inDatabase { db in
            try db.execute(sql: BatchSQL.sqlite.foreignKeys(on: false))
            defer { try? db.execute(sql: BatchSQL.sqlite.foreignKeys(on: true)) }
            try db.inTransaction(.immediate) {
                if let expected = plan.recordedHash, let now = try Store.recordedHash(db), now != expected {
                    found = nil
                    return .rollback
                }
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
                try db.execute(sql: step.sql, arguments: StatementArguments(step.arguments.map(\.databaseValue)))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_ERROR || error.resultCode == .SQLITE_CONSTRAINT {
                found.blockers.append("SQLite refuses the step \(step.sql): \(error.message ?? "\(error.resultCode)")")
                return found
            }
        }
        let broken = try Row.fetchAll(db, sql: BatchSQL.sqlite.foreignKeyCheck)
        if let first = broken.first {
            found.blockers.append("the migration would leave \(broken.count) broken reference\(broken.count == 1 ? "" : "s") (first in table \(first[0] as String), row \(first[1] as Int64? ?? 0))")
        }
        let ruled = plan.newRules.sorted { $0.key < $1.key }.compactMap { name, rules -> Entity? in
            guard var entity = model.entity(named: name) else { return nil }
            entity.rules = rules
            return entity
        }
        if !ruled.isEmpty {
            found.brokenRules = try ruleViolations(storage, limit: 5, entities: ruled, counting: true)
        }
        return found
    }

    /// What a dry run does where `reconcile` migrates: the same refusals, and the plan the real run would carry out
    /// first, run and rolled back (`rehearse`); the store is not changed. Nil when there is nothing to migrate.
    ///
    /// Decided as `reconcile` decides: the rehearsal checks under the write lock that the store still records the
    /// model the plan was made from, and when another process migrated it meanwhile, plans again from the store as
    /// it is then (nil when it is now at this model, as the real run finds it).
    func plannedMigration(meta: [String: String], migrate: Bool) throws -> MigrationPlan? {
        // Each round that does not end is another process's migration committed meanwhile.
        for _ in 0..<10 {
            let plan = try migrationPlan()
            if plan.recordedHash == model.versionHash { return nil }
            if !plan.modelChanged && plan.steps.isEmpty && plan.isAutomatic { return nil }
            // Planned against the store as it is, not rehearsed (that takes the write lock): the dry run shows it,
            // and says that the real run, which this user cannot make, would be refused (`needsMigratingReadOnly`)
            // — a change no table shows (a sort, a rule) too, which the real run cannot record either.
            if isReadOnly { return plan }
            guard migrate else {
                throw MigrationError(path: path, plan: plan, reason: "the store was written with another model", reasonStep: .migrate)
            }
            guard plan.isAutomatic else {
                throw MigrationError(path: path, plan: plan, reason: "the model changed in ways that could lose data, so the store was not migrated")
            }
            guard let found = try rehearse(plan) else { continue }
            guard found.isAutomatic else {
                throw MigrationError(path: path, plan: found, reason: found.blockers.isEmpty
                                     ? "existing objects break the model's new rules, so the store was not migrated"
                                     : "the migration cannot be made as planned, so the store was not migrated")
            }
            return found
        }
        throw busyError()
    }

    /// The migration a dry run's write transaction runs first (see `batch(dryRun:)`), decided again under its
    /// write lock: the pending one while the store still records the model it was planned from; none when another
    /// process has migrated the store to this model since (the real run would find it so and migrate nothing).
    func pendingMigrationNow(_ db: Database) throws -> MigrationPlan? {
        guard let pending = pendingMigration else { return nil }
        let now = try Store.recordedHash(db)
        if now == pending.recordedHash { return pending }
        if now == model.versionHash { return nil }
        // Migrated to yet another model meanwhile: what this run planned and checked no longer applies.
        throw StoreError.migratedMeanwhile(path: path, detail: "the store records another model now")
    }

    /// The schema compared with this model (another process has just migrated the store to it), for the writes
    /// that follow (see `confirmSchemaUnchanged`). Nil for a read-only store, which writes nothing.
    func checkpointAtModel(_ db: Database) throws -> SchemaCheckpoint? {
        guard !isReadOnly else { return nil }
        let blocking = try Store.schemaDifferences(db, model: model).filter(\.blocksWrites)
        if !blocking.isEmpty { throw ForeignSchemaError(path: path, problems: blocking.map(\.text)) }
        return SchemaCheckpoint(version: try Store.schemaVersion(db), model: model, recordedHash: model.versionHash)
    }

    /// Brings a store written with another model up to date when that is safe, or says why not.
    ///
    /// Each decision is checked under the write lock against what the store records then (`applyMigration`): of
    /// several processes opening the store at once, one migrates, and the others find it migrated and use it.
    func reconcile(meta: [String: String], migrate: Bool) throws {
        // Each round that does not end is another process's migration committed meanwhile.
        for _ in 0..<10 {
            let plan = try migrationPlan()
            if plan.recordedHash == model.versionHash {
                // Migrated by another process since this one read the metadata.
                if let checkpoint = try readSQLite({ db in try checkpointAtModel(db) }) { schemaCheckpoint = checkpoint }
                return
            }
            if plan.steps.isEmpty && plan.isAutomatic && (isReadOnly || plan.newRules.isEmpty) {
                // Nothing in the schema changed (sorts, defaults, delete rules), and no rule was added that existing
                // objects must be checked against: just record the model.
                if isReadOnly { return }
                let recorded = try writeSQLite { db -> Bool in
                    guard try Store.recordedHash(db) == plan.recordedHash else { return false }
                    try recordModel(db)
                    // Said on stderr as any migration opening the store makes (attack 27, finding 11: a reading
                    // command wrote the store without a word).
                    if plan.modelChanged { migration = MigrationResult(plan: plan, backupPath: nil) }
                    // The schema is the one this model makes (no step was needed), and this model is recorded now.
                    if let checkpoint = schemaCheckpoint {
                        schemaCheckpoint = SchemaCheckpoint(version: checkpoint.version, model: model, recordedHash: model.versionHash)
                    }
                    return true
                }
                if recorded { return }
                continue
            }
            if isReadOnly {
                throw MigrationError(path: path, plan: plan, reason: "the store was written with another model and needs migrating, but it is opened read-only")
            }
            guard migrate else {
                throw MigrationError(path: path, plan: plan, reason: "the store was written with another model", reasonStep: .migrate)
            }
            guard plan.isAutomatic else {
                throw MigrationError(path: path, plan: plan, reason: "the model changed in ways that could lose data, so the store was not migrated")
            }
            if try applyMigration(plan) != nil { return }
        }
        throw busyError()
    }

    private func recordModel(_ db: Database) throws {
        for (key, value) in [("model_hash", model.versionHash), ("model", model.canonicalJSON), ("migrated_at", Timestamp.now().description)] {
            try db.execute(sql: StoreSQL.sqlite.putMeta(Store.metaTable), arguments: [key, value])
        }
    }

    /// A consistent copy of the store beside it (SQLite's online backup), named `<store>.<suffix>-<UTC time>`.
    package func makeBackup(suffix: String) throws -> String {
        try makeBackup(suffix: suffix, from: queue)
    }

    /// The same, while this store's connection holds the write lock in a transaction (`applyMigration`): SQLite
    /// copies nothing from a connection inside a write transaction, so the copy is read through a second, read-only
    /// connection, which sees the last committed state — the store as it is, since no one else can write.
    func makeLockedBackup(suffix: String) throws -> String {
        let source: DatabaseQueue
        do {
            source = try DatabaseQueue(path: path, configuration: Store.configuration(readOnly: true, busyTimeout: snapshotWait))
        } catch {
            throw StoreError.cannotCreate(path: "\(path).\(suffix)", reason: "backup copy failed: \(error)")
        }
        defer { try? source.close() }
        return try makeBackup(suffix: suffix, from: source)
    }

    private func makeBackup(suffix: String, from source: DatabaseQueue) throws -> String {
        let stamp = Timestamp.now().description.replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
        var target = "\(path).\(suffix)-\(stamp)"
        var n = 1
        // A name with an SQLite companion beside it is taken too: SQLite would read the companion with the copy.
        while Store.nameIsTaken(target) { n += 1; target = "\(path).\(suffix)-\(stamp)-\(n)" }
        // Through the one output module: assembled under a temporary name and put in place only when whole.
        let file = try OutputFile(path: target, assembledAtPath: true)
        do {
            let destination = try DatabaseQueue(path: file.assemblyPath!)
            try source.backup(to: destination)
            try destination.close()
            try file.commit()
        } catch {
            file.discard()
            throw StoreError.cannotCreate(path: target, reason: "backup copy failed: \(error)")
        }
        return target
    }
}
