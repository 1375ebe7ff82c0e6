// Injection (issue 6, "Hostile and broken input"): predicates, parameters, CSV values and headers, entity,
// key and attribute names, report parameters and report and model definitions carrying the classic SQL
// strings. Values are bound, never spliced; names are checked against the model before any SQL exists.
// Each attempt gets a one-line message and a documented status, and the store is untouched — or, where
// the string is a legitimate value, it is stored exactly as written.

import Foundation
import TestSupport
import XCTest

final class ReliabilityInjectionTests: SampleStoreTestCase {
    func testHostileArgumentsAreRefusedInOneLineAndTheStoreIsUntouched() throws {
        dir.write("t.csv", "name\nq\n")
        dir.write("evil-header.csv", "name\"; DROP TABLE Customer; --\nq\n")
        let cases: [([String], Int32, String)] = [
            // Predicates, sort keys, columns, group keys and placeholders are parsed and bound against the model.
            (["fetch", "Customer", "--where", "name == 'a' OR 1=1; DROP TABLE Customer; --"], 64,
             "bookkeeper: where:1:19: unexpected character \";\"; combine conditions with AND or OR"),
            (["fetch", "Customer", "--where", "%K == 1", "--arg", "name; DROP TABLE Customer"], 64,
             "bookkeeper: where:1:1: argument 1 for %K is not a key path: \"name; DROP TABLE Customer\"; unexpected character \";\""),
            (["fetch", "Customer", "--sort", "name; DROP TABLE Customer"], 64,
             "bookkeeper: sort:1:7: unknown sort option \"DROP\" (write asc or desc, and binary, nocase or natural)"),
            (["fetch", "Customer", "--columns", "name, (SELECT 1)"], 64, "bookkeeper: columns:1:7: expected a key path, found \"(\""),
            (["fetch", "Customer", "--group", "name) --"], 64,
             "bookkeeper: group:1:5: expected end of key path after \"name\", found \")\"; a key path is keys joined by dots, as in customer.name"),
            // Entity and key names.
            (["fetch", "Customer; DROP TABLE x"], 64, "bookkeeper: unknown entity \"Customer; DROP TABLE x\""),
            (["list", "Customer\"; DROP TABLE Customer; --"], 64, "bookkeeper: unknown entity \"Customer\"; DROP TABLE Customer; --\""),
            (["export", "Order\"; DROP TABLE \"Order"], 64, "bookkeeper: unknown entity \"Order\"; DROP TABLE \"Order\""),
            (["add", "Customer", "name\"=x"], 64, "bookkeeper: unknown key \"name\"\" on Customer — did you mean \"name\"?"),
            (["set", "Customer", "Acme Ltd", "info\"=1; --=x"], 64, "bookkeeper: unknown key \"info\"\" on Customer — did you mean \"info\"?"),
            // Natural keys are values.
            (["show", "Customer", "x' OR '1'='1"], 66, "bookkeeper: Customer with name \"x' OR '1'='1\" not found"),
            (["delete", "Customer", "x' OR '1'='1"], 66, "bookkeeper: Customer with name \"x' OR '1'='1\" not found"),
            // Import: entity, --map, --key and a header.
            (["import", "Customer; DROP TABLE x", "t.csv"], 64, "bookkeeper: unknown entity \"Customer; DROP TABLE x\""),
            (["import", "Customer", "t.csv", "--map", "x=name\"; DROP TABLE Customer; --"], 64,
             "bookkeeper: --map \"x=name\"; DROP TABLE Customer; --\": the file has no column \"x\""),
            (["import", "Customer", "t.csv", "--map", "name=name\"; DROP TABLE Customer; --"], 64,
             "bookkeeper: --map \"name=name\"; DROP TABLE Customer; --\": \"name\"; DROP TABLE Customer; --\" names nothing on Customer"),
            (["import", "Customer", "t.csv", "--key", "name\"; DROP TABLE Customer; --"], 64,
             "bookkeeper: --key name\"; DROP TABLE Customer; --: unknown attribute of Customer"),
            // Reports: parameters are typed values, names are checked.
            (["report", "order-details", "--param", "from=2024-01-01'; DROP TABLE \"Order\"; --"], 64,
             "bookkeeper: --param from: \"2024-01-01'; DROP TABLE \"Order\"; --\" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …)"),
            (["report", "order-details", "--param", "x'=1"], 64,
             "bookkeeper: --param x': report order-details has no parameter \"x'\" (it takes from, to)"),
            (["report", "x; DROP TABLE y"], 64,
             "bookkeeper: unknown report \"x; DROP TABLE y\" (looked in \(packageRoot.appendingPathComponent("Reports").path); `bookkeeper reports` lists them)"),
        ]
        let before = try storeFingerprint(store)
        for (args, status, message) in cases {
            let r = bk(args)
            XCTAssertEqual(r.status, status, "\(args): \(r)")
            XCTAssertEqual(r.stderr, message + "\n", "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
        }
        // A hostile header: each problem on its own line, the first naming the file, line and column.
        let header = bk(["import", "Customer", "evil-header.csv"])
        XCTAssertEqual(header.status, 65, "\(header)")
        XCTAssertTrue(header.stderr.hasPrefix("bookkeeper: evil-header.csv:1: column \"name\"\" maps to nothing on Customer — did you mean \"name\"?\n"), header.stderr)
        XCTAssertTrue(header.stderr.split(separator: "\n").allSatisfy { $0.hasPrefix("bookkeeper: evil-header.csv:1: ") }, header.stderr)
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    /// Parameters and placeholders are bound: `--explain` shows `?1` and the value beside it, never in the SQL.
    func testValuesAreBoundNeverSpliced() throws {
        let before = try storeFingerprint(store)
        let hostile = ["x'); DROP TABLE Customer; --", "\" OR 1=1 --", "Robert'); DELETE FROM \"Order\";--", "%' OR '%'='", "\\'; --", "'; ATTACH DATABASE '/tmp/x' AS x; --"]
        for value in hostile {
            let count = bk(["fetch", "Customer", "--where", "name == $q OR code BEGINSWITH %@ OR info CONTAINS[cd] $q",
                            "--param", "q=\(value)", "--arg", value, "--count"])
            XCTAssertEqual(count.status, 0, "\(value): \(count)")
            XCTAssertEqual(count.stdout, "0\n", value)
            let explain = bk(["fetch", "Customer", "--where", "name == $q", "--param", "q=\(value)", "--explain"])
            let sql = explain.stdout.split(separator: "\n")[0]
            XCTAssertEqual(String(sql), "SELECT t0.\"name\", t0.\"code\", t0.\"info\" FROM \"Customer\" t0 WHERE t0.\"name\" IS ?1 ORDER BY t0.\"id\" ASC", value)
            let report = bk(["report", "order-details", "--param", "from=2000-01-01", "--format", "csv"])
            XCTAssertEqual(report.status, 0)
        }
        // IN with a list parameter, LIKE and MATCHES patterns: still values.
        let list = bk(["fetch", "Order", "--where", "number IN $l OR customer.name LIKE $p OR customer.name MATCHES $m",
                       "--param", "l=2026-001,x'); DROP TABLE \"Order\"; --", "--param", "p=*'; --", "--param", "m=x'.*; --.*", "--count"])
        XCTAssertEqual(list.stdout, "1\n", "\(list)")
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    /// The same strings as CSV values are data: stored exactly as written, and nothing else changes.
    func testHostileValuesInACSVAreStoredAsWritten() throws {
        let values = ["Robert'); DROP TABLE Customer;--", "x\"; DELETE FROM \"Order\"; --", "'; ATTACH DATABASE '/tmp/evil' AS e; --",
                      "1 OR 1=1", "%", "_", "\\", "NULL", "?1", ":name"]
        var csv = "name,code,info\n"
        for v in values { csv += "\(csvField(v)),\(csvField("code \(v)")),\(csvField(v + "\n" + v))\n" }
        dir.write("hostile.csv", csv)
        let orders = try queryRows(store, "SELECT * FROM \"Order\" ORDER BY id")
        let r = bk(["import", "Customer", "hostile.csv", "--quiet"])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try queryStore(store, "SELECT name FROM Customer WHERE id > 20 ORDER BY id").compactMap { $0 }, values)
        XCTAssertEqual(try queryStore(store, "SELECT info FROM Customer WHERE id > 20 ORDER BY id").compactMap { $0 }, values.map { $0 + "\n" + $0 })
        XCTAssertEqual(try queryRows(store, "SELECT * FROM \"Order\" ORDER BY id"), orders)
        XCTAssertEqual(try queryStore(store, "PRAGMA database_list").count, 1, "nothing was attached")
        // Found again by the same strings, as values.
        for v in values {
            let found = bk(["fetch", "Customer", "--where", "name == $v AND code == %@", "--param", "v=\(v)", "--arg", "code \(v)", "--count"])
            XCTAssertEqual(found.stdout, "1\n", v)
            XCTAssertEqual(bk(["show", "Customer", v]).status, 0, v)
        }
        // add and set take them as values too.
        XCTAssertEqual(bk(["add", "Tag", "name=x'); DROP TABLE Tag; --"]).status, 0)
        XCTAssertEqual(try queryStore(store, "SELECT name FROM Tag ORDER BY id DESC LIMIT 1"), ["x'); DROP TABLE Tag; --"])
        XCTAssertEqual(bk(["add", "Customer", "name = 'x'; DROP TABLE Customer; --=1"]).status, 0)
        XCTAssertEqual(try queryStore(store, "SELECT name FROM Customer ORDER BY id DESC LIMIT 1"), [" 'x'; DROP TABLE Customer; --=1"],
                       "key=value splits at the first =; the value is everything after it")
    }

    /// Report definitions and model files are checked before anything is compiled: names must be identifiers,
    /// predicates must parse; a hostile column title is only text.
    func testHostileDefinitionsAreBadConfiguration() throws {
        let before = try storeFingerprint(store)
        let reports = dir.file("reports")
        try FileManager.default.createDirectory(atPath: reports, withIntermediateDirectories: true)
        dir.write("reports/evil.yaml", """
            title: Evil
            entity: Customer
            where: "name == 'x'; DROP TABLE Customer; --"
            columns:
              - { key: name, title: Name }

            """)
        dir.write("reports/evil-column.yaml", """
            title: Evil column
            entity: Customer
            columns:
              - { key: "code\\"; DROP TABLE Tag; --", title: X }

            """)
        dir.write("reports/evil-title.yaml", """
            title: "Evil title'; DROP TABLE Tag; --"
            entity: Customer
            where: "name == $p"
            params:
              p: { type: string }
            columns:
              - { key: name, title: "Name\\"; DROP TABLE Tag; --" }

            """)
        let evil = bk(["report", "--reports", reports, "evil"])
        XCTAssertEqual(evil.status, 78, "\(evil)")
        XCTAssertEqual(evil.stderr, "bookkeeper: reports/evil.yaml:3:20: unexpected character \";\"; combine conditions with AND or OR\n")
        let column = bk(["report", "--reports", reports, "evil-column"])
        XCTAssertEqual(column.status, 78, "\(column)")
        XCTAssertEqual(column.stderr.split(separator: "\n").count, 1, column.stderr)
        XCTAssertTrue(column.stderr.hasPrefix("bookkeeper: reports/evil-column.yaml:4:"), column.stderr)
        let title = bk(["report", "--reports", reports, "evil-title", "--param", "p=x'; DROP TABLE Customer; --", "--format", "csv"])
        XCTAssertEqual(title.status, 0, "\(title)")
        XCTAssertEqual(title.stdout, "\"Name\"\"; DROP TABLE Tag; --\"\n")

        dir.write("evil-model.yaml", """
            entities:
              "Evil\\"; DROP TABLE Customer; --":
                kind: directory
                attributes:
                  name: { type: string }

            """)
        let model = bk(["--model", "evil-model.yaml", "list", "Tag"])
        XCTAssertEqual(model.status, 78, "\(model)")
        XCTAssertEqual(model.stderr, "bookkeeper: evil-model.yaml:2:3: \"Evil\"; DROP TABLE Customer; --\" is not a valid entity name (letters, digits and _, starting with a letter)\n")
        dir.write("evil-attribute.yaml", """
            entities:
              Customer:
                attributes:
                  "vat\\"; DROP TABLE Tag; --": { type: string }

            """)
        let attribute = bk(["--model", "evil-attribute.yaml", "list", "Tag"])
        XCTAssertEqual(attribute.status, 78, "\(attribute)")
        XCTAssertEqual(attribute.stderr.split(separator: "\n").count, 1, attribute.stderr)
        XCTAssertEqual(try storeFingerprint(store), before)
    }
}
