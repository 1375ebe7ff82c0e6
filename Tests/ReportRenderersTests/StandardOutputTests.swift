// Rendering to standard output: the same bytes as to a file; XLSX is assembled in the temp
// directory, copied out and removed.

import Foundation
import TestSupport
import XCTest
@testable import ReportRenderers

final class StandardOutputTests: XCTestCase {
    /// Runs `body` with file descriptor 1 redirected to a file; returns what was written there.
    private func capturingStandardOutput(_ body: () throws -> Void) throws -> Data {
        let folder = try TemporaryFolder()
        let path = folder.file("stdout")
        fflush(nil)
        let saved = dup(STDOUT_FILENO)
        let capture = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(capture, 0)
        dup2(capture, STDOUT_FILENO)
        close(capture)
        defer {
            fflush(nil)
            dup2(saved, STDOUT_FILENO)
            close(saved)
        }
        try body()
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func testTextCSVAndJSONWriteTheSameBytes() throws {
        for renderer in [ReportFormat.text, .csv, .json].map({ $0.renderer() }) {
            var rows = ArrayRowSource(ReportFixtures.hostileRows)
            let written = try capturingStandardOutput {
                try renderer.render(ReportFixtures.hostile, rows: &rows, to: ReportOutput(path: "-"))
            }
            XCTAssertEqual(written, try renderedData(renderer, ReportFixtures.hostile, ReportFixtures.hostileRows))
        }
    }

    func testXLSXIsCopiedOutAndItsTemporaryFileRemoved() throws {
        let temporary = try TemporaryFolder()
        setenv("TMPDIR", temporary.path, 1)
        defer { unsetenv("TMPDIR") }
        var rows = ArrayRowSource(ReportFixtures.unpaidOrderRows)
        let written = try capturingStandardOutput {
            try XLSXRenderer().render(ReportFixtures.unpaidOrders, rows: &rows, to: .standardOutput)
        }
        XCTAssertEqual(Array(written.prefix(2)), Array("PK".utf8), "a zip file")
        XCTAssertEqual(try temporary.contents(), [], "the workbook assembled in TMPDIR is removed")

        try OpenpyxlWorkbook.requireOpenpyxl()
        let folder = try TemporaryFolder()
        try written.write(to: URL(fileURLWithPath: folder.file("copy.xlsx")))
        let workbook = try OpenpyxlWorkbook(path: folder.file("copy.xlsx"))
        XCTAssertEqual(workbook.sheetNames, ["unpaid-orders", "About"])
        XCTAssertEqual(workbook.cell("unpaid-orders", "D5")["cached"] as? Double, -8764.51)
    }

    func testOutputNames() {
        XCTAssertEqual(ReportOutput(path: "-"), .standardOutput)
        XCTAssertEqual(ReportOutput(path: "out/x.xlsx"), .file(path: "out/x.xlsx"))
        XCTAssertEqual("\(ReportOutput.standardOutput)", "-")
    }
}
