// Every message is one line on stderr (one JSON record with --log-format json), whatever the values it quotes
// hold: a line feed from a parameter, a report name or a definition once began a second, forged
// `bookkeeper:` line, and a raw escape sequence reached the terminal. Control characters are shown as
// `<U+001B>`; libyaml's errors are one line with the file, line and column.

import Foundation
import TestSupport
import XCTest

final class MessageLineTests: StoreCommandTestCase {
    override func setUp() {
        super.setUp()
        ok("-q", "init")
    }

    /// stderr's lines, after checking there is exactly one and the exit status.
    private func oneLine(_ r: CLIResult, status: Int32, file: StaticString = #filePath, line: UInt = #line) -> String {
        XCTAssertEqual(r.status, status, "\(r)", file: file, line: line)
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines.count, 2, "one line and its line feed: \(r.stderr.debugDescription)", file: file, line: line)
        XCTAssertFalse(r.stderr.unicodeScalars.dropLast().contains { $0.properties.generalCategory == .control },
                       "a raw control character: \(r.stderr.debugDescription)", file: file, line: line)
        return String(lines[0])
    }

    func testALineFeedInAParameterWasASecondForgedLine() throws {
        let value = "until=2026\nbookkeeper: wrote out/all.xlsx (8 rows)"
        XCTAssertEqual(oneLine(bk("report", "unpaid-orders", "--param", value), status: 64),
                       #"bookkeeper: --param until: "2026<U+000A>bookkeeper: wrote out/all.xlsx (8 rows)" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …)"#)

        let json = oneLine(bk("--log-format", "json", "report", "unpaid-orders", "--param", value), status: 64)
        let record = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        XCTAssertEqual(record["level"] as? String, "error")
        XCTAssertEqual(record["message"] as? String,
                       #"--param until: "2026<U+000A>bookkeeper: wrote out/all.xlsx (8 rows)" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …)"#)
    }

    func testALineFeedInAReportNameOrATotalWasASecondLine() throws {
        let name = oneLine(bk("report", "nope\nbookkeeper: wrote out/all.xlsx (8 rows)"), status: 66)
        XCTAssertTrue(name.hasPrefix("bookkeeper: ") && name.contains("nope<U+000A>bookkeeper: wrote"), name)

        try "entity: Customer\ncolumns: [name]\ntotals: [\"a\\nbookkeeper: fake line\"]\n".write(toFile: dir.file("nl.yaml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(oneLine(bk("report", "nl.yaml"), status: 78),
                       #"bookkeeper: nl.yaml:3:10: totals names no column "a<U+000A>bookkeeper: fake line" (the columns are "name")"#)
    }

    func testAControlByteInADefinitionWasThreeLinesAndReachedTheTerminal() throws {
        try "entity: Customer\ntitle: \"a\u{1B}]0;PWNED\u{07}\"\ncolumns: [name]\n".write(toFile: dir.file("esc.yaml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(oneLine(bk("report", "esc.yaml"), status: 78),
                       "bookkeeper: esc.yaml:2:10: not valid YAML: control characters are not allowed (U+001B)")
        try "entity: Customer\ncolumns: [na\u{0}me]\n".write(toFile: dir.file("nul.yaml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(oneLine(bk("report", "nul.yaml"), status: 78),
                       "bookkeeper: nul.yaml:2:13: not valid YAML: control characters are not allowed (U+0000)")
        // The column counts characters: é before the byte is one.
        try "entity: Customer\ntitle: é\u{07}\ncolumns: [name]\n".write(toFile: dir.file("bel.yaml"), atomically: true, encoding: .utf8)
        XCTAssertEqual(oneLine(bk("report", "bel.yaml"), status: 78),
                       "bookkeeper: bel.yaml:2:9: not valid YAML: control characters are not allowed (U+0007)")
    }

    func testAnEscapeInAParameterNameOrValueWasEchoedRaw() {
        XCTAssertEqual(oneLine(bk("report", "unpaid-orders", "--param", "until=\u{1B}]0;x\u{07}"), status: 64),
                       #"bookkeeper: --param until: "<U+001B>]0;x<U+0007>" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …)"#)
        let name = oneLine(bk("report", "unpaid-orders", "--param", "\u{1B}[2Juntil=today"), status: 64)
        XCTAssertTrue(name.contains("<U+001B>[2Juntil"), name)
    }
}
