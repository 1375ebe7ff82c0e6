import Foundation
@testable import ObjectStore
import TestSupport
import XCTest

/// The storage protocol over libpq against the test server (the postgresql tier: `make test-postgresql`).
final class PostgreSQLConnectionTests: XCTestCase {
    func testEveryKindOfStoredValueComesBackAsBound() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, i bigint, r double precision, s text, b bytea)")
        let values: [(Int64?, Double?, String?, Data?)] = [
            (0, 0, "", Data()),
            (Int64.max, .infinity, "a", Data([0])),
            (Int64.min, -.infinity, "é\u{10FFFF}😀\u{1}", Data((0...255).map { UInt8($0) })),
            (nil, nil, nil, nil),
            (-1, -0.0, "x y", Data(repeating: 7, count: 1)),
            (42, 0.1, "\u{FFFD}\u{7F}", Data([0xFF, 0x00, 0x5C])),
        ]
        func stored<T>(_ v: T?, _ f: (T) -> StoredValue) -> StoredValue { v.map(f) ?? .null }
        for (n, (i, r, s, b)) in values.enumerated() {
            try db.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)",
                           [.integer(Int64(n)), stored(i, StoredValue.integer), stored(r, StoredValue.real), stored(s, StoredValue.text), stored(b, StoredValue.blob)])
        }
        let rows = try db.rows("SELECT i, r, s, b FROM t ORDER BY id")
        XCTAssertEqual(rows.count, values.count)
        for (row, (i, r, s, b)) in zip(rows, values) {
            XCTAssertEqual(row[0], stored(i, StoredValue.integer))
            XCTAssertEqual(row[1], stored(r, StoredValue.real))
            XCTAssertEqual(row[2], stored(s, StoredValue.text))
            XCTAssertEqual(row[3], stored(b, StoredValue.blob))
        }
        XCTAssertEqual(rows.first?.names, ["i", "r", "s", "b"])
    }
}
