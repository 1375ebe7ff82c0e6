// The JSON format as a contract: whole outputs, and the string escaper over hostile values.

import Foundation
import LocalTime
import XCTest
@testable import ReportRenderers

final class JSONRendererTests: XCTestCase {
    func testOrdinaryReport() throws {
        XCTAssertEqual(try rendered(.json(), ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows), """
            {
              "name": "unpaid-orders",
              "title": "Unpaid orders",
              "description": "Orders that are not paid yet.",
              "parameters": {"Customer": "Acme Ltd", "Since": "2026-01-01"},
              "sort": "due date, oldest first",
              "generated": "2026-11-21T21:00:00+00:00",
              "timeZone": "UTC",
              "columns": [
                {"key": "Number", "title": "Number", "format": "code"},
                {"key": "Customer", "title": "Customer", "format": "text"},
                {"key": "Due", "title": "Due", "format": "date"},
                {"key": "Amount", "title": "Amount", "format": "money"},
                {"key": "Paid", "title": "Paid", "format": "boolean"}
              ],
              "rows": [
                {"Number": "A-1", "Customer": "Acme Ltd", "Due": "2026-10-01", "Amount": 1234.50, "Paid": false},
                {"Number": "007", "Customer": "Zoë & Co", "Due": "2026-10-15", "Amount": 0.99, "Paid": false},
                {"Number": "A-3", "Customer": null, "Due": null, "Amount": -10000.00, "Paid": true}
              ],
              "totals": {"Amount": -8764.51},
              "rowCount": 3
            }

            """)
    }

    func testHostileValues() throws {
        let text = try rendered(.json(), ReportFixtures.hostile, ReportFixtures.hostileRows)
        XCTAssertEqual(text, #"""
            {
              "name": "hostile",
              "title": "Hostile \"values\"",
              "description": null,
              "parameters": {"Note": "a\tb\nc"},
              "sort": null,
              "generated": "2026-11-21T21:00:00+00:00",
              "timeZone": "UTC",
              "columns": [
                {"key": "Text", "title": "Text", "format": "text"},
                {"key": "Code", "title": "Code", "format": "code"},
                {"key": "Amount", "title": "Amount", "format": "money"},
                {"key": "Ratio", "title": "Ratio", "format": "number"},
                {"key": "Share", "title": "Share", "format": "percent"},
                {"key": "When", "title": "When", "format": "dateTime"},
                {"key": "Count", "title": "Count", "format": "integer"}
              ],
              "rows": [
                {"Text": "say \"hi\", then; bye", "Code": "42", "Amount": 92233720368547758.07, "Ratio": 0, "Share": 0.125, "When": "2026-11-20T08:30:15+00:00", "Count": 1},
                {"Text": "line\nfeed\ttab 😀", "Code": "0042", "Amount": -0.05, "Ratio": 0.1, "Share": 0.5, "When": null, "Count": -2},
                {"Text": "=cmd|' /C calc'!A0", "Code": "-2+3", "Amount": 0.00, "Ratio": 1000000000000000000000, "Share": 1, "When": "1970-01-01T00:00:00+00:00", "Count": null},
                {"Text": "@SUM(A1)", "Code": "+1", "Amount": 100.0000, "Ratio": -2.5, "Share": 0, "When": null, "Count": 9223372036854775807}
              ],
              "totals": {"Amount": 92233720368547858.0200, "Count": 9223372036854775806},
              "rowCount": 4
            }

            """#)
        // Valid JSON, and the strings read back as they were.
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any]
        let rows = object?["rows"] as? [[String: Any]]
        XCTAssertEqual(rows?[1]["Text"] as? String, "line\nfeed\ttab 😀")
        XCTAssertEqual(rows?[2]["Text"] as? String, "=cmd|' /C calc'!A0")
    }

    func testEmptyReport() throws {
        let text = try rendered(.json(), ReportFixtures.unpaidOrders, [])
        XCTAssertTrue(text.hasSuffix("""
              ],
              "rows": [],
              "totals": {"Amount": 0.00},
              "rowCount": 0
            }

            """), text)
        XCTAssertNoThrow(try JSONSerialization.jsonObject(with: Data(text.utf8)))
    }

    func testRepeatedTitlesGetUniqueKeys() throws {
        let document = ReportDocument(
            name: "d", title: "d", parameters: [(name: "p", value: "1"), (name: "p", value: "2")],
            generatedAt: ReportFixtures.generatedAt, timeZone: try! Zone(tz: "Europe/Helsinki"),
            columns: [ReportColumn(title: "A"), ReportColumn(title: "A", format: .integer), ReportColumn(title: "A (2)")])
        let text = try rendered(.json(), document, [[.text("x"), .integer(1), .boolean(true)]])
        XCTAssertTrue(text.contains(#""parameters": {"p": "1", "p (2)": "2"},"#), text)
        XCTAssertTrue(text.contains(#""generated": "2026-11-21T23:00:00+02:00","#), text)
        XCTAssertTrue(text.contains(#""timeZone": "Europe/Helsinki","#), text)
        XCTAssertTrue(text.contains(#"{"A": "x", "A (2)": 1, "A (2) (2)": true}"#), text)
    }

    func testNonFiniteDoublesAreNull() throws {
        let document = ReportDocument(name: "d", title: "d", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: [ReportColumn(title: "x", format: .number, total: true)])
        let text = try rendered(.json(), document, [[.double(.nan)], [.double(-.infinity)], [.double(1.5)]])
        XCTAssertTrue(text.contains("{\"x\": null},\n    {\"x\": null},\n    {\"x\": 1.5}"), text)
        XCTAssertTrue(text.contains(#""totals": {"x": 1.5},"#), text)
    }

    func testStringEscaper() {
        XCTAssertEqual(JSONString.quoted(""), #""""#)
        XCTAssertEqual(JSONString.quoted(#"say "hi" \ bye"#), #""say \"hi\" \\ bye""#)
        XCTAssertEqual(JSONString.quoted("a\nb\rc\td\u{8}e\u{C}f"), #""a\nb\rc\td\be\ff""#)
        XCTAssertEqual(JSONString.quoted("\u{0}\u{1}\u{1B}\u{1F}\u{7F}"), #""\u0000\u0001\u001b\u001f\u007f""#)
        XCTAssertEqual(JSONString.quoted("line\u{2028}para\u{2029}end"), #""line\u2028para\u2029end""#)
        XCTAssertEqual(JSONString.quoted("emoji 😀 Zoë €"), "\"emoji 😀 Zoë €\"")
        XCTAssertEqual(JSONString.quoted("/ stays"), #""/ stays""#)
        XCTAssertEqual(JSONString.quoted("\u{FEFF}bom"), #""\ufeffbom""#)

        // Every hostile string reads back the same through an independent parser.
        let hostile = ["\"", "\\", "\n\r\t", "\u{0}", "\u{2028}\u{2029}", "😀👨‍👩‍👧", "=cmd|' /C calc'!A0", "\u{FEFF}bom", "\u{7F}"]
        for value in hostile {
            let json = "[" + JSONString.quoted(value) + "]"
            let parsed = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String]
            XCTAssertEqual(parsed, [value], json)
        }
    }
}
