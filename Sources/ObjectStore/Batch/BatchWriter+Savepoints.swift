// Per-record rollback, for imports that skip bad records: a savepoint around each record (or document
// with its rows) in SQLite, and an undo log for what the writer keeps in memory (caches, counts, cursors).

struct SavepointState {
    var counts: [String: BatchCounts]
    var undo: [() -> Void] = []
}

extension BatchWriter {
    /// Starts a record that may be rolled back alone with `rollbackRecord()`.
    package func beginRecord() throws(BatchError) {
        precondition(savepoint == nil, "records do not nest")
        try execute(sql.beginRecord)
        savepoint = SavepointState(counts: layouts.mapValues(\.counts))
    }

    /// Keeps what the record wrote.
    package func commitRecord() throws(BatchError) {
        precondition(savepoint != nil, "no record begun")
        try execute(sql.keepRecord)
        savepoint = nil
    }

    /// Undoes everything since `beginRecord()`, in the store and in the writer's memory.
    package func rollbackRecord() throws(BatchError) {
        guard let state = savepoint else { preconditionFailure("no record begun") }
        for sql in sql.undoRecord { try execute(sql) }
        for undo in state.undo.reversed() { undo() }
        for (name, c) in state.counts { layouts[name]?.counts = c }
        for (name, l) in layouts where state.counts[name] == nil { l.counts = BatchCounts() }
        savepoint = nil
    }

    func logUndo(_ undo: @escaping () -> Void) {
        savepoint?.undo.append(undo)
    }
}
