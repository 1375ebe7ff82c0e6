// What the fuzzers found (Tests/FuzzRegressionTests/Inputs/README.md), seen from the command line: each
// was a crash, an SQL error or a wrong answer, and is now a one-line usage error.

import Foundation
import TestSupport
import XCTest

final class ReliabilityFuzzFindingsTests: XCTestCase {
    func testFuzzFindingsAreOneLineUsageErrors() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("books.sqlite")
        SampleStore.copy(to: store)
        let before = try storeFingerprint(store)
        let cases: [([String], String)] = [
            // SQL read the pattern up to the NUL, the evaluator all of it: they disagreed.
            (["fetch", "Customer", "--where", "code MATCHES '[A-Z]\\0[0-9]'"],
             "bookkeeper: where:1:14: \"[A-Z]\\0[0-9]\" contains a NUL character (\\0), which text in the store cannot hold"),
            // A crash (a force unwrap).
            (["fetch", "OrderRow", "--where", "sum BETWEEN {0, Int}"],
             "bookkeeper: where:1:17: expected a value, found the key path \"Int\"; a list holds values and $variables"),
            // SELECT  FROM …: an SQL syntax error, status 74.
            (["fetch", "Customer", "--columns", " , "], "bookkeeper: columns:1:1: --columns needs at least one key path"),
        ]
        for (args, message) in cases {
            let r = runCLI(["--store", store] + args, in: dir.path)
            XCTAssertEqual(r.status, 64, "\(args): \(r)")
            XCTAssertEqual(r.stderr, message + "\n", "\(args)")
        }
        XCTAssertEqual(try storeFingerprint(store), before)
    }
}
