// SIGINT, SIGTERM and SIGHUP in the middle of an import and of a report written to a file (issue 6,
// "Crashes and signals"): the store is exactly as before, no temporary file is left beside the output,
// an existing output is untouched, the process ends by that signal (a shell shows 130, 143, 129) and says
// so in one line on stderr.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ReliabilitySignalTests: XCTestCase {
    static let signals: [(Int32, String)] = [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP")]
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21"]
    /// `make stress` sends every signal in every case; `make test` every signal to an import and one to each
    /// report format, and imports again after the first only (each of those is a whole import of 20,000 orders).
    static var everyCase: Bool { Trials.isStress }

    /// 20,000 orders with three rows each: long enough to be caught mid-way on any machine (no timing is assumed:
    /// the tests wait for evidence that the work is under way).
    nonisolated(unsafe) static var big: (dir: TemporaryDirectory, csv: String, store: String)?

    static func bigData() -> (dir: TemporaryDirectory, csv: String, store: String) {
        if let big { return big }
        let dir = TemporaryDirectory("bookkeeper-signals")
        let csv = dir.write("big.csv", ordersCSV(prefix: "B", count: 20_000))
        // A store with them imported, for the reports.
        let store = dir.file("big.sqlite")
        SampleStore.copy(to: store)
        let r = runCLI(["--store", store, "import", "Order", csv, "--quiet"])
        precondition(r.status == 0, "\(r)")
        big = (dir, csv, store)
        return big!
    }

    func testASignalDuringAnImportRollsItBackAndEndsTheProcessBySignal() throws {
        let data = Self.bigData()
        for (signal, name) in Self.signals {
            let dir = TemporaryDirectory()
            let store = dir.file("books.sqlite")
            SampleStore.copy(to: store)
            let before = try storeFingerprint(store)
            let child = try Child(["--store", store, "import", "Order", data.csv], in: dir.path)
            // Mid-way: it holds the write lock and has written pages of its transaction to the write-ahead log.
            let caught = waitUntil(child) { fileSize(store + "-wal") > 256 << 10 }
            child.signal(signal)
            let result = child.wait()
            XCTAssertTrue(caught, "\(name): the import ended before it was caught mid-way; make the file bigger")
            XCTAssertTrue(result.killedBySignal, "\(name): \(result)")
            XCTAssertEqual(result.status, signal, "ends by \(name), which a shell shows as \(128 + signal)")
            XCTAssertEqual(result.stderr, "bookkeeper: interrupted by \(name); nothing was committed by the unfinished step\n")
            XCTAssertEqual(result.stdout, "")
            XCTAssertEqual(try storeFingerprint(store), before, name)
            XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"])
            // Only the store's own files are left (the activity file names a process that no longer runs).
            XCTAssertEqual(Set(filesIn(dir.path)).subtracting(["books.sqlite-wal", "books.sqlite-shm", "books.sqlite-activity"]),
                           ["books.sqlite"], name)
            // And the next import of the same file, with the default --wait, runs as if nothing had happened.
            guard Self.everyCase || signal == Self.signals[0].0 else { continue }
            let again = runCLI(["--store", store, "import", "Order", data.csv, "--quiet"], in: dir.path)
            XCTAssertEqual(again.status, 0, "\(again)")
            XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM \"Order\" WHERE number LIKE 'B-%'"), ["20000"])
        }
    }

    func testASignalDuringAReportToAFileLeavesNoFileAndTheOldOneAsItWas() throws {
        let data = Self.bigData()
        let before = try storeFingerprint(data.store)
        for (k, format) in ["xlsx", "csv"].enumerated() {
            for (signal, name) in Self.everyCase ? Self.signals : [Self.signals[k + 1]] {
                let dir = TemporaryDirectory()
                let target = dir.write("details.\(format)", "yesterday's report\n")
                let child = try Child(["--store", data.store, "report", "order-details", "--param", "from=2000-01-01",
                                       "--format", format, "--output", target],
                                      in: dir.path, environment: Self.environment)
                // Mid-way: the temporary file beside the target exists and has bytes in it.
                let caught = waitUntil(child) {
                    filesIn(dir.path).contains { $0.hasSuffix(".tmp") && fileSize(dir.file($0)) > 0 }
                }
                child.signal(signal)
                let result = child.wait()
                XCTAssertTrue(caught, "\(format), \(name): the report ended before it was caught mid-way: \(result)")
                XCTAssertTrue(result.killedBySignal, "\(format), \(name): \(result)")
                XCTAssertEqual(result.status, signal)
                XCTAssertEqual(result.stderr, "bookkeeper: interrupted by \(name); nothing was committed by the unfinished step\n")
                XCTAssertEqual(filesIn(dir.path), ["details.\(format)"], "\(format), \(name): no temporary file is left")
                XCTAssertEqual(try String(contentsOfFile: target, encoding: .utf8), "yesterday's report\n")
            }
        }
        XCTAssertEqual(try storeFingerprint(data.store), before, "reports only read")
    }

    /// `nohup` runs a job with SIGHUP ignored: then it is not stopped by it.
    func testAnIgnoredSignalStaysIgnored() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("books.sqlite")
        SampleStore.copy(to: store)
        let csv = dir.write("o.csv", ordersCSV(prefix: "H", count: 3000))
        let child = try Child(["/usr/bin/nohup", bookkeeperBinary, "--store", store, "import", "Order", csv, "--quiet"],
                              in: dir.path, executable: "/usr/bin/env")
        let caught = waitUntil(child) { fileSize(store + "-wal") > 0 }
        child.signal(SIGHUP)
        let result = child.wait()
        if caught {
            XCTAssertFalse(result.killedBySignal, "\(result)")
        }
        XCTAssertEqual(result.status, 0, "\(result)")
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM \"Order\" WHERE number LIKE 'H-%'"), ["3000"])
    }
}
