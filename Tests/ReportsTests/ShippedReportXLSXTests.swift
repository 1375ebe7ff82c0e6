// Shipped reports as XLSX on SampleData/, read back with openpyxl: cell types (dates are dates, money
// is numeric), values against SQL, number formats, the frozen header, the autofilter, the totals
// formulas with their cached values, the chart, and every report in one workbook.

import Foundation
import ReportRenderers
import Reports
import TestSupport
import XCTest

final class ShippedReportXLSXTests: XCTestCase {
    private func workbook(_ name: String, in directory: TemporaryDirectory) throws -> OpenpyxlWorkbook {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let path = directory.file("\(name).xlsx")
        try ShippedReports.prepared(name).render(from: SampleStore.open(), with: .xlsx(), to: .file(path: path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["\(name).xlsx"], "no temporary file left")
        return try OpenpyxlWorkbook(path: path)
    }


    func testUnpaidOrders() throws {
        let directory = TemporaryDirectory()
        let book = try workbook("unpaid-orders", in: directory)
        let sheet = "unpaid-orders"
        XCTAssertEqual(book.sheetNames, [sheet, "About"])
        for (reference, title) in zip(["A1", "B1", "C1", "D1"], ["Date", "Customer", "Order", "Total"]) {
            book.assertCell(sheet, reference, type: "str", value: title, bold: true)
        }
        XCTAssertEqual(book.sheet(sheet)["freeze"] as? String, "A2")
        XCTAssertEqual(book.sheet(sheet)["autofilter"] as? String, "A1:D9")

        // Every data row against SQL: dates are dates, names text, order numbers text (codes), totals numbers.
        let expected = try queryRows(SampleStore.path(), """
            SELECT o.date, c.name, o.number, (SELECT COALESCE(SUM(r.sum), 0) FROM OrderRow r WHERE r.order_id = o.id)
            FROM "Order" o LEFT JOIN Customer c ON c.id = o.customer_id
            WHERE o.made = 1 AND o.paid = 0 AND o.date <= '2026-11-21' ORDER BY o.date, c.name, o.id
            """)
        XCTAssertEqual(expected.count, 8)
        for (i, row) in expected.enumerated() {
            let r = i + 2
            book.assertCell(sheet, "A\(r)", type: "datetime", value: row[0] + "T00:00:00", format: "yyyy-mm-dd")
            book.assertCell(sheet, "B\(r)", type: "str", value: row[1])
            book.assertCell(sheet, "C\(r)", type: "str", value: row[2])
            let cents = Int(row[3])!
            let cell = book.cell(sheet, "D\(r)")
            XCTAssertTrue(["float", "int"].contains(cell["type"] as? String), "D\(r) is a number")
            XCTAssertEqual(((cell["value"] as? NSNumber)?.doubleValue ?? .nan) * 100, Double(cents), accuracy: 0.001)
            XCTAssertEqual(cell["format"] as? String, "#,##0.00_);-#,##0.00_)")
        }
        XCTAssertEqual(book.sheet(sheet)["ignoredErrors"] as? [String],
                       [#"<ignoredError sqref="A1:XFD1048576" numberStoredAsText="1"/>"#], "codes raise no number-as-text warning")

        // Totals: SUBTOTAL(109, …), so filtering keeps them right, with the exact sum cached.
        book.assertCell(sheet, "A10", type: "str", value: "Total", bold: true)
        book.assertCell(sheet, "D10", type: "str", value: "=SUBTOTAL(109,D2:D9)", format: "#,##0.00_);-#,##0.00_)", bold: true, cached: 7264.05)

        // The About sheet and the document properties carry the title, parameters and generation time.
        let about = book.cells("About").values.compactMap { $0["value"] as? String }
        for text in ["Completed but unpaid orders", "Until", "2026-11-21", "2026-11-21 00:00 UTC", "Date, Customer"] {
            XCTAssertTrue(about.contains(text), "About sheet lacks \(text): \(about)")
        }
        XCTAssertEqual(book.properties["title"] as? String, "Completed but unpaid orders")
        XCTAssertEqual(book.properties["comments"] as? String, "Until: 2026-11-21\nSort: Date, Customer\nGenerated 2026-11-21 00:00 UTC")
    }

    func testSalesByMonthHasItsChart() throws {
        let directory = TemporaryDirectory()
        let book = try workbook("sales-by-month", in: directory)
        let sheet = "sales-by-month"
        // Months are dates (their first day), shown as months; the twelve months of the period, sales or not.
        book.assertCell(sheet, "A2", type: "datetime", value: "2025-12-01T00:00:00", format: "mmm yyyy")
        book.assertCell(sheet, "A13", type: "datetime", value: "2026-11-01T00:00:00", format: "mmm yyyy")
        book.assertCell(sheet, "B2", type: "int", value: 5, format: "#,##0")
        book.assertCell(sheet, "C2", type: "float", value: 5692.25, format: "#,##0.00_);-#,##0.00_)")
        book.assertCell(sheet, "B12", type: "int", value: 0, format: "#,##0")
        book.assertCell(sheet, "C12", type: "int", value: 0, format: "#,##0.00_);-#,##0.00_)")
        book.assertCell(sheet, "B14", type: "str", value: "=SUBTOTAL(109,B2:B13)", cached: 35)
        book.assertCell(sheet, "C14", type: "str", value: "=SUBTOTAL(109,C2:C13)", cached: 31063.1)
        XCTAssertEqual(book.cell(sheet, "A1")["align"] as? String, "right", "a date column's title")
        let charts = book.sheet(sheet)["charts"] as? [[String: Any]] ?? []
        XCTAssertEqual(charts.count, 1)
        XCTAssertEqual(charts.first?["type"] as? String, "barChart")
        XCTAssertEqual(charts.first?["barDir"] as? String, "col")
        XCTAssertEqual(charts.first?["title"] as? String, "Sales by month")
        let series = charts.first?["series"] as? [[String: Any]] ?? []
        XCTAssertEqual(series.count, 1)
        XCTAssertEqual(series.first?["categories"] as? String, "'sales-by-month'!$A$2:$A$13")
        XCTAssertEqual(series.first?["values"] as? String, "'sales-by-month'!$C$2:$C$13")
        // The chart carries its data, so viewers that do not recalculate draw it; one series, no legend.
        let caches = charts.first?["caches"] as? [[String: Any]]
        XCTAssertEqual((caches?.first?["values"] as? [Double])?.count, 12)
        XCTAssertEqual((caches?.first?["categories"] as? [Any])?.count, 12)
        XCTAssertEqual(charts.first?["legend"] as? Bool, false)
        XCTAssertEqual(charts.first?["valueAxisFormat"] as? String, "#,##0.00_);-#,##0.00_)")
        // Months as months along the axis, turned 45° (-2,700,000 sixty-thousandths of a degree) so that twelve of
        // them never wrap over two lines.
        XCTAssertEqual(charts.first?["categoryAxisFormat"] as? String, "mmm yyyy")
        XCTAssertEqual(charts.first?["categoryRotation"] as? Int, -2_700_000)
    }

    func testCustomersDatesNullsAndCodes() throws {
        let directory = TemporaryDirectory()
        let book = try workbook("customers", in: directory)
        let sheet = "customers"
        book.assertCell(sheet, "B2", type: "str", value: "C001")
        book.assertCell(sheet, "D2", type: "int", value: 3)
        book.assertCell(sheet, "E2", type: "datetime", value: "2026-09-11T00:00:00", format: "yyyy-mm-dd")
        // Hill Street School has no orders: no tags, no last order (empty cells), 0 ordered.
        book.assertCell(sheet, "A8", type: "str", value: "Hill Street School")
        XCTAssertNil(book.cells(sheet)["C8"])
        XCTAssertNil(book.cells(sheet)["E8"])
        book.assertCell(sheet, "F8", type: "int", value: 0, format: "#,##0.00_);-#,##0.00_)")
    }

    func testEveryReportInOneWorkbook() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let directory = TemporaryDirectory()
        let path = directory.file("all.xlsx")
        let workbook = try XLSXWorkbook(output: .file(path: path), title: "Bookkeeper reports")
        for name in ExpectedOutputs.names { try ShippedReports.prepared(name).add(to: workbook, from: SampleStore.open()) }
        try workbook.close()
        let book = try OpenpyxlWorkbook(path: path)
        XCTAssertEqual(book.sheetNames, ExpectedOutputs.names + ["About"])
        XCTAssertEqual(book.properties["title"] as? String, "Bookkeeper reports")
        XCTAssertEqual(book.sheet("order-details")["autofilter"] as? String, "A1:G10")
        XCTAssertEqual(book.sheet("sales-by-service")["freeze"] as? String, "A2")
        // Every sheet prints with no set-up: one page wide, the header row on every page, title and parameters above,
        // page numbers and the generation time below; header cells filled.
        for name in ExpectedOutputs.names {
            let sheet = book.sheet(name)
            XCTAssertEqual(sheet["fitToPage"] as? Bool, true, name)
            XCTAssertEqual(sheet["fitToHeight"] as? Int, 0, name)
            XCTAssertEqual(sheet["printTitleRows"] as? String, "$1:$1", name)
            let header = sheet["header"] as? String ?? ""
            XCTAssertTrue(header.hasPrefix("&L&\"-,Bold\"" + (try ShippedReports.prepared(name).document.title)), "\(name): \(header)")
            XCTAssertEqual(sheet["footer"] as? String, "&LPage &P of &N&RGenerated 2026-11-21 00:00 UTC", name)
            XCTAssertEqual(book.cell(name, "A1")["fill"] as? String, "FFD9D9D9", name)
        }
        XCTAssertTrue((book.sheet("order-details")["header"] as? String ?? "").hasSuffix("&RFrom: 2026-10-01   To: 2026-10-31"))
        // The group without a customer is labelled.
        let customers = book.cells("sales-by-customer").values.compactMap { $0["value"] as? String }
        XCTAssertTrue(customers.contains("(no customer)"), "\(customers)")
    }
}
