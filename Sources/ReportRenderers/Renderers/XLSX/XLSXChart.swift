// The chart a report asks for, drawn over its data rows.
//
// - Data caches: libxlsxwriter 1.1.4 fills a chart's cached values (what viewers that do not
//   recalculate draw) only from a worksheet kept in memory, so a charted report's sheet is written
//   in normal mode (XLSXWorkbook.add) — when it has at most 10,000 rows (about 10 MB). A larger one
//   streams like any other sheet and its chart has no caches: Excel and LibreOffice draw it from the
//   cells, viewers that do not recalculate show it empty. Nothing in a definition bounds the rows
//   (a grouped report over many customers is large too), so the renderer must. A cache whose text
//   holds a control character is left out as well: libxlsxwriter would write it raw.
// - The value axis takes its number format from the first value column; a single series has no
//   legend (its name is the chart's subject); category labels are turned 45° when they would not
//   fit side by side, so that a label such as `2025-12` is never broken over two lines.
// - Placement, so that it prints whole: beside the table when both fit the page width, else below
//   the table, on a new page (a manual page break) when it would otherwise be cut by one.

import CXLSXWriter

struct XLSXChart {
    /// libxlsxwriter's default chart size.
    static let widthPixels = 480.0
    static let heightPixels = 288.0
    /// The plot area's share of the chart's width, less the value axis labels.
    static let plotPixels = 380.0
    /// Space between the table and a chart beside it (one default column).
    static let gapPixels = 64.0

    let spec: ChartSpec
    let document: ReportDocument

    /// Draws the chart on `sheet`, placed by `layout`; `longestCategory` is the widest category label
    /// in characters.
    func insert(workbook: UnsafeMutablePointer<lxw_workbook>, sheet: UnsafeMutablePointer<lxw_worksheet>, sheetName: String,
                writer: XLSXCellWriter, rowCount: Int, hasTotals: Bool, tablePixels: Double, layout: XLSXPageSetup,
                longestCategory: Int, xmlUnsafeText: [Bool]) throws {
        let type: lxw_chart_type
        switch spec.kind {
        case .column: type = LXW_CHART_COLUMN
        case .bar: type = LXW_CHART_BAR
        case .line: type = LXW_CHART_LINE
        case .pie: type = LXW_CHART_PIE
        }
        guard let chart = workbook_add_chart(workbook, UInt8(type.rawValue)) else {
            throw ReportRenderError(file: writer.file, kind: .xlsx(operation: "add the chart", message: "out of memory"))
        }
        let lastRow = lxw_row_t(rowCount)
        let categories = lxw_col_t(spec.categoriesColumn)
        for valueColumn in spec.valueColumns {
            guard let series = chart_add_series(chart, nil, nil) else {
                throw ReportRenderError(file: writer.file, kind: .xlsx(operation: "add a chart series", message: "out of memory"))
            }
            chart_series_set_categories(series, sheetName, 1, categories, lastRow, categories)
            chart_series_set_values(series, sheetName, 1, lxw_col_t(valueColumn), lastRow, lxw_col_t(valueColumn))
            chart_series_set_name_range(series, sheetName, 0, lxw_col_t(valueColumn))
            // libxlsxwriter copies cached text raw into the chart's XML; a control character there would break
            // the file, so such a range goes without its cache (viewers read the cells instead).
            if xmlUnsafeText[spec.categoriesColumn] { series.pointee.categories.pointee.ignore_cache = 1 }
            if xmlUnsafeText[valueColumn] { series.pointee.title.range.pointee.ignore_cache = 1 }
        }
        if let title = spec.title {
            // A title starting with `=` would be read as a cell reference; XML cannot hold control characters.
            let safe = XLSXText.singleLine(title)
            chart_title_set_name(chart, safe.hasPrefix("=") ? " " + safe : safe)
        }
        if spec.kind != .pie {
            if spec.valueColumns.count == 1 { chart_legend_set_position(chart, UInt8(LXW_CHART_LEGEND_NONE.rawValue)) }
            let valueColumn = document.columns[spec.valueColumns[0]]
            if let number = XLSXFormats.numberFormat(valueColumn.format, scale: valueColumn.format == .money ? 2 : 0,
                                                     negative: document.negative) {
                chart_axis_set_num_format(spec.kind == .bar ? chart.pointee.x_axis : chart.pointee.y_axis, number)
            }
            let categoryAxis = spec.kind == .bar ? chart.pointee.y_axis : chart.pointee.x_axis
            if let unit = document.columns[spec.categoriesColumn].period, let number = XLSXFormats.periodAxisFormat(unit) {
                chart_axis_set_num_format(categoryAxis, number)
            }
            let perCategory = XLSXChart.plotPixels / Double(max(rowCount, 1))
            if Double(longestCategory) * 7 + 8 > perCategory {
                var font = lxw_chart_font()
                font.rotation = -45
                chart_axis_set_num_font(categoryAxis, &font)
            }
        }

        // Beside the table when both fit the page's width, else under it.
        let beside = tablePixels + XLSXChart.gapPixels + XLSXChart.widthPixels <= layout.pageWidthPixels
        let row: Int
        let column: Int
        if beside {
            row = 1
            column = min(document.columns.count + 1, XLSXWorkbook.maximumColumns - 1)
        } else {
            row = rowCount + (hasTotals ? 3 : 2)
            column = 0
            if XLSXChart.crossesPageBreak(chartRow: row, layout: layout, tablePixels: tablePixels) {
                var breaks: [lxw_row_t] = [lxw_row_t(row), 0]
                try writer.check(worksheet_set_h_pagebreaks(writer.sheet, &breaks), "keep the chart on one page")
            }
        }
        try writer.check(worksheet_insert_chart(writer.sheet, lxw_row_t(row), lxw_col_t(column), chart), "insert the chart")
    }

    /// Whether a chart starting at `chartRow` would be cut by a page break: the rows before it fill
    /// pages (each after the first repeats the header row), at the scale the width is fitted to, with
    /// a row's margin for the difference between this estimate and a printer's.
    static func crossesPageBreak(chartRow: Int, layout: XLSXPageSetup, tablePixels: Double) -> Bool {
        let scale = layout.scale(forWidth: max(tablePixels, widthPixels))
        let rowsPerPage = max(Int(layout.pageHeightPixels / (XLSXPageSetup.rowPixels * scale)) - 1, 2)
        var rowOnPage = chartRow
        if rowOnPage >= rowsPerPage {
            rowOnPage = 1 + (chartRow - rowsPerPage) % (rowsPerPage - 1)
        }
        let chartRows = Int((heightPixels / XLSXPageSetup.rowPixels).rounded(.up))
        return rowOnPage + chartRows >= rowsPerPage
    }
}
