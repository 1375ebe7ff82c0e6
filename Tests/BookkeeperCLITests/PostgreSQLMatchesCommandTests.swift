import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// MATCHES on books on PostgreSQL from the command line: a pattern of the subset whose translation PostgreSQL's
/// regular expressions cannot compile (make stress's seed 9013 found one) is refused as any pattern outside the
/// subset is — 65, one line naming the pattern — never 74 with PostgreSQL's bare "regular expression is too complex".
final class PostgreSQLMatchesCommandTests: XCTestCase {
    func testAPatternTooComplexForPostgreSQLIsRefusedByThePattern() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let dir = TemporaryDirectory("pg-matches")
        let file = dir.file("books.sqlite")
        for store in [file, books.uri] {
            XCTAssertEqual(runCLI(["--store", store, "init"], in: dir.path).status, 0)
            XCTAssertEqual(runCLI(["--store", store, "add", "Customer", "name=xA"], in: dir.path).status, 0)
        }
        // (The second failed as the match ran, "regular expression failed: …", before $ took its present spelling.)
        for pattern in ["(($|[\u{1E9E}]?a+$){1,3}$[^.]{0,}$)*^$|.[\\nA-Z]",
                        "(?:(?:$$|[^\u{E0}-\u{FF}.\\n]{1,3}[SS\\-]{1,3}f{0,}[\\s]*){1,3}$|.{0,1}^)+|xA"] {
            try refused(pattern, file: file, books: books.uri, dir: dir)
        }
    }

    private func refused(_ pattern: String, file: String, books: String, dir: TemporaryDirectory) throws {
        XCTAssertNil(PostgreSQLRegex.check(pattern), "the pattern is in the subset")
        let onFile = runCLI(["--store", file, "fetch", "Customer", "--where", "name MATCHES %@", "--arg", pattern, "--columns", "name", "--format", "csv"], in: dir.path)
        XCTAssertEqual(onFile.status, 0, onFile.stderr)
        XCTAssertEqual(onFile.stdout, "name\nxA\n")
        let onServer = runCLI(["--store", books, "fetch", "Customer", "--where", "name MATCHES %@", "--arg", pattern, "--columns", "name", "--format", "csv"], in: dir.path)
        XCTAssertEqual(onServer.status, 65, onServer.stderr)
        XCTAssertEqual(onServer.stdout, "")
        XCTAssertEqual(onServer.stderr.split(separator: "\n").count, 1, onServer.stderr)
        XCTAssertTrue(onServer.stderr.contains("where: invalid regular expression \(pattern.debugDescription): a pattern too complex for PostgreSQL's regular expressions"),
                      onServer.stderr)
        XCTAssertTrue(onServer.stderr.contains("is not in the MATCHES subset PostgreSQL stores answer identically"), onServer.stderr)
    }
}
