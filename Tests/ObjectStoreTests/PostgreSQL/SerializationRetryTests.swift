import Foundation
import XCTest
@testable import ObjectStore

/// Issue 30: a transaction PostgreSQL cannot serialize with another (40001) or that a deadlock stopped (40P01) is
/// tried again a bounded number of times when its body may run again, then refused as a temporary failure (75)
/// naming the SQLSTATE's meaning. The retry loop with injected failures (no server needed).
final class SerializationRetryTests: XCTestCase {
    private let path = "postgresql://u@h/db (schema s)"

    func testAFailureThatPassesIsTriedAgainAfterAPause() throws {
        var tries = 0, pauses: [Int] = []
        let result = try PostgreSQLBooks.retryingSerializationFailures(attempts: 3, path: path, pause: { pauses.append($0) }) { () -> String in
            tries += 1
            if tries < 3 { throw PostgreSQLBooks.SerializationFailure(sqlState: tries == 1 ? "40P01" : "40001", message: "deadlock detected") }
            return "written"
        }
        XCTAssertEqual(result, "written")
        XCTAssertEqual(tries, 3)
        XCTAssertEqual(pauses, [1, 2])
    }

    func testAFailureThatLastsIsRefusedAs75AfterTheLastTry() {
        var tries = 0
        XCTAssertThrowsError(try PostgreSQLBooks.retryingSerializationFailures(attempts: 3, path: path, pause: { _ in }) { () -> Int in
            tries += 1
            throw PostgreSQLBooks.SerializationFailure(sqlState: "40P01", message: "deadlock detected (Process 1 waits for ShareLock)")
        }) { error in
            XCTAssertEqual(error as? StoreError, .serializationFailed(path: path, sqlState: "40P01", attempts: 3,
                                                                      detail: "deadlock detected (Process 1 waits for ShareLock)"))
            XCTAssertEqual((error as? StoreError)?.category, .temporaryFailure)
            XCTAssertEqual("\(error)", "\(path): a deadlock with another transaction (SQLSTATE 40P01: deadlock detected (Process 1 waits for "
                           + "ShareLock)) stopped the command on each of 3 tries — nothing was changed; retry later")
        }
        XCTAssertEqual(tries, 3)
    }

    /// A body that may not run again (a read that may have printed rows, a write that keeps what it did) is tried once.
    func testABodyThatMayNotRunAgainIsTriedOnce() {
        var tries = 0
        XCTAssertThrowsError(try PostgreSQLBooks.retryingSerializationFailures(attempts: 1, path: path, pause: { _ in XCTFail("no pause") }) { () -> Int in
            tries += 1
            throw PostgreSQLBooks.SerializationFailure(sqlState: "40001", message: "could not serialize access due to concurrent update")
        }) { error in
            XCTAssertTrue("\(error)".contains("another transaction's concurrent change (SQLSTATE 40001"), "\(error)")
        }
        XCTAssertEqual(tries, 1)
    }

    /// Other failures pass through untouched, at once.
    func testOtherFailuresAreNotTriedAgain() {
        var tries = 0
        XCTAssertThrowsError(try PostgreSQLBooks.retryingSerializationFailures(attempts: 3, path: path, pause: { _ in }) { () -> Int in
            tries += 1
            throw StoreError.busy(path: path, detail: "another process is writing to it")
        }) { XCTAssertEqual($0 as? StoreError, .busy(path: path, detail: "another process is writing to it")) }
        XCTAssertEqual(tries, 1)
    }

    /// libpq's text of a lost connection, on one line without its decorations.
    func testALostConnectionsReasonIsOneLineWithoutTheStatementExcerpt() {
        let libpq = "FATAL:  terminating connection due to administrator command\nLINE 1: INSERT INTO \"Customer\" (\"id\", \"name\") VALUES...\n"
            + "        ^\nserver closed the connection unexpectedly\n\tThis probably means the server terminated abnormally\n"
            + "\tbefore or while processing the request.\n"
        XCTAssertEqual(PostgreSQLConnection.plainReason(libpq),
                       "terminating connection due to administrator command; server closed the connection unexpectedly")
    }

    func testTheWordsOfALostConnectionSayWhatBecameOfTheChange() {
        XCTAssertEqual(StoreError.connectionLost(path: path, reason: "r", change: .outcomeUnknown).description,
                       "\(path): the connection to the database server was lost while the change was being committed (r) "
                       + "— it may or may not have been saved; look before running it again")
        XCTAssertEqual(StoreError.connectionLost(path: path, reason: "r", change: .nothingChanged).description,
                       "\(path): the connection to the database server was lost (r) — nothing was changed")
        XCTAssertEqual(StoreError.connectionLost(path: path, reason: "r", change: .reading).description,
                       "\(path): the connection to the database server was lost (r)")
        XCTAssertEqual(StoreError.connectionLost(path: path, reason: "r", change: .reading).category, .unavailable)
    }
}
