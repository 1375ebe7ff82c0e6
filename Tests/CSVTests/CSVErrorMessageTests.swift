// Every error the reader and writer can raise, with its whole rendered text: one test per shape.

import Foundation
import FileOutput
import XCTest
@testable import CSV

final class CSVErrorMessageTests: XCTestCase {
    private func readError(_ bytes: [UInt8], name: String = "x.csv", _ options: CSVReader.Options = CSVReader.Options()) -> CSVError? {
        csvError { _ = try CSVReader(data: Data(bytes), displayName: name, options: options).readAll() }
    }

    func testInvalidUTF8NamesLineOffsetAndRemedy() {
        let bytes = Array("id,name\n1,Caf".utf8) + [0xE9] + Array("\n".utf8)
        let error = readError(bytes, name: "customers.csv", CSVReader.Options(encoding: .utf8))
        XCTAssertEqual(error?.description, "customers.csv:2: bytes 0xE9 at offset 13 are not UTF-8 — try --encoding windows-1252")
        XCTAssertEqual(error?.line, 2)
        XCTAssertNil(error?.column)
    }

    func testInvalidUTF8ShowsEveryByteOfATruncatedSequence() {
        let bytes = Array("a\n\"x\ny".utf8) + [0xE2, 0x82] + Array("\",z\n".utf8)
        XCTAssertEqual(readError(bytes, CSVReader.Options(encoding: .utf8))?.description,
                       "x.csv:3: bytes 0xE2 0x82 at offset 6 are not UTF-8 — try --encoding windows-1252",
                       "the line of the byte, not of the record")
    }

    func testInvalidUTF8AfterAByteOrderMarkInAutoMode() {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF, 0x61, 0x0A, 0x96, 0x0A]
        XCTAssertEqual(readError(bytes)?.description,
                       "x.csv:2: bytes 0x96 at offset 5 are not UTF-8 — try --encoding windows-1252")
    }

    func testInvalidUTF8LaterInAStreamWhoseStartLookedLikeUTF8() throws {
        // A stream is judged by its first MiB.
        let bytes = Array(String(repeating: "ok,fine\n", count: 131_073).utf8) + [0x96] + Array("\n".utf8)
        try withPipe(Data(bytes)) { fd in
            let reader = try CSVReader(fileDescriptor: fd, displayName: "-", options: CSVReader.Options(bufferSize: 64))
            XCTAssertEqual(reader.encoding, .utf8)
            let error = csvError { _ = try reader.readAll() }
            XCTAssertEqual(error?.description,
                           "-:131074: bytes 0x96 at offset 1048584 are not UTF-8, though the first 1048576 bytes were — try --encoding windows-1252")
        }
    }

    func testUnterminatedQuoteNamesWhereTheFieldBegan() {
        let text = "id,note,amount\n1,ok,2\n3,x,\"never\nclosed, at all\n"
        XCTAssertEqual(readError(Array(text.utf8), name: "orders.csv")?.description,
                       "orders.csv:3:5: quoted field begins here but is never closed — is a quote unbalanced?")
        XCTAssertEqual(readError(Array("a,\"b\nc\",\"d".utf8))?.description,
                       "x.csv:2:4: quoted field begins here but is never closed — is a quote unbalanced?")
    }

    func testRecordTooLong() {
        let text = "a,b\n0123456789,0123456789\n"
        let error = readError(Array(text.utf8), CSVReader.Options(maxRecordBytes: 16))
        XCTAssertEqual(error?.description, "x.csv:2: record longer than 16 bytes — is the file CSV, or a quote unbalanced?")
        XCTAssertEqual(readError(Array(text.utf8), CSVReader.Options(maxRecordBytes: 16, bufferSize: 4))?.description,
                       "x.csv:2: record longer than 16 bytes — is the file CSV, or a quote unbalanced?")
        XCTAssertEqual(CSVError.formatSize(16 << 20), "16 MiB")
        XCTAssertEqual(CSVError.formatSize(64 << 10), "64 KiB")
        XCTAssertEqual(CSVError.formatSize(1), "1 byte")
    }

    /// A 1 GB "line" (a sparse file of zero bytes, no line break) must fail after reading about
    /// 16 MiB, with the buffer bounded, in auto mode (pre-scan) as with an explicit encoding. How far it read is
    /// the descriptor's offset afterwards (the reader reads with read(2)): a count, not a time.
    func testAGigabyteLineFailsFastWithBoundedMemory() throws {
        let directory = try temporaryDirectory(for: self)
        let path = directory.appendingPathComponent("big.csv").path
        // 17 MiB of text, then a hole up to 1 GiB (NUL bytes at the start would make it "not CSV text").
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        XCTAssertGreaterThanOrEqual(fd, 0)
        let text = [UInt8](repeating: UInt8(ascii: "x"), count: 17 << 20)
        XCTAssertEqual(text.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }, text.count)
        XCTAssertEqual(ftruncate(fd, 1 << 30), 0)
        close(fd)
        for encoding in [CSVEncoding.auto, .utf8, .windows1252] {
            let descriptor = open(path, O_RDONLY)
            XCTAssertGreaterThanOrEqual(descriptor, 0)
            defer { close(descriptor) }
            let reader = try CSVReader(fileDescriptor: descriptor, displayName: "big.csv",
                                       options: CSVReader.Options(delimiter: .comma, encoding: encoding))
            let error = csvError { _ = try reader.next() }
            XCTAssertEqual(error?.description, "big.csv:1: record longer than 16 MiB — is the file CSV, or a quote unbalanced?")
            XCTAssertLessThanOrEqual(reader.capacity, (16 << 20) + (256 << 10), "the buffer stays bounded")
            XCTAssertLessThanOrEqual(lseek(descriptor, 0, SEEK_CUR), (17 << 20) + (1 << 20), "\(encoding): stops after about 16 MiB of 1 GiB")
        }
    }

    func testFieldCountMismatch() {
        let text = "a,b,c\n1,2,3\n4,5,6,7\n"
        XCTAssertEqual(readError(Array(text.utf8), name: "orders.csv", CSVReader.Options(fieldCount: .sameAsHeader))?.description,
                       "orders.csv:3: 4 fields, but the header has 3")
        XCTAssertEqual(readError(Array("1,2\n3\n".utf8), CSVReader.Options(fieldCount: .exactly(2)))?.description,
                       "x.csv:2: 1 field, but 2 were expected")
        XCTAssertEqual(readError(Array("1,2\n".utf8), CSVReader.Options(fieldCount: .exactly(1)))?.description,
                       "x.csv:1: 2 fields, but 1 was expected")
    }

    func testOpenAndReadFailures() throws {
        let missing = csvError { _ = try CSVReader(path: "/nonexistent/orders.csv") }
        XCTAssertEqual(missing?.description, "/nonexistent/orders.csv: cannot open (No such file or directory)")
        XCTAssertEqual(missing?.line, 0)

        let directory = try temporaryDirectory(for: self)
        let error = csvError { _ = try CSVReader(path: directory.path, displayName: "exports") }
        XCTAssertEqual(error?.description, "exports:1: cannot read (Is a directory)")
    }

    func testWriterFailures() throws {
        // Opening goes through the one output module, whose errors are its own.
        XCTAssertThrowsError(try CSVWriter(path: "/nonexistent/out.csv")) { error in
            XCTAssertEqual((error as? FileOutputError)?.description, "/nonexistent/out.csv: cannot create (No such file or directory)")
        }

        let writer = try CSVWriter(fileDescriptor: -1, displayName: "out.csv")
        try writer.writeRecord(["a"])
        XCTAssertEqual(csvError { try writer.flush() }?.description, "out.csv: cannot write (Bad file descriptor)")

        let full = try CSVWriter(path: "/dev/full", displayName: "report.csv")
        try full.writeRecord(["a"])
        XCTAssertEqual(csvError { try full.close() }?.description, "report.csv: cannot write (No space left on device)")
    }
}
