import XCTest
@testable import ObjectStore

/// Books on PostgreSQL keep the functions `init` made, until a command that writes sees an earlier format and replaces
/// them (PostgreSQLFormatTests): so every change to a function's text needs a new format. This pins the text of
/// each format's functions; a change that fails here raises `Store.postgreSQLFormat` and records the new hash.
final class PostgreSQLFunctionsFormatTests: XCTestCase {
    /// FNV-1a of the functions' statements for a schema named `bk`, by format.
    static let recorded: [Int: String] = [2: "1b34186eb64da0"]

    func testTheFunctionsTextIsTheOneItsFormatRecords() {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for statement in Store.functionStatements(schema: "bk") {
            for byte in statement.utf8 {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            hash ^= 0
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        XCTAssertEqual(Self.recorded[Store.postgreSQLFormat], hex,
                       "the functions' text changed: raise Store.postgreSQLFormat (and record \(hex) for it here)")
    }
}
