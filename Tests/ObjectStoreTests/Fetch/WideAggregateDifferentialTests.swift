import XCTest
import TestSupport
@testable import ObjectStore

/// Issue 15 §3: aggregates over values at the edges of the decimal range. Two stored prices of
/// 92233720368547758.07 made every fetch touching their sum fail with "integer overflow"; sums must be exact
/// and SQL must agree with the in-memory evaluator on every predicate and sort over them.
final class WideAggregateDifferentialTests: XCTestCase {
    nonisolated(unsafe) static var fixture: (Store, TemporaryDirectory)!
    var store: Store { Self.fixture.0 }

    // The range is symmetric: Int64.min's units are not a value (RoundTripNumbersTests).
    static let maxPrice = Int128(Int64.max), minPrice = -Int128(Int64.max)
    /// Each author's books: (price units at scale 2, pages). Sums beyond an Int64 either way, sums that cancel,
    /// one value, none.
    static let authors: [(String, [(Int128?, Int64?)])] = [
        ("twoMax", [(maxPrice, Int64.max), (maxPrice, Int64.max)]),
        ("threeMax", [(maxPrice, Int64.max), (maxPrice, Int64.max), (maxPrice, 1)]),
        ("twoMin", [(minPrice, 0), (minPrice, 0)]),
        ("cancel", [(maxPrice, Int64.max), (minPrice, 0), (0, 1)]),
        ("justOver", [(maxPrice, Int64.max), (1, 1)]),
        ("justUnder", [(minPrice, 0), (-2, 2)]),
        ("one", [(maxPrice, Int64.max)]),
        ("small", [(1999, 10), (nil, nil)]),
        ("none", []),
    ]

    override class func setUp() {
        let (store, dir) = try! TestModel.makeStore()
        let c = ObjectContext(store: store)
        var isbn = 0
        for (name, books) in authors {
            let a = try! c.insert("Author")
            a["name"] = .string(name)
            for (price, pages) in books {
                isbn += 1
                let b = try! c.insert("Book")
                b["isbn"] = .string(String(isbn))
                b["title"] = .string("b\(isbn)")
                b["price"] = price.map { .decimal(DecimalNumber(units: $0, scale: 2)) } ?? .null
                b["pages"] = pages.map(Value.integer) ?? .null
                try! b.setObject(a, for: "author")
            }
        }
        try! c.save()
        fixture = (store, dir)
    }

    private func check(_ predicate: String, sort: [SortKey] = [], file: StaticString = #filePath, line: UInt = #line) throws {
        let request = ObjectFetchRequest(entity: "Author", predicate: predicate, sortDescriptors: sort)
        let plan = try FetchPlan(request, model: store.model, columns: [])
        let context = ObjectContext(store: store)
        let sql = try context.fetch(plan).map(\.rowID)
        let memory = try context.fetchInMemory(plan).map(\.rowID)
        XCTAssertEqual(sql, memory, "\(predicate) sort \(sort)\n\(store.explain(plan, .objects))", file: file, line: line)
    }

    static let literals = ["0", "-1", "1", "92233720368547758.07", "92233720368547758.08", "-92233720368547758.08",
                           "-92233720368547758.09", "184467440737095516.14", "184467440737095516.15",
                           "-184467440737095516.16", "276701161105643274.21", "0.005", "19.99", "19.991",
                           "9223372036854775807", "9223372036854775808", "18446744073709551614", "27670116110564327423",
                           "1e400" /* not a number literal: skipped below */]

    func testPredicatesOverWideSumsAgreeInSQLAndInMemory() throws {
        let paths = ["books.@sum.price", "books.@sum.pages", "books.@avg.price", "books.@avg.pages", "books.@max.price",
                     "books.@min.price", "books.@max.pages", "books.@count"]
        var checked = 0
        for path in paths {
            for literal in Self.literals where !literal.contains("e") {
                for op in ["==", "!=", "<", "<=", ">", ">="] {
                    try check("\(path) \(op) \(literal)")
                    checked += 1
                }
                try check("\(path) IN {\(literal), 1, nil}")
                try check("NOT \(path) BETWEEN {-1, \(literal)}")
                checked += 2
            }
        }
        // Sums compared with sums and with other aggregates, both sides possibly wide.
        for (l, r) in [("books.@sum.price", "books.@sum.pages"), ("books.@sum.price", "books.@max.price"),
                       ("books.@sum.pages", "books.@max.pages"), ("books.@sum.price", "books.@count")] {
            for op in ["==", "<", ">="] { try check("\(l) \(op) \(r)"); checked += 1 }
        }
        XCTAssertEqual(checked, paths.count * 18 * 8 + 12)
    }

    func testSortsByWideSumsAgreeInSQLAndInMemory() throws {
        for key in ["books.@sum.price", "books.@sum.pages", "books.@avg.price", "books.@max.price"] {
            for ascending in [true, false] {
                try check("TRUEPREDICATE", sort: [SortKey(key, ascending: ascending, comparison: .binary)])
            }
        }
        // The order itself, ascending: negative sums beyond an Int64 first (SQLite alone puts every BLOB last);
        // "cancel" and "none" both sum to 0 and keep the order of their IDs.
        let plan = try FetchPlan(ObjectFetchRequest(entity: "Author", sortDescriptors: [SortKey("books.@sum.price", ascending: true, comparison: .binary)]),
                                 model: store.model, columns: [])
        let names = try ObjectContext(store: store).fetch(plan).map { $0["name"].description }
        XCTAssertEqual(names, ["twoMin", "justUnder", "cancel", "none", "small", "one", "justOver", "twoMax", "threeMax"])
    }

    func testSumsReachTheColumnsExactly() throws {
        let plan = try FetchPlan(ObjectFetchRequest(entity: "Author", sortDescriptors: [SortKey("name", ascending: true, comparison: .binary)]),
                                 model: store.model,
                                 columns: ["name", "books.@sum.price", "books.@sum.pages", "books.@min.price"])
        var rows: [String: [String]] = [:]
        try store.fetchColumns(plan) { (values: [Value]) in rows[values[0].description] = values.dropFirst().map(\.description) }
        XCTAssertEqual(rows["twoMax"], ["184467440737095516.14", "18446744073709551614", "92233720368547758.07"])
        XCTAssertEqual(rows["threeMax"], ["276701161105643274.21", "18446744073709551615", "92233720368547758.07"])
        XCTAssertEqual(rows["twoMin"], ["-184467440737095516.14", "0", "-92233720368547758.07"])
        XCTAssertEqual(rows["cancel"], ["0.00", "9223372036854775808", "-92233720368547758.07"])
        XCTAssertEqual(rows["none"], ["0.00", "0", ""])
    }

    func testGroupedSumsOfWideSumsAreExact() throws {
        // Every author in one group (none has an email): the sum of per-author sums, some beyond an Int64 already.
        let plan = try FetchPlan(ObjectFetchRequest(entity: "Author"), model: store.model,
                                 columns: ["email", "count", "sum:books.price", "max:books.price", "min:books.price", "sum:books.pages"],
                                 groupBy: ["email"])
        var rows: [[String]] = []
        try store.fetchColumns(plan) { (values: [Value]) in rows.append(values.map(\.description)) }
        let prices = Self.authors.flatMap { $0.1.compactMap(\.0) }
        let pages = Self.authors.flatMap { $0.1.compactMap(\.1) }.reduce(Int128(0)) { $0 + Int128($1) }
        XCTAssertEqual(rows, [["", "9", DecimalNumber(units: prices.reduce(0, +), scale: 2).description,
                               "92233720368547758.07", "-92233720368547758.07", String(pages)]])
    }
}
