// Input that is not text in any encoding the reader knows (issue 6, "not UTF-8 and not Windows-1252"):
// Windows-1252 gives every byte a character, so the reader refuses, when it opens the input, what no
// UTF-8 or Windows-1252 export contains: a UTF-16 or UTF-32 byte-order mark, or a NUL byte among the
// first bytes read (UTF-16 text without a mark, PNG, ZIP and so XLSX, executables).

import Foundation
import XCTest
@testable import CSV

final class CSVNotTextTests: XCTestCase {
    private func openError(_ bytes: [UInt8], _ options: CSVReader.Options = CSVReader.Options()) -> String? {
        csvError { _ = try CSVReader(data: Data(bytes), displayName: "in.csv", options: options).readAll() }?.description
    }

    func testByteOrderMarksOfOtherEncodingsWhenAnotherEncodingIsGiven() throws {
        // With auto (or utf-16) the mark names the encoding and the file is read (CSVCodePageTests); with
        // an encoding the reader parses directly, the mark says it is not that encoding.
        let utf16LE: [UInt8] = [0xFF, 0xFE] + Array("name\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        XCTAssertEqual(openError(utf16LE, CSVReader.Options(encoding: .utf8)), "in.csv: not CSV text in the encoding given: the file begins with a UTF-16 (little-endian) byte-order mark — leave --encoding auto, or give utf-16")
        XCTAssertEqual(openError([0xFE, 0xFF, 0x00, 0x6E], CSVReader.Options(encoding: .windows1252)), "in.csv: not CSV text in the encoding given: the file begins with a UTF-16 (big-endian) byte-order mark — leave --encoding auto, or give utf-16")
        XCTAssertEqual(openError([0xFF, 0xFE, 0x00, 0x00, 0x6E, 0, 0, 0], CSVReader.Options(encoding: .latin1)), "in.csv: not CSV text in the encoding given: the file begins with a UTF-32 (little-endian) byte-order mark — leave --encoding auto, or give utf-32")
        XCTAssertEqual(try CSVReader(data: Data(utf16LE)).readAll(), [["name"]])
    }

    func testNULBytesMeanABinaryFile() {
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52]
        XCTAssertEqual(openError(png), "in.csv: not CSV text: a NUL byte at offset 8 — a binary file, or UTF-16 without a byte-order mark?")
        let xlsx: [UInt8] = [0x50, 0x4B, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00]
        XCTAssertEqual(openError(xlsx), "in.csv: not CSV text: a ZIP archive (an .xlsx workbook?) — export the sheet as CSV")
        let utf16WithoutMark = Array("name\nvip\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        XCTAssertEqual(openError(utf16WithoutMark, CSVReader.Options(delimiter: .comma, encoding: .windows1252)),
                       "in.csv: not CSV text: a NUL byte at offset 1 — a binary file, or UTF-16 without a byte-order mark?")
    }

    func testEveryOtherByteIsStillText() throws {
        // Windows-1252 reads every byte but NUL; UTF-8's byte-order mark is skipped as before.
        let special: Set<UInt8> = [10, 13, 34, 44]   // LF, CR, quote, comma
        let all: [UInt8] = (1...255).map { UInt8($0) }.filter { !special.contains($0) }
        var bytes: [UInt8] = [0xEF, 0xBB, 0xBF]
        bytes += Array("name\n".utf8)
        bytes += all
        bytes.append(10)
        let rows = try CSVReader(data: Data(bytes), options: CSVReader.Options(encoding: .windows1252)).readAll()
        XCTAssertEqual(rows.count, 2)
        XCTAssertEqual(rows[1][0].unicodeScalars.count, 251)
    }
}
