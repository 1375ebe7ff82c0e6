import XCTest
import TestSupport
@testable import ObjectStore

/// Issue 30's three-way differential: the fixture's books in a SQLite file and on PostgreSQL, and every predicate —
/// the hand-written ones and thousands generated from the model, with sorts (nocase and natural too), limits and
/// offsets — answered by SQL on SQLite, SQL on PostgreSQL and the in-memory evaluator: the same objects in the same
/// order, and the same counts.
final class PostgreSQLPredicateDifferentialTests: XCTestCase {
    private var sqlite: Store!
    private var postgreSQL: Store!
    private var directory: TemporaryDirectory!

    override func setUpWithError() throws {
        let (file, dir) = try FetchFixture.make()
        sqlite = file
        directory = dir
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let store = try Store.create(books: books.location, model: TestModel.model)
        try FetchFixture.fill(store)
        postgreSQL = store
    }

    override func tearDown() {
        postgreSQL?.closeConnection()
        sqlite?.closeConnection()
    }

    /// The rows each way; a failure names the predicate and PostgreSQL's statement.
    private func check(_ entity: String, _ predicate: String, sort: [SortKey] = [], limit: Int? = nil, offset: Int? = nil,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let request = ObjectFetchRequest(entity: entity, predicate: predicate, sortDescriptors: sort, limit: limit, offset: offset)
        let plan = try FetchPlan(request, model: sqlite.model, columns: [])
        let onSQLite = ObjectContext(store: sqlite), onPostgreSQL = ObjectContext(store: postgreSQL)
        let memory = try onSQLite.fetchInMemory(plan).map(\.rowID)
        let fromSQLite = try onSQLite.fetch(plan).map(\.rowID)
        let fromPostgreSQL: [Int64?]
        do {
            fromPostgreSQL = try onPostgreSQL.fetch(plan).map(\.rowID)
        } catch {
            XCTFail("PostgreSQL: \(entity) where \(predicate) sort \(sort): \(error)\n\(postgreSQL.explain(plan, .objects))", file: file, line: line)
            return
        }
        XCTAssertEqual(fromSQLite, memory, "SQLite: \(entity) where \(predicate) sort \(sort)", file: file, line: line)
        XCTAssertEqual(fromPostgreSQL, memory, "PostgreSQL: \(entity) where \(predicate) sort \(sort) limit \(limit.map(String.init) ?? "-") offset \(offset.map(String.init) ?? "-")\n\(postgreSQL.explain(plan, .objects))",
                       file: file, line: line)
        XCTAssertEqual(try onPostgreSQL.count(request), memory.count, "PostgreSQL count of \(predicate)", file: file, line: line)
    }

    func testEveryComparisonAndSortOnBothStores() throws {
        for (path, kind) in Generator.scalars {
            var rng = SeededGenerator(seed: UInt64(path.utf8.count))
            for _ in 0..<3 { try check("Book", Generator.comparison(path, kind, &rng)) }
        }
        for comparison in [SortKey.Comparison.binary, .nocase, .natural] {
            for path in ["title", "author.name", "genres.books.@min.title", "isbn"] {
                try check("Book", "TRUEPREDICATE", sort: [SortKey(path, ascending: true, comparison: comparison)])
                try check("Book", "TRUEPREDICATE", sort: [SortKey(path, ascending: false, comparison: comparison)])
            }
        }
    }

    /// An IN list of 100,000 values is one bound array (PostgreSQL takes at most 65,535 parameters), and answers as
    /// SQLite's and the evaluator's.
    func testAnInListOfAHundredThousandValuesIsOneParameter() throws {
        let isbns = (0..<100_000).map { String(format: "%03d", $0) }
        let predicate = "isbn IN {" + isbns.map { "'\($0)'" }.joined(separator: ", ") + "}"
        try check("Book", predicate, sort: [SortKey("title")])
        let plan = try FetchPlan(ObjectFetchRequest(entity: "Book", predicate: predicate), model: postgreSQL.model, columns: [])
        let (sql, arguments) = plan.sql(.objects, dialect: PostgreSQLDialect())
        XCTAssertTrue(sql.contains("= ANY($1)"), String(sql.prefix(300)))
        XCTAssertEqual(arguments.count, 1)
    }

    func testGeneratedPredicatesAgreeThreeWays() throws {
        // `make test-postgresql`: 1,500 predicates from a fixed seed; `make stress` (which starts a server too):
        // 10,000 from the seed it prints.
        let seed = Trials.seed("BOOKKEEPER_DIFF_SEED", fixed: 20261127)
        let count = Trials.count("BOOKKEEPER_PG_DIFF_COUNT", quick: 1_500, stress: 10_000)
        var rng = SeededGenerator(seed: seed)
        for _ in 0..<count {
            let predicate = Generator.predicate(depth: 3, &rng)
            let sort = Generator.sort(&rng)
            let limit: Int? = rng.next(upTo: 4) == 0 ? rng.next(upTo: 6) : nil
            let offset: Int? = limit != nil && rng.next(upTo: 2) == 0 ? rng.next(upTo: 4) : nil
            try check("Book", predicate, sort: sort, limit: limit, offset: offset)
        }
        reportTrials("three-way predicate differential", "seed \(seed), \(count) generated predicates with sorts, limits and offsets: SQL on SQLite, SQL on PostgreSQL and the evaluator agree")
    }
}
