// The reader and writer against Python's csv module, on seeded random nasty inputs: the same
// records, the same start lines, and the same verdict on a quoted field left open at the end.

import Foundation
import XCTest
import TestSupport
@testable import CSV

final class CSVPythonComparisonTests: XCTestCase {
    private static let python = "/usr/bin/env"

    /// Runs `script` with `python3`, passing `arguments`; returns standard output.
    private func runPython(_ script: String, _ arguments: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = ["python3", "-c", script] + arguments
        let output = Pipe()
        process.standardOutput = output
        let errors = Pipe()
        process.standardError = errors
        do {
            try process.run()
        } catch {
            throw XCTSkip("python3 could not be started (\(error)); skipping the comparison with Python's csv module")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        if process.terminationStatus == 127 {
            throw XCTSkip("python3 is not installed; skipping the comparison with Python's csv module")
        }
        guard process.terminationStatus == 0 else {
            XCTFail("python3 failed: \(errorText)")
            return Data()
        }
        return data
    }

    /// For each file: the non-blank rows, the physical line each starts on, and whether the file
    /// ends inside a quoted field (found by appending a line: it joins the last field if so).
    private static let parseScript = """
    import csv, io, json, sys
    out = []
    for path in sys.argv[1:]:
        text = open(path, encoding='utf-8', newline='').read()
        reader = csv.reader(io.StringIO(text, newline=''))
        rows, lines, previous = [], [], 0
        for row in reader:
            if row:
                rows.append(row)
                lines.append(previous + 1)
            previous = reader.line_num
        probe = list(csv.reader(io.StringIO(text + '\\nZZSENTINEL', newline='')))
        out.append({'rows': rows, 'lines': lines, 'open': probe[-1] != ['ZZSENTINEL']})
    json.dump(out, sys.stdout)
    """

    private struct PythonResult: Decodable {
        var rows: [[String]]
        var lines: [Int]
        var open: Bool
    }

    private static let tokens = ["a", "b", "xyz", " ", ",", ",", "\"", "\"", "\"\"", "\n", "\r", "\r\n", "é", "😀", "\u{A0}", ";", "\t"]

    private func nastyInputs(count: Int, seed: UInt64) -> [String] {
        var generator = SeededGenerator(seed: seed)
        return (0..<count).map { _ in
            let length = Int.random(in: 0...30, using: &generator)
            return (0..<length).map { _ in Self.tokens.randomElement(using: &generator)! }.joined()
        }
    }

    func testReaderAgreesWithPythonOnNastyInputs() throws {
        let directory = try temporaryDirectory(for: self)
        let inputs = nastyInputs(count: 600, seed: 20_240_301)
        var paths: [String] = []
        for (index, input) in inputs.enumerated() {
            let path = directory.appendingPathComponent("\(index).csv").path
            try Data(input.utf8).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let results = try JSONDecoder().decode([PythonResult].self, from: runPython(Self.parseScript, paths))
        XCTAssertEqual(results.count, inputs.count)
        var open = 0
        for (index, python) in results.enumerated() {
            let name = "input \(index): \(inputs[index].debugDescription)"
            for bufferSize in [256 << 10, 5] {
                let reader = try CSVReader(path: paths[index], options: CSVReader.Options(delimiter: .comma, encoding: .utf8, bufferSize: bufferSize))
                var rows: [[String]] = []
                var lines: [Int] = []
                do {
                    while let record = try reader.next() {
                        rows.append(Array(record))
                        lines.append(record.line)
                    }
                    XCTAssertFalse(python.open, "\(name): Python ends inside a quoted field, we did not")
                    XCTAssertEqual(rows, python.rows, name)
                    XCTAssertEqual(lines, python.lines, name)
                } catch let error as CSVError {
                    XCTAssertEqual(error.kind, .unterminatedQuote, name)
                    XCTAssertTrue(python.open, "\(name): we found an open quoted field, Python did not")
                    XCTAssertEqual(rows, Array(python.rows.dropLast()), "\(name): the records before it")
                    if bufferSize == 5 { open += 1 }
                }
            }
        }
        XCTAssertGreaterThan(open, 50, "the generator makes open quotes too")
        XCTAssertLessThan(open, 500, "and plenty of closed ones")
    }

    func testPythonReadsWhatTheWriterWrites() throws {
        var generator = SeededGenerator(seed: 7)
        let records = (0..<300).map { _ in
            (0..<Int.random(in: 1...5, using: &generator)).map { _ in
                (0..<Int.random(in: 0...6, using: &generator)).map { _ in Self.tokens.randomElement(using: &generator)! }.joined()
            }
        }
        let directory = try temporaryDirectory(for: self)
        let path = directory.appendingPathComponent("written.csv").path
        let writer = try CSVWriter(path: path, options: CSVWriter.Options(lineEnding: .crlf))
        for record in records { try writer.writeRecord(record) }
        try writer.close()
        let results = try JSONDecoder().decode([PythonResult].self, from: runPython(Self.parseScript, [path]))
        XCTAssertEqual(results.first?.rows, records)
        XCTAssertEqual(results.first?.open, false)
    }

    func testWindows1252TableAgreesWithPython() throws {
        let script = """
        import json, sys
        out = []
        for b in range(0x80, 0x100):
            try: out.append(ord(bytes([b]).decode('cp1252')))
            except UnicodeDecodeError: out.append(-1)
        json.dump(out, sys.stdout)
        """
        let python = try JSONDecoder().decode([Int].self, from: runPython(script, []))
        let bytes = (0x80...0xFF).map(UInt8.init)
        let ours = FieldDecoder.string(bytes, count: bytes.count, encoding: .windows1252).unicodeScalars.map { Int($0.value) }
        XCTAssertEqual(ours.count, 128)
        for (index, value) in python.enumerated() {
            // Python leaves the five WHATWG C1 mappings undefined.
            XCTAssertEqual(ours[index], value == -1 ? 0x80 + index : value, "byte 0x\(String(0x80 + index, radix: 16))")
        }
        XCTAssertEqual(python.filter { $0 == -1 }.count, 5)
    }
}
