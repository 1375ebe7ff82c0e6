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

    /// The store every test starts from, made once by the binary (seven commands) and copied for each test.
    nonisolated(unsafe) static var template: TemporaryDirectory?

    static func templateStore() -> String {
        if let template { return template.file("books.sqlite") }
        let dir = TemporaryDirectory("bookkeeper-tamper")
        let model = dir.write("model.yaml", Self.model)
        let store = dir.file("books.sqlite")
        for args in [["init"], ["add", "Customer", "name=Acme"], ["add", "Service", "name=Delivery"],
                     ["add", "Order", "number=A-1", "date=2024-03-01", "customer=Acme"],
                     ["add", "OrderRow", "order=A-1", "service=Delivery", "price=10"],
                     ["add", "OrderRow", "order=A-1", "service=Delivery", "price=20"],
                     ["add", "Parcel", "code=P1", "weight=1.5", "volume=2"]] {
            let r = runCLI(["--store", store, "--model", model] + args, in: dir.path)
            precondition(r.status == 0, "\(args): \(r)")
        }
        precondition(!FileManager.default.fileExists(atPath: store + "-wal"), "the template store is closed")
        template = dir
        return store
    }

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", Self.model)
        try! FileManager.default.copyItem(atPath: Self.templateStore(), toPath: store)
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

    /// A tool that rebuilds tables may give an index another name; the same unique index keeps the same values
    /// unique, so it is reported and blocks nothing (it blocked every write).
    func testAUniqueIndexUnderAnotherNameIsReportedButWritesGoOn() {
        sqlite3(#"DROP INDEX "Customer_name_unique"; CREATE UNIQUE INDEX cust_name_u ON Customer(name)"#)
        assertCheck([#"schema: index "Customer_name_unique" is named "cust_name_u" in the store (the same index: CREATE UNIQUE INDEX cust_name_u ON Customer(name))"#])
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
        assertWritesAllowed()
    }

    func testATableThatIsNotStrictIsReported() {
        sqlite3("""
            CREATE TABLE "Tag_new" ("id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL); INSERT INTO "Tag_new" SELECT * FROM "Tag";
            DROP TABLE "Tag"; ALTER TABLE "Tag_new" RENAME TO "Tag"; CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")
            """)
        assertCheck([#"schema: table "Tag" is not STRICT where the model's is STRICT"#])
        assertWritesAllowed()
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
        removeStore()
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

    // MARK: Regressions (issue 25, the second attack on `check`)

    /// Rebuilds `table` as SQLite recommends (new table, copy, drop, rename) with `columns`, and makes `indexes`.
    func rebuild(_ table: String, _ columns: String, options: String = "STRICT", copying: String = "", indexes: [String]) {
        sqlite3("""
            PRAGMA foreign_keys = OFF; BEGIN; CREATE TABLE "rebuilt" (\(columns)) \(options); INSERT INTO "rebuilt" \(copying) SELECT * FROM "\(table)";
            DROP TABLE "\(table)"; ALTER TABLE "rebuilt" RENAME TO "\(table)"; \(indexes.map { $0 + ";" }.joined(separator: " ")) COMMIT
            """)
    }

    static let customerIndexes = [#"CREATE UNIQUE INDEX "Customer_code_unique" ON "Customer"("code")"#,
                                  #"CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name")"#]

    func testCheckDoesNotCrashOnABlobHoldingANulInATextColumn() {
        // `check` decoded each value its NUL check found as text: a blob (possible in a column made ANY) crashed it
        // (`try!` … could not decode String, exit 132).
        rebuild("Customer", #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "code" TEXT, "info" ANY"#, indexes: Self.customerIndexes)
        sqlite3("UPDATE Customer SET info = x'00ff41'; INSERT INTO Customer (name, info) VALUES ('Bolt', CAST(x'410042' AS TEXT))")
        assertCheck([
            #"schema: column Customer.info is ANY where the model's is TEXT (its type ANY makes SQLite store or convert values otherwise)"# + Self.blocked,
            "Customer/1.info holds a blob (the bytes 00 FF 41), where a string is stored as text",
            #"Customer/2.info holds text with a NUL character, which is shown only up to it ("A")"#,
        ])
    }

    func testCheckDoesNotCrashOnIDsAndLinksThatAreNotIntegers() {
        // Every value `check` reads is read as a value of any storage class: an "id" that is not the row ID (a
        // table rebuilt with `id TEXT PRIMARY KEY`), a link that is NULL or text in a join table that is not STRICT.
        rebuild("Tag", #""id" TEXT PRIMARY KEY, "name" TEXT NOT NULL"#, options: "", indexes: [#"CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")"#])
        sqlite3(#"""
            PRAGMA foreign_keys = OFF; INSERT INTO Tag VALUES ('x', 'vip'), ('y', 'vip2');
            CREATE TABLE "j" ("Customer_id" REFERENCES "Customer"("id") ON DELETE CASCADE, "Tag_id" REFERENCES "Tag"("id") ON DELETE CASCADE);
            INSERT INTO "j" VALUES (NULL, 'x'), ('a', NULL), (1, 'y'); DROP TABLE "Customer_tags"; ALTER TABLE "j" RENAME TO "Customer_tags";
            CREATE INDEX "Customer_tags_Tag_id" ON "Customer_tags"("Tag_id", "Customer_id")
            """#)
        let (lines, status) = check()
        XCTAssertEqual(status, 65, "\(lines)")
        XCTAssertTrue(lines.contains(#"Customer_tags links Customer/"a" to Tag/NULL, neither of which exists"#), "\(lines)")
        XCTAssertTrue(lines.contains(#"Customer_tags links Customer/NULL, which does not exist, to Tag/"x""#), "\(lines)")
        XCTAssertTrue(lines.contains(#"schema: column Customer_tags.Tag_id is REFERENCES "Tag"("id") ON DELETE CASCADE where the model's is INTEGER NOT NULL REFERENCES "Tag"("id") ON DELETE CASCADE (its type (none) makes SQLite store or convert values otherwise)"# + Self.blocked), "\(lines)")
        XCTAssertEqual(lines.last, "\(lines.count - 1) problems found")
    }

    func testCheckReportsValuesOfAnotherStorageClassThanTheirType() {
        // In a table that is not STRICT, or a column of type ANY, another tool can store any value anywhere: `check`
        // said only "not STRICT", and `show` printed `abc` as a price and a blob as 0x00, exiting 0.
        rebuild("OrderRow", #""id" INTEGER PRIMARY KEY, "quantity" INTEGER NOT NULL, "price" INTEGER, "sum" INTEGER NOT NULL, "order_id" INTEGER NOT NULL REFERENCES "Order"("id") ON DELETE CASCADE, "service_id" INTEGER NOT NULL REFERENCES "Service"("id") ON DELETE RESTRICT"#,
                options: "", indexes: [#"CREATE INDEX "OrderRow_order_id" ON "OrderRow"("order_id")"#, #"CREATE INDEX "OrderRow_service_id" ON "OrderRow"("service_id")"#])
        rebuild("Parcel", #""id" INTEGER PRIMARY KEY, "code" TEXT NOT NULL, "weight" ANY, "volume" REAL NOT NULL"#,
                indexes: [#"CREATE UNIQUE INDEX "Parcel_code_unique" ON "Parcel"("code")"#])
        sqlite3("""
            UPDATE OrderRow SET price = 'abc', quantity = 2.5 WHERE id = 1; UPDATE OrderRow SET sum = x'00', service_id = 'one' WHERE id = 2;
            UPDATE Parcel SET weight = 3; INSERT INTO Parcel (code, weight, volume) VALUES ('P2', '3.5', 1);
            UPDATE "Order" SET paid = 2, date = 'soon'
            """)
        assertCheck([
            #"schema: column Parcel.weight is ANY where the model's is REAL (its type ANY makes SQLite store or convert values otherwise)"# + Self.blocked,
            #"schema: table "OrderRow" is not STRICT where the model's is STRICT"#,
            "OrderRow/2 refers to a Service that does not exist",
            "Order/1.paid holds 2, which is not a boolean (0 or 1)",
            #"Order/1.date holds "soon", which is not a date"#,
            "OrderRow/1.quantity holds the real number 2.5, where a decimal is stored as an integer (its units at scale 3)",
            #"OrderRow/1.price holds the text "abc", where a decimal is stored as an integer (its units at scale 2)"#,
            "OrderRow/2.sum holds a blob (the bytes 00), where a decimal is stored as an integer (its units at scale 2)",
            #"OrderRow/2.service holds the text "one", where a reference is stored as an integer (an ID)"#,
            "Parcel/1.weight holds the integer 3, where a double is stored as a real number",
            #"Parcel/2.weight holds the text "3.5", where a double is stored as a real number"#,
        ])
    }

    /// Date-times another tool stored as ISO text in another form than bookkeeper's (`…+01:00`, no zone, a space for
    /// the T, `+00:00`) were shown as their instants, but compared and sorted as stored text: `at == "2024-01-01T00:30:00Z"`
    /// found none of the four that fetch printed as that instant, and `check` said nothing (found by the attack on
    /// 0.7.0). Each is named, with the instant it is; the canonical one is not.
    func testCheckFindsDateTimesNotStoredAsUTCZText() throws {
        try FileManager.default.removeItem(atPath: store)
        dir.write("model.yaml", "entities:\n  Reading:\n    kind: directory\n    key: name\n    attributes:\n      name: { type: string, required: true, unique: true }\n      at: { type: datetime }\n      on: { type: date }\n")
        ok("init")
        let stored = ["2024-01-01T00:30:00+01:00", "2024-01-01T00:30:00", "2024-01-01 00:30:00Z", "2024-01-01T00:30:00+00:00",
                      "2024-01-01T00:30:00Z"]
        for (i, text) in stored.enumerated() {
            ok("add", "Reading", "name=r\(i + 1)", "on=2024-01-0\(i + 1)")
            sqlite3("UPDATE Reading SET at = '\(text)' WHERE name = 'r\(i + 1)'")
        }
        let canonical = ["2023-12-31T23:30:00Z", "2024-01-01T00:30:00Z", "2024-01-01T00:30:00Z", "2024-01-01T00:30:00Z"]
        assertCheck(zip(stored, canonical).enumerated().map { i, pair in
            "Reading/\(i + 1).at holds \"\(pair.0)\", which is \(pair.1) written otherwise than bookkeeper stores a datetime, "
                + "so comparisons and sorts, which read the stored text, miss or misplace it"
        })
    }

    /// Another tool stored a customer's name in NFD beside the same name in NFC: the unique index holds their bytes
    /// apart, but to every command they are one key (`add` refuses the second as the same text in another normal
    /// form), so imports and links picked one or the other by spelling; `check` said ok (found by the attack on 0.7.0).
    func testARepeatedKeyInAnotherNormalFormIsReported() {
        ok("add", "Customer", "name=Caf\u{E9}")
        sqlite3("INSERT INTO Customer (id, name) VALUES (9, 'Cafe' || char(769))")
        assertCheck(["Customer.name (the natural key) must be unique, but 2 objects share \"Caf\u{E9}\" in different Unicode normal forms, "
                     + "one key to every command (Customer/2, Customer/9)"])
    }

    func testARemovedJoinTableForeignKeyBlocksWritesAndOrphanLinksAreListed() {
        // With the foreign key gone (writable_schema), `delete Tag` left its links behind, exit 0, and a new tag
        // given the same ID inherited them.
        ok("add", "Tag", "name=slow payer")
        sqlite3(#"INSERT INTO "Customer_tags" VALUES (1, 1)"#)
        sqlite3(#"PRAGMA writable_schema = ON; UPDATE sqlite_master SET sql = 'CREATE TABLE "Customer_tags" ("Customer_id" INTEGER NOT NULL REFERENCES "Customer"("id") ON DELETE CASCADE, "Tag_id" INTEGER NOT NULL, PRIMARY KEY ("Customer_id", "Tag_id")) STRICT, WITHOUT ROWID' WHERE name = 'Customer_tags'"#)
        let line = #"column Customer_tags.Tag_id is INTEGER NOT NULL where the model's is INTEGER NOT NULL REFERENCES "Tag"("id") ON DELETE CASCADE (bookkeeper relies on the model's foreign key to remove or keep linked rows on a delete)"#
        assertCheck(["schema: " + line + Self.blocked])
        assertWritesRefused(naming: line)
        let before = fileBytes(store)
        XCTAssertEqual(bk("delete", "Tag", "slow payer").status, 65)
        XCTAssertEqual(fileBytes(store), before)
        // What an earlier delete left: a link to a tag that is gone.
        sqlite3(#"PRAGMA foreign_keys = OFF; DELETE FROM "Tag""#)
        assertCheck(["schema: " + line + Self.blocked, "Customer_tags links Customer/1 to Tag/1, which does not exist"])
    }

    func testAJoinTableWithoutItsPrimaryKeyBlocksWritesAndRepeatedLinksAreListed() {
        // A link kept twice was counted twice (`customers.@count`), and nothing said so.
        ok("add", "Tag", "name=vip")
        sqlite3("""
            PRAGMA foreign_keys = OFF; BEGIN; CREATE TABLE "j" ("Customer_id" INTEGER NOT NULL REFERENCES "Customer"("id") ON DELETE CASCADE, "Tag_id" INTEGER NOT NULL REFERENCES "Tag"("id") ON DELETE CASCADE) STRICT;
            DROP TABLE "Customer_tags"; ALTER TABLE "j" RENAME TO "Customer_tags"; CREATE INDEX "Customer_tags_Tag_id" ON "Customer_tags"("Tag_id", "Customer_id");
            INSERT INTO "Customer_tags" VALUES (1, 1), (1, 1); COMMIT
            """)
        let line = #"table "Customer_tags" lacks the model's PRIMARY KEY ("Customer_id", "Tag_id"), so nothing keeps those values unique"#
        assertCheck([
            "schema: " + line + Self.blocked,
            #"schema: table "Customer_tags" is STRICT where the model's is STRICT, WITHOUT ROWID"#,
            "Customer_tags links Customer/1 to Tag/1 2 times (a link is kept once; every count of these links is too large)",
        ])
        assertWritesRefused(naming: line)
    }

    func testAKeyColumnMadeNocaseBlocksWrites() {
        // A key column made COLLATE NOCASE (its unique index given COLLATE BINARY, so the index compares equal): an
        // import of "ACME" matched Customer "Acme" and overwrote its code, exit 0.
        rebuild("Customer", #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL COLLATE NOCASE, "code" TEXT, "info" TEXT"#,
                indexes: [#"CREATE UNIQUE INDEX "Customer_code_unique" ON "Customer"("code")"#,
                          #"CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer"("name" COLLATE BINARY)"#])
        let line = #"column Customer.name is TEXT NOT NULL COLLATE NOCASE where the model's is TEXT NOT NULL (its collation NOCASE makes look-ups by it match other values)"#
        assertCheck(["schema: " + line + Self.blocked])
        assertWritesRefused(naming: line)
        dir.write("customers.csv", "name,code\nACME,X9\n")
        XCTAssertEqual(bk("import", "Customer", "customers.csv").status, 65)
        XCTAssertEqual(try queryStore(store, #"SELECT name || '/' || ifnull(code, '') FROM "Customer""#), ["Acme/"])
    }

    func testAColumnOfAnotherTypeBlocksWrites() {
        // A table that is not STRICT with `code INTEGER`: `add Customer code=007` stored 7.
        rebuild("Customer", #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, "code" INTEGER, "info" TEXT"#, options: "", indexes: Self.customerIndexes)
        let line = #"column Customer.code is INTEGER where the model's is TEXT (its type INTEGER makes SQLite store or convert values otherwise)"#
        assertCheck(["schema: " + line + Self.blocked, #"schema: table "Customer" is not STRICT where the model's is STRICT"#])
        assertWritesRefused(naming: line)
        XCTAssertEqual(bk("add", "Customer", "name=Zed", "code=007").status, 65)
        XCTAssertEqual(try queryStore(store, #"SELECT COUNT(*) FROM "Customer""#), ["1"])
    }

    func testDifferencesThatChangeNoWriteDoNotBlockWrites() {
        // No false positives: a table that is not STRICT but has the model's column types, NOT NULL dropped, an
        // extra nullable column (with a foreign key that refuses), an extra index — reported, writes go on.
        rebuild("Tag", #""id" INTEGER PRIMARY KEY, "name" TEXT, "note" TEXT, "owner" INTEGER REFERENCES "Customer"("id")"#, options: "", copying: "(id, name)",
                indexes: [#"CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")"#, #"CREATE INDEX "speed" ON "Tag"("note")"#])
        assertCheck([
            #"schema: table "Tag" is not STRICT where the model's is STRICT"#,
            "schema: column Tag.name is TEXT where the model's is TEXT NOT NULL",
            "schema: column Tag.note is not the model's",
            "schema: column Tag.owner is not the model's",
            #"schema: index "speed" is not the model's (CREATE INDEX "speed" ON "Tag"("note"))"#,
        ])
        assertWritesAllowed()
        ok("add", "Tag", "name=vip")
        ok("set", "Customer", "Acme", "tags=vip")
        ok("delete", "Tag", "vip")
    }

    func testAnIndexThatTakesItsColumnsCollationSaysWhatDiffers() {
        // The line quoted the same statement twice ("is CREATE UNIQUE INDEX … where the model's is CREATE UNIQUE
        // INDEX …"): the difference was the collation the index takes from its column.
        rebuild("Customer", #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL COLLATE NOCASE, "code" TEXT, "info" TEXT"#, indexes: Self.customerIndexes)
        let (lines, status) = check()
        XCTAssertEqual(status, 65)
        XCTAssertTrue(lines.contains(#"schema: index "Customer_name_unique" is the model's statement, but compares "name" COLLATE NOCASE (the collation of the column it indexes) where the model's compares "name", which keeps Customer.name unique"# + Self.blocked), "\(lines)")
    }

    func testATriggerAddedWhileAnImportWaitsForItsInputIsFoundInsideTheWriteTransaction() throws {
        // The schema was compared when the store was opened, never again: a trigger added while an import of 20,000
        // rows ran ran 20,000 times, exit 0. The import reads a FIFO, so the test adds the trigger after the store
        // was opened (opening the FIFO to write returns once the import opened it to read) and before a row is written.
        let fifo = dir.file("customers.fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        nonisolated(unsafe) var result: CLIResult?
        let done = DispatchSemaphore(value: 0)
        let (store, folder) = (store, dir.path)
        DispatchQueue.global().async {
            result = runCLI(["--store", store, "import", "Customer", fifo], in: folder)
            done.signal()
        }
        let writer = try XCTUnwrap(FileHandle(forWritingAtPath: fifo))
        sqlite3("CREATE TABLE log(x); CREATE TRIGGER t AFTER INSERT ON Customer BEGIN INSERT INTO log VALUES (new.id); END")
        writer.write(Data("name\nBolt\nZed\n".utf8))
        try writer.close()
        done.wait()
        XCTAssertEqual(result?.status, 65, "\(String(describing: result))")
        XCTAssertTrue(result?.stderr.contains(#"trigger "t" on "Customer" is not the model's"#) == true, "\(String(describing: result))")
        XCTAssertEqual(try queryStore(store, "SELECT COUNT(*) FROM log"), ["0"], "the trigger never ran")
        XCTAssertEqual(try queryStore(store, #"SELECT COUNT(*) FROM "Customer""#), ["1"])
    }

    func testTheLinesThatBlockWritesComeFirstAndTheCountIsHonest() {
        // 50 extra indexes filled the 20 lines before any of 30 triggers; "82 problems found" counted "… and 88
        // more" as one; value problems stopped at 20 without a word.
        var sql = (1...50).map { "CREATE INDEX i\($0) ON Customer(info);" }.joined()
        sql += (1...30).map { "CREATE TRIGGER t\($0) AFTER INSERT ON Customer BEGIN SELECT 1; END;" }.joined()
        sql += "INSERT INTO Parcel (code, weight, volume) SELECT 'Q' || value, 9e999, 1 FROM generate_series(1, 24);"
        sqlite3(sql)
        let (lines, status) = check()
        XCTAssertEqual(status, 65)
        XCTAssertEqual(lines.count, 20 + 1 + 20 + 1 + 1, "\(lines)")
        XCTAssertTrue(lines.prefix(20).allSatisfy { $0.hasPrefix("schema: trigger ") && $0.hasSuffix(Self.blocked) }, "\(lines)")
        XCTAssertEqual(lines[20], "schema: … and 60 more (10 of them block writes: `bookkeeper set` or any other write lists them)")
        XCTAssertEqual(lines[41], "Parcel.weight: … and 4 more")
        XCTAssertEqual(lines.last, "104 problems found", "80 schema differences and 24 infinities")
    }

    func testRepeatedValuesThatAreNotUTF8OrHoldANulNameTheirObjects() {
        // The objects were looked up by the value read back as text, which no longer matched the stored bytes:
        // `2 objects share "A�" ()`.
        sqlite3(#"DROP INDEX "Customer_name_unique"; INSERT INTO Customer (name) VALUES (CAST(x'41ff' AS TEXT)), (CAST(x'41ff' AS TEXT)), (CAST(x'420043' AS TEXT)), (CAST(x'420043' AS TEXT))"#)
        let (lines, _) = check()
        XCTAssertTrue(lines.contains(#"Customer.name (the natural key) must be unique, but 2 objects share "A\#u{FFFD}" (Customer/2, Customer/3)"#), "\(lines)")
        XCTAssertTrue(lines.contains(#"Customer.name (the natural key) must be unique, but 2 objects share "B" (Customer/4, Customer/5)"#), "\(lines)")
    }

    func testAViewOnATableAMigrationRebuildsStopsItWithADataError() throws {
        // A view of another tool's on a table a retype rebuilds: `error in view …: no such table: main.Parcel`, exit
        // 74, without a word of whose view it was. An extra index on it was dropped without a word.
        sqlite3("CREATE VIEW parcels AS SELECT code, weight FROM Parcel; CREATE INDEX speed ON Parcel(volume)")
        dir.write("model.yaml", Self.model.replacingOccurrences(of: "weight: { type: double }", with: "weight: { type: string }"))
        let before = try dumpStore(store)
        for args in [["migrate", "--allow-data-loss"], ["migrate", "--allow-data-loss", "--dry-run"]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains(#"blocked: view "parcels" (not the model's) reads table "Parcel", which the migration rebuilds: drop it first (DROP VIEW "parcels"), and make it again after if it is still wanted"#), "\(args): \(r)")
            XCTAssertEqual(try dumpStore(store), before, "\(args): nothing was changed")
        }
        sqlite3("DROP VIEW parcels")
        let plan = ok("migrate", "--allow-data-loss", "--dry-run")
        XCTAssertTrue(plan.contains("- drop index speed (not the model's) with table Parcel, which the migration rebuilds; make it again after if it is still wanted: CREATE INDEX speed ON Parcel(volume)"), plan)
        ok("migrate", "--allow-data-loss")
        XCTAssertEqual(check().status, 0)
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

    func testTheSampleStoreChecksCleanAfterVacuumAnalyzeAndARestoreFromADump() throws {
        // What users do to a store with the sqlite3 shell that changes no meaning: none of it is a difference, and
        // none of it blocks a write.
        SampleStore.copy(to: store)
        XCTAssertEqual(try runTool(["/usr/bin/sqlite3", store, "VACUUM; ANALYZE; PRAGMA optimize"]).status, 0)
        assertChecksClean("after VACUUM and ANALYZE")
        ok("add", "Customer", "name=Bolt")
        let dump = try runTool(["/usr/bin/sqlite3", store, ".dump"])
        XCTAssertEqual(dump.status, 0)
        let restored = dir.file("restored.sqlite")
        let script = dir.write("dump.sql", String(decoding: dump.output, as: UTF8.self))
        XCTAssertEqual(try runTool(["/usr/bin/sqlite3", restored, ".read \(script)"]).status, 0)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        try FileManager.default.moveItem(atPath: restored, toPath: store)
        assertChecksClean("restored from a .dump")
        ok("add", "Customer", "name=Zed")
        ok("delete", "Customer", "Zed")
        assertChecksClean("after writes to the restored store")
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
