import XCTest
import TestSupport
@testable import ObjectStore

/// The predicate language's meaning, checked on concrete results, through SQL and in memory alike.
final class PredicateSemanticsTests: XCTestCase {
    nonisolated(unsafe) static var fixture: (Store, TemporaryDirectory)!
    var store: Store { Self.fixture.0 }

    override class func setUp() {
        fixture = try! FetchFixture.make()
    }

    /// The natural keys (or IDs) matching, by SQL — after checking that the in-memory evaluator agrees.
    func keys(_ entity: String, _ predicate: String, sort: String = "", variables: [String: String] = [:],
              arguments: [String] = [], file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let request = ObjectFetchRequest(entity: entity, predicate: predicate,
                                   sortDescriptors: try SortKey.parseList(sort.isEmpty ? "id" : sort).filter { $0.keyPath != "id" },
                                   variables: variables, textArguments: arguments)
        let plan = try FetchPlan(request, model: store.model, columns: [])
        let context = ObjectContext(store: store)
        let sql = try context.fetch(plan).map { $0.naturalKeyText ?? $0.displayID }
        let memory = try context.fetchInMemory(plan).map { $0.naturalKeyText ?? $0.displayID }
        XCTAssertEqual(sql, memory, "SQL and memory disagree on \(predicate)", file: file, line: line)
        return sql
    }

    func testComparisonsAndBooleanLogic() throws {
        XCTAssertEqual(try keys("Book", "pages > 100"), ["001", "002"])
        XCTAssertEqual(try keys("Book", "pages => 100 AND inPrint == YES"), ["001", "004"])
        XCTAssertEqual(try keys("Book", "pages =< 0 || pages = 2"), ["005", "007"])
        XCTAssertEqual(try keys("Book", "pages <> 10 && pages != 11 AND pages < 12"), ["005", "007", "010"])
        XCTAssertEqual(try keys("Book", "NOT inPrint == YES OR !(pages > -1)"), ["002", "003", "005", "008", "010", "012"],
                       "NOT binds tightest; a null pages makes pages > -1 false")
        XCTAssertEqual(try keys("Book", "TRUEPREDICATE").count, 12)
        XCTAssertEqual(try keys("Book", "FALSEPREDICATE"), [])
        XCTAssertEqual(try keys("Book", "pages BETWEEN {2, 10}"), ["005", "006"])
        XCTAssertEqual(try keys("Book", "isbn IN {'003', \"007\", 'nope'}"), ["003", "007"])
        XCTAssertEqual(try keys("Book", "inPrint == NO AND pages > 0 OR isbn == '007'"), ["002", "005", "007", "008", "010"], "AND binds tighter than OR")
    }

    func testDecimalsCompareExactly() throws {
        XCTAssertEqual(try keys("Book", "price == 19.9"), ["001", "002", "011"])
        XCTAssertEqual(try keys("Book", "price == 19.90"), ["001", "002", "011"])
        XCTAssertEqual(try keys("Book", "price > 19.899 AND price < 19.901"), ["001", "002", "011"])
        XCTAssertEqual(try keys("Book", "price == 12.35"), ["009"])
        XCTAssertEqual(try keys("Book", "price > 1234567.889"), ["008"])
        XCTAssertEqual(try keys("Book", "price < 0"), ["010"])
        XCTAssertEqual(try keys("Book", "pages > 2.5 AND pages < 10.5"), ["006"], "integers compare exactly with decimals")
        XCTAssertEqual(try keys("Book", "rating == 1.25"), ["005", "006"])
        XCTAssertEqual(try keys("Book", "rating > price"), ["010"], "-0.5 > -5.00, and 0.0 > 0.00 is false")
    }

    func testNullsFollowTheTwoValuedRule() throws {
        XCTAssertEqual(try keys("Book", "price == nil"), ["004", "012"])
        XCTAssertEqual(try keys("Book", "price != NULL").count, 10)
        XCTAssertEqual(try keys("Book", "pages != 10 AND isbn BEGINSWITH '00'"), ["001", "002", "003", "004", "005", "007", "008", "009"],
                       "x != value is true when x is null")
        XCTAssertEqual(try keys("Book", "pages < 5"), ["005", "007", "010"], "ordering against null is false")
        XCTAssertEqual(try keys("Book", "NOT (pages < 5)"), ["001", "002", "003", "004", "006", "008", "009", "011", "012"],
                       "NOT inverts: null pages are included")
        XCTAssertEqual(try keys("Book", "pages <= nil"), ["003", "012"], "x <= NULL holds only for null")
        XCTAssertEqual(try keys("Book", "pages < nil"), [])
        XCTAssertEqual(try keys("Book", "author == nil"), ["007", "012"])
        XCTAssertEqual(try keys("Book", "author.name == nil"), ["007", "012"], "a null link gives null")
        XCTAssertEqual(try keys("Book", "author.email == nil"), ["002", "004", "007", "010", "012"])
        XCTAssertEqual(try keys("Book", "title CONTAINS 'x' OR NOT (author.email CONTAINS '@')"), ["002", "004", "007", "010", "012"],
                       "string operators against null are false, and NOT makes them true")
    }

    func testStringOperatorsAndOptions() throws {
        XCTAssertEqual(try keys("Author", "name ==[c] 'müller'"), ["Müller", "MÜLLER"])
        XCTAssertEqual(try keys("Author", "name ==[cd] 'muller'"), ["Müller", "muller", "MÜLLER"])
        XCTAssertEqual(try keys("Author", "name ==[c] 'STRASSE'"), ["Straße", "STRASSE"], "full case folding: ß is ss")
        XCTAssertEqual(try keys("Author", "name CONTAINS[cd] 'ULL'"), ["Müller", "muller", "MÜLLER"])
        XCTAssertEqual(try keys("Author", "name CONTAINS 'ULL'"), [], "MÜLLER has Ü, not U")
        XCTAssertEqual(try keys("Author", "name CONTAINS ''"), [], "an empty needle matches nothing")
        XCTAssertEqual(try keys("Author", "name BEGINSWITH 'Item'"), ["Item 2", "Item 10"])
        XCTAssertEqual(try keys("Author", "name BEGINSWITH[c] 'item'"), ["Item 2", "Item 10", "item 1"])
        XCTAssertEqual(try keys("Author", "name ENDSWITH[d] 'e'"), ["Straße", "Zoë"])
        XCTAssertEqual(try keys("Author", "name LIKE 'Item ?'"), ["Item 2"])
        XCTAssertEqual(try keys("Author", "name LIKE[c] 'item *'"), ["Item 2", "Item 10", "item 1"])
        XCTAssertEqual(try keys("Author", "name LIKE '*.*'"), [], "only * and ? are wildcards")
        XCTAssertEqual(try keys("Author", "name MATCHES 'Item [0-9]+'"), ["Item 2", "Item 10"])
        XCTAssertEqual(try keys("Author", "name MATCHES 'Item'"), [], "MATCHES is over the whole string")
        XCTAssertEqual(try keys("Author", "name IN[c] {'ann', 'zoë'}"), ["Zoë", "Ann", "ann"])
        XCTAssertEqual(try keys("Author", "name !=[c] 'ann' AND name BEGINSWITH[c] 'a'"), [])
        XCTAssertEqual(try keys("Book", "title ==[c] 'THE MÜLLER CASE'"), ["001"])
    }

    func testDatesAndVariables() throws {
        XCTAssertEqual(try keys("Author", "born < '1970-01-01'"), ["Straße", "O'Brien"])
        XCTAssertEqual(try keys("Author", "born == \"2001-09-09\""), ["Item 10", "item 1"])
        XCTAssertEqual(try keys("Book", "added BETWEEN {'2024-01-01', '2024-02-29'}"), ["001", "002", "005", "009", "011"])
        XCTAssertEqual(try keys("Book", "added >= $from AND added <= $until", variables: ["from": "2024-03-01", "until": "2024-12-31"]), ["006", "007"])
        XCTAssertEqual(try keys("Book", "added < $TODAY").count, 10)
        XCTAssertEqual(try keys("Book", "added < $TODAY", variables: ["TODAY": "2024-01-05"]), ["003", "008", "010"])
        XCTAssertEqual(try keys("Book", "title BEGINSWITH %@ AND %K > %@", arguments: ["Item", "pages", "5"]), ["006"])
        XCTAssertEqual(try keys("Book", "added == %@", arguments: ["2024-03-01"]), ["006", "007"])
        XCTAssertEqual(try keys("Book", "isbn IN $list", variables: ["list": "001, 012"]), ["001", "012"])
    }

    func testToManyQuantifiersAndAggregates() throws {
        XCTAssertEqual(try keys("Book", "ANY genres.name == 'Poetry'"), ["003", "005", "008", "009", "011"])
        XCTAssertEqual(try keys("Book", "SOME genres.name ==[c] 'crime'"), ["001", "002", "009", "011"])
        XCTAssertEqual(try keys("Book", "NONE genres.name BEGINSWITH[c] 'crime'"), ["003", "004", "005", "006", "007", "008", "012"])
        XCTAssertEqual(try keys("Book", "ALL chapters.title ==[cd] 'ode'"), ["003", "007", "008", "010"], "ALL over no elements is true")
        XCTAssertEqual(try keys("Book", "genres.@count == 0"), ["004", "007", "012"])
        XCTAssertEqual(try keys("Book", "genres.@count >= 3"), ["009", "011"])
        XCTAssertEqual(try keys("Book", "chapters.@count > 2"), ["001", "008", "011"])
        XCTAssertEqual(try keys("Author", "books.@count == 0"), ["MÜLLER", "item 1"])
        XCTAssertEqual(try keys("Author", "books.@sum.price > 100"), ["Zoë"])
        XCTAssertEqual(try keys("Author", "books.@sum.price == 0"), ["MÜLLER", "STRASSE", "item 1"], "@sum of nothing, or of nulls, is 0")
        XCTAssertEqual(try keys("Author", "books.@avg.price == nil"), ["MÜLLER", "STRASSE", "item 1"], "@avg of nothing is null")
        XCTAssertEqual(try keys("Genre", "books.@max.price == 1234567.89"), ["Poetry"])
        XCTAssertEqual(try keys("Genre", "books.@min.added == '2021-01-01'"), ["crime fiction"])
        XCTAssertEqual(try keys("Genre", "ANY books.author.name BEGINSWITH 'Item'"), ["Poetry", "Science"])
        XCTAssertEqual(try keys("Author", "ANY books.chapters.notes.text == 'note 1'"), ["Müller", "STRASSE", "Item 10", "Zoë", "ann"])
        XCTAssertEqual(try keys("Author", "SUBQUERY(books, $b, ANY $b.chapters.notes.text == 'note 1').@count > 0"), ["Müller", "STRASSE", "Item 10", "Zoë", "ann"])
        XCTAssertEqual(try keys("Book", "SUBQUERY(chapters, $c, $c.title ==[c] 'ode').@count == 2"), ["008"])
        XCTAssertEqual(try keys("Book", "SUBQUERY(chapters, $c, $c.notes.@count > 0 AND pages > 50).@count >= 1"), ["001", "004", "008"],
                       "keys without the variable are the fetched object's")
        XCTAssertEqual(try keys("Author", "books.chapters.@count >= 3"), ["Müller", "Zoë", "ann"])
        XCTAssertEqual(try keys("Author", "books.chapters.notes.@count == 0"), ["muller", "MÜLLER", "Straße", "Item 2", "item 1", "O'Brien", "Ann"])
        XCTAssertEqual(try keys("Book", "cover.colour == 'Blue'"), ["002", "010"])
        XCTAssertEqual(try keys("Cover", "book.isbn == '006'").count, 1)
        XCTAssertEqual(try keys("Book", "5 < pages AND 100 >= pages"), ["004", "006", "008", "009", "011"])
    }

    func testSortDescriptors() throws {
        XCTAssertEqual(try keys("Author", "TRUEPREDICATE", sort: "name"),
                       ["Ann", "Item 10", "Item 2", "MÜLLER", "Müller", "O'Brien", "STRASSE", "Straße", "Zoë", "ann", "item 1", "muller"])
        XCTAssertEqual(try keys("Author", "TRUEPREDICATE", sort: "name natural"),
                       ["Ann", "ann", "item 1", "Item 2", "Item 10", "muller", "MÜLLER", "Müller", "O'Brien", "STRASSE", "Straße", "Zoë"])
        let natural = try keys("Author", "name BEGINSWITH[c] 'item'", sort: "name natural")
        XCTAssertEqual(natural, ["item 1", "Item 2", "Item 10"])
        XCTAssertEqual(try keys("Book", "TRUEPREDICATE", sort: "price desc, isbn desc"),
                       ["008", "006", "005", "011", "002", "001", "009", "003", "007", "010", "012", "004"], "NULLs last when descending")
        XCTAssertEqual(try keys("Book", "TRUEPREDICATE", sort: "price"),
                       ["004", "012", "010", "007", "003", "009", "001", "002", "011", "005", "006", "008"], "NULLs first ascending; ties by ID")
        XCTAssertEqual(try keys("Book", "TRUEPREDICATE", sort: "author.name nocase, title"),
                       ["012", "007", "010", "011", "006", "005", "002", "001", "009", "004", "003", "008"])
        XCTAssertEqual(try keys("Author", "books.@count > 0", sort: "books.@sum.price desc").first, "Zoë")
    }
}
