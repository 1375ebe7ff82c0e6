import Foundation
import TestSupport
import XCTest

/// `check` sees what another tool did (issue 25 §3): each hand edit made with the `sqlite3` shell on a store the
/// binary made, the exact lines `check` prints for it, and — for the edits that change what writes do (a trigger on
/// the model's tables, a unique index of the model missing or changed) — every command that writes refused (65)
/// before it does anything, the store's file byte for byte as it was and no write-ahead log written.
final class SchemaTamperTests: StoreCommandTestCase {
    /// The built-in model and an entity with doubles (the built-in model has none).
    static let model = """
        entities:
          Parcel:
            kind: directory
            key: code
            attributes:
              code:   { type: string, required: true, unique: true }
              weight: { type: double }
              volume: { type: double, required: true }
        """

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", Self.model)
        ok("init")
        ok("add", "Customer", "name=Acme")
        ok("add", "Service", "name=Delivery")
        ok("add", "Order", "number=A-1", "date=2024-03-01", "customer=Acme")
        ok("add", "OrderRow", "order=A-1", "service=Delivery", "price=10")
        ok("add", "OrderRow", "order=A-1", "service=Delivery", "price=20")
        ok("add", "Parcel", "code=P1", "weight=1.5", "volume=2")
        dir.write("customers.csv", "name\nBolt\n")
    }

    /// Runs SQL on the store with the sqlite3 shell, as another tool would.
    func sqlite3(_ sql: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = try? runTool(["/usr/bin/sqlite3", store, sql])
        XCTAssertEqual(r?.status, 0, "sqlite3 \(sql): \(r?.error ?? "could not run")", file: file, line: line)
    }

    /// `check`'s lines without the `bookkeeper: STORE: ` before each, and its status.
    func check() -> (lines: [String], status: Int32) {
        let r = bk("check")
        let prefix = "bookkeeper: \(store): "
        let lines = r.stderr.split(separator: "\n").map { $0.hasPrefix(prefix) ? String($0.dropFirst(prefix.count)) : String($0) }
        return (lines, r.status)
    }

    func assertCheck(_ expected: [String], file: StaticString = #filePath, line: UInt = #line) {
        let (lines, status) = check()
        XCTAssertEqual(status, 65, file: file, line: line)
        XCTAssertEqual(lines, expected + ["\(expected.count) problem\(expected.count == 1 ? "" : "s") found"], file: file, line: line)
    }

    /// Every command that writes is refused (65) naming `name` and pointing to `check`, before it does anything.
    func assertWritesRefused(naming name: String, readsWork: Bool = true, file: StaticString = #filePath, line: UInt = #line) {
        let writes: [[String]] = [
            ["set", "Order", "A-1", "paid=yes"], ["add", "Customer", "name=Bolt"], ["import", "Customer", "customers.csv"],
            ["delete", "Order", "A-1"], ["migrate"], ["migrate", "--dry-run"],
        ]
        for args in writes {
            let before = fileBytes(store)
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)", file: file, line: line)
            XCTAssertTrue(r.stderr.contains(name), "\(args): \(r.stderr)", file: file, line: line)
            XCTAssertTrue(r.stderr.hasSuffix("the store's schema is not the model's (another tool changed it), so bookkeeper writes "
                                             + "nothing to it until that is undone; nothing was changed — `bookkeeper check` lists every difference\n"),
                          "\(args): \(r.stderr)", file: file, line: line)
            XCTAssertEqual(fileBytes(store), before, "\(args): the store's file is byte for byte as it was", file: file, line: line)
            XCTAssertEqual(fileSize(store + "-wal"), 0, "\(args): nothing was written to a write-ahead log", file: file, line: line)
        }
        // Reads are left alone: they answer from the data as it is (unless they must migrate the store first).
        if readsWork { XCTAssertEqual(bk("show", "Order", "A-1").status, 0, file: file, line: line) }
    }

    func assertWritesAllowed(file: StaticString = #filePath, line: UInt = #line) {
        let r = bk("set", "Order", "A-1", "paid=yes")
        XCTAssertEqual(r.status, 0, "a difference that does not change what writes do does not block them: \(r)", file: file, line: line)
    }

    static let blocked = "; bookkeeper writes nothing to the store until this is undone"

    // MARK: The catalogue

    func testADroppedUniqueIndexIsReportedAndBlocksWrites() {
        sqlite3(#"DROP INDEX "Customer_name_unique""#)
        assertCheck([#"schema: index "Customer_name_unique" is missing, so nothing keeps Customer.name unique (the model's: CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name"))"# + Self.blocked])
        assertWritesRefused(naming: #"index "Customer_name_unique" is missing"#)
    }

    func testAUniqueIndexMadeNotUniqueIsReportedAndBlocksWrites() {
        sqlite3(#"DROP INDEX "Customer_name_unique"; CREATE INDEX "Customer_name_unique" ON "Customer"("name")"#)
        assertCheck([#"schema: index "Customer_name_unique" is CREATE INDEX "Customer_name_unique" ON "Customer"("name") where the model's is CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name"), which keeps Customer.name unique"# + Self.blocked])
        assertWritesRefused(naming: #"index "Customer_name_unique" is CREATE INDEX"#)
    }

    func testAUniqueIndexOnOtherColumnsIsReportedAndBlocksWrites() {
        sqlite3(#"DROP INDEX "Service_code_unique"; CREATE UNIQUE INDEX "Service_code_unique" ON "Service"("code", "info")"#)
        assertCheck([#"schema: index "Service_code_unique" is CREATE UNIQUE INDEX "Service_code_unique" ON "Service"("code", "info") where the model's is CREATE UNIQUE INDEX "Service_code_unique" ON "Service"("code"), which keeps Service.code unique"# + Self.blocked])
        assertWritesRefused(naming: #"index "Service_code_unique""#)
    }

    func testAnIndexOnOtherColumnsIsReportedButWritesGoOn() {
        sqlite3(#"DROP INDEX "Order_date_index"; CREATE INDEX "Order_date_index" ON "Order"("date", "paid")"#)
        assertCheck([#"schema: index "Order_date_index" is CREATE INDEX "Order_date_index" ON "Order"("date", "paid") where the model's is CREATE INDEX "Order_date_index" ON "Order"("date")"#])
        assertWritesAllowed()
    }

    func testADroppedIndexThatIsNotUniqueIsReportedButWritesGoOn() {
        sqlite3(#"DROP INDEX "OrderRow_order_id""#)
        assertCheck([#"schema: index "OrderRow_order_id" is missing (the model's: CREATE INDEX "OrderRow_order_id" ON "OrderRow"("order_id"))"#])
        assertWritesAllowed()
    }

    func testAnIndexAddedForSpeedIsReportedButWritesGoOn() {
        sqlite3("CREATE INDEX speed ON Customer(info)")
        assertCheck([#"schema: index "speed" is not the model's (CREATE INDEX speed ON Customer(info))"#])
        assertWritesAllowed()
    }

    func testATriggerOnAModelTableIsReportedAndBlocksWrites() {
        sqlite3("CREATE TRIGGER audit AFTER INSERT ON Customer BEGIN SELECT 1; END")
        assertCheck([#"schema: trigger "audit" on "Customer" is not the model's: it would run with bookkeeper's writes (drop it: DROP TRIGGER "audit")"# + Self.blocked])
        assertWritesRefused(naming: #"trigger "audit" on "Customer""#)
    }

    func testATriggerOnAnotherToolsTableIsReportedButWritesGoOn() {
        sqlite3("CREATE TABLE notes(x TEXT); CREATE TRIGGER stamp AFTER INSERT ON notes BEGIN SELECT 1; END")
        assertCheck([#"schema: table "notes" is not the model's"#, #"schema: trigger "stamp" on "notes" is not the model's"#])
        assertWritesAllowed()
    }

    func testAViewIsReportedButWritesGoOn() {
        sqlite3(#"CREATE VIEW unpaid AS SELECT * FROM "Order" WHERE paid = 0"#)
        assertCheck([#"schema: view "unpaid" is not the model's"#])
        assertWritesAllowed()
    }

    func testAnExtraTableIsReportedButSQLitesOwnTablesAreNot() {
        // AUTOINCREMENT makes sqlite_sequence and ANALYZE sqlite_stat1: SQLite's own, not another tool's schema.
        sqlite3("CREATE TABLE scratch(id INTEGER PRIMARY KEY AUTOINCREMENT, x); INSERT INTO scratch(x) VALUES (1); ANALYZE")
        assertCheck([#"schema: table "scratch" is not the model's"#])
        assertWritesAllowed()
    }

    func testADroppedColumnIsReportedAndTheOtherChecksStillRun() {
        sqlite3("ALTER TABLE Customer DROP COLUMN info; UPDATE Parcel SET weight = 9e999")
        assertCheck(["schema: column Customer.info is missing", "Parcel/1.weight holds a non-finite number (inf)"])
    }

    func testAnAddedColumnIsReported() {
        sqlite3("ALTER TABLE Customer ADD COLUMN fax TEXT")
        assertCheck(["schema: column Customer.fax is not the model's"])
        assertWritesAllowed()
    }

    func testAColumnWithOtherConstraintsIsReported() {
        // Rebuilt the way SQLite recommends, without NOT NULL on Tag.name.
        sqlite3("""
            CREATE TABLE "Tag_new" ("id" INTEGER PRIMARY KEY, "name" TEXT) STRICT; INSERT INTO "Tag_new" SELECT * FROM "Tag";
            DROP TABLE "Tag"; ALTER TABLE "Tag_new" RENAME TO "Tag"; CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")
            """)
        assertCheck(["schema: column Tag.name is TEXT where the model's is TEXT NOT NULL"])
    }

    func testATableThatIsNotStrictIsReported() {
        sqlite3("""
            CREATE TABLE "Tag_new" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL); INSERT INTO "Tag_new" SELECT * FROM "Tag";
            DROP TABLE "Tag"; ALTER TABLE "Tag_new" RENAME TO "Tag"; CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")
            """)
        assertCheck([#"schema: table "Tag" is not STRICT where the model's is STRICT"#])
    }

    func testADroppedTableIsReported() {
        sqlite3(#"DROP TABLE "Customer_tags""#)
        assertCheck([#"schema: table "Customer_tags" is missing"#,
                     #"schema: index "Customer_tags_Tag_id" is missing (the model's: CREATE INDEX "Customer_tags_Tag_id" ON "Customer_tags"("Tag_id", "Customer_id"))"#])
    }

    func testMinusInfinityIsReported() {
        sqlite3("UPDATE Parcel SET volume = -9e999")
        assertCheck(["Parcel/1.volume holds a non-finite number (-inf)"])
    }

    func testSQLiteStoresNaNAsNull() {
        // inf - inf is NaN, which SQLite stores as NULL: a required double refuses it, an optional one holds no value.
        let r = try? runTool(["/usr/bin/sqlite3", store, "UPDATE Parcel SET volume = 9e999 - 9e999"])
        XCTAssertNotEqual(r?.status, 0)
        XCTAssertTrue(r?.error.contains("NOT NULL constraint failed: Parcel.volume") == true, r?.error ?? "")
        sqlite3("UPDATE Parcel SET weight = 9e999 - 9e999")
        XCTAssertEqual(try queryStore(store, "SELECT typeof(weight) FROM Parcel"), ["null"])
        XCTAssertEqual(check().status, 0)
    }

    func testTextWithANulIsReported() {
        sqlite3("UPDATE Customer SET info = CAST(x'410042' AS TEXT)")
        assertCheck([#"Customer/1.info holds text with a NUL character, which is shown only up to it ("A")"#])
    }

    func testAStoreThatNeedsMigratingIsCheckedAgainstTheModelItRecords() throws {
        // Yesterday's store with a trigger: it cannot be migrated (that writes), so `check` compares it with the
        // model it was made with, and every command that would migrate it is refused, the file untouched.
        try FileManager.default.removeItem(atPath: store)
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("Tests/Fixtures/v1-store.sqlite").path, toPath: store)
        sqlite3(#"CREATE TRIGGER wipe AFTER UPDATE ON "Order" BEGIN DELETE FROM "OrderRow" WHERE "order_id" = NEW."id"; END"#)
        assertCheck([#"schema: trigger "wipe" on "Order" is not the model's: it would run with bookkeeper's writes (drop it: DROP TRIGGER "wipe")"# + Self.blocked])
        assertWritesRefused(naming: #"trigger "wipe" on "Order""#, readsWork: false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"), "the store in rollback-journal mode was never opened to write")
        sqlite3(#"DROP TRIGGER "wipe""#)
        XCTAssertEqual(check().status, 0, "once undone, the store migrates and checks clean")
        ok("set", "Order", "A-1", "paid=yes")
    }

    // MARK: Regressions (issue 25)

    func testCheckFindsARepeatedNaturalKeyAfterTheUniqueIndexWasDropped() {
        sqlite3(#"DROP INDEX "Customer_name_unique"; INSERT INTO "Customer" ("name") VALUES ('Acme'); "#
                + #"DROP INDEX "Parcel_code_unique"; INSERT INTO "Parcel" ("code", "volume") VALUES ('P1', 1), ('P1', 2)"#)
        assertCheck([
            #"schema: index "Customer_name_unique" is missing, so nothing keeps Customer.name unique (the model's: CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name"))"# + Self.blocked,
            #"schema: index "Parcel_code_unique" is missing, so nothing keeps Parcel.code unique (the model's: CREATE UNIQUE INDEX "Parcel_code_unique" ON "Parcel"("code"))"# + Self.blocked,
            #"Customer.name (the natural key) must be unique, but 2 objects share "Acme" (Customer/1, Customer/2)"#,
            #"Parcel.code (the natural key) must be unique, but 3 objects share "P1" (Parcel/1, Parcel/2, Parcel/3)"#,
        ])
    }

    func testARepeatedValueOfAUniqueAttributeIsReported() {
        sqlite3(#"DROP INDEX "Customer_code_unique"; UPDATE "Customer" SET "code" = 'C1'; INSERT INTO "Customer" ("name", "code") VALUES ('Bolt', 'C1')"#)
        let (lines, status) = check()
        XCTAssertEqual(status, 65)
        XCTAssertTrue(lines.contains(#"Customer.code must be unique, but 2 objects share "C1" (Customer/1, Customer/2)"#), "\(lines)")
    }

    func testAForeignTriggerIsReportedAndWritesAreRefused() throws {
        // Someone's trigger deletes an order's rows when the order changes: `set Order A-1 paid=yes` deleted them
        // and exited 0.
        sqlite3(#"CREATE TRIGGER wipe_rows AFTER UPDATE ON "Order" BEGIN DELETE FROM "OrderRow" WHERE "order_id" = NEW."id"; END"#)
        assertCheck([#"schema: trigger "wipe_rows" on "Order" is not the model's: it would run with bookkeeper's writes (drop it: DROP TRIGGER "wipe_rows")"# + Self.blocked])
        let before = fileBytes(store)
        let r = bk("set", "Order", "A-1", "paid=yes")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, """
            bookkeeper: \(store): trigger "wipe_rows" on "Order" is not the model's: it would run with bookkeeper's writes (drop it: DROP TRIGGER "wipe_rows")
            bookkeeper: \(store): the store's schema is not the model's (another tool changed it), so bookkeeper writes nothing to it until that is undone; nothing was changed — `bookkeeper check` lists every difference

            """)
        XCTAssertEqual(fileBytes(store), before)
        XCTAssertEqual(try queryStore(store, #"SELECT COUNT(*) FROM "OrderRow""#), ["2"], "the order's rows are still there")
        XCTAssertEqual(try queryStore(store, #"SELECT "paid" FROM "Order""#), ["0"])
        assertWritesRefused(naming: #"trigger "wipe_rows" on "Order""#)
    }

    func testCheckFindsTextThatIsNotUTF8() {
        sqlite3("""
            UPDATE Customer SET info = CAST(x'ff41' AS TEXT); INSERT INTO Tag (name) VALUES (CAST(x'c0af' AS TEXT)), ('ok'),
            (CAST(x'eda080' AS TEXT)), (CAST(x'f4908080' AS TEXT)), (CAST(x'e282' AS TEXT)), (CAST(x'c3a9e282ac' AS TEXT))
            """)
        assertCheck([
            #"Customer/1.info holds text that is not valid UTF-8 (the bytes FF 41), shown as "\#u{FFFD}A""#,
            // An overlong form, a surrogate, past U+10FFFF, a sequence cut short; "é€" is UTF-8 and not listed.
            #"Tag/1.name holds text that is not valid UTF-8 (the bytes C0 AF), shown as "\#u{FFFD}\#u{FFFD}""#,
            #"Tag/3.name holds text that is not valid UTF-8 (the bytes ED A0 80), shown as "\#u{FFFD}\#u{FFFD}\#u{FFFD}""#,
            #"Tag/4.name holds text that is not valid UTF-8 (the bytes F4 90 80 80), shown as "\#u{FFFD}\#u{FFFD}\#u{FFFD}\#u{FFFD}""#,
            #"Tag/5.name holds text that is not valid UTF-8 (the bytes E2 82), shown as "\#u{FFFD}""#,
        ])
    }

    func testCheckFindsNonFiniteDoubles() {
        sqlite3("UPDATE Parcel SET weight = 9e999; INSERT INTO Parcel (code, weight, volume) VALUES ('P2', 1, -9e999), ('P3', 1e308, 2)")
        assertCheck(["Parcel/1.weight holds a non-finite number (inf)", "Parcel/2.volume holds a non-finite number (-inf)"])
    }
}

/// No false positives where users have stores: the sample store (SampleData imported), yesterday's store as it is,
/// migrated on opening, migrated by `migrate`, and migrated to a model file.
final class ShippedStoresCheckCleanTests: StoreCommandTestCase {
    func assertChecksClean(_ what: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = bk("check")
        XCTAssertEqual(r.status, 0, "\(what): \(r)", file: file, line: line)
        XCTAssertEqual(r.stdout, "ok: \(store) passed the integrity, schema, foreign key and model checks\n", what, file: file, line: line)
    }

    func useYesterdaysStore() throws {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("Tests/Fixtures/v1-store.sqlite").path, toPath: store)
    }

    func testTheSampleStoreChecksClean() {
        SampleStore.copy(to: store)
        assertChecksClean("the SampleData store")
        ok("add", "Customer", "name=Bolt")
        assertChecksClean("after a write")
    }

    func testYesterdaysStoreChecksCleanMigratedOnOpeningAndByMigrate() throws {
        try useYesterdaysStore()
        assertChecksClean("the v1 store, migrated by check's opening")
        try useYesterdaysStore()
        ok("migrate")
        assertChecksClean("the v1 store after migrate")
        ok("import", "Customer", dir.write("customers.csv", "name,code\nBolt,B1\n"))
        assertChecksClean("after an import (which makes the import history's table)")
    }

    func testYesterdaysStoreMigratedToAModelFileChecksClean() throws {
        try useYesterdaysStore()
        dir.write("model.yaml", ModelEvolutionCommandTests.banks)
        assertChecksClean("the v1 store migrated to the banks model")
        ok("add", "Bank", "name=First", "cert=1")
        // Then a double and a one-to-one relationship (a unique foreign key) on the migrated store.
        let next = ModelEvolutionCommandTests.banks
            .replacingOccurrences(of: "  Customer:\n    attributes:\n", with: "  Customer:\n    attributes:\n      rating: { type: double }\n")
            .replacingOccurrences(of: "    relationships:\n      bank: { to: Bank, inverse: customers",
                                  with: "    relationships:\n      head: { to: Bank, inverse: headOf, inverse-many: no }\n      bank: { to: Bank, inverse: customers")
        XCTAssertNotEqual(next, ModelEvolutionCommandTests.banks)
        dir.write("model.yaml", next)
        assertChecksClean("after a second change")
        ok("set", "Customer", "Acme Ltd", "rating=4.5", "head=1")
        assertChecksClean("after a write")
    }
}
