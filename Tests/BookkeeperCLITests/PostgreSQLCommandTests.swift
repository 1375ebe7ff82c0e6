import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// Issue 30: the commands of part 1 — init, add, set, delete, show, list, fetch — on books on PostgreSQL give what
/// they give on a store file: one script of commands (every kind of value, Unicode names, the sorts, aggregates, lists,
/// groups, every output format, refusals), run on both, the same exit statuses and the same bytes on stdout and stderr
/// but for the store's name. And every way PostgreSQL refuses has its exit status and one line.
final class PostgreSQLCommandTests: XCTestCase {
    /// The script: each step's arguments after `--store`.
    static let script: [[String]] = {
        var s: [[String]] = [["init"]]
        for tag in ["vip", "wholesale", "slow payer, late"] { s.append(["add", "Tag", "name=\(tag)"]) }
        let customers = ["Müller", "muller", "Straße", "STRASSE", "Item 10", "item 9", "Zoë", "O'Brien", "ann", "Émile", "émile", "file2"]
        for (i, name) in customers.enumerated() {
            var step = ["add", "Customer", "name=\(name)", "code=C\(i % 5)\(i)"]
            if i % 3 == 0 { step.append("tags=vip, \"slow payer, late\"") }
            if i % 4 == 1 { step.append("info=note \(i)") }
            s.append(step)
        }
        for (i, service) in ["Design", "Print", "Delivery"].enumerated() { s.append(["add", "Service", "name=\(service)", "code=S\(i)"]) }
        for k in 1...9 {
            var step = ["add", "Order", "number=N-\(k)", "date=2026-0\(k % 9 + 1)-1\(k)", "made=\(k % 2 == 0 ? "yes" : "no")"]
            if k % 4 != 0 { step.append("customer=\(customers[k % customers.count])") }
            s.append(step)
            for r in 0..<(k % 3 + 1) {
                s.append(["add", "OrderRow", "order=N-\(k)", "service=\(["Design", "Print", "Delivery"][r])",
                          "quantity=\(r + 1).5", "price=\(k)\(r).99", "sum=\(k * 1000 + r).25"])
            }
        }
        // Sums past an Int64 of units: exact on both.
        s.append(["add", "Order", "number=W-1", "date=2026-12-31"])
        for _ in 0..<3 { s.append(["add", "OrderRow", "order=W-1", "service=Print", "sum=92233720368547758.00"]) }
        s += [
            ["fetch", "Order", "--where", "rows.@sum.sum > 100000000000000000.00", "--columns", "number, rows.@sum.sum, rows.@avg.sum, rows.@max.sum"],
            ["fetch", "OrderRow", "--group", "order.number", "--columns", "order.number, sum:sum, avg:sum", "--sort", "sum:sum desc", "--format", "csv"],
            ["fetch", "Order", "--sort", "rows.@sum.sum desc", "--columns", "number, rows.@sum.sum", "--format", "json"],
            ["set", "Order", "N-1", "paid=yes"], ["set", "Customer", "Müller", "info=changed"], ["set", "Order", "N-3", "customer="],
            ["show", "Customer", "Müller"], ["show", "Order", "N-1"], ["show", "Customer", "Customer/3"],
            ["list", "Customer"], ["list", "Order"], ["list", "OrderRow"], ["list", "Tag"],
            ["fetch", "Customer", "--sort", "name"], ["fetch", "Customer", "--sort", "name nocase"],
            ["fetch", "Customer", "--sort", "name natural"], ["fetch", "Customer", "--sort", "name desc natural"],
            ["fetch", "Customer", "--where", "name ==[cd] 'MULLER'"], ["fetch", "Customer", "--where", "name BEGINSWITH[c] 'str'"],
            ["fetch", "Customer", "--where", "name LIKE[c] '*e'"], ["fetch", "Customer", "--where", "name MATCHES '[a-z]+ [0-9]+'"],
            ["fetch", "Customer", "--where", "info == nil", "--count"],
            ["fetch", "Customer", "--columns", "name, tags.name, orders.@count, orders.rows.@sum.sum", "--sort", "name"],
            ["fetch", "Order", "--columns", "number, date, made, paid, customer.name, rows.@sum.sum, rows.@avg.price, rows.@max.quantity",
             "--sort", "date desc"],
            ["fetch", "Order", "--where", "rows.@sum.sum > 5000", "--columns", "number, rows.sum"],
            ["fetch", "Order", "--where", "made == YES AND paid == NO", "--format", "csv"],
            ["fetch", "Order", "--columns", "number, customer.name, rows.@sum.sum", "--format", "json", "--limit", "3", "--offset", "2"],
            ["fetch", "Order", "--group", "customer.name", "--columns", "customer.name, count, sum:rows.sum", "--sort", "customer.name"],
            ["fetch", "Order", "--group", "made", "--columns", "made, count", "--format", "csv"],
            ["fetch", "Order", "--columns", "month(date), number", "--sort", "number"],
            ["fetch", "OrderRow", "--where", "order.customer.name IN {'Müller', 'Zoë', 'ann'}", "--columns", "order.number, sum"],
            ["fetch", "OrderRow", "--where", "SUBQUERY(order.rows, $r, $r.sum > 3000).@count > 0", "--count"],
            ["fetch", "Order", "--where", "date BETWEEN {'2026-02-01', '2026-06-30'}", "--sort", "date"],
            ["fetch", "Customer", "--where", "ANY tags.name == 'vip'", "--columns", "name", "--format", "csv"],
            ["add", "Customer", "name=Müller"], ["add", "Order", "number=N-99", "customer=Nobody"],
            ["add", "OrderRow", "order=N-1", "service=Design"], ["set", "Order", "N-404", "paid=yes"],
            ["delete", "Customer", "Item 10"], ["delete", "Order", "N-2"], ["delete", "Customer", "Item 10"],
            ["delete", "Tag", "vip"], ["list", "OrderRow"], ["fetch", "Customer", "--columns", "name, tags.name", "--sort", "name"],
            ["show", "Order", "N-2"], ["fetch", "Nothing"], ["fetch", "Order", "--where", "number =="],
        ]
        return s
    }()

    func testEveryCommandOfPartOneAnswersAsOnAStoreFile() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let dir = TemporaryDirectory("pg-commands")
        let file = dir.file("books.sqlite")
        var compared = 0
        for step in Self.script {
            let onFile = runCLI(["--store", file] + step, in: dir.path)
            let onServer = runCLI(["--store", books.uri] + step, in: dir.path)
            func normalised(_ text: String, _ name: String) -> String { text.replacingOccurrences(of: name, with: "STORE") }
            let shownName = books.location.displayName
            XCTAssertEqual(onServer.status, onFile.status, "\(step): exit status\nfile: \(onFile)\nserver: \(onServer)")
            XCTAssertEqual(normalised(onServer.stdout, shownName), normalised(onFile.stdout, file), "\(step): stdout")
            XCTAssertEqual(normalised(onServer.stderr, shownName), normalised(onFile.stderr, file), "\(step): stderr")
            compared += 1
        }
        XCTAssertGreaterThan(compared, 60)
    }

    /// MATCHES outside the subset both stores answer alike (docs/queries.md) is refused on PostgreSQL at the pattern.
    func testMatchesOutsideTheSubsetIsALocatedRefusal() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        let r = runCLI(["--store", books.uri, "fetch", "Customer", "--where", "name MATCHES '\\\\p{L}+'"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: where: invalid regular expression \"\\\\p{L}+\": \\p (a Unicode property) is not in the MATCHES subset "
                       + "PostgreSQL stores answer identically (at character 1)\n")
    }

    func testExplainShowsPostgreSQLsStatement() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        let r = runCLI(["--store", books.uri, "fetch", "Customer", "--where", "name ==[c] %@", "--arg", "x", "--sort", "name natural", "--explain"])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(r.stdout.contains("bk_fold(t0.\"name\", 1) IS NOT DISTINCT FROM $1"), r.stdout)
        XCTAssertTrue(r.stdout.contains("bk_natural_key(t0.\"name\") ASC NULLS FIRST"), r.stdout)
    }

    // MARK: Refusals, each with its exit status and one line

    private func oneLine(_ r: CLIResult, _ status: Int32, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, status, "\(r)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(words), "\(r)", file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").filter { !$0.hasPrefix("bookkeeper: warning") }.count, 1, "one line: \(r)", file: file, line: line)
    }

    func testAServerThatCannotBeReachedIs69() throws {
        _ = try PostgreSQLTestDatabase.requireConninfo()
        let r = runCLI(["--store", "postgresql://bk_owner@%2Fnonexistent-socket-folder:5432/bk_test", "list", "Tag"])
        oneLine(r, 69, "cannot reach the database server")
    }

    func testAFailedAuthenticationIs77AndThePasswordIsShownNowhere() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self, user: "bk_secret")
        let password = "wrong-\(UInt32.random(in: 0...UInt32.max))"
        let uri = books.uri.replacingOccurrences(of: "bk_secret@", with: "bk_secret:\(password)@")
        let r = runCLI(["--store", uri, "list", "Tag"])
        oneLine(r, 77, "the database server refused this user")
        XCTAssertFalse(r.stderr.contains(password) || r.stdout.contains(password), "\(r)")
        XCTAssertTrue(r.stderr.contains("visible to other users in `ps`"), "the password in --store is warned about: \(r)")
        // The right password, given through PGPASSWORD, is taken; a later refusal still names no password.
        let right = runCLI(["--store", books.uri, "list", "Tag"], environment: ["PGPASSWORD": PostgreSQLTestDatabase.secretPassword])
        XCTAssertFalse(right.stderr.contains(PostgreSQLTestDatabase.secretPassword), "\(right)")
        XCTAssertFalse(right.stderr.contains("visible to other users"), "\(right)")
    }

    func testAMissingDatabaseOrSchemaIs66() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        oneLine(runCLI(["--store", books.uri.replacingOccurrences(of: "/bk_test?", with: "/no_such_database?"), "list", "Tag"]), 66, "no such database")
        oneLine(runCLI(["--store", books.uri, "list", "Tag"]), 66, "no such store")
    }

    func testASchemaThatHoldsNoBooksIs65() throws {
        let (schema, _) = try PostgreSQLTestDatabase.freshSchema(self)
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let uri = books.uri.replacingOccurrences(of: "schema=\(books.location.schema)", with: "schema=\(schema)")
        oneLine(runCLI(["--store", uri, "list", "Tag"]), 65, "not a bookkeeper store")
    }

    func testAReadOnlyRoleFetchesAndAWriteIs73() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        XCTAssertEqual(runCLI(["--store", books.uri, "add", "Tag", "name=vip"]).status, 0)
        let owner = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { owner.close() }
        let schema = "\"\(books.location.schema)\""
        // The read-only role's grants, as docs/postgresql.md gives them.
        try owner.execute("GRANT USAGE ON SCHEMA \(schema) TO bk_reader")
        try owner.execute("GRANT SELECT ON ALL TABLES IN SCHEMA \(schema) TO bk_reader")
        try owner.execute("GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \(schema) TO bk_reader")
        let reader = books.uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        let fetched = runCLI(["--store", reader, "fetch", "Tag", "--where", "name ==[c] 'VIP'", "--columns", "name", "--format", "csv"])
        XCTAssertEqual(fetched.status, 0, "\(fetched)")
        XCTAssertEqual(fetched.stdout, "name\nvip\n")
        oneLine(runCLI(["--store", reader, "add", "Tag", "name=wholesale"]), 73, "read-only")
        XCTAssertEqual(runCLI(["--store", books.uri, "fetch", "Tag", "--count"]).stdout, "1\n", "nothing was written")
    }

    /// A writer that cannot have the books' lock within --wait (another writer holds it) is refused as busy, 75,
    /// having written nothing.
    func testAWriterThatCannotHaveTheLockInTimeIs75() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        let holder = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo(),
                                              writeLockKey: PostgreSQLBooks.writeLockKey(schema: books.location.schema))
        defer { holder.close() }
        try holder.transaction(.immediate) {
            oneLine(runCLI(["--store", books.uri, "--wait", "0.3", "add", "Tag", "name=vip"]), 75, "store is busy")
            // Readers never wait for the writer.
            XCTAssertEqual(runCLI(["--store", books.uri, "--wait", "0", "fetch", "Tag", "--count"]).stdout, "0\n")
            return .rollback
        }
        XCTAssertEqual(runCLI(["--store", books.uri, "--wait", "0", "add", "Tag", "name=vip"]).status, 0, "the lock is free again")
    }

    func testCommandsOfLaterPartsRefuseInOneLine() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        let dir = TemporaryDirectory("pg-refusals")
        let csv = dir.write("tags.csv", "name\nx\n")
        for step in [["import", "Tag", csv], ["export", "Tag"], ["report", "customers"], ["check"], ["backup", dir.file("b.sqlite")],
                     ["migrate"], ["imports"], ["update", "Tag", "--where", "TRUEPREDICATE", "--set", "name=y"],
                     ["delete", "Tag", "--where", "TRUEPREDICATE"]] {
            let r = runCLI(["--store", books.uri] + step)
            oneLine(r, 69, "does not work on books on PostgreSQL yet")
        }
        XCTAssertEqual(runCLI(["--store", books.uri, "fetch", "Tag", "--count"]).stdout, "0\n")
    }

    func testADatabaseNotInUTF8IsRefused() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        oneLine(runCLI(["--store", books.uri.replacingOccurrences(of: "/bk_test?", with: "/bk_latin1?"), "init"]), 69, "cannot hold books")
    }

    func testInitOnBooksOfAnotherModelIsRefusedAndTheRecordedModelRules() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let dir = TemporaryDirectory("pg-model")
        let model = dir.write("model.yaml", "entities:\n  Note:\n    kind: directory\n    key: text\n    attributes:\n      text: {type: string, required: true}\n")
        XCTAssertEqual(runCLI(["--store", books.uri, "--model", model, "init"]).status, 0)
        // Another machine without the model file: the books' own model answers.
        XCTAssertEqual(runCLI(["--store", books.uri, "add", "Note", "text=hello"], in: dir.path).status, 0)
        XCTAssertEqual(runCLI(["--store", books.uri, "fetch", "Note", "--columns", "text", "--format", "csv"]).stdout, "text\nhello\n")
        oneLine(runCLI(["--store", books.uri, "init"]), 65, "different model")
        XCTAssertEqual(runCLI(["--store", books.uri, "--model", model, "init"]).status, 0, "the same model: nothing to do")
    }
}
