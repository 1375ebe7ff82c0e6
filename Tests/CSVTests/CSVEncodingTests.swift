// Encodings: explicit and guessed, Windows-1252 and Latin-1 tables, UTF-8 validation.

import Foundation
import XCTest
@testable import CSV

final class CSVEncodingTests: XCTestCase {
    func testLabels() {
        XCTAssertEqual(CSVEncoding(label: "UTF-8"), .utf8)
        XCTAssertEqual(CSVEncoding(label: "utf8"), .utf8)
        XCTAssertEqual(CSVEncoding(label: "cp1252"), .windows1252)
        XCTAssertEqual(CSVEncoding(label: "Windows-1252"), .windows1252)
        XCTAssertEqual(CSVEncoding(label: "ISO-8859-1"), .latin1)
        XCTAssertEqual(CSVEncoding(label: "latin1"), .latin1)
        XCTAssertEqual(CSVEncoding(label: "auto"), .auto)
        XCTAssertNil(CSVEncoding(label: "ebcdic"))
        XCTAssertEqual([CSVEncoding.auto, .utf8, .windows1252, .latin1].map(\.description), ["auto", "utf-8", "windows-1252", "iso-8859-1"])
    }

    func testWindows1252HighBytesIncludingTheUndefinedOnes() throws {
        let bytes = Array(0x80...0x9F).map(UInt8.init)
        let reader = try CSVReader(data: Data(bytes), options: CSVReader.Options(delimiter: .comma, encoding: .windows1252))
        let value = try XCTUnwrap(reader.next())[0]
        let expected = "€\u{81}‚ƒ„…†‡ˆ‰Š‹Œ\u{8D}Ž\u{8F}\u{90}‘’“”•–—˜™š›œ\u{9D}žŸ"
        XCTAssertEqual(value, expected)
        XCTAssertEqual(Array(value.unicodeScalars).count, 32)
    }

    func testWindows1252AndLatin1AboveA0AreTheSame() throws {
        let bytes = Array(0xA0...0xFF).map(UInt8.init)
        let expected = String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
        for encoding in [CSVEncoding.windows1252, .latin1] {
            let reader = try CSVReader(data: Data(bytes), options: CSVReader.Options(delimiter: .comma, encoding: encoding))
            XCTAssertEqual(try reader.next()?[0], expected, "\(encoding)")
        }
    }

    func testLatin1MapsEveryByteToTheSameCodePoint() throws {
        let reader = try CSVReader(data: Data([0x96, 0x80, 0x41]), options: CSVReader.Options(encoding: .latin1))
        XCTAssertEqual(try reader.next()?[0], "\u{96}\u{80}A")
    }

    func testAutoPicksUTF8ForValidInput() throws {
        let reader = try CSVReader(string: "name\nZoë\n")
        XCTAssertEqual(reader.encoding, .utf8)
        XCTAssertEqual(try reader.readAll(), [["name"], ["Zoë"]])
    }

    func testAutoNeverReadsAUTF8FileWithOneBadByteAsACodePage() throws {
        // Valid UTF-8 up front, one byte that is not far later: an error at its place, never Windows-1252
        // (which stored `Müller` as `MÃ¼ller`).
        var bytes = Array("name,city\n".utf8)
        for _ in 0..<5000 { bytes += Array("Zoë,Köln\n".utf8) }
        bytes += [0x46, 0x69, 0x72, 0x73, 0x74, 0x96, 0x43, 0x69, 0x74, 0x69, 0x7A, 0x65, 0x6E, 0x73, 0x2C, 0x78, 0x0A]
        let reader = try CSVReader(data: Data(bytes), options: CSVReader.Options(bufferSize: 1024))
        XCTAssertEqual(reader.encoding, .utf8)
        let error = csvError { _ = try reader.readAll() }
        XCTAssertEqual(error?.description, "<data>:5002:6: bytes 0x96 at offset 55015 are not UTF-8, though the rest of the file is — a value cut mid-character? (if the whole file is in another encoding, give it with --encoding)")
    }

    func testAutoOnAFileUsesThePrescan() throws {
        let directory = try temporaryDirectory(for: self)
        let path = directory.appendingPathComponent("mixed.csv").path
        var bytes = Array(repeating: UInt8(ascii: "a"), count: 300_000) + [0x0A]
        bytes += [0x96, 0x0A]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reader = try CSVReader(path: path)
        XCTAssertEqual(reader.encoding, .windows1252)
        XCTAssertEqual(try reader.readAll().last, ["–"])
    }

    func testAutoOnAStreamJudgesTheFirstBuffer() throws {
        // (`a–B`: CP850 reads the dash as `û`, and `aûB` is no word.)
        try withPipe(Data([0x61, 0x96, 0x42, 0x0A] + Array("b\n".utf8))) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-")
            XCTAssertEqual(reader.encoding, .windows1252)
            XCTAssertEqual(try reader.readAll(), [["a–B"], ["b"]])
        }
        try withPipe(Data("a,b\nZoë,x\n".utf8)) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-")
            XCTAssertEqual(reader.encoding, .utf8)
            XCTAssertEqual(try reader.readAll(), [["a", "b"], ["Zoë", "x"]])
        }
    }

    func testExplicitUTF8DeliversTheRecordsBeforeTheBadByte() throws {
        let bytes = Array("a,b\n1,2\n3,".utf8) + [0xE9] + Array("\n4,5\n".utf8)
        let reader = try CSVReader(data: Data(bytes), displayName: "x.csv", options: CSVReader.Options(encoding: .utf8, bufferSize: 4))
        XCTAssertEqual(try reader.next().map(Array.init), ["a", "b"])
        XCTAssertEqual(try reader.next().map(Array.init), ["1", "2"])
        let error = csvError { _ = try reader.next() }
        XCTAssertEqual(error?.kind, .invalidUTF8(bytes: [0xE9], offset: 10, guessedFromPrefix: nil))
        XCTAssertEqual(error?.line, 3)
    }

    func testUTF8ValidatorFollowsTheWHATWGRules() {
        func failure(_ bytes: [UInt8], chunk: Int = .max) -> UTF8Validator.Failure? {
            var validator = UTF8Validator()
            var offset = 0
            while offset < bytes.count {
                let n = min(chunk, bytes.count - offset)
                let result = bytes.withUnsafeBufferPointer { validator.feed($0.baseAddress! + offset, count: n, offset: Int64(offset)) }
                if let result { return result }
                offset += n
            }
            return validator.finish()
        }
        let valid: [[UInt8]] = [Array("plain ASCII, longer than thirty-two bytes in all".utf8), Array("Zoë 😀 日本 \u{10FFFF}".utf8), []]
        for bytes in valid {
            XCTAssertNil(failure(bytes))
            XCTAssertNil(failure(bytes, chunk: 1), "split across chunks")
        }
        XCTAssertEqual(failure([0x41, 0x96]), .init(bytes: [0x96], offset: 1))
        XCTAssertEqual(failure([0xC0, 0x80]), .init(bytes: [0xC0], offset: 0), "overlong")
        XCTAssertEqual(failure([0xE0, 0x80, 0x80]), .init(bytes: [0xE0], offset: 0), "overlong")
        XCTAssertEqual(failure([0xED, 0xA0, 0x80]), .init(bytes: [0xED], offset: 0), "surrogate")
        XCTAssertEqual(failure([0xF4, 0x90, 0x80, 0x80]), .init(bytes: [0xF4], offset: 0), "above U+10FFFF")
        XCTAssertEqual(failure([0x41, 0xE2, 0x82, 0x41]), .init(bytes: [0xE2, 0x82], offset: 1), "truncated")
        XCTAssertEqual(failure([0x41, 0xE2, 0x82, 0x41], chunk: 2), .init(bytes: [0xE2, 0x82], offset: 1), "truncated across chunks")
        XCTAssertEqual(failure([0x41, 0xF0, 0x9F, 0x98]), .init(bytes: [0xF0, 0x9F, 0x98], offset: 1), "cut at the end")
        XCTAssertEqual(failure([0xFF]), .init(bytes: [0xFF], offset: 0))
    }
}
