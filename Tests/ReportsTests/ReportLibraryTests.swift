// Finding definitions: directories searched in order, the first file of a name winning (an operator's
// copy replaces a shipped report), the shipped Reports/ found from the executable, and unknown names.

import Bookkeeping
import Foundation
import ObjectStore
import Reports
import TestSupport
import XCTest

final class ReportLibraryTests: XCTestCase {
    func testTheFirstDirectoryWins() throws {
        let mine = TemporaryDirectory()
        mine.write("unpaid-orders.yaml", "title: My unpaid orders\nentity: Order\ncolumns: [number]\n")
        mine.write("extra.yml", "entity: Order\ncolumns: [number]\n")
        mine.write(".hidden.yaml", "not: read")
        mine.write("notes.txt", "not a definition")
        let library = ReportLibrary.standard(extra: [mine.path], environment: [:], executablePath: nil)
        XCTAssertEqual(library.directories, [mine.path])
        let both = ReportLibrary(directories: [mine.path, ShippedReports.directory])
        XCTAssertEqual(try both.entries().map(\.name),
                       ["customers", "extra", "order-details", "sales-by-customer", "sales-by-month", "sales-by-service", "unpaid-orders"])
        XCTAssertEqual(try both.definition(named: "unpaid-orders").displayTitle, "My unpaid orders")
        XCTAssertEqual(try both.definition(named: "customers").displayTitle, "Customers")
    }

    func testEnvironmentThenShipped() throws {
        let a = TemporaryDirectory(), b = TemporaryDirectory()
        let executable = packageRoot.appendingPathComponent(".build/debug/bookkeeper").path
        let library = ReportLibrary.standard(extra: ["x"], environment: ["BOOKKEEPER_REPORTS": "\(a.path):\(b.path)"],
                                             executablePath: executable)
        XCTAssertEqual(library.directories, ["x", a.path, b.path, ShippedReports.directory])
        XCTAssertEqual(ReportLibrary.shippedDirectory(executable: "/usr/bin/env"), nil)
    }

    func testUnknownNamesAndMissingDirectories() {
        XCTAssertThrowsError(try ShippedReports.library.entry(named: "unpaid-ordres")) { error in
            XCTAssertEqual((error as? CategorizedError)?.category, .usage)
            XCTAssertEqual("\(error)", #"unknown report "unpaid-ordres" — did you mean "unpaid-orders"? (looked in \#(ReportLibrary.displayPath(ShippedReports.directory)); `bookkeeper reports` lists them)"#)
        }
        let library = ReportLibrary.standard(extra: ["/nonexistent/reports"], environment: [:], executablePath: nil)
        XCTAssertThrowsError(try library.entries()) { error in
            XCTAssertEqual((error as? CategorizedError)?.category, .missingInput)
            XCTAssertEqual("\(error)", "--reports /nonexistent/reports: no such directory")
        }
    }

    func testLiteralBlockPredicatesKeepTheirPlaces() throws {
        let yaml = """
            entity: Order
            where: |
              made == YES AND
              paid == NO AND numbr == "x"
            columns: [number]

            """
        let definition = try ReportDefinition.parse(yaml, name: "x", file: "x.yaml")
        XCTAssertEqual(definition.predicate?.place, SourcePlace(file: "x.yaml", line: 3, column: 1))
        XCTAssertThrowsError(try PreparedReport.check(definition, model: BookkeepingModel.model, clock: SampleStore.clock)) { error in
            XCTAssertEqual("\(error)", #"x.yaml:4:18: unknown key "numbr" on Order — did you mean "number"?"#)
        }
    }
}
