// The CSV format as a contract: each dialect over hostile values, byte for byte.

import CSV
import Foundation
import XCTest
@testable import ReportRenderers

final class CSVRendererTests: XCTestCase {
    /// People open report CSVs: formula-like text gets a leading quote; numbers (-0.05, -2.5) stay numbers.
    func testStandardDialect() throws {
        XCTAssertEqual(try rendered(.csv(), ReportFixtures.hostile, ReportFixtures.hostileRows), """
            Text,Code,Amount,Ratio,Share,When,Count
            "say ""hi"", then; bye",42,92233720368547758.07,0,0.125,2026-11-20T08:30:15+00:00,1
            "line
            feed\ttab 😀",0042,-0.05,0.1,0.5,,-2
            '=cmd|' /C calc'!A0,'-2+3,0.00,1000000000000000000000,1,1970-01-01T00:00:00+00:00,
            '@SUM(A1),'+1,100.0000,-2.5,0,,9223372036854775807

            """)
    }

    /// Pipelines that want the text as stored ask for it.
    func testRawDialectWritesTextExactly() throws {
        XCTAssertEqual(try rendered(.csv(.raw), ReportFixtures.hostile, ReportFixtures.hostileRows), """
            Text,Code,Amount,Ratio,Share,When,Count
            "say ""hi"", then; bye",42,92233720368547758.07,0,0.125,2026-11-20T08:30:15+00:00,1
            "line
            feed\ttab 😀",0042,-0.05,0.1,0.5,,-2
            =cmd|' /C calc'!A0,-2+3,0.00,1000000000000000000000,1,1970-01-01T00:00:00+00:00,
            @SUM(A1),+1,100.0000,-2.5,0,,9223372036854775807

            """)
        let titled = ReportDocument(name: "t", title: "t", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                    columns: [ReportColumn(title: "=Total", format: .money)])
        XCTAssertEqual(try rendered(.csv(.raw), titled, [[.decimal(units: -250, scale: 2)]]), "=Total\n-2.50\n")
        XCTAssertEqual(try rendered(.csv(), titled, [[.decimal(units: -250, scale: 2)]]), "'=Total\n-2.50\n")
    }

    /// A byte-order mark, CRLF, and formula-like text cells neutralised with a quote; numbers
    /// (-0.05, -2.5) untouched.
    func testExcelDialect() throws {
        XCTAssertEqual(try rendered(.csv(.excel), ReportFixtures.hostile, ReportFixtures.hostileRows),
                       "\u{FEFF}Text,Code,Amount,Ratio,Share,When,Count\r\n"
                       + "\"say \"\"hi\"\", then; bye\",42,92233720368547758.07,0,0.125,2026-11-20T08:30:15+00:00,1\r\n"
                       + "\"line\nfeed\ttab 😀\",0042,-0.05,0.1,0.5,,-2\r\n"
                       + "'=cmd|' /C calc'!A0,'-2+3,0.00,1000000000000000000000,1,1970-01-01T00:00:00+00:00,\r\n"
                       + "'@SUM(A1),'+1,100.0000,-2.5,0,,9223372036854775807\r\n")
    }

    func testExcelEUDialect() throws {
        XCTAssertEqual(try rendered(.csv(.excelEU), ReportFixtures.hostile, ReportFixtures.hostileRows),
                       "\u{FEFF}Text;Code;Amount;Ratio;Share;When;Count\r\n"
                       + "\"say \"\"hi\"\", then; bye\";42;92233720368547758,07;0;0,125;2026-11-20T08:30:15+00:00;1\r\n"
                       + "\"line\nfeed\ttab 😀\";0042;-0,05;0,1;0,5;;-2\r\n"
                       + "'=cmd|' /C calc'!A0;'-2+3;0,00;1000000000000000000000;1;1970-01-01T00:00:00+00:00;\r\n"
                       + "'@SUM(A1);'+1;100,0000;-2,5;0;;9223372036854775807\r\n")
    }

    func testOrdinaryReportHasNoTotalsRecord() throws {
        XCTAssertEqual(try rendered(.csv(), ReportFixtures.unpaidOrders, ReportFixtures.unpaidOrderRows), """
            Number,Customer,Due,Amount,Paid
            A-1,Acme Ltd,2026-10-01,1234.50,false
            007,Zoë & Co,2026-10-15,0.99,false
            A-3,,,-10000.00,true

            """)
    }

    func testEmptyReportIsTheHeader() throws {
        XCTAssertEqual(try rendered(.csv(), ReportFixtures.unpaidOrders, []), "Number,Customer,Due,Amount,Paid\n")
        XCTAssertEqual(try rendered(.csv(.excel), ReportFixtures.unpaidOrders, []),
                       "\u{FEFF}Number,Customer,Due,Amount,Paid\r\n")
    }

    func testNeutralization() {
        for formula in ["=1+2", "+1", "-2+3", "@SUM(A1)", "\tx", "\rx", "=cmd|' /C calc'!A0"] {
            XCTAssertEqual(CSVRenderer.neutralized(formula), "'" + formula)
        }
        for safe in ["", "abc", " =1", "'=1", "1-2", "😀="] {
            XCTAssertEqual(CSVRenderer.neutralized(safe), safe)
        }
        let titled = ReportDocument(name: "t", title: "t", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                    columns: [ReportColumn(title: "=Total", format: .money)])
        XCTAssertEqual(try rendered(.csv(.excel), titled, [[.decimal(units: -250, scale: 2)]]), "\u{FEFF}'=Total\r\n-2.50\r\n")
    }

    /// A to-many column holding one number, date or Boolean writes it as its own column would; text, and a list of
    /// several, stay neutralized as text. Seen: `'-5.000` for a one-item list of -5.000 (found by the attack on 0.7.0).
    func testAListOfNumbersIsNotPrefixedLikeFormulaText() throws {
        let document = ReportDocument(name: "t", title: "t", generatedAt: ReportFixtures.generatedAt, timeZone: ReportFixtures.utc,
                                      columns: [ReportColumn(title: "D", format: .number)])
        let cases: [(ReportCell, String)] = [
            (.list([.decimal(units: -5000, scale: 3)]), "-5.000"),
            (.decimal(units: -5000, scale: 3), "-5.000"),
            (.list([.integer(-7)]), "-7"),
            (.list([.double(-0.5)]), "-0.5"),
            (.list([.text("-x")]), "'-x"),
            (.list([.text("=1+2")]), "'=1+2"),
            (.list([.decimal(units: -5000, scale: 3), .integer(3)]), "\"'-5.000, 3\""),
            (.list([.decimal(units: 5000, scale: 3), .integer(-3)]), "\"5.000, -3\""),
        ]
        for (cell, expected) in cases {
            XCTAssertEqual(try rendered(.csv(.standard), document, [[cell]]), "D\n\(expected)\n", "\(cell)")
        }
    }

    /// What the CSV module's reader gets back is what the plain form says.
    func testReadsBack() throws {
        let text = try rendered(.csv(.excelEU), ReportFixtures.hostile, ReportFixtures.hostileRows)
        let records = try CSVReader(string: text).readAll()
        XCTAssertEqual(records.count, 5)
        XCTAssertEqual(records[2][0], "line\nfeed\ttab 😀")
        XCTAssertEqual(records[1][2], "92233720368547758,07")
    }
}
