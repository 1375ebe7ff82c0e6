// The reader's parsing rules: RFC 4180, line ends, blank lines, BOM, positions, buffer boundaries.

import Foundation
import XCTest
@testable import CSV

final class CSVReaderTests: XCTestCase {
    let comma = CSVReader.Options(delimiter: .comma)

    // MARK: RFC 4180

    func testQuotedFieldsHoldDelimitersQuotesAndLineBreaks() throws {
        XCTAssertEqual(try records("a,\"b \"\"x\"\" c\",\"d,e\"\n"), [["a", "b \"x\" c", "d,e"]])
        XCTAssertEqual(try records("\"one\ntwo\",\"three\r\nfour\",\"five\rsix\"\n"),
                       [["one\ntwo", "three\r\nfour", "five\rsix"]])
        XCTAssertEqual(try records("\"\"\"\"\n"), [["\""]])
    }

    func testEveryLineEndEndsARecord() throws {
        let expected = [["a", "b"], ["1", "2"], ["3", "4"]]
        XCTAssertEqual(try records("a,b\n1,2\n3,4\n"), expected)
        XCTAssertEqual(try records("a,b\r\n1,2\r\n3,4\r\n"), expected)
        XCTAssertEqual(try records("a,b\r1,2\r3,4\r"), expected)
        XCTAssertEqual(try records("a,b\r\n1,2\r3,4\n"), expected)
    }

    func testMissingFinalLineBreak() throws {
        XCTAssertEqual(try records("a,b\n1,2"), [["a", "b"], ["1", "2"]])
        XCTAssertEqual(try records("a,b\n1,"), [["a", "b"], ["1", ""]])
        XCTAssertEqual(try records("a,b\n1,\"2\""), [["a", "b"], ["1", "2"]])
    }

    func testEmptyFields() throws {
        XCTAssertEqual(try records(",,\n", comma), [["", "", ""]])
        XCTAssertEqual(try records("\"\"\n", comma), [[""]])
        XCTAssertEqual(try records("a,\"\"\n", comma), [["a", ""]])
    }

    func testSpacesAreKept() throws {
        XCTAssertEqual(try records(" a , \"b\" ,c \n", comma), [[" a ", " \"b\" ", "c "]])
    }

    /// Not RFC 4180, but what real exports contain; the same as Python's csv module.
    func testStrayQuotesAreLiteralAsInPython() throws {
        XCTAssertEqual(try records("37.8\"N,x\n", comma), [["37.8\"N", "x"]])
        XCTAssertEqual(try records("\"ab\"c,d\n", comma), [["abc", "d"]])
        XCTAssertEqual(try records("\"a\"b\"c\",e\n", comma), [["ab\"c\"", "e"]])
    }

    // MARK: Blank lines, empty input

    func testBlankLinesAreSkippedAndCounted() throws {
        let reader = try CSVReader(string: "\n\na,b\n\n1,2\r\n\r\n\n", options: comma)
        let first = try XCTUnwrap(reader.next())
        XCTAssertEqual(Array(first), ["a", "b"])
        XCTAssertEqual(first.line, 3)
        XCTAssertEqual(first.number, 1)
        let second = try XCTUnwrap(reader.next())
        XCTAssertEqual(Array(second), ["1", "2"])
        XCTAssertEqual(second.line, 5)
        XCTAssertEqual(second.number, 2)
        XCTAssertNil(try reader.next())
        XCTAssertEqual(reader.blankLinesSkipped, 5)
        XCTAssertEqual(reader.recordCount, 2)
    }

    func testEmptyInputHasNoRecords() throws {
        for input: [UInt8] in [[], [0xEF, 0xBB, 0xBF], Array("\n\r\n\r".utf8)] {
            let reader = try CSVReader(data: Data(input))
            XCTAssertNil(try reader.next(), "\(input)")
            XCTAssertNil(try reader.next(), "stays at the end")
        }
    }

    func testHeaderOnly() throws {
        let reader = try CSVReader(string: "a,b,c\n", options: CSVReader.Options(fieldCount: .sameAsHeader))
        XCTAssertEqual(try reader.next().map(Array.init), ["a", "b", "c"])
        XCTAssertNil(try reader.next())
        XCTAssertEqual(try records("a;b;c"), [["a", "b", "c"]])
    }

    // MARK: Byte-order mark

    func testByteOrderMarkIsSkipped() throws {
        let reader = try CSVReader(data: Data([0xEF, 0xBB, 0xBF] + Array("name,city\nZoë,Köln\n".utf8)))
        XCTAssertTrue(reader.hadByteOrderMark)
        let header = try XCTUnwrap(reader.next())
        XCTAssertEqual(Array(header), ["name", "city"])
        XCTAssertEqual(header.byteOffset, 3)
        XCTAssertEqual(header.position(ofField: 0), CSVPosition(line: 1, column: 1))
        XCTAssertEqual(try reader.next().map(Array.init), ["Zoë", "Köln"])
        XCTAssertEqual(reader.encoding, .utf8)
    }

    func testByteOrderMarkIsSkippedWhateverTheEncoding() throws {
        let reader = try CSVReader(data: Data([0xEF, 0xBB, 0xBF] + Array("a,b\n".utf8)),
                                   options: CSVReader.Options(encoding: .windows1252))
        XCTAssertEqual(try reader.next().map(Array.init), ["a", "b"])
        XCTAssertEqual(reader.encoding, .windows1252)
    }

    /// Issue 24: two UTF-8 exports joined with `cat` leave the second's mark at the start of a line; it was kept in
    /// the first field (and so in a key). Marks at the start of a record are dropped, and columns and offsets then
    /// count from after them, as after the mark at the start of the file.
    func testAByteOrderMarkAtTheStartOfALineIsDropped() throws {
        let reader = try CSVReader(string: "\u{FEFF}name,city\nA,1\n\u{FEFF}B,2\r\n\u{FEFF}\u{FEFF}\"C\",3\n")
        var rows: [[String]] = []
        var places: [[CSVPosition]] = []
        var offsets: [Int64] = []
        while let record = try reader.next() {
            rows.append(Array(record))
            places.append(record.indices.map { record.position(ofField: $0) })
            offsets.append(record.byteOffset)
        }
        XCTAssertEqual(rows, [["name", "city"], ["A", "1"], ["B", "2"], ["C", "3"]])
        XCTAssertEqual(places[2], [CSVPosition(line: 3, column: 1), CSVPosition(line: 3, column: 3)])
        XCTAssertEqual(places[3], [CSVPosition(line: 4, column: 1), CSVPosition(line: 4, column: 5)])
        XCTAssertEqual(offsets, [3, 13, 20, 31])
    }

    func testAByteOrderMarkElsewhereIsKept() throws {
        // Inside a field, at the start of a later field, and on a line a quoted field began on an earlier line.
        XCTAssertEqual(try records("a,b\nx\u{FEFF},\u{FEFF}y\n\"two\n\u{FEFF}lines\",z\n"),
                       [["a", "b"], ["x\u{FEFF}", "\u{FEFF}y"], ["two\n\u{FEFF}lines", "z"]])
        // Quoted, it is the field's own (CSVWriter quotes a value that begins with one).
        XCTAssertEqual(try records("a\n\"\u{FEFF}b\"\n"), [["a"], ["\u{FEFF}b"]])
    }

    func testALineOfOnlyAByteOrderMarkIsBlank() throws {
        // `cat` of a file and an empty export that has its mark.
        let reader = try CSVReader(string: "a\n\u{FEFF}\nb\n\u{FEFF}")
        XCTAssertEqual(try reader.readAll(), [["a"], ["b"]])
        XCTAssertEqual(reader.blankLinesSkipped, 1)
    }

    func testAByteOrderMarkAtTheStartOfALineIsDroppedAfterTranscoding() throws {
        // UTF-16: the mark of the second file is U+FEFF in the text that iconv gives.
        let utf16 = Array("\u{FEFF}a,b\n1,2\n\u{FEFF}3,4\n".utf16).flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        XCTAssertEqual(try records(utf16), [["a", "b"], ["1", "2"], ["3", "4"]])
        // In a code page EF BB BF are three letters (Windows-1251 "п»ї"): only the start of the file is a mark.
        let cp1251 = Array("a,b\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("x,y\n".utf8)
        XCTAssertEqual(try records(cp1251, CSVReader.Options(encoding: CSVEncoding(label: "windows-1251")!)), [["a", "b"], ["п»їx", "y"]])
    }

    // MARK: Positions

    func testRecordsCarryLinesNumbersOffsetsAndColumns() throws {
        let text = "id,note,amount\n1,\"two\nlines\",3\n2,x,\"4\"\n"
        let reader = try CSVReader(string: text)
        var seen: [(line: Int, number: Int, offset: Int64)] = []
        var positions: [[CSVPosition]] = []
        while let record = try reader.next() {
            seen.append((record.line, record.number, record.byteOffset))
            positions.append(record.indices.map { record.position(ofField: $0) })
        }
        XCTAssertEqual(seen.map(\.line), [1, 2, 4])
        XCTAssertEqual(seen.map(\.number), [1, 2, 3])
        XCTAssertEqual(seen.map(\.offset), [0, 15, 31])
        XCTAssertEqual(positions[1], [CSVPosition(line: 2, column: 1), CSVPosition(line: 2, column: 3),
                                      CSVPosition(line: 3, column: 8)])
        XCTAssertEqual(positions[2], [CSVPosition(line: 4, column: 1), CSVPosition(line: 4, column: 3),
                                      CSVPosition(line: 4, column: 5)])
        XCTAssertEqual(positions[2][2].description, "4:5")
    }

    func testColumnsCountCharactersNotBytes() throws {
        let reader = try CSVReader(string: "é,😀,x\n")
        let record = try XCTUnwrap(reader.next())
        XCTAssertEqual(record.indices.map { record.position(ofField: $0).column }, [1, 3, 5])

        let latin = try CSVReader(data: Data([0xE9, 0x2C, 0x96, 0x2C, 0x78]), options: CSVReader.Options(encoding: .windows1252))
        let row = try XCTUnwrap(latin.next())
        XCTAssertEqual(Array(row), ["é", "–", "x"])
        XCTAssertEqual(row.indices.map { row.position(ofField: $0).column }, [1, 3, 5])
    }

    func testRecordViewGivesBytesQuotingAndRawText() throws {
        let reader = try CSVReader(string: "plain,\"quoted\",\"esc\"\"aped\",\n")
        let record = try XCTUnwrap(reader.next())
        XCTAssertEqual(record.count, 4)
        let bytes = record.indices.map { i in record.withBytes(ofField: i) { Array($0) } }
        XCTAssertEqual(bytes, [Array("plain".utf8), Array("quoted".utf8), Array("esc\"aped".utf8), []])
        XCTAssertEqual(record.indices.map { record.isQuoted(field: $0) }, [false, true, true, false])
        XCTAssertEqual(record.rawText, "plain,\"quoted\",\"esc\"\"aped\",")
        XCTAssertEqual(record[2], "esc\"aped")
        XCTAssertEqual(record.map { $0.count }, [5, 6, 8, 0])
    }

    func testNestedFieldAccessKeepsBothFieldsIntact() throws {
        let reader = try CSVReader(string: "\"a\"\"1\",\"b\"\"22\",\"c\"\"333\"\n")
        let record = try XCTUnwrap(reader.next())
        let joined = record.withBytes(ofField: 0) { first in
            record.withBytes(ofField: 2) { third in
                let second = record[1]
                return String(decoding: first, as: UTF8.self) + "|" + second + "|" + String(decoding: third, as: UTF8.self)
            }
        }
        XCTAssertEqual(joined, "a\"1|b\"22|c\"333")
    }

    // MARK: Buffer boundaries

    /// Inputs whose special bytes land on every buffer boundary for some buffer size.
    static let trickyInputs: [String] = [
        "a,b\r\n1,2\r\n\r\n3,4",
        "\"x\"\"y\",\"\"\"\",\"\"\r\n\"multi\r\nline\",z\r",
        "h1;h2\n\"a;b\";c\n\n\nd;\"e\n\"\"f\"\"\"\n",
        "\u{FEFF}id\tnote\n1\t\"tab\there\"\n2\tplain\n",
        "a,b\r\r\r\n1,\"2\"x\r3,4\n",
        "é,ü,😀\n\"Zoë\",Köln,\"日本\"\r\n",
        "only\n",
        "\"\"\n",
        ",\n,,\n",
        "\u{FEFF}a,b\n\u{FEFF}1,2\r\n\u{FEFF}\r\n\u{FEFF}\u{FEFF}\"3\",4\n\u{FEFF}5,\"\n\u{FEFF}6\"",
    ]

    func testTinyBuffersReadTheSameRecordsAsTheDefault() throws {
        for input in Self.trickyInputs {
            let data = Data(input.utf8)
            let expected = try CSVReader(data: data).readAll()
            let reference = try CSVReader(data: data)
            _ = try reference.readAll()
            for size in 4...24 {
                let options = CSVReader.Options(delimiter: .byte(reference.delimiter), encoding: .utf8, bufferSize: size)
                let reader = try CSVReader(data: data, options: options)
                var lines: [Int] = []
                var rows: [[String]] = []
                while let record = try reader.next() {
                    rows.append(Array(record))
                    lines.append(record.line)
                }
                XCTAssertEqual(rows, expected, "buffer \(size): \(input.debugDescription)")
                XCTAssertEqual(reader.blankLinesSkipped, reference.blankLinesSkipped, "buffer \(size): \(input.debugDescription)")
            }
        }
    }

    func testRecordsLongerThanTheBufferGrowIt() throws {
        let long = String(repeating: "x", count: 100_000)
        let text = "a,\"\(long)\n\(long)\",c\nd,e,f\n"
        let rows = try records(text, CSVReader.Options(bufferSize: 64))
        XCTAssertEqual(rows, [["a", long + "\n" + long, "c"], ["d", "e", "f"]])
    }

    // MARK: Field counts

    func testFieldCountSameAsHeaderReportsAndGoesOn() throws {
        let reader = try CSVReader(string: "a,b,c\n1,2,3\n4,5\n6,7,8\n", options: CSVReader.Options(fieldCount: .sameAsHeader))
        XCTAssertEqual(try reader.next()?.count, 3)
        XCTAssertEqual(try reader.next()?.count, 3)
        let error = csvError { _ = try reader.next() }
        XCTAssertEqual(error?.kind, .fieldCountMismatch(found: 2, expected: 3, expectedIsHeader: true))
        XCTAssertEqual(error?.line, 3)
        XCTAssertEqual(try reader.next().map(Array.init), ["6", "7", "8"], "a field-count error is not final")
        XCTAssertEqual(reader.recordCount, 4)
    }

    func testFieldCountExactly() throws {
        let reader = try CSVReader(string: "1,2\n3\n", options: CSVReader.Options(fieldCount: .exactly(2)))
        XCTAssertEqual(try reader.next()?.count, 2)
        XCTAssertEqual(csvError { _ = try reader.next() }?.kind, .fieldCountMismatch(found: 1, expected: 2, expectedIsHeader: false))
    }

    // MARK: Inputs

    func testReadsFromAPathAndFromAPipe() throws {
        let directory = try temporaryDirectory(for: self)
        let path = directory.appendingPathComponent("in.csv").path
        let text = "a;b\n1;\"2\n3\"\n"
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(try CSVReader(path: path).readAll(), [["a", "b"], ["1", "2\n3"]])
        XCTAssertEqual(try CSVReader(path: path).displayName, path)

        try withPipe(Data(text.utf8)) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-")
            XCTAssertEqual(try reader.readAll(), [["a", "b"], ["1", "2\n3"]])
            XCTAssertEqual(reader.delimiter, UInt8(ascii: ";"))
        }
    }

    func testDashReadsStandardInput() throws {
        let saved = dup(STDIN_FILENO)
        defer {
            dup2(saved, STDIN_FILENO)
            close(saved)
        }
        try withPipe(Data("a\tb\n1\t2\n".utf8)) { fd in
            XCTAssertEqual(dup2(fd, STDIN_FILENO), STDIN_FILENO)
            let reader = try CSVReader(path: "-")
            XCTAssertEqual(reader.displayName, "-")
            XCTAssertEqual(try reader.readAll(), [["a", "b"], ["1", "2"]])
        }
    }

    func testALongStreamThroughAPipe() throws {
        var text = "id,name,amount\n"
        for i in 0..<20_000 { text += "\(i),\"Name \(i), Jr.\",\(i).50\n" }
        try withPipe(Data(text.utf8)) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-", options: CSVReader.Options(bufferSize: 4096))
            var count = 0
            while let record = try reader.next() {
                if count > 0 { XCTAssertEqual(record[1], "Name \(count - 1), Jr.") }
                count += 1
            }
            XCTAssertEqual(count, 20_001)
        }
    }

    func testFinalErrorsAreThrownAgain() throws {
        let reader = try CSVReader(string: "a\n\"open\n", displayName: "x.csv")
        XCTAssertEqual(try reader.next()?.count, 1)
        let first = csvError { _ = try reader.next() }
        let again = csvError { _ = try reader.next() }
        XCTAssertEqual(first, again)
        XCTAssertEqual(first?.kind, .unterminatedQuote)
    }
}
