// Helpers shared by the CSV tests: reading whole inputs, the shared datasets, a seeded random
// generator, temporary files.

import Foundation
import XCTest
@testable import CSV

/// The real exports and the csv-spectrum corpus, in `../shared/datasets` beside the repository.
enum Datasets {
    /// This file is REPO/Tests/CSVTests/CSVTestSupport.swift.
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/datasets").standardized

    /// The dataset folder `name`, or a skip when the shared datasets are absent.
    static func folder(_ name: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root.path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw XCTSkip("the shared datasets were not found (looked in \(root.path)); skipping the tests that read them")
        }
        let folder = root.appendingPathComponent(name)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path), "dataset \(name) is missing from \(root.path)")
        return folder
    }

    static func file(_ folder: String, _ name: String) throws -> String {
        try self.folder(folder).appendingPathComponent(name).path
    }
}

/// Every record of `text` (UTF-8) read with `options`.
func records(_ text: String, _ options: CSVReader.Options = CSVReader.Options()) throws -> [[String]] {
    try CSVReader(string: text, options: options).readAll()
}

func records(_ bytes: [UInt8], _ options: CSVReader.Options = CSVReader.Options()) throws -> [[String]] {
    try CSVReader(data: Data(bytes), options: options).readAll()
}

/// The error `body` throws, which must be a CSVError.
func csvError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> CSVError? {
    do {
        try body()
        XCTFail("expected a CSVError, nothing was thrown", file: file, line: line)
    } catch let error as CSVError {
        return error
    } catch {
        XCTFail("expected a CSVError, got \(error)", file: file, line: line)
    }
    return nil
}


/// A fresh temporary directory, removed when the test ends.
func temporaryDirectory(for test: XCTestCase) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("CSVTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
}

/// Runs `input` through a pipe, as standard input would arrive, and calls `body` with the read end.
/// A background thread writes and closes the write end; it stops early if the reader goes away.
func withPipe(_ input: Data, _ body: (Int32) throws -> Void) rethrows {
    var fds: [Int32] = [0, 0]
    precondition(pipe(&fds) == 0)
    signal(SIGPIPE, SIG_IGN)
    let writeEnd = fds[1]
    let writer = Thread {
        input.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(writeEnd, raw.baseAddress! + offset, min(raw.count - offset, 1 << 16))
                if n <= 0 { break }
                offset += n
            }
        }
        close(writeEnd)
    }
    writer.start()
    defer { close(fds[0]) }
    try body(fds[0])
}
