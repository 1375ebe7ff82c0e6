import XCTest
import TestSupport
@testable import ObjectStore

/// Grouped fetches (dictionary results with group keys), checked against SQL written by hand.
final class GroupedFetchTests: XCTestCase {
    nonisolated(unsafe) static var fixture: (Store, TemporaryDirectory)!
    var store: Store { Self.fixture.0 }

    override class func setUp() {
        fixture = try! FetchFixture.make()
    }

    func rows(_ entity: String, where predicate: String? = nil, group: [String] = [], columns: [String], sort: String = "") throws -> [[String]] {
        let request = ObjectFetchRequest(entity: entity, predicate: predicate, sortDescriptors: try SortKey.parseList(sort))
        let plan = try FetchPlan(request, model: store.model, columns: columns, groupBy: group)
        var result: [[String]] = []
        try store.fetchColumns(plan) { values in result.append(values.map { $0.isNull ? "NULL" : $0.description }) }
        XCTAssertEqual(try store.count(plan), result.count)
        return result
    }

    func handSQL(_ sql: String) throws -> [[String]] {
        try queryRows(store.path, sql)
    }

    func testGroupByAToOneKeyWithCountSumAndAverage() throws {
        let ours = try rows("Book", where: "price != nil", group: ["author.name"],
                            columns: ["author.name", "count", "sum:price", "avg:pages", "max:added"], sort: "author.name")
        let theirs = try handSQL("""
            SELECT a.name, COUNT(*), printf('%.2f', SUM(b.price) / 100.0), AVG(b.pages), MAX(b.added)
            FROM Book b LEFT JOIN Author a ON a.id = b.author_id WHERE b.price IS NOT NULL
            GROUP BY a.name ORDER BY a.name
            """)
        XCTAssertEqual(ours.count, theirs.count)
        for (o, t) in zip(ours, theirs) {
            XCTAssertEqual([o[0], o[1], o[2], o[4]], [t[0], t[1], t[2], t[4]])
            if let x = Double(o[3]), let y = Double(t[3]) { XCTAssertEqual(x, y, accuracy: 1e-9) } else { XCTAssertEqual(o[3], t[3]) }
        }
        XCTAssertEqual(ours.first, ["NULL", "1", "0.00", "0", "2024-03-01"], "objects without an author form their own group, first")
    }

    func testAggregatesOverToManyPathsFlattenThem() throws {
        let ours = try rows("Book", group: ["inPrint"], columns: ["inPrint", "count", "count:chapters", "sum:chapters.notes.@count", "min:genres.name"], sort: "inPrint")
        let theirs = try handSQL("""
            SELECT b.inPrint, COUNT(*),
                   SUM((SELECT COUNT(*) FROM Chapter c WHERE c.book_id = b.id)),
                   SUM((SELECT COUNT(*) FROM Note n JOIN Chapter c ON c.id = n.chapter_id WHERE c.book_id = b.id)),
                   MIN((SELECT MIN(g.name) FROM Book_genres j JOIN Genre g ON g.id = j.Genre_id WHERE j.Book_id = b.id))
            FROM Book b GROUP BY b.inPrint ORDER BY b.inPrint
            """)
        XCTAssertEqual(ours.map { [$0[0] == "yes" ? "1" : "0"] + $0.dropFirst() }, theirs)
    }

    func testGroupByMonthAndYearOfADate() throws {
        XCTAssertEqual(try rows("Book", where: "added != nil", group: ["month(added)"], columns: ["month(added)", "count", "sum:price"], sort: "month(added) desc"),
                       try handSQL("""
                            SELECT substr(added, 1, 7), COUNT(*), printf('%.2f', COALESCE(SUM(price), 0) / 100.0) FROM Book
                            WHERE added IS NOT NULL GROUP BY 1 ORDER BY 1 DESC
                            """))
        XCTAssertEqual(try rows("Book", group: ["year(added)"], columns: ["year(added)", "count"], sort: "count desc"),
                       try handSQL("SELECT COALESCE(CAST(substr(added, 1, 4) AS INTEGER), 'NULL'), COUNT(*) FROM Book GROUP BY 1 ORDER BY 2 DESC, 1"))
    }

    /// quarter() and week() as SQL compiles them agree with the evaluator (the in-memory oracle) on every day of
    /// sixteen years — ISO weeks at every year's edges included — and with ISO 8601's own examples.
    func testQuarterAndISOWeekOfEveryDayAgreeBetweenSQLAndTheEvaluator() throws {
        for unit in [PeriodUnit.quarter, .week] {
            let plan = try FetchPlan(ObjectFetchRequest(entity: "Book"), model: store.model, columns: ["\(unit.rawValue)(added)"])
            let select = plan.sql(.columns, dialect: SQLiteDialect()).sql
            let expression = String(select.dropFirst("SELECT ".count)).components(separatedBy: " FROM ")[0]
                .replacingOccurrences(of: #"t0."added""#, with: "d")
            let sql = """
                WITH RECURSIVE days(d) AS (SELECT '2015-01-01' UNION ALL SELECT date(d, '+1 day') FROM days WHERE d < '2030-12-31')
                SELECT d, \(expression) FROM days
                """
            let rows = try handSQL(sql)
            XCTAssertEqual(rows.count, 5844)
            for row in rows {
                let day = Day(iso: row[0])!
                XCTAssertEqual(PredicateEvaluator.period(unit, of: day).description, row[1], "\(unit) of \(row[0])")
            }
        }
        func week(_ iso: String) -> String { PredicateEvaluator.period(.week, of: Day(iso: iso)!).description }
        XCTAssertEqual(week("2026-01-01"), "2026-W01", "a Thursday")
        XCTAssertEqual(week("2025-12-29"), "2026-W01", "the Monday of week 1 of 2026")
        XCTAssertEqual(week("2021-01-03"), "2020-W53", "a Sunday in the last week of a 53-week year")
        XCTAssertEqual(week("2027-01-01"), "2026-W53")
        XCTAssertEqual(week("2024-12-30"), "2025-W01")
        XCTAssertEqual(PredicateEvaluator.period(.quarter, of: Day(iso: "2026-09-30")!).description, "2026-Q3")
    }

    func testWholeFetchSummaryWithoutGroupKeys() throws {
        XCTAssertEqual(try rows("Book", columns: ["count", "sum:price", "min:price", "max:title"]),
                       [["12", "1234841.99", "-5.00", "the muller case"]])
    }

    func testGroupedErrors() {
        func error(_ group: [String], _ columns: [String], sort: String = "") -> String {
            do { _ = try rows("Book", group: group, columns: columns, sort: sort); return "no error" } catch { return "\(error)" }
        }
        XCTAssertEqual(error(["author.name"], ["author.name", "title"]),
                       "columns:1:1: \"title\" is neither a group key nor an aggregate — add it to the group keys, or aggregate it (count, sum:…, min:…)")
        XCTAssertEqual(error(["author.name"], ["author.name", "count"], sort: "title"),
                       "sort:1:1: \"title\" is neither a group key nor an aggregate, so it cannot sort groups")
        XCTAssertEqual(error(["count"], ["count"]), "group:1:1: group keys are key paths or periods such as month(date), not aggregates like \"count\"")
        XCTAssertEqual(error([], ["sum:title"]), "columns:1:5: sum needs a number, but \"title\" is String")
        XCTAssertEqual(error([], ["month(title)"]), "columns:1:1: month() needs a date, but \"title\" is String")
        XCTAssertEqual(error([], ["sum:chapterz.title"]), "columns:1:5: unknown key \"chapterz\" on Book — did you mean \"chapters\"?")
    }
}
