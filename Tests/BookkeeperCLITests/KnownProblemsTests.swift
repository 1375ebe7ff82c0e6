import Foundation
import XCTest
import TestSupport

/// Issue 24 §2: a nightly job whose export has the same few bad lines every night can accept them, and still
/// hears of every new problem.
final class KnownProblemsTests: ImportTestCase {
    /// A product ID with two names stopped every import (or was rejected every night): --on-conflict keeps the
    /// first or the last values, counts the lines and names the first places, and exits 0.
    func testAProductIDWithTwoNamesStoppedTheImport() throws {
        importSampleData()
        csv("services.csv", "code,name,info\nS90,Gadget,first\nS91,Widget,w\nS90,Gadget,second\n")
        let before = try contents()
        let refused = bk("import", "Service", "services.csv", "--key", "code")
        XCTAssertEqual(refused.status, 65)
        XCTAssertTrue(refused.stderr.contains("services.csv:4:"), refused.stderr)
        XCTAssertTrue(refused.stderr.contains("was given earlier on line 2 with other values (info) (--on-conflict first or last keeps one)"), refused.stderr)
        XCTAssertEqual(try contents(), before)

        let first = bk("import", "Service", "services.csv", "--key", "code", "--on-conflict", "first")
        XCTAssertEqual(first.status, 0, "\(first)")
        XCTAssertEqual(counts(first.stdout, "Service"), "2 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertTrue(first.stdout.contains("1 line gave a key again with other values; the first values were kept (--on-conflict first): line 4: Service \"S90\" (first given on line 2)"), first.stdout)
        XCTAssertEqual(try query("SELECT info FROM Service WHERE code = 'S90'"), ["first"])

        let last = bk("import", "Service", "services.csv", "--key", "code", "--on-conflict", "last", "--summary", "json")
        XCTAssertEqual(last.status, 0, "\(last)")
        let summary = try JSONSerialization.jsonObject(with: Data(last.stdout.utf8)) as? [String: Any]
        XCTAssertEqual(summary?["conflicts"] as? Int, 1)
        XCTAssertEqual(try query("SELECT info FROM Service WHERE code = 'S90'"), ["second"])
        // S90 was "first" and is now "second": updated, not unchanged; S91 is as it was.
        let entities = summary?["entities"] as? [[String: Any]]
        XCTAssertEqual(entities?.first?["updated"] as? Int, 1)
        XCTAssertEqual(entities?.first?["unchanged"] as? Int, 1)
        // Run again: the last values are already stored.
        XCTAssertEqual(bk("import", "Service", "services.csv", "--key", "code", "--on-conflict", "last").status, 0)
        XCTAssertEqual(try query("SELECT info FROM Service WHERE code = 'S90'"), ["second"])
    }

    /// An order whose lines disagree on its own columns: --on-conflict first keeps the first line's, last the last
    /// line's; the rows are all kept either way.
    func testAnOrderWhoseLinesDisagreeIsKeptWithTheChosenValues() throws {
        importSampleData()
        csv("o.csv", "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
            + "K-1,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\nK-1,2025-01-02,Acme Ltd,yes,no,Repair,2,2.00\n")
        XCTAssertEqual(bk("import", "Order", "o.csv").status, 65)
        XCTAssertEqual(bk("import", "Order", "o.csv", "--on-conflict", "first", "--quiet").status, 0)
        XCTAssertEqual(try query("SELECT date FROM \"Order\" WHERE number = 'K-1'").count, 1)
        let firstDate = try query("SELECT date FROM \"Order\" WHERE number = 'K-1'")
        XCTAssertEqual(bk("import", "Order", "o.csv", "--on-conflict", "last", "--quiet").status, 0)
        let lastDate = try query("SELECT date FROM \"Order\" WHERE number = 'K-1'")
        XCTAssertNotEqual(firstDate, lastDate)
        XCTAssertEqual(try query("SELECT count(*) FROM OrderRow r JOIN \"Order\" o ON o.id = r.order_id WHERE o.number = 'K-1'"), ["2"])
        XCTAssertEqual(bk("check").status, 0)
    }

    /// A real export rejected the same lines every night, so the job exited 65 every night and the operator learnt
    /// to ignore it. With --accept-rejects the reviewed rejects file of an earlier night makes the same lines, rejected
    /// again exactly, exit 0 — also when lines above them moved their line numbers — and any new problem exits 65.
    func testANightlyExportRejectingTheSameLinesExited65EveryNight() throws {
        importSampleData()
        let header = "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
        let known = "B-1,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\nB-1,2025-01-01,Acme Ltd,yes,no,Nothing,1,2.00\n"
        csv("night1.csv", header + "G-1,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\n" + known)
        let night1 = bk("import", "Order", "night1.csv", "--on-error", "skip", "--rejects", "accepted.csv")
        XCTAssertEqual(night1.status, 65)
        // Night 2: more good lines above, the same bad document.
        csv("night2.csv", header + "G-2,2025-01-02,Acme Ltd,yes,no,Repair,1,2.00\nG-3,2025-01-02,Acme Ltd,yes,no,Repair,1,2.00\n" + known)
        let night2 = bk("import", "Order", "night2.csv", "--on-error", "skip", "--rejects", "rejects.csv", "--accept-rejects", "accepted.csv")
        XCTAssertEqual(night2.status, 0, "\(night2)")
        XCTAssertTrue(night2.stdout.contains("2 rejected lines are known (--accept-rejects)"), night2.stdout)
        XCTAssertEqual(night2.stderr, "", "nothing for cron to mail")
        XCTAssertEqual(try query("SELECT count(*) FROM \"Order\" WHERE number IN ('G-2', 'G-3')"), ["2"])
        // Night 3: a new problem besides the known one.
        csv("night3.csv", header + "G-4,2025-01-03,Acme Ltd,yes,no,Repair,x,2.00\n" + known + "G-5,2025-01-03,Acme Ltd,yes,no,Repair,1,2.00\n")
        let night3 = bk("import", "Order", "night3.csv", "--on-error", "skip", "--accept-rejects", "accepted.csv")
        XCTAssertEqual(night3.status, 65, "\(night3)")
        XCTAssertTrue(night3.stderr.contains("night3.csv:2:"), night3.stderr)
        XCTAssertTrue(night3.stderr.contains("2 of the rejected lines are known (accepted.csv); 1 is new"), night3.stderr)
        XCTAssertEqual(try query("SELECT count(*) FROM \"Order\" WHERE number = 'G-5'"), ["1"])
        // The same known line with another reason is a new problem.
        csv("night4.csv", header + "B-1,2025-01-01,Acme Ltd,yes,no,Repair,1,2.00\nB-1,2025-01-01,Nobody,yes,no,Nothing,1,2.00\n")
        XCTAssertEqual(bk("import", "Order", "night4.csv", "--on-error", "skip", "--accept-rejects", "accepted.csv").status, 65)
        // Without --on-error skip the option is refused: a usage error on the command line, a configuration error
        // in a profile (it was 64 from a profile too).
        XCTAssertEqual(bk("import", "Order", "night2.csv", "--accept-rejects", "accepted.csv").status, 64)
        dir.write("nightly.yaml", "accept-rejects: accepted.csv\n")
        XCTAssertEqual(bk("import", "Order", "night2.csv", "--profile", "nightly.yaml").status, 78)
        XCTAssertEqual(bk("import", "Order", "night2.csv", "--on-error", "skip", "--accept-rejects", "missing.csv").status, 66)
    }

    /// Tonight's rejects written over the accepted file would accept tomorrow whatever is new tonight: the rejects
    /// file may not be the accepted one (73, before anything is imported, the accepted file as it was).
    func testRejectsWrittenOverTheAcceptedFileWouldAcceptTomorrowWhatIsNewTonight() throws {
        importSampleData()
        csv("s.csv", "code,name,info\nS93,,x\nS94,Gizmo,y\n")
        XCTAssertEqual(bk("import", "Service", "s.csv", "--key", "code", "--on-error", "skip", "--rejects", "accepted.csv").status, 65)
        let accepted = try String(contentsOfFile: dir.file("accepted.csv"), encoding: .utf8)
        let before = try contents()
        csv("s.csv", "code,name,info\nS93,,x\nS95,,new\n")
        let r = bk("import", "Service", "s.csv", "--key", "code", "--on-error", "skip", "--rejects", "accepted.csv", "--accept-rejects", "accepted.csv")
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertTrue(r.stderr.contains("it is the accepted rejects file"), r.stderr)
        XCTAssertEqual(try String(contentsOfFile: dir.file("accepted.csv"), encoding: .utf8), accepted)
        XCTAssertEqual(try contents(), before)
    }

    /// With --on-conflict last and --on-error skip, a rejected line of a key that a later line gave again (and was kept)
    /// went to the rejects file; imported again once fixed, it overwrote the later values the import had kept.
    func testConflictLastPutASupersededLineInTheRejectsThatOverwroteTheKeptOne() throws {
        importSampleData()
        csv("s.csv", "code,name,info\nS95,First,a\nS95,,b\nS95,Third,c\nS96,,d\n")
        let r = bk("import", "Service", "s.csv", "--key", "code", "--on-conflict", "last", "--on-error", "skip", "--rejects", "rej.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("2 records rejected (1 written to rej.csv; 1 left out: a later line of its key was kept)"), r.stderr)
        XCTAssertTrue(r.stdout.contains("1 rejected line is not in the rejects file: a later line of its key was kept (--on-conflict last)"), r.stdout)
        XCTAssertEqual(try query("SELECT name FROM Service WHERE code = 'S95'"), ["Third"])
        let rejects = try String(contentsOfFile: dir.file("rej.csv"), encoding: .utf8)
        XCTAssertFalse(rejects.contains("S95"), rejects)
        XCTAssertTrue(rejects.contains("S96,,d"), rejects)
    }

    /// An entity with a `reason` of its own: its rejects file had two `reason` columns, and the fixed file could not
    /// be imported ("both fill reason").
    func testAnEntityWithAReasonOfItsOwnGotARejectsFileThatDidNotImport() throws {
        dir.write("model.yaml", "entities:\n  Service:\n    attributes:\n      reason: { type: string }\n")
        XCTAssertEqual(bk("--model", "model.yaml", "init").status, 0)
        csv("s.csv", "code,name,reason\nA1,Cleaning,Hygiene\nA2,,Law\n")
        let r = bk("--model", "model.yaml", "import", "Service", "s.csv", "--key", "code", "--on-error", "skip", "--rejects", "rej.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        let rejects = try String(contentsOfFile: dir.file("rej.csv"), encoding: .utf8)
        XCTAssertTrue(rejects.hasPrefix("code,name,reason,reason\n"), rejects)
        try rejects.replacingOccurrences(of: "A2,,Law", with: "A2,Audit,Law").write(toFile: dir.file("fixed.csv"), atomically: true, encoding: .utf8)
        let again = bk("--model", "model.yaml", "import", "Service", "fixed.csv", "--key", "code")
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(try query("SELECT reason FROM Service WHERE code = 'A2'"), ["Law"])
    }
}
