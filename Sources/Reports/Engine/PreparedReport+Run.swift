// Running a prepared report: one statement, its rows streamed from a cursor into a renderer.
//
// No count comes first: no renderer needs the number of rows before the last one (XLSX records its
// autofilter and totals after the rows), so a report is one pass over one statement inside one read
// transaction — a nightly import writing at the same time cannot change what a report sees halfway.
// The rows are never all in memory for CSV, JSON and XLSX; the text renderer keeps every row to size
// its columns. A report grouped by a period gets its missing periods on the way (PeriodFill.swift).

import ObjectStore
import ReportRenderers

/// The rows of a report, read from an open cursor.
struct StoreRowSource: ReportRowSource {
    var cursor: StoredRowCursor
    let decoders: [CellDecoder]

    var rowCount: Int? { nil }

    mutating func nextRow() throws -> [ReportCell]? {
        guard let row = try cursor.next() else { return nil }
        var cells: [ReportCell] = []
        cells.reserveCapacity(decoders.count)
        for i in decoders.indices {
            cells.append(decoders[i].cell(row[i]))
        }
        return cells
    }
}

/// The rows a renderer reads, counted as they go (for "wrote FILE (N rows)").
struct CountedRows<Base: ReportRowSource>: ReportRowSource {
    var base: Base
    private(set) var delivered = 0

    init(_ base: Base) {
        self.base = base
    }

    var rowCount: Int? { base.rowCount }

    mutating func nextRow() throws -> [ReportCell]? {
        guard let row = try base.nextRow() else { return nil }
        delivered += 1
        return row
    }
}

extension PreparedReport {
    /// Opens a cursor on the rows in a read transaction (with the missing periods filled in), then calls `body`.
    func withRows<T>(in store: Store, _ body: (inout CountedRows<PeriodFilledRows<StoreRowSource>>) throws -> T) throws -> T {
        try store.withRows(plan, counted: false) { _, cursor in
            let source = StoreRowSource(cursor: cursor, decoders: decoders)
            var rows = CountedRows(PeriodFilledRows(base: source, fill: periodFill))
            return try body(&rows)
        }
    }

    /// Renders the report from `store` to `output` (a file is written atomically); returns the number of rows.
    @discardableResult
    public func render(from store: Store, with renderer: any ReportRenderer, to output: ReportOutput) throws -> Int {
        try withRows(in: store) { rows in
            try renderer.render(document, rows: &rows, to: output)
            return rows.delivered
        }
    }

    /// Adds the report as a worksheet of `workbook`; returns the sheet's name.
    @discardableResult
    public func add(to workbook: XLSXWorkbook, from store: Store) throws -> String {
        try withRows(in: store) { rows in
            try workbook.add(document, rows: &rows)
        }
    }

    /// The cells of every row, in memory.
    public func rows(from store: Store) throws -> [[ReportCell]] {
        try withRows(in: store) { rows in
            var all: [[ReportCell]] = []
            while let row = try rows.nextRow() { all.append(row) }
            return all
        }
    }
}
