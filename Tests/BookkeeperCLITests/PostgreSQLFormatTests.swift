import Foundation
import TestSupport
import Synchronization
import XCTest
@testable import ObjectStore

/// Books made by an earlier version keep that version's SQL functions (0.10.0's MATCHES[c] read `[İ]` as a set;
/// make stress's seed 1795812250 found it): a command that writes brings them to the current format first, a read
/// refuses to answer by the old functions and changes nothing.
final class PostgreSQLFormatTests: XCTestCase {
    /// Books of format 1 whose bk_matches answers as 0.10.0's did on `[İ]`: never.
    private func formatOneBooks(_ dir: TemporaryDirectory) throws -> (uri: String, schema: String, owner: PostgreSQLConnection) {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let created = runCLI(["--store", books.uri, "init"], in: dir.path)
        XCTAssertEqual(created.status, 0, created.stderr)
        for step in [["add", "Customer", "name=i\u{307}stanbul"], ["add", "Customer", "name=Ankara"]] {
            XCTAssertEqual(runCLI(["--store", books.uri] + step, in: dir.path).status, 0)
        }
        let schema = books.location.schema
        let owner = try PostgreSQLTestDatabase.connect(self, schema: schema)
        try owner.execute("UPDATE _bookkeeper_meta SET value = '1' WHERE key = 'format'")
        try owner.execute("""
            CREATE OR REPLACE FUNCTION "\(schema)".bk_matches(x text, p text, flags integer) RETURNS integer
            LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURN 0
            """)
        try owner.execute("GRANT USAGE ON SCHEMA \"\(schema)\" TO bk_reader")
        try owner.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \"\(schema)\" TO bk_reader")
        try owner.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \"\(schema)\" TO bk_reader")
        return (books.uri, schema, owner)
    }

    private func format(_ owner: PostgreSQLConnection) throws -> String? {
        try owner.string("SELECT value FROM _bookkeeper_meta WHERE key = 'format'")
    }

    private let query = ["fetch", "Customer", "--where", "name MATCHES[c] '[\u{130}]stanbul'", "--columns", "name", "--format", "csv"]

    func testAReadOfBooksOfAnEarlierFormatRefusesAndChangesNothing() throws {
        let dir = TemporaryDirectory("pg-format-read")
        let books = try formatOneBooks(dir)
        for uri in [books.uri, books.uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")] {
            let read = runCLI(["--store", uri] + query, in: dir.path)
            XCTAssertEqual(read.status, 73, read.stderr)
            XCTAssertEqual(read.stdout, "")
            XCTAssertEqual(read.stderr.split(separator: "\n").count, 1, read.stderr)
            XCTAssertTrue(read.stderr.contains("books of format 1, made by an earlier version of bookkeeper"), read.stderr)
            XCTAssertTrue(read.stderr.contains("`bookkeeper init` on them (or any write) by a role that may write them"), read.stderr)
            XCTAssertEqual(try format(books.owner), "1", "a read changed the format")
            XCTAssertEqual(try books.owner.int("SELECT \"\(books.schema)\".bk_matches('x', 'x', 0)"), 0, "a read replaced the functions")
        }
        // A role that may not write cannot bring them up to date either: the same refusal, from init too.
        let reader = runCLI(["--store", books.uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@"), "init"], in: dir.path)
        XCTAssertEqual(reader.status, 73, reader.stderr)
        XCTAssertEqual(try format(books.owner), "1")
    }

    func testTheFirstWriteBringsBooksOfAnEarlierFormatUpToDate() throws {
        let dir = TemporaryDirectory("pg-format-write")
        let books = try formatOneBooks(dir)
        let write = runCLI(["--store", books.uri, "add", "Customer", "name=Izmir"], in: dir.path)
        XCTAssertEqual(write.status, 0, write.stderr)
        XCTAssertTrue(write.stderr.contains("brought from format 1 to \(Store.postgreSQLFormat): its SQL functions replaced"), write.stderr)
        XCTAssertEqual(try format(books.owner), String(Store.postgreSQLFormat))
        let read = runCLI(["--store", books.uri] + query, in: dir.path)
        XCTAssertEqual(read.status, 0, read.stderr)
        XCTAssertEqual(read.stdout, "name\ni\u{307}stanbul\n")
        // Once: the next write says nothing of formats.
        let again = runCLI(["--store", books.uri, "add", "Customer", "name=Bursa"], in: dir.path)
        XCTAssertEqual(again.status, 0, again.stderr)
        XCTAssertFalse(again.stderr.contains("format"), again.stderr)
    }

    /// Writers meeting books of an earlier format at once take turns under the books' lock: one brings them up to
    /// date, the others find them so; every write lands.
    func testWritersTogetherBringBooksOfAnEarlierFormatUpToDateOnce() throws {
        let dir = TemporaryDirectory("pg-format-together")
        let books = try formatOneBooks(dir)
        let count = 6
        let results = Mutex([(status: Int, stderr: String)]())
        let uri = books.uri
        DispatchQueue.concurrentPerform(iterations: count) { i in
            let result = runCLI(["--store", uri, "add", "Customer", "name=Together \(i)"], in: dir.path)
            let outcome = (status: Int(result.status), stderr: result.stderr)
            results.withLock { $0.append(outcome) }
        }
        let all = results.withLock { $0 }
        XCTAssertEqual(all.map(\.status), Array(repeating: 0, count: count), all.map(\.stderr).joined())
        XCTAssertEqual(all.filter { $0.stderr.contains("brought from format 1 to") }.count, 1, all.map(\.stderr).joined())
        XCTAssertEqual(try format(books.owner), String(Store.postgreSQLFormat))
        XCTAssertEqual(try books.owner.int("SELECT count(*) FROM \"Customer\" WHERE name LIKE 'Together %'"), count)
    }

    func testInitOnBooksOfAnEarlierFormatBringsThemUpToDate() throws {
        let dir = TemporaryDirectory("pg-format-init")
        let books = try formatOneBooks(dir)
        let initAgain = runCLI(["--store", books.uri, "init"], in: dir.path)
        XCTAssertEqual(initAgain.status, 0, initAgain.stderr)
        XCTAssertTrue(initAgain.stderr.contains("brought from format 1 to \(Store.postgreSQLFormat)"), initAgain.stderr)
        XCTAssertEqual(try format(books.owner), String(Store.postgreSQLFormat))
        XCTAssertEqual(runCLI(["--store", books.uri] + query, in: dir.path).stdout, "name\ni\u{307}stanbul\n")
        let noop = runCLI(["--store", books.uri, "init"], in: dir.path)
        XCTAssertTrue(noop.stderr.contains("is already a store; nothing to do"), noop.stderr)
    }
}
