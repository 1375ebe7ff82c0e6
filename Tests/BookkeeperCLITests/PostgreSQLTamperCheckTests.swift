import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// The tamper catalogue of `check` in PostgreSQL's terms (issue 31; SQLite's is SchemaTamperTests): for each entry,
/// another tool's change made with SQL as the books' owner (or a superuser where only one can), then `check` — the one
/// line naming the object, exit 65 — and what the change means for a read (`list`) and a write (`add`), as on a store
/// file for the same class: a dropped or changed key blocks writes; a column of another type, a trigger, a rule or
/// row-level security refuses every command but `check` (Store.open); the rest is reported. `check` and every refused
/// command leave the books as they were: every row of every table of the schema and the schema's catalog rows.
final class PostgreSQLTamperCheckTests: XCTestCase {
    var uri = ""
    var books = ""
    var schema = ""

    override func setUpWithError() throws {
        try super.setUpWithError()
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        (uri, self.books, schema) = (books.uri, books.location.displayName, books.location.schema)
        for step in [["init"], ["add", "Tag", "name=vip"], ["add", "Customer", "name=Acme", "tags=vip"], ["add", "Service", "name=S1"],
                     ["add", "Order", "number=A-1", "customer=Acme", "date=2024-03-01"], ["add", "OrderRow", "order=A-1", "service=S1", "sum=1.00"]] {
            let r = runCLI(["--store", uri] + step)
            XCTAssertEqual(r.status, 0, "\(step): \(r)")
        }
    }

    func connect(superuser: Bool = false) throws -> PostgreSQLConnection {
        let connection = try PostgreSQLConnection(conninfo: superuser ? try PostgreSQLTestDatabase.conninfo(user: "postgres")
                                                  : try PostgreSQLTestDatabase.requireConninfo())
        try connection.execute("SET search_path TO \"\(schema)\"")
        return connection
    }

    func tamper(_ statements: [String], superuser: Bool = false) throws {
        let connection = try connect(superuser: superuser)
        defer { connection.close() }
        for statement in statements { try connection.execute(statement) }
    }

    /// Every row of every table of the books' schema, and the schema's rows in the catalog (their xmin changes
    /// with any change to them).
    func snapshot() throws -> String {
        let connection = try connect()
        defer { connection.close() }
        var out = ""
        let tables = try connection.rows("SELECT c.relname::text FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'r' ORDER BY 1",
                                         [.text(schema)])
        for table in tables.compactMap({ $0.string(0) }) {
            let rows = try connection.rows("SELECT t::text FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\" t ORDER BY 1")
            out += "## \(table)\n" + rows.map { $0.string(0) ?? "NULL" }.joined(separator: "\n") + "\n"
        }
        for catalog in ["pg_class WHERE relnamespace", "pg_proc WHERE pronamespace", "pg_constraint WHERE connamespace"] {
            let rows = try connection.rows("SELECT count(*), coalesce(sum(xmin::text::bigint), 0) FROM \(catalog) = $1::regnamespace", [.text(schema)])
            out += "\(catalog): \(rows.first?.values ?? [])\n"
        }
        return out
    }

    /// Tampers, then asserts `check`'s lines (without `bookkeeper: NAME: `, the count last) and exit 65, and the exit
    /// statuses of a read and a write; the books stay as the tamper left them.
    func assertCatalogue(_ statements: [String], superuser: Bool = false, lines: [String], read: Int32, write: Int32,
                         file: StaticString = #filePath, line: UInt = #line) throws {
        try tamper(statements, superuser: superuser)
        let before = try snapshot()
        let r = runCLI(["--store", uri, "check"])
        XCTAssertEqual(r.status, 65, "\(r)", file: file, line: line)
        XCTAssertEqual(r.stdout, "", file: file, line: line)
        let count = Store.problemCount(lines)
        XCTAssertEqual(r.stderr, (lines + ["\(count) problem\(count == 1 ? "" : "s") found"]).map { "bookkeeper: \(books): \($0)\n" }.joined(),
                       file: file, line: line)
        XCTAssertEqual(runCLI(["--store", uri, "list", "Tag"]).status, read, "list", file: file, line: line)
        let add = runCLI(["--store", uri, "add", "Tag", "name=new"])
        XCTAssertEqual(add.status, write, "add: \(add)", file: file, line: line)
        if write != 0 {
            XCTAssertTrue(add.stderr.hasSuffix("nothing was changed — `bookkeeper check` lists every difference\n"), "\(add)", file: file, line: line)
            XCTAssertEqual(try snapshot(), before, "the refused write changed the books", file: file, line: line)
        }
        if read != 0 {
            XCTAssertEqual(runCLI(["--store", uri, "fetch", "Tag", "--count"]).status, read, "fetch", file: file, line: line)
        }
    }

    let blocks = "; bookkeeper writes nothing to the store until this is undone"
    let refuses = "; every command but check refuses the books until this is undone"

    // MARK: Constraints

    func testANotNullDroppedOrAddedIsReported() throws {
        try assertCatalogue([#"ALTER TABLE "Customer" ALTER COLUMN "name" DROP NOT NULL"#, #"UPDATE "Customer" SET "info" = ''"#, #"ALTER TABLE "Customer" ALTER COLUMN "info" SET NOT NULL"#],
                            lines: [#"schema: column Customer.name is text COLLATE "C" where the model's is text COLLATE "C" NOT NULL"#,
                                    #"schema: column Customer.info is text COLLATE "C" NOT NULL where the model's is text COLLATE "C""#],
                            read: 0, write: 0)
    }

    func testABooleansCheckDroppedOrAlteredAndAnotherCheckAreReported() throws {
        try assertCatalogue([#"ALTER TABLE "Order" DROP CONSTRAINT "Order_made_check""#, #"ALTER TABLE "Order" DROP CONSTRAINT "Order_paid_check""#,
                             #"ALTER TABLE "Order" ADD CONSTRAINT "Order_paid_check" CHECK ("paid" IN (0, 1, 2))"#,
                             #"ALTER TABLE "OrderRow" ADD CONSTRAINT positive CHECK ("sum" > 0)"#],
                            lines: ["schema: the CHECK (made IN (0, 1)) of Order.made is missing: it may hold other numbers",
                                    "schema: the CHECK (paid IN (0, 1)) of Order.paid is missing: it may hold other numbers",
                                    #"schema: CHECK constraint "Order_paid_check" on "Order" is not the model's (CHECK ((paid = ANY (ARRAY[(0)::bigint, (1)::bigint, (2)::bigint]))))"#,
                                    #"schema: CHECK constraint "positive" on "OrderRow" is not the model's (CHECK ((sum > 0)))"#],
                            read: 0, write: 0)
    }

    func testAUniqueConstraintAnotherToolAddedIsReported() throws {
        try assertCatalogue([#"ALTER TABLE "Customer" ADD CONSTRAINT u_info UNIQUE ("info")"#],
                            lines: [#"schema: UNIQUE constraint "u_info" on "Customer" is not the model's (UNIQUE (info))"#], read: 0, write: 0)
    }

    func testAForeignKeyDroppedOrAlteredBlocksWrites() throws {
        try assertCatalogue([#"ALTER TABLE "OrderRow" DROP CONSTRAINT "OrderRow_order_id_fkey""#,
                             #"ALTER TABLE "Order" DROP CONSTRAINT "Order_customer_id_fkey""#,
                             #"ALTER TABLE "Order" ADD CONSTRAINT "Order_customer_id_fkey" FOREIGN KEY ("customer_id") REFERENCES "Customer" ("id") ON DELETE CASCADE"#],
                            lines: [#"schema: the foreign key of Order.customer ("customer_id" REFERENCES "Customer" ON DELETE RESTRICT) is FOREIGN KEY (customer_id) REFERENCES "Customer"(id) ON DELETE CASCADE: bookkeeper relies on the model's to remove or keep linked rows on a delete"# + blocks,
                                    #"schema: the foreign key of OrderRow.order ("order_id" REFERENCES "Order" ON DELETE CASCADE) is missing: bookkeeper relies on it to remove or keep linked rows on a delete"# + blocks],
                            read: 0, write: 65)
    }

    func testAForeignKeyWhoseTriggersAreDisabledBlocksWritesAndWhatItLetInIsListed() throws {
        try assertCatalogue([#"ALTER TABLE "OrderRow" DISABLE TRIGGER ALL"#, #"ALTER TABLE "Service" DISABLE TRIGGER ALL"#, #"DELETE FROM "Service""#], superuser: true,
                            lines: [#"schema: the foreign key of OrderRow.order ("order_id" REFERENCES "Order" ON DELETE CASCADE) is not enforced: its triggers are disabled (ALTER TABLE … ENABLE TRIGGER ALL on "OrderRow" and "Order")"# + blocks,
                                    #"schema: the foreign key of OrderRow.service ("service_id" REFERENCES "Service" ON DELETE RESTRICT) is not enforced: its triggers are disabled (ALTER TABLE … ENABLE TRIGGER ALL on "OrderRow" and "Service")"# + blocks,
                                    "OrderRow/1 refers to a Service that does not exist"],
                            read: 0, write: 65)
    }

    func testAPrimaryKeyDroppedBlocksWrites() throws {
        try assertCatalogue([#"ALTER TABLE "Customer_tags" DROP CONSTRAINT "Customer_tags_pkey""#, #"INSERT INTO "Customer_tags" VALUES (1, 1)"#],
                            lines: [#"schema: the primary key of "Customer_tags" (Customer_id, Tag_id) is missing: nothing keeps its links from being kept twice"# + blocks,
                                    "Customer_tags links Customer/1 to Tag/1 2 times (a link is kept once; every count of these links is too large)"],
                            read: 0, write: 65)
    }

    // MARK: Indexes

    func testAUniqueIndexDroppedOrChangedBlocksWrites() throws {
        try assertCatalogue([#"DROP INDEX "Customer_name_unique""#, #"INSERT INTO "Customer" ("id", "name") VALUES (9, 'Acme')"#,
                             #"DROP INDEX "Tag_name_unique""#, #"CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag" ("name" COLLATE "POSIX")"#],
                            lines: [#"schema: index "Tag_name_unique" is not the model's: it is CREATE UNIQUE INDEX "Tag_name_unique" ON \#(schema)."Tag" USING btree (name COLLATE "POSIX") where the model's is CREATE UNIQUE INDEX "Tag_name_unique" ON "Tag" ("name")"# + blocks,
                                    #"schema: index "Customer_name_unique" of the model is missing (CREATE UNIQUE INDEX "Customer_name_unique" ON "Customer" ("name")): nothing keeps Customer.name unique"# + blocks,
                                    #"Customer.name (the natural key) must be unique, but 2 objects share "Acme" (Customer/1, Customer/9)"#],
                            read: 0, write: 65)
    }

    func testAnIndexDroppedOrAddedForSpeedIsReported() throws {
        try assertCatalogue([#"DROP INDEX "Order_date_index""#, #"CREATE INDEX speed ON "Customer" ("info")"#],
                            lines: [#"schema: index "speed" is not the model's (CREATE INDEX speed ON \#(schema)."Customer" USING btree (info))"#,
                                    #"schema: index "Order_date_index" of the model is missing (CREATE INDEX "Order_date_index" ON "Order" ("date"))"#],
                            read: 0, write: 0)
    }

    // MARK: What acts on bookkeeper's reads and writes

    func testATriggerOrARuleRefusesEveryCommandButCheck() throws {
        try assertCatalogue([#"CREATE FUNCTION "\#(schema)".keep() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$"#,
                             #"CREATE TRIGGER wipe BEFORE UPDATE ON "Order" FOR EACH ROW EXECUTE FUNCTION "\#(schema)".keep()"#,
                             #"CREATE RULE keep_tags AS ON DELETE TO "Tag" DO INSTEAD NOTHING"#],
                            lines: [#"schema: rule "keep_tags" on "Tag" is not the model's: it would act on bookkeeper's reads or writes (drop it: DROP RULE "keep_tags" ON "Tag")"# + refuses,
                                    #"schema: trigger "wipe" on "Order" is not the model's: it would act on bookkeeper's reads or writes (drop it: DROP TRIGGER "wipe" ON "Order")"# + refuses,
                                    "schema: function keep() is not bookkeeper's: the books' schema holds only bookkeeper's functions"],
                            read: 65, write: 65)
    }

    func testRowLevelSecurityRefusesEveryCommandButCheck() throws {
        try assertCatalogue([#"ALTER TABLE "Customer" ENABLE ROW LEVEL SECURITY"#],
                            lines: [#"schema: row-level security is on for table "Customer": it hides rows from bookkeeper's reads and refuses its writes (turn it off: ALTER TABLE "Customer" DISABLE ROW LEVEL SECURITY)"# + refuses],
                            read: 65, write: 65)
    }

    // MARK: Tables and columns

    func testAColumnOfAnotherTypeRefusesEveryCommandButCheck() throws {
        try assertCatalogue([#"ALTER TABLE "Customer" ALTER COLUMN "info" TYPE varchar(20)"#, #"ALTER TABLE "OrderRow" ALTER COLUMN "price" TYPE numeric"#],
                            lines: [#"schema: column Customer.info is character varying(20) COLLATE "default" where the model's is text COLLATE "C" (another tool changed it)"# + refuses,
                                    #"schema: column OrderRow.price is numeric where the model's is bigint (another tool changed it)"# + refuses],
                            read: 65, write: 65)
    }

    func testExtraAndMissingTablesAndColumns() throws {
        try assertCatalogue([#"CREATE TABLE notes (x integer)"#, #"CREATE VIEW recent AS SELECT 1 AS one"#, #"ALTER TABLE "Customer" ADD COLUMN fax text"#,
                             #"ALTER TABLE "Service" ADD COLUMN owner text NOT NULL DEFAULT 'x'"#, #"DROP TABLE "Customer_tags""#],
                            lines: [#"schema: column Service.owner is not the model's (text COLLATE "default" NOT NULL)"# + blocks,
                                    #"schema: table "notes" is not the model's"#, #"schema: view "recent" is not the model's"#,
                                    #"schema: table "Customer_tags" of the model is missing"#,
                                    #"schema: column Customer.fax is not the model's (text COLLATE "default")"#],
                            read: 0, write: 65)
    }

    // MARK: Our functions

    func testAFunctionReplacedDroppedOrOverloadedIsListed() throws {
        try assertCatalogue([#"CREATE OR REPLACE FUNCTION "\#(schema)".bk_debug_quote(t text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT AS $bk$ BEGIN RETURN t; END $bk$"#,
                             #"CREATE OR REPLACE FUNCTION "\#(schema)".bk_fold(x text, flags integer) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT x'"#,
                             #"DROP FUNCTION "\#(schema)".bk_localday(text)"#,
                             #"CREATE FUNCTION "\#(schema)".bk_fold(x text, flags bigint) RETURNS text LANGUAGE sql IMMUTABLE AS 'SELECT x'"#],
                            lines: ["schema: function bk_debug_quote(t text) is not bookkeeper's: another tool replaced it, and every query that calls it may answer otherwise",
                                    "schema: function bk_fold(x text, flags bigint) is not bookkeeper's: beside ours of that name it could take their calls",
                                    "schema: function bk_fold(x text, flags integer) is not bookkeeper's: another tool replaced it, and every query that calls it may answer otherwise",
                                    "schema: function bk_localday(x text) is missing (another tool dropped it): every query that calls it fails"],
                            read: 0, write: 0)
    }

    // MARK: Who runs it

    /// The read-only role runs `check`: it reads only (nothing in the books or the catalog changes), with the same
    /// lines as the owner's.
    func testTheReadOnlyRoleRunsCheckAndChangesNothing() throws {
        try tamper(["GRANT USAGE ON SCHEMA \"\(schema)\" TO bk_reader", "GRANT SELECT ON ALL TABLES IN SCHEMA \"\(schema)\" TO bk_reader"])
        let reader = uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        let readerName = books.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        var before = try snapshot()
        let clean = runCLI(["--store", reader, "check"])
        XCTAssertEqual(clean.status, 0, "\(clean)")
        XCTAssertEqual(clean.stdout, "ok: \(readerName) passed the integrity, schema, foreign key and model checks\n")
        XCTAssertEqual(try snapshot(), before)
        try tamper([#"DROP INDEX "Tag_name_unique""#, #"INSERT INTO "Tag" ("id", "name") VALUES (5, 'vip')"#])
        before = try snapshot()
        let owner = runCLI(["--store", uri, "check"])
        let r = runCLI(["--store", reader, "check"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, owner.stderr.replacingOccurrences(of: books, with: readerName))
        XCTAssertTrue(r.stderr.contains(#"Tag.name (the natural key) must be unique, but 2 objects share "vip" (Tag/1, Tag/5)"#), r.stderr)
        XCTAssertEqual(try snapshot(), before)
    }
}
