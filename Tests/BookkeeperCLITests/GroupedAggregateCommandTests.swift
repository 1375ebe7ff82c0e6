// Issue 27: `report customers` and `fetch Customer` with to-many aggregates read them from grouped derived tables
// (FetchPlan+GroupedAggregates.swift) instead of correlated subqueries. End to end on generated stores — customers
// without orders or tags, orders without rows or customer, row sums at the ends of what an Int64 of cents holds so
// that a customer's total passes it — the report must write what a second implementation in Swift computes, and
// the grouped fetch what the same fetch written with a plain conjunct (`TRUEPREDICATE`: correlated) writes.

import Foundation
import TestSupport
import XCTest

final class GroupedAggregateCommandTests: XCTestCase {
    struct Order { var number: String; var date: String; var customer: Int?; var cents: [Int128] }

    static func money(_ cents: Int128) -> String {
        let magnitude = cents < 0 ? -cents : cents
        let fraction = String(magnitude % 100)
        return (cents < 0 ? "-" : "") + String(magnitude / 100) + "." + (fraction.count == 1 ? "0" : "") + fraction
    }

    static func field(_ s: String) -> String {
        s.contains(",") || s.contains("\"") ? "\"" + s.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : s
    }

    func testCustomersReportAndFetchAgreeWithASecondImplementationAndTheCorrelatedForm() throws {
        // `make test`: 4 stores from a fixed seed; `make stress`: 40 from the seed it prints
        // (BOOKKEEPER_GROUPED_CLI_SEED and BOOKKEEPER_GROUPED_CLI_COUNT override).
        let seed = Trials.seed("BOOKKEEPER_GROUPED_CLI_SEED", fixed: 20261127)
        let count = Trials.count("BOOKKEEPER_GROUPED_CLI_COUNT", quick: 4, stress: 40)
        var rng = SeededGenerator(seed: seed)
        let edges: [Int128] = [Int128(Int64.max), -Int128(Int64.max), Int128(Int64.max) - 1]
        for storeNumber in 0..<count {
            let dir = TemporaryDirectory("bookkeeper-grouped")
            let store = dir.file("s.sqlite")
            let env = ["TZ": "UTC", "BOOKKEEPER_REPORTS": ""]
            func bk(_ args: [String]) -> String {
                let r = runCLI(["--store", store] + args, in: dir.path, environment: env)
                XCTAssertEqual(r.status, 0, "seed \(seed), store \(storeNumber): \(args): \(r)")
                return r.stdout
            }
            func write(_ name: String, _ lines: [String]) -> String {
                let path = dir.file(name)
                _ = FileManager.default.createFile(atPath: path, contents: Data((lines.joined(separator: "\n") + "\n").utf8))
                return path
            }
            _ = bk(["init"])
            let tags = ["t0", "t1", "t2", "t3"]
            let customers = (0..<(1 + rng.next(upTo: 8))).map { i in
                (name: "C \(i < 10 ? "0" : "")\(i)", code: rng.next(upTo: 3) == 0 ? "" : "K\(i)",
                 tags: tags.filter { _ in rng.next(upTo: 3) == 0 })
            }
            var orders: [Order] = []
            for i in 0..<rng.next(upTo: 16) {
                let rows = rng.next(upTo: 4)
                orders.append(Order(number: "A\(i)", date: rng.pick(["2024-01-05", "2023-06-30", "2025-12-31", "2024-01-04"]),
                                    customer: rng.next(upTo: 6) == 0 ? nil : rng.next(upTo: customers.count),
                                    cents: (0..<rows).map { _ in rng.next(upTo: 5) == 0 ? rng.pick(edges) : Int128(rng.next(upTo: 200_001)) - 100_000 }))
            }
            _ = bk(["import", "Tag", write("tags.csv", ["name"] + tags)])
            _ = bk(["import", "Customer", write("customers.csv", ["name,code,tags"] + customers.map {
                "\($0.name),\($0.code),\(Self.field($0.tags.joined(separator: ", ")))"
            })])
            _ = bk(["import", "Service", write("services.csv", ["name", "sv"])])
            let lines = orders.flatMap { o in
                o.cents.map { "\(o.number),\(o.date),\(o.customer.map { customers[$0].name } ?? ""),sv,1,,\(Self.money($0))" }
            }
            if !lines.isEmpty { _ = bk(["import", "Order", write("orders.csv", ["number,date,customer,rows.service,rows.quantity,rows.price,rows.sum"] + lines)]) }
            for o in orders where o.cents.isEmpty {
                _ = bk(["add", "Order", "number=\(o.number)", "date=\(o.date)"] + (o.customer.map { ["customer=\(customers[$0].name)"] } ?? []))
            }
            // The second implementation: each customer's orders, their last date, the exact total of their rows.
            var expected = ["Customer,Code,Tags,Orders,Last order,Ordered"]
            for (i, c) in customers.enumerated() {
                let own = orders.filter { $0.customer == i }
                let total = own.flatMap(\.cents).reduce(Int128(0), +)
                expected.append([c.name, c.code, Self.field(c.tags.joined(separator: ", ")), String(own.count),
                                 own.map(\.date).max() ?? "", Self.money(total)].joined(separator: ","))
            }
            let what = "seed \(seed), store \(storeNumber): \(customers) \(orders)"
            XCTAssertEqual(bk(["report", "customers", "--format", "csv"]), expected.joined(separator: "\n") + "\n", what)
            XCTAssertTrue(bk(["report", "customers", "--explain"]).contains(#""@owner""#), "grouped")
            // The same fetch, grouped and correlated.
            let fetch = ["fetch", "Customer", "--columns", "name,code,tags.name,orders.@count,orders.@max.date,orders.rows.@sum.sum,orders.rows.@count,orders.rows.@max.sum",
                         "--sort", "name", "--format", "csv"]
            XCTAssertTrue(bk(fetch + ["--explain"]).contains(#""@owner""#))
            XCTAssertFalse(bk(fetch + ["--where", "TRUEPREDICATE", "--explain"]).contains(#""@owner""#))
            XCTAssertEqual(bk(fetch), bk(fetch + ["--where", "TRUEPREDICATE"]), what)
            XCTAssertEqual(bk(fetch + ["--where", "orders.@count >= 0"]), bk(fetch + ["--where", "TRUEPREDICATE"]), what)
        }
        reportTrials("grouped aggregates end to end", "seed \(seed), \(count) stores: report customers and fetch Customer agree with Swift and the correlated form")
    }
}

/// A group key that is a to-many aggregate, named again as a column or a sort key (`--group orders.@count --columns
/// 'orders.@count, count'`): each binding of a to-many path gets scopes of its own, so the column was "neither a group
/// key nor an aggregate" (64). The groups must be what the per-object column counts.
final class RepeatedGroupKeyTests: SampleStoreTestCase {
    func testAToManyAggregateGroupKeyIsAlsoAColumnAndASortKey() throws {
        for key in ["orders.@count", "tags.@count", "orders.@max.date", "orders.@min.number"] {
            let perObject = bk(["fetch", "Customer", "--columns", "name, \(key)", "--format", "csv"])
            XCTAssertEqual(perObject.status, 0, "\(key): \(perObject)")
            var expected: [String: Int] = [:]
            for line in perObject.stdout.split(separator: "\n").dropFirst() {
                expected[String(line.split(separator: ",", omittingEmptySubsequences: false).last!), default: 0] += 1
            }
            let grouped = bk(["fetch", "Customer", "--group", key, "--columns", "\(key), count", "--sort", key, "--format", "csv"])
            XCTAssertEqual(grouped.status, 0, "\(key): \(grouped)")
            var found: [String: Int] = [:]
            var order: [String] = []
            for line in grouped.stdout.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                found[String(fields[0])] = Int(fields[1])
                order.append(String(fields[0]))
            }
            XCTAssertEqual(found, expected, key)
            XCTAssertGreaterThan(found.count, 1, key)
            XCTAssertEqual(Set(order).count, order.count, "\(key): one line per group")
        }
    }
}

/// Object identity in predicates, as NSPredicate has it (issue 33): `SELF == %@`, `SELF IN $ids`, and a to-one
/// relationship compared with object IDs, through `fetch` and a report's parameter, naming what `list` names.
final class ObjectIdentityCommandTests: SampleStoreTestCase {
    func testObjectIDsSelectTheObjectsTheyName() throws {
        // Every customer's ID, as `fetch` and `add` print it, with its name.
        let ids = bk(["list", "Customer"])
        XCTAssertEqual(ids.status, 0)
        let names = bk(["fetch", "Customer", "--columns", "name", "--sort", "name", "--format", "csv"]).stdout
            .split(separator: "\n").dropFirst().map(String.init)
        XCTAssertGreaterThan(names.count, 5)
        for name in names.prefix(6) {
            let quoted = name.replacingOccurrences(of: "\"", with: "\\\"")
            // The customer's ID, found by its name through SELF.name.
            let shown = bk(["show", "Customer", name])
            XCTAssertEqual(shown.status, 0, "\(shown)")
            let id = try XCTUnwrap(shown.stdout.split(separator: "\n").first { $0.hasPrefix("id") }?.split(separator: " ").last.map(String.init))
            XCTAssertEqual(bk(["fetch", "Customer", "--where", "SELF == %@", "--arg", id, "--columns", "name", "--format", "csv"]).stdout,
                           "name\n\(GroupedAggregateCommandTests.field(name))\n")
            XCTAssertEqual(bk(["fetch", "Customer", "--where", "SELF.name == \"\(quoted)\"", "--count"]).stdout, "1\n")
            // A to-one relationship compared with the ID is the same as compared through the name.
            XCTAssertEqual(bk(["fetch", "Order", "--where", "customer == %@", "--arg", id, "--columns", "number", "--format", "csv"]).stdout,
                           bk(["fetch", "Order", "--where", "customer.name == \"\(quoted)\"", "--columns", "number", "--format", "csv"]).stdout)
        }
        let two = bk(["fetch", "Customer", "--where", "SELF IN $ids", "--param", "ids=Customer/1, Customer/2", "--count"])
        XCTAssertEqual(two.stdout, "2\n", "\(two)")
        XCTAssertEqual(bk(["fetch", "Customer", "--where", "NOT SELF IN $ids", "--param", "ids=Customer/1, Customer/2", "--count"]).stdout,
                       "\(names.count - 2)\n")
        // A report whose definition compares a reference with a parameter.
        try FileManager.default.createDirectory(atPath: dir.file("reports"), withIntermediateDirectories: true)
        dir.write("reports/of-customer.yaml", """
            title: Orders of one customer
            entity: Order
            where: customer == $who
            params:
              who: { type: string, title: Customer }
            sort: number
            columns:
              - { key: number, title: Order }
            """)
        let report = bk(["report", "of-customer", "--reports", dir.file("reports"), "--param", "who=Customer/2", "--format", "csv"])
        XCTAssertEqual(report.status, 0, "\(report)")
        XCTAssertEqual(report.stdout.replacingOccurrences(of: "Order\n", with: "number\n"),
                       bk(["fetch", "Order", "--where", "customer == 'Customer/2'", "--columns", "number", "--sort", "number", "--format", "csv"]).stdout)
        // The object ID as a column (a reference shows as one too), and back into a predicate.
        let rows = bk(["fetch", "Order", "--columns", "number, SELF, customer", "--format", "csv"])
        XCTAssertEqual(rows.status, 0, "\(rows)")
        var checkedRows = 0
        for line in rows.stdout.split(separator: "\n").dropFirst().prefix(8) {
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            XCTAssertTrue(f[1].hasPrefix("Order/"), String(line))
            XCTAssertEqual(bk(["fetch", "Order", "--where", "SELF == %@", "--arg", f[1], "--columns", "number", "--format", "csv"]).stdout,
                           "number\n\(f[0])\n")
            if !f[2].isEmpty {
                XCTAssertTrue(f[2].hasPrefix("Customer/"), String(line))
                XCTAssertTrue(bk(["fetch", "Order", "--where", "customer == %@", "--arg", f[2], "--columns", "number", "--format", "csv"]).stdout
                                .split(separator: "\n").contains(Substring(f[0])), String(line))
            }
            checkedRows += 1
        }
        XCTAssertEqual(checkedRows, 8)
        // An ID of another entity, or text that is none: one line naming the place, status 64.
        let wrong = bk(["fetch", "Order", "--where", "customer == %@", "--arg", "Order/1", "--count"])
        XCTAssertEqual(wrong.status, 64)
        XCTAssertEqual(wrong.stderr, "bookkeeper: where:1:13: Order/1 is an Order, but \"customer\" is a reference to Customer\n")
    }
}

/// Numbers standing for Booleans (issue 33) given with `--arg` or `--param` as written in the predicate: `--arg 2`,
/// `-0` and `0.0` were refused though `made == 2` was taken (found by the attack on 0.6.0 before it landed).
final class BooleanNumberCommandTests: SampleStoreTestCase {
    func testNumbersGivenAsArgumentsStandForBooleansAsWrittenOnes() throws {
        let yes = bk(["fetch", "Order", "--where", "made == YES", "--count"]).stdout
        let no = bk(["fetch", "Order", "--where", "made == NO", "--count"]).stdout
        XCTAssertNotEqual(yes, no)
        for (number, expected) in [("2", yes), ("1", yes), ("-1.5", yes), ("0", no), ("-0", no), ("0.0", no)] {
            XCTAssertEqual(bk(["fetch", "Order", "--where", "made == \(number)", "--count"]).stdout, expected, number)
            XCTAssertEqual(bk(["fetch", "Order", "--where", "made == %@", "--arg", number, "--count"]).stdout, expected, number)
            XCTAssertEqual(bk(["fetch", "Order", "--where", "made == $x", "--param", "x=\(number)", "--count"]).stdout, expected, number)
        }
        for args in [["--where", "made < %@", "--arg", "2"], ["--where", "made < $x", "--param", "x=2"], ["--where", "made < 2"]] {
            let r = bk(["fetch", "Order"] + args + ["--count"])
            XCTAssertEqual(r.status, 64, "\(args): \(r)")
            XCTAssertTrue(r.stderr.hasSuffix("\"made\" is Boolean, ordered only against YES, NO, 1 or 0, but 2 is another number\n"), r.stderr)
        }
        XCTAssertEqual(bk(["fetch", "Order", "--where", "made == %@", "--arg", "nan", "--count"]).status, 64)
    }
}
