import XCTest
import TestSupport
@testable import ObjectStore

final class ValidationTests: XCTestCase {
    var store: Store!
    var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        (store, dir) = try TestModel.makeStore()
        let c = ObjectContext(store: store)
        let a = try c.insert("Author"); a["name"] = .string("Ann")
        let b = try c.insert("Book"); b["isbn"] = .string("1"); b["title"] = .string("One")
        try b.setObject(a, for: "author")
        try c.save()
    }

    private func messages(_ body: (ObjectContext) throws -> Void) throws -> [String] {
        let c = ObjectContext(store: store)
        try body(c)
        do {
            try c.save()
            return []
        } catch let error as ValidationFailure {
            return error.issues.map(\.message)
        }
    }

    func testAFailedSaveReportsEveryProblemAndWritesNothing() throws {
        let before = try dumpStore(store.path)
        let issues = try messages { c in
            let ok = try c.insert("Author"); ok["name"] = .string("Bob")      // valid on its own
            let dup = try c.insert("Author"); dup["name"] = .string("Ann")   // clashes with a stored one
            _ = try c.insert("Author")                                        // no name
            let b = try c.insert("Book"); b["isbn"] = .string("2")           // no title
            b["price"] = .decimal(DecimalNumber(exactly: "1.005")!)
            b["pages"] = .integer(-3)
            let ch = try c.insert("Chapter"); ch["title"] = .string("orphan") // no book
        }
        XCTAssertEqual(issues, [
            "Author.name \"Ann\" already exists (Author/1)",
            "Author.name is required",
            "Book.title is required",
            "Book.price 1.005 has more than 2 decimal places",
            "Book.pages cannot be negative",
            "Chapter.book is required",
        ])
        XCTAssertEqual(try dumpStore(store.path), before, "a failed save leaves the store exactly as it was")
    }

    func testUniquenessWithinOneSave() throws {
        let issues = try messages { c in
            for _ in 0..<2 { let a = try c.insert("Author"); a["name"] = .string("Cy") }
        }
        XCTAssertEqual(issues, ["Author.name \"Cy\" is given to two objects (new Author and new Author)"])
    }

    func testSwappingUniqueValuesIsNotAClash() throws {
        // Rename Ann to Bob while a new Ann is inserted: valid, since the stored "Ann" changes in the same save.
        let issues = try messages { c in
            let ann = try c.resolve("Ann", in: "Author")
            ann["name"] = .string("Bob")
            let newAnn = try c.insert("Author"); newAnn["name"] = .string("Ann")
        }
        XCTAssertEqual(issues, [])
        XCTAssertEqual(try queryStore(store.path, "SELECT name FROM Author ORDER BY id"), ["Bob", "Ann"])
    }

    func testAFailedSaveKeepsTheContextsChangesForCorrection() throws {
        let c = ObjectContext(store: store)
        let a = try c.insert("Author")
        XCTAssertThrowsError(try c.save())
        a["name"] = .string("Dee")
        XCTAssertEqual(try c.save().inserted, [ObjectID("Author/2")!])
    }
}
