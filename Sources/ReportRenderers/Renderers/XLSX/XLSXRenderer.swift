// The XLSX format: workbooks for accountants, on screen and on paper, through libxlsxwriter.
//
// The format (a contract; XLSXRendererTests read it back with openpyxl, and
// ShippedReportPrintTests print it to PDF with LibreOffice):
// - One worksheet per report (named from `document.name`, see XLSXSheetNames.swift), then one
//   sheet `About` describing every report: title, sheet, description, parameters, sort,
//   generation time with its zone, row count, and the cells a spreadsheet cannot show exactly. The
//   document properties hold the title, the description as subject, the parameters, sort and
//   generation time as comments, and the generation time as the creation date.
// - Row 1: the column titles — bold, filled grey, bordered, aligned as their column (numbers and
//   dates right, booleans centred, text left) — frozen (`freeze_panes` A2) and under an autofilter
//   that covers the header and the data rows.
// - Real cell types: numbers for integer, number, money and percent columns (money in an
//   accounting layout `#,##0.00_);-#,##0.00_)` whose negatives are a minus, red or in parentheses
//   as the document's `negative` says; integers `#,##0` and decimals `#,##0.00…` at their scale,
//   with thousands separators; percentages `0%`/`0.0%`… at scale − 2), dates and date-times as
//   Excel dates (`yyyy-mm-dd`, `yyyy-mm-dd hh:mm` in the document's zone), booleans as booleans,
//   codes and texts as strings — with Excel's "number stored as text" check turned off for the
//   sheet. Values Excel cannot hold as such are written as text: NaN and infinities, dates outside
//   1900–9999. Strings longer than Excel's 32,767 characters are cut and listed, with their
//   lengths, on the About sheet; text that looks like an OOXML escape (`_x0041_`) is escaped so it
//   shows as written. Numbers of more than 15 significant digits are written rounded (a spreadsheet
//   holds no more) and listed, exactly, on the About sheet.
// - Text outside cells — document properties, print headers and footers, chart titles, sheet
//   names — has the characters XML 1.0 forbids (C0 controls but tab, LF and CR; U+FFFE, U+FFFF)
//   replaced by `?` (`_` in sheet names); headers, footers and chart titles are one line. Cells
//   keep them as OOXML escapes (`_x001B_`), which Excel reads back (XLSXText.swift).
// - Under the data (when there are rows and total columns): `Total` in the first column unless it
//   has a total, and for each total column `SUBTOTAL(109,X2:Xn)` — so filtering keeps totals
//   right — written with its exact value cached, so viewers that do not recalculate show it too;
//   the row has a line above and a double line below. (Not libxlsxwriter's table totals, which
//   LibreOffice mishandles.)
// - Column widths: the width a column asks for, else its longest shown value (and title) plus a
//   margin, at most 60 (libxlsxwriter 1.1.4 has no autofit).
// - Printing (XLSXPageSetup.swift): landscape when the table is wider than a portrait page, one
//   page wide, the header row repeated on every page, a print header with the title and the
//   parameters, a footer `Page N of M` with the generation time.
// - The chart, if the document has one (XLSXChart.swift): with its data cached when the sheet has
//   at most 10,000 rows, beside the table or below it, whole on a page.
//
// Memory does not grow with rows: libxlsxwriter streams each sheet's rows to a temporary file
// (unlinked at once) beside the workbook being assembled (constant-memory mode), and the sheet writer
// keeps only per-column widths and totals. The exception, bounded: a charted sheet of at most 10,000
// rows is kept in memory so that its chart carries its data. The autofilter, totals and page set-up
// are recorded after the rows, so the number of rows need not be known up front. The workbook is
// assembled at an `OutputFile`'s assembly path: renamed into place for a file, copied out for
// standard output, a device or a pipe.

/// One report, one worksheet, plus the About sheet.
package struct XLSXRenderer: ReportRenderer {
    package init() {}

    package func render<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
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
