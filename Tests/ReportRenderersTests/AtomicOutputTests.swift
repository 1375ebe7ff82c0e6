// Atomic output: a report appears whole or not at all — on errors from the row source, on row
// count mismatches, on unwritable targets, and when the process is killed midway.

import Foundation
import XCTest
@testable import ReportRenderers
@testable import FileOutput

/// Gives `failAfter` rows, then throws.
struct FailingRows: ReportRowSource {
    struct Failure: Error, Equatable {}
    let rows: [[ReportCell]]
    let failAfter: Int
    var given = 0
    var rowCount: Int? { rows.count }

    mutating func nextRow() throws -> [ReportCell]? {
        guard given < failAfter else { throw Failure() }
        defer { given += 1 }
        return rows[given]
    }
}

final class AtomicOutputTests: XCTestCase {
    static let renderers: [(String, any ReportRenderer)] = [
        ("text", TextRenderer()), ("csv", CSVRenderer()), ("csv-excel", CSVRenderer(dialect: .excel)),
        ("json", JSONRenderer()), ("xlsx", XLSXRenderer()),
    ]

    func testAFailingRowSourceLeavesNothing() throws {
        for (name, renderer) in AtomicOutputTests.renderers {
            let folder = try TemporaryFolder()
            var rows = FailingRows(rows: ReportFixtures.unpaidOrderRows, failAfter: 2)
            XCTAssertThrowsError(try renderer.render(ReportFixtures.unpaidOrders, rows: &rows, to: .file(path: folder.file("r"))), name) { error in
                XCTAssertEqual(error as? FailingRows.Failure, FailingRows.Failure(), "the source's error passes through: \(name)")
            }
            XCTAssertEqual(try folder.contents(), [], "no file, no temporary file: \(name)")
        }
    }

    /// libxlsxwriter's temporary files (one per worksheet) are closed when a workbook is abandoned.
    func testAnAbandonedWorkbookClosesItsFiles() throws {
        func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        let folder = try TemporaryFolder()
        var rows = FailingRows(rows: ReportFixtures.unpaidOrderRows, failAfter: 1)
        let before = try openDescriptors()
        for _ in 0..<5 {
            XCTAssertThrowsError(try XLSXRenderer().render(ReportFixtures.unpaidOrders, rows: &rows, to: .file(path: folder.file("x.xlsx"))))
            rows.given = 0
        }
        XCTAssertEqual(try openDescriptors(), before)
        XCTAssertEqual(try folder.contents(), [])
    }

    func testAFailingRenderLeavesTheExistingFileUnchanged() throws {
        for (name, renderer) in AtomicOutputTests.renderers {
            let folder = try TemporaryFolder()
            let path = folder.file("report")
            try Data("yesterday's report\n".utf8).write(to: URL(fileURLWithPath: path))
            var rows = FailingRows(rows: ReportFixtures.unpaidOrderRows, failAfter: 1)
            XCTAssertThrowsError(try renderer.render(ReportFixtures.unpaidOrders, rows: &rows, to: .file(path: path)), name)
            XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "yesterday's report\n", name)
            XCTAssertEqual(try folder.contents(), ["report"], name)
        }
    }

    func testASuccessfulRenderReplacesTheFileAndKeepsItsPermissions() throws {
        let folder = try TemporaryFolder()
        let path = folder.file("report.csv")
        try Data("old\n".utf8).write(to: URL(fileURLWithPath: path))
        XCTAssertEqual(chmod(path, 0o640), 0)
        var rows = ArrayRowSource(ReportFixtures.unpaidOrderRows)
        try CSVRenderer().render(ReportFixtures.unpaidOrders, rows: &rows, to: .file(path: path))
        XCTAssertTrue(try String(contentsOfFile: path, encoding: .utf8).hasPrefix("Number,Customer"))
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o640)
        XCTAssertEqual(try folder.contents(), ["report.csv"])
    }

    func testRowCountsMustMatchTheAnnouncement() throws {
        struct Lying: ReportRowSource {
            var rows: ArrayRowSource
            let announced: Int
            var rowCount: Int? { announced }
            mutating func nextRow() throws -> [ReportCell]? { try rows.nextRow() }
        }
        for (name, renderer) in AtomicOutputTests.renderers {
            let folder = try TemporaryFolder()
            let path = folder.file("r")
            var fewer = Lying(rows: ArrayRowSource(ReportFixtures.unpaidOrderRows), announced: 4)
            XCTAssertThrowsError(try renderer.render(ReportFixtures.unpaidOrders, rows: &fewer, to: .file(path: path))) { error in
                XCTAssertEqual("\(error)", "\(path): the report announced 4 rows but its source gave 3", name)
            }
            var more = Lying(rows: ArrayRowSource(ReportFixtures.unpaidOrderRows), announced: 1)
            XCTAssertThrowsError(try renderer.render(ReportFixtures.unpaidOrders, rows: &more, to: .file(path: path))) { error in
                XCTAssertEqual("\(error)", "\(path): the report announced 1 row but its source gave more", name)
            }
            var short = ArrayRowSource([[.text("A-1")]])
            XCTAssertThrowsError(try renderer.render(ReportFixtures.unpaidOrders, rows: &short, to: .file(path: path))) { error in
                XCTAssertEqual("\(error)", "\(path): row 1 has 1 cell, but the report has 5 columns", name)
            }
            XCTAssertEqual(try folder.contents(), [], name)
        }
    }

    func testUnwritableTargetsGiveOneLineErrors() throws {
        let folder = try TemporaryFolder()
        try Data().write(to: URL(fileURLWithPath: folder.file("plain-file")))
        let cases = [
            (folder.file("no/such/dir/x.csv"), "cannot create (No such file or directory)"),
            (folder.file("plain-file/x.csv"), "cannot create (Not a directory)"),
        ]
        for (path, message) in cases {
            for (name, renderer) in AtomicOutputTests.renderers {
                var rows = ArrayRowSource(ReportFixtures.unpaidOrderRows)
                XCTAssertThrowsError(try renderer.render(ReportFixtures.unpaidOrders, rows: &rows, to: .file(path: path))) { error in
                    XCTAssertEqual("\(error)", "\(path): \(message)", name)
                }
            }
        }
        // A directory as the target: refused before anything is written.
        try FileManager.default.createDirectory(atPath: folder.file("dir"), withIntermediateDirectories: false)
        var rows = ArrayRowSource(ReportFixtures.unpaidOrderRows)
        XCTAssertThrowsError(try JSONRenderer().render(ReportFixtures.unpaidOrders, rows: &rows, to: .file(path: folder.file("dir")))) { error in
            XCTAssertEqual("\(error)", "\(folder.file("dir")): cannot create (Is a directory)")
        }
        XCTAssertEqual(try folder.contents(), ["dir", "plain-file"])
    }

    // MARK: Interrupted

    /// A render killed by SIGTERM or SIGINT halfway leaves neither the file nor its temporary file.
    func testAnInterruptedRenderLeavesNothing() throws {
        for (format, signal) in [("text", SIGTERM), ("xlsx", SIGINT), ("csv", SIGHUP)] {
            let folder = try TemporaryFolder()
            let (process, output) = try ChildProcess.start(["interrupted", format, folder.path])
            let ready = ChildProcess.readLine(startingWith: "READY", from: output)
            XCTAssertNotNil(ready, "the child started rendering (\(format))")
            let during = try folder.contents()
            XCTAssertEqual(during.count, 1, "one temporary file while rendering: \(during)")
            XCTAssertTrue(during.first?.hasSuffix(".tmp") ?? false, "\(during)")
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            XCTAssertEqual(process.terminationReason, .uncaughtSignal, format)
            XCTAssertEqual(process.terminationStatus, signal, format)
            XCTAssertEqual(try folder.contents(), [], "nothing left after \(format) was killed")
        }
    }

    func testSignalHandlersAreInstalled() throws {
        let folder = try TemporaryFolder()
        _ = try OutputFile(path: folder.file("x"))
        XCTAssertTrue(TemporaryFileCleanup.handlersInstalled)
        for signal in TemporaryFileCleanup.signals {
            var current = sigaction()
            XCTAssertEqual(sigaction(signal, nil, &current), 0)
            XCTAssertGreaterThan(unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self), 1, "handler for \(signal)")
        }
    }
}
