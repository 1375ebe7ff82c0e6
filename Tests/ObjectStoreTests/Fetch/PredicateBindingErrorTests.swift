import XCTest
import TestSupport
@testable import ObjectStore

/// Every shape of binding error, as the whole one-line message.
final class PredicateBindingErrorTests: XCTestCase {
    func message(_ entity: String, _ predicate: String, variables: [String: String] = [:], arguments: [String] = []) -> String {
        do {
            _ = try FetchPlan(ObjectFetchRequest(entity: entity, predicate: predicate, variables: variables, textArguments: arguments),
                              model: TestModel.model, columns: [])
            return "no error"
        } catch {
            return "\(error)"
        }
    }

    func testUnknownKeysSuggestCloseNames() {
        XCTAssertEqual(message("Author", "nmae == 'x'"), "where:1:1: unknown key \"nmae\" on Author — did you mean \"name\"?")
        XCTAssertEqual(message("Book", "author.nmae == 'x'"), "where:1:8: unknown key \"nmae\" on Author — did you mean \"name\"?")
        XCTAssertEqual(message("Book", "pages > 1 AND zzz == 2"), "where:1:15: unknown key \"zzz\" on Book")
        XCTAssertEqual(message("Book", "title.length > 2"), "where:1:7: \"title\" is an attribute of Book; it has no key \"length\"")
        XCTAssertEqual(message("Book", "ANY chapters.titel == 'x'"), "where:1:14: unknown key \"titel\" on Chapter — did you mean \"title\"?")
    }

    func testTypeErrors() {
        XCTAssertEqual(message("Book", "inPrint BEGINSWITH 'x'"), "where:1:9: BEGINSWITH needs a string, but \"inPrint\" is Boolean")
        XCTAssertEqual(message("Book", "title == 42"), "where:1:10: \"title\" is String, but 42 is a number")
        // A number stands for a Boolean, as NSPredicate compares them (PredicateDifferentialTests); a string does not.
        // Ordered against another number, a Boolean would be that number's truth, not its value (`inPrint < 2` read as
        // `inPrint < YES`: found by the attack on 0.6.0 before it landed).
        XCTAssertEqual(message("Book", "inPrint < 2"), "where:1:11: \"inPrint\" is Boolean, ordered only against YES, NO, 1 or 0, but 2 is another number")
        XCTAssertEqual(message("Book", "inPrint BETWEEN {-1, 0}"), "where:1:18: \"inPrint\" is Boolean, ordered only against YES, NO, 1 or 0, but -1 is another number")
        XCTAssertEqual(message("Book", "inPrint == 'yes'"), "where:1:12: \"inPrint\" is Boolean, but \"yes\" is a string")
        XCTAssertEqual(message("Book", "pages == 'ten'"), "where:1:10: \"pages\" is Integer, but \"ten\" is a string")
        XCTAssertEqual(message("Book", "added == 'yesterday'"), "where:1:10: \"yesterday\" is not a date (expected YYYY-MM-DD), but \"added\" is Date")
        XCTAssertEqual(message("Book", "price ==[c] 1"), "where:1:7: [c] applies to strings, but \"price\" is Decimal(2)")
        XCTAssertEqual(message("Book", "title == pages"), "where:1:7: cannot compare \"title\" (String) with \"pages\" (Integer)")
        XCTAssertEqual(message("Book", "chapters.@sum.title > 1"), "where:1:15: @sum needs a number, but \"title\" is String")
        XCTAssertEqual(message("Book", "title MATCHES '('"), "where:1:15: invalid regular expression \"(\": expected ')'")
        XCTAssertEqual(message("Book", "pages BETWEEN {1}"), "where:1:15: expected two values {low, high} after \"BETWEEN\", found 1 value; BETWEEN takes a pair {low, high}, a $variable or %@")
        XCTAssertEqual(message("Book", "author > nil"), "where:1:8: a relationship or SELF can only be compared with ==, != or IN (object IDs, or NULL)")
        XCTAssertEqual(message("Book", "author == 'Ann'"), "where:1:11: \"author\" is a reference to Author, but \"Ann\" is not an object ID; "
                       + "give one such as Author/17, or compare one of its keys, e.g. author.name")
        XCTAssertEqual(message("Book", "author == 'Book/1'"), "where:1:11: Book/1 is a Book, but \"author\" is a reference to Author")
        XCTAssertEqual(message("Book", "SELF == 3"), "where:1:9: \"SELF\" is a reference to Book, but 3 is a number")
    }

    /// An object ID on the left binds as on the right; where it cannot, the message is the right side's, not
    /// `cannot compare "'Author/1'" (Integer) with "author"` (the ID already made a row number).
    func testAnObjectIDOnTheLeftIsRefusedAsOnTheRight() {
        XCTAssertEqual(message("Book", "'Author/1' == author"), "no error")
        XCTAssertEqual(message("Book", "%@ != SELF", arguments: ["Book/1"]), "no error")
        XCTAssertEqual(message("Book", "'Book/1' == author"), "where:1:1: Book/1 is a Book, but \"author\" is a reference to Author")
        XCTAssertEqual(message("Book", "'Ann' == author"), "where:1:1: \"author\" is a reference to Author, but \"Ann\" is not an object ID; "
                       + "give one such as Author/17, or compare one of its keys, e.g. author.name")
        XCTAssertEqual(message("Book", "'Author/1' < author"), "where:1:12: a relationship or SELF can only be compared with ==, != or IN (object IDs, or NULL)")
        XCTAssertEqual(message("Book", "'Author/1' IN author"),
                       "where:1:15: IN needs a list of values on its right, but \"author\" is a reference to Author; write author == 'Author/1'")
        XCTAssertEqual(message("Book", "%@ IN SELF", arguments: ["Book/1"]),
                       "where:1:7: IN needs a list of values on its right, but \"SELF\" is a reference to Book; write SELF == %@")
    }

    /// `author == 'author/1'` was `author/1 is a author, but "author" is a reference to Author`: the entity is
    /// spelt wrong, and the message names the value and the right spelling.
    func testAnObjectIDWithAMisspeltEntityNamesTheRightSpelling() {
        XCTAssertEqual(message("Book", "author == 'author/1'"),
                       "where:1:11: there is no entity \"author\" in the object ID author/1 — did you mean \"Author/1\"?")
        XCTAssertEqual(message("Book", "'AUTHOR/1' == author"),
                       "where:1:1: there is no entity \"AUTHOR\" in the object ID AUTHOR/1 — did you mean \"Author/1\"?")
        XCTAssertEqual(message("Book", "SELF IN %@", arguments: ["Book/1,bok/2"]),
                       "where:1:9: there is no entity \"bok\" in the object ID bok/2 — did you mean \"Book/2\"?")
        XCTAssertEqual(message("Book", "author == 'Zebra/1'"),
                       "where:1:11: there is no entity \"Zebra\" in the object ID Zebra/1, but \"author\" is a reference to Author")
    }

    /// `$c == SELF` and `$n == title` were refused ("$c is a value, not a key path") where `%@ == SELF` and
    /// `'Book/1' == SELF` bind: a `$variable` on the left is a value as on the right, the same statement as `%@` there
    /// (an object ID's the same SQL as the comparison written the other way round), its mistakes the same.
    func testAVariableOnTheLeftIsTheSameStatement() throws {
        func statement(_ predicate: String, variables: [String: String] = [:], arguments: [String] = []) throws -> String {
            let plan = try FetchPlan(ObjectFetchRequest(entity: "Book", predicate: predicate, variables: variables, textArguments: arguments),
                                     model: TestModel.model, columns: [])
            let (sql, values) = plan.sql(.objects, dialect: SQLiteDialect())
            return sql + " -- " + values.map { "\($0)" }.joined(separator: ", ")
        }
        for (path, value) in [("SELF", "Book/1"), ("author", "Author/2"), ("cover", "Cover/3"), ("shelf", "Shelf/9")] {
            for op in ["==", "!="] {
                let left = try statement("$v \(op) \(path)", variables: ["v": value])
                XCTAssertEqual(left, try statement("\(path) \(op) $v", variables: ["v": value]), "\(path) \(op)")
                XCTAssertEqual(left, try statement("%@ \(op) \(path)", arguments: [value]), "\(path) \(op)")
                XCTAssertEqual(left, try statement("'\(value)' \(op) \(path)"), "\(path) \(op)")
            }
        }
        for (path, value, ops) in [("title", "Dune", ["==", "!=", "<", ">=", "BEGINSWITH", "CONTAINS[cd]", "LIKE"]),
                                    ("pages", "300", ["==", "!=", "<", ">="]), ("price", "9.5", ["==", "<=", ">"]),
                                    ("rating", "0.25", ["==", ">"]), ("inPrint", "1", ["==", "!="]), ("added", "2024-03-01", ["==", "<"])] {
            for op in ops {
                XCTAssertEqual(try statement("$v \(op) \(path)", variables: ["v": value]), try statement("%@ \(op) \(path)", arguments: [value]),
                               "\(path) \(op)")
            }
        }
        // Two values: each keeps its own type, as two literals do.
        XCTAssertEqual(try statement("$a == $b", variables: ["a": "x", "b": "x"]), try statement("'x' == 'x'"))
        // Its mistakes are the value's, as `%@`'s are; an unknown one is still unknown.
        XCTAssertEqual(message("Book", "$v == author", variables: ["v": "Ann"]), message("Book", "%@ == author", arguments: ["Ann"]))
        XCTAssertEqual(message("Book", "$v == author", variables: ["v": "Book/1"]), "where:1:1: Book/1 is a Book, but \"author\" is a reference to Author")
        XCTAssertEqual(message("Book", "$v < author", variables: ["v": "Author/1"]),
                       "where:1:4: a relationship or SELF can only be compared with ==, != or IN (object IDs, or NULL)")
        XCTAssertEqual(message("Book", "$v == pages", variables: ["v": "ten"]), message("Book", "%@ == pages", arguments: ["ten"]))
        XCTAssertEqual(message("Book", "$w == pages", variables: ["v": "1"]), "where:1:1: unknown variable $w; give $w a value")
        // A SUBQUERY's own variable is still a key path.
        XCTAssertEqual(message("Book", "SUBQUERY(chapters, $c, $c.title == 'x').@count > 0"), "no error")
        XCTAssertEqual(message("Book", "SUBQUERY(chapters, $c, 'x' == $c.title).@count > 0"), "no error")
    }

    func testToManyPathsMustBeQuantified() {
        XCTAssertEqual(message("Book", "genres == 'x'"),
                       "where:1:1: \"genres\" is a to-many relationship — write ANY genres.name == …, or genres.@count")
        XCTAssertEqual(message("Book", "chapters.title BEGINSWITH 'x'"),
                       "where:1:1: \"chapters\" is a to-many relationship — write ANY chapters.title BEGINSWITH …, or chapters.@count")
        XCTAssertEqual(message("Author", "books.chapters.title == 'x'"),
                       "where:1:1: \"books\" is a to-many relationship — write ANY books.chapters.title == …, or books.@count")
        XCTAssertEqual(message("Book", "ANY title == 'x'"),
                       "where:1:5: ANY needs a to-many key path, but \"title\" is not one; write title == … without ANY")
        XCTAssertEqual(message("Book", "title.@count > 1"), "where:1:7: @count applies to a to-many relationship; \"title\" is an attribute of Book")
        XCTAssertEqual(message("Book", "author.@count > 1"), "where:1:8: @count applies to a to-many relationship; \"author\" is to-one")
        XCTAssertEqual(message("Book", "chapters.@count.x > 1"), "where:1:17: nothing may follow @count")
        XCTAssertEqual(message("Book", "SUBQUERY(chapters, $c, $c.title == 'x') > 0"),
                       "where:1:1: a SUBQUERY is used through .@count, as in SUBQUERY(…).@count > 0")
    }

    func testVariablesAndArguments() {
        XCTAssertEqual(message("Book", "pages > $min"), "where:1:9: unknown variable $min; give $min a value")
        XCTAssertEqual(message("Book", "pages > $min", variables: ["min": "many"]), "where:1:9: \"many\" is not a number, but \"pages\" is Integer")
        XCTAssertEqual(message("Book", "added > %@", arguments: ["soon"]), "where:1:9: \"soon\" is not a date (expected YYYY-MM-DD), but \"added\" is Date")
        XCTAssertEqual(message("Book", "pages > 1", arguments: ["x"]),
                       "where:1:1: the predicate has 0 placeholders (%@ or %K) but 1 argument was given; remove the arguments, or put %@ (a value) or %K (a key path) where they belong")
        XCTAssertEqual(message("Book", "%K > 1", arguments: ["pagez"]), "where:1:1: unknown key \"pagez\" on Book — did you mean \"pages\"?")
    }

    func testSortAndColumnErrors() {
        func planError(sort: String = "", columns: [String]? = nil) -> String {
            do {
                _ = try FetchPlan(ObjectFetchRequest(entity: "Book", sortDescriptors: try SortKey.parseList(sort)),
                                  model: TestModel.model, columns: columns)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(planError(sort: "title, pages decs"), "sort:1:14: unknown sort option \"decs\" — did you mean \"desc\"? (write asc or desc, and binary, nocase or natural)")
        XCTAssertEqual(planError(sort: "titel"), "sort:1:1: unknown key \"titel\" on Book — did you mean \"title\"?")
        XCTAssertEqual(planError(sort: "chapters.title"), "sort:1:1: \"chapters\" is a to-many relationship — sort by an aggregate such as chapters.@count")
        XCTAssertEqual(planError(sort: "title,,pages"), "sort:1:7: expected a key path")
        XCTAssertEqual(planError(columns: ["isbn", "author.nmae"]), "columns:1:8: unknown key \"nmae\" on Author — did you mean \"name\"?")
        XCTAssertEqual(planError(columns: ["isbn", "genres"]), "no error", "a to-many column lists the natural keys")
    }
}

/// Values are bound, never spliced: classic injection strings are just strings.
final class PredicateInjectionTests: XCTestCase {
    func testInjectionStringsAreBoundValues() throws {
        let (store, dir) = try FetchFixture.make()
        _ = dir
        let before = try dumpStore(store.path)
        let context = ObjectContext(store: store)
        let attacks = ["'; DROP TABLE Book; --", "\" OR 1=1 --", "x') OR ('1'='1", "Robert'); DELETE FROM Author;--",
                       "%' OR '%'='", "\\'; SELECT * FROM _bookkeeper_meta; --", "1; ATTACH DATABASE '/tmp/x' AS x"]
        for attack in attacks {
            for predicate in ["title == %@", "title CONTAINS %@", "author.name BEGINSWITH[cd] %@", "ANY genres.name IN %@"] {
                let request = ObjectFetchRequest(entity: "Book", predicate: predicate, textArguments: [attack])
                XCTAssertEqual(try context.fetch(request).count, 0, "\(predicate) with \(attack)")
                let (sql, arguments) = try FetchPlan(request, model: store.model, columns: []).sql(.objects, dialect: SQLiteDialect())
                XCTAssertFalse(sql.contains(attack), sql)
                XCTAssertTrue(arguments.contains { $0.string?.contains(attack.prefix(5)) ?? false }, "\(arguments)")
            }
            let viaVariable = ObjectFetchRequest(entity: "Book", predicate: "title == $q", variables: ["q": attack])
            XCTAssertEqual(try context.fetch(viaVariable).count, 0)
        }
        XCTAssertEqual(try dumpStore(store.path), before)
    }
}
