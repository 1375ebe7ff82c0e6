import XCTest
import GRDB
import TestSupport
@testable import ObjectStore

/// How a fetch runs: one statement whatever the number of results, and plans that use the indexes.
final class FetchExecutionTests: XCTestCase {
    nonisolated(unsafe) static var fixture: (Store, TemporaryDirectory)!
    var store: Store { Self.fixture.0 }

    override class func setUp() {
        fixture = try! FetchFixture.make()
    }

    /// The statements SQLite ran while `body` fetched.
    func statements(_ body: () throws -> Void) throws -> [String] {
        nonisolated(unsafe) var seen: [String] = []
        try store.readSQLite { db in db.trace { event in if case .statement(let s) = event { seen.append(s.sql) } } }
        defer { try? store.readSQLite { db in db.trace(options: [], nil) } }
        try body()
        return seen
    }

    func testOneStatementPerFetchWhateverTheNumberOfResults() throws {
        let plan = try FetchPlan(ObjectStore.ObjectFetchRequest(entity: "Book", predicate: "ANY genres.name != 'x'", sortDescriptors: [SortKey("author.name")]),
                                 model: store.model,
                                 columns: ["isbn", "author.name", "chapters.@count", "genres.name", "author.books.@sum.price"])
        var rows = 0
        let sql = try statements { try store.fetchColumns(plan) { _ in rows += 1 } }
        XCTAssertEqual(rows, 9, "the books with at least one genre")
        XCTAssertEqual(sql.count, 1, "\(sql)")
        let context = ObjectContext(store: store)
        let objects = try statements { _ = try context.fetch(ObjectStore.ObjectFetchRequest(entity: "Book", predicate: "pages > 0")) }
        XCTAssertEqual(objects.count, 1)
    }

    func queryPlan(_ request: ObjectStore.ObjectFetchRequest, columns: [String]) throws -> String {
        let (sql, arguments) = try FetchPlan(request, model: store.model, columns: columns).sql(.columns, dialect: SQLiteDialect())
        return try store.readSQLite { db in
            try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: StatementArguments(arguments.map(\.databaseValue)))
                .map { $0["detail"] as String }.joined(separator: "\n")
        }
    }

    func testNaturalKeysAndForeignKeysAreSearchedThroughIndexes() throws {
        let byKey = try queryPlan(ObjectStore.ObjectFetchRequest(entity: "Book", predicate: "isbn == '003'"), columns: ["title"])
        XCTAssertTrue(byKey.contains("USING INDEX Book_isbn_unique"), byKey)
        let aggregate = try queryPlan(ObjectStore.ObjectFetchRequest(entity: "Book", predicate: "chapters.@count > 1"), columns: ["title"])
        XCTAssertTrue(aggregate.contains("USING COVERING INDEX Chapter_book_id") || aggregate.contains("USING INDEX Chapter_book_id"), aggregate)
        let manyToMany = try queryPlan(ObjectStore.ObjectFetchRequest(entity: "Genre", predicate: "ANY books.isbn == '001'"), columns: ["name"])
        XCTAssertTrue(manyToMany.contains("Book_genres_Genre_id") || manyToMany.contains("PRIMARY KEY"), manyToMany)
        let toOne = try queryPlan(ObjectStore.ObjectFetchRequest(entity: "Book", predicate: "author.name == 'Ann'"), columns: ["title"])
        XCTAssertTrue(toOne.contains("INTEGER PRIMARY KEY") || toOne.contains("USING INDEX"), toOne)
    }
}
