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
            // A set that changes nothing (attack 19: a syntax error on PostgreSQL, exit 74).
            ["set", "Customer", "Müller", "info=changed"], ["set", "Order", "N-1", "paid=yes", "made=no"],
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

    /// Every command works on books on PostgreSQL but `backup`, which copies SQLite stores: refused for good (64),
    /// pointing to what will copy such books, writing no file and changing nothing.
    func testBackupIsRefusedPointingToCopy() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        let dir = TemporaryDirectory("pg-refusals")
        oneLine(runCLI(["--store", books.uri, "backup", dir.file("b.sqlite")]), 64,
                "`backup` copies SQLite stores; books on PostgreSQL get `copy` (to a SQLite file) in a later version")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("b.sqlite")))
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

    // MARK: Attack 19's findings

    /// A password that holds `?` is the URI's user part all the same (libpq reads it so): shown nowhere, warned about.
    func testAPasswordWithAQuestionMarkIsShownNowhere() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self, user: "bk_secret")
        let password = "pw?with-question-\(UInt32.random(in: 0...UInt32.max))"
        let uri = books.uri.replacingOccurrences(of: "bk_secret@", with: "bk_secret:\(password)@")
        let r = runCLI(["--store", uri, "add", "Tag", "name=x"])
        XCTAssertEqual(r.status, 77, "\(r)")
        XCTAssertFalse(r.stderr.contains(password) || r.stdout.contains(password) || r.stderr.contains("with-question"), "\(r)")
        XCTAssertTrue(r.stderr.contains("visible to other users in `ps`"), "\(r)")
    }

    /// A URI libpq cannot read is quoted by libpq, password and all: never in bookkeeper's words; a usage error, 64.
    func testAMalformedURIQuotesNoPassword() throws {
        _ = try PostgreSQLTestDatabase.requireConninfo()
        let password = "not-the-password-\(UInt32.random(in: 0...UInt32.max))"
        for uri in ["postgresql://bk_secret:\(password)@[::1]x:5490/bk_test", "postgresql://bk_secret:\(password)@[::1/bk_test"] {
            let r = runCLI(["--store", uri, "list", "Tag"])
            oneLine(r, 64, "cannot be made as written")
            XCTAssertFalse(r.stderr.contains(password), "\(r)")
        }
    }

    /// `?%70assword=` is `password=` to libpq: a secret like the other.
    func testAPercentEncodedPasswordParameterIsShownNowhere() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self, user: "bk_secret")
        let uri = books.uri + "&%70assword=\(PostgreSQLTestDatabase.secretPassword)"
        let r = runCLI(["--store", uri, "list", "Tag"])
        XCTAssertEqual(r.status, 66, "it connects; the books are not made: \(r)")
        XCTAssertFalse(r.stderr.contains(PostgreSQLTestDatabase.secretPassword), "\(r)")
        XCTAssertTrue(r.stderr.contains("visible to other users in `ps`"), "\(r)")
    }

    /// A parameter libpq does not take is the user's to mend (64), not an unreachable server (69).
    func testAMalformedURIParameterIs64() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        oneLine(runCLI(["--store", books.uri + "&bogus=1", "list", "Tag"]), 64, "cannot be made as written")
        oneLine(runCLI(["--store", books.uri + "&sslmode=bogus", "list", "Tag"]), 64, "cannot be made as written")
        oneLine(runCLI(["--store", books.uri + "&schema=other", "list", "Tag"]), 64, "the schema is given twice")
        for schema in ["pg_mine", "pg_catalog", "information_schema"] {
            oneLine(runCLI(["--store", books.uri, "--schema", schema, "init"]), 64, "is PostgreSQL's own")
        }
    }

    /// The role's, the database's or PGOPTIONS' settings do not change what is read: doubles to their shortest exact
    /// digits, bytes as bytes (attack 19: extra_float_digits = 0 and bytea_output = escape did).
    func testSessionSettingsOfTheRoleDoNotChangeValues() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let dir = TemporaryDirectory("pg-settings")
        let model = dir.write("model.yaml", "entities:\n  Thing:\n    kind: directory\n    attributes:\n      name: {type: string, required: true}\n"
                              + "      g: {type: double}\n      b: {type: binary}\n")
        let file = dir.file("books.sqlite")
        let odd = ["PGOPTIONS": "-c extra_float_digits=0 -c bytea_output=escape -c DateStyle=German -c IntervalStyle=sql_standard"]
        for store in [books.uri, file] {
            XCTAssertEqual(runCLI(["--store", store, "--model", model, "init"], in: dir.path).status, 0)
            XCTAssertEqual(runCLI(["--store", store, "--model", model, "add", "Thing", "name=x", "g=0.30000000000000004", "b=0x00ff41"], in: dir.path, environment: odd).status, 0)
            XCTAssertEqual(runCLI(["--store", store, "--model", model, "add", "Thing", "name=y", "g=1.7976931348623157e308"], in: dir.path, environment: odd).status, 0)
        }
        let onServer = runCLI(["--store", books.uri, "fetch", "Thing", "--columns", "name, g, b", "--format", "json"], in: dir.path, environment: odd)
        let onFile = runCLI(["--store", file, "--model", model, "fetch", "Thing", "--columns", "name, g, b", "--format", "json"], in: dir.path)
        XCTAssertEqual(onServer.status, 0, "\(onServer)")
        XCTAssertEqual(onServer.stdout, onFile.stdout)
        XCTAssertTrue(onServer.stdout.contains("0.30000000000000004"), onServer.stdout)
    }

    /// Another tool's collation on a model column changes `<` and sorts: refused by every command; a trigger, a rule
    /// or row-level security acts on writes unseen: refused too. One line each, 65, nothing changed.
    func testAnotherToolsCollationOrTriggerIsRefused() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        XCTAssertEqual(runCLI(["--store", books.uri, "add", "Order", "number=A-1", "date=2026-01-01"]).status, 0)
        let owner = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { owner.close() }
        let schema = "\"\(books.location.schema)\""
        try owner.execute("ALTER TABLE \(schema).\"Customer\" ALTER COLUMN name TYPE text COLLATE \"POSIX\"")
        var r = runCLI(["--store", books.uri, "fetch", "Customer", "--where", "name < 'b'"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("Customer.name is text COLLATE \"POSIX\", not the model's text COLLATE \"C\""), r.stderr)
        try owner.execute("ALTER TABLE \(schema).\"Customer\" ALTER COLUMN name TYPE text COLLATE \"C\"")
        XCTAssertEqual(runCLI(["--store", books.uri, "fetch", "Customer", "--count"]).status, 0, "undone: it answers again")
        try owner.execute("""
            CREATE FUNCTION \(schema).t() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
            CREATE TRIGGER sneaky AFTER UPDATE ON \(schema)."Order" FOR EACH ROW EXECUTE FUNCTION \(schema).t()
            """)
        r = runCLI(["--store", books.uri, "set", "Order", "A-1", "paid=yes"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("trigger \"sneaky\" on Order is not the model's"), r.stderr)
        try owner.execute("DROP TRIGGER sneaky ON \(schema).\"Order\"")
        try owner.execute("ALTER TABLE \(schema).\"Order\" ENABLE ROW LEVEL SECURITY")
        r = runCLI(["--store", books.uri, "set", "Order", "A-1", "paid=yes"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("row-level security is on for Order"), r.stderr)
        try owner.execute("ALTER TABLE \(schema).\"Order\" DISABLE ROW LEVEL SECURITY")
        XCTAssertEqual(runCLI(["--store", books.uri, "fetch", "Order", "--where", "paid == NO", "--count"]).stdout, "1\n", "nothing was changed")
    }

    /// A role without USAGE on the books' schema may not use them: 77, not "not a bookkeeper store".
    func testARoleWithoutUsageIs77() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        let reader = books.uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        oneLine(runCLI(["--store", reader, "list", "Tag"]), 77, "no USAGE privilege on schema")
    }

    /// A zone the server cannot take (one with leap seconds) is said so, 69 — not an I/O error.
    func testATimeZoneTheServerDoesNotKnowIs69() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        guard FileManager.default.fileExists(atPath: "/usr/share/zoneinfo/right/Europe/Berlin") else {
            throw XCTSkip("no right/ zones in /usr/share/zoneinfo")
        }
        oneLine(runCLI(["--store", books.uri, "list", "Tag"], environment: ["TZ": "right/Europe/Berlin"]), 69, "does not know the time zone right/Europe/Berlin")
    }
}
