import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// Issue 30: "serialization failure after bounded retries 75". A write of bookkeeper's that another tool's
/// transaction deadlocks with (each locks two rows in the opposite order) is the one PostgreSQL stops (40P01) when it
/// waited first; its body runs again after the rollback and the write is made.
final class PostgreSQLDeadlockTests: XCTestCase {
    func testAWriteStoppedByADeadlockIsTriedAgainAndMade() throws {
        let (schema, setup) = try PostgreSQLTestDatabase.freshSchema(self)
        try setup.execute("CREATE TABLE t (id bigint PRIMARY KEY, v bigint NOT NULL); INSERT INTO t VALUES (1, 0), (2, 0)")
        guard let host = PostgreSQLTestDatabase.host, let port = PostgreSQLTestDatabase.port else { throw XCTSkip("no host") }
        let encoded = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
        let location = try PostgreSQLLocation(uri: "postgresql://bk_owner@\(encoded):\(port)/bk_test?schema=\(schema)")
        let ours = try PostgreSQLTestDatabase.connect(self, schema: schema, writeLockKey: PostgreSQLBooks.writeLockKey(schema: schema))
        nonisolated(unsafe) let theirs = try PostgreSQLTestDatabase.connect(self, schema: schema)
        let books = PostgreSQLBooks(location: location, connection: ours)
        let secondRowLocked = DispatchSemaphore(value: 0), theyAreDone = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var theirFailure: Error?
        var tries = 0
        try books.write(rerunnable: true) { db in
            tries += 1
            try db.execute("UPDATE t SET v = v + 1 WHERE id = 1")
            if tries == 1 {
                DispatchQueue.global().async {
                    do {
                        try theirs.transaction(.deferred) {
                            try theirs.execute("UPDATE t SET v = v + 10 WHERE id = 2")
                            secondRowLocked.signal()
                            // After ours waits for row 2: ours waited first, so its deadlock check runs first and
                            // PostgreSQL stops ours.
                            usleep(300_000)
                            try theirs.execute("UPDATE t SET v = v + 10 WHERE id = 1")
                            return .commit
                        }
                    } catch {
                        theirFailure = error
                    }
                    theyAreDone.signal()
                }
                secondRowLocked.wait()
            }
            try db.execute("UPDATE t SET v = v + 1 WHERE id = 2")
        }
        theyAreDone.wait()
        XCTAssertNil(theirFailure, "theirs went on once ours was stopped")
        XCTAssertEqual(tries, 2, "stopped once by the deadlock, then made")
        XCTAssertEqual(try setup.rows("SELECT v FROM t ORDER BY id").map { $0.int(0) }, [11, 11])
    }
}
