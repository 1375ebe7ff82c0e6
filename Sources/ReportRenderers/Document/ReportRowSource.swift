// Where a renderer's rows come from: a stream whose length is known up front.
//
// Why this file exists: reports can be large and are rendered in one pass. XLSX in constant-memory
// mode writes rows in order and must set its autofilter range before the first data row, so the
// count is part of the contract; renderers check it (`CheckedRows`) and fail rather than write a
// file whose filter or totals cover the wrong rows.

/// The rows of a report, streamed.
public protocol ReportRowSource {
    /// How many rows `nextRow()` will give, known before the first one.
    var rowCount: Int { get }
    /// The next row (one cell per column), or nil after the last.
    mutating func nextRow() throws -> [ReportCell]?
}

/// Rows held in memory: for tests and small reports.
public struct ArrayRowSource: ReportRowSource {
    public let rows: [[ReportCell]]
    private var index = 0

    public init(_ rows: [[ReportCell]]) {
        self.rows = rows
    }

    public var rowCount: Int { rows.count }

    public mutating func nextRow() throws -> [ReportCell]? {
        guard index < rows.count else { return nil }
        defer { index += 1 }
        return rows[index]
    }
}

/// A row source read through checks: each row has one cell per column, and the source gives
/// exactly the rows it announced.
struct CheckedRows<Source: ReportRowSource> {
    let declared: Int
    let columnCount: Int
    let file: String
    /// Rows given so far.
    private(set) var count = 0

    init(declared: Int, columnCount: Int, file: String) {
        self.declared = declared
        self.columnCount = columnCount
        self.file = file
    }

    mutating func next(from source: inout Source) throws -> [ReportCell]? {
        guard let row = try source.nextRow() else {
            if count != declared { throw ReportRenderError(file: file, kind: .rowCountMismatch(declared: declared, given: count)) }
            return nil
        }
        count += 1
        if count > declared { throw ReportRenderError(file: file, kind: .rowCountMismatch(declared: declared, given: count)) }
        if row.count != columnCount {
            throw ReportRenderError(file: file, kind: .cellCountMismatch(row: count, cells: row.count, columns: columnCount))
        }
        return row
    }
}
