import Foundation
import TestSupport
import XCTest

/// Today is one thing for a whole run (issue 25 §2): `BOOKKEEPER_TODAY` fixes it for `default: today` and
/// `default: now` in add, import and migrations, for `$TODAY` and for reports alike, and one that is no date is
/// refused (78) by every command that may count from today. Import's defaults read the clock while reports read
/// BOOKKEEPER_TODAY, and a malformed one was quietly replaced by the clock everywhere but in reports.
final class RunMomentCommandTests: StoreCommandTestCase {
    let tz = "America/New_York"

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", """
            entities:
              Reading:
                kind: directory
                key: name
                attributes:
                  name: { type: string, required: true }
                  on:   { type: date, default: today }
                  seen: { type: datetime, default: now }
            """)
        dir.write("today.yaml", """
            title: Today
            entity: Reading
            where: on == $day
            params:
              day: { type: date, default: today }
            columns:
              - { key: name, title: Name }
            """)
        XCTAssertEqual(run(["init"]).status, 0)
    }

    func run(_ args: [String], today: String? = "2020-02-02", stdin: String? = nil) -> CLIResult {
        var env = ["TZ": tz]
        env["BOOKKEEPER_TODAY"] = today
        return runCLI(["--store", store] + args, in: dir.path, environment: env, stdin: stdin)
    }

    func okToday(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(args)
        XCTAssertEqual(r.status, 0, "\(args): \(r)", file: file, line: line)
        return r.stdout
    }

    func testDefaultTodayIsBookkeeperToday() throws {
        _ = okToday("add", "Reading", "name=added")
        dir.write("readings.csv", "name\nimported\n")
        _ = okToday("import", "Reading", "readings.csv")
        let listed = okToday("export", "Reading")
        // 2020-02-02 from its midnight in New York (05:00Z), for `now` as for `today`.
        for name in ["added", "imported"] {
            XCTAssertTrue(listed.contains("\(name),2020-02-02,2020-02-02T05:00:00Z"), "\(name) in\n\(listed)")
        }
        // $TODAY and a report's `today` are the same day.
        let selected = okToday("fetch", "Reading", "--where", "on == $TODAY", "--columns", "name", "--format", "csv")
        XCTAssertEqual(selected, "name\nadded\nimported\n")
        let report = okToday("report", "./today.yaml", "--format", "csv")
        XCTAssertEqual(report, "Name\nadded\nimported\n")
        // An attribute added with `default: today` is filled with it in the objects there are (a migration).
        dir.write("model.yaml", try String(contentsOfFile: dir.file("model.yaml"), encoding: .utf8)
            + "\n      due:  { type: date, default: today }\n")
        _ = okToday("list", "Reading")
        let migrated = okToday("fetch", "Reading", "--columns", "name,due", "--format", "csv")
        XCTAssertEqual(migrated, "name,due\nadded,2020-02-02\nimported,2020-02-02\n")
    }

    func testAMalformedBookkeeperTodayIsRefusedByEveryCommandThatUsesToday() throws {
        _ = okToday("add", "Reading", "name=a")
        dir.write("readings.csv", "name\nb\n")
        let before = try Data(contentsOf: URL(fileURLWithPath: store))
        let commands: [[String]] = [
            ["add", "Reading", "name=c"], ["import", "Reading", "readings.csv"], ["set", "Reading", "a", "on=2024-01-01"],
            ["delete", "Reading", "a"], ["fetch", "Reading"], ["list", "Reading"], ["show", "Reading", "a"],
            ["export", "Reading"], ["check"], ["migrate", "--dry-run"], ["report", "./today.yaml"], ["reports"],
        ]
        for bad in ["garbage", "2020-02-30", "tomorrow", "2024-03-10T02:30:00"] {
            for args in commands {
                let r = run(args, today: bad)
                XCTAssertEqual(r.status, 78, "BOOKKEEPER_TODAY=\(bad) \(args): \(r)")
                XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: BOOKKEEPER_TODAY: \"\(bad)\" "), "\(args): \(r.stderr)")
                XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, "one line: \(r.stderr)")
                XCTAssertEqual(r.stdout, "", "\(args): nothing done")
            }
        }
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), before, "the store is as it was")
        let skipped = run(["add", "Reading", "name=c"], today: "2024-03-10T02:30:00")
        XCTAssertTrue(skipped.stderr.contains("does not exist in America/New_York"), skipped.stderr)
        // Commands that never count from today run whatever it says.
        for args in [["model"], ["imports"], ["backup", dir.file("copy.sqlite")], ["init"]] {
            let r = run(args, today: "garbage")
            XCTAssertEqual(r.status, 0, "\(args): \(r)")
        }
    }
}
