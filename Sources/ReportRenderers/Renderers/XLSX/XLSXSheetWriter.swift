// One report on one worksheet: the header row, the data rows as they stream in, the totals row,
// column widths, the autofilter and the page set-up.
//
// Nothing here needs the number of rows before the last one: the autofilter, the totals formulas
// and the page set-up are recorded by libxlsxwriter and written when the workbook is assembled, so
// a report is read in one pass with no count statement before it.

import CXLSXWriter
import Foundation
import ValueText

/// What the About sheet says of a written report.
struct XLSXSheetSummary {
    var sheet: String
    var document: ReportDocument
    var rowCount: Int
    /// Cells a spreadsheet rounds (at most `XLSXSheetWriter.maximumInexactListed` of them).
    var inexact: [XLSXInexactCell]
    var inexactCount: Int
    /// Text cells cut to 32,767 characters (at most `XLSXSheetWriter.maximumInexactListed` of them).
    var shortened: [XLSXShortenedCell] = []
    var shortenedCount = 0
    /// Dates and date-times written as text, being before 1900-03-01 or after 9999, and the first one's cell.
    var textDateCount = 0
    var firstTextDate: String?
    /// Doubles written as text, being so near ±1.8e308 that the 16 digits written would open as infinity.
    var textNumberCount = 0
    var firstTextNumber: String?
    /// When the sheet's chart has no cached data, the row count past which it has none (too many rows to keep
    /// the sheet in memory); nil otherwise.
    var chartWithoutCacheOver: Int?
}

struct XLSXSheetWriter {
    /// How many rounded (or cut) cells the About sheet lists by name; it counts the rest.
    static let maximumInexactListed = 20

    let document: ReportDocument
    let workbook: UnsafeMutablePointer<lxw_workbook>
    let sheet: UnsafeMutablePointer<lxw_worksheet>
    let sheetName: String
    let formats: XLSXFormats
    let writer: XLSXCellWriter
    /// Data rows the sheet may hold (`XLSXWorkbook.maximumRows` but in tests).
    let rowLimit: Int

    private let columns: [ReportColumn]
    private let cells: CellText
    private var widths: [Int]
    /// The widest value of each column (for the chart's category labels).
    private var longest: [Int]
    private var totals: [ColumnTotal]
    private var inexact: [XLSXInexactCell] = []
    private var inexactCount = 0
    private var shortened: [XLSXShortenedCell] = []
    private var shortenedCount = 0
    /// A number's shown bytes, for its width (CellBytes).
    private var shownBytes: [UInt8] = []
    private var textDateCount = 0
    private var firstTextDate: String?
    private var textNumberCount = 0
    private var firstTextNumber: String?
    /// Per column, whether a text in it (its title included) holds a character XML forbids: libxlsxwriter would
    /// copy it raw into the chart's data cache (XLSXChart.swift).
    private var holdsXMLUnsafeText: [Bool]
    /// Per column, the data format last used and the scale it was made for: decimals of one column
    /// share a scale, so a format is looked up once per column rather than once per cell.
    private var dataFormats: [(scale: Int?, format: UnsafeMutablePointer<lxw_format>?)?]
    private let dateFormat: UnsafeMutablePointer<lxw_format>?
    private let dateTimeFormat: UnsafeMutablePointer<lxw_format>?

    init(document: ReportDocument, workbook: UnsafeMutablePointer<lxw_workbook>, sheet: UnsafeMutablePointer<lxw_worksheet>,
         sheetName: String, formats: XLSXFormats, file: String, rowLimit: Int = XLSXWorkbook.maximumRows) {
        self.document = document
        self.workbook = workbook
        self.sheet = sheet
        self.sheetName = sheetName
        self.formats = formats
        writer = XLSXCellWriter(sheet: sheet, file: file)
        self.rowLimit = rowLimit
        columns = document.columns
        cells = CellText(timeZone: document.timeZone)
        widths = columns.map { TerminalText.width($0.title) + 3 }   // bold, plus the filter button
        longest = Array(repeating: 0, count: columns.count)
        totals = [ColumnTotal](repeating: ColumnTotal(), count: columns.count)
        dataFormats = Array(repeating: nil, count: columns.count)
        holdsXMLUnsafeText = Array(repeating: false, count: columns.count)
        dateFormat = formats.format(XLSXCellStyle(number: "yyyy-mm-dd"))
        dateTimeFormat = formats.format(XLSXCellStyle(number: "yyyy-mm-dd hh:mm"))
    }

    /// Writes the whole sheet from `rows`; returns what the About sheet needs.
    mutating func write<Rows: ReportRowSource>(rows: inout Rows) throws -> XLSXSheetSummary {
        // Header: filled, bordered, aligned as its column, frozen.
        for (c, column) in columns.enumerated() {
            try writeText(column.title, row: 0, column: c, format: formats.format(XLSXFormats.headerStyle(for: column)))
        }
        worksheet_freeze_panes(sheet, 1, 0)
        try writer.check(worksheet_ignore_errors(sheet, UInt8(LXW_IGNORE_NUMBER_STORED_AS_TEXT.rawValue), "A1:XFD1048576"),
                         "turn off the number-stored-as-text check")

        // Data rows.
        var checked = CheckedRows<Rows>(declared: rows.rowCount, columnCount: columns.count, file: writer.file)
        while let row = try checked.next(from: &rows) {
            let r = checked.count
            guard r <= rowLimit else {
                throw ReportRenderError(file: writer.file, kind: .beyondFormat(
                    "the report has more than \(rowLimit) rows; a worksheet holds at most "
                    + "\(rowLimit) besides its header and totals"))
            }
            for c in columns.indices {
                let shownWidth: Int
                if let label = columns[c].label(for: row[c]) {
                    try writeText(label, row: r, column: c, format: nil)
                    shownWidth = TerminalText.width(label)
                } else if let unit = columns[c].period, let period = ReportPeriod(unit: unit, cell: row[c]) {
                    shownWidth = try write(period, column: c, row: r)
                } else {
                    shownWidth = try write(row[c], column: c, row: r)
                }
                if shownWidth > longest[c] { longest[c] = shownWidth }
                if columns[c].hasTotal { totals[c].add(row[c]) }
            }
        }
        let rowCount = checked.count
        for c in columns.indices where longest[c] > widths[c] { widths[c] = longest[c] }

        // The autofilter covers the header and the data rows, now that their number is known.
        if !columns.isEmpty {
            try writer.check(worksheet_autofilter(sheet, 0, 0, lxw_row_t(rowCount), lxw_col_t(columns.count - 1)),
                             "set the autofilter")
        }
        if rowCount > 0, columns.contains(where: \.hasTotal) { try writeTotals(after: rowCount) }

        // Column widths (recorded now, written when the workbook is assembled).
        var tablePixels = 0.0
        for (c, column) in columns.enumerated() {
            let width = column.width.map { Double(min(max($0, 0), 255)) }
                ?? Double(min(widths[c] + 1, XLSXWorkbook.maximumComputedWidth))
            tablePixels += XLSXPageSetup.pixels(ofWidth: width)
            try writer.check(worksheet_set_column(sheet, lxw_col_t(c), lxw_col_t(c), width, nil), "set the column widths")
        }

        let layout = XLSXPageSetup(tableWidth: tablePixels)
        if let chart = document.chart, rowCount > 0 {
            try XLSXChart(spec: chart, document: document).insert(
                workbook: workbook, sheet: sheet, sheetName: sheetName, writer: writer, rowCount: rowCount,
                hasTotals: columns.contains(where: \.hasTotal), tablePixels: tablePixels, layout: layout,
                longestCategory: longest[chart.categoriesColumn], xmlUnsafeText: holdsXMLUnsafeText)
        }
        try layout.apply(to: sheet, writer: writer, repeatHeader: true, title: document.title,
                         parameters: document.parameters, generated: XLSXWorkbook.generatedText(document))
        return XLSXSheetSummary(sheet: sheetName, document: document, rowCount: rowCount, inexact: inexact,
                                inexactCount: inexactCount, shortened: shortened, shortenedCount: shortenedCount,
                                textDateCount: textDateCount, firstTextDate: firstTextDate,
                                textNumberCount: textNumberCount, firstTextNumber: firstTextNumber)
    }

    /// `Total` in the first column unless it has a total, and `SUBTOTAL(109,X2:Xn)` under each total
    /// column (so filtering keeps totals right) with its exact value cached; a line above the row and a
    /// double line below it, across every column.
    private mutating func writeTotals(after rowCount: Int) throws {
        let r = rowCount + 1
        let plain = formats.format(XLSXCellStyle(bold: true, totals: true))
        for (c, column) in columns.enumerated() {
            guard column.hasTotal else {
                if c == 0 {
                    try writeText("Total", row: r, column: 0, format: plain)
                } else {
                    try writer.blank(row: r, column: c, format: plain)
                }
                continue
            }
            let letter = XLSXWorkbook.columnLetters(c)
            let formula = "=SUBTOTAL(109,\(letter)2:\(letter)\(rowCount + 1))"
            let total = try totals[c].checkedValue(column: column.title, file: writer.file)
            let number = XLSXFormats.numberFormat(column.format, scale: total.scale, negative: document.negative)
            try writer.check(worksheet_write_formula_num(sheet, lxw_row_t(r), lxw_col_t(c), formula,
                                                         formats.format(XLSXCellStyle(bold: true, number: number, totals: true)),
                                                         total.doubleValue), "write the totals")
            note(total, row: r, column: c)
            widths[c] = max(widths[c], cells.displayNumber(total, as: column.format).count + 1)
        }
    }

    /// Writes a text cell; notes it when it is cut, and, in a charted sheet, when it holds a character XML forbids.
    private mutating func writeText(_ text: String, row: Int, column c: Int, format: UnsafeMutablePointer<lxw_format>?) throws {
        if try writer.string(text, row: row, column: c, format: format) {
            shortenedCount += 1
            if shortened.count < XLSXSheetWriter.maximumInexactListed {
                shortened.append(XLSXShortenedCell(reference: "\(XLSXWorkbook.columnLetters(c))\(row + 1)", length: text.count))
            }
        }
        if document.chart != nil, !holdsXMLUnsafeText[c], text.unicodeScalars.contains(where: XLSXText.isForbidden) {
            holdsXMLUnsafeText[c] = true
        }
    }

    /// Notes a date written as text (XLSXWorkbook.isExcelDate).
    private mutating func noteTextDate(row: Int, column: Int) {
        textDateCount += 1
        if firstTextDate == nil { firstTextDate = "\(XLSXWorkbook.columnLetters(column))\(row + 1)" }
    }

    /// Below this magnitude, %.16G never rounds a double up to infinity (a fast test before `writtenForm`).
    static let largestWrittenAsNumber = 1.797693134862315e308

    /// The number a sheet holds for `value`: libxlsxwriter writes it with %.16G (utility.h, lxw_sprintf_dbl).
    static func writtenForm(_ value: Double) -> Double {
        Double(String(format: "%.16G", value)) ?? .nan
    }

    /// Notes a number written as text (it would open as infinity).
    private mutating func noteTextNumber(row: Int, column: Int) {
        textNumberCount += 1
        if firstTextNumber == nil { firstTextNumber = "\(XLSXWorkbook.columnLetters(column))\(row + 1)" }
    }

    /// Notes a number a spreadsheet would round.
    /// `exact` is how the About sheet gives it (the number's digits unless said).
    private mutating func note(_ number: DecimalText, row: Int, column: Int, exact: String? = nil) {
        guard XLSXInexactCell.isInexact(number) else { return }
        inexactCount += 1
        guard inexact.count < XLSXSheetWriter.maximumInexactListed else { return }
        inexact.append(XLSXInexactCell(reference: "\(XLSXWorkbook.columnLetters(column))\(row + 1)", exact: exact ?? number.text()))
    }

    /// The data format of column `c` for values at `scale`.
    private mutating func dataFormat(_ c: Int, scale: Int?) -> UnsafeMutablePointer<lxw_format>? {
        if let cached = dataFormats[c], cached.scale == scale { return cached.format }
        let number = XLSXFormats.numberFormat(columns[c].format, scale: scale, negative: document.negative)
        let format = formats.format(XLSXCellStyle(number: number))
        dataFormats[c] = (scale, format)
        return format
    }

    /// Writes a period as its first day, formatted to read as the period (`Mar 2026`, `Q1 2026`, `2026-W09`,
    /// `2026`; XLSXFormats.periodFormat), so that it sorts and filters as a date; returns the width shown.
    private mutating func write(_ period: ReportPeriod, column c: Int, row: Int) throws -> Int {
        let day = period.firstDay
        guard XLSXWorkbook.isExcelDate(year: day.year, month: day.month, day: day.day) else {
            noteTextDate(row: row, column: c)
            try writeText(period.text, row: row, column: c, format: nil)
            return period.text.count
        }
        var value = lxw_datetime(year: Int32(day.year), month: Int32(day.month), day: Int32(day.day), hour: 0, min: 0, sec: 0)
        try writer.check(worksheet_write_datetime(sheet, lxw_row_t(row), lxw_col_t(c), &value, formats.periodFormat(period)),
                         "write row \(row)")
        switch period.unit {
        case .month: return 8
        case .week: return period.isoWeek.year == day.year ? 8 : 17
        case .quarter: return 7
        case .year: return 4
        }
    }

    static let powersOfTen: [Double] = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15]
    static let centsFactors: [Int128] = [100, 10, 1]

    /// A decimal's double when the quotient of two exact doubles gives it (units under 2^53, scale 0…15) and the
    /// column is numeric, its shown bytes in `shown` (CellBytes); nil otherwise (then DecimalText decides).
    static func exactNumber(units: Int128, scale: Int, as format: ColumnFormat, shown: inout [UInt8]) -> Double? {
        guard format.isNumeric, scale >= 0, scale < powersOfTen.count, units.magnitude < 1 << 53 else { return nil }
        shown.removeAll(keepingCapacity: true)
        guard CellBytes.appendDisplay(.decimal(units: units, scale: scale), as: format, to: &shown) else { return nil }
        return Double(Int64(truncatingIfNeeded: units)) / powersOfTen[scale]
    }

    /// The width of `cents` shown as money: `-1,234.50` is 9.
    static func moneyWidth(cents: Int128) -> Int {
        var whole = cents.magnitude / 100
        var digits = 1
        while whole >= 10 {
            whole /= 10
            digits += 1
        }
        return digits + (digits - 1) / 3 + 3 + (cents < 0 ? 1 : 0)
    }

    /// Writes one cell; returns the width of its shown text (for the column width).
    private mutating func write(_ cell: ReportCell, column c: Int, row: Int) throws -> Int {
        let columnFormat = columns[c].format
        switch cell {
        case .null:
            return 0
        case let .text(text):
            try writeText(text, row: row, column: c, format: nil)
            return min(TerminalText.width(text), XLSXWorkbook.maximumComputedWidth)
        case let .integer(value):
            if !columnFormat.isNumeric {
                let text = String(value)
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            if value.magnitude >= 1_000_000_000_000_000 { note(DecimalText(integer: value), row: row, column: c) }
            try writer.number(Double(value), row: row, column: c, format: dataFormat(c, scale: 0))
            return cells.display(cell, as: columnFormat).utf8.count
        case let .decimal(units, scale):
            // The common case — money of up to 15 digits at scale 0…2 — without text: the double is the exact quotient
            // correctly rounded (both operands are exact doubles), as the decimal text would parse, and the shown
            // width is counted from the digits.
            if columnFormat == .money, (0...2).contains(scale), units.magnitude < 1_000_000_000_000_000 {
                // Through Int64 (exact: under 10^18), as Int128 to Double is the stdlib's unspecialised generic.
                try writer.number(Double(Int64(truncatingIfNeeded: units)) / XLSXSheetWriter.powersOfTen[scale], row: row, column: c,
                                  format: dataFormat(c, scale: scale))
                return XLSXSheetWriter.moneyWidth(cents: units * XLSXSheetWriter.centsFactors[scale])
            }
            // Other numbers (quantities at scale 3) exact in a double, the same way: the exact quotient of two exact
            // doubles, correctly rounded as parsing the decimal text was, and the width from the shown bytes
            // (CellBytes, which RendererBytesDifferentialTests holds to CellText) — no DecimalText, no text parsed.
            if let value = XLSXSheetWriter.exactNumber(units: units, scale: scale, as: columnFormat, shown: &shownBytes) {
                try writer.number(value, row: row, column: c, format: dataFormat(c, scale: scale))
                return shownBytes.count
            }
            let number = DecimalText(units: units, scale: scale)
            if !columnFormat.isNumeric {
                let text = number.text()
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            if units.magnitude >= 1_000_000_000_000_000 { note(number, row: row, column: c) }
            try writer.number(number.doubleValue, row: row, column: c, format: dataFormat(c, scale: scale))
            return cells.displayNumber(number, as: columnFormat).utf8.count
        case let .double(value):
            guard value.isFinite, let number = DecimalText(double: value) else {
                let text = CellText.nonFinite(value)
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            if !columnFormat.isNumeric {
                let text = number.text()
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            // libxlsxwriter writes a number as %.16G: the largest doubles round up past the largest one
            // (1.797693134862316E+308), which spreadsheets open as infinity — written as text instead, and listed.
            if value.magnitude > XLSXSheetWriter.largestWrittenAsNumber, !XLSXSheetWriter.writtenForm(value).isFinite {
                noteTextNumber(row: row, column: c)
                let text = "\(value)"
                note(number, row: row, column: c, exact: text)
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            // As decimals and integers are: more than 15 significant digits are listed (and 17, which %.16G
            // does not give back, always have more); given as Swift writes a double, exactly and with an exponent
            // where a decimal would run to hundreds of digits.
            if XLSXInexactCell.isInexact(number) { note(number, row: row, column: c, exact: "\(value)") }
            try writer.number(value == 0 ? 0 : value, row: row, column: c, format: dataFormat(c, scale: nil))
            // General shows at most 11 characters.
            let shown = cells.displayNumber(number, as: columnFormat).utf8.count
            return columnFormat == .number ? min(shown, 11) : shown
        case let .date(year, month, day):
            guard XLSXWorkbook.isExcelDate(year: year, month: month, day: day) else {
                noteTextDate(row: row, column: c)
                let text = CalendarText.isoDate(year: year, month: month, day: day)
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            var value = lxw_datetime(year: Int32(year), month: Int32(month), day: Int32(day), hour: 0, min: 0, sec: 0)
            try writer.check(worksheet_write_datetime(sheet, lxw_row_t(row), lxw_col_t(c), &value, dateFormat), "write row \(row)")
            return 10
        case let .dateTime(seconds):
            let local = LocalDateTime(secondsSinceEpoch: seconds, timeZone: document.timeZone)
            let dateOnly = columnFormat == .date
            guard XLSXWorkbook.isExcelDate(year: local.year, month: local.month, day: local.day) else {
                noteTextDate(row: row, column: c)
                let text = cells.display(cell, as: columnFormat)
                try writeText(text, row: row, column: c, format: nil)
                return text.utf8.count
            }
            var value = lxw_datetime(year: Int32(local.year), month: Int32(local.month), day: Int32(local.day),
                                     hour: Int32(dateOnly ? 0 : local.hour), min: Int32(dateOnly ? 0 : local.minute),
                                     sec: dateOnly ? 0 : Double(local.second))
            try writer.check(worksheet_write_datetime(sheet, lxw_row_t(row), lxw_col_t(c), &value,
                                                      dateOnly ? dateFormat : dateTimeFormat), "write row \(row)")
            return dateOnly ? 10 : 16
        case let .boolean(value):
            try writer.check(worksheet_write_boolean(sheet, lxw_row_t(row), lxw_col_t(c), value ? 1 : 0, nil), "write row \(row)")
            return 5
        case .list:
            // One text, as the text report shows it.
            let text = cells.display(cell, as: columnFormat)
            try writeText(text, row: row, column: c, format: nil)
            return min(TerminalText.width(text), XLSXWorkbook.maximumComputedWidth)
        }
    }
}
