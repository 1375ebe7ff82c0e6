// Another user reading a store it may only read, in a folder it cannot write (issue 13, "Trust, part 1"):
// while another process imports, every read gives one committed state, or exits 75 in the one state SQLite
// cannot serve; a healthy store is never called damaged.
//
// What SQLite (3.40.1 here) does for a reader that cannot write the folder, by the state of the files beside
// the store — each state has a test below:
// - no -wal file (no connection has the store open): SQLite cannot create the -wal and -shm files, so it
//   cannot read with locks; bookkeeper reads the file as immutable, which is right unless a writer starts
//   and checkpoints under the read, and then exits 75 (`…ReadWithoutLocks…`);
// - -wal and -shm there, a writer holding the store: read with locks through the read-only -shm, one snapshot;
// - -wal and -shm there, no connection (left by a reader or a crash): SQLite builds the index in heap memory
//   and still takes its read lock, so an import committing meanwhile cannot checkpoint under it;
// - -wal without -shm: SQLite cannot open it (SQLITE_CANTOPEN) until the owner opens the store: 75.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ReliabilityReadOnlyReaderTests: XCTestCase {
    var dir: TemporaryDirectory!
    var store: String { dir.file("books.sqlite") }
    /// Every row of a big table with its order's number (the rows the torn reads lost, or got without it).
    static let listing = ["fetch", "OrderRow", "--columns", "order.number,service.name,quantity,price", "--format", "csv"]
    static let changedMessage = "cannot read one consistent state of the store now (another process wrote to it during "
        + "the read, and this user cannot create the -wal and -shm files beside it that would have kept the read to "
        + "one snapshot) — retry later"

    override func setUpWithError() throws {
        try OtherUser.skipUnlessAvailable()
        dir = TemporaryDirectory()
        XCTAssertEqual(chmod(dir.path, 0o755), 0)   // the other user may enter the folder, not write in it
        SampleStore.copy(to: store)
        dir.write("base.csv", ordersCSV(prefix: "BASE", count: 3000))
        let base = runCLI(["--store", store, "import", "Order", "base.csv", "--quiet"], in: dir.path)
        XCTAssertEqual(base.status, 0, "\(base)")
        XCTAssertEqual(chmod(store, 0o644), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"), "the import's close removed its log")
    }

    /// The listing as the owner sees it, read from a copy (an owner's read of the store itself would leave
    /// -wal and -shm files beside it, and change the state under test).
    func ownersListing() throws -> String {
        let copy = TemporaryDirectory()
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: store + suffix) {
            try FileManager.default.copyItem(atPath: store + suffix, toPath: copy.file("books.sqlite" + suffix))
        }
        let r = runCLI(["--store", copy.file("books.sqlite")] + Self.listing, in: copy.path)
        XCTAssertEqual(r.status, 0, "\(r)")
        return r.stdout
    }

    func importOrders(_ prefix: String, count: Int = 1500) throws -> Child {
        dir.write("\(prefix).csv", ordersCSV(prefix: prefix, count: count))
        return try Child(["--store", store, "import", "Order", "\(prefix).csv", "--quiet"], in: dir.path)
    }

    /// The other user's listing, started now, with its standard output a pipe the test reads when it wants:
    /// once the pipe is full the reader stops in the middle of its read transaction.
    final class StalledReader {
        let process = Process()
        let output = Pipe()
        let errorFile: String

        init(store: String, in directory: String) throws {
            errorFile = directory + "/stalled-reader-\(UUID().uuidString.prefix(8)).err"
            _ = FileManager.default.createFile(atPath: errorFile, contents: nil)
            XCTAssertEqual(chmod(errorFile, 0o666), 0)
            process.executableURL = URL(fileURLWithPath: OtherUser.setpriv)
            process.arguments = OtherUser.prefix + [OtherUser.binary, "--store", store] + ReliabilityReadOnlyReaderTests.listing
            process.currentDirectoryURL = URL(fileURLWithPath: directory)
            process.environment = childEnvironment()
            process.standardOutput = output
            process.standardError = FileHandle(forWritingAtPath: errorFile)
            process.standardInput = FileHandle.nullDevice
            try process.run()
        }

        /// The first bytes: the reader has its read transaction open and is streaming rows.
        func firstBytes() throws -> Data { try output.fileHandleForReading.read(upToCount: 4096) ?? Data() }

        /// Reads the rest and waits for the end.
        func finish(after first: Data) -> ProgramResult {
            let rest = output.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            let stderr = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(atPath: errorFile)
            return ProgramResult(status: process.terminationStatus, stdout: String(decoding: first + rest, as: UTF8.self), stderr: stderr)
        }
    }

    // MARK: Each state of the files beside the store

    /// No -wal file when the read starts (read without locks), then an import commits and checkpoints under it:
    /// SQLite cannot keep such a read to one state, so it exits 75 — before, this printed a torn listing with
    /// exit 0, or called the healthy store damaged.
    func testAReadWithoutLocksThatAnImportCommitsUnderExits75InsteadOfATornListing() throws {
        let before = try ownersListing()
        XCTAssertGreaterThan(before.utf8.count, 256 * 1024, "more than the pipe holds, so the reader stalls mid-read")
        let reader = try StalledReader(store: store, in: dir.path)
        let first = try reader.firstBytes()
        XCTAssertFalse(first.isEmpty)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"), "the reader reads without locks, creating nothing")
        let writer = try importOrders("NEW")
        let w = writer.wait()
        XCTAssertEqual(w.status, 0, "the import does not wait for a reader without locks: \(w.stderr)")
        let r = reader.finish(after: first)
        XCTAssertEqual(r.status, 75, "\(r.stderr)")
        XCTAssertEqual(r.stderr, "bookkeeper: \(store): \(Self.changedMessage)\n")
        XCTAssertNotEqual(try ownersListing(), before, "the import committed")
    }

    /// -wal and -shm beside the store and no connection (left by the owner's read-only connection): the other
    /// user reads through them, with SQLite's read lock, so an import that commits meanwhile cannot checkpoint
    /// under the read, which gives exactly the state before. Afterwards the import's frames are still only in the
    /// log, and a new read sees them (SQLite indexes the log in heap memory); without the -shm it cannot, and the
    /// read exits 75 telling why.
    func testAReadThroughALogItCannotWriteGivesOneStateWhileAnImportCommits() throws {
        _ = try queryStore(store, "SELECT 1")   // the owner's read-only connection leaves -wal and -shm
        XCTAssertTrue(FileManager.default.fileExists(atPath: store + "-shm"))
        let before = try ownersListing()
        let reader = try StalledReader(store: store, in: dir.path)
        let first = try reader.firstBytes()
        let writer = try importOrders("NEW")
        let w = writer.wait()
        XCTAssertEqual(w.status, 0, "\(w.stderr)")
        let r = reader.finish(after: first)
        XCTAssertEqual(r.status, 0, "\(r.stderr)")
        XCTAssertEqual(r.stderr, "")
        XCTAssertTrue(r.stdout == before, "the read gives the state before the import, whole (\(r.stdout.utf8.count) bytes, \(before.utf8.count) before)")

        let after = try ownersListing()
        XCTAssertNotEqual(after, before)
        XCTAssertGreaterThan(fileSize(store + "-wal"), 0, "the import's commit is still in the log: the reader kept it from the store")
        let later = OtherUser.run(["--store", store] + Self.listing, in: dir.path)
        XCTAssertEqual(later.status, 0, "\(later)")
        XCTAssertTrue(later.stdout == after, "a later read sees the commit, from the log")

        try FileManager.default.removeItem(atPath: store + "-shm")
        let noIndex = OtherUser.run(["--store", store, "--wait", "0.2"] + Self.listing, in: dir.path)
        XCTAssertEqual(noIndex.status, 75, "\(noIndex)")
        XCTAssertEqual(noIndex.stderr, "bookkeeper: \(store): cannot read one consistent state of the store now (its write-ahead "
                       + "log has no -shm index beside it, and this user cannot create one in its folder) — retry later\n")
        XCTAssertEqual(noIndex.stdout, "")
    }

    /// A writer holding the store (stopped in the middle of its import): the other user reads the last committed
    /// state through the read-only -shm, with locks.
    func testAReadWhileAnotherProcessHoldsTheStoreGivesTheCommittedState() throws {
        let before = try ownersListing()
        let writer = try importOrders("HELD", count: 3000)
        XCTAssertTrue(waitUntil(writer) { FileManager.default.fileExists(atPath: store + "-activity") }, "the import took the store")
        writer.signal(SIGSTOP)
        let r = OtherUser.run(["--store", store] + Self.listing, in: dir.path)
        writer.signal(SIGCONT)
        XCTAssertEqual(r.status, 0, "\(r.stderr)")
        XCTAssertTrue(r.stdout == before, "the committed state, without the held import's rows")
        XCTAssertEqual(writer.wait().status, 0)
    }

    // MARK: Many reads during imports

    /// Imports commit while the other user lists every row, starting at different moments, with and without the
    /// files a reader leaves beside the store: each listing is the state before or after an import, or (only
    /// when it read without locks) exit 75. Before, one run gave exit 0 with rows missing and rows without their
    /// order's number. `make test` runs 4 imports, `make stress` 40 (`BOOKKEEPER_READER_RUNS` overrides).
    func testAnotherUsersListingDuringImportsIsOneCommittedStateNeverATornOne() throws {
        let runs = Trials.count("BOOKKEEPER_READER_RUNS", quick: 4, stress: 40)
        var before = try ownersListing()
        var tally: [String: Int] = [:]
        for run in 0..<runs {
            if run % 2 == 1 { _ = try queryStore(store, "SELECT 1") }   // leaves -wal and -shm: read with locks
            var readers: [(Child, String)] = []
            func startReader() throws {
                let state = FileManager.default.fileExists(atPath: store + "-wal") ? "-wal there" : "no -wal"
                readers.append((try OtherUser.start(["--store", store] + Self.listing, in: dir.path), state))
            }
            // In every other run a reader starts before the import, so that the import may commit under it.
            if run % 2 == 0 { try startReader() }
            let writer = try importOrders("R\(run)")
            for delay: UInt32 in [0, 100_000, 300_000] {
                usleep(delay)
                try startReader()
            }
            let w = writer.wait()
            XCTAssertEqual(w.status, 0, "run \(run): \(w.stderr)")
            let after = try ownersListing()
            XCTAssertNotEqual(after, before)
            for (reader, state) in readers {
                let r = reader.wait()
                XCTAssertFalse(r.stderr.contains("damaged") || r.stderr.contains("malformed"), "run \(run): \(r.stderr)")
                switch r.status {
                case 0:
                    XCTAssertTrue(r.stdout == before || r.stdout == after,
                                  "run \(run), \(state): a listing of \(r.stdout.utf8.count) bytes, neither before (\(before.utf8.count)) nor after (\(after.utf8.count))")
                    tally["\(state), exit 0, \(r.stdout == before ? "before" : "after")", default: 0] += 1
                case 75:
                    XCTAssertEqual(r.stderr, "bookkeeper: \(store): \(Self.changedMessage)\n", "run \(run)")
                    XCTAssertEqual(state, "no -wal", "run \(run): only a read without locks may fail")
                    tally["\(state), exit 75", default: 0] += 1
                default:
                    XCTFail("run \(run), \(state): exit \(r.status): \(r.stderr)")
                }
            }
            before = after
        }
        reportTrials("another user's reads during imports", "\(runs) imports, \(tally.values.reduce(0, +)) listings by another user: "
              + tally.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: "; "))
    }

    /// `check`, a count and a backup by the other user while imports commit: never "damaged" or "malformed" on this
    /// healthy store — before, a torn read was reported as damage, with the advice to restore a backup.
    func testAHealthyStoreIsNeverCalledDamagedWhileAnotherProcessWrites() throws {
        let outputs = dir.file("nobody")
        try FileManager.default.createDirectory(atPath: outputs, withIntermediateDirectories: true)
        XCTAssertEqual(chown(outputs, 65534, 65534), 0)
        for run in 0..<Trials.count("BOOKKEEPER_READER_RUNS", quick: 4, stress: 40) {
            if run % 2 == 1 { _ = try queryStore(store, "SELECT 1") }
            let writer = try importOrders("D\(run)")
            var readers: [Child] = []
            for args in [["check", "--quiet"], ["fetch", "OrderRow", "--count"],
                         ["backup", "nobody/copy-\(run).sqlite", "--quiet"], ["check", "--quiet"]] {
                readers.append(try OtherUser.start(["--store", store] + args, in: dir.path))
                usleep(100_000)
            }
            XCTAssertEqual(writer.wait().status, 0)
            for reader in readers {
                let r = reader.wait()
                XCTAssertTrue(r.status == 0 || (r.status == 75 && r.stderr == "bookkeeper: \(store): \(Self.changedMessage)\n"),
                              "run \(run): \(reader.process.arguments ?? []): exit \(r.status): \(r.stderr)")
                XCTAssertFalse(r.stderr.contains("damaged") || r.stderr.contains("malformed") || r.stderr.contains("integrity"), r.stderr)
            }
            for copy in filesIn(outputs) where copy.hasSuffix(".sqlite") {
                XCTAssertEqual(try queryStore(dir.file("nobody/" + copy), "PRAGMA integrity_check"), ["ok"], copy)
            }
        }
    }
}
