// The XLSX format: workbooks for accountants, through libxlsxwriter in constant-memory mode.
//
// The format (a contract; XLSXRendererTests read it back with openpyxl):
// - One worksheet per report (named from `document.name`, see XLSXSheetNames.swift), then one
//   sheet `About` describing every report: title, sheet, description, parameters, sort,
//   generation time with its zone, row count. The document properties hold the title, the
//   description as subject, the parameters, sort and generation time as comments, and the
//   generation time as the creation date.
// - Row 1: the column titles, bold, frozen (`freeze_panes` A2) and under an autofilter that
//   covers the header and the data rows.
// - Real cell types: numbers for integer, number, money and percent columns (money `#,##0.00`,
//   decimals `0.00…` at their scale, integers `0`, percentages `0%`/`0.0%`… at scale − 2), dates
//   and date-times as Excel dates (`yyyy-mm-dd`, `yyyy-mm-dd hh:mm` in the document's zone),
//   booleans as booleans, codes and texts as strings — with Excel's "number stored as text" check
//   turned off for the sheet. Values Excel cannot hold as such are written as text: NaN and
//   infinities, dates outside 1900–9999. Strings longer than Excel's 32,767 characters are cut.
// - Under the data (when there are rows and total columns): `Total` in the first column unless it
//   has a total, and for each total column `SUBTOTAL(109,X2:Xn)` — so filtering keeps totals
//   right — written with its exact value cached, so viewers that do not recalculate show it too.
//   (Not libxlsxwriter's table totals, which LibreOffice mishandles.)
// - Column widths: the width a column asks for, else its longest shown value (and title) plus a
//   margin, at most 60 (libxlsxwriter 1.1.4 has no autofit).
// - The chart, if the document has one, right of the data: categories from one column, a series
//   per value column named by its title.
//
// Memory does not grow with rows: libxlsxwriter streams each sheet's rows to a temporary file
// (unlinked at once) beside the workbook being assembled, and this file keeps only per-column widths
// and totals. Rows must come in order and the autofilter is set before the first data row: that is
// why `rowCount` is known up front. The workbook is assembled at an `OutputFile`'s assembly path:
// renamed into place for a file, copied out for standard output, a device or a pipe.

import CXLSXWriter
import FileOutput
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One report, one worksheet, plus the About sheet.
public struct XLSXRenderer: ReportRenderer {
    public init() {}

    public func render<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
                                              to output: ReportOutput) throws {
        let workbook = try XLSXWorkbook(output: output)
        do {
            try workbook.add(document, rows: &rows)
            try workbook.close()
        } catch {
            workbook.discard()
            throw error
        }
    }
}

/// A workbook of several reports, each on its own worksheet, plus one About sheet describing
/// them all (`report --all --format xlsx --output FILE.xlsx`). Call `add` per report, then
/// `close()`. If `add` or `close` throws, the workbook is abandoned — a half-written sheet cannot
/// be taken back — and nothing is left at the output; so is it when released without `close()`.
public final class XLSXWorkbook {
    /// Rows a worksheet can hold besides the header and totals rows.
    public static let maximumRows = 1_048_576 - 2
    public static let maximumColumns = 16_384
    static let maximumComputedWidth = 60
    static let maximumStringLength = 32_767

    private let output: ReportOutput
    private let displayName: String
    private let title: String?
    private let file: OutputFile
    private var workbook: UnsafeMutablePointer<lxw_workbook>?
    /// Owned C strings handed to libxlsxwriter, freed after `workbook_close`.
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var formats: [String: UnsafeMutablePointer<lxw_format>] = [:]
    /// The worksheets added so far (their temporary files are closed by `discard()`).
    private var sheets: [UnsafeMutablePointer<lxw_worksheet>] = []
    private var sheetNames = XLSXSheetNames()
    private var reports: [AboutEntry] = []

    private struct AboutEntry {
        var sheet: String
        var document: ReportDocument
        var rowCount: Int
    }

    /// Creates the temporary file the workbook is assembled in. `title` is the workbook's title
    /// property; nil for the title of its only report (or `Reports`).
    public init(output: ReportOutput, title: String? = nil) throws {
        self.output = output
        self.title = title
        displayName = output.description
        file = try OutputFile(path: output.description, assembledAtPath: true)
        let assemblyPath = file.assemblyPath!
        let slash = assemblyPath.lastIndex(of: "/")
        let temporaryDirectory = slash.map { $0 == assemblyPath.startIndex ? "/" : String(assemblyPath[..<$0]) } ?? "."
        let directory = strdup(temporaryDirectory)!
        cStrings.append(directory)
        var options = lxw_workbook_options(constant_memory: UInt8(LXW_TRUE.rawValue), tmpdir: directory,
                                           use_zip64: UInt8(LXW_FALSE.rawValue))
        guard let workbook = workbook_new_opt(assemblyPath, &options) else {
            file.discard()
            freeCStrings()
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "create the workbook", message: "out of memory"))
        }
        self.workbook = workbook
    }

    deinit {
        discard()
    }

    /// Adds a report on a new worksheet; returns the sheet's name.
    @discardableResult
    public func add<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows) throws -> String {
        guard let workbook else { throw closed }
        do {
            return try addSheet(document, rows: &rows, workbook: workbook)
        } catch {
            discard()
            throw error
        }
    }

    private func addSheet<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
                                                 workbook: UnsafeMutablePointer<lxw_workbook>) throws -> String {
        try document.validate(file: displayName)
        let columns = document.columns
        let rowCount = rows.rowCount
        guard rowCount <= XLSXWorkbook.maximumRows else {
            throw ReportRenderError(file: displayName, kind: .invalidDocument(
                "the report has \(rowCount) rows; a worksheet holds at most \(XLSXWorkbook.maximumRows) besides its header and totals"))
        }
        guard columns.count <= XLSXWorkbook.maximumColumns else {
            throw ReportRenderError(file: displayName, kind: .invalidDocument(
                "the report has \(columns.count) columns; a worksheet holds at most \(XLSXWorkbook.maximumColumns)"))
        }
        let sheetName = sheetNames.name(for: document.name)
        guard let sheet = TemporaryFileCleanup.withSignalsBlocked({ workbook_add_worksheet(workbook, sheetName) }) else {
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "add the worksheet \(sheetName)",
                                                                   message: noTemporaryFile))
        }
        sheets.append(sheet)
        let writer = SheetWriter(sheet: sheet, file: displayName)
        let bold = format(bold: true)

        // Header, frozen pane, autofilter: before the first data row (constant-memory mode).
        var widths = columns.map { TerminalText.width($0.title) + 3 }   // bold, plus the filter button
        for (c, column) in columns.enumerated() {
            try writer.string(column.title, row: 0, column: c, format: bold)
        }
        worksheet_freeze_panes(sheet, 1, 0)
        if !columns.isEmpty {
            try writer.check(worksheet_autofilter(sheet, 0, 0, lxw_row_t(rowCount), lxw_col_t(columns.count - 1)),
                             "set the autofilter")
        }
        try writer.check(worksheet_ignore_errors(sheet, UInt8(LXW_IGNORE_NUMBER_STORED_AS_TEXT.rawValue), "A1:XFD1048576"),
                         "turn off the number-stored-as-text check")

        // Data rows.
        let cells = CellText(timeZone: document.timeZone)
        var totals = [ColumnTotal](repeating: ColumnTotal(), count: columns.count)
        var checked = CheckedRows<Rows>(declared: rowCount, columnCount: columns.count, file: displayName)
        while let row = try checked.next(from: &rows) {
            let r = checked.count
            for (c, column) in columns.enumerated() {
                let shownWidth = try write(row[c], as: column.format, row: r, column: c, writer: writer,
                                           cells: cells, timeZone: document.timeZone)
                if shownWidth > widths[c] { widths[c] = shownWidth }
                if column.hasTotal { totals[c].add(row[c]) }
            }
        }

        // Totals row: SUBTOTAL formulas with their values cached.
        if rowCount > 0, columns.contains(where: \.hasTotal) {
            let r = rowCount + 1
            if !columns[0].hasTotal { try writer.string("Total", row: r, column: 0, format: bold) }
            for (c, column) in columns.enumerated() where column.hasTotal {
                let letter = XLSXWorkbook.columnLetters(c)
                let formula = "=SUBTOTAL(109,\(letter)2:\(letter)\(rowCount + 1))"
                let total = totals[c].value
                let scale = total.scale
                try writer.check(worksheet_write_formula_num(sheet, lxw_row_t(r), lxw_col_t(c), formula,
                                                             format(bold: true, number: XLSXWorkbook.numberFormat(column.format, scale: scale)),
                                                             total.doubleValue), "write the totals")
                widths[c] = max(widths[c], cells.displayNumber(total, as: column.format).count + 1)
            }
        }

        // Column widths (constant-memory mode allows them after the rows: they are written at close).
        for (c, column) in columns.enumerated() {
            let width = column.width.map { Double(min(max($0, 0), 255)) }
                ?? Double(min(widths[c] + 1, XLSXWorkbook.maximumComputedWidth))
            try writer.check(worksheet_set_column(sheet, lxw_col_t(c), lxw_col_t(c), width, nil), "set the column widths")
        }

        if let chart = document.chart, rowCount > 0 {
            try addChart(chart, sheet: sheet, sheetName: sheetName, rowCount: rowCount, columnCount: columns.count)
        }
        reports.append(AboutEntry(sheet: sheetName, document: document, rowCount: rowCount))
        return sheetName
    }

    /// Writes the About sheet and the document properties, assembles the workbook and moves it
    /// into place (or copies it to standard output).
    public func close() throws {
        guard let workbook else { throw closed }
        do {
            try writeAboutSheet()
            setProperties()
            try checkRowFiles()
        } catch {
            discard()
            throw error
        }
        // libxlsxwriter makes its temporary files (tmp.XXXXXXXXXX, in our tmpdir: the target's folder) with
        // tmpfileplus, which unlinks each right after creating it; a SIGINT/SIGTERM/SIGHUP between the two would
        // leave it beside the report. So the cleanup signals wait while libxlsxwriter assembles the workbook
        // (and adds a worksheet, whose row file is one of them); they are acted on as soon as it is done.
        let result = TemporaryFileCleanup.withSignalsBlocked { workbook_close(workbook) }   // frees the workbook, whatever the result
        self.workbook = nil
        sheets.removeAll()
        freeCStrings()
        guard result == LXW_NO_ERROR else {
            file.discard()
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "write the workbook",
                                                                   message: String(cString: lxw_strerror(result))))
        }
        try file.commit()
    }

    /// libxlsxwriter writes each worksheet's rows to a temporary file (constant-memory mode) and does not check
    /// those writes: on a full disk or past `ulimit -f` it would assemble a workbook that silently lacks rows,
    /// and report success. The stream's error flag tells; a flush gives the reason.
    private func checkRowFiles() throws {
        for sheet in sheets {
            guard let rows = sheet.pointee.optimize_tmpfile else { continue }
            errno = 0
            if fflush(rows) != 0 || ferror(rows) != 0 {
                throw ReportRenderError(file: displayName, kind: .io(operation: "write", errno: errno == 0 ? EIO : errno))
            }
        }
    }

    /// Abandons the workbook: nothing is written, the temporary files are removed.
    public func discard() {
        if let workbook {
            // libxlsxwriter 1.1.4 closes a sheet's row file only when assembling the workbook;
            // lxw_workbook_free leaves it open (the file itself is already unlinked).
            for sheet in sheets {
                if let rowsFile = sheet.pointee.optimize_tmpfile {
                    fclose(rowsFile)
                    sheet.pointee.optimize_tmpfile = nil
                }
            }
            sheets.removeAll()
            lxw_workbook_free(workbook)
            self.workbook = nil
        }
        freeCStrings()
        file.discard()
    }

    // MARK: Cells

    /// Writes one cell; returns the width of its shown text (for the column width).
    private func write(_ cell: ReportCell, as columnFormat: ColumnFormat, row: Int, column: Int,
                       writer: SheetWriter, cells: CellText, timeZone: TimeZone) throws -> Int {
        switch cell {
        case .null:
            return 0
        case let .text(text):
            try writer.string(text, row: row, column: column, format: nil)
            return min(TerminalText.width(text), XLSXWorkbook.maximumComputedWidth)
        case let .integer(value):
            if !columnFormat.isNumeric {
                let text = String(value)
                try writer.string(text, row: row, column: column, format: nil)
                return text.utf8.count
            }
            try writer.number(Double(value), row: row, column: column,
                              format: format(number: XLSXWorkbook.numberFormat(columnFormat, scale: 0)))
            return cells.display(cell, as: columnFormat).utf8.count
        case let .decimal(units, scale):
            let number = DecimalText(units: units, scale: scale)
            if !columnFormat.isNumeric {
                let text = number.text()
                try writer.string(text, row: row, column: column, format: nil)
                return text.utf8.count
            }
            try writer.number(number.doubleValue, row: row, column: column,
                              format: format(number: XLSXWorkbook.numberFormat(columnFormat, scale: scale)))
            return cells.displayNumber(number, as: columnFormat).utf8.count
        case let .double(value):
            guard value.isFinite, let number = DecimalText(double: value) else {
                let text = CellText.nonFinite(value)
                try writer.string(text, row: row, column: column, format: nil)
                return text.utf8.count
            }
            if !columnFormat.isNumeric {
                let text = number.text()
                try writer.string(text, row: row, column: column, format: nil)
                return text.utf8.count
            }
            try writer.number(value == 0 ? 0 : value, row: row, column: column,
                              format: format(number: XLSXWorkbook.numberFormat(columnFormat, scale: nil)))
            // General shows at most 11 characters.
            let shown = cells.displayNumber(number, as: columnFormat).utf8.count
            return columnFormat == .number ? min(shown, 11) : shown
        case let .date(year, month, day):
            guard XLSXWorkbook.isExcelDate(year: year, month: month, day: day) else {
                let text = CalendarText.isoDate(year: year, month: month, day: day)
                try writer.string(text, row: row, column: column, format: nil)
                return text.utf8.count
            }
            var value = lxw_datetime(year: Int32(year), month: Int32(month), day: Int32(day), hour: 0, min: 0, sec: 0)
            try writer.check(worksheet_write_datetime(writer.sheet, lxw_row_t(row), lxw_col_t(column), &value,
                                                      format(number: "yyyy-mm-dd")), "write row \(row)")
            return 10
        case let .dateTime(seconds):
            let local = LocalDateTime(secondsSinceEpoch: seconds, timeZone: timeZone)
            let dateOnly = columnFormat == .date
            guard XLSXWorkbook.isExcelDate(year: local.year, month: local.month, day: local.day) else {
                let text = cells.display(cell, as: columnFormat)
                try writer.string(text, row: row, column: column, format: nil)
                return text.utf8.count
            }
            var value = lxw_datetime(year: Int32(local.year), month: Int32(local.month), day: Int32(local.day),
                                     hour: Int32(dateOnly ? 0 : local.hour), min: Int32(dateOnly ? 0 : local.minute),
                                     sec: dateOnly ? 0 : Double(local.second))
            try writer.check(worksheet_write_datetime(writer.sheet, lxw_row_t(row), lxw_col_t(column), &value,
                                                      format(number: dateOnly ? "yyyy-mm-dd" : "yyyy-mm-dd hh:mm")),
                             "write row \(row)")
            return dateOnly ? 10 : 16
        case let .boolean(value):
            try writer.check(worksheet_write_boolean(writer.sheet, lxw_row_t(row), lxw_col_t(column), value ? 1 : 0, nil),
                             "write row \(row)")
            return 5
        }
    }

    /// The Excel number format for a numeric column's values (`scale` nil for doubles).
    static func numberFormat(_ format: ColumnFormat, scale: Int?) -> String? {
        func decimals(_ count: Int) -> String {
            let count = min(max(count, 0), 30)
            return count == 0 ? "0" : "0." + String(repeating: "0", count: count)
        }
        switch format {
        case .money: return "#,##0.00"
        case .integer: return decimals(scale ?? 0)
        case .number: return scale.map(decimals)
        case .percent: return decimals(scale.map { $0 - 2 } ?? 1) + "%"
        case .text, .code, .date, .dateTime, .boolean: return nil
        }
    }

    static func isExcelDate(year: Int, month: Int, day: Int) -> Bool {
        guard (1900...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return false }
        let round = CalendarText.date(days: CalendarText.days(year: year, month: month, day: day))
        return round.year == year && round.month == month && round.day == day
    }

    /// `A`, `Z`, `AA`… for a 0-based column index.
    static func columnLetters(_ index: Int) -> String {
        var index = index
        var letters = ""
        repeat {
            letters = String(UnicodeScalar(UInt8(65 + index % 26))) + letters
            index = index / 26 - 1
        } while index >= 0
        return letters
    }

    // MARK: Chart, About, properties

    private func addChart(_ spec: ChartSpec, sheet: UnsafeMutablePointer<lxw_worksheet>, sheetName: String,
                          rowCount: Int, columnCount: Int) throws {
        let type: lxw_chart_type
        switch spec.kind {
        case .column: type = LXW_CHART_COLUMN
        case .bar: type = LXW_CHART_BAR
        case .line: type = LXW_CHART_LINE
        case .pie: type = LXW_CHART_PIE
        }
        guard let chart = workbook_add_chart(workbook, UInt8(type.rawValue)) else {
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "add the chart", message: "out of memory"))
        }
        let lastRow = lxw_row_t(rowCount)
        let categories = lxw_col_t(spec.categoriesColumn)
        for valueColumn in spec.valueColumns {
            guard let series = chart_add_series(chart, nil, nil) else {
                throw ReportRenderError(file: displayName, kind: .xlsx(operation: "add a chart series", message: "out of memory"))
            }
            chart_series_set_categories(series, sheetName, 1, categories, lastRow, categories)
            chart_series_set_values(series, sheetName, 1, lxw_col_t(valueColumn), lastRow, lxw_col_t(valueColumn))
            chart_series_set_name_range(series, sheetName, 0, lxw_col_t(valueColumn))
        }
        if let title = spec.title {
            // A title starting with `=` would be read as a cell reference.
            chart_title_set_name(chart, title.hasPrefix("=") ? " " + title : title)
        }
        let writer = SheetWriter(sheet: sheet, file: displayName)
        try writer.check(worksheet_insert_chart(sheet, 1, lxw_col_t(min(columnCount + 1, XLSXWorkbook.maximumColumns - 1)), chart),
                         "insert the chart")
    }

    private func writeAboutSheet() throws {
        guard let sheet = TemporaryFileCleanup.withSignalsBlocked({ workbook_add_worksheet(workbook, XLSXSheetNames.aboutSheet) }) else {
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "add the About sheet", message: noTemporaryFile))
        }
        sheets.append(sheet)
        let writer = SheetWriter(sheet: sheet, file: displayName)
        let bold = format(bold: true)
        let indented = format(indent: true)
        var row = 0
        var widest = 20
        func line(_ label: String, _ value: String, labelFormat: UnsafeMutablePointer<lxw_format>? = bold,
                  valueFormat: UnsafeMutablePointer<lxw_format>? = nil) throws {
            try writer.string(label, row: row, column: 0, format: labelFormat)
            try writer.string(value, row: row, column: 1, format: valueFormat)
            widest = max(widest, TerminalText.width(value) + 2)
            row += 1
        }
        for (i, report) in reports.enumerated() {
            if i > 0 { row += 1 }
            let document = report.document
            try line("Title", document.title, valueFormat: bold)
            try line("Sheet", report.sheet)
            if let description = document.description { try line("Description", description) }
            if !document.parameters.isEmpty {
                try writer.string("Parameters", row: row, column: 0, format: bold)
                row += 1
                for parameter in document.parameters {
                    try line(parameter.name, parameter.value, labelFormat: indented)
                }
            }
            if let sort = document.sortDescription { try line("Sort", sort) }
            try line("Generated", XLSXWorkbook.generatedText(document))
            try writer.string("Rows", row: row, column: 0, format: bold)
            try writer.number(Double(report.rowCount), row: row, column: 1, format: format(number: "0", alignLeft: true))
            row += 1
        }
        try writer.check(worksheet_set_column(sheet, 0, 0, 16, nil), "set the column widths")
        try writer.check(worksheet_set_column(sheet, 1, 1, Double(min(widest, 100)), nil), "set the column widths")
    }

    private static func generatedText(_ document: ReportDocument) -> String {
        let local = LocalDateTime(document.generatedAt, timeZone: document.timeZone)
        return local.minutesText + " " + document.timeZone.reportLabel(at: document.generatedAt)
    }

    private func setProperties() {
        var properties = lxw_doc_properties()
        let created: Date
        if reports.count == 1, let document = reports.first?.document {
            properties.title = cString(title ?? document.title)
            if let description = document.description { properties.subject = cString(description) }
            var comments = document.parameters.map { "\($0.name): \($0.value)" }
            if let sort = document.sortDescription { comments.append("Sort: \(sort)") }
            comments.append("Generated \(XLSXWorkbook.generatedText(document))")
            properties.comments = cString(comments.joined(separator: "\n"))
            created = document.generatedAt
        } else {
            properties.title = cString(title ?? "Reports")
            properties.comments = cString(reports.map { "\($0.sheet): \($0.document.title)" }.joined(separator: "\n"))
            created = reports.map(\.document.generatedAt).min() ?? Date()
        }
        properties.created = time_t(created.timeIntervalSince1970.rounded(.down))
        workbook_set_properties(workbook, &properties)
    }

    // MARK: Helpers

    private var closed: ReportRenderError {
        ReportRenderError(file: displayName, kind: .xlsx(operation: "use the workbook",
                                                         message: "it was closed or abandoned after an error"))
    }

    /// Why libxlsxwriter refuses a sheet whose name is valid: it could not create the sheet's
    /// temporary file.
    private var noTemporaryFile: String {
        "libxlsxwriter could not create its temporary file for it: is the directory writable and not full?"
    }

    /// A cached format: bold, a number format, an indent.
    private func format(bold: Bool = false, number: String? = nil, indent: Bool = false,
                        alignLeft: Bool = false) -> UnsafeMutablePointer<lxw_format>? {
        guard bold || number != nil || indent || alignLeft else { return nil }
        let key = "\(bold ? "b" : "")\(indent ? "i" : "")\(alignLeft ? "l" : "")|\(number ?? "")"
        if let cached = formats[key] { return cached }
        guard let created = workbook_add_format(workbook) else { return nil }
        if bold { format_set_bold(created) }
        if let number { format_set_num_format(created, number) }
        if indent { format_set_indent(created, 1) }
        if alignLeft { format_set_align(created, UInt8(LXW_ALIGN_LEFT.rawValue)) }
        formats[key] = created
        return created
    }

    private func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(text.replacingOccurrences(of: "\0", with: "\u{FFFD}"))!
        cStrings.append(pointer)
        return pointer
    }

    private func freeCStrings() {
        for pointer in cStrings { free(pointer) }
        cStrings.removeAll()
    }
}

/// Writes cells of one worksheet, turning libxlsxwriter's error codes into `ReportRenderError`.
private struct SheetWriter {
    let sheet: UnsafeMutablePointer<lxw_worksheet>
    let file: String

    func check(_ result: lxw_error, _ operation: @autoclosure () -> String) throws {
        guard result != LXW_NO_ERROR else { return }
        throw ReportRenderError(file: file, kind: .xlsx(operation: operation(), message: String(cString: lxw_strerror(result))))
    }

    func string(_ text: String, row: Int, column: Int, format: UnsafeMutablePointer<lxw_format>?) throws {
        var text = text
        if text.utf8.count > XLSXWorkbook.maximumStringLength {
            // Excel's limit counts UTF-16 units; cut at a character boundary.
            var length = 0
            var cut = text.startIndex
            for index in text.indices {
                let units = text[index].utf16.count
                if length + units > XLSXWorkbook.maximumStringLength { break }
                length += units
                cut = text.index(after: index)
            }
            text = String(text[..<cut])
        }
        if text.utf8.contains(0) { text = text.replacingOccurrences(of: "\0", with: "\u{FFFD}") }
        try check(worksheet_write_string(sheet, lxw_row_t(row), lxw_col_t(column), text, format), "write row \(row)")
    }

    func number(_ value: Double, row: Int, column: Int, format: UnsafeMutablePointer<lxw_format>?) throws {
        try check(worksheet_write_number(sheet, lxw_row_t(row), lxw_col_t(column), value, format), "write row \(row)")
    }
}
