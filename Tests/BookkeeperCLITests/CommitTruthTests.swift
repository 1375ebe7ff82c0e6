// Issue 13, part 3: when a command has committed and something fails after it (standard output is full, a
// signal arrives), the message says the change was committed. Seen: `import … > /dev/full` committed and said
// only "cannot write"; SIGTERM 50 ms after the commit printed "nothing was committed" while the store held it.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class CommitTruthTests: SampleStoreTestCase {
    func countOrders(_ prefix: String) throws -> Int {
        Int(try queryStore(store, "SELECT count(*) FROM \"Order\" WHERE number LIKE '\(prefix)-%'").first!!)!
    }

    /// Runs the binary on the store with standard output on /dev/full: its status and standard error.
    func runWithStandardOutputFull(_ args: [String]) throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bookkeeperBinary)
        process.arguments = ["--store", store] + args
        process.standardOutput = FileHandle(forWritingAtPath: "/dev/full")
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, stderr)
    }

    func testStandardOutputFullAfterTheCommitSaysTheChangeWasCommitted() throws {
        let csv = dir.write("orders.csv", ordersCSV(prefix: "F", count: 20))
        for args in [["import", "Order", csv], ["add", "Tag", "name=after-full"]] {
            let (status, stderr) = try runWithStandardOutputFull(args)
            XCTAssertEqual(status, 74, "\(args): \(stderr)")
            XCTAssertEqual(stderr, """
                bookkeeper: standard output: cannot write (No space left on device)
                bookkeeper: the change was committed before this failure: it is in the store; only this output was lost

                """, "\(args)")
        }
        XCTAssertEqual(try countOrders("F"), 20)
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Tag WHERE name = 'after-full'"), ["1"])
    }

    /// Seen: `import --on-error skip > /dev/full` that rejected a line exited 65 and never said its summary was lost.
    func testStandardOutputFullAfterASkipImportSaysTheSummaryWasLost() throws {
        let csv = dir.write("orders.csv", ordersCSV(prefix: "K", count: 5) + "Kbad,2024-02-30,Acme Ltd,yes,no,Repair,1,10.00\n")
        let (status, stderr) = try runWithStandardOutputFull(["import", "Order", csv, "--on-error", "skip"])
        XCTAssertEqual(status, 74, stderr)
        let lines = stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.suffix(3), [
            "bookkeeper: 1 record rejected; the others were imported",
            "bookkeeper: standard output: cannot write (No space left on device)",
            "bookkeeper: the change was committed before this failure: it is in the store; only this output was lost",
        ], stderr)
        XCTAssertEqual(try countOrders("K"), 5)
    }

    /// Standard output is a pipe nobody reads, filled beforehand: the import commits, then blocks writing its
    /// summary. A SIGTERM then must say the change was committed.
    func testASignalJustAfterTheCommitSaysTheChangeWasCommitted() throws {
        let csv = dir.write("orders.csv", ordersCSV(prefix: "S", count: 50))
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) | O_NONBLOCK)
        let filler = [UInt8](repeating: 0x2e, count: 4096)
        while write(fds[1], filler, filler.count) > 0 {}
        _ = fcntl(fds[1], F_SETFL, fcntl(fds[1], F_GETFL) & ~O_NONBLOCK)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bookkeeperBinary)
        process.arguments = ["--store", store, "import", "Order", csv]
        process.standardOutput = FileHandle(fileDescriptor: fds[1], closeOnDealloc: false)
        let errors = dir.file("stderr")
        _ = FileManager.default.createFile(atPath: errors, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: errors)
        try process.run()
        close(fds[1])
        // Committed: the rows are there for any reader.
        while process.isRunning, (try? countOrders("S")) != 50 { usleep(2000) }
        usleep(50_000)
        XCTAssertTrue(process.isRunning, "the import blocks on its full standard output")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(process.terminationStatus, SIGTERM)
        XCTAssertEqual(try String(contentsOfFile: errors, encoding: .utf8),
                       "bookkeeper: interrupted by SIGTERM after the change was committed: it is in the store\n")
        XCTAssertEqual(try countOrders("S"), 50)
    }

    /// SIGTERM at moments spread over a whole import, the commit included: whatever the moment, the message
    /// matches the store — "nothing was committed" only when it holds none of the import.
    func testASignalAtAnyMomentOfAnImportTellsTheTruth() throws {
        let csv = dir.write("orders.csv", ordersCSV(prefix: "T", count: 3_000))
        let timing = dir.file("timing.sqlite")
        SampleStore.copy(to: timing)
        let start = Date()
        XCTAssertEqual(runCLI(["--store", timing, "import", "Order", csv, "--quiet"]).status, 0)
        let duration = Date().timeIntervalSince(start)
        // Moments evenly spaced over 1.2 times the import's duration: 4 in `make test`, 60 in `make stress`.
        let trials = Trials.count("COMMIT_TRUTH_TRIALS", quick: 4, stress: 60)
        var seen: [String: Int] = [:]
        for trial in 0..<trials {
            let trialStore = dir.file("t\(trial).sqlite")
            SampleStore.copy(to: trialStore)
            let child = try Child(["--store", trialStore, "import", "Order", csv, "--quiet"], in: dir.path)
            usleep(UInt32(duration * 1.2 * 1e6 * Double(trial) / Double(max(trials - 1, 1))))
            child.signal(SIGTERM)
            let result = child.wait()
            let imported = Int(try queryStore(trialStore, "SELECT count(*) FROM \"Order\" WHERE number LIKE 'T-%'").first!!)!
            XCTAssertTrue(imported == 0 || imported == 3_000, "all or nothing: \(imported)")
            if !result.killedBySignal {
                XCTAssertEqual(result.status, 0, "\(result)")
                XCTAssertEqual(imported, 3_000)
                seen["finished", default: 0] += 1
            } else if imported == 0 {
                // (Empty when the signal came before the process had set up its handlers.)
                XCTAssertTrue(["", "bookkeeper: interrupted by SIGTERM; nothing was committed by the unfinished step\n"]
                                .contains(result.stderr), result.stderr)
                seen["rolled back", default: 0] += 1
            } else {
                XCTAssertEqual(result.stderr, "bookkeeper: interrupted by SIGTERM after the change was committed: it is in the store\n")
                seen["committed", default: 0] += 1
            }
        }
        // Evenly spaced moments almost never land in the COMMIT (1 of 60 did, after it), so some trials aim at it: an
        // import whose log passes SQLite's 1,000-page autocheckpoint (25,000 orders), so that the COMMIT itself copies
        // the log into the store file, and SIGTERM as soon as that file grows.
        let big = dir.write("big.csv", ordersCSV(prefix: "T", count: 25_000))
        let commits = Trials.count("COMMIT_TRUTH_COMMIT_TRIALS", quick: 1, stress: 10)
        for trial in 0..<commits {
            let trialStore = dir.file("c\(trial).sqlite")
            SampleStore.copy(to: trialStore)
            let size = fileSize(trialStore)
            let child = try Child(["--store", trialStore, "import", "Order", big, "--quiet"], in: dir.path)
            XCTAssertTrue(waitUntil(child, pollMicroseconds: 100) { fileSize(trialStore) != size }, "commit trial \(trial): not caught")
            child.signal(SIGTERM)
            let result = child.wait()
            XCTAssertEqual(try queryStore(trialStore, "SELECT count(*) FROM \"Order\" WHERE number LIKE 'T-%'"), ["25000"])
            XCTAssertEqual(result.stderr, result.killedBySignal
                           ? "bookkeeper: interrupted by SIGTERM after the change was committed: it is in the store\n" : "", "commit trial \(trial)")
            seen["signalled in the commit", default: 0] += 1
        }
        reportTrials("SIGTERM at moments of an import", "\(trials) moments over \(String(format: "%.2f", duration * 1.2)) s and \(commits) in a bigger one's commit: \(seen.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")); every message matched the store")
    }

    /// A closed pipe after the commit killed the process with SIGPIPE (141), saying nothing.
    func testAClosedPipeAfterTheCommitSaysTheChangeWasCommitted() throws {
        let r = runProgram("/bin/sh", ["-c", "(sleep 0.3; \(bookkeeperBinary) --store books.sqlite add Tag name=piped; echo \"rc=$?\" >&2) | true"],
                           in: dir.path)
        XCTAssertTrue(r.stderr.contains("the change was committed before this failure"), r.stderr)
        XCTAssertTrue(r.stderr.contains("rc=74"), r.stderr)
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Tag WHERE name = 'piped'"), ["1"])
    }

    /// The busy note stayed beside the store when an import was ended by a signal.
    func testTheBusyNoteGoesWithAnInterruptedImport() throws {
        let csv = dir.write("orders.csv", ordersCSV(prefix: "N", count: 20_000))
        let child = try Child(["--store", store, "import", "Order", csv], in: dir.path)
        let caught = waitUntil(child) { FileManager.default.fileExists(atPath: store + "-activity") }
        child.signal(SIGTERM)
        _ = child.wait()
        XCTAssertTrue(caught, "the import was caught while it held the store")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-activity"))
    }

    /// A soft limit on CPU time (`ulimit -S -t`, the hard one left higher) ended an import with SIGXCPU and no
    /// message, its busy note left beside the store. Now it is said as SIGTERM is, and the note goes.
    func testALimitOnCPUTimeEndsAnImportWithAMessageAndNoBusyNote() throws {
        let csv = dir.write("orders.csv", ordersCSV(prefix: "X", count: 200_000))
        let before = try storeFingerprint(store)
        let child = try Child(["-c", "ulimit -c 0 && ulimit -S -t 1 && exec \"$0\" \"$@\"", bookkeeperBinary, "--store", store, "import",
                               "Order", csv], in: dir.path, executable: "/bin/bash")
        let r = child.wait()
        XCTAssertTrue(r.killedBySignal, "\(r)")
        XCTAssertEqual(r.status, SIGXCPU, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: interrupted by SIGXCPU, the limit on CPU time (ulimit -t); nothing was committed by the "
                       + "unfinished step\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-activity"))
        XCTAssertEqual(try storeFingerprint(store), before)
    }
}
