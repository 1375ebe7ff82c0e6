import XCTest
@testable import ObjectStore

/// The key caches' hash table: keys by their bytes, updates, removals, growth past many rehashes.
final class ByteKeyTableTests: XCTestCase {
    func testGetSetRemoveAndGrowth() {
        let t = ByteKeyTable()
        XCTAssertNil(t.get("Acme"))
        t.set("Acme", 1)
        t.set("", 2)
        t.set("Café", 3)
        XCTAssertEqual(t.get("Acme"), 1)
        XCTAssertEqual(t.get(""), 2, "the empty key is a key")
        XCTAssertEqual(t.get("Café"), 3)
        XCTAssertNil(t.get("acme"))
        t.set("Acme", 7)
        XCTAssertEqual(t.get("Acme"), 7)
        t.set("Acme", nil)
        XCTAssertNil(t.get("Acme"))
        XCTAssertEqual(t.count, 2)
        t.set("Acme", 8)
        XCTAssertEqual(t.get("Acme"), 8)
        for i in 0..<100_000 { t.set("key \(i)", Int64(i + 10)) }
        XCTAssertEqual(t.count, 100_003)
        for i in stride(from: 0, to: 100_000, by: 997) { XCTAssertEqual(t.get("key \(i)"), Int64(i + 10)) }
        XCTAssertNil(t.get("key 100000"))
        let bytes: [UInt8] = Array("key 42".utf8)
        XCTAssertEqual(bytes.withUnsafeBufferPointer { t.get($0) }, 52, "looked up by bytes without a String")
    }

    /// Past a mebibyte of slots the table is mapped from the system, and growing gives the old table's pages back as
    /// it moves them: every key must survive each such growth (300,000 keys: 65,536 slots and up, four growths).
    func testEveryKeySurvivesGrowthOfMappedTables() {
        let t = ByteKeyTable()
        let n = 300_000
        for i in 0..<n { t.set("B\(i)", Int64(i + 1)) }
        for i in stride(from: 0, to: n, by: 3) { t.set("B\(i)", nil) }
        var wrong = 0
        for i in 0..<n {
            let expected: Int64? = i % 3 == 0 ? nil : Int64(i + 1)
            if t.get("B\(i)") != expected { wrong += 1 }
        }
        XCTAssertEqual(wrong, 0)
        XCTAssertEqual(t.count, n - (n + 2) / 3)
        XCTAssertNil(t.get("B\(n)"))
        for i in stride(from: 0, to: n, by: 3) { t.set("B\(i)", Int64(-i - 1)) }
        XCTAssertEqual(t.get("B0"), -1)
        XCTAssertEqual(t.count, n)
    }
}
