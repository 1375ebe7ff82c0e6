// Stores that cannot be used as they are (issue 6, "Store"): a file that is not a store, a store from a
// newer bookkeeper, a store another user owns (read by reports and fetches, refused for writes), and a
// store with a damaged page (found by check, status 65; other commands fail in one line when they meet it).

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ReliabilityStoreTests: XCTestCase {
    var dir: TemporaryDirectory!
    var store: String { dir.file("books.sqlite") }
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21"]

    override func setUp() {
        dir = TemporaryDirectory()
    }

    func bk(_ args: [String], store: String? = nil) -> CLIResult {
        runCLI(["--store", store ?? self.store] + args, in: dir.path, environment: Self.environment)
    }

    /// Every kind of command, reading and writing.
    var commands: [[String]] {
        dir.write("tags.csv", "name\nnew\n")
        return [["list", "Tag"], ["show", "Tag", "vip"], ["fetch", "Order", "--count"], ["report", "customers", "--format", "csv"],
                ["export", "Tag"], ["imports"], ["check"], ["backup", dir.file("copy.sqlite")],
                ["add", "Tag", "name=x"], ["set", "Tag", "vip", "name=VIP"], ["delete", "Tag", "vip"],
                ["import", "Tag", "tags.csv"], ["migrate"]]
    }

    func testAFileThatIsNotAStoreIsRefusedByEveryCommand() throws {
        let text = dir.write("books.sqlite", "name,code\nAcme,C1\n" + String(repeating: "not a database ", count: 100))
        let plain = dir.file("plain.sqlite")
        try executeSQL(plain, "CREATE TABLE t (x); INSERT INTO t VALUES (1)")
        for (path, reason) in [(text, "the file is not an SQLite database"), (plain, "it is an SQLite database without bookkeeper metadata")] {
            let bytes = fileBytes(path)
            for args in commands {
                let r = bk(args, store: path)
                XCTAssertEqual(r.status, 65, "\(args): \(r)")
                XCTAssertEqual(r.stderr, "bookkeeper: \(path): not a bookkeeper store (\(reason))\n", "\(args)")
                XCTAssertEqual(fileBytes(path), bytes, "\(args)")
            }
        }
        let initialise = bk(["init"], store: text)
        XCTAssertEqual(initialise.status, 65, "init does not overwrite what is there: \(initialise)")
    }

    /// `--store` naming a FIFO blocked every command forever (SQLite opened it and waited for a writer).
    func testAFIFOOrADeviceAsTheStoreIsRefusedAtOnce() throws {
        let fifo = dir.file("fifo.sqlite")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for path in [fifo, "/dev/null"] {
            for args in commands {
                let r = bk(args, store: path)
                XCTAssertEqual(r.status, 65, "\(args): \(r)")
                XCTAssertEqual(r.stderr, "bookkeeper: \(path): not a bookkeeper store (it is not a regular file)\n", "\(args)")
            }
        }
        XCTAssertEqual(bk(["init"], store: fifo).status, 65, "init does not replace a FIFO")
    }

    func testAStoreFromANewerBookkeeperIsReadNotWritten() throws {
        SampleStore.copy(to: store)
        try executeSQL(store, "UPDATE _bookkeeper_meta SET value = '99' WHERE key = 'format'")
        let before = try storeFingerprint(store)
        let refusal = "bookkeeper: \(store): written by a newer version of bookkeeper (store format 99; this version reads up to 1) — it can only be read, by reports and fetches\n"
        for args in commands {
            let r = bk(args)
            if ["add", "set", "delete", "import", "migrate"].contains(args[0]) {
                XCTAssertEqual(r.status, 65, "\(args): \(r)")
                XCTAssertEqual(r.stderr, refusal, "\(args)")
            } else {
                XCTAssertEqual(r.status, 0, "\(args) reads a newer store: \(r)")
            }
        }
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    /// Another user's store (root's, 0644, in root's 0755 folder): reports, fetches and every other reader work
    /// and print what the owner sees; writers are refused in one line; nothing is created beside the store.
    func testAnotherUsersStoreIsReadByReportsAndRefusedForWrites() throws {
        try OtherUser.skipUnlessAvailable()
        SampleStore.copy(to: store)
        XCTAssertEqual(chmod(store, 0o644), 0)
        XCTAssertEqual(chmod(dir.path, 0o755), 0)
        let before = try storeFingerprint(store)
        let content = try storeContent(store)
        // The test's own read-only connection left an empty WAL and its index beside the store; without them the
        // other user reads the store as immutable (with them, through them).
        XCTAssertEqual(fileSize(store + "-wal"), 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        // What the owner sees, from a copy (the owner's read-only connections would leave -wal and -shm files beside
        // the store, and the other user would then read through them).
        let ownersCopy = TemporaryDirectory()
        SampleStore.copy(to: ownersCopy.file("books.sqlite"))
        let writable = dir.file("nobody")   // where the other user may write its outputs
        try FileManager.default.createDirectory(atPath: writable, withIntermediateDirectories: true)
        XCTAssertEqual(chown(writable, 65534, 65534), 0)
        let readers: [[String]] = [
            ["list", "Order"], ["show", "Customer", "Acme Ltd"], ["fetch", "Order", "--where", "paid == NO", "--format", "csv"],
            ["report", "unpaid-orders", "--format", "csv"], ["report", "sales-by-customer", "--format", "json"],
            ["export", "Customer"], ["imports", "--format", "json"], ["check"], ["model"],
        ]
        for args in readers {
            let owner = bk(args, store: ownersCopy.file("books.sqlite"))
            let other = OtherUser.run(["--store", store] + args, in: dir.path, environment: Self.environment)
            XCTAssertEqual(other.status, 0, "\(args): \(other)")
            XCTAssertEqual(other.stdout, owner.stdout.replacingOccurrences(of: ownersCopy.file("books.sqlite"), with: store),
                           "\(args): the other user sees what the owner sees")
            XCTAssertEqual(other.stderr, "", "\(args)")
        }
        let report = OtherUser.run(["--store", store, "report", "--all", "--format", "xlsx", "--output-dir", "nobody/reports", "--quiet"],
                                   in: dir.path, environment: Self.environment)
        XCTAssertEqual(report.status, 0, "\(report)")
        XCTAssertEqual(filesIn(dir.file("nobody/reports")).count, 6)
        let backup = OtherUser.run(["--store", store, "backup", "nobody/copy.sqlite", "--quiet"], in: dir.path)
        XCTAssertEqual(backup.status, 0, "\(backup)")
        XCTAssertEqual(try storeContent(dir.file("nobody/copy.sqlite")), content)

        dir.write("tags.csv", "name\nnew\n")
        for args in [["add", "Tag", "name=x"], ["set", "Tag", "vip", "name=VIP"], ["delete", "Tag", "vip"], ["import", "Tag", "tags.csv"]] {
            let r = OtherUser.run(["--store", store] + args, in: dir.path)
            XCTAssertEqual(r.status, 73, "\(args): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(store): the store is read-only\n", "\(args)")
        }
        XCTAssertEqual(filesIn(dir.path), ["books.sqlite", "nobody", "tags.csv"], "no -wal, -shm or activity file was created")
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    /// A store whose first page is intact but whose later pages are overwritten or cut off is damaged, not "not a
    /// bookkeeper store": `check` lists what SQLite's integrity check finds (65) — before, it answered 74 with
    /// "`bookkeeper check` lists the damage", or called the store not a store — and the other commands say it is
    /// damaged (74). Only a file whose header is not SQLite's is not a store.
    func testCheckListsTheDamageOfAStoreWithLaterPagesOverwrittenOrCutOff() throws {
        SampleStore.copy(to: store)
        let pageSize = try XCTUnwrap(Int(try queryStore(store, "PRAGMA page_size")[0] ?? ""))
        let pristine = fileBytes(store)
        XCTAssertGreaterThan(pristine.count, 10 * pageSize)
        let noise = Data((0..<(3 * pageSize)).map { UInt8(($0 * 7 + 13) % 251) })
        var rootsOverwritten = pristine   // pages 7-9: the roots of tables the model's checks read
        rootsOverwritten.replaceSubrange((6 * pageSize)..<(9 * pageSize), with: noise)
        var laterOverwritten = pristine   // pages 2-4: the metadata table and the first tables' roots
        laterOverwritten.replaceSubrange(pageSize..<(4 * pageSize), with: noise)
        let cases: [(String, Data)] = [
            ("pages 7-9 overwritten", rootsOverwritten),
            ("pages 2-4 overwritten", laterOverwritten),
            ("cut off after 3 pages", pristine.prefix(3 * pageSize)),
            ("cut off after the first page", pristine.prefix(pageSize)),
        ]
        for (name, bytes) in cases {
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
            try bytes.write(to: URL(fileURLWithPath: store))
            let check = bk(["check"])
            XCTAssertEqual(check.status, 65, "\(name): \(check)")
            let lines = check.stderr.split(separator: "\n").map(String.init)
            XCTAssertTrue(lines.dropLast().allSatisfy { $0.hasPrefix("bookkeeper: \(store): integrity: ") || $0.hasPrefix("bookkeeper: \(store): the other checks stopped at the damage (") },
                          "\(name): \(check.stderr)")
            XCTAssertTrue(lines.last?.hasSuffix(" found") ?? false, "\(name): \(check.stderr)")
            XCTAssertGreaterThanOrEqual(lines.count, 2, "\(name): at least one problem, then the count")
            XCTAssertFalse(check.stderr.contains("bookkeeper check"), "\(name): check does not send the user to itself: \(check.stderr)")
            XCTAssertFalse(check.stderr.contains("not a bookkeeper store"), "\(name): \(check.stderr)")
            for args in [["list", "Customer"], ["fetch", "OrderRow", "--count"], ["export", "Order"]] {
                let r = bk(args)
                XCTAssertFalse(r.stderr.contains("not a bookkeeper store"), "\(name): \(args): \(r.stderr)")
                if r.status != 0 {
                    XCTAssertEqual(r.status, 74, "\(name): \(args): \(r)")
                    XCTAssertTrue(r.stderr.hasSuffix(" — the store is damaged: `bookkeeper check` lists the damage; restore it from a backup\n"), "\(name): \(args): \(r.stderr)")
                    XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(name): \(args)")
                }
            }
            XCTAssertEqual(fileBytes(store), bytes, "\(name): nothing was written to the damaged store")
        }
        // Only a file whose header is not SQLite's is not a store.
        var header = pristine
        header.replaceSubrange(0..<16, with: Data("Not SQLite at al".utf8))
        try header.write(to: URL(fileURLWithPath: store))
        let check = bk(["check"])
        XCTAssertEqual(check.status, 65, "\(check)")
        XCTAssertEqual(check.stderr, "bookkeeper: \(store): not a bookkeeper store (the file is not an SQLite database)\n")
    }

    /// Bytes overwritten in the middle of the Order table: check finds it (one line per problem, status 65); commands
    /// that read those pages fail in one line and change nothing; the others still work.
    /// Written by another tool (the importer refuses both): text with a NUL, which every reader shows only up to
    /// it — a report read the whole text while fetch stopped at the NUL — and a date that is not a date.
    func testTextWithANulAndADateThatIsNotADateAreNamedByCheckAndReadAlikeEverywhere() throws {
        SampleStore.copy(to: store)
        let customer = try XCTUnwrap(try queryStore(store, "SELECT min(id) FROM Customer")[0])
        let order = try XCTUnwrap(try queryStore(store, "SELECT min(id) FROM \"Order\"")[0])
        try executeSQL(store, """
            UPDATE Customer SET name = 'ab' || char(0) || 'cd' WHERE id = \(customer);
            UPDATE "Order" SET date = 'soon' WHERE id = \(order);
            """)
        let check = bk(["check"])
        XCTAssertEqual(check.status, 65, "\(check)")
        XCTAssertTrue(check.stderr.contains(": Customer/\(customer).name holds text with a NUL character, which is shown only up to it (\"ab\")\n"),
                      check.stderr)
        XCTAssertTrue(check.stderr.contains(": Order/\(order).date holds \"soon\", which is not a date\n"), check.stderr)

        let fetched = bk(["fetch", "Customer", "--where", "name BEGINSWITH 'ab'", "--columns", "name", "--format", "csv"])
        XCTAssertEqual(fetched.stdout, "name\nab\n", "\(fetched)")
        let report = bk(["report", "customers", "--format", "csv"])
        XCTAssertEqual(report.status, 0, "\(report)")
        let names = report.stdout.split(separator: "\n").map { $0.split(separator: ",", omittingEmptySubsequences: false).first ?? "" }
        XCTAssertTrue(names.contains("ab"), report.stdout)
        XCTAssertFalse(report.stdout.utf8.contains(0), "a NUL reached the report")
    }

    func testACorruptedPageIsFoundByCheckAndOtherCommandsFailCleanly() throws {
        SampleStore.copy(to: store)
        dir.write("orders.csv", ordersCSV(prefix: "P", count: 2000))
        XCTAssertEqual(bk(["import", "Order", "orders.csv", "--quiet"]).status, 0)
        XCTAssertEqual(bk(["check", "--quiet"]).status, 0)
        // A leaf page of the Order table, from SQLite's own page map.
        let page = try XCTUnwrap(Int(try queryStore(store, "SELECT pageno FROM dbstat WHERE name = 'Order' AND pagetype = 'leaf' ORDER BY pageno LIMIT 1 OFFSET 3")[0] ?? ""))
        let pageSize = try XCTUnwrap(Int(try queryStore(store, "PRAGMA page_size")[0] ?? ""))
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: store))
        try handle.seek(toOffset: UInt64((page - 1) * pageSize + 1000))
        try handle.write(contentsOf: Data((0..<1024).map { UInt8($0 % 256) }))
        try handle.close()
        // The pages that are there: a writer's connection changes the header and may add a free page at the end
        // (GRDB makes sure the WAL file exists by creating and dropping a table); the pages must stay as they are.
        let size = fileSize(store)
        func pages() -> Data { fileBytes(store).prefix(size).dropFirst(pageSize) }
        let damaged = pages()

        let check = bk(["check"])
        XCTAssertEqual(check.status, 65, "\(check)")
        let lines = check.stderr.split(separator: "\n")
        XCTAssertTrue(lines.first?.hasPrefix("bookkeeper: \(store): integrity: On tree page \(page) ") ?? false, check.stderr)
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("bookkeeper: \(store): ") }, check.stderr)
        XCTAssertTrue(lines.last?.hasSuffix(" problems found") ?? false, check.stderr)
        XCTAssertLessThanOrEqual(lines.count, 24, "at most 20 integrity lines, then a count")
        XCTAssertEqual(check.stdout, "")

        let damage = "bookkeeper: \(store): database disk image is malformed — the store is damaged: `bookkeeper check` lists the damage; restore it from a backup\n"
        for args in [["list", "Order"], ["report", "order-details", "--param", "from=2000-01-01", "--format", "csv"], ["fetch", "Order", "--count", "--where", "made == YES"]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 74, "\(args): \(r)")
            XCTAssertEqual(r.stderr, damage, "\(args)")
        }
        let imported = bk(["import", "Order", "orders.csv"])
        XCTAssertEqual(imported.status, 74, "\(imported)")
        let importLines = imported.stderr.split(separator: "\n")
        XCTAssertEqual(importLines.first.map { "\($0)\n" }, damage, "the import says what the other commands say")
        XCTAssertTrue(importLines.count == 1 || (importLines.count == 2 && importLines[1] == "bookkeeper: nothing was imported"), imported.stderr)
        XCTAssertEqual(pages(), damaged, "nothing was written to the damaged store's pages")
        // A backup of it is refused (the copy is checked before it is kept): a backup that exists can be restored.
        let backup = bk(["backup", "copy.sqlite"])
        XCTAssertEqual(backup.status, 74, "\(backup)")
        XCTAssertTrue(backup.stderr.hasPrefix("bookkeeper: \(store): the copy fails SQLite's integrity check (On tree page \(page) "), backup.stderr)
        XCTAssertTrue(backup.stderr.hasSuffix(" — the store is damaged: `bookkeeper check` lists the damage; restore it from a backup. No copy was kept.\n"), backup.stderr)
        XCTAssertEqual(backup.stderr.split(separator: "\n").count, 1)
        XCTAssertFalse(filesIn(dir.path).contains { $0.hasPrefix("copy.sqlite") }, "\(filesIn(dir.path))")
        // What does not touch the damaged page still works.
        XCTAssertEqual(bk(["list", "Tag"]).status, 0)
        XCTAssertEqual(bk(["fetch", "Customer", "--count"]).stdout, "20\n")
    }
}
