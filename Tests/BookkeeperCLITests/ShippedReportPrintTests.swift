// The shipped reports printed the way an accountant prints them: `bookkeeper report --all --format xlsx`,
// then LibreOffice (`soffice --headless --convert-to pdf`, Debian's libreoffice-calc-nogui, which `make test`
// installs) — on a store big enough that the detail reports run to three pages or more. Read back with poppler's
// pdftotext: every page of a data sheet carries the report's title and the header row with every column, and says
// which page of how many it is; the text is not shrunk below 60% of its size (word heights against a report
// printed at full size); the chart prints whole beside or below its table; empty groups are labelled and
// literal OOXML escapes show as written.

import Foundation
import TestSupport
import XCTest

final class ShippedReportPrintTests: XCTestCase {
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21", "TZ": "UTC", "BOOKKEEPER_REPORTS": ""]
    static let soffice = "/usr/bin/soffice"
    static let pdftotext = "/usr/bin/pdftotext"

    /// 241 customers, 30 services, 400 orders from December 2025 to October 2026 (100 of them in October, the
    /// period order-details shows by default) with 4 rows each; one customer is named like an OOXML escape, and
    /// some orders have no customer.
    static let fill = """
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 240)
        INSERT INTO Customer (id, name, code) SELECT i, printf('Customer %03d %s', i, CASE i % 4 WHEN 0 THEN 'Trading GmbH'
            WHEN 1 THEN 'Ltd' WHEN 2 THEN 'Bakery & Sons' ELSE 'Studio' END), printf('C%04d', i) FROM n;
        INSERT INTO Customer (id, name, code) VALUES (241, '_x0041_ Ltd', 'C0241');
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 30)
        INSERT INTO Service (id, name, code) SELECT i, printf('Service %02d', i), printf('S%02d', i) FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 400)
        INSERT INTO "Order" (id, number, date, made, paid, customer_id)
        SELECT i, printf('2026-%04d', i),
               CASE WHEN i <= 100 THEN date('2026-10-01', '+' || (i % 31) || ' days') ELSE date('2025-12-01', '+' || (i * 7 % 300) || ' days') END,
               1, i % 3 != 0, CASE WHEN i % 37 = 0 THEN NULL ELSE 1 + i % 241 END FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1600)
        INSERT INTO OrderRow (id, order_id, service_id, quantity, price, sum)
        SELECT i, 1 + (i - 1) / 4, 1 + i % 30, 1000 * (1 + i % 5), 1000 + i * 37 % 50000, (1 + i % 5) * (1000 + i * 37 % 50000) FROM n;
        """

    /// What was printed, once for the whole class (LibreOffice takes seconds to start).
    struct Printed {
        let directory: TemporaryDirectory
        /// Report → pages of text.
        var pdf: [String: [String]] = [:]
        /// Report → the median word height of each page.
        var heights: [String: [Double]] = [:]
        var referenceHeight = 0.0
    }
    nonisolated(unsafe) static var printed: Printed?

    private var pdf: [String: [String]] { ShippedReportPrintTests.printed?.pdf ?? [:] }
    private var heights: [String: [Double]] { ShippedReportPrintTests.printed?.heights ?? [:] }
    private var referenceHeight: Double { ShippedReportPrintTests.printed?.referenceHeight ?? 0 }

    override func setUpWithError() throws {
        for tool in [ShippedReportPrintTests.soffice, ShippedReportPrintTests.pdftotext] where !FileManager.default.isExecutableFile(atPath: tool) {
            throw XCTSkip("\(tool) is missing: `make test` installs libreoffice-calc-nogui and poppler-utils to print the reports to PDF")
        }
        if ShippedReportPrintTests.printed == nil { ShippedReportPrintTests.printed = try print() }
    }

    override class func tearDown() {
        printed = nil      // removes the folder
        super.tearDown()
    }

    private func print() throws -> Printed {
        let directory = TemporaryDirectory("bookkeeper-print")
        var printed = Printed(directory: directory)
        let store = directory.file("big.sqlite")
        XCTAssertEqual(runCLI(["--store", store, "init"]).status, 0)
        try executeSQL(store, ShippedReportPrintTests.fill)
        let out = directory.file("xlsx")
        let run = runCLI(["--store", store, "report", "--all", "--format", "xlsx", "--output-dir", out, "--quiet"],
                         in: directory.path, environment: ShippedReportPrintTests.environment)
        XCTAssertEqual(run.status, 0, "\(run)")
        // The reference for full-size text: a one-column report, which fits a portrait page without scaling.
        directory.write("reference.yaml", "entity: Service\nsort: name\ncolumns: [{ key: name, title: Service }]\n")
        let reference = runCLI(["--store", store, "report", directory.file("reference.yaml"), "--format", "xlsx",
                                "--output", "\(out)/reference.xlsx", "--quiet"], in: directory.path, environment: ShippedReportPrintTests.environment)
        XCTAssertEqual(reference.status, 0, "\(reference)")

        // A profile of its own, so that a LibreOffice another user or test runs does not get in the way.
        let files = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".xlsx") }.sorted()
        let converted = try runTool([ShippedReportPrintTests.soffice, "-env:UserInstallation=file://\(directory.file("profile"))",
                                     "--headless", "--convert-to", "pdf", "--outdir", directory.file("pdf")] + files.map { "\(out)/\($0)" })
        XCTAssertEqual(converted.status, 0, converted.error)
        for file in files {
            let name = String(file.dropLast(5))
            let path = directory.file("pdf/\(name).pdf")
            let text = try runTool([ShippedReportPrintTests.pdftotext, "-layout", path, "-"])
            XCTAssertEqual(text.status, 0, text.error)
            var pages = String(decoding: text.output, as: UTF8.self).components(separatedBy: "\u{0C}")
            if pages.last?.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty == true { pages.removeLast() }
            printed.pdf[name] = pages
            printed.heights[name] = try wordHeights(path)
        }
        printed.referenceHeight = printed.heights["reference"]?.first ?? 0
        XCTAssertGreaterThan(printed.referenceHeight, 0)
        return printed
    }

    /// The median height of the words on each page (`pdftotext -bbox`): how big the text is printed.
    private func wordHeights(_ path: String) throws -> [Double] {
        let boxes = try runTool([ShippedReportPrintTests.pdftotext, "-bbox", path, "-"])
        let html = String(decoding: boxes.output, as: UTF8.self)
        let word = try NSRegularExpression(pattern: #"<word xMin="[0-9.]+" yMin="([0-9.]+)" xMax="[0-9.]+" yMax="([0-9.]+)">"#)
        return html.components(separatedBy: "<page ").dropFirst().map { page in
            let range = NSRange(page.startIndex..., in: page)
            let values = word.matches(in: page, range: range).map { m in
                Double(page[Range(m.range(at: 2), in: page)!])! - Double(page[Range(m.range(at: 1), in: page)!])!
            }.sorted()
            return values.isEmpty ? 0 : values[values.count / 2]
        }
    }

    /// The pages of the report's data sheet (the About sheet's follow).
    private func dataPages(_ name: String) -> [String] {
        (pdf[name] ?? []).filter { !($0.contains("\nTitle ") && $0.contains("\nSheet ")) }
    }

    /// Every page: the title (print header), the header row with every column in order, `Page N of M`, and text at
    /// 60% of full size or more.
    private func assertPrintsWell(_ name: String, title: String, columns: [String], minimumPages: Int,
                                  file: StaticString = #filePath, line: UInt = #line) {
        let pages = dataPages(name)
        XCTAssertGreaterThanOrEqual(pages.count, minimumPages, "\(name) pages", file: file, line: line)
        let header = try! NSRegularExpression(pattern: "(?m)^\\s*" + columns.map(NSRegularExpression.escapedPattern).joined(separator: "\\s+") + "\\s*$")
        let total = pdf[name]?.count ?? 0
        for (i, page) in pages.enumerated() {
            XCTAssertTrue(page.contains(title), "\(name) page \(i + 1) lacks its title:\n\(page)", file: file, line: line)
            XCTAssertNotNil(header.firstMatch(in: page, range: NSRange(page.startIndex..., in: page)),
                            "\(name) page \(i + 1) lacks the header row with every column:\n\(page)", file: file, line: line)
            XCTAssertTrue(page.contains("Page \(i + 1) of \(total)"), "\(name) page \(i + 1) footer", file: file, line: line)
            XCTAssertTrue(page.contains("Generated 2026-11-21 00:00 UTC"), "\(name) page \(i + 1) footer", file: file, line: line)
            let scale = (heights[name]?[i] ?? 0) / referenceHeight
            XCTAssertGreaterThanOrEqual(scale, 0.6, "\(name) page \(i + 1) is printed at \(Int(scale * 100))%", file: file, line: line)
        }
    }

    func testDetailReportsPrintOnePageWideWithTheirHeaderOnEveryPage() {
        assertPrintsWell("order-details", title: "Order details",
                         columns: ["Date", "Order", "Customer", "Service", "Quantity", "Price", "Sum"], minimumPages: 3)
        assertPrintsWell("customers", title: "Customers",
                         columns: ["Customer", "Code", "Tags", "Orders", "Last order", "Ordered"], minimumPages: 3)
        // Every row's last column is on the page with its first: each data line of order details ends with its sum.
        for page in dataPages("order-details") {
            for line in page.split(separator: "\n") where line.hasPrefix("  2026-10-") || line.hasPrefix("2026-10-") {
                XCTAssertNotNil(line.range(of: #"[0-9],?[0-9]*\.[0-9]{2}\s*$"#, options: .regularExpression), "cut line: \(line)")
            }
        }
        // The parameters are in the print header.
        XCTAssertTrue(dataPages("order-details").allSatisfy { $0.contains("From: 2026-10-01") && $0.contains("To: 2026-10-31") })
    }

    func testEveryShippedReportPrintsWell() {
        assertPrintsWell("unpaid-orders", title: "Completed but unpaid orders", columns: ["Date", "Customer", "Order", "Total"], minimumPages: 1)
        assertPrintsWell("sales-by-customer", title: "Sales by customer", columns: ["Customer", "Orders", "Total"], minimumPages: 1)
        assertPrintsWell("sales-by-service", title: "Sales by service", columns: ["Service", "Rows", "Quantity", "Total"], minimumPages: 1)
        assertPrintsWell("sales-by-month", title: "Sales by month", columns: ["Month", "Orders", "Total"], minimumPages: 1)
    }

    /// Twelve months, as months, and the chart whole on the page with them: after its title, its value axis down to
    /// 0.00 and its category labels, first and last (turned 45°, pdftotext reads them a letter or two per line: `De`
    /// of Dec 2025, `No` of Nov 2026).
    func testSalesByMonthPrintsTwelveMonthsAndItsWholeChart() throws {
        let page = try XCTUnwrap(dataPages("sales-by-month").first)
        XCTAssertEqual(dataPages("sales-by-month").count, 1)
        for month in ["Dec 2025", "Jan 2026", "Sep 2026", "Oct 2026", "Nov 2026"] {
            XCTAssertTrue(page.contains(month), "\(month) in\n\(page)")
        }
        let parts = page.components(separatedBy: "Sales by month")
        XCTAssertEqual(parts.count, 3, "the print header and the chart's title")
        let chart = parts.last ?? ""
        XCTAssertNotNil(chart.range(of: #"(?m)^\s*0\.00\s*$"#, options: .regularExpression), "the value axis to 0.00:\n\(chart)")
        XCTAssertNotNil(chart.range(of: #"(?m)^\s*De\s.*\sNo\s*$"#, options: .regularExpression), "the first and last labels:\n\(chart)")
    }

    func testEmptyGroupsAreLabelledAndEscapesShowAsWritten() {
        XCTAssertTrue(dataPages("sales-by-customer").joined().contains("(no customer)"))
        XCTAssertTrue(dataPages("customers").joined().contains("_x0041_ Ltd"), "shown as written, not as \"A Ltd\"")
        XCTAssertFalse(dataPages("customers").joined().contains("A Ltd\n"))
    }
}
