import Foundation

// `migrate --model FILE` on books on PostgreSQL (issue 31): the only way their recorded model changes. The plan is
// made and carried out in ONE transaction holding the books' advisory lock — planned from the model the books record
// at that moment, so no other process can have migrated them between the plan and the steps, as SQLite's
// `applyMigration` must check. PostgreSQL's DDL is transactional: a step PostgreSQL refuses, a value that does not
// convert or a rule existing objects break rolls everything back, so no before-migration copy is taken. A writer
// that opened the books before the migration committed waits for the lock, then finds another model recorded and
// is refused (`Store.write`, 75: run it again); a statement of a reader sees the tables before or after, never
// between (the DDL holds its tables' ACCESS EXCLUSIVE locks until the commit).

extension Store {
    /// What `migrateBooks` found and did.
    package struct BooksMigration: Sendable {
        /// The plan, with what running it found (a dry run's and a refused run's too).
        package let plan: MigrationPlan
        /// Whether the books now record the new model.
        package let applied: Bool
    }

    /// A rollback carrying the plan as far as it got.
    private struct RolledBack: Error { let plan: MigrationPlan }

    /// The plan from the model the books record to `target`, made in one read (a role that may not write the books:
    /// its dry run shows it, and the real run is refused).
    package func booksMigrationPlan(to target: ObjectModel, options: MigrationOptions) throws -> MigrationPlan {
        guard let books else { preconditionFailure("books on PostgreSQL only") }
        return try books.read(readOnly: true) { db in try planBooksMigration(db, to: target, options: options) }
    }

    private func planBooksMigration(_ db: any StorageConnection, to target: ObjectModel, options: MigrationOptions) throws -> MigrationPlan {
        let d = db.dialect
        guard let text = try db.string(StoreSQL(d).metaValue(Store.metaTable), [.text("model")]),
              let json = try? JSONSerialization.jsonObject(with: Data(text.utf8)),
              let recorded = try? ObjectModel(jsonObject: json, behaviours: target.behaviours) else {
            throw StoreError.notAStore(path: path, reason: "its recorded model cannot be read")
        }
        var plan = try PostgreSQLMigrationPlanner.plan(from: recorded, to: target, in: db, options: options)
        plan.recordedHash = try db.string(StoreSQL(d).metaValue(Store.metaTable), [.text("model_hash")])
        return plan
    }

    /// Brings the books to `target` in one transaction holding their lock: planned, refused (nothing applied) when
    /// the plan cannot apply with `options`, else its steps run, the references and the new rules checked, and the
    /// model recorded. `dryRun`: the same, rolled back (run only when nothing blocks it, as SQLite's rehearsal).
    /// Refusals found by running the steps throw `MigrationError` with SQLite's reasons.
    package func migrateBooks(to target: ObjectModel, options: MigrationOptions, dryRun: Bool) throws -> BooksMigration {
        guard let books else { preconditionFailure("books on PostgreSQL only") }
        do {
            return try books.write { db -> BooksMigration in
                // A command that opens the books from now on waits for this transaction, then reads the model it
                // leaves (a dry run, which changes nothing, lets them read on).
                if !dryRun { try db.execute(PostgreSQLMigrationPlanner.lockRecordedModel) }
                let plan = try planBooksMigration(db, to: target, options: options)
                let needed = plan.modelChanged || !plan.steps.isEmpty || !plan.unknownNames.isEmpty
                guard needed else { return BooksMigration(plan: plan, applied: false) }
                if dryRun {
                    guard plan.blockers.isEmpty && plan.unknownNames.isEmpty else { return BooksMigration(plan: plan, applied: false) }
                    throw RolledBack(plan: try runBooksSteps(plan, db, target: target))
                }
                // (Only read so far: what is returned here commits nothing.)
                guard plan.canApply(options) else { return BooksMigration(plan: plan, applied: false) }
                beginActivity()
                defer { endActivity() }
                let found = try runBooksSteps(plan, db, target: target)
                guard found.blockers.isEmpty && (found.brokenRules.isEmpty || options.allowBrokenRules) else {
                    throw MigrationError(path: path, plan: found, reason: found.blockers.isEmpty
                                         ? "existing objects break the model's new rules, so the store was not migrated"
                                         : "the migration cannot be made as planned, so the store was not migrated")
                }
                let d = db.dialect
                for (key, value) in [("model_hash", target.versionHash), ("model", target.canonicalJSON), ("migrated_at", Timestamp.now().description)] {
                    try db.execute(StoreSQL(d).putMeta(Store.metaTable), [.text(key), .text(value)])
                }
                return BooksMigration(plan: found, applied: true)
            }
        } catch let rolledBack as RolledBack {
            if !dryRun { throw MigrationError(path: path, plan: rolledBack.plan, reason: "the migration cannot be made as planned, so the store was not migrated") }
            return BooksMigration(plan: rolledBack.plan, applied: false)
        }
    }

    /// Runs the steps in the caller's transaction, then checks the new rules with `target`; returns the plan with what
    /// it found. A statement PostgreSQL refuses ends it, rolled back (`RolledBack`): the transaction can run no more.
    private func runBooksSteps(_ plan: MigrationPlan, _ db: any StorageConnection, target: ObjectModel) throws -> MigrationPlan {
        var found = plan
        for step in plan.steps {
            do {
                if let conversion = step.conversion {
                    try convert(conversion, db)
                } else {
                    try db.execute(step.sql, step.arguments)
                }
            } catch let error as StorageError where (error.kind == .constraint || error.kind == .other)
                        && !PostgreSQLConnection.isConnectionLost(error, handle: books!.connection.handle) {
                found.blockers.append(PostgreSQLMigrationPlanner.refusal(step, PostgreSQLConnection.plainReason(error.message)))
                throw RolledBack(plan: found)
            }
        }
        let ruled = plan.newRules.sorted { $0.key < $1.key }.compactMap { name, rules -> Entity? in
            guard var entity = target.entity(named: name) else { return nil }
            entity.rules = rules
            return entity
        }
        if !ruled.isEmpty {
            found.brokenRules = try booksRuleViolations(db, limit: 5, entities: ruled, model: target)
        }
        return found
    }

    /// The objects of `entities` that break their rules, as `ruleViolations` words them (`Bank/2 "7": deposits cannot
    /// be negative`, then `… and N more`), read with `model`: the tables are the new model's by now.
    private func booksRuleViolations(_ db: any StorageConnection, limit: Int, entities: [Entity], model: ObjectModel) throws -> [String] {
        var problems: [String] = []
        for entity in entities {
            for rule in entity.rules {
                let plan = try FetchPlan(ObjectFetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))", limit: limit),
                                         model: model, columns: [])
                let (sql, arguments) = plan.sql(.objects, dialect: db.dialect)
                let rows = try db.rows(PostgreSQLMigrationPlanner.ruleBreakers(of: sql, key: entity.naturalKey), arguments)
                for row in rows {
                    let stored = row[1]
                    let keyText = stored == .null ? "" : entity.naturalKey.flatMap(entity.attribute(named:))
                        .map { " \"\(Value(stored: stored, as: $0.type).text(in: .process))\"" } ?? ""
                    problems.append("\(entity.name)/\(row[0])\(keyText): \(rule.message)")
                }
                if rows.count == limit {
                    let all = try FetchPlan(ObjectFetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))"), model: model, columns: [])
                    let (sql, arguments) = all.sql(.objects, dialect: db.dialect)
                    let total = try db.int(PostgreSQLMigrationPlanner.count(of: sql), arguments) ?? 0
                    if total > limit { problems.append("\(entity.name): … and \(total - limit) more: \(rule.message)") }
                }
            }
        }
        return problems
    }

    /// Refuses a write to books that record another model than the one this store opened them with: `migrate
    /// --model` changed them while this process waited for the lock (75, run it again: the next run uses the new
    /// model). Read under the lock, so no migration can commit until this write's does.
    func confirmModelUnchanged(_ db: any StorageConnection) throws {
        let recorded = try db.string(StoreSQL(db.dialect).metaValue(Store.metaTable), [.text("model_hash")])
        guard recorded == model.versionHash else {
            throw StoreError.migratedMeanwhile(path: path, detail: "the books record another model now")
        }
    }

    /// A retyped column's values, converted object by object by `Value.converted` (as SQLite's bk_convert does).
    private func convert(_ c: MigrationPlan.Conversion, _ db: any StorageConnection) throws {
        var after: Int64 = .min
        let batch = 1000
        while true {
            let rows = try db.rows(PostgreSQLMigrationPlanner.conversionBatch(table: c.table, column: c.from), [.integer(after), .integer(Int64(batch))])
            for row in rows {
                let id = row.int64(0) ?? 0
                let value = Value(stored: row[1], as: c.fromType)
                guard let converted = value.converted(to: c.toType) else {
                    // (The plan was made in this transaction, under the lock: only a value that changed since cannot.)
                    throw StorageError(kind: .constraint, message: "\"\(value)\" in \(c.table)/\(id) is not \(c.toType)", sql: nil, code: 0)
                }
                try db.execute(cached: PostgreSQLMigrationPlanner.conversionWrite(table: c.table, column: c.to), [.integer(id), converted.storedValue(for: c.toType)])
                after = id
            }
            if rows.count < batch { break }
        }
    }
}
