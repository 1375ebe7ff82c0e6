// Constant memory: the peak RSS of a child process (`render-child memory`) that writes N rows to XLSX, for N and
// 10 × N. In constant-memory mode the rows stream to the file, so 10 × the rows may cost at most a little more
// memory (what grows is libxlsxwriter's shared bookkeeping, not the rows); a renderer that kept rows would need
// about 10 ×. The ratio is machine-independent, so no slow machine can fail it. Figures are printed as
// `XLSX rows=… peakRSS=…KiB seconds=… rows/s=…`. A charted sheet is kept in memory only up to a row limit
// (XLSXChartMemoryTests).

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
            let (process, output) = try ChildProcess.start(["memory", String(rows), folder.path])
            let line = ChildProcess.readLine(startingWith: "XLSX ", from: output)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationStatus, 0)
            guard let line else { return XCTFail("no figures from the child") }
            print(line)
            let rss = line.split(separator: " ").first { $0.hasPrefix("peakRSS=") }.flatMap { Int($0.dropFirst(8).dropLast(3)) } ?? 0
            XCTAssertGreaterThan(rss, 0, line)
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
        guard figures.count == 2 else { return }
        let ratio = Double(figures[1].rss) / Double(figures[0].rss)
        print("XLSX peak RSS: \(figures.map { "\($0.rows) rows → \($0.rss) KiB" }.joined(separator: ", ")); ratio \(String(format: "%.2f", ratio))")
        XCTAssertLessThanOrEqual(ratio, 1.25, "10 × the rows took \(String(format: "%.2f", ratio)) × the memory: rows are kept, not streamed")
    }
}

final class XLSXChartMemoryTests: XCTestCase {
    private func chart(rows count: Int, limit: Int) throws -> (chart: [String: Any], workbook: OpenpyxlWorkbook) {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let folder = try TemporaryFolder()
        let path = folder.file("chart.xlsx")
        let workbook = try XLSXWorkbook(output: .file(path: path))
        workbook.chartCacheRowLimit = limit
        var rows = ArrayRowSource((1...count).map { [.text("N\($0)"), .null, .null, .decimal(units: Int128($0) * 100, scale: 2), .boolean(false)] })
        try workbook.add(ReportFixtures.unpaidOrders, rows: &rows)
        try workbook.close()
        let read = try OpenpyxlWorkbook(path: path)
        return (try XCTUnwrap((read.sheet("unpaid-orders")["charts"] as? [[String: Any]])?.first), read)
    }

    /// M8: a chart on an ungrouped 300,000-row report kept the whole sheet in memory (360 MB) to cache the
    /// chart's data. Past the limit (lowered here from 10,000 to 3) the sheet streams and the chart goes
    /// without caches, still over every row.
    func testAChartOverManyRowsStreamsTheSheetAndDropsItsCaches() throws {
        let small = try chart(rows: 3, limit: 3)
        let smallCaches = small.chart["caches"] as? [[String: Any]]
        XCTAssertEqual(smallCaches?.first?["values"] as? [Double], [1, 2, 3], "at the limit: kept in memory, cached")
        XCTAssertEqual(smallCaches?.first?["categories"] as? [String], ["N1", "N2", "N3"])

        let large = try chart(rows: 4, limit: 3)
        let largeCaches = large.chart["caches"] as? [[String: Any]]
        XCTAssertNil(largeCaches?.first?["values"] as? [Any], "past the limit: no cache")
        XCTAssertNil(largeCaches?.first?["categories"] as? [Any])
        XCTAssertEqual((large.chart["series"] as? [[String: Any]])?.first?["values"] as? String, "'unpaid-orders'!$D$2:$D$5")
        large.workbook.assertCell("unpaid-orders", "A5", type: "str", value: "N4")
        large.workbook.assertCell("unpaid-orders", "D6", type: "str", value: "=SUBTOTAL(109,D2:D5)", cached: 10.0)
        XCTAssertEqual(XLSXWorkbook.maximumChartCacheRows, 10_000)
        // The About sheet says so, since a viewer that does not recalculate shows such a chart empty.
        let about = large.workbook.cells("About").values.compactMap { $0["value"] as? String }
        XCTAssertTrue(about.contains { $0.hasPrefix("drawn from the sheet's cells, without cached data") }, "\(about)")
        XCTAssertFalse(small.workbook.cells("About").values.contains { ($0["value"] as? String)?.hasPrefix("drawn from") ?? false })
    }

    func testRowsReadAheadAreGivenAgainThenTheRest() throws {
        var rows = ReadAheadRows(base: ArrayRowSource((1...5).map { [.integer(Int64($0))] }))
        XCTAssertFalse(try rows.readAhead(atMost: 2))
        var seen: [[ReportCell]] = []
        while let row = try rows.nextRow() { seen.append(row) }
        XCTAssertEqual(seen, (1...5).map { [.integer(Int64($0))] })
        var few = ReadAheadRows(base: ArrayRowSource([[.integer(1)]]))
        XCTAssertTrue(try few.readAhead(atMost: 1))
        XCTAssertEqual(try few.nextRow(), [.integer(1)])
        XCTAssertNil(try few.nextRow())
        XCTAssertNil(try few.nextRow())
    }
}
