import Foundation
import GRDB

/// A value as SQLite stores it, for readers that convert stored values themselves, fast (a report turning
/// millions of cells into spreadsheet cells): decimals are integer units at their attribute's scale, booleans
/// 0/1, dates and date-times ISO text (docs/model.md "How the store keeps it").
public enum StoredValue: Sendable, Equatable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .string(let s): self = .text(s)
        case .blob(let b): self = .blob(b)
        }
    }
}

/// The rows of a fetch plan's columns, read one at a time from an open cursor.
public struct StoredRowCursor {
    let cursor: GRDB.RowCursor
    public let columnCount: Int

    /// The next row's stored values, in column order; nil after the last row.
    public mutating func next() throws -> [StoredValue]? {
        guard let row = try cursor.next() else { return nil }
        var values: [StoredValue] = []
        values.reserveCapacity(columnCount)
        for i in 0..<columnCount { values.append(StoredValue(row[i] as DatabaseValue)) }
        return values
    }
}

extension Store {
    /// Opens a cursor on the plan's columns and calls `body` with it — and, when `counted`, with the number of
    /// rows it will give, counted in the same read transaction, so a writer committing meanwhile cannot make
    /// the two disagree (a renderer that must know the row count up front relies on that).
    public func withRows<T>(_ plan: FetchPlan, counted: Bool, _ body: (Int?, inout StoredRowCursor) throws -> T) throws -> T {
        let (sql, arguments) = plan.sql(.columns)
        return try read { db in
            var result: T?
            try db.inTransaction(.deferred) {
                var count: Int?
                if counted {
                    let (countSQL, countArguments) = plan.sql(.count)
                    count = try Int.fetchOne(db, sql: countSQL, arguments: StatementArguments(countArguments)) ?? 0
                }
                var cursor = StoredRowCursor(cursor: try Row.fetchCursor(db, sql: sql, arguments: StatementArguments(arguments)),
                                             columnCount: plan.columns.count)
                result = try body(count, &cursor)
                return .commit
            }
            return result!
        }
    }
}
