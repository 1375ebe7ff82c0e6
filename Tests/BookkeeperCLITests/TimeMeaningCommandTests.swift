import Foundation
import TestSupport
import XCTest

/// What a hostile tester found in the handling of zones and date-times (issue 25 §2, "times and dates mean what
/// they say"), each at the command line: `TZ=… bookkeeper …` on the model of an `Event` with a date-time and a date.
final class TimeMeaningCommandTests: StoreCommandTestCase {
    static let model = """
        entities:
          Event:
            kind: directory
            attributes:
              name: { type: string, required: true }
              at:   { type: datetime }
              d:    { type: date }
        """

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", TimeMeaningCommandTests.model)
        XCTAssertEqual(run("UTC", ["init"]).status, 0)
    }

    func run(_ tz: String, _ args: [String], env: [String: String] = [:], stdin: String? = nil) -> CLIResult {
        runCLI(["--store", store] + args, in: dir.path, environment: ["TZ": tz].merging(env) { $1 }, stdin: stdin)
    }

    @discardableResult
    func okIn(_ tz: String, _ args: String..., env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(tz, args, env: env)
        XCTAssertEqual(r.status, 0, "TZ=\(tz) \(args): \(r)", file: file, line: line)
        return r.stdout
    }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() }

    /// `migrate` of d from date to date-time with d = 0001-01-01 in Berlin trapped in `Timestamp.day` (exit 132),
    /// leaving a backup and a stale activity note: that day's midnight is 0000-12-31T23:00:00Z. Now the dry run and
    /// the migration both report the value as one that cannot convert (65, naming the object) and change nothing.
    func testMigratingTheFirstDayToADateTimeEastOfGreenwichIsReportedNotACrash() {
        okIn("Europe/Berlin", "add", "Event", "name=c", "d=0001-01-01")
        okIn("Europe/Berlin", "add", "Event", "name=e", "d=0001-01-02")
        let before = files()
        dir.write("model.yaml", TimeMeaningCommandTests.model.replacingOccurrences(of: "d:    { type: date }", with: "d:    { type: datetime }"))
        for args in [["migrate", "--dry-run"], ["migrate", "--allow-data-loss"]] {
            let r = run("Europe/Berlin", args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("\"0001-01-01\" in Event/1"), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
        XCTAssertEqual(files(), before, "no backup, no activity note left")
        // West of Greenwich the same day converts.
        okIn("America/New_York", "migrate", "--allow-data-loss")
        XCTAssertTrue(okIn("UTC", "fetch", "Event", "--format", "csv").contains("c,,0001-01-01T04:56:02+00:00"))
    }
}
