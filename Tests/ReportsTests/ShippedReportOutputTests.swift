// Every shipped report's text, CSV and JSON output on SampleData/, compared whole with the files in
// Expected/ (the same files the command-line tests compare `bookkeeper report` with). Today is fixed
// at 2026-11-21 00:00 UTC. To accept a deliberate change, run the tests with
// BOOKKEEPER_UPDATE_EXPECTED=1 and review the diff of Expected/.

import Foundation
import ReportRenderers
import Reports
import TestSupport
import XCTest

/// The expected outputs, shared with BookkeeperCLITests (which reads them by path).
enum ExpectedOutputs {
    static var directory: URL { packageRoot.appendingPathComponent("Tests/ReportsTests/Expected") }
    static let names = ["customers", "order-details", "sales-by-customer", "sales-by-month", "sales-by-service", "unpaid-orders"]

    /// Compares `actual` with the expected file, or writes it when BOOKKEEPER_UPDATE_EXPECTED is set.
    static func check(_ actual: String, _ file: String, line: UInt = #line, caller: StaticString = #filePath) {
        let url = directory.appendingPathComponent(file)
        if ProcessInfo.processInfo.environment["BOOKKEEPER_UPDATE_EXPECTED"] != nil {
            try! Data(actual.utf8).write(to: url)
            return
        }
        // Decoded by hand: Foundation's String(contentsOf:) would drop a byte-order mark.
        guard let expected = (try? Data(contentsOf: url)).map({ String(decoding: $0, as: UTF8.self) }) else {
            XCTFail("missing \(url.path): run with BOOKKEEPER_UPDATE_EXPECTED=1 to write it", file: caller, line: line)
            return
        }
        XCTAssertEqual(actual, expected, "\(file) differs from Expected/\(file)", file: caller, line: line)
    }
}

final class ShippedReportOutputTests: XCTestCase {
    private func rendered(_ name: String, _ renderer: any ReportRenderer) throws -> String {
        let directory = TemporaryDirectory()
        let path = directory.file("out")
        try ShippedReports.prepared(name).render(from: SampleStore.open(), with: renderer, to: .file(path: path))
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    func testEveryShippedReportIsCovered() throws {
        XCTAssertEqual(try ShippedReports.library.entries().map(\.name), ExpectedOutputs.names)
    }

    func testText() throws {
        for name in ExpectedOutputs.names { ExpectedOutputs.check(try rendered(name, .text()), "\(name).txt") }
    }

    func testCSV() throws {
        for name in ExpectedOutputs.names { ExpectedOutputs.check(try rendered(name, .csv()), "\(name).csv") }
    }

    func testJSON() throws {
        for name in ExpectedOutputs.names { ExpectedOutputs.check(try rendered(name, .json()), "\(name).json") }
    }

    func testExcelCSVDialects() throws {
        ExpectedOutputs.check(try rendered("sales-by-customer", .csv(.excel)), "sales-by-customer.excel.csv")
        ExpectedOutputs.check(try rendered("sales-by-customer", .csv(.excelEU)), "sales-by-customer.excel-eu.csv")
    }

    func testTextFitsMailWidth() throws {
        for name in ExpectedOutputs.names {
            for line in try rendered(name, .text()).split(separator: "\n") {
                XCTAssertLessThanOrEqual(line.count, 78, "\(name): \(line)")
            }
        }
    }
}
