import XCTest
@testable import ReportRenderers

final class XLSXSheetNamesTests: XCTestCase {
    func testNamesExcelAccepts() {
        var names = XLSXSheetNames()
        XCTAssertEqual(names.name(for: "unpaid-orders"), "unpaid-orders")
        XCTAssertEqual(names.name(for: "UNPAID-ORDERS"), "UNPAID-ORDERS (2)", "unique regardless of case")
        XCTAssertEqual(names.name(for: "a[b]c:d*e?f/g\\h"), "a_b_c_d_e_f_g_h")
        XCTAssertEqual(names.name(for: "  'quoted'  "), "quoted")
        XCTAssertEqual(names.name(for: ""), "Report")
        XCTAssertEqual(names.name(for: "'"), "Report (2)")
        XCTAssertEqual(names.name(for: "about"), "about (2)", "About is the summary sheet")
        XCTAssertEqual(names.name(for: "History"), "History (2)", "reserved by Excel")
        XCTAssertEqual(names.name(for: "line\nbreak\ttab"), "line_break_tab")
        let long = String(repeating: "x", count: 40)
        XCTAssertEqual(names.name(for: long), String(repeating: "x", count: 31))
        XCTAssertEqual(names.name(for: long), String(repeating: "x", count: 27) + " (2)")
        XCTAssertEqual(names.name(for: long), String(repeating: "x", count: 27) + " (3)")
        // 31 UTF-16 units: an emoji counts two and is never split.
        let emoji = String(repeating: "😀", count: 20)
        XCTAssertEqual(names.name(for: emoji), String(repeating: "😀", count: 15))
    }

    func testColumnLetters() {
        XCTAssertEqual([0, 1, 25, 26, 27, 51, 52, 701, 702, 16_383].map(XLSXWorkbook.columnLetters),
                       ["A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA", "XFD"])
    }
}
