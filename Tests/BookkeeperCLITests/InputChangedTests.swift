import Foundation
import XCTest
import TestSupport

/// Issue 24 §2 (found by a hostile pass): an input another program rewrites in place while it is imported.
final class InputChangedTests: ImportTestCase {
    /// A file read twice (its decimal mark shown on its last line) was rewritten in place between the readings, as
    /// `exporter > file` does: the second reading's 1,000 lines were committed, exit 0, under the SHA-256 of the first.
    /// Stopped at moments through the import and rewritten, it now always ends with nothing imported and exit 75
    /// (or, stopped before it opened the file or after its commit, with one content imported under its own hash).
    func testAFileRewrittenInPlaceBetweenItsReadingsWasPartlyImportedUnderTheFirstHash() throws {
        importSampleData()
        // A `;` file whose quantities read both ways (`1.500`) until the last line shows a decimal point (`2.25`).
        var text = "number;date;customer;made;paid;rows.service;rows.quantity;rows.price\n"
        let documents = 20_000
        for i in 0..<documents { text += "W-\(i);2025-01-01;Acme Ltd;yes;no;Repair;\(i == documents - 1 ? "2.25" : "1.500");2\n" }
        // The other content is a whole file too (its last line decides the mark): stopped before the file was
        // opened, that is the file the import reads, and imports.
        let lines = text.split(separator: "\n")
        let short = lines.prefix(1001).joined(separator: "\n") + "\nW-last;2025-01-01;Acme Ltd;yes;no;Repair;2.25;2\n"
        func sha256(_ file: String) -> String {
            String(runProgram("/usr/bin/sha256sum", [file], in: dir.path).stdout.prefix(64))
        }
        let before = try contents()
        let pristine = dir.file("pristine.sqlite")
        try FileManager.default.copyItem(atPath: store, toPath: pristine)
        var stoppedBefore = 0, stoppedAfter = 0
        // `make test` stops it at three moments, `make stress` at seven.
        let delays = Trials.isStress ? [0.05, 0.3, 0.6, 1.0, 1.5, 2.5, 4.0] : [0.05, 0.6, 1.5]
        for delay in delays {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
            try FileManager.default.copyItem(atPath: pristine, toPath: store)
            dir.write("w.csv", text)
            let child = try Child(["--store", store, "import", "Order", "w.csv", "--quiet"], in: dir.path)
            Thread.sleep(forTimeInterval: delay)
            let wasRunning = child.isRunning
            child.signal(SIGSTOP)
            // In place: the same file, truncated and written again.
            let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: dir.file("w.csv")))
            try handle.truncate(atOffset: 0)
            try handle.write(contentsOf: Data(short.utf8))
            try handle.close()
            child.signal(SIGCONT)
            let r = child.wait()
            let orders = try query("SELECT count(*) FROM \"Order\" WHERE number LIKE 'W-%'")
            if r.status == 0 {
                // Committed before the file changed (everything, from the first content), or opened after it (the
                // other content): either way the history's hash is that of what was imported.
                let hash = try query("SELECT sha256 FROM _bookkeeper_imports ORDER BY id DESC LIMIT 1")
                if orders == ["\(documents)"] {
                    dir.write("first.csv", text)
                    XCTAssertEqual(hash, [sha256("first.csv")], "delay \(delay)")
                } else {
                    XCTAssertEqual(orders, ["1001"], "delay \(delay) (running: \(wasRunning)): \(r)")
                    XCTAssertEqual(hash, [sha256("w.csv")], "delay \(delay)")
                }
                stoppedAfter += 1
            } else {
                XCTAssertEqual(r.status, 75, "delay \(delay): \(r)")
                XCTAssertTrue(r.stderr.contains("w.csv: another program wrote to it while it was being imported; nothing was imported"), r.stderr)
                XCTAssertEqual(orders, ["0"])
                stoppedBefore += 1
                XCTAssertEqual(try contents(), before)
            }
        }
        XCTAssertGreaterThan(stoppedBefore, 0, "no stop landed inside an import")
        reportTrials("input rewritten in place", "\(stoppedBefore) stops inside the import (each exit 75, nothing imported), \(stoppedAfter) before it opened the file or after its commit")
    }
}
