// A statement of the batch writer: the storage's prepared statement, whose failures become the batch's own
// (`BatchError`, typed, as every step of the batch throws), worded by the store.

/// A prepared statement of the batch, kept by the connection for the length of the batch.
struct BatchStatement {
    let statement: any StorageStatement
    unowned let store: Store

    @inline(__always)
    func bind(_ index: Int32, _ value: StoredValue) { statement.bind(index, value) }

    @inline(__always)
    func bind(_ index: Int32, _ value: Int64?) { statement.bind(index, value.map(StoredValue.integer) ?? .null) }

    /// Runs a statement that returns no rows, then resets it.
    func execute() throws(BatchError) {
        do { try statement.execute() } catch { throw store.batchError(error) }
    }

    /// Steps once: true when a row is available. Call `reset()` when done reading.
    func step() throws(BatchError) -> Bool {
        do { return try statement.step() } catch { throw store.batchError(error) }
    }

    func reset() { statement.reset() }

    @inline(__always)
    func int64(_ column: Int32) -> Int64? { statement.int64(column) }

    /// The column exactly as stored (a value with a NUL whole), which the batch compares with what it writes.
    func column(_ column: Int32) -> StoredValue { statement.exactColumn(column) }
}
