import XCTest
import TestSupport

/// The base of the tests that run commands under a given `TZ` (times and dates, issue 25 §2): the command runner,
/// and the small model of readings with a date-time that several of them use.
class ZonedCommandTestCase: StoreCommandTestCase {
    /// `Reading`: a name and a date-time `at`.
    static let readingsModel = """
        entities:
          Reading:
            kind: directory
            key: name
            attributes:
              name: { type: string, required: true }
              at:   { type: datetime }
        """

    func run(_ tz: String, _ args: [String], env: [String: String] = [:], stdin: String? = nil) -> CLIResult {
        runCLI(["--store", store] + args, in: dir.path, environment: ["TZ": tz].merging(env) { $1 }, stdin: stdin)
    }

    /// Runs a command under `TZ=tz` that must succeed and returns its stdout.
    @discardableResult
    func okIn(_ tz: String, _ args: String..., env: [String: String] = [:], file: StaticString = #filePath, line: UInt = #line) -> String {
        let r = run(tz, args, env: env)
        XCTAssertEqual(r.status, 0, "TZ=\(tz) \(args): \(r)", file: file, line: line)
        return r.stdout
    }
}
