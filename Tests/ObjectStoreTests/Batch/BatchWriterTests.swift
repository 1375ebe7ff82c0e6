import XCTest
import Bookkeeping
import GRDB
import TestSupport
@testable import ObjectStore

/// The engine's bulk write path, on the bookkeeping model: upsert, references, links, a document's rows,
/// validation equal to the context's, dry runs, per-record rollback and the deferred indexes.
final class BatchWriterTests: XCTestCase {
    var dir: TemporaryDirectory!
    var store: Store!

    override func setUpWithError() throws {
        dir = TemporaryDirectory()
        store = try Store.create(at: dir.file("b.sqlite"), model: BookkeepingModel.model)
    }

    func rows(_ sql: String) throws -> [String] {
        try queryStore(store.path, sql).map { $0 ?? "NULL" }
    }

    func customer(_ w: BatchWriter, _ name: String, code: String? = nil, info: String? = nil) throws -> BatchRecord {
        let r = try w.record("Customer")
        r["name"] = .string(name)
        if let code { r["code"] = .string(code) }
        if let info { r["info"] = .string(info) }
        return r
    }

    func testUpsertInsertsUpdatesAndLeavesUnchangedRecordsAlone() throws {
        try store.batch { w in
            XCTAssertEqual(try w.upsert(try customer(w, "Acme", code: "C1")).outcome, .inserted)
            XCTAssertEqual(try w.upsert(try customer(w, "Bolt")).outcome, .inserted)
        }
        let counts = try store.batch { w -> [String: BatchCounts] in
            XCTAssertEqual(try w.upsert(try customer(w, "Acme", info: "new")).outcome, .updated, "code is not given: kept")
            XCTAssertEqual(try w.upsert(try customer(w, "Bolt")).outcome, .unchanged)
            return w.counts
        }
        XCTAssertEqual(counts["Customer"], BatchCounts(inserted: 0, updated: 1, unchanged: 1))
        XCTAssertEqual(try rows("SELECT name || '|' || coalesce(code, '') || '|' || coalesce(info, '') FROM Customer ORDER BY id"),
                       ["Acme|C1|new", "Bolt||"])
    }

    /// The key caches are emptied before the index rebuild (`releaseKeyCaches`); asked again after that, they must
    /// still answer from the table: a key the batch wrote is found, another is not — whether the cache had kept its
    /// entries (keys out of order) or none (keys in order, where a key past the last is new without a look-up).
    func testKeyCachesAnswerRightlyAfterTheirMemoryIsGivenBack() throws {
        try store.batch { w in
            var ids: [String: Int64] = [:]
            for name in ["Acme", "Bolt", "Crane"] { ids[name] = try w.upsert(try customer(w, name)).rowID }
            _ = try w.resolve(.string("Delivery"), in: "Service", createMissing: true)
            _ = try w.resolve(.string("Assembly"), in: "Service", createMissing: true)   // out of order: entries kept
            w.releaseKeyCaches()
            for (name, id) in ids { XCTAssertEqual(try w.resolve(.string(name), in: "Customer"), id, name) }
            XCTAssertThrowsError(try w.resolve(.string("Zeta"), in: "Customer"), "a key past the last is looked up")
            XCTAssertEqual(try w.resolve(.string("Assembly"), in: "Service"), try w.resolve(.string("Assembly"), in: "Service"))
            XCTAssertThrowsError(try w.resolve(.string("Welding"), in: "Service"))
            XCTAssertEqual(try w.upsert(try customer(w, "Bolt")).outcome, .repeated)
        }
        XCTAssertEqual(try rows("SELECT count(*) FROM Customer"), ["3"])
    }

    func testAKeyGivenTwiceMustAgree() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "Acme", info: "x"))
            XCTAssertEqual(try w.upsert(try customer(w, "Acme", info: "x")).outcome, .repeated)
            XCTAssertThrowsError(try w.upsert(try customer(w, "Acme", info: "y"))) { e in
                XCTAssertEqual("\(e)", "Customer with name \"Acme\" was given earlier with other values (info)")
            }
        }
    }

    func testValidationSpeaksAsTheContext() throws {
        _ = try store.batch { w in try w.upsert(try customer(w, "Acme", code: "C1")) }
        try store.batch { w in
            let r = try customer(w, "Bolt", code: "C1")
            XCTAssertThrowsError(try w.upsert(r)) { e in
                XCTAssertEqual("\(e)", "Customer.code \"C1\" already exists (Customer/1)")
            }
            let row = try w.record("OrderRow")
            row["price"] = .decimal(DecimalNumber(units: 1005, scale: 3))
            let order = try w.record("Order")
            order["number"] = .string("A-1")
            let id = try w.upsert(order).rowID
            XCTAssertThrowsError(try w.putRow(row, parent: id)) { e in
                XCTAssertEqual("\(e)", "OrderRow.price 1.005 has more than 2 decimal places\nOrderRow.service is required")
            }
        }
    }

    func testTheDomainRuleDerivesARowsSum() throws {
        try store.batch { w in
            let order = try w.record("Order")
            order["number"] = .string("A-1")
            order["date"] = .date(Day(year: 2024, month: 3, day: 1)!)
            let id = try w.upsert(order).rowID
            let row = try w.record("OrderRow")
            row["quantity"] = .decimal(DecimalNumber(units: 1500, scale: 3))
            row["price"] = .decimal(DecimalNumber(units: 1025, scale: 2))
            row.setReference("service", to: try w.resolve(.string("Delivery"), in: "Service", createMissing: true))
            try w.putRow(row, parent: id)
        }
        XCTAssertEqual(try rows("SELECT sum FROM OrderRow"), ["1538"], "1.5 × 10.25 = 15.375 → 15.38 (half to even)")
    }

    func testReferencesResolveByKeyOrAreCreatedOrMissing() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "Acme Ltd", code: "C042"))
            XCTAssertEqual(try w.resolve(.string("C042"), in: "Customer", by: "code"), 1)
            XCTAssertThrowsError(try w.resolve(.string("Acme Ltf"), in: "Customer")) { e in
                XCTAssertEqual("\(e)", "Customer with name \"Acme Ltf\" not found — did you mean \"Acme Ltd\"?")
            }
            XCTAssertThrowsError(try w.resolve(.string("C9"), in: "Customer", by: "code", createMissing: true)) { e in
                XCTAssertEqual("\(e)", "cannot create Customer with code \"C9\": Customer.name is required")
            }
            XCTAssertEqual(try w.resolve(.string("Zed"), in: "Customer", createMissing: true), 2)
            XCTAssertThrowsError(try w.resolve(.string("A-1"), in: "Order", createMissing: true)) { e in
                XCTAssertEqual("\(e)", "Order with number \"A-1\" not found", "only directory items are created")
            }
            XCTAssertEqual(w.counts["Customer"]?.inserted, 2)
        }
    }

    func testLinksAreMadeExactlyTheGivenList() throws {
        func tag(_ w: BatchWriter, _ names: [String]) throws -> BatchRecord {
            let r = try customer(w, "Acme")
            r.setLinks("tags", to: try names.map { try w.resolve(.string($0), in: "Tag", createMissing: true) })
            return r
        }
        _ = try store.batch { w in try w.upsert(try tag(w, ["vip", "retail"])) }
        XCTAssertEqual(try rows("SELECT Tag_id FROM Customer_tags ORDER BY Tag_id"), ["1", "2"])
        let outcomes = try store.batch { w in
            [try w.upsert(try tag(w, ["retail", "vip"])).outcome, try w.upsert(try customer(w, "Acme")).outcome]
        }
        XCTAssertEqual(outcomes, [.unchanged, .repeated], "order does not matter; not giving tags leaves them")
        XCTAssertEqual(try store.batch { w in try w.upsert(try tag(w, ["retail", "wholesale"])).outcome }, .updated)
        XCTAssertEqual(try rows("SELECT Tag_id FROM Customer_tags ORDER BY Tag_id"), ["2", "3"])
    }

    func order(_ w: BatchWriter, _ number: String, rows sums: [Int64]) throws {
        let o = try w.record("Order")
        o["number"] = .string(number)
        o["date"] = .date(Day(year: 2024, month: 1, day: 2)!)
        let id = try w.upsert(o).rowID
        try w.beginRows("OrderRow", of: id)
        let service = try w.resolve(.string("S"), in: "Service", createMissing: true)
        let row = try w.record("OrderRow")
        for s in sums {
            row.reset()
            row["sum"] = .decimal(DecimalNumber(units: Int128(s), scale: 2))
            row.setReference("service", to: service)
            try w.putRow(row, parent: id)
        }
        w.endRows("OrderRow", of: id)
    }

    func testADocumentsRowsAreReplacedByPositionKeepingIDsOfEqualRows() throws {
        try store.batch { w in
            try order(w, "A", rows: [100, 200, 300])
            try order(w, "B", rows: [5])
            try w.finishRows()
        }
        let before = try dumpStore(store.path)
        var counts = try store.batch { w -> [String: BatchCounts] in
            try order(w, "A", rows: [100, 200, 300])
            try order(w, "B", rows: [5])
            try w.finishRows()
            return w.counts
        }
        XCTAssertEqual(counts["OrderRow"], BatchCounts(unchanged: 4))
        XCTAssertEqual(counts["Order"], BatchCounts(unchanged: 2))
        XCTAssertEqual(try dumpStore(store.path), before, "an equal re-import writes nothing")

        counts = try store.batch { w -> [String: BatchCounts] in
            try order(w, "A", rows: [100, 250])     // second row changes in place, third goes
            try order(w, "B", rows: [5, 6])         // a row more
            try w.finishRows()
            return w.counts
        }
        XCTAssertEqual(counts["OrderRow"], BatchCounts(inserted: 1, updated: 1, unchanged: 2, deleted: 1))
        XCTAssertEqual(counts["Order"], BatchCounts(updated: 2), "a document whose rows changed is updated")
        XCTAssertEqual(try rows("SELECT id || ':' || order_id || ':' || sum FROM OrderRow ORDER BY id"),
                       ["1:1:100", "2:1:250", "4:2:5", "5:2:6"])

        counts = try store.batch { w -> [String: BatchCounts] in
            try order(w, "A", rows: [])
            try w.finishRows()
            return w.counts
        }
        XCTAssertEqual(counts["OrderRow"]?.deleted, 2, "a document given without rows loses its rows")
    }

    func testRowsOfADocumentMayComeInSeveralStretches() throws {
        try store.batch { w in
            try order(w, "A", rows: [1, 2, 3])
            try w.finishRows()
        }
        let before = try dumpStore(store.path)
        try store.batch { w in
            try order(w, "A", rows: [1])
            try order(w, "A", rows: [2, 3])
            try w.finishRows()
        }
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    func testADryRunWritesNothingAndAThrowingBatchNeither() throws {
        let before = try dumpStore(store.path)
        _ = try store.batch(dryRun: true) { w in try w.upsert(try customer(w, "Acme")) }
        XCTAssertEqual(try dumpStore(store.path), before)
        struct Stop: Error {}
        XCTAssertThrowsError(try store.batch { w in
            try w.upsert(try customer(w, "Acme"))
            throw Stop()
        })
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    func testARecordCanBeRolledBackAlone() throws {
        let counts = try store.batch { w -> [String: BatchCounts] in
            try w.upsert(try customer(w, "Keep"))
            try w.beginRecord()
            let r = try customer(w, "Drop")
            r.setLinks("tags", to: [try w.resolve(.string("new"), in: "Tag", createMissing: true)])
            try w.upsert(r)
            try w.rollbackRecord()
            try w.beginRecord()
            XCTAssertEqual(try w.upsert(try customer(w, "Drop")).outcome, .inserted, "the cache forgot the rolled-back row")
            try w.commitRecord()
            return w.counts
        }
        XCTAssertEqual(counts["Customer"]?.inserted, 2)
        XCTAssertNil(counts["Tag"])
        XCTAssertEqual(try rows("SELECT name FROM Customer ORDER BY id"), ["Keep", "Drop"])
        XCTAssertEqual(try rows("SELECT count(*) FROM Tag"), ["0"])
    }

    func testMissingRequiredKnowsDefaultsAndDerivedValues() throws {
        try store.batch { w in
            XCTAssertEqual(try w.missingRequired("Order", attributes: ["date"], references: []), ["number"])
            XCTAssertEqual(try w.missingRequired("OrderRow", attributes: ["price"], references: ["order", "service"]), [],
                           "sum comes from quantity × price")
            XCTAssertEqual(try w.missingRequired("OrderRow", attributes: ["quantity"], references: ["order"]), ["sum", "service"])
        }
    }

    func testIndexesDeferredForAnEmptyTableAreBackAfterwards() throws {
        let schema = try rows("SELECT name || ' ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name")
        try store.batch { w in try order(w, "A", rows: [1, 2]); try w.finishRows() }
        XCTAssertEqual(try rows("SELECT name || ' ' || sql FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL ORDER BY name"), schema)
        XCTAssertEqual(try rows("PRAGMA integrity_check"), ["ok"])
        XCTAssertEqual(try rows("PRAGMA foreign_key_check"), [])
    }

    /// The indexes the batch keeps up on table `table` right now (read inside the batch's transaction).
    func indexes(_ w: BatchWriter, on table: String) throws -> [String] {
        let s = try w.statement("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL ORDER BY name")
        s.bind(1, .text(table))
        defer { s.reset() }
        var names: [String] = []
        while try s.step() { if case .text(let n) = s.column(0) { names.append(n) } }
        return names
    }

    func testAnIndexStaysWhileItsKeysComeInOrderAndIsRebuiltWhenNot() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "Bolt"))
            try w.upsert(try customer(w, "Crane"))
            XCTAssertEqual(try indexes(w, on: "Customer"), ["Customer_code_unique", "Customer_name_unique"],
                           "names so far in order, codes all NULL: both kept up")
            try w.upsert(try customer(w, "Acme"))
            XCTAssertEqual(try indexes(w, on: "Customer"), ["Customer_code_unique"], "Acme sorts before Crane: dropped")
            try w.upsert(try customer(w, "Dune", code: "C1"))
            XCTAssertEqual(try indexes(w, on: "Customer"), ["Customer_code_unique"], "a code after NULLs is still in order")
        }
        XCTAssertEqual(try rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Customer' AND sql IS NOT NULL ORDER BY name"),
                       ["Customer_code_unique", "Customer_name_unique"])
        XCTAssertEqual(try rows("SELECT name FROM Customer INDEXED BY Customer_name_unique ORDER BY name"), ["Acme", "Bolt", "Crane", "Dune"])
        XCTAssertEqual(try rows("PRAGMA integrity_check"), ["ok"])
    }

    func testUniquenessHoldsInAnEmptyTableWhoseUniqueIndexIsDropped() throws {
        let before = try dumpStore(store.path)
        XCTAssertThrowsError(try store.batch { w in
            try w.upsert(try customer(w, "Bolt", code: "C2"))
            try w.upsert(try customer(w, "Acme", code: "C1"))
            XCTAssertEqual(try indexes(w, on: "Customer"), [], "names and codes out of order: both unique indexes dropped")
            XCTAssertThrowsError(try w.upsert(try customer(w, "Crane", code: "C2"))) { e in
                XCTAssertEqual("\(e)", "Customer.code \"C2\" already exists (Customer/1, written earlier in this batch)")
            }
            let other = try customer(w, "Acme", code: "C4")
            XCTAssertThrowsError(try w.upsert(other, by: "code")) { e in
                XCTAssertEqual("\(e)", "Customer.name \"Acme\" already exists (Customer/2, written earlier in this batch)")
            }
            throw CancellationError()
        })
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    func testAnIndexDroppedInARecordRolledBackIsKeptUp() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "Bolt"))
            try w.beginRecord()
            try w.upsert(try customer(w, "Acme"))
            try w.rollbackRecord()
            XCTAssertEqual(try indexes(w, on: "Customer"), ["Customer_code_unique", "Customer_name_unique"],
                           "the rollback undid the drop")
            try w.upsert(try customer(w, "Acme"))
        }
        XCTAssertEqual(try rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Customer' AND sql IS NOT NULL ORDER BY name"),
                       ["Customer_code_unique", "Customer_name_unique"])
        XCTAssertEqual(try rows("SELECT name FROM Customer ORDER BY id"), ["Bolt", "Acme"])
        XCTAssertEqual(try rows("PRAGMA integrity_check"), ["ok"])
    }

    /// The key cache of `entity`'s attribute `key`, as the batch has it now.
    func keyCache(_ w: BatchWriter, _ entity: String, _ key: String) throws -> KeyCache {
        let layout = try w.layout(named: entity)
        return try w.keyCache(layout, layout.attributeIndex[key]!)
    }

    func testAnEmptyTablesCacheKeepsNoKeysWhileTheyComeInOrder() throws {
        let counts = try store.batch { w -> [String: BatchCounts] in
            for i in 1...1000 { try w.upsert(try customer(w, String(format: "C%04d", i), info: "i\(i)")) }
            let names = try keyCache(w, "Customer", "name")
            XCTAssertFalse(names.keepsEntries, "1000 names in order: none kept")
            XCTAssertEqual(names.lastKey, .text("C1000"))
            XCTAssertEqual(try w.upsert(try customer(w, "C1000", info: "i1000")).outcome, .repeated, "the last key again")
            XCTAssertEqual(try w.upsert(try customer(w, "C0500", info: "i500")).outcome, .repeated, "an earlier key again")
            XCTAssertTrue(names.keepsEntries, "a key not past the last filled the cache from the table")
            XCTAssertThrowsError(try w.upsert(try customer(w, "C0007", info: "other"))) { e in
                XCTAssertEqual("\(e)", "Customer with name \"C0007\" was given earlier with other values (info)")
            }
            XCTAssertEqual(try w.upsert(try customer(w, "C0000")).outcome, .inserted, "a new key before the others")
            XCTAssertEqual(try w.upsert(try customer(w, "C1001")).outcome, .inserted)
            XCTAssertEqual(try w.resolve(.string("C0042"), in: "Customer"), 42, "references find every kept key")
            return w.counts
        }
        XCTAssertEqual(counts["Customer"]?.inserted, 1002)
        XCTAssertEqual(try rows("SELECT count(DISTINCT name) || ' ' || count(*) FROM Customer"), ["1002 1002"])
    }

    func testAnOutOfOrderReferenceIsFoundOrCreatedOnce() throws {
        try store.batch { w in
            XCTAssertEqual(try w.resolve(.string("Bolt"), in: "Customer", createMissing: true), 1)
            XCTAssertEqual(try w.resolve(.string("Crane"), in: "Customer", createMissing: true), 2)
            XCTAssertEqual(try w.resolve(.string("Bolt"), in: "Customer", createMissing: true), 1, "not created twice")
            XCTAssertEqual(try w.resolve(.string("Acme"), in: "Customer", createMissing: true), 3)
            XCTAssertEqual(try w.resolve(.string("Crane"), in: "Customer"), 2)
        }
        XCTAssertEqual(try rows("SELECT name FROM Customer ORDER BY id"), ["Bolt", "Crane", "Acme"])
    }

    func testUniquenessOfASecondAttributeHoldsWhileItsValuesComeInOrder() throws {
        let before = try dumpStore(store.path)
        XCTAssertThrowsError(try store.batch { w in
            try w.upsert(try customer(w, "Acme", code: "K1"))
            try w.upsert(try customer(w, "Bolt", code: "K2"))
            XCTAssertFalse(try keyCache(w, "Customer", "code").keepsEntries)
            XCTAssertThrowsError(try w.upsert(try customer(w, "Crane", code: "K2"))) { e in
                XCTAssertEqual("\(e)", "Customer.code \"K2\" already exists (Customer/2, written earlier in this batch)")
            }
            XCTAssertThrowsError(try w.upsert(try customer(w, "Dune", code: "K1"))) { e in
                XCTAssertEqual("\(e)", "Customer.code \"K1\" already exists (Customer/1, written earlier in this batch)")
            }
            throw CancellationError()
        })
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    func testACacheFilledInsideARolledBackRecordForgetsTheRecord() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "A", code: "K1"))
            try w.upsert(try customer(w, "B", code: "K2"))
            try w.beginRecord()
            try w.upsert(try customer(w, "C", code: "K3"))
            XCTAssertEqual(try w.upsert(try customer(w, "A", code: "K1")).outcome, .repeated, "fills the names inside the record")
            XCTAssertTrue(try keyCache(w, "Customer", "name").keepsEntries)
            try w.rollbackRecord()
            XCTAssertFalse(try keyCache(w, "Customer", "name").keepsEntries, "the fill went with the record")
            XCTAssertEqual(try w.upsert(try customer(w, "C", code: "K3")).outcome, .inserted, "C is not remembered")
            try w.beginRecord()
            XCTAssertEqual(try w.upsert(try customer(w, "D", code: "K4")).outcome, .inserted)
            try w.rollbackRecord()
            XCTAssertEqual(try w.upsert(try customer(w, "E", code: "K4")).outcome, .inserted, "K4 is free again")
            XCTAssertEqual(try w.upsert(try customer(w, "D", code: "K5")).outcome, .inserted, "so is D, before the last name")
        }
        XCTAssertEqual(try rows("SELECT name || ' ' || code FROM Customer ORDER BY id"),
                       ["A K1", "B K2", "C K3", "E K4", "D K5"])
        XCTAssertEqual(try rows("PRAGMA integrity_check"), ["ok"])
    }

    func testAUniquenessCheckAfterARolledBackFillSeesOnlyWhatStayed() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "A", code: "K1"))
            try w.beginRecord()
            try w.upsert(try customer(w, "B", code: "K9"))
            try w.upsert(try customer(w, "C", code: "K0"))
            XCTAssertTrue(try keyCache(w, "Customer", "code").keepsEntries, "K0 after K9 filled the codes, K9 among them")
            try w.rollbackRecord()
            XCTAssertEqual(try w.upsert(try customer(w, "D", code: "K9")).outcome, .inserted, "K9 went with the record")
            XCTAssertEqual(try w.upsert(try customer(w, "E", code: "K0")).outcome, .inserted)
        }
        XCTAssertEqual(try rows("SELECT name || ' ' || code FROM Customer ORDER BY id"), ["A K1", "D K9", "E K0"])
    }

    /// A constraint only SQLite checks (a one-to-one relationship's unique foreign key) fails the batch, and the
    /// rows of the failing multi-row INSERT (OR FAIL keeps those before the failing one) go with the transaction.
    func testAConstraintOnlySQLiteChecksFailsTheWholeBatch() throws {
        let model = try ObjectModel(entities: [
            Entity("Seat", kind: .directory, naturalKey: "name", attributes: [EntityAttribute("name", .string, required: true, unique: true)],
                   relationships: [EntityRelationship("guest", to: "Guest", inverse: "seat", deleteRule: .nullify)]),
            Entity("Guest", kind: .directory, naturalKey: "name", attributes: [EntityAttribute("name", .string, required: true, unique: true)],
                   relationships: [EntityRelationship("seat", to: "Seat", inverse: "guest", deleteRule: .nullify)]),
        ])
        let store = try Store.create(at: dir.file("seats.sqlite"), model: model)
        try store.batch { w in
            let guest = try w.record("Guest")
            guest["name"] = .string("Ada")
            guest.setReference("seat", to: try w.resolve(.string("1A"), in: "Seat", createMissing: true))
            try w.upsert(guest)
        }
        let before = try dumpStore(store.path)
        XCTAssertThrowsError(try store.batch { w in
            let seat = try w.resolve(.string("1A"), in: "Seat")
            for name in ["Bob", "Cy"] {
                let guest = try w.record("Guest")
                guest["name"] = .string(name)
                if name == "Cy" { guest.setReference("seat", to: seat) }
                try w.upsert(guest)
            }
        }) { e in
            XCTAssertTrue("\(e)".contains("UNIQUE constraint failed"), "\(e)")
        }
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    /// A row table's unique attribute, in a table that was empty: checked against the key cache, which sees the rows
    /// written before in this batch (its unique index may be dropped until the end).
    func testAUniqueAttributeOfRowsIsCheckedWithinTheBatch() throws {
        let model = try ObjectModel(entities: [
            Entity("Invoice", kind: .document, naturalKey: "number", attributes: [EntityAttribute("number", .string, required: true, unique: true)],
                   relationships: [EntityRelationship("lines", to: "Line", inverse: "invoice", toMany: true, deleteRule: .cascade)]),
            Entity("Line", kind: .rows, attributes: [EntityAttribute("serial", .string, unique: true)],
                   relationships: [EntityRelationship("invoice", to: "Invoice", inverse: "lines", required: true, deleteRule: .nullify)]),
        ])
        let store = try Store.create(at: dir.file("invoices.sqlite"), model: model)
        try store.batch { w in
            let invoice = try w.record("Invoice")
            invoice["number"] = .string("I-1")
            let id = try w.upsert(invoice).rowID
            let line = try w.record("Line")
            for serial in ["S2", "S1"] {
                line.reset()
                line["serial"] = .string(serial)
                try w.putRow(line, parent: id)
            }
            // A row table's unique attribute is its line key: the same line again is a repeat, the same key
            // for another document a conflict.
            line.reset()
            line["serial"] = .string("S2")
            XCTAssertEqual(try w.putRow(line, parent: id), .repeated)
            let other = try w.record("Invoice")
            other["number"] = .string("I-2")
            let otherID = try w.upsert(other).rowID
            line.reset()
            line["serial"] = .string("S2")
            XCTAssertThrowsError(try w.putRow(line, parent: otherID)) { e in
                XCTAssertEqual("\(e)", "Line with serial \"S2\" was given earlier with other values (invoice)")
            }
        }
        XCTAssertEqual(try queryStore(store.path, "SELECT serial FROM Line ORDER BY id"), ["S2", "S1"])
        XCTAssertEqual(try queryStore(store.path, "SELECT name FROM sqlite_master WHERE name = 'Line_serial_unique'"), ["Line_serial_unique"])
    }

    /// The order `followIndexes` assumes is SQLite's own: random values of every storage class, sorted both ways.
    /// (Text with a NUL byte is left out: the store's text ends at a NUL, and the importer refuses it. A wrong
    /// guess about order would cost only speed: the index would be kept up with an insert out of order.)
    func testIndexOrderIsSQLitesOrder() throws {
        var rng = SystemRandomNumberGenerator()
        let texts = ["", "a", "A", "ab", "a b", "é", "e\u{301}", "Z", "zz", "ß", "日本", "😀", "10", "9"]
        var values: [StoredValue] = [.null]
        for _ in 0..<300 {
            switch Int.random(in: 0..<5, using: &rng) {
            case 0: values.append(.integer(Int64.random(in: -5...5, using: &rng)))
            case 1: values.append(.integer(Int64.random(in: Int64.min...Int64.max, using: &rng)))
            case 2: values.append(.real([-0.5, 0, 2.5, 1e300, -1e300, 3][Int.random(in: 0..<6, using: &rng)]))
            case 3: values.append(.text(texts.randomElement(using: &rng)! + texts.randomElement(using: &rng)!))
            default: values.append(.blob(Data((0..<Int.random(in: 0..<4, using: &rng)).map { _ in UInt8.random(in: 0...255, using: &rng) })))
            }
        }
        let db = try DatabaseQueue()
        let sqliteOrder = try db.write { db -> [Int] in
            try db.execute(sql: "CREATE TABLE t(v)")
            for (i, v) in values.enumerated() {
                let dbValue: DatabaseValueConvertible? = switch v {
                case .null: nil
                case .integer(let x): x
                case .real(let x): x
                case .text(let x): x
                case .blob(let x): x
                }
                try db.execute(sql: "INSERT INTO t(rowid, v) VALUES (?, ?)", arguments: [i + 1, dbValue])
            }
            try db.execute(sql: "CREATE INDEX t_v ON t(v)")
            return try Int.fetchAll(db, sql: "SELECT rowid - 1 FROM t INDEXED BY t_v ORDER BY v, rowid")
        }
        let ours = values.indices.sorted { a, b in
            let o = StoredValue.indexOrder(values[a], values[b])
            return o != 0 ? o < 0 : a < b
        }
        XCTAssertEqual(ours, sqliteOrder)
    }

    func testTheImportHistory() throws {
        try store.batch { w in
            try w.upsert(try customer(w, "Acme"))
            try w.recordImport(ImportJournalEntry(file: "c.csv", sha256: "ab", startedAt: Timestamp(secondsSinceEpoch: 0),
                                                  seconds: 0.5, entity: "Customer", records: 1, rejected: 0, counts: w.counts))
        }
        let history = try store.importHistory()
        XCTAssertEqual(history.map(\.file), ["c.csv"])
        XCTAssertEqual(history.first?.total, BatchCounts(inserted: 1))
        XCTAssertEqual(history.first?.startedAt.description, "1970-01-01T00:00:00Z")
    }
}
