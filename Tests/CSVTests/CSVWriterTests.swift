// The writer's output format (a contract: golden texts over hostile values) and the round trip
// writer → reader on random records.

import Foundation
import XCTest
import TestSupport
@testable import CSV

final class CSVWriterTests: XCTestCase {
    private func written(_ records: [[String]], _ options: CSVWriter.Options = CSVWriter.Options()) throws -> String {
        let writer = CSVWriter(options: options)
        for record in records { try writer.writeRecord(record) }
        return String(decoding: writer.data, as: UTF8.self)
    }

    func testQuotesOnlyWhenNeeded() throws {
        let values = ["plain", "with,comma", "with \"quote\"", "line\nfeed", "cr\rhere", " spaces ", "", "tab\there",
                      "emoji 😀", "nbsp\u{A0}", "-0", "1e309", "semi;colon", "\u{FEFF}starts with a BOM", "\"", "a\r\nb"]
        let expected = "plain,\"with,comma\",\"with \"\"quote\"\"\",\"line\nfeed\",\"cr\rhere\", spaces ,,tab\there,"
            + "emoji 😀,nbsp\u{A0},-0,1e309,semi;colon,\"\u{FEFF}starts with a BOM\",\"\"\"\",\"a\r\nb\"\n"
        XCTAssertEqual(try written([values]), expected)
    }

    func testARecordWithOneEmptyFieldIsQuotedSoItIsNotABlankLine() throws {
        XCTAssertEqual(try written([["h"], [""], ["x"]]), "h\n\"\"\nx\n")
        XCTAssertEqual(try written([["", ""]]), ",\n")
        XCTAssertEqual(try written([[]]), "\n")
        XCTAssertEqual(try CSVReader(string: try written([["h"], [""], ["x"]])).readAll(), [["h"], [""], ["x"]])
    }

    func testOptions() throws {
        XCTAssertEqual(try written([["a", "b,c"], ["1", "x;y"]], CSVWriter.Options(delimiter: UInt8(ascii: ";"), lineEnding: .crlf)),
                       "a;b,c\r\n1;\"x;y\"\r\n")
        let withBOM = CSVWriter(options: CSVWriter.Options(delimiter: UInt8(ascii: "\t"), byteOrderMark: true))
        try withBOM.writeRecord(["a", "b\tc"])
        XCTAssertEqual(Array(withBOM.data), [0xEF, 0xBB, 0xBF] + Array("a\t\"b\tc\"\n".utf8))
        let empty = CSVWriter(options: CSVWriter.Options(byteOrderMark: true))
        XCTAssertEqual(Array(empty.data), [0xEF, 0xBB, 0xBF])
    }

    func testFieldByFieldAndSubstrings() throws {
        let writer = CSVWriter()
        let line = "id=7;name=Zoë \"Z\""
        for part in line.split(separator: ";") { try writer.writeField(part.split(separator: "=")[1]) }
        try writer.endRecord()
        "raw,bytes".utf8CString.withUnsafeBufferPointer { chars in
            chars.withMemoryRebound(to: UInt8.self) { bytes in
                try? writer.writeField(bytes: UnsafeBufferPointer(rebasing: bytes.dropLast()))
            }
        }
        try writer.endRecord()
        XCTAssertEqual(String(decoding: writer.data, as: UTF8.self), "7,\"Zoë \"\"Z\"\"\"\n\"raw,bytes\"\n")
        XCTAssertEqual(writer.recordCount, 2)
    }

    func testFieldsLargerThanTheBuffer() throws {
        let huge = String(repeating: "\"ab", count: 200_000)
        let text = try written([["x", huge, "y"]])
        XCTAssertEqual(text.utf8.count, 2 + (3 + 1) * 200_000 + 2 + 3)
        XCTAssertEqual(try CSVReader(string: text).readAll(), [["x", huge, "y"]])
    }

    func testWritesToAFile() throws {
        let directory = try temporaryDirectory(for: self)
        let path = directory.appendingPathComponent("out.csv").path
        let writer = try CSVWriter(path: path)
        for i in 0..<100_000 { try writer.writeRecord([String(i), "name \(i)", "a,b"]) }
        try writer.close()
        let reader = try CSVReader(path: path)
        var count = 0
        while let record = try reader.next() {
            XCTAssertEqual(record[0], String(count))
            XCTAssertEqual(record[2], "a,b")
            count += 1
        }
        XCTAssertEqual(count, 100_000)
    }

    /// Random records with quotes, delimiters, CR, LF, empty fields, emoji and non-breaking spaces:
    /// the reader gives back what the writer wrote, for every delimiter and line ending, also with
    /// a BOM, also through a tiny read buffer.
    func testRoundTripOfRandomRecords() throws {
        let pieces = ["a", "Zoë", " ", "  ", "\"", "\"\"", ",", ";", "\t", "|", "\r", "\n", "\r\n", "😀", "👩‍👩‍👧", "\u{A0}",
                      "\u{FEFF}", "x\"y", "0", "-1.5", ""]
        var generator = SeededGenerator(seed: 42)
        for round in 0..<200 {
            let records: [[String]] = (0..<Int.random(in: 0...8, using: &generator)).map { _ in
                (0..<Int.random(in: 1...6, using: &generator)).map { _ in
                    (0..<Int.random(in: 0...5, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
                }
            }
            let delimiter = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")].randomElement(using: &generator)!
            let options = CSVWriter.Options(delimiter: delimiter, lineEnding: Bool.random(using: &generator) ? .lf : .crlf,
                                            byteOrderMark: Bool.random(using: &generator))
            let writer = CSVWriter(options: options)
            for record in records { try writer.writeRecord(record) }
            let data = writer.data
            for bufferSize in [1 << 16, 4] {
                let reader = try CSVReader(data: data, options: CSVReader.Options(delimiter: .byte(delimiter), encoding: .utf8,
                                                                                  bufferSize: bufferSize))
                XCTAssertEqual(try reader.readAll(), records, "round \(round), buffer \(bufferSize): \(String(decoding: data, as: UTF8.self).debugDescription)")
            }
        }
    }
}
