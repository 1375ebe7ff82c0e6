// What exit status a report run gives each renderer failure (the renderers know nothing of statuses;
// DefinitionError.swift maps them): an output that cannot be created 73, a failed write 74, a report
// larger than its format holds 65.

import Foundation
import LocalTime
import ObjectStore
@testable import ReportRenderers
import Reports
import TestSupport
import XCTest

final class RenderErrorStatusTests: XCTestCase {
    /// M9: more rows than an XLSX worksheet holds exited 1, a status the docs do not give; it is a data error.
    func testTooManyRowsForAWorksheetIsADataError() throws {
        let directory = TemporaryDirectory()
        let workbook = try XLSXWorkbook(output: .file(path: directory.file("big.xlsx")))
        workbook.rowLimit = 2   // stands for Excel's 1,048,574, so that the test writes three rows
        let document = ReportDocument(name: "big", title: "Big", generatedAt: Date(), timeZone: .utc,
                                      columns: [ReportColumn(title: "n", format: .integer)])
        var rows = ArrayRowSource(Array(repeating: [.integer(1)], count: 3))
        XCTAssertThrowsError(try workbook.add(document, rows: &rows)) { error in
            XCTAssertEqual((error as? CategorizedError)?.category, .data, "\(error)")
        }
    }

    func testOutputFailuresKeepTheirStatuses() {
        let file = "out/x.xlsx"
        XCTAssertEqual(ReportRenderError(file: file, kind: .io(operation: "create", errno: EACCES)).category, .cannotCreateOutput)
        XCTAssertEqual(ReportRenderError(file: file, kind: .io(operation: "write", errno: ENOSPC)).category, .io)
        XCTAssertEqual(ReportRenderError(file: file, kind: .xlsx(operation: "write the workbook", message: "x")).category, .io)
        XCTAssertEqual(ReportRenderError(file: file, kind: .invalidDocument("the chart has no value columns")).category, .failure)
    }
}
