import Foundation
import TestSupport
import XCTest

/// The suites parameterised by store kind (docs/testing.md, "One suite, both kinds of store"): each `XOnPostgreSQL`
/// subclass of a suite `X` must run every test `X` declares — Linux's test discovery lists only the tests a class
/// declares itself, so each is named again in the subclass — and must be in the postgresql tier, `X` not.
final class StoreKindSuiteTests: XCTestCase {
    func testEverySuiteOnPostgreSQLRunsEveryTestOfItsBaseInThePostgreSQLTier() throws {
        let folder = packageRoot.appendingPathComponent("Tests/BookkeeperCLITests")
        let runner = try String(contentsOf: packageRoot.appendingPathComponent("scripts/run-tests.py"), encoding: .utf8)
        let postgresqlList = try XCTUnwrap(runner.range(of: "POSTGRESQL = [").map { runner[$0.upperBound...].prefix { $0 != "]" } })
        var suites = 0
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted() where name.hasSuffix(".swift") {
            let text = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8)
            let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
            /// The lines of the class body that starts at the line declaring `class NAME:`.
            func body(of declaration: String) -> [String]? {
                guard let start = lines.firstIndex(where: { $0.hasPrefix(declaration) }) else { return nil }
                return Array(lines[(start + 1)...].prefix { $0 != "}" })
            }
            func tests(_ body: [String], prefix: String) -> Set<String> {
                Set(body.compactMap { line -> String? in
                    guard line.hasPrefix(prefix + "test") else { return nil }
                    return String(line.dropFirst(prefix.count).prefix { $0 != "(" })
                })
            }
            for line in lines where line.hasPrefix("final class ") && line.contains("OnPostgreSQL: ") {
                let subclass = String(line.dropFirst("final class ".count).prefix { $0 != ":" })
                let base = String(subclass.dropLast("OnPostgreSQL".count))
                XCTAssertTrue(line.hasPrefix("final class \(subclass): \(base) {"), "\(name): \(subclass) is a subclass of \(base)")
                let baseTests = tests(try XCTUnwrap(body(of: "class \(base): "), "\(name): class \(base)"), prefix: "    func ")
                let named = tests(try XCTUnwrap(body(of: line)), prefix: "    override func ")
                XCTAssertFalse(baseTests.isEmpty, "\(name): \(base) has tests")
                XCTAssertEqual(named.sorted(), baseTests.sorted(), "\(name): \(subclass) names every test of \(base) again, and only those")
                XCTAssertTrue(postgresqlList.contains("\"BookkeeperCLITests.\(subclass)\""), "\(subclass) is in POSTGRESQL in scripts/run-tests.py")
                XCTAssertFalse(postgresqlList.contains("\"BookkeeperCLITests.\(base)\""), "\(base) runs in the quick tier")
                suites += 1
            }
        }
        XCTAssertGreaterThanOrEqual(suites, 4)
    }
}
