import Foundation
import XCTest

/// How many times a trial loop runs, and from which seed (docs/testing.md, "Tiers").
///
/// `make test` runs every loop with a reduced count and a fixed seed, so that a failure there repeats exactly;
/// `make stress` sets `BOOKKEEPER_TEST_TIER=stress` and a random `STRESS_SEED` that it prints, and the loops run
/// their full counts. A loop's own variable (e.g. `BOOKKEEPER_CRASH_TRIALS`) overrides either. Each loop says what
/// it ran on a line that begins `trials: `, which the test runner collects into its summary.
public enum Trials {
    private static var environment: [String: String] { ProcessInfo.processInfo.environment }

    /// Whether this run is `make stress` (full counts, a random seed).
    public static var isStress: Bool { environment["BOOKKEEPER_TEST_TIER"] == "stress" }

    /// The count for a loop: `variable` when it is set, else `stress` under `make stress`, else `quick`.
    public static func count(_ variable: String, quick: Int, stress: Int) -> Int {
        if let value = environment[variable].flatMap({ Int($0) }) { return value }
        return isStress ? stress : quick
    }

    /// The seed for a loop: `variable` when set, else `STRESS_SEED` (which `make stress` always sets), else `fixed`.
    public static func seed(_ variable: String = "STRESS_SEED", fixed: UInt64) -> UInt64 {
        if let value = environment[variable].flatMap({ UInt64($0) }) { return value }
        return environment["STRESS_SEED"].flatMap { UInt64($0) } ?? fixed
    }

    /// Prints the `trials: ` line of a loop (at once: the runner reads it from a pipe).
    public static func report(_ name: String, _ what: String) {
        FileHandle.standardOutput.write(Data("trials: \(name): \(what)\n".utf8))
    }
}

extension XCTestCase {
    /// Prints the `trials: ` line of this test's loop; when an assertion of the test has failed, the line says so,
    /// so that a summary of what the loop found never reads as a success beside a failure.
    public func reportTrials(_ name: String, _ what: String) {
        let failures = testRun?.failureCount ?? 0
        Trials.report(name, failures == 0 ? what : "FAILED (\(failures) assertions; see above) after: \(what)")
    }
}
