import XCTest
import Bookkeeping
import TestSupport
@testable import ObjectStore

/// The batch writer matches a key that equals a stored one after NFC — by upsert, by reference, with
/// --create-missing and in its uniqueness check — whether the table was empty when the batch began (the caches
/// know every row) or not (SQLite is asked), and keeps each key in the spelling first given.
final class BatchKeyFormTests: XCTestCase {
    var dir: TemporaryDirectory!
    var store: Store!
    let nfc = "Caf\u{E9} Ol\u{E9}"
    let nfd = "Cafe\u{301} Ole\u{301}"

    override func setUpWithError() throws {
        dir = TemporaryDirectory()
        store = try Store.create(at: dir.file("b.sqlite"), model: BookkeepingModel.model)
    }

    /// The stored names as hex bytes, in row order (String's `==` would not tell the forms apart).
    func storedNames(_ column: String = "name") throws -> [String] {
        try queryStore(store.path, "SELECT hex(\(column)) FROM Customer ORDER BY id").map { $0 ?? "NULL" }
    }

    func hex(_ s: String) -> String { s.utf8.map { String(format: "%02X", $0) }.joined() }

    func customer(_ w: BatchWriter, _ name: String, code: String? = nil, info: String? = nil) throws -> BatchRecord {
        let r = try w.record("Customer")
        r["name"] = .string(name)
        if let code { r["code"] = .string(code) }
        if let info { r["info"] = .string(info) }
        return r
    }

    func testAnUpsertInAnotherFormUpdatesTheStoredRowAndKeepsItsSpelling() throws {
        for (first, second) in [(nfc, nfd), (nfd, nfc)] {
            try setUpWithError()
            // Within one batch (the cache of an empty table) and in the next (SQLite asked).
            try store.batch { w in
                XCTAssertEqual(try w.upsert(try customer(w, first, info: "a")).outcome, .inserted)
                XCTAssertEqual(try w.upsert(try customer(w, second, info: "a")).outcome, .repeated)
            }
            try store.batch { w in
                XCTAssertEqual(try w.upsert(try customer(w, second, info: "b")).outcome, .updated)
            }
            XCTAssertEqual(try storedNames(), [hex(first)])
            XCTAssertEqual(try queryStore(store.path, "SELECT info FROM Customer"), ["b"])
        }
    }

    func testAReferenceInAnotherFormFindsTheRowAndCreateMissingMakesNoSecond() throws {
        try store.batch { w in
            let first = try w.resolve(.string(nfd), in: "Customer", createMissing: true)
            XCTAssertEqual(try w.resolve(.string(nfc), in: "Customer", createMissing: true), first)
            let resolver = try w.referenceResolver(to: "Customer", createMissing: true)
            XCTAssertEqual(try resolver.id(forText: nfc), first)
            XCTAssertEqual(try resolver.id(forText: "Cafe\u{301} Ol\u{E9}"), first, "a mix of both forms")
        }
        try store.batch { w in
            let resolver = try w.referenceResolver(to: "Customer", createMissing: false)
            XCTAssertEqual(try resolver.id(forText: nfc), 1)
            XCTAssertEqual(try resolver.id(forText: nfd), 1)
        }
        XCTAssertEqual(try storedNames(), [hex(nfd)])
    }

    func testUniquenessIsCheckedByNFCAndNamesTheStoredSpelling() throws {
        _ = try store.batch { w in try w.upsert(try customer(w, "Acme", code: nfd)) }
        try store.batch { w in
            XCTAssertThrowsError(try w.upsert(try customer(w, "Bolt", code: nfc))) { e in
                XCTAssertEqual("\(e)", "Customer.code \"\(nfc)\" already exists "
                               + "(Customer/1, as \"\(nfd)\", the same text in another Unicode normal form)")
            }
            // The holder itself may be given its key in the other form: nothing changes.
            XCTAssertEqual(try w.upsert(try customer(w, "Acme", code: nfc)).outcome, .unchanged)
        }
        XCTAssertEqual(try storedNames("code"), [hex(nfd)])
    }

    /// A key the batch renames is found under its new spelling, and no longer under its old one.
    func testTheFormsMapFollowsInsertsAndUpdates() throws {
        _ = try store.batch { w in try w.upsert(try customer(w, "X", code: nfd)) }
        try store.batch { w in
            try w.upsert(try customer(w, "W", code: "W\u{E9}"))   // loads the code column's map, through a miss
            XCTAssertEqual(try w.upsert(try customer(w, "X", code: "Cafe\u{301}")).outcome, .updated)
            XCTAssertEqual(try w.upsert(try customer(w, "Y", code: nfc)).outcome, .inserted,
                           "the old spelling left the map when X's code changed")
            XCTAssertThrowsError(try w.upsert(try customer(w, "Z", code: "Caf\u{E9}"))) { e in
                XCTAssertEqual("\(e)", "Customer.code \"Caf\u{E9}\" already exists "
                               + "(Customer/1, as \"Cafe\u{301}\", the same text in another Unicode normal form)")
            }
            try w.upsert(try customer(w, "V", code: "Vo\u{308}"))
            XCTAssertThrowsError(try w.upsert(try customer(w, "U", code: "V\u{F6}")), "an insert of this batch is in the map")
        }
    }

    func testARolledBackRecordLeavesNoKeyBehind() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "Keep \u{E9}"))
            try w.beginRecord()
            try w.upsert(try customer(w, nfd))
            try w.rollbackRecord()
            try w.beginRecord()
            XCTAssertEqual(try w.upsert(try customer(w, nfc)).outcome, .inserted, "the rolled-back row is forgotten")
            try w.commitRecord()
        }
        XCTAssertEqual(try storedNames(), [hex("Keep \u{E9}"), hex(nfc)])
    }
}
