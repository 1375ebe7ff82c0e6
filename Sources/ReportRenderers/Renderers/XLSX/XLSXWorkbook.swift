// A workbook of reports: creating it at an output's assembly path, a worksheet per report (written by
// XLSXSheetWriter), the About sheet and the document properties, then assembling it and moving it
// into place — or abandoning it, leaving nothing behind.

import CXLSXWriter
import FileOutput
import Foundation
#if canImport(Glibc)
import Glibc
import ValueText
#endif

/// A workbook of several reports, each on its own worksheet, plus one About sheet describing
/// them all (`report --all --format xlsx --output FILE.xlsx`). Call `add` per report, then
/// `close()`. If `add` or `close` throws, the workbook is abandoned — a half-written sheet cannot
/// be taken back — and nothing is left at the output; so is it when released without `close()`.
package final class XLSXWorkbook {
    /// Rows a worksheet can hold besides the header and totals rows.
    package static let maximumRows = 1_048_576 - 2
    package static let maximumColumns = 16_384
    static let maximumComputedWidth = 60
    static let maximumStringLength = 32_767

    /// The most rows a charted sheet is kept in memory for, so that its chart carries its data: about 1 KB a row
    /// in libxlsxwriter's normal mode (300,000 rows took 360 MB), so some 10 MB at most.
    static let maximumChartCacheRows = 10_000

    /// `maximumRows`, lowered by tests so that they need not write a million rows.
    var rowLimit = XLSXWorkbook.maximumRows
    /// `maximumChartCacheRows`, lowered by tests.
    var chartCacheRowLimit = XLSXWorkbook.maximumChartCacheRows

    private let output: ReportOutput
    /// The output's path as given (`-` for standard output), as messages name it.
    package let displayName: String
    private let title: String?
    private let file: OutputFile
    private var workbook: UnsafeMutablePointer<lxw_workbook>?
    /// Owned C strings handed to libxlsxwriter, freed after `workbook_close`.
    private var cStrings: [UnsafeMutablePointer<CChar>] = []
    private var formats: XLSXFormats?
    /// The worksheets added so far (their temporary files are closed by `discard()`).
    private var sheets: [UnsafeMutablePointer<lxw_worksheet>] = []
    private var sheetNames = XLSXSheetNames()
    private var reports: [XLSXSheetSummary] = []

    /// Creates the temporary file the workbook is assembled in. `title` is the workbook's title
    /// property; nil for the title of its only report (or `Reports`).
    package init(output: ReportOutput, title: String? = nil) throws {
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
        formats = XLSXFormats(workbook: workbook)
    }

    deinit {
        discard()
    }

    /// Adds a report on a new worksheet; returns the sheet's name.
    @discardableResult
    package func add<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows) throws -> String {
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
        guard document.columns.count <= XLSXWorkbook.maximumColumns else {
            throw ReportRenderError(file: displayName, kind: .beyondFormat(
                "the report has \(document.columns.count) columns; a worksheet holds at most \(XLSXWorkbook.maximumColumns)"))
        }
        let sheetName = sheetNames.name(for: document.name)
        // A charted sheet is kept in memory, so that libxlsxwriter can cache the chart's data (XLSXChart.swift) —
        // if its rows turn out few: the store does not count them first, so they are read ahead, up to the limit.
        // Every other sheet streams its rows through a temporary file, and so does a charted one with more rows.
        var ahead = ReadAheadRows(base: rows)
        let inMemory = try document.chart != nil && ahead.readAhead(atMost: chartCacheRowLimit)
        workbook.pointee.options.constant_memory = UInt8(inMemory ? LXW_FALSE.rawValue : LXW_TRUE.rawValue)
        guard let sheet = TemporaryFileCleanup.withSignalsBlocked({ workbook_add_worksheet(workbook, sheetName) }) else {
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "add the worksheet \(sheetName)",
                                                                   message: noTemporaryFile))
        }
        sheets.append(sheet)
        var writer = XLSXSheetWriter(document: document, workbook: workbook, sheet: sheet, sheetName: sheetName,
                                     formats: formats!, file: displayName, rowLimit: rowLimit)
        var summary = try writer.write(rows: &ahead)
        if document.chart != nil && !inMemory { summary.chartWithoutCacheOver = chartCacheRowLimit }
        reports.append(summary)
        rows = ahead.base
        return sheetName
    }

    /// Writes the About sheet and the document properties, assembles the workbook and moves it
    /// into place (or copies it to standard output).
    package func close() throws {
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
    package func discard() {
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

    /// The first day written as a date: a spreadsheet's serial 1 is 1900-01-01, but Excel counts a 1900-02-29
    /// that never was (serial 60), and LibreOffice, which does not, reads serials 1…59 — every day of January and
    /// February 1900 — a day early. Earlier days are text (`YYYY-MM-DD`), as days before 1900 always were, and
    /// the About sheet says so.
    static let firstExcelDate = (year: 1900, month: 3)

    static func isExcelDate(year: Int, month: Int, day: Int) -> Bool {
        guard (1900...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return false }
        guard (year, month) >= firstExcelDate else { return false }
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

    // MARK: About, properties

    private func writeAboutSheet() throws {
        workbook!.pointee.options.constant_memory = UInt8(LXW_TRUE.rawValue)
        guard let sheet = TemporaryFileCleanup.withSignalsBlocked({ workbook_add_worksheet(workbook, XLSXSheetNames.aboutSheet) }) else {
            throw ReportRenderError(file: displayName, kind: .xlsx(operation: "add the About sheet", message: noTemporaryFile))
        }
        sheets.append(sheet)
        let generated = reports.map(\.document).min { $0.generatedAt < $1.generatedAt }.map(XLSXWorkbook.generatedText) ?? ""
        try XLSXAboutSheet(sheet: sheet, formats: formats!, writer: XLSXCellWriter(sheet: sheet, file: displayName))
            .write(reports, title: workbookTitle, generated: generated)
    }

    /// The workbook's title property: the one given, else its only report's title, else `Reports`.
    private var workbookTitle: String {
        if let title { return title }
        if reports.count == 1, let document = reports.first?.document { return document.title }
        return "Reports"
    }

    static func generatedText(_ document: ReportDocument) -> String {
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
        properties.created = XLSXWorkbook.coreCreated(created)
        workbook_set_properties(workbook, &properties)
    }

    /// The instants core.xml's `created` can hold: libxlsxwriter writes it with strftime's `%Y`, which pads no year
    /// below 1000 (`0-12-31T14:41:01Z`, `500-01-01T…`), and W3CDTF and openpyxl want four digits.
    static let coreCreatedRange: ClosedRange<Int64> = -30_610_224_000 ... 253_402_300_799

    /// `created` for core.xml: the generation time in UTC, held to the years 1000 to 9999 (a run whose
    /// `BOOKKEEPER_TODAY` is in year 500 says 1000-01-01T00:00:00Z there; the About sheet and comments keep the day).
    static func coreCreated(_ date: Date) -> time_t {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite else { return 0 }
        return time_t(min(max(seconds, Double(coreCreatedRange.lowerBound)), Double(coreCreatedRange.upperBound)))
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

    /// A document property: XML-safe (XLSXText.swift).
    private func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let pointer = strdup(XLSXText.xmlSafe(text))!
        cStrings.append(pointer)
        return pointer
    }

    private func freeCStrings() {
        for pointer in cStrings { free(pointer) }
        cStrings.removeAll()
    }
}

/// A row source whose first rows may have been read ahead (to learn whether there are only few); it gives them
/// again, then the rest.
struct ReadAheadRows<Base: ReportRowSource>: ReportRowSource {
    var base: Base
    private var ahead: [[ReportCell]] = []
    private var index = 0
    private var baseEnded = false

    init(base: Base) {
        self.base = base
    }

    var rowCount: Int? { base.rowCount }

    /// Reads up to `limit` + 1 rows ahead; returns whether the source ended within `limit`.
    mutating func readAhead(atMost limit: Int) throws -> Bool {
        while ahead.count <= limit {
            guard let row = try base.nextRow() else {
                baseEnded = true
                return true
            }
            ahead.append(row)
        }
        return false
    }

    mutating func nextRow() throws -> [ReportCell]? {
        if index < ahead.count {
            defer { index += 1 }
            return ahead[index]
        }
        if !ahead.isEmpty { ahead = [] }   // read, so no longer kept
        index = 0
        return baseEnded ? nil : try base.nextRow()
    }
}
