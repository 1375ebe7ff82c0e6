// Where a renderer's rows come from: a stream, read once, in order.
//
// Why this file exists: reports can be large and are rendered in one pass. No renderer needs the
// number of rows before the last one (XLSX records its autofilter and totals after the rows), so a
// source need not count them first — the store's runs a single statement. A source that does know
// its length says so, and renderers check it (`CheckedRows`): a source that breaks its word fails
// the render rather than leaving a file with missing rows.

/// The rows of a report, streamed.
package protocol ReportRowSource {
    /// How many rows `nextRow()` will give, when known before the first one; nil when not.
    var rowCount: Int? { get }
    /// The next row (one cell per column), or nil after the last.
    mutating func nextRow() throws -> [ReportCell]?
}

/// Rows held in memory: for tests and small reports.
package struct ArrayRowSource: ReportRowSource {
    package let rows: [[ReportCell]]
    private var index = 0

    package init(_ rows: [[ReportCell]]) {
        self.rows = rows
    }

    package var rowCount: Int? { rows.count }

    package mutating func nextRow() throws -> [ReportCell]? {
        guard index < rows.count else { return nil }
        defer { index += 1 }
        return rows[index]
    }
}

/// A row source read through checks: each row has one cell per column, and the source gives
/// exactly the rows it announced, if it announced a number.
struct CheckedRows<Source: ReportRowSource> {
    let declared: Int?
    let columnCount: Int
    let file: String
    /// Rows given so far.
    private(set) var count = 0

    init(declared: Int?, columnCount: Int, file: String) {
        self.declared = declared
        self.columnCount = columnCount
        self.file = file
    }

    mutating func next(from source: inout Source) throws -> [ReportCell]? {
        guard let row = try source.nextRow() else {
            if let declared, count != declared {
                throw ReportRenderError(file: file, kind: .rowCountMismatch(declared: declared, given: count))
            }
            return nil
        }
        count += 1
        if let declared, count > declared {
            throw ReportRenderError(file: file, kind: .rowCountMismatch(declared: declared, given: count))
        }
        if row.count != columnCount {
            throw ReportRenderError(file: file, kind: .cellCountMismatch(row: count, cells: row.count, columns: columnCount))
        }
        return row
    }
}
