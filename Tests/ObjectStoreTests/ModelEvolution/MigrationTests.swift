import XCTest
import TestSupport
@testable import ObjectStore

/// Stores written with one model, opened with another.
final class MigrationTests: XCTestCase {
    var dir: TemporaryDirectory!
    var path: String { dir.file("store.sqlite") }

    /// Version 1: Customer (name, code, fax) and Order (number, total) with Customer.orders.
    static let v1 = """
        entities:
          Customer:
            kind: directory
            attributes:
              name: { type: string }
              code: { type: string }
              fax:  { type: string }
            relationships:
              orders: { to: Order, inverse: customer, many: yes, delete: deny }
          Order:
            kind: document
            attributes:
              number: { type: string }
              total:  { type: decimal, scale: 2 }
        """

    static let empty = try! ObjectModel(entities: [])

    func model(_ yaml: String) throws -> ObjectModel { try ModelFile.parse(yaml, name: "model.yaml", extending: Self.empty) }

    override func setUpWithError() throws {
        dir = TemporaryDirectory()
        let store = try Store.create(at: path, model: try model(Self.v1))
        let c = ObjectContext(store: store)
        for (name, code, fax) in [("Acme", "1", "555"), ("Bolt", "2", nil), ("Cobb", "x3", "777")] as [(String, String, String?)] {
            let o = try c.insert("Customer")
            try c.apply([Assignment(key: "name", value: name), Assignment(key: "code", value: code), Assignment(key: "fax", value: fax ?? "")], to: o)
        }
        let order = try c.insert("Order")
        try c.apply([Assignment(key: "number", value: "A-1"), Assignment(key: "total", value: "12.50"), Assignment(key: "customer", value: "Acme")], to: order)
        try c.save()
    }

    func v1(replacing old: String, with new: String) -> String {
        precondition(Self.v1.contains(old), old)
        return Self.v1.replacingOccurrences(of: old, with: new)
    }

    func testAdditiveChangesMigrateOnOpenAfterABackup() throws {
        let v2 = try model(v1(replacing: "      fax:  { type: string }", with: """
                  fax:  { type: string }
                  vat:  { type: string, unique: true }
                  tier: { type: integer, default: 1, required: true }
            """) + """

              Bank:
                kind: directory
                attributes: { name: { type: string } }
                relationships:
                  customers: { to: Customer, inverse: bank, many: yes }
            """)
        let store = try Store.open(at: path, model: v2)
        let migration = try XCTUnwrap(store.migration)
        XCTAssertEqual(migration.plan.changes, ["add attribute Customer.vat", "add attribute Customer.tier", "add relationship Customer.bank",
                                                "add index Customer_bank_id", "add index Customer_vat_unique", "add entity Bank"])
        XCTAssertTrue(migration.plan.dataLoss.isEmpty)
        let backup = try XCTUnwrap(migration.backupPath)
        XCTAssertTrue(FileManager.default.fileExists(atPath: backup))
        XCTAssertEqual(try queryStore(backup, "SELECT COUNT(*) FROM Customer"), ["3"], "the backup is the store before")
        XCTAssertEqual(try queryStore(path, "SELECT tier FROM Customer"), ["1", "1", "1"], "existing objects get the default")
        XCTAssertEqual(try queryStore(path, "SELECT name FROM Customer ORDER BY id"), ["Acme", "Bolt", "Cobb"])
        let c = ObjectContext(store: store)
        let bank = try c.insert("Bank"); bank["name"] = .string("First")
        try c.resolve("Customer/1", in: "Customer").setObject(bank, for: "bank")
        try c.save()
        XCTAssertNil(try Store.open(at: path, model: v2).migration, "once migrated, the store opens as it is")
        XCTAssertEqual(try queryStore(path, "PRAGMA integrity_check"), ["ok"])
    }

    func testRemovingAnAttributeIsRefusedUntilAccepted() throws {
        let v2 = try model(v1(replacing: "      fax:  { type: string }\n", with: ""))
        let before = try dumpStore(path)
        XCTAssertThrowsError(try Store.open(at: path, model: v2)) { error in
            XCTAssertEqual("\(error)", """
                \(path): the model changed in ways that could lose data, so the store was not migrated
                \(path): would lose data: remove attribute Customer.fax (2 values)
                \(path): to accept this, migrate allowing data loss (a backup copy is kept)
                """)
        }
        XCTAssertEqual(try dumpStore(path), before)
        let store = try Store.openForMigration(at: path, model: v2)
        let plan = try store.migrationPlan(MigrationOptions(allowDataLoss: true))
        XCTAssertEqual(plan.steps.map(\.sql), [
            #"CREATE TABLE "_bk_new_Customer" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "code" TEXT, "fax" TEXT) STRICT"#.replacingOccurrences(of: #", "fax" TEXT"#, with: ""),
            #"INSERT INTO "_bk_new_Customer" ("id", "name", "code") SELECT "id", "name", "code" FROM "Customer""#,
            #"DROP TABLE "Customer""#,
            #"ALTER TABLE "_bk_new_Customer" RENAME TO "Customer""#,
            #"CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name")"#,
        ])
        try store.applyMigration(plan)
        XCTAssertEqual(try queryStore(path, "SELECT name || '/' || code FROM Customer ORDER BY id"), ["Acme/1", "Bolt/2", "Cobb/x3"])
        XCTAssertEqual(try queryStore(path, "SELECT COUNT(*) FROM \"Order\" WHERE customer_id = 1"), ["1"], "references survive the rebuild")
        XCTAssertEqual(try queryStore(path, "PRAGMA foreign_key_check"), [])
        XCTAssertNil(try Store.open(at: path, model: v2).migration)
    }

    func testRetypingNeedsEveryValueToConvert() throws {
        let v2 = try model(v1(replacing: "code: { type: string }", with: "code: { type: integer }"))
        let store = try Store.openForMigration(at: path, model: v2)
        let plan = try store.migrationPlan(MigrationOptions(allowDataLoss: true))
        XCTAssertEqual(plan.dataLoss, ["change Customer.code from String to Integer"])
        XCTAssertEqual(plan.blockers, ["Customer.code: 1 value is not Integer (\"x3\" in Customer/3)"])
        XCTAssertFalse(plan.canApply(MigrationOptions(allowDataLoss: true)))
        try executeSQL(path, "UPDATE Customer SET code = '3' WHERE id = 3")
        let fixed = try store.migrationPlan(MigrationOptions(allowDataLoss: true))
        XCTAssertTrue(fixed.blockers.isEmpty)
        try store.applyMigration(fixed)
        XCTAssertEqual(try queryRows(path, "SELECT typeof(code), code FROM Customer ORDER BY id"), [["integer", "1"], ["integer", "2"], ["integer", "3"]])
    }

    func testMakingAnAttributeRequiredNeedsValuesForTheNulls() throws {
        let v2 = try model(v1(replacing: "fax:  { type: string }", with: "fax:  { type: string, required: true }"))
        XCTAssertThrowsError(try Store.open(at: path, model: v2)) { error in
            XCTAssertTrue("\(error)".contains("blocked: Customer.fax is now required, but 1 object has none (Customer/2) — set it, or give a default"), "\(error)")
        }
        let store = try Store.openForMigration(at: path, model: v2)
        let options = MigrationOptions(defaults: ["Customer.fax": "none"], allowDataLoss: true)
        let plan = try store.migrationPlan(options)
        XCTAssertEqual(plan.blockers, [])
        XCTAssertEqual(plan.dataLoss, ["Customer.fax becomes required: 1 object without one get \"none\""])
        try store.applyMigration(plan)
        XCTAssertEqual(try queryStore(path, "SELECT fax FROM Customer ORDER BY id"), ["555", "none", "777"])
    }

    func testUniquenessIsBlockedByDuplicates() throws {
        try executeSQL(path, "UPDATE Customer SET fax = '555' WHERE id = 3")
        let v2 = try model(v1(replacing: "fax:  { type: string }", with: "fax:  { type: string, unique: true }"))
        XCTAssertThrowsError(try Store.open(at: path, model: v2)) { error in
            XCTAssertTrue("\(error)".contains("blocked: Customer.fax becomes unique, but 2 objects share \"555\" (Customer/1, Customer/3)"), "\(error)")
        }
        try executeSQL(path, "UPDATE Customer SET fax = '556' WHERE id = 3")
        XCTAssertEqual(try Store.open(at: path, model: v2).migration?.plan.changes, ["Customer.fax becomes unique", "add index Customer_fax_unique"])
    }

    func testRenamesKeepTheData() throws {
        let v2 = try model(v1(replacing: "fax:  { type: string }", with: "telefax: { type: string }"))
        let store = try Store.openForMigration(at: path, model: v2)
        let plan = try store.migrationPlan(MigrationOptions(renames: ["Customer.fax": "telefax"]))
        XCTAssertEqual(plan.steps.map(\.sql), [#"ALTER TABLE "Customer" RENAME COLUMN "fax" TO "telefax""#])
        XCTAssertTrue(plan.isAutomatic)
        try store.applyMigration(plan)
        XCTAssertEqual(try queryStore(path, "SELECT telefax FROM Customer ORDER BY id"), ["555", nil, "777"])
    }

    func testADifferentDeleteRuleRebuildsTheReferencingTable() throws {
        let v2 = try model(v1(replacing: "delete: deny", with: "delete: cascade"))
        let store = try Store.open(at: path, model: v2)
        XCTAssertEqual(store.migration?.plan.changes, ["Order.customer changes its constraints"])
        let schema = try queryStore(path, "SELECT sql FROM sqlite_master WHERE name = 'Order'")
        XCTAssertTrue(schema[0]!.contains("ON DELETE CASCADE"), "\(schema)")
        XCTAssertEqual(try queryStore(path, "SELECT number FROM \"Order\""), ["A-1"])
    }

    func testRulesAndSortsChangeOnlyTheRecordedModel() throws {
        let v2 = try model(Self.v1 + "\n    sort: number desc\n    rules:\n      - { where: \"total >= 0\", message: \"no negative totals\" }\n")
        let store = try Store.open(at: path, model: v2)
        // No SQL and no backup copy; but the recorded model is written, which the command says (attack 27, finding 11).
        XCTAssertEqual(store.migration?.plan.steps.count, 0, "no SQL was needed")
        XCTAssertNil(store.migration?.backupPath)
        XCTAssertEqual(store.migration?.plan.summary, "add rule to Order: no negative totals")
        XCTAssertEqual(try queryStore(path, "SELECT value FROM _bookkeeper_meta WHERE key = 'model_hash'"), [v2.versionHash])
    }

    func testAReadOnlyStoreIsReadIfNoSchemaChangeIsNeeded() throws {
        try executeSQL(path, "UPDATE _bookkeeper_meta SET value = '2' WHERE key = 'format'")
        XCTAssertThrowsError(try Store.open(at: path, model: try model(Self.v1))) { error in
            XCTAssertEqual("\(error)", "\(path): written by a newer version of bookkeeper (store format 2; this version reads up to 1) — it can only be read, by reports and fetches")
        }
        let store = try Store.open(at: path, model: try model(Self.v1), readOnly: true)
        XCTAssertEqual(try ObjectContext(store: store).count(of: "Customer"), 3)
        let v2 = try model(v1(replacing: "      fax:  { type: string }\n", with: "      fax:  { type: string }\n      vat:  { type: string }\n"))
        XCTAssertThrowsError(try Store.open(at: path, model: v2, readOnly: true)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(path): the store was written with another model and needs migrating, but it is opened read-only"), "\(error)")
        }
    }
}
