import Foundation
import GRDB

// The batch's transaction on SQLite: foreign keys, the write lock, the schema check, a dry run's migration, the
// rules and the commit's progress around a `BatchWriter`, which runs its statements through the storage protocol.

extension Store {
    /// Runs `body` with a `BatchWriter` inside one immediate write transaction: committed when `body` returns,
    /// rolled back when it throws — or always rolled back when `dryRun`, so a dry run validates and counts
    /// everything and writes nothing.
    package func batch<T>(dryRun: Bool = false, _ body: (BatchWriter) throws -> T) throws -> T {
        if isReadOnly { throw StoreError.readOnly(path: path) }
        if let books { return try batch(on: books, dryRun: dryRun, body) }
        return try mapErrors(inTransaction: true) {
            try queue.inDatabase { db in
                let connection = try storage
                // Foreign keys are off for the batch when that is safe (see `batchKeepsReferencesIntact`): every
                // key the batch writes is a row ID it has just resolved or inserted, and SQLite's checks (a parent
                // look-up and a statement journal per insert) were a third of the bench's SQLite time.
                let foreignKeysWereOn = try connection.bool(BatchSQL.sqlite.foreignKeysEnabled) ?? false
                // A dry run of a store that needs migrating runs the migration first, as the real run would, with
                // foreign keys off as a migration has them (a rebuilt table's DROP would act on the rows that refer
                // to it); the references are then checked once, at the end.
                let migrating = dryRun ? pendingMigration : nil
                let switchOff = foreignKeysWereOn && (model.batchKeepsReferencesIntact || migrating != nil)
                if switchOff { try connection.execute(BatchSQL.sqlite.foreignKeys(on: false)) }
                defer { if switchOff { try? connection.execute(BatchSQL.sqlite.foreignKeys(on: true)) } }
                var result: T?
                var cacheRelease: CheckpointCacheRelease?
                defer { cacheRelease?.stop() }
                var committing = false
                defer { if committing { CommitProgress.finish(committed: false) } }
                try connection.transaction(.immediate) {
                    try confirmSchemaUnchanged(db)
                    beginActivity()
                    defer { endActivity() }
                    // (Decided again under the lock: another process may have migrated the store since it opened.)
                    if migrating != nil, let migrating = try pendingMigrationNow(db) {
                        for step in migrating.steps { try connection.execute(step.sql, step.arguments) }
                    }
                    try recordMissingIDMarks(connection)
                    let writer = BatchWriter(store: self, connection: connection)
                    BatchTimes.begin()
                    // (SQLite's default page cache measured fastest here: docs/design/import-speed.md.)
                    defer { writer.close() }
                    result = try body(writer)
                    BatchTimes.mark("load: reading the records")
                    try writer.flushAll()
                    BatchTimes.mark("load: last inserts")
                    try writer.markHandedOutIDs(connection)
                    // The model's rules hold for every object the batch may have changed, documents whose rows it
                    // replaced included: a store that imports must pass `check`.
                    // (After the deferred indexes are back, which the rules' look-ups use.)
                    func checkRules() throws {
                        guard model.entities.contains(where: { !$0.rules.isEmpty }) else { return }
                        let broken = try ruleViolations(connection, limit: 20)
                        if !broken.isEmpty { throw BatchError.ruleViolations(broken) }
                    }
                    if dryRun {
                        try checkRules()
                        if migrating != nil && !model.batchKeepsReferencesIntact,
                           let first = try connection.rows(BatchSQL.sqlite.foreignKeyCheck).first {
                            throw BatchError.sqlite("\(path): FOREIGN KEY constraint failed (table \(first.string(0) ?? ""), row \(first.int64(1) ?? 0))")
                        }
                        return .rollback
                    }
                    writer.releaseKeyCaches()
                    try writer.finishIndexes()
                    BatchTimes.mark("index rebuild done")
                    try checkRules()
                    BatchTimes.mark("rules")
                    // The commit checkpoints the write-ahead log into the store; give its copied pages back
                    // as it goes (see CheckpointCacheRelease).
                    cacheRelease = CheckpointCacheRelease(storePath: path)
                    cacheRelease?.start()
                    CommitProgress.beginCommit()
                    committing = true
                    return .commit
                }
                if committing {
                    committing = false
                    CommitProgress.finish(committed: true)
                }
                BatchTimes.mark("end of the transaction (commit)")
                BatchTimes.report()
                return result!
            }
        }
    }
}

extension ObjectModel {
    /// Whether a batch keeps every foreign key valid without SQLite's checks: it writes only row IDs it resolved
    /// or inserted, and the only rows it deletes (a document's rows) are no foreign key's target, so no
    /// ON DELETE action is needed either.
    var batchKeepsReferencesIntact: Bool {
        for e in entities {
            for r in e.relationships {
                guard let d = entity(named: r.destination), d.kind == .rows else { continue }
                switch storage(of: r, in: e) {
                case .foreignKey, .joinTable: return false
                case .inverseForeignKey: continue
                }
            }
        }
        return true
    }
}
