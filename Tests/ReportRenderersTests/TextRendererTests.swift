// The text format as a contract: whole outputs over ordinary, hostile, empty and wide reports.

import Foundation
import LocalTime
import TestSupport
import XCTest
@testable import ReportRenderers

final class TextRendererTests: XCTestCase {
    func testOrdinaryReport() throws {
        XCTAssertEqual(try rendered(.text(), ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows), """
            Unpaid orders
            =============
            Orders that are not paid yet.

            Customer: Acme Ltd
            Since: 2026-01-01
            Sort: due date, oldest first
            Generated 2026-11-21 21:00 UTC

            Number  Customer  Due             Amount  Paid
            ------  --------  ----------  ----------  ----
            A-1     Acme Ltd  2026-10-01    1,234.50  no
            007     Zoë & Co  2026-10-15        0.99  no
            A-3                           -10,000.00  yes
            ------  --------  ----------  ----------  ----
            Total                          -8,764.51

            3 rows

            """)
    }

    /// A value ending in a prepended mark (U+0600 ARABIC NUMBER SIGN) joins the padding after it into one Swift
    /// Character, so trimming whole characters left a trailing space on its line; no line may end with one.
    func testALineEndingInAPrependedMarkHasNoTrailingSpace() throws {
        let document = ReportDocument(name: "names", title: "Names", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: [ReportColumn(title: "Code"), ReportColumn(title: "Name")])
        let text = try rendered(.text(), document, [[.text("C1"), .text("x\u{0600}")], [.text("C2"), .text("a longer name")]])
        XCTAssertTrue(text.contains("C1    x\u{0600}\n"), text.debugDescription)
        for line in text.split(separator: "\n") { XCTAssertNotEqual(line.utf8.last, UInt8(ascii: " "), line.debugDescription) }
    }

    /// Quotes, line feeds, tabs, emoji, formula-like text, negative zero, a huge amount: shown as
    /// they are on one line each; numbers are never shortened, so this table is wider than 78.
    func testHostileValues() throws {
        XCTAssertEqual(try rendered(.text(), ReportFixtures.hostile, ReportFixtures.hostileRows), """
            Hostile "values"
            ================

            Note: a b c
            Generated 2026-11-21 21:00 UTC

            Text        Code                     Amount                   Ratio  Share  When                            Count
            ----------  ----  -------------------------  ----------------------  -----  ----------------  -------------------
            say "hi...  42    92,233,720,368,547,758.07                       0  12.5%  2026-11-20 08:30                    1
            line fe...  0042                      -0.05                     0.1    50%                                     -2
            =cmd|' ...  -2+3                       0.00  1000000000000000000000   100%  1970-01-01 00:00
            @SUM(A1)    +1                       100.00                    -2.5     0%                    9223372036854775807
            ----------  ----  -------------------------  ----------------------  -----  ----------------  -------------------
            Total             92,233,720,368,547,858.02                                                   9223372036854775806

            4 rows

            """)
    }

    func testEmptyReportSaysZeroRows() throws {
        let text = try rendered(.text(), ReportFixtures.unpaidOrders, [])
        XCTAssertTrue(text.hasSuffix("""
            Generated 2026-11-21 21:00 UTC

            Number  Customer  Due  Amount  Paid
            ------  --------  ---  ------  ----

            0 rows

            """), text)
        XCTAssertFalse(text.contains("Total"), "no totals line without rows")
    }

    func testOneRow() throws {
        let text = try rendered(.text(), ReportFixtures.unpaidOrders, [ReportFixtures.unpaidOrderRows[0]])
        XCTAssertTrue(text.hasSuffix("Total                         1,234.50\n\n1 row\n"), text)
    }

    static let wide = ReportDocument(
        name: "notes", title: "Delivery notes", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
        columns: [
            ReportColumn(title: "Number", format: .code),
            ReportColumn(title: "Customer"),
            ReportColumn(title: "Note"),
            ReportColumn(title: "Amount", format: .money, total: true),
        ])
    static let wideRows: [[ReportCell]] = [
        [.text("A-1"), .text("Acme Ltd"), .text("Deliver to the loading dock behind the warehouse, ring twice"),
         .decimal(units: 123_450, scale: 2)],
        [.text("A-2"), .text("Very Long Customer Name Incorporated International"), .text("Short"),
         .decimal(units: 1000, scale: 2)],
        [.text("A-3"), .text("Zoë 😀 Émile"), .text("Note with\nline break"), .integer(5)],
    ]

    /// Text columns are shortened, widest first, with a visible `...`, so the table fits in 78
    /// columns; the emoji counts as two columns.
    func testFitsIn78Columns() throws {
        let text = try rendered(.text(), TextRendererTests.wide, TextRendererTests.wideRows)
        XCTAssertEqual(text, """
            Delivery notes
            ==============

            Generated 2026-11-21 21:00 UTC

            Number  Customer                       Note                             Amount
            ------  -----------------------------  -----------------------------  --------
            A-1     Acme Ltd                       Deliver to the loading doc...  1,234.50
            A-2     Very Long Customer Name In...  Short                             10.00
            A-3     Zoë 😀 Émile                   Note with line break               5.00
            ------  -----------------------------  -----------------------------  --------
            Total                                                                 1,249.50

            3 rows

            """)
        for line in text.split(separator: "\n") {
            XCTAssertLessThanOrEqual(TerminalText.width(String(line)), 78, String(line))
        }
    }

    func testNarrowTextColumnsStayWhole() throws {
        var document = TextRendererTests.wide
        document.columns[2].format = .code   // codes are never shortened
        let text = try rendered(.text(), document, TextRendererTests.wideRows)
        XCTAssertTrue(text.contains("Deliver to the loading dock behind the warehouse, ring twice"), text)
        XCTAssertTrue(text.contains("A-2     Very Lo...  Short"), "the text column goes down to 10 columns\n" + text)
    }

    func testNoEscapeCodesUnlessAsked() throws {
        let rows = [[ReportCell.text("\u{1B}[31mred\u{1B}[0m"), .null, .null, .integer(1), .null]]
        let plain = try rendered(.text(), ReportFixtures.unpaidOrders, rows)
        XCTAssertFalse(plain.contains("\u{1B}"), "an ESC in a value is shown as <U+001B>")
        XCTAssertTrue(plain.contains("<U+001B>[31mred<U+001B>[0m"), plain)

        let colored = try rendered(.text(useColor: true), ReportFixtures.unpaidOrders, rows)
        XCTAssertTrue(colored.hasPrefix("\u{1B}[1mUnpaid orders\u{1B}[0m\n"), colored)
        // The value's codes are 26 columns wide, and its column is as wide.
        XCTAssertTrue(colored.contains("\u{1B}[1mNumber" + String(repeating: " ", count: 22) + "Customer  Due  Amount  Paid\u{1B}[0m\n"), colored)
        XCTAssertTrue(colored.contains("\u{1B}[1mTotal" + String(repeating: " ", count: 40) + "1.00\u{1B}[0m\n"), colored)
        XCTAssertTrue(colored.contains("\n" + String(repeating: "-", count: 26) + "  --------  ---  ------  ----\n<U+001B>[31mred<U+001B>[0m"),
                      "rules and rows stay plain")
    }

    func testGeneratedTimeAndDateTimesInTheDocumentsZone() throws {
        var document = ReportFixtures.hostile
        document.timeZone = try! Zone(tz: "Europe/Helsinki")
        document.columns = [ReportColumn(title: "When", format: .dateTime), ReportColumn(title: "Day", format: .date)]
        let rows: [[ReportCell]] = [
            [.dateTime(secondsSinceEpoch: 1_795_163_415), .dateTime(secondsSinceEpoch: 1_795_215_600)],   // 23:00 UTC is 01:00 the next day
            [.dateTime(secondsSinceEpoch: 1_782_907_200), .date(year: 2026, month: 7, day: 1)],          // summer: UTC+3
        ]
        let text = try rendered(.text(), document, rows)
        XCTAssertTrue(text.contains("Generated 2026-11-21 23:00 Europe/Helsinki (UTC+02:00)\n"), text)
        XCTAssertTrue(text.contains("2026-11-20 10:30  2026-11-21\n"), text)
        XCTAssertTrue(text.contains("2026-07-01 15:00  2026-07-01\n"), text)
    }

    func testLongDescriptionsWrapAtTheLineWidth() throws {
        var document = ReportFixtures.unpaidOrders
        document.description = String(repeating: "word ", count: 30) + "\nSecond paragraph."
        let text = try rendered(.text(), document, [])
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        XCTAssertEqual(lines[2], Substring(String(repeating: "word ", count: 15).dropLast()))
        XCTAssertEqual(lines[3], Substring(String(repeating: "word ", count: 15).dropLast()))
        XCTAssertEqual(lines[4], "Second paragraph.")
    }

    func testValuesBecomeOneLine() {
        XCTAssertEqual(TerminalText.singleLine("a\nb\r\nc\td\u{2028}e"), "a b c d e")
        // As every other text output writes them (attack 26, finding 8: the report wrote `?`, the rest `<U+001B>`).
        XCTAssertEqual(TerminalText.singleLine("bell\u{7}esc\u{1B}del\u{7F}c1\u{9B}bidi\u{202E}x"),
                       "bell<U+0007>esc<U+001B>del<U+007F>c1<U+009B>bidi<U+202E>x")
        XCTAssertEqual(TerminalText.width(TerminalText.singleLine("a\u{1B}b")), 10, "a code counts as the columns it prints")
        XCTAssertEqual(TerminalText.width("😀日本e\u{301}"), 7)
        XCTAssertEqual(TerminalText.truncated("日本語のテキスト", toWidth: 8), "日本...")
    }

    /// Attack 27, finding 13: a cell cut to its width cut a code in half (`Ac<U+001...`). Generated values with
    /// controls, cut to every width: the shown text is the value's beginning, whole codes only (a code that does not
    /// fit is cut before), then `...`, within the width.
    func testACellCutToItsWidthNeverCutsACode() {
        let seed = Trials.seed(fixed: 27)
        var generator = SeededGenerator(seed: seed)
        let pieces: [String] = ["a", "é", "日", " ", "Z", "\u{1B}", "\u{9B}", "\u{200F}", "\u{61C}", "\u{202E}", "\u{7}", "<", "U+"]
        for _ in 0..<Trials.count("BOOKKEEPER_TRUNCATION_TRIALS", quick: 40, stress: 400) {
            let value = (0..<(1 + generator.next(upTo: 12))).map { _ in pieces[generator.next(upTo: pieces.count)] }.joined()
            let shown = TerminalText.singleLine(value)
            let codes = shown.ranges(of: /<U\+[0-9A-F]{4,6}>/).map { shown.distance(from: shown.startIndex, to: $0.lowerBound) }
            for width in 0...(TerminalText.width(shown) + 1) {
                let cut = TerminalText.truncated(shown, toWidth: width)
                XCTAssertLessThanOrEqual(TerminalText.width(cut), max(width, 0), "seed \(seed): \(shown.debugDescription) at \(width)")
                guard cut != shown, cut.hasSuffix("...") else { continue }
                let kept = String(cut.dropLast(3))
                XCTAssertTrue(shown.hasPrefix(kept), "seed \(seed): \(cut.debugDescription)")
                // The cut falls outside every code: at its start or after its end.
                let at = kept.count
                XCTAssertFalse(codes.contains { $0 < at && at < $0 + 8 }, "seed \(seed): \(shown.debugDescription) cut at \(width): \(cut)")
            }
        }
        XCTAssertEqual(TerminalText.truncated("Ac<U+001B>[2Jme corp", toWidth: 10), "Ac...")
        reportTrials("cell truncation", "seed \(seed)")
    }
}
