import Foundation
import TestSupport
import XCTest

// A UNIQUE index or CHECK constraint another tool added refuses a write (attack 17, findings 4 and 4b): every
// command says so in one line naming the store and the constraint as not the model's, exit 65 (a condition of the
// data), and changes nothing — before, SQLite's text with exit 74, and import's line without the store's name and
// with the statement's SQL. Such a constraint refuses the whole import, `--on-error skip` too.
extension SchemaTamperTests {
    func assertRefused(_ args: [String], by constraint: String, file: StaticString = #filePath, line: UInt = #line) {
        let before = fileBytes(store)
        let r = bk(args)
        XCTAssertEqual(r.status, 65, "\(args): \(r)", file: file, line: line)
        XCTAssertEqual(r.stderr, "bookkeeper: \(store): the store's \(constraint) refused the change; it is not the model's "
                       + "(another tool added it; `bookkeeper check` lists it) — nothing was changed\n", "\(args)", file: file, line: line)
        XCTAssertEqual(fileBytes(store), before, "\(args): the store's file is as it was", file: file, line: line)
    }

    func testAUniqueIndexAnotherToolAddedRefusesEveryWriteInOneLineWithExit65() {
        sqlite3("CREATE UNIQUE INDEX u_info ON Customer(info)")
        XCTAssertEqual(bk("add", "Customer", "name=Bolt", "info=Berlin office").status, 0)
        let index = #"unique index "u_info" on Customer(info)"#
        assertRefused(["set", "Customer", "Acme", "info=Berlin office"], by: index)
        assertRefused(["add", "Customer", "name=Cole", "info=Berlin office"], by: index)
        assertRefused(["update", "Customer", "--where", #"name == "Acme""#, "--set", "info=Berlin office"], by: index)
        dir.write("same.csv", "name,info\nAcme,Berlin office\nDart,elsewhere\n")
        assertRefused(["import", "Customer", "same.csv"], by: index)
        assertRefused(["import", "Customer", "same.csv", "--on-error", "skip"], by: index)
        // Of several columns, named as the model names them.
        sqlite3(#"CREATE UNIQUE INDEX u_date ON "Order"(customer_id, date)"#)
        assertRefused(["add", "Order", "number=A-2", "date=2024-03-01", "customer=Acme"],
                      by: #"unique index "u_date" on Order(customer_id, date)"#)
        // The model's own unique index keeps its words.
        let r = bk("add", "Customer", "name=Acme")
        XCTAssertFalse(r.stderr.contains("not the model's"), r.stderr)
        XCTAssertTrue(check().lines.contains(#"schema: index "u_info" is not the model's (CREATE UNIQUE INDEX u_info ON Customer(info))"#))
    }

    func testACheckConstraintAnotherToolAddedIsListedByCheckAndRefusesWritesInOneLineWithExit65() {
        rebuild("Tag", #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL, CONSTRAINT "short" CHECK (length("name") < 6)"#,
                indexes: [#"CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")"#])
        assertCheck([#"schema: table "Tag" has CHECK constraint short, which the model's has not"#])
        XCTAssertEqual(bk("add", "Tag", "name=vip").status, 0)
        assertRefused(["add", "Tag", "name=regular"], by: "CHECK constraint short")
        assertRefused(["set", "Tag", "vip", "name=very important"], by: "CHECK constraint short")
        dir.write("tags.csv", "name\nnew\nregular\n")
        assertRefused(["import", "Tag", "tags.csv", "--on-error", "skip"], by: "CHECK constraint short")
        // One without a name is listed by its expression.
        rebuild("Tag", #""id" INTEGER PRIMARY KEY, "name" TEXT NOT NULL CHECK (name <> 'x')"#,
                indexes: [#"CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag"("name")"#])
        assertCheck([#"schema: table "Tag" has CHECK (name <> 'x'), which the model's has not"#])
    }
}

/// A write whose SQLite temporary files cannot be made (SQLITE_TMPDIR a folder it cannot use) names their folder,
/// as a read does (attack 17, finding 5): `update`/`delete --where` and their dry runs said only
/// `books.sqlite: unable to open database file`, blaming the store. Inside a write transaction the store, its -wal and
/// -shm are open, so a file SQLite cannot open there is a temporary one (a statement journal past 64 KiB here).
final class WriteTemporaryFileTests: XCTestCase {
    func testAWriteWhoseTemporaryFilesCannotBeMadeNamesTheirFolderNotTheStore() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("wide.sqlite")
        XCTAssertEqual(runCLI(["--store", store, "init"], in: dir.path).status, 0)
        let info = String(repeating: "x", count: 1500)
        dir.write("wide.csv", "code,name,info\n" + (0..<3000).map { "W\($0),Wide \($0),\(info)\($0)" }.joined(separator: "\n") + "\n")
        XCTAssertEqual(runCLI(["--store", store, "import", "Customer", "wide.csv", "--quiet"], in: dir.path).status, 0)
        let before = try storeFingerprint(store)
        for args in [["update", "Customer", "--where", #"code BEGINSWITH "W""#, "--set", "info=short"],
                     ["delete", "Customer", "--where", #"code BEGINSWITH "W1""#],
                     ["delete", "Customer", "--where", #"code BEGINSWITH "W1""#, "--dry-run"]] {
            let r = runCLI(["--store", store] + args, in: dir.path, environment: ["SQLITE_TMPDIR": "/proc"])
            XCTAssertEqual(r.status, 74, "\(args): \(r)")
            XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: \(store): unable to open database file: SQLite cannot make its temporary files in /proc ("),
                          "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasSuffix(") — point SQLITE_TMPDIR at a folder this user may write\n"), "\(args): \(r.stderr)")
            XCTAssertEqual(try storeFingerprint(store), before, "\(args): the store is unchanged")
        }
        // With a folder it may use, the same update is made.
        let r = runCLI(["--store", store, "update", "Customer", "--where", #"code BEGINSWITH "W""#, "--set", "info=short"], in: dir.path)
        XCTAssertEqual(r.status, 0, "\(r)")
    }
}

// A model column another tool renamed or dropped (attack 17, finding 3): `show` and `list` printed it as no value
// with exit 0, the other commands SQLite's `no such column: t0.info` (with the statement's SQL for an import) and 74.
// Every command now fails alike, naming the column as the model names it and pointing at `check`, exit 65.
extension SchemaTamperTests {
    func testAModelColumnAnotherToolRenamedFailsEveryCommandNamingItAsTheModelDoes() {
        sqlite3(#"ALTER TABLE "Customer" RENAME COLUMN "info" TO "notes""#)
        let line = "bookkeeper: \(store): Customer.info is missing from the store (another tool renamed or dropped its column) — "
            + "`bookkeeper check` lists how the store's schema differs from the model's\n"
        dir.write("more.csv", "name,info\nAcme,x\nBolt,y\n")
        for args in [["show", "Customer", "Acme"], ["list", "Customer"], ["fetch", "Customer"], ["export", "Customer", "-"],
                     ["fetch", "Order", "--columns", "number, customer.info"], ["set", "Customer", "Acme", "info=x"],
                     ["add", "Customer", "name=Bolt", "info=y"], ["update", "Customer", "--where", #"name == "Acme""#, "--set", "info=x"],
                     ["import", "Customer", "more.csv"]] {
            let before = fileBytes(store)
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertEqual(r.stderr, line, "\(args)")
            XCTAssertEqual(fileBytes(store), before, "\(args): the store's file is as it was")
        }
        XCTAssertTrue(check().lines.contains("schema: column Customer.info is missing"))
    }

    func testAForeignKeyColumnAnotherToolRenamedIsNamedAsTheModelsRelationship() {
        sqlite3(#"ALTER TABLE "Order" RENAME COLUMN "customer_id" TO "cust""#)
        let line = "bookkeeper: \(store): Order.customer is missing from the store (another tool renamed or dropped its column) — "
            + "`bookkeeper check` lists how the store's schema differs from the model's\n"
        for args in [["show", "Order", "A-1"], ["list", "Order"], ["fetch", "Order", "--where", #"customer.name == "Acme""#]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertEqual(r.stderr, line, "\(args)")
        }
    }
}

// Values and metadata only another tool can write (attack 17, findings 7, 11, 12): `check` lists them.
extension SchemaTamperTests {
    /// A decimal of Int64.min units passed `check`, and was shown and exported as a value no input accepts.
    func testCheckFindsADecimalOfInt64MinUnits() {
        sqlite3(#"UPDATE "OrderRow" SET "price" = -9223372036854775808 WHERE "id" = 1"#)
        assertCheck(["OrderRow/1.price holds -9223372036854775808 units, beyond what Decimal(2) can hold (±92233720368547758.07)"])
    }

    /// An object-ID mark another tool changed: 22 digits made every add say that every ID was handed out, `abc` was
    /// read as 0 and a removed mark let a deleted object's ID come back, all with `check` saying ok.
    func testCheckListsAnIDMarkAnotherToolChangedAndAddSaysItIsUnreadable() {
        let mark = "Customer: the mark of the object IDs handed out (ids:Customer in _bookkeeper_meta)"
        func setMark(_ sql: String) { sqlite3(sql.replacingOccurrences(of: "KEY", with: "key = 'ids:Customer'")) }
        setMark("UPDATE _bookkeeper_meta SET value = '9999999999999999999999' WHERE KEY")
        assertCheck([#"\#(mark) holds "9999999999999999999999", which is not an ID: every add of a Customer is refused"#])
        let refusal = #"bookkeeper: \#(store): \#(mark) is unreadable: it holds "9999999999999999999999", which is not an ID (another tool "#
            + "changed it) — no new object is given one; `bookkeeper check` lists it\n"
        for args in [["add", "Customer", "name=Bolt"], ["import", "Customer", "customers.csv"]] {
            let before = fileBytes(store)
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertEqual(r.stderr, refusal, "\(args)")
            XCTAssertEqual(fileBytes(store), before, "\(args)")
        }
        setMark("UPDATE _bookkeeper_meta SET value = 'abc' WHERE KEY")
        assertCheck([#"\#(mark) holds "abc", which is not an ID: every add of a Customer is refused"#])
        XCTAssertEqual(bk("add", "Customer", "name=Bolt").status, 65)
        // A mark below the largest ID is what rows another tool inserted leave: not a problem (IDs are handed out
        // above both).
        setMark("UPDATE _bookkeeper_meta SET value = '0' WHERE KEY")
        XCTAssertEqual(check().status, 0)
        setMark("DELETE FROM _bookkeeper_meta WHERE KEY")
        assertCheck(["\(mark) is missing (another tool removed it): an ID of a deleted object could be handed out again"])
    }

    /// Import history rows another tool changed: `imports` showed a 1970 time for `yesterday` and zero counts for
    /// counts that are not JSON, and `check` said ok.
    func testImportsShowsUnreadableHistoryRowsAsUnreadableAndCheckListsThem() throws {
        dir.write("more.csv", "name\nCole\n")
        XCTAssertEqual(bk("import", "Customer", "customers.csv").status, 0)
        XCTAssertEqual(bk("import", "Customer", "more.csv").status, 0)
        sqlite3("UPDATE _bookkeeper_imports SET counts = 'not json' WHERE id = 1; "
                + "UPDATE _bookkeeper_imports SET started_at = 'yesterday', records = -5 WHERE id = 2")
        let r = bk("imports")
        XCTAssertEqual(r.status, 0, "\(r)")
        let rows = r.stdout.split(separator: "\n").dropFirst(2).map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        XCTAssertEqual(rows.count, 2, r.stdout)
        XCTAssertEqual(Array(rows[0][5...9]), ["1", "unreadable", "unreadable", "unreadable", "unreadable"], r.stdout)
        XCTAssertEqual(rows[1][1], "unreadable", r.stdout)
        XCTAssertEqual(Array(rows[1][5...6]), ["unreadable", "1"], r.stdout)
        XCTAssertFalse(r.stdout.contains("1970"), r.stdout)
        XCTAssertEqual(r.stderr, """
            bookkeeper: warning: \(store): import 1 of the history is unreadable in part (counts holds "not json") — another tool changed it; `bookkeeper check` lists it
            bookkeeper: warning: \(store): import 2 of the history is unreadable in part (started_at holds "yesterday", records holds -5) — another tool changed it; `bookkeeper check` lists it

            """)
        let json = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(bk("imports", "--format", "json").stdout.utf8)) as? [[String: Any]])
        XCTAssertTrue(json[0]["counts"] is NSNull && json[0]["inserted"] is NSNull)
        XCTAssertEqual(json[0]["unreadable"] as? [String], [#"counts holds "not json""#])
        XCTAssertTrue(json[1]["startedAt"] is NSNull && json[1]["records"] is NSNull)
        XCTAssertEqual(json[1]["inserted"] as? Int, 1)
        assertCheck([#"_bookkeeper_imports row 1 is unreadable: counts holds "not json""#,
                     #"_bookkeeper_imports row 2 is unreadable: started_at holds "yesterday", records holds -5"#])
    }
}

/// A read on a full filesystem, where SQLite cannot make the store's -shm (attack 17, finding 8): every command said
/// only `s.sqlite: disk I/O error`, which reads as a damaged store. Now the -shm and the cause are named. Needs a
/// small tmpfs (root with CAP_SYS_ADMIN); skipped elsewhere.
final class FullFilesystemShmTests: XCTestCase {
    func testAReadOnAFullFilesystemNamesTheShmAndTheMissingSpace() throws {
        let dir = TemporaryDirectory()
        let mount = dir.file("mnt")
        try FileManager.default.createDirectory(atPath: mount, withIntermediateDirectories: false)
        let mounted = runProgram("/bin/mount", ["-t", "tmpfs", "-o", "size=1M", "tmpfs", mount], in: dir.path)
        guard mounted.status == 0 else { throw XCTSkip("cannot mount a tmpfs here: \(mounted.stderr)") }
        defer { _ = runProgram("/bin/umount", [mount], in: dir.path) }
        let store = mount + "/s.sqlite"
        SampleStore.copy(to: store)
        // Fill the rest of the filesystem.
        _ = runProgram("/bin/sh", ["-c", "dd if=/dev/zero of='\(mount)/fill' bs=4k 2>/dev/null"], in: dir.path)
        for args in [["list", "Tag"], ["check"], ["imports"], ["set", "Tag", "vip", "name=vip2"]] {
            let r = runCLI(["--store", store] + args, in: dir.path, environment: ["BOOKKEEPER_TODAY": "2026-11-21"])
            XCTAssertEqual(r.status, 74, "\(args): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(store): cannot create or grow s.sqlite-shm beside the store (SQLite's index of its "
                           + "write-ahead log): No space left on device — free space on the filesystem of \(mount)\n", "\(args)")
        }
        // The store itself is fine: with room again it lists.
        try FileManager.default.removeItem(atPath: mount + "/fill")
        XCTAssertEqual(runCLI(["--store", store, "list", "Tag"], in: dir.path).status, 0)
    }
}
