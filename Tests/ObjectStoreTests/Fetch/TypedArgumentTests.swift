import XCTest
import TestSupport
@testable import ObjectStore

/// A library caller binds `%@` to typed values (issue 29): each must answer as the same value given as text (the
/// command line's `--arg`, typed by what it is compared with) does, through SQL and in memory; a value of another
/// type than what it is compared with is a `FetchError` that names the argument and the key, never a guess.
final class TypedArgumentTests: XCTestCase {
    nonisolated(unsafe) static var fixture: (Store, TemporaryDirectory)!
    var store: Store { Self.fixture.0 }

    override class func setUp() {
        fixture = try! FetchFixture.make()
    }

    private func ids(_ request: ObjectFetchRequest, file: StaticString = #filePath, line: UInt = #line) throws -> [Int64] {
        let context = ObjectContext(store: store)
        let sql = try context.fetch(request).map { $0.rowID! }
        let plan = try FetchPlan(request, model: store.model, columns: [])
        XCTAssertEqual(sql, try context.fetchInMemory(plan).map { $0.rowID! }, "SQL and memory", file: file, line: line)
        XCTAssertEqual(try context.count(request), sql.count, file: file, line: line)
        return sql
    }

    /// Values of every attribute type, drawn from what the fixture stores and around it, compared every way.
    func testATypedArgumentAnswersAsItsTextDoes() throws {
        let seed = Trials.seed(fixed: 2029)
        var random = SeededGenerator(seed: seed)
        let context = ObjectContext(store: store)
        let books = try context.objects(of: "Book")
        let keys = ["title", "price", "pages", "rating", "inPrint", "added", "checked", "author.born", "author.name"]
        var checked = 0
        let count = Trials.count("TYPED_ARGUMENT_TRIALS", quick: 300, stress: 3_000)
        for _ in 0..<count {
            let key = keys.randomElement(using: &random)!
            let source = books.randomElement(using: &random)!
            let path = key.split(separator: ".").map(String.init)
            var value = path.count == 2 ? (try source.object(for: path[0]))?[path[1]] ?? .null : source[key]
            if value.isNull { continue }
            // Numbers given as another kind of number: an integer against a decimal or double, a double against a decimal.
            switch (value, random.next() % 3) {
            case (.decimal(let d), 0): value = .double(Double(d.description)!)
            case (.integer(let i), 1): value = .decimal(DecimalNumber(i))
            case (.double(let d), 2) where d == d.rounded() && abs(d) < 1e9: value = .integer(Int64(d))
            default: break
            }
            let op = ["==", "!=", "<", "<=", ">", ">="].randomElement(using: &random)!
            let predicate = "\(key) \(op) %@"
            let typed = try ids(ObjectFetchRequest(entity: "Book", predicate: predicate, arguments: [value]))
            let text = try ids(ObjectFetchRequest(entity: "Book", predicate: predicate, textArguments: [value.description]))
            XCTAssertEqual(typed, text, "\(predicate) with \(value.kindPhrase)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, count / 6)
        reportTrials("typed arguments", "seed \(seed), \(checked) comparisons")
    }

    func testADayAgainstADateTimeMeansTheWholeDayAsTextDoes() throws {
        let day = Value.date(Day(year: 2024, month: 1, day: 5)!)
        for op in ["==", "!=", "<", "<=", ">", ">="] {
            XCTAssertEqual(try ids(ObjectFetchRequest(entity: "Book", predicate: "checked \(op) %@", arguments: [day])),
                           try ids(ObjectFetchRequest(entity: "Book", predicate: "checked \(op) %@", textArguments: ["2024-01-05"])), op)
        }
    }

    func testAKeyPathArgumentIsAString() throws {
        XCTAssertEqual(try ids(ObjectFetchRequest(entity: "Book", predicate: "%K > %@", arguments: [.string("pages"), .integer(100)])),
                       try ids(ObjectFetchRequest(entity: "Book", predicate: "pages > 100")))
        XCTAssertThrowsError(try ids(ObjectFetchRequest(entity: "Book", predicate: "%K > 1", arguments: [.integer(3)]))) { error in
            guard let error = error as? FetchError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.kind, .syntax)
            XCTAssertEqual(error.message, "argument 1 for %K is not a key path: it is the integer 3")
            XCTAssertEqual(error.column, 1)
        }
    }

    func testAnArgumentOfAnotherTypeIsRefusedNamingItAndTheKey() throws {
        let cases: [(String, Value, String)] = [
            ("pages == %@", .string("12"), #""pages" is Integer, but argument 1 is the string "12""#),
            ("title == %@", .integer(12), #""title" is String, but argument 1 is the integer 12"#),
            ("inPrint == %@", .integer(1), #""inPrint" is Boolean, but argument 1 is the integer 1"#),
            ("added == %@", .boolean(true), #""added" is Date, but argument 1 is the boolean yes"#),
            ("title == 'x' AND price > %@", .date(Day(year: 2024, month: 1, day: 1)!), #""price" is Decimal(2), but argument 1 is the date 2024-01-01"#),
            ("author == %@", .integer(1), #""author" is a reference to Author, but argument 1 is the integer 1"#),
            ("rating > %@", .double(.infinity), "argument 1 is the double inf, which the store cannot hold"),
        ]
        for (predicate, value, message) in cases {
            XCTAssertThrowsError(try ids(ObjectFetchRequest(entity: "Book", predicate: predicate, arguments: [value])), predicate) { error in
                guard let error = error as? FetchError else { return XCTFail("\(predicate): \(error)") }
                XCTAssertEqual(error.kind, .binding, predicate)
                XCTAssertEqual(error.message, message, predicate)
                XCTAssertEqual(error.source, "where")
                XCTAssertEqual(error.line, 1)
                XCTAssertEqual(error.column, predicate.distance(from: predicate.startIndex, to: predicate.range(of: "%@")!.lowerBound) + 1, predicate)
                XCTAssertEqual(error.description, "where:1:\(error.column): \(message)")
            }
        }
    }

    func testAnObjectIDStringComparesWithAReference() throws {
        let author = try ObjectContext(store: store).objects(of: "Author").first!
        XCTAssertEqual(try ids(ObjectFetchRequest(entity: "Book", predicate: "author == %@", arguments: [.string(author.objectID!.description)])),
                       try ids(ObjectFetchRequest(entity: "Book", predicate: "author == %@", textArguments: [author.objectID!.description])))
    }

    func testNullArgumentsAndCountsMismatchAsText() throws {
        XCTAssertEqual(try ids(ObjectFetchRequest(entity: "Book", predicate: "rating == %@", arguments: [.null])),
                       try ids(ObjectFetchRequest(entity: "Book", predicate: "rating == nil")))
        XCTAssertThrowsError(try ids(ObjectFetchRequest(entity: "Book", predicate: "pages > %@ AND pages < %@", arguments: [.integer(1)]))) { error in
            XCTAssertEqual((error as? FetchError)?.kind, .syntax, "\(error)")
        }
    }
}
