import Foundation
@testable import ObjectStore
import XCTest

/// What needs no server (the quick tier): libpq's connection messages classified, the version refusal, the one-line
/// reason without a password, SQLSTATEs to kinds, and the reading of values by type.
final class PostgreSQLConnectErrorTests: XCTestCase {
    func testLibpqsConnectionMessagesAreClassified() {
        let cases: [(String, PostgreSQLConnectError.Kind)] = [
            ("connection to server on socket \"/tmp/nowhere/.s.PGSQL.5432\" failed: No such file or directory\n\tIs the server running locally and accepting connections on that socket?\n", .unreachable),
            ("connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\tIs the server running on that host and accepting TCP/IP connections?\n", .unreachable),
            ("could not translate host name \"no.such.host.invalid\" to address: Name or service not known\n", .unreachable),
            ("connection to server at \"10.1.2.3\", port 5432 failed: timeout expired\n", .unreachable),
            ("connection to server on socket \"/tmp/x/.s.PGSQL.5497\" failed: FATAL:  password authentication failed for user \"bk_secret\"\n", .authentication),
            ("connection to server on socket \"/tmp/x/.s.PGSQL.5497\" failed: fe_sendauth: no password supplied\n", .authentication),
            ("connection to server at \"db\", port 5432 failed: FATAL:  no pg_hba.conf entry for host \"10.0.0.1\", user \"u\", database \"d\", no encryption\n", .authentication),
            ("connection to server on socket \"/tmp/x/.s.PGSQL.5497\" failed: FATAL:  role \"nobody\" does not exist\n", .authentication),
            ("connection to server on socket \"/tmp/x/.s.PGSQL.5497\" failed: FATAL:  database \"nope\" does not exist\n", .databaseMissing),
            ("invalid connection option \"frobnicate\"\n", .other),
            ("connection to server on socket \"/tmp/x/.s.PGSQL.5497\" failed: FATAL:  sorry, too many clients already\n", .other),
        ]
        for (message, kind) in cases {
            XCTAssertEqual(PostgreSQLConnectError.classify(message: message), kind, message)
        }
    }

    func testAServerOlderThan15IsRefusedNamingItsVersion() {
        XCTAssertNil(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 150000))
        XCTAssertNil(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 150018))
        XCTAssertNil(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 180001))
        XCTAssertEqual(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 140011)?.kind, .serverTooOld(version: "14.11"))
        XCTAssertEqual(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 149999)?.kind, .serverTooOld(version: "14.9999"))
        XCTAssertEqual(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 100000)?.kind, .serverTooOld(version: "10.0"))
        XCTAssertEqual(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 90624)?.kind, .serverTooOld(version: "9.6.24"))
        XCTAssertEqual(PostgreSQLConnectError.versionRefusal(serverVersionNumber: 0)?.kind, .serverTooOld(version: "unknown"))
        let refusal = PostgreSQLConnectError.versionRefusal(serverVersionNumber: 130004)
        XCTAssertEqual(refusal?.reason, "the server runs PostgreSQL 13.4; Bookkeeper needs PostgreSQL 15 or later")
    }

    func testTheReasonIsOneTrimmedLineWithoutThePassword() {
        let message = "connection to server on socket \"/tmp/x/.s.PGSQL.1\" failed: FATAL:  password authentication failed for user \"u\"\n\tIs it?\n"
        XCTAssertEqual(PostgreSQLConnectError.oneLine(message),
                       "connection to server on socket \"/tmp/x/.s.PGSQL.1\" failed: FATAL:  password authentication failed for user \"u\" Is it?")
        XCTAssertEqual(PostgreSQLConnectError.oneLine("could not connect to s3cr3t-pw here\n", hiding: ["s3cr3t-pw"]), "could not connect to *** here")
        XCTAssertEqual(PostgreSQLConnectError.oneLine("a b\n", hiding: ["a"]), "a b", "a one-letter password masks nothing")
    }

    func testSQLStatesGiveTheEnginesKinds() {
        let cases: [(String, StorageError.Kind)] = [
            ("40001", .busy), ("40P01", .busy), ("55P03", .busy), ("25006", .readOnly), ("42501", .readOnly),
            ("23505", .constraint), ("23503", .constraint), ("23514", .constraint), ("23502", .constraint),
            ("XX001", .damaged), ("XX002", .damaged), ("XX000", .other), ("42601", .other), ("22012", .other), ("57014", .other),
        ]
        for (state, kind) in cases { XCTAssertEqual(PostgreSQLConnection.kind(sqlState: state), kind, state) }
    }

    func testNumericTextReadsAsAnIntegerTextOrReal() {
        XCTAssertEqual(PostgreSQLValue.numericValue("42"), .integer(42))
        XCTAssertEqual(PostgreSQLValue.numericValue("-42.000"), .integer(-42))
        XCTAssertEqual(PostgreSQLValue.numericValue("9223372036854775807"), .integer(.max))
        XCTAssertEqual(PostgreSQLValue.numericValue("-9223372036854775808"), .integer(.min))
        XCTAssertEqual(PostgreSQLValue.numericValue("9223372036854775808"), WideInteger.encode(9223372036854775808))
        XCTAssertEqual(PostgreSQLValue.numericValue("-18446744073709551614.00"), WideInteger.encode(-18446744073709551614))
        XCTAssertEqual(PostgreSQLValue.numericValue("1" + String(repeating: "0", count: 40)), .text("1" + String(repeating: "0", count: 40)))
        XCTAssertEqual(PostgreSQLValue.numericValue("1.5"), .real(1.5))
        XCTAssertEqual(PostgreSQLValue.numericValue("Infinity"), .real(.infinity))
        XCTAssertEqual(PostgreSQLValue.numericValue("-Infinity"), .real(-.infinity))
        guard case .real(let nan) = PostgreSQLValue.numericValue("NaN") else { return XCTFail("NaN") }
        XCTAssertTrue(nan.isNaN)
    }

    func testIntegersParseExactlyToBothEnds() {
        func parse(_ s: String) -> Int64? { Array(s.utf8).withUnsafeBufferPointer { PostgreSQLValue.parseInteger($0) } }
        for n: Int64 in [0, 1, -1, 42, .max, .min, .max - 1, .min + 1] { XCTAssertEqual(parse(String(n)), n) }
        XCTAssertNil(parse("9223372036854775808"))
        XCTAssertNil(parse("-9223372036854775809"))
        XCTAssertNil(parse(""))
        XCTAssertNil(parse("-"))
        XCTAssertNil(parse("1.0"))
    }

    func testDoublesAreSpeltAsFloat8ReadsThem() {
        XCTAssertEqual(PostgreSQLValue.spelling(.nan), "NaN")
        XCTAssertEqual(PostgreSQLValue.spelling(.infinity), "Infinity")
        XCTAssertEqual(PostgreSQLValue.spelling(-.infinity), "-Infinity")
        for d in [0.1, -0.0, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, 1.0 / 3] {
            XCTAssertEqual(Double(PostgreSQLValue.spelling(d)), d)
        }
    }

    func testByteaHexReadsAsBytes() {
        func hex(_ s: String) -> Data { Array(s.utf8).withUnsafeBufferPointer { PostgreSQLValue.hexBytes($0) } }
        XCTAssertEqual(hex("\\x"), Data())
        XCTAssertEqual(hex("\\x00ff5cAB"), Data([0, 0xFF, 0x5C, 0xAB]))
    }

    func testAMultiRowInsertNumbersItsParameters() {
        XCTAssertEqual(PostgreSQLConnectionSQL.insertRows(into: "t\"x", columns: ["a", "b"], rows: 2),
                       "INSERT INTO \"t\"\"x\" (\"a\", \"b\") VALUES ($1, $2), ($3, $4)")
    }
}
