import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// Issue 31: `import` on books on PostgreSQL gives what it gives on a store file — the same objects with the same IDs,
/// the same `export` and `fetch` bytes, the same messages — in one transaction: a refused file leaves the books as
/// they were, a dry run changes nothing, a file imported again changes nothing.
final class PostgreSQLImportTests: XCTestCase {
    var sampleData: URL { packageRoot.appendingPathComponent("SampleData") }

    /// A store file and books on PostgreSQL, both made by `init`, and the folder the commands run in.
    func bothStores() throws -> (dir: TemporaryDirectory, file: String, books: String, booksName: String) {
        let dir = TemporaryDirectory("pg-import")
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let file = dir.file("books.sqlite")
        for store in [file, books.uri] { XCTAssertEqual(runCLI(["--store", store, "init"], in: dir.path).status, 0) }
        return (dir, file, books.uri, books.location.displayName)
    }

    /// `make run`'s four imports of the sample data, with the shipped profiles.
    func importSampleData(_ store: String, in dir: TemporaryDirectory) {
        for (file, entity) in [("tags", "Tag"), ("services", "Service"), ("customers", "Customer"), ("orders", "Order")] {
            let r = runCLI(["--store", store, "import", entity, sampleData.appendingPathComponent("\(file).csv").path,
                            "--profile", sampleData.appendingPathComponent("\(file).yaml").path, "--quiet"], in: dir.path)
            XCTAssertEqual(r.status, 0, "\(store): import \(entity): \(r)")
            XCTAssertEqual(r.stdout + r.stderr, "")
        }
    }

    /// Everything in the books as the commands show it, the import history's counts included (not its times).
    func dump(_ store: String, in dir: TemporaryDirectory) throws -> String {
        var out = dumpThroughCommands(store, entities: StoreCommandTestCase.defaultModelColumns, in: dir.path)
        let history = runCLI(["--store", store, "imports", "--format", "json"], in: dir.path)
        XCTAssertEqual(history.status, 0, "\(history)")
        let entries = try JSONSerialization.jsonObject(with: Data(history.stdout.utf8)) as? [[String: Any]] ?? []
        for entry in entries {
            out += ["id", "file", "sha256", "entity", "records", "rejected", "encoding"].map { "\(entry[$0] ?? "-")" }.joined(separator: " ")
            out += " \((entry["counts"] as? [String: Any]).map { "\($0.keys.sorted())" } ?? "-")\n"
        }
        return out
    }

    func testTheSampleDataGivesByteIdenticalExportsAndFetchesOnBothKinds() throws {
        let (dir, file, books, _) = try bothStores()
        for store in [file, books] { importSampleData(store, in: dir) }
        for entity in ["Tag", "Service", "Customer", "Order", "OrderRow"] {
            let onFile = runCLI(["--store", file, "export", entity], in: dir.path)
            let onBooks = runCLI(["--store", books, "export", entity], in: dir.path)
            XCTAssertEqual(onFile.status, 0, "\(onFile)")
            XCTAssertGreaterThan(onFile.stdout.split(separator: "\n").count, 1, "export \(entity) has objects")
            XCTAssertEqual(onBooks.status, 0, "\(onBooks)")
            XCTAssertEqual(Data(onBooks.stdout.utf8), Data(onFile.stdout.utf8), "export \(entity): byte for byte")
            XCTAssertEqual(onBooks.stderr, onFile.stderr)
        }
        XCTAssertEqual(try dump(books, in: dir), try dump(file, in: dir), "every object, its ID and the history's counts")
        for args in [["fetch", "Order", "--columns", "number, date, customer.name, rows.@sum.sum, rows.@count", "--format", "csv"],
                     ["fetch", "OrderRow", "--group", "service.name", "--columns", "service.name, count, sum:sum", "--sort", "service.name"],
                     ["fetch", "Customer", "--columns", "name, code, tags.name, orders.@count", "--sort", "name natural", "--format", "json"]] {
            let onFile = runCLI(["--store", file] + args, in: dir.path), onBooks = runCLI(["--store", books] + args, in: dir.path)
            XCTAssertEqual(onFile.status, 0, "\(onFile)")
            XCTAssertEqual(Data(onBooks.stdout.utf8), Data(onFile.stdout.utf8), "\(args)")
        }
    }

    /// A file refused for a bad line in its middle (the profile says abort) leaves the books exactly as they were,
    /// with the messages a store file gives (file:line:column); so does a broken reference, found at the end.
    func testARefusedFileLeavesTheBooksAsTheyWereWithTheFilesMessages() throws {
        let (dir, file, books, _) = try bothStores()
        for store in [file, books] { importSampleData(store, in: dir) }
        var text = "number,date,customer,rows.service,rows.sum\n"
        for i in 0..<400 { text += "P-\(i),2026-03-0\(i % 9 + 1),Smith & Sons,Delivery,\(i).25\n" }
        text += "P-bad,2026-02-30,Smith & Sons,Delivery,1.00\n"
        for i in 400..<800 { text += "P-\(i),2026-03-0\(i % 9 + 1),Smith & Sons,Delivery,\(i).25\n" }
        dir.write("orders.csv", text)
        dir.write("abort.yaml", "entity: Order\non-error: abort\n")
        dir.write("ghost.csv", "number,date,customer\nG-1,2026-01-01,Nobody Ltd\n")
        for args in [["import", "Order", "orders.csv", "--profile", "abort.yaml"], ["import", "Order", "ghost.csv"]] {
            let before = try PostgreSQLTestDatabase.dump(books: books)
            let onBooks = runCLI(["--store", books] + args, in: dir.path)
            let onFile = runCLI(["--store", file] + args, in: dir.path)
            XCTAssertEqual(onBooks.status, 65, "\(onBooks)")
            XCTAssertEqual(onBooks.status, onFile.status)
            XCTAssertEqual(onBooks.stderr, onFile.stderr, "the same messages")
            XCTAssertEqual(onBooks.stdout, onFile.stdout)
            XCTAssertEqual(try PostgreSQLTestDatabase.dump(books: books), before, "every table as it was, the history and ID marks too")
        }
        let r = runCLI(["--store", books, "import", "Order", "orders.csv", "--profile", "abort.yaml"], in: dir.path)
        XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: orders.csv:402:"), r.stderr)
    }

    /// The import history makes a second import of the same file change nothing: every record unchanged, the books
    /// as they were but for the history's new line; a dry run writes nothing, not even its line.
    func testImportingAFileAgainChangesNothingAndADryRunWritesNothing() throws {
        let (dir, _, books, _) = try bothStores()
        importSampleData(books, in: dir)
        let before = try dump(books, in: dir)
        let orders = sampleData.appendingPathComponent("orders.csv").path, profile = sampleData.appendingPathComponent("orders.yaml").path
        let again = runCLI(["--store", books, "import", "Order", orders, "--profile", profile], in: dir.path)
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertTrue(again.stdout.contains("  Order     0 inserted, 0 updated, 50 unchanged, 0 rejected"), again.stdout)
        XCTAssertTrue(again.stdout.contains("  OrderRow  0 inserted, 0 updated, 125 unchanged, 0 deleted, 0 rejected"), again.stdout)
        let after = try dump(books, in: dir)
        XCTAssertTrue(after.hasPrefix(before), "the objects unchanged; one more line in the history")
        XCTAssertEqual(after.split(separator: "\n").count, before.split(separator: "\n").count + 1)
        let whole = try PostgreSQLTestDatabase.dump(books: books)
        dir.write("new.csv", "name\nbrand new\n")
        let dry = runCLI(["--store", books, "import", "Tag", "new.csv", "--dry-run"], in: dir.path)
        XCTAssertEqual(dry.status, 0, "\(dry)")
        XCTAssertTrue(dry.stdout.hasSuffix("dry run: nothing was written\n"), dry.stdout)
        XCTAssertEqual(try dump(books, in: dir), after, "a dry run changes nothing")
        XCTAssertEqual(try PostgreSQLTestDatabase.dump(books: books), whole, "not a byte of any table")
    }

    /// `--on-error skip` on PostgreSQL: the good records kept, the bad lines in the rejects file with their reasons,
    /// as on a store file (each record in a savepoint the server rolls back alone).
    func testSkipKeepsTheGoodRecordsAndWritesTheSameRejects() throws {
        let (dir, file, books, _) = try bothStores()
        dir.write("c.csv", "name,code\nAcme,C1\n,C2\nBolt,C3\nCog,C1\nDyn,C5\n")
        var rejects: [String] = []
        for (n, store) in [file, books].enumerated() {
            let r = runCLI(["--store", store, "import", "Customer", "c.csv", "--on-error", "skip", "--rejects", "r\(n).csv"], in: dir.path)
            XCTAssertEqual(r.status, 65, "\(r)")
            rejects.append(try String(contentsOfFile: dir.file("r\(n).csv"), encoding: .utf8))
        }
        XCTAssertEqual(rejects[1], rejects[0])
        XCTAssertEqual(try dump(books, in: dir), try dump(file, in: dir))
    }

    /// The read-only role (docs/postgresql.md's grants) lists the history and exports; its import is refused as any
    /// write is (73), dry run or not, and writes nothing.
    func testTheReadOnlyRoleExportsAndListsImportsAndItsImportIs73() throws {
        let (dir, _, books, _) = try bothStores()
        importSampleData(books, in: dir)
        let owner = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { owner.close() }
        let schema = "\"\(try PostgreSQLLocation(uri: books).schema)\""
        try owner.execute("GRANT USAGE ON SCHEMA \(schema) TO bk_reader")
        try owner.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \(schema) TO bk_reader")
        let reader = books.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        for args in [["export", "Order"], ["imports", "--format", "json"]] {
            let asReader = runCLI(["--store", reader] + args, in: dir.path), asOwner = runCLI(["--store", books] + args, in: dir.path)
            XCTAssertEqual(asReader.status, 0, "\(args): \(asReader)")
            XCTAssertEqual(asReader.stdout, asOwner.stdout, "\(args)")
        }
        let before = try PostgreSQLTestDatabase.dump(books: books)
        dir.write("t.csv", "name\nnew\n")
        for dryRun in [[], ["--dry-run"]] {
            let r = runCLI(["--store", reader, "import", "Tag", "t.csv"] + dryRun, in: dir.path)
            XCTAssertEqual(r.status, 73, "\(dryRun): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(try PostgreSQLLocation(uri: reader).displayName): the store is read-only\n", "\(dryRun)")
        }
        XCTAssertEqual(try PostgreSQLTestDatabase.dump(books: books), before)
    }

    /// A path of the store that is SQLite's own, reached on books on PostgreSQL, is refused in one line: it trapped
    /// (Store.queue, a force-unwrapped connection).
    func testAFilePartOfTheStoreReachedOnBooksOnPostgreSQLIsRefusedNotATrap() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let store = try Store.create(books: books.location, model: try ObjectModel(entities: [Entity("Note", kind: .directory, attributes: [EntityAttribute("text", .string)])]))
        defer { store.closeConnection() }
        let dir = TemporaryDirectory("pg-file-only")
        let target = dir.file("copy.sqlite")
        XCTAssertThrowsError(try store.backup(to: target)) { error in
            XCTAssertEqual(error as? StoreError, .fileOnly(path: books.location.displayName))
            XCTAssertEqual("\(error)", "\(books.location.displayName): this works on store files (SQLite) only, not on books on PostgreSQL yet")
        }
    }
}
