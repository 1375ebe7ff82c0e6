// SIGKILL at random moments of an import (issue 6, "Crashes and signals"): after every kill, SQLite's
// integrity check passes and the store holds exactly what it held before the import, or exactly what the
// whole import gives — never anything in between. A killed process runs no code of ours, so this is
// SQLite's atomic commit (WAL, one transaction per import) seen from outside.
//
// `make test` runs 12 trials on a small file with a fixed seed; `make stress` runs 500 on a bigger one with a
// random seed (Trials; BOOKKEEPER_CRASH_TRIALS, BOOKKEEPER_CRASH_ORDERS, STRESS_SEED override). Each trial
// prints nothing; the test prints one `trials:` line of what it tried and what it found.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ReliabilityCrashTests: XCTestCase {
    func testSIGKILLAtRandomMomentsLeavesTheStoreBeforeOrAfterNeverBetween() throws {
        let trials = Trials.count("BOOKKEEPER_CRASH_TRIALS", quick: 12, stress: 500)
        let orders = Trials.count("BOOKKEEPER_CRASH_ORDERS", quick: 400, stress: 2000)
        let seed = Trials.seed(fixed: 6)
        let dir = TemporaryDirectory("bookkeeper-crash")
        // New orders with three rows each, and ten of the sample's orders again with other rows (updates,
        // rows replaced): inserts, updates and deletes in one transaction.
        var csv = ordersCSV(prefix: "K", count: orders)
        csv += ordersCSV(count: 10, rows: 2, from: 1) { String(format: "2026-%03d", $0) }.split(separator: "\n").dropFirst()
            .map { $0 + "\n" }.joined()
        let input = dir.write("orders.csv", csv)

        // The two allowed states: the sample store as it is, and after the whole import.
        let base = dir.file("base.sqlite")
        SampleStore.copy(to: base)
        let before = try storeContent(base)
        let reference = dir.file("reference.sqlite")
        SampleStore.copy(to: reference)
        let started = Date()
        let full = runCLI(["--store", reference, "import", "Order", input, "--quiet"], in: dir.path)
        let duration = Date().timeIntervalSince(started)
        XCTAssertEqual(full.status, 0, "\(full)")
        let after = try storeContent(reference)
        XCTAssertNotEqual(before, after)

        // Kill moments spread over the whole run (start-up, reading, writing, commit) and a little past it.
        var random = SeededGenerator(seed: seed)
        var outcomes = (before: 0, after: 0, finished: 0, midway: 0)
        let store = dir.file("trial.sqlite")
        for trial in 0..<trials {
            SampleStore.copy(to: store)
            // Even trials: a moment from the start. Odd trials: a moment after the import began its transaction (its
            // busy note is beside the store from its start until just before its commit), so that many kills land in
            // the transaction and its commit. (The log was the sign before: it had frames from the opening on, a
            // table GRDB made and dropped there, which no longer happens; a small import writes its log at commit.)
            let fromWriting = trial % 2 == 1
            let delay = Double.random(in: 0...(duration * (fromWriting ? 0.4 : 1.1)), using: &random)
            let child = try Child(["--store", store, "import", "Order", input, "--quiet"], in: dir.path)
            if fromWriting {
                _ = waitUntil(child, pollMicroseconds: 200) { FileManager.default.fileExists(atPath: store + "-activity") || fileSize(store + "-wal") > 0 }
            }
            usleep(UInt32(delay * 1_000_000))
            // Mid-transaction when its busy note is there, or the write-ahead log has frames of it.
            let midway = FileManager.default.fileExists(atPath: store + "-activity") || fileSize(store + "-wal") > 0
            child.signal(SIGKILL)
            let result = child.wait()
            let place = "trial \(trial) (seed \(seed), kill \(String(format: "%.3f", delay)) s after \(fromWriting ? "the log had frames" : "the start"))"
            if result.killedBySignal {
                XCTAssertEqual(result.status, SIGKILL, place)
            } else {
                XCTAssertEqual(result.status, 0, "\(place): the import finished on its own, and must have succeeded: \(result.stderr)")
                outcomes.finished += 1
            }
            XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"], place)
            let content = try storeContent(store)
            if content == before {
                outcomes.before += 1
                if midway && result.killedBySignal { outcomes.midway += 1 }
            } else if content == after {
                if result.killedBySignal { outcomes.after += 1 }
            } else {
                XCTFail("\(place): the store is neither as before nor as after the import")
                break
            }
            // Now and then: the killed import's store takes the same import again, and bookkeeper's own check passes.
            if trial % 10 == 9 {
                let again = runCLI(["--store", store, "import", "Order", input, "--quiet"], in: dir.path)
                XCTAssertEqual(again.status, 0, "\(place): importing again after the kill: \(again)")
                XCTAssertEqual(withoutHistory(try storeContent(store)), withoutHistory(after), place)
                let check = runCLI(["--store", store, "check"], in: dir.path)
                XCTAssertEqual(check.status, 0, "\(place): \(check)")
            }
        }
        let summary = "\(trials) trials (seed \(seed)) of an import of \(orders + 10) orders "
            + "(\(csv.split(separator: "\n").count - 1) lines, \(String(format: "%.2f", duration)) s): "
            + "\(outcomes.before) killed before the commit (store as before; \(outcomes.midway) of them inside the transaction: its busy note or its log there), "
            + "\(outcomes.after) killed after it (store as after), "
            + "\(outcomes.finished) finished first; 0 in between; integrity ok after every one"
        reportTrials("SIGKILL during an import", summary)
        XCTAssertGreaterThan(outcomes.midway, 0, "no kill landed in the middle of the transaction: \(summary)")
    }

    private func withoutHistory(_ content: String) -> String {
        var out: [Substring] = []
        var skipping = false
        for line in content.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { skipping = line == "## _bookkeeper_imports" }
            if !skipping { out.append(line) }
        }
        return out.joined(separator: "\n")
    }
}
