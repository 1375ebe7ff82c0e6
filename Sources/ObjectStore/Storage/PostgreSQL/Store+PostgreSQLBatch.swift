// The batch's transaction on PostgreSQL (issue 31): the same `BatchWriter` as on a store file (Store+Batch.swift),
// with the same statements in PostgreSQL's dialect, in one write transaction holding the books' lock
// (`PostgreSQLBooks.write`) — committed when the body returns, rolled back when it throws or for a dry run. What is
// SQLite's own around the writer there has its PostgreSQL form here:
// - reference checks: put off to the end of the transaction (`SET CONSTRAINTS ALL DEFERRED`: the books' keys are
//   DEFERRABLE), then made at once (`… IMMEDIATE`) before the rules, so a broken reference fails the batch before
//   its commit — and a dry run's too, which never commits;
// - indexes: kept up row by row (a DROP INDEX would make every reader of the table wait for the commit);
// - no checkpoint whose pages to give back, no schema to compare again (the books were compared with their model
//   when they opened), no migration a dry run must make first (the model lives in the books), no busy note beside a
//   file (the server knows who holds the lock).
// Rows go in as multi-row INSERTs from the writer's second thread, as on SQLite; COPY comes later.

extension Store {
    /// `batch(dryRun:_:)` on books on PostgreSQL.
    func batch<T>(on books: PostgreSQLBooks, dryRun: Bool, _ body: (BatchWriter) throws -> T) throws -> T {
        let result = try books.write(rollingBack: dryRun) { connection in
            let sql = BatchSQL(connection.dialect)
            try recordMissingIDMarks(connection)
            try connection.execute(sql.foreignKeys(on: false))
            let writer = BatchWriter(store: self, connection: connection)
            BatchTimes.begin()
            defer { writer.close() }
            let result = try body(writer)
            BatchTimes.mark("load: reading the records")
            try writer.flushAll()
            BatchTimes.mark("load: last inserts")
            try writer.markHandedOutIDs(connection)
            writer.releaseKeyCaches()
            try writer.finishIndexes()
            // Every reference the batch wrote, checked now: a broken one fails this statement.
            try connection.execute(sql.foreignKeys(on: true))
            // The model's rules hold for every object the batch may have changed (a store that imports passes `check`).
            if model.entities.contains(where: { !$0.rules.isEmpty }) {
                let broken = try ruleViolations(connection, limit: 20)
                if !broken.isEmpty { throw BatchError.ruleViolations(broken) }
            }
            BatchTimes.mark("rules")
            return result
        }
        BatchTimes.mark("end of the transaction (\(dryRun ? "rollback" : "commit"))")
        BatchTimes.report()
        return result
    }
}
