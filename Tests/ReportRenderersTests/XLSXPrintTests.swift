// Print-ready workbooks, read back with openpyxl: page set-up (orientation, one page wide, the header
// row on every page, print header and footer), header and totals cell styles, money formats by
// `negative`, thousands separators, amounts beyond 15 significant digits listed on the About sheet,
// literal OOXML escapes, and charts with their data caches, legend, axis format and placement.

import Foundation
import TestSupport
import XCTest
@testable import ReportRenderers
import ValueText

final class XLSXPrintTests: XCTestCase {
    private func renderedWorkbook(_ document: ReportDocument, _ rows: [[ReportCell]]) throws -> (OpenpyxlWorkbook, Data) {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let folder = try TemporaryFolder()
        let path = folder.file("report.xlsx")
        var source = ArrayRowSource(rows)
        try XLSXRenderer().render(document, rows: &source, to: .file(path: path))
        return (try OpenpyxlWorkbook(path: path), try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    private func document(columns: Int, width: Int) -> ReportDocument {
        ReportDocument(name: "wide", title: "Wide & tall", parameters: [(name: "From", value: "2026-01-01")],
                       generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                       columns: (0..<columns).map { ReportColumn(title: "C\($0)", width: width) })
    }

    func testANarrowTablePrintsPortraitOnePageWideWithItsHeaderOnEveryPage() throws {
        let (book, _) = try renderedWorkbook(ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows)
        let sheet = book.sheet("unpaid-orders")
        XCTAssertEqual(sheet["orientation"] as? String, "portrait")
        XCTAssertEqual(sheet["fitToPage"] as? Bool, true)
        XCTAssertEqual(sheet["fitToWidth"] as? Int ?? 1, 1, "1 is the default, left out")
        XCTAssertEqual(sheet["fitToHeight"] as? Int, 0, "any number of pages tall")
        XCTAssertEqual(sheet["printTitleRows"] as? String, "$1:$1")
        XCTAssertEqual(sheet["header"] as? String, "&L&\"-,Bold\"Unpaid orders&RCustomer: Acme Ltd   Since: 2026-01-01")
        XCTAssertEqual(sheet["footer"] as? String, "&LPage &P of &N&RGenerated 2026-11-21 21:00 UTC")
        XCTAssertEqual(sheet["freeze"] as? String, "A2", "the header stays on row 1")
        book.assertCell("unpaid-orders", "A1", type: "str", value: "Number")
        // The About sheet prints too, with the workbook's title.
        XCTAssertEqual(book.sheet("About")["fitToPage"] as? Bool, true)
        XCTAssertEqual(book.sheet("About")["header"] as? String, "&L&\"-,Bold\"Unpaid orders")
    }

    func testATableWiderThanAPortraitPageIsLandscapeAndAnAmpersandIsLiteral() throws {
        let (book, _) = try renderedWorkbook(document(columns: 8, width: 14), [Array(repeating: .text("x"), count: 8)])
        let sheet = book.sheet("wide")
        XCTAssertEqual(sheet["orientation"] as? String, "landscape")
        XCTAssertEqual(sheet["fitToPage"] as? Bool, true)
        XCTAssertEqual(sheet["header"] as? String, "&L&\"-,Bold\"Wide && tall&RFrom: 2026-01-01")
    }

    func testATableTooWideToReadOnOnePagePrintsAtSixtyPercentOverSeveralPages() throws {
        let (book, _) = try renderedWorkbook(document(columns: 30, width: 20), [Array(repeating: .text("x"), count: 30)])
        let sheet = book.sheet("wide")
        XCTAssertEqual(sheet["orientation"] as? String, "landscape")
        XCTAssertEqual(sheet["fitToPage"] as? Bool, false)
        XCTAssertEqual(sheet["scale"] as? Int, 60)
        XCTAssertEqual(sheet["printTitleRows"] as? String, "$1:$1")
    }

    func testAPrintHeaderIsCutToTheLimitOfExcel() throws {
        var long = document(columns: 2, width: 10)
        long.title = String(repeating: "&", count: 300)
        long.parameters = [(name: "P", value: String(repeating: "v", count: 300))]
        let (book, _) = try renderedWorkbook(long, [[.text("a"), .text("b")]])
        let header = try XCTUnwrap(book.sheet("wide")["header"] as? String)
        XCTAssertLessThanOrEqual(header.count, 255)
        XCTAssertTrue(header.hasPrefix("&L&\"-,Bold\"&&&&"))
        XCTAssertTrue(header.contains("&RP: vvv"), header)
    }

    func testHeaderCellsAreFilledBorderedAndAlignedLikeTheirColumnAndTotalsAreRuled() throws {
        let (book, _) = try renderedWorkbook(ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows)
        let sheet = "unpaid-orders"
        for (reference, align) in [("A1", "left"), ("B1", "left"), ("C1", "right"), ("D1", "right"), ("E1", "center")] {
            let cell = book.cell(sheet, reference)
            XCTAssertEqual(cell["align"] as? String, align, reference)
            XCTAssertEqual(cell["fill"] as? String, "FFD9D9D9", reference)
            XCTAssertEqual(cell["border"] as? [String], ["thin", "thin"], reference)
            XCTAssertEqual(cell["bold"] as? Bool, true, reference)
        }
        // The totals row: a line above and a double line below, across every column.
        for reference in ["A5", "D5"] {
            XCTAssertEqual(book.cell(sheet, reference)["border"] as? [String], ["thin", "double"], reference)
        }
        let blanks = book.sheet(sheet)["blankBorders"] as? [String: [String]]
        for reference in ["B5", "C5", "E5"] {
            XCTAssertEqual(blanks?[reference], ["thin", "double"], "blank cells of the totals row are ruled too: \(reference)")
        }
        // Data cells are plain.
        XCTAssertNil(book.cell(sheet, "B2")["fill"] as? String)
    }

    func testNegativeMoneyIsAMinusRedOrInParenthesesAsTheReportAsks() throws {
        for (style, format) in [(NegativeStyle.minus, "#,##0.00_);-#,##0.00_)"), (.red, "#,##0.00_);[Red]-#,##0.00_)"),
                                (.parentheses, "#,##0.00_);(#,##0.00)")] {
            var document = ReportFixtures.unpaidOrders
            document.negative = style
            let (book, _) = try renderedWorkbook(document, ReportFixtures.unpaidOrderRows)
            book.assertCell("unpaid-orders", "D4", type: "int", value: -10000, format: format)
            book.assertCell("unpaid-orders", "D5", type: "str", format: format)
        }
    }

    func testCountsAndQuantitiesHaveThousandsSeparators() throws {
        let document = ReportDocument(name: "counts", title: "Counts", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: [ReportColumn(title: "Orders", format: .integer, total: true),
                                                ReportColumn(title: "Quantity", format: .number)])
        let (book, _) = try renderedWorkbook(document, [[.integer(12_345), .decimal(units: 1_234_500, scale: 3)]])
        book.assertCell("counts", "A2", type: "int", value: 12345, format: "#,##0")
        book.assertCell("counts", "B2", type: "float", value: 1234.5, format: "#,##0.000")
        book.assertCell("counts", "A3", type: "str", format: "#,##0")
    }

    func testAmountsBeyondFifteenSignificantDigitsAreListedExactlyOnTheAboutSheet() throws {
        let (book, _) = try renderedWorkbook(ReportFixtures.hostile, ReportFixtures.hostileRows)
        let about = book.cells("About").mapValues { "\($0["value"] ?? "")" }
        let notExact = try XCTUnwrap(about.first { $0.value == "Not exact" }?.key)
        let row = Int(notExact.dropFirst())!
        XCTAssertEqual(about["B\(row)"], "4 amounts have more than 15 significant digits, which a spreadsheet rounds; the exact values:")
        XCTAssertEqual(about["A\(row + 1)"], "C2")
        XCTAssertEqual(about["B\(row + 1)"], "92233720368547758.07")
        XCTAssertEqual(about["A\(row + 2)"], "G5")
        XCTAssertEqual(about["B\(row + 2)"], "9223372036854775807")
        XCTAssertEqual(about["A\(row + 3)"], "C6", "totals too")
        XCTAssertEqual(about["B\(row + 3)"], "92233720368547858.0200")
        XCTAssertEqual(about["A\(row + 4)"], "G6")
        // Amounts a spreadsheet holds exactly are not listed.
        let (plain, _) = try renderedWorkbook(ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows)
        XCTAssertFalse(plain.cells("About").values.contains { $0["value"] as? String == "Not exact" })
        XCTAssertTrue(XLSXInexactCell.isInexact(DecimalText(units: 1_234_567_890_123_456, scale: 2)))
        XCTAssertFalse(XLSXInexactCell.isInexact(DecimalText(units: 123_456_789_012_345_000, scale: 2)), "trailing zeros are not significant")
    }

    /// The fast path for money cells writes the same double and counts the same width as going through the text.
    func testMoneyWithoutTextAgreesWithTheText() {
        let cells = CellText(timeZone: ReportFixtures.utc)
        var generator = SystemRandomNumberGenerator()
        var values: [Int64] = [0, 1, -1, 99, 100, -100, 99_999, 100_000, 999_999_999_999_999, -999_999_999_999_999]
        for _ in 0..<2000 { values.append(Int64.random(in: -999_999_999_999_999...999_999_999_999_999, using: &generator) >> Int64.random(in: 0...50, using: &generator)) }
        for units in values {
            for scale in 0...2 {
                let number = DecimalText(units: Int128(units), scale: scale)
                let powers: [Double] = [1, 10, 100]
                XCTAssertEqual(Double(units) / powers[scale], number.doubleValue, "\(units) at \(scale)")
                XCTAssertEqual(XLSXSheetWriter.moneyWidth(cents: Int128(units) * Int128(powers[2 - scale])),
                               cells.displayNumber(number, as: .money).utf8.count, "\(units) at \(scale)")
            }
        }
    }

    func testTextThatLooksLikeAnOOXMLEscapeIsShownAsWritten() throws {
        XCTAssertEqual(XLSXCellWriter.escapingOOXML("_x0041_"), "_x005F_x0041_")
        XCTAssertEqual(XLSXCellWriter.escapingOOXML("a_x00e9_b_X1234_"), "a_x005F_x00e9_b_x005F_X1234_")
        XCTAssertEqual(XLSXCellWriter.escapingOOXML("_x004_ _xZZZZ_ plain_text"), "_x004_ _xZZZZ_ plain_text")
        let document = ReportDocument(name: "escapes", title: "Escapes", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: [ReportColumn(title: "_x0042_")])
        // openpyxl reads the stored text without decoding escapes; Excel and LibreOffice read `_x005F_` as `_`
        // (ShippedReportPrintTests sees LibreOffice show it as written).
        let (book, _) = try renderedWorkbook(document, [[.text("_x0041_")], [.text("_x005F_")]])
        book.assertCell("escapes", "A1", type: "str", value: "_x005F_x0042_")
        book.assertCell("escapes", "A2", type: "str", value: "_x005F_x0041_")
        book.assertCell("escapes", "A3", type: "str", value: "_x005F_x005F_")
    }

    /// A period is its first day, formatted to read as the period: it sorts and filters as a date.
    func testPeriodsAreDatesFormattedAsThePeriod() throws {
        var columns = [ReportColumn(title: "Month"), ReportColumn(title: "Quarter"), ReportColumn(title: "Week"),
                       ReportColumn(title: "Year", format: .code)]
        for (i, unit) in [ReportPeriodUnit.month, .quarter, .week, .year].enumerated() { columns[i].period = unit }
        let document = ReportDocument(name: "periods", title: "Periods", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: columns)
        let (book, _) = try renderedWorkbook(document, [
            [.text("2026-03"), .text("2026-Q2"), .text("2026-W01"), .integer(2026)],
            [.null, .text("not a quarter"), .text("2026-W09"), .null],
            [.null, .null, .text("2020-W53"), .null],
        ])
        book.assertCell("periods", "A2", type: "datetime", value: "2026-03-01T00:00:00", format: "mmm yyyy")
        book.assertCell("periods", "B2", type: "datetime", value: "2026-04-01T00:00:00", format: "\"Q2 \"yyyy")
        // Excel has no code for ISO weeks: a week is its Monday under its week number as a literal after the year, a date
        // format still (a format of literals only made it a plain number, which filters as one). Week 1 of 2026 begins
        // on 29 December 2025, so its year is a literal too, and its Monday is shown to keep a date code.
        book.assertCell("periods", "C2", type: "datetime", value: "2025-12-29T00:00:00", format: "\"2026-W01 (\"d mmm\")\"")
        book.assertCell("periods", "D2", type: "datetime", value: "2026-01-01T00:00:00", format: "yyyy")
        book.assertCell("periods", "C3", type: "datetime", value: "2026-02-23T00:00:00", format: "yyyy\"-W09\"")
        book.assertCell("periods", "C4", type: "datetime", value: "2020-12-28T00:00:00", format: "yyyy\"-W53\"")
        book.assertCell("periods", "B3", type: "str", value: "not a quarter")
        XCTAssertNil(book.cells("periods")["A3"])
        for reference in ["A1", "B1", "C1", "D1"] { XCTAssertEqual(book.cell("periods", reference)["align"] as? String, "right") }
    }

    /// Excel keeps about 200 custom number formats: every week number shares one format, and the weeks that begin in
    /// the year before their own, each a format of its own, stop at `maximumWeekFormats` and show their Monday.
    func testWeeksOfFiveCenturiesStayWithinExcelsNumberFormats() throws {
        var column = ReportColumn(title: "Week")
        column.period = .week
        let document = ReportDocument(name: "weeks", title: "Weeks", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: [column])
        var weeks = (1901...2399).map { String($0) + "-W01" }
        weeks += (1...53).map { "2020-W" + ($0 < 10 ? "0" : "") + String($0) }
        let (book, _) = try renderedWorkbook(document, weeks.map { [.text($0)] })
        let cells = book.cells("weeks")
        var formats: Set<String> = [], monday = 0
        for row in 2...(weeks.count + 1) {
            let cell = try XCTUnwrap(cells["A\(row)"])
            XCTAssertEqual(cell["type"] as? String, "datetime", "A\(row) \(weeks[row - 2])")
            let format = try XCTUnwrap(cell["format"] as? String)
            formats.insert(format)
            if format == "yyyy-mm-dd" { monday += 1 }
        }
        XCTAssertEqual(formats.filter { $0.hasPrefix("\"") }.count, XLSXFormats.maximumWeekFormats)
        XCTAssertGreaterThan(monday, 0, "the weeks past the limit show their Monday")
        XCTAssertLessThanOrEqual(formats.count, 53 + XLSXFormats.maximumWeekFormats + 1)
        book.assertCell("weeks", "A\(weeks.count - 50)", type: "datetime", value: "2020-01-06T00:00:00", format: "yyyy\"-W02\"")
    }

    func testEmptyCellsOfALabelledColumnShowTheLabel() throws {
        var document = ReportFixtures.unpaidOrders
        document.columns[1].emptyLabel = "(no customer)"
        let (book, _) = try renderedWorkbook(document, ReportFixtures.unpaidOrderRows + [[.text("A-4"), .text(""), .null, .null, .null]])
        book.assertCell("unpaid-orders", "B4", type: "str", value: "(no customer)")
        book.assertCell("unpaid-orders", "B5", type: "str", value: "(no customer)")
        book.assertCell("unpaid-orders", "B2", type: "str", value: "Acme Ltd")
        XCTAssertNil(book.cells("unpaid-orders")["C4"], "columns without a label stay empty")
    }

    func testAChartCarriesItsDataHasNoLegendForOneSeriesAndTakesTheColumnsFormat() throws {
        let (book, data) = try renderedWorkbook(ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows)
        let chart = try XCTUnwrap((book.sheet("unpaid-orders")["charts"] as? [[String: Any]])?.first)
        XCTAssertEqual(chart["legend"] as? Bool, false)
        XCTAssertEqual(chart["valueAxisFormat"] as? String, "#,##0.00_);-#,##0.00_)")
        XCTAssertNil(chart["categoryRotation"] as? Int, "three short labels fit side by side")
        let caches = chart["caches"] as? [[String: Any]]
        XCTAssertEqual(caches?.first?["categories"] as? [String], ["A-1", "007", "A-3"])
        XCTAssertEqual(caches?.first?["values"] as? [Double], [1234.5, 0.99, -10000])
        XCTAssertFalse(data.isEmpty)

        var twoSeries = ReportFixtures.unpaidOrders
        twoSeries.chart = ChartSpec(kind: .line, categoriesColumn: 0, valueColumns: [3, 3])
        let (other, _) = try renderedWorkbook(twoSeries, ReportFixtures.unpaidOrderRows)
        XCTAssertEqual((other.sheet("unpaid-orders")["charts"] as? [[String: Any]])?.first?["legend"] as? Bool, true)
    }

    func testAChartGoesBesideANarrowTableAndBelowAWideOneOnAPageOfItsOwnWhenNeeded() throws {
        var narrow = document(columns: 1, width: 8)
        narrow.columns.append(ReportColumn(title: "N", format: .integer))
        narrow.chart = ChartSpec(kind: .column, categoriesColumn: 0, valueColumns: [1])
        let (small, _) = try renderedWorkbook(narrow, [[.text("a"), .integer(1)], [.text("b"), .integer(2)]])
        let besideAnchor = (small.sheet("wide")["charts"] as? [[String: Any]])?.first?["anchor"] as? [Int]
        XCTAssertEqual(besideAnchor, [1, 3], "right of the two columns, one column apart")

        let (usual, _) = try renderedWorkbook(ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows)
        let belowAnchor = (usual.sheet("unpaid-orders")["charts"] as? [[String: Any]])?.first?["anchor"] as? [Int]
        XCTAssertEqual(belowAnchor, [6, 0], "table and chart are wider than a portrait page: under the totals, a row apart")

        var wide = document(columns: 5, width: 20)
        wide.columns[4] = ReportColumn(title: "Amount", format: .money, total: true)
        wide.chart = ChartSpec(kind: .column, categoriesColumn: 0, valueColumns: [4])
        let rows: [[ReportCell]] = (0..<10).map { i in [.text("r\(i)"), .null, .null, .null, .integer(Int64(i))] }
        let (below, _) = try renderedWorkbook(wide, rows)
        let sheet = below.sheet("wide")
        XCTAssertEqual((sheet["charts"] as? [[String: Any]])?.first?["anchor"] as? [Int], [13, 0], "under the totals, a row apart")
        XCTAssertEqual(sheet["rowBreaks"] as? [Int], [], "it fits on the first page")

        let many: [[ReportCell]] = (0..<30).map { i in [.text("r\(i)"), .null, .null, .null, .integer(Int64(i))] }
        let (long, _) = try renderedWorkbook(wide, many)
        XCTAssertEqual((long.sheet("wide")["charts"] as? [[String: Any]])?.first?["anchor"] as? [Int], [33, 0])
        XCTAssertEqual(long.sheet("wide")["rowBreaks"] as? [Int], [33], "a page break keeps the chart whole")
    }
}
