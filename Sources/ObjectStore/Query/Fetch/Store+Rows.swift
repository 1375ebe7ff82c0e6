import Foundation

/// The rows of a fetch plan's columns, read one at a time from an open cursor.
package struct StoredRowCursor {
    /// The storage's cursor (its statement's values are read in place).
    var cursor: StorageCursor
    package let columnCount: Int

    /// The next row's stored values, in column order; nil after the last row.
    package mutating func next() throws -> [StoredValue]? {
        var values: [StoredValue] = []
        return try next(into: &values) ? values : nil
    }

    /// The next row's stored values into `values` (replacing what it held, keeping its storage: a report reads
    /// every row through one array); false after the last row.
    package mutating func next(into values: inout [StoredValue]) throws -> Bool {
        guard try cursor.step() else { return false }
        // Read in place from the statement just stepped.
        let statement = cursor.statement
        values.removeAll(keepingCapacity: true)
        values.reserveCapacity(columnCount)
        for i in 0..<Int32(columnCount) { values.append(statement.column(i)) }
        return true
    }
}

extension Store {
    /// Opens a cursor on the plan's columns and calls `body` with it — and, when `counted`, with the number of
    /// rows it will give, counted in the same read transaction, so a writer committing meanwhile cannot make
    /// the two disagree (a renderer that must know the row count up front relies on that).
    package func withRows<T>(_ plan: FetchPlan, counted: Bool, _ body: (Int?, inout StoredRowCursor) throws -> T) throws -> T {
        return try read { db in
            let (sql, arguments) = plan.sql(.columns, in: db)
            var result: T?
            // One transaction for the count and the rows (a read-only store's `read` has begun it already).
            func inOneTransaction(_ work: () throws -> Void) throws {
                if db.isInsideTransaction { return try work() }
                try db.transaction(.deferred) { try work(); return .commit }
            }
            try inOneTransaction {
                var count: Int?
                if counted {
                    let (countSQL, countArguments) = plan.sql(.count, in: db)
                    count = try db.int(countSQL, countArguments) ?? 0
                }
                var cursor = StoredRowCursor(cursor: try db.cursor(sql, arguments), columnCount: plan.columns.count)
                result = try body(count, &cursor)
            }
            return result!
        }
    }
}
