// Delimiter guessing from the first records, and explicit delimiters.

import Foundation
import XCTest
@testable import CSV

final class DelimiterSnifferTests: XCTestCase {
    private func sniffed(_ text: String) throws -> String {
        String(UnicodeScalar(try CSVReader(string: text).delimiter))
    }

    func testEachCandidate() throws {
        XCTAssertEqual(try sniffed("a,b,c\n1,2,3\n"), ",")
        XCTAssertEqual(try sniffed("a;b;c\n1;2;3\n"), ";")
        XCTAssertEqual(try sniffed("a\tb\tc\n1\t2\t3\n"), "\t")
        XCTAssertEqual(try sniffed("a|b|c\n1|2|3\n"), "|")
    }

    func testDecimalCommasDoNotFoolIt() throws {
        XCTAssertEqual(try sniffed("Datum;Betrag;Text\n01.03.2024;1,50;Kaffee\n02.03.2024;12,75;Bücher, gebraucht\n"), ";")
    }

    func testDelimitersInsideQuotesDoNotCount() throws {
        XCTAssertEqual(try sniffed("\"a;b\",c\n\"d;e;f\",g\n"), ",")
        XCTAssertEqual(try sniffed("name;note\nx;\"1,2,3\"\ny;\"4,5\"\n"), ";")
        XCTAssertEqual(try sniffed("name;note\nx;\"multi\nline, with comma\"\ny;z\n"), ";")
    }

    func testRowsWithAStrayDelimiterStillPickTheHeadersDelimiter() throws {
        // As northwind-neo4j: some rows have one comma too many.
        XCTAssertEqual(try sniffed("id,name,city\n1,Ann,Paris\n2,24, place Kléber,Strasbourg\n3,Bo,Rome\n"), ",")
    }

    func testMoreFieldsWinWhenTwoCandidatesAreConsistent() throws {
        XCTAssertEqual(try sniffed("a,b;c;d\n1,2;3;4\n"), ";")
        XCTAssertEqual(try sniffed("a,b;c\n1,2;3\n"), ",", "a tie goes to the comma")
    }

    func testNothingFitsMeansComma() throws {
        XCTAssertEqual(try sniffed("single\ncolumn\n"), ",")
        XCTAssertEqual(try sniffed(""), ",")
    }

    func testHeaderOnlyAndBlankLines() throws {
        XCTAssertEqual(try sniffed("a;b;c"), ";")
        XCTAssertEqual(try sniffed("\n\na|b\n\n1|2\n"), "|")
    }

    func testACutLastRecordIsNotCounted() {
        let sample = Array("a;b\n1;2\n3".utf8)
        sample.withUnsafeBufferPointer {
            XCTAssertEqual(DelimiterSniffer.fieldCounts($0, delimiter: UInt8(ascii: ";"), isComplete: false, maxRecords: 20), [2, 2])
            XCTAssertEqual(DelimiterSniffer.fieldCounts($0, delimiter: UInt8(ascii: ";"), isComplete: true, maxRecords: 20), [2, 2, 1])
            XCTAssertEqual(DelimiterSniffer.sniff($0, isComplete: false), UInt8(ascii: ";"))
        }
    }

    func testAnExplicitDelimiterIsUsedAsGiven() throws {
        let reader = try CSVReader(string: "a;b,c\n", options: CSVReader.Options(delimiter: .comma))
        XCTAssertEqual(try reader.readAll(), [["a;b", "c"]])
        XCTAssertEqual(try records("a:b\n", CSVReader.Options(delimiter: .byte(UInt8(ascii: ":")))), [["a", "b"]])
    }

    func testDelimiterLabels() {
        XCTAssertEqual(CSVReader.Delimiter(label: "auto"), .auto)
        XCTAssertEqual(CSVReader.Delimiter(label: ","), .comma)
        XCTAssertEqual(CSVReader.Delimiter(label: "semicolon"), .semicolon)
        XCTAssertEqual(CSVReader.Delimiter(label: "\\t"), .tab)
        XCTAssertEqual(CSVReader.Delimiter(label: "tab"), .tab)
        XCTAssertEqual(CSVReader.Delimiter(label: "|"), .pipe)
        XCTAssertEqual(CSVReader.Delimiter(label: ":"), .byte(UInt8(ascii: ":")))
        XCTAssertNil(CSVReader.Delimiter(label: "\""))
        XCTAssertNil(CSVReader.Delimiter(label: "ab"))
        XCTAssertNil(CSVReader.Delimiter(label: "§"))
        XCTAssertEqual(CSVReader.Delimiter.tab.description, "tab")
        XCTAssertEqual(CSVReader.Delimiter.semicolon.description, ";")
    }
}
