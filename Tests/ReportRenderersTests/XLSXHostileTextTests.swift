// Text an XLSX file cannot hold as given: control characters outside cells (XML 1.0 forbids them),
// text longer than a cell's 32,767 characters. Each must leave a file every reader opens, and say
// what it changed.

import Foundation
import TestSupport
import XCTest
@testable import ReportRenderers

final class XLSXHostileTextTests: XCTestCase {
    /// Every XML part of the file parsed by a strict parser (expat): `ok`, or the parts it refuses.
    private func strictXMLProblems(_ path: String) throws -> String {
        let check = try OpenpyxlWorkbook.run([OpenpyxlWorkbook.python, "-c", """
            import sys, zipfile, xml.etree.ElementTree as ET
            bad = []
            archive = zipfile.ZipFile(sys.argv[1])
            for name in archive.namelist():
                if name.endswith(".xml") or name.endswith(".rels"):
                    try: ET.fromstring(archive.read(name))
                    except ET.ParseError as e: bad.append("%s: %s" % (name, e))
            print("; ".join(bad) or "ok")
            """, path])
        return String(decoding: check.output, as: UTF8.self).trimmingCharacters(in: .newlines) + check.error
    }

    /// F1: an ESC from `--param prefix=$'A\x1b[31m'` or a title went raw into docProps/core.xml, every print
    /// header and the chart title; openpyxl refused the file.
    func testControlCharactersOutsideCellsKeepTheFileValidXML() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let esc = "\u{1B}[31m"
        let document = ReportDocument(
            name: "sales\u{1B}\u{FFFF}", title: "Sales \(esc) report\u{7}", description: "Red\(esc)\u{FFFE} text\u{0}",
            parameters: [(name: "Prefix\u{1}", value: "A\(esc)")], sortDescription: "name\u{1B}",
            generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
            columns: [ReportColumn(title: "Name\u{1B}"), ReportColumn(title: "Amount", format: .money)],
            chart: ChartSpec(kind: .column, title: "By \(esc)name\tand\ncount", categoriesColumn: 0, valueColumns: [1]))
        let folder = try TemporaryFolder()
        let path = folder.file("control.xlsx")
        var rows = ArrayRowSource([[.text("A\(esc)one"), .decimal(units: 100, scale: 2)],
                                   [.text("B\u{FFFF}"), .decimal(units: 250, scale: 2)]])
        try XLSXRenderer().render(document, rows: &rows, to: .file(path: path))

        XCTAssertEqual(try strictXMLProblems(path), "ok")
        let workbook = try OpenpyxlWorkbook(path: path)   // openpyxl opens it
        XCTAssertEqual(workbook.sheetNames, ["sales__", "About"])
        XCTAssertEqual(workbook.properties["title"] as? String, "Sales ?[31m report?")
        XCTAssertEqual(workbook.properties["subject"] as? String, "Red?[31m? text?")
        XCTAssertEqual(workbook.properties["comments"] as? String,
                       "Prefix?: A?[31m\nSort: name?\nGenerated 2026-11-21 21:00 UTC")
        XCTAssertEqual(workbook.sheet("sales__")["header"] as? String,
                       #"&L&"-,Bold"Sales ?[31m report?&RPrefix?: A?[31m"#)
        XCTAssertEqual((workbook.sheet("sales__")["charts"] as? [[String: Any]])?.first?["title"] as? String,
                       "By ?[31mname and count")
        XCTAssertEqual(workbook.sheet("About")["header"] as? String, #"&L&"-,Bold"Sales ?[31m report?"#)
        // Cells keep the text as it is, in OOXML escapes (which Excel reads back, openpyxl does not).
        workbook.assertCell("sales__", "A2", type: "str", value: "A_x001B_[31mone")
        workbook.assertCell("sales__", "A3", type: "str", value: "B_xFFFF_")
        workbook.assertCell("About", "B1", type: "str", value: "Sales _x001B_[31m report_x0007_")
        // The categories' cache would hold the ESC raw: the chart goes without it; the values keep theirs.
        let caches = (workbook.sheet("sales__")["charts"] as? [[String: Any]])?.first?["caches"] as? [[String: Any]]
        XCTAssertNil(caches?.first?["categories"] as? [Any])
        XCTAssertEqual(caches?.first?["values"] as? [Double], [1, 2.5])
    }

    /// F5: a 50,003-character value became 32,767 characters, and a 40,000-character column title too, without a word.
    func testTextCutToACellsLengthIsListedOnTheAboutSheet() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        let long = String(repeating: "x", count: 50_000) + "END"
        let document = ReportDocument(
            name: "long", title: "Long", description: String(repeating: "d", count: 40_000),
            generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
            columns: [ReportColumn(title: String(repeating: "t", count: 40_000)), ReportColumn(title: "Info")])
        // 1 title and 22 values cut: 20 listed, 3 counted.
        var rows: [[ReportCell]] = [[.text("short"), .text(long)]]
        rows += (1...21).map { _ in [.text("é" + String(repeating: "y", count: 32_767)), .text("fits")] }
        let folder = try TemporaryFolder()
        let path = folder.file("long.xlsx")
        var source = ArrayRowSource(rows)
        try XLSXRenderer().render(document, rows: &source, to: .file(path: path))
        let workbook = try OpenpyxlWorkbook(path: path)
        XCTAssertEqual((workbook.cell("long", "B2")["value"] as? String)?.count, 32_767)
        XCTAssertEqual((workbook.cell("long", "A1")["value"] as? String)?.count, 32_767)

        let about = workbook.cells("About").mapValues { "\($0["value"] ?? "")" }
        XCTAssertEqual(about["A3"], "Description")
        XCTAssertEqual(about["B3"]?.count, 32_767)
        XCTAssertTrue(about["B3"]?.hasSuffix("ddd… (cut: 40,000 characters in all)") ?? false, about["B3"] ?? "")
        XCTAssertEqual(about["A6"], "Shortened")
        XCTAssertEqual(about["B6"], "23 texts were longer than a cell holds and were cut to 32,767 characters:")
        XCTAssertEqual(about["A7"], "A1")
        XCTAssertEqual(about["B7"], "40,000 characters")
        XCTAssertEqual(about["A8"], "B2")
        XCTAssertEqual(about["B8"], "50,003 characters")
        XCTAssertEqual(about["A9"], "A3")
        XCTAssertEqual(about["B9"], "32,768 characters")
        XCTAssertEqual(about["A26"], "A20")
        XCTAssertEqual(about["B27"], "and 3 more (the CSV and JSON outputs are whole)")
        XCTAssertNil(about["A28"])
    }

    func testXMLSafeTextReplacesWhatXMLForbidsAndNothingElse() {
        XCTAssertEqual(XLSXText.xmlSafe("a\u{0}b\u{1}c\u{1B}d\u{1F}e\u{FFFE}f\u{FFFF}g"), "a?b?c?d?e?f?g")
        XCTAssertEqual(XLSXText.xmlSafe("tab\tlf\ncr\r del\u{7F} c1\u{85} ok\u{FFFD} 😀"), "tab\tlf\ncr\r del\u{7F} c1\u{85} ok\u{FFFD} 😀")
        XCTAssertEqual(XLSXText.singleLine("a\tb\nc\r\nd\u{1B}"), "a b c  d?")
        XCTAssertEqual(XLSXPageSetup.escaped("R&D\u{1B}"), "R&&D?")
    }
}
