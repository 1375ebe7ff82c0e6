// Constant memory, measured (not asserted): the peak RSS of a child process that writes N rows to
// XLSX, for two sizes of N. With constant-memory mode, 10× the rows should cost about the same
// memory. Figures are printed as `XLSX rows=… peakRSS=…KiB seconds=… rows/s=…`.

import Foundation
import TestSupport
import XCTest
@testable import ReportRenderers

final class XLSXMemoryTests: XCTestCase {
    func testPeakMemoryDoesNotGrowWithRows() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        var figures: [(rows: Int, rss: Int)] = []
        for rows in [20_000, 200_000] {
            let folder = try TemporaryFolder()
            let (process, output) = try ChildProcess.start(
                test: "XLSXMemoryTests/testMemoryChild",
                environment: ["REPORT_RENDERERS_CHILD_FOLDER": folder.path, "REPORT_RENDERERS_CHILD_ROWS": String(rows)])
            let line = ChildProcess.readLine(startingWith: "XLSX ", from: output)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            guard let line else { return XCTFail("no figures from the child") }
            print(line)
            let rss = line.split(separator: " ").first { $0.hasPrefix("peakRSS=") }.flatMap { Int($0.dropFirst(8).dropLast(3)) } ?? 0
            figures.append((rows, rss))
            XCTAssertEqual(try folder.contents(), ["big.xlsx"])
            // The file is complete: its last data row and the totals are at the end of the sheet.
            let check = try OpenpyxlWorkbook.run([OpenpyxlWorkbook.python, "-c", """
                import sys, zipfile
                tail = zipfile.ZipFile(sys.argv[1]).read("xl/worksheets/sheet1.xml")[-3000:].decode()
                print('<c r="A%d" t="inlineStr"><is><t>N%d</t>' % (\(rows + 1), \(rows)) in tail,
                      '<f>SUBTOTAL(109,D2:D%d)</f>' % \(rows + 1) in tail)
                """, folder.file("big.xlsx")])
            XCTAssertEqual(String(decoding: check.output, as: UTF8.self), "True True\n", check.error)
        }
        print("XLSX peak RSS: \(figures.map { "\($0.rows) rows → \($0.rss) KiB" }.joined(separator: ", "))")
    }

    func testMemoryChild() throws {
        guard let folder = ProcessInfo.processInfo.environment["REPORT_RENDERERS_CHILD_FOLDER"],
              let count = ProcessInfo.processInfo.environment["REPORT_RENDERERS_CHILD_ROWS"].flatMap({ Int($0) }) else {
            throw XCTSkip("runs only as the child of testPeakMemoryDoesNotGrowWithRows")
        }
        struct Generated: ReportRowSource {
            let total: Int
            var rowCount: Int? { nil }      // as the store's rows: not counted up front
            var index = 0
            mutating func nextRow() throws -> [ReportCell]? {
                guard index < total else { return nil }
                index += 1
                return [.text("N\(index)"), .text("Customer \(index % 977)"), .date(year: 2026, month: index % 12 + 1, day: index % 28 + 1),
                        .decimal(units: Int128(index) * 137, scale: 2), .integer(Int64(index)), .boolean(index % 2 == 0)]
            }
        }
        let document = ReportDocument(
            name: "big", title: "Big", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
            columns: [ReportColumn(title: "Number", format: .code), ReportColumn(title: "Customer"),
                      ReportColumn(title: "Due", format: .date), ReportColumn(title: "Amount", format: .money, total: true),
                      ReportColumn(title: "Count", format: .integer, total: true), ReportColumn(title: "Paid", format: .boolean)])
        var rows = Generated(total: count)
        let start = Date()
        try XLSXRenderer().render(document, rows: &rows, to: .file(path: folder + "/big.xlsx"))
        let seconds = Date().timeIntervalSince(start)
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        ChildProcess.say("XLSX rows=\(count) peakRSS=\(usage.ru_maxrss)KiB seconds=\(String(format: "%.2f", seconds)) "
                         + "rows/s=\(Int(Double(count) / seconds))")
    }
}
