// Inserting on a second thread: the batch writer hands buffered rows over in multi-row chunks, and this
// thread binds and steps them while the importer's thread reads and checks the next records. On the 1M-line
// bench SQLite's insert work is about a quarter of the import; done beside the rest, it costs no wall time.
//
// The connection is SQLite's multi-thread mode (GRDB opens it so): safe from any thread, never from two at
// once. The batch writer keeps that rule by waiting for this thread (`drain()`) before any other use of the
// connection (BatchWriter.statement(_:), execute(_:)), and by stopping it before the transaction ends.
//
// `BOOKKEEPER_IMPORT_THREADS=1` in the environment makes every batch write on its own thread instead: each job is
// bound and stepped where it is submitted, and the index rebuild gets no sorter helpers. Not a user option: the
// tests import the same files both ways and compare the stores and the messages (ImportPipelineTests), and the
// bench can measure what the second thread is worth.

import Foundation

final class BackgroundInserter: @unchecked Sendable {
    struct Job {
        let layout: EntityLayout
        var values: [StoredValue]
        let rows: Int
    }

    private let connection: any StorageConnection
    private unowned let store: Store
    private let condition = NSCondition()
    private var jobs: [Job] = []
    private var spares: [[StoredValue]] = []
    private var busy = false
    private var stopping = false
    private var failure: BatchError?
    private var thread: Thread?
    private var exited = false

    /// Jobs waiting at most: bounds the memory of rows handed over but not yet written.
    static let queueLimit = 64

    /// Whether batches write on one thread (`BOOKKEEPER_IMPORT_THREADS=1`; see the header).
    static let oneThread = ProcessInfo.processInfo.environment["BOOKKEEPER_IMPORT_THREADS"] == "1"

    init(connection: any StorageConnection, store: Store) {
        self.connection = connection
        self.store = store
    }

    /// An empty array to fill with the next rows (one the worker has finished with, when there is one).
    func spareBuffer() -> [StoredValue] {
        condition.lock()
        defer { condition.unlock() }
        return spares.popLast() ?? []
    }

    /// Queues rows for inserting; waits while the queue is full. Throws a failure of an earlier job.
    func submit(_ job: Job) throws(BatchError) {
        if BackgroundInserter.oneThread {
            // Written here and now; the buffer goes back to the spares as the thread would give it back.
            var job = job
            try insert(job)
            job.values.removeAll(keepingCapacity: true)
            condition.lock()
            if spares.count < BackgroundInserter.queueLimit + 2 { spares.append(job.values) }
            condition.unlock()
            return
        }
        condition.lock()
        if thread == nil { start() }
        while jobs.count >= BackgroundInserter.queueLimit && failure == nil { condition.wait() }
        if let failure {
            condition.unlock()
            throw failure
        }
        jobs.append(job)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until every queued row is written; throws the first failure.
    func drain() throws(BatchError) {
        condition.lock()
        while (!jobs.isEmpty || busy) && failure == nil { condition.wait() }
        let f = failure
        condition.unlock()
        if let f { throw f }
    }

    /// Stops the thread after the job it is doing; queued jobs are dropped.
    func stop() {
        condition.lock()
        guard thread != nil else { condition.unlock(); return }
        stopping = true
        jobs.removeAll()
        condition.broadcast()
        while !exited { condition.wait() }
        condition.unlock()
    }

    private func start() {
        let t = Thread { [self] in run() }
        t.name = "bookkeeper batch inserter"
        thread = t
        t.start()
    }

    private func run() {
        BatchTimes.inserterStarted()
        while true {
            condition.lock()
            while jobs.isEmpty && !stopping { condition.wait() }
            if stopping {
                BatchTimes.inserterExiting()
                exited = true
                condition.broadcast()
                condition.unlock()
                return
            }
            var job = jobs.removeFirst()
            busy = true
            condition.unlock()

            var error: BatchError?
            do { try insert(job) } catch let e { error = e }

            job.values.removeAll(keepingCapacity: true)
            condition.lock()
            busy = false
            if failure == nil { failure = error }
            if spares.count < BackgroundInserter.queueLimit + 2 { spares.append(job.values) }
            condition.broadcast()
            condition.unlock()
        }
    }

    private func insert(_ job: Job) throws(BatchError) {
        do {
            try connection.bulkInsert(into: job.layout.entity.name, columns: job.layout.insertColumns, values: job.values, rows: job.rows)
        } catch {
            throw store.batchError(error)
        }
    }
}
