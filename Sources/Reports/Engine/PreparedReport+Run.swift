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
    /// Each column's decoder as the type its values are decoded as and the decimals a rounding keeps, worked out once
    /// rather than per cell.
    private let columns: [(type: AttributeType, shown: Int?, listItem: AttributeType?)]
    /// The stored values of the row being read, in one array for every row.
    private var row: [StoredValue] = []

    init(cursor: StoredRowCursor, decoders: [CellDecoder]) {
        self.cursor = cursor
        self.decoders = decoders
        columns = decoders.map { ($0.type, $0.shown, $0.listItem) }
    }

    var rowCount: Int? { nil }

    mutating func nextRow() throws -> [ReportCell]? {
        guard try cursor.next(into: &row) else { return nil }
        var cells: [ReportCell] = []
        cells.reserveCapacity(decoders.count)
        for i in columns.indices {
            // An infinity, stored by another tool or summed: no format writes one so that it reads back.
            if case .real(let d) = row[i], !d.isFinite { throw NonFiniteCell(column: i) }
            let (type, shown, listItem) = columns[i]
            let cell = listItem.map { ReportCell(list: row[i], itemType: $0) } ?? row[i].decoded(as: type)
            cells.append(shown.map { cell.rounded(toScale: $0) } ?? cell)
        }
        return cells
    }
}

/// A cell that is not a finite number, in column `column`: the report stops, and `withRows` says why.
struct NonFiniteCell: Error {
    let column: Int
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
    /// A cell that is not a finite number ends the report (nothing is left at a file output) with the stored
    /// value it came from (`Item/3.weight: the store holds a non-finite number …`), else with its column: a sum
    /// or an average beyond what a double holds (Store+NonFinite.swift).
    func withRows<T>(in store: Store, file: String? = nil, _ body: (inout CountedRows<PeriodFilledRows<StoreRowSource>>) throws -> T) throws -> T {
        do {
            return try store.withRows(plan, counted: false) { _, cursor in
                let source = StoreRowSource(cursor: cursor, decoders: decoders)
                var rows = CountedRows(PeriodFilledRows(base: source, fill: periodFill))
                return try body(&rows)
            }
        } catch let cell as NonFiniteCell {
            throw try store.nonFiniteError(place: "column \"\(document.columns[cell.column].title)\"",
                                           keyPath: plan.columns[cell.column].keyPath, file: file)
        }
    }

    /// Renders the report from `store` to `output` (a file is written atomically); returns the number of rows.
    @discardableResult
    package func render(from store: Store, with renderer: any ReportRenderer, to output: ReportOutput) throws -> Int {
        try withRows(in: store, file: output.description) { rows in
            try renderer.render(document, rows: &rows, to: output)
            return rows.delivered
        }
    }

    /// Adds the report as a worksheet of `workbook`; returns the sheet's name.
    @discardableResult
    package func add(to workbook: XLSXWorkbook, from store: Store) throws -> String {
        try withRows(in: store, file: workbook.displayName) { rows in
            try workbook.add(document, rows: &rows)
        }
    }

    /// The cells of every row, in memory.
    package func rows(from store: Store) throws -> [[ReportCell]] {
        try withRows(in: store) { rows in
            var all: [[ReportCell]] = []
            while let row = try rows.nextRow() { all.append(row) }
            return all
        }
    }
}
