import XCTest
import TestSupport
@testable import ObjectStore

final class ContextTests: XCTestCase {
    var store: Store!
    var dir: TemporaryDirectory!

    override func setUpWithError() throws {
        (store, dir) = try TestModel.makeStore()
    }

    private func newContext() -> ObjectContext { ObjectContext(store: store) }

    @discardableResult
    private func book(_ c: ObjectContext, _ isbn: String, author: ManagedObject? = nil) throws -> ManagedObject {
        let b = try c.insert("Book")
        b["isbn"] = .string(isbn)
        b["title"] = .string("Title \(isbn)")
        if let author { try b.setObject(author, for: "author") }
        return b
    }

    private func author(_ c: ObjectContext, _ name: String) throws -> ManagedObject {
        let a = try c.insert("Author")
        a["name"] = .string(name)
        return a
    }

    func testInsertSaveAndFetchByIDRoundTripsEveryType() throws {
        let c = newContext()
        let b = try book(c, "978-1")
        b["price"] = .decimal(DecimalNumber(exactly: "19.9")!)
        b["pages"] = .integer(320)
        b["rating"] = .double(4.5)
        b["scan"] = .binary(Data([1, 2, 3]))
        b["checked"] = .dateTime(Timestamp(iso: "2024-03-01T10:00:00Z")!)
        let result = try c.save()
        XCTAssertEqual(result.inserted, [ObjectID(entity: "Book", rowID: 1)])

        let fresh = newContext()
        let loaded = try fresh.object(with: ObjectID("Book/1")!)
        XCTAssertEqual(loaded["price"], .decimal(DecimalNumber(units: 1990, scale: 2)))
        XCTAssertEqual(loaded["price"].description, "19.90")
        XCTAssertEqual(loaded["pages"], .integer(320))
        XCTAssertEqual(loaded["rating"], .double(4.5))
        XCTAssertEqual(loaded["inPrint"], .boolean(true), "default applied on insert")
        XCTAssertEqual(loaded["added"], .date(Day.today()), "date default is today")
        XCTAssertEqual(loaded["scan"], .binary(Data([1, 2, 3])))
        XCTAssertEqual(loaded["checked"].description, "2024-03-01T10:00:00Z")
        XCTAssertEqual(try queryStore(store.path, "SELECT price FROM Book"), ["1990"], "decimals are stored as scaled integers")
        XCTAssertThrowsError(try fresh.object(with: ObjectID("Book/9")!)) { XCTAssertEqual("\($0)", "Book/9 not found") }
    }

    func testToOneKeepsTheToManyInverseInStep() throws {
        let c = newContext()
        let ann = try author(c, "Ann"), bob = try author(c, "Bob")
        let b = try book(c, "1", author: ann)
        XCTAssertEqual(try ann.objects(for: "books").map { $0 === b }, [true])
        try b.setObject(bob, for: "author")
        XCTAssertTrue(try ann.objects(for: "books").isEmpty)
        XCTAssertEqual(try bob.objects(for: "books").count, 1)
        try c.save()

        let c2 = newContext()
        let bob2 = try c2.resolve("Bob", in: "Author")
        let ann2 = try c2.resolve("Ann", in: "Author")
        XCTAssertEqual(try bob2.objects(for: "books").map(\.naturalKeyText), ["1"])
        // Moving through the to-many side updates the to-one side, even for sets not loaded yet.
        let b2 = try bob2.objects(for: "books")[0]
        try ann2.add(b2, to: "books")
        XCTAssertTrue(try b2.object(for: "author") === ann2)
        XCTAssertTrue(try bob2.objects(for: "books").isEmpty)
        let result = try c2.save()
        XCTAssertEqual(result.updated, [ObjectID("Book/1")!])
        XCTAssertEqual(try queryStore(store.path, "SELECT author_id FROM Book"), ["1"])
    }

    func testManyToManyLinksBothWays() throws {
        let c = newContext()
        let b = try book(c, "1")
        let g1 = try c.insert("Genre"); g1["name"] = .string("Crime")
        let g2 = try c.insert("Genre"); g2["name"] = .string("Poetry")
        try b.setObjects([g1, g2], for: "genres")
        XCTAssertEqual(try g1.objects(for: "books").count, 1)
        try c.save()
        XCTAssertEqual(try queryStore(store.path, "SELECT Genre_id FROM Book_genres ORDER BY 1"), ["1", "2"])

        let c2 = newContext()
        let poetry = try c2.resolve("Poetry", in: "Genre")
        let b2 = try c2.resolve("1", in: "Book")
        try poetry.remove(b2, from: "books")
        XCTAssertEqual(try b2.objects(for: "genres").map(\.naturalKeyText), ["Crime"])
        XCTAssertEqual(try c2.save().updated.sorted(), [ObjectID("Book/1")!, ObjectID("Genre/2")!])
        XCTAssertEqual(try queryStore(store.path, "SELECT Genre_id FROM Book_genres"), ["1"])
    }

    func testOneToOneStealsFromThePreviousOwner() throws {
        let c = newContext()
        let b1 = try book(c, "1"), b2 = try book(c, "2")
        let cover = try c.insert("Cover")
        try b1.setObject(cover, for: "cover")
        XCTAssertTrue(try cover.object(for: "book") === b1)
        try cover.setObject(b2, for: "book")
        XCTAssertNil(try b1.object(for: "cover"))
        XCTAssertTrue(try b2.object(for: "cover") === cover)
        try c.save()
        XCTAssertEqual(try queryStore(store.path, "SELECT cover_id FROM Book ORDER BY id"), [nil, "1"])
        let c2 = newContext()
        XCTAssertEqual(try c2.object(with: ObjectID("Cover/1")!).object(for: "book")?.naturalKeyText, "2")
    }

    /// A stored one-to-one moved to an object written before its former owner: the unique key was set on the new
    /// owner while the old one still held it (UNIQUE constraint failed: Book.cover_id), found by `DeepRuleTests`.
    func testAStoredOneToOneMovesToAnObjectWrittenBeforeItsOwner() throws {
        let c = newContext()
        try book(c, "1")
        let b2 = try book(c, "2")
        try b2.setObject(try c.insert("Cover"), for: "cover")
        try c.save()
        let c2 = newContext()
        try c2.object(with: ObjectID("Cover/1")!).setObject(try c2.resolve("1", in: "Book"), for: "book")
        XCTAssertEqual(try c2.save().updated, [ObjectID("Book/1")!, ObjectID("Book/2")!])
        XCTAssertEqual(try queryStore(store.path, "SELECT cover_id FROM Book ORDER BY id"), ["1", nil])
    }

    /// Unique values that move between objects of one save: a swap, a chain, and a value taken from an object the
    /// same save deletes. SQLite checks each UPDATE, so the first write met the value still in its old row: the save
    /// failed with "UNIQUE constraint failed: Author.name" (DeepRuleTests' stress form, seed 1795706577).
    func testUniqueValuesSwappedChainedOrTakenFromADeletedObjectInOneSave() throws {
        let c = newContext()
        for name in ["Ann", "Bob", "Kim", "Lee"] {
            let a = try c.insert("Author"); a["name"] = .string(name); a["email"] = .string("\(name)@x")
        }
        try c.save()
        let c2 = newContext()
        let ann = try c2.resolve("Ann", in: "Author"), bob = try c2.resolve("Bob", in: "Author")
        ann["name"] = .string("Bob"); bob["name"] = .string("Ann")                  // a swap (required text)
        ann["email"] = .null; bob["email"] = .string("Ann@x")                         // a move (optional text)
        try c2.save()
        XCTAssertEqual(try queryStore(store.path, "SELECT name || ' ' || ifnull(email, '-') FROM Author ORDER BY id"),
                       ["Bob -", "Ann Ann@x", "Kim Kim@x", "Lee Lee@x"])
        let c3 = newContext()
        let kim = try c3.resolve("Kim", in: "Author"), lee = try c3.resolve("Lee", in: "Author")
        let bob3 = try c3.resolve("Bob", in: "Author")
        lee["name"] = .string("Zed"); kim["name"] = .string("Lee")                   // a chain
        try c3.delete(bob3); try c3.resolve("Ann", in: "Author")["name"] = .string("Bob") // taken from a deleted object
        try c3.save()
        XCTAssertEqual(try queryStore(store.path, "SELECT name FROM Author ORDER BY id"), ["Bob", "Lee", "Zed"])
        // Two objects given one value stay a validation error, and nothing is written.
        let c4 = newContext()
        try c4.resolve("Lee", in: "Author")["name"] = .string("Max")
        try c4.resolve("Zed", in: "Author")["name"] = .string("Max")
        XCTAssertThrowsError(try c4.save()) { XCTAssertTrue($0 is ValidationFailure, "\($0)") }
        XCTAssertEqual(try queryStore(store.path, "SELECT name FROM Author ORDER BY id"), ["Bob", "Lee", "Zed"])
    }

    func testSaveReportsWhatChangedAndSkipsNoOpUpdates() throws {
        let c = newContext()
        try book(c, "1")
        try c.save()
        let b = try c.resolve("1", in: "Book")
        b["title"] = .string("Title 1")
        XCTAssertEqual(try c.save(), SaveResult(), "setting the same value is not an update")
        b["title"] = .string("New")
        XCTAssertEqual(try c.save().updated, [ObjectID("Book/1")!])
    }

    func testRollbackForgetsUnsavedChanges() throws {
        let c = newContext()
        try book(c, "1")
        try c.save()
        let before = try dumpStore(store.path)
        let b = try c.resolve("1", in: "Book")
        b["title"] = .string("Changed")
        try book(c, "2")
        try c.delete(b)
        XCTAssertTrue(c.hasChanges)
        c.rollback()
        XCTAssertFalse(c.hasChanges)
        XCTAssertEqual(try c.save(), SaveResult())
        XCTAssertEqual(try dumpStore(store.path), before)
        XCTAssertEqual(try c.resolve("1", in: "Book")["title"], .string("Title 1"))
    }

    func testResolvesByIDNaturalKeyOrUniqueAttribute() throws {
        let c = newContext()
        let a = try author(c, "Ann")
        a["email"] = .string("ann@example.org")
        try c.save()
        XCTAssertTrue(try c.resolve("Author/1", in: "Author") === a)
        XCTAssertTrue(try c.resolve("Ann", in: "Author") === a)
        XCTAssertTrue(try c.resolve("ann@example.org", in: "Author", by: "email") === a)
        XCTAssertThrowsError(try c.resolve("Anne", in: "Author")) {
            XCTAssertEqual("\($0)", "Author with name \"Anne\" not found — did you mean \"Ann\"?")
        }
        XCTAssertThrowsError(try c.resolve("Book/1", in: "Author")) { XCTAssertEqual("\($0)", "Book/1 is not a Author") }
        XCTAssertThrowsError(try c.resolve("x", in: "Chapter")) {
            XCTAssertEqual("\($0)", "Chapter objects have no natural key; name one by its object ID (Chapter/N), not \"x\"")
        }
        XCTAssertThrowsError(try c.resolve("x", in: "Author", by: "born")) {
            XCTAssertEqual("\($0)", "Author.born is not unique, so it cannot name one object")
        }
    }

    func testAssignmentsFromText() throws {
        let c = newContext()
        let a = try author(c, "Ann")
        a["email"] = .string("ann@x")
        for name in ["Crime", "Poetry"] { let g = try c.insert("Genre"); g["name"] = .string(name) }
        try c.save()
        let b = try c.insert("Book")
        try c.apply(["isbn=9", "title=T", "price=12.5", "author.email=ann@x", "genres=Crime, Poetry"].map { try Assignment(parsing: $0) }, to: b)
        try c.save()
        XCTAssertEqual(b["price"].description, "12.50")
        try c.apply([try Assignment(parsing: "genres-=Crime"), try Assignment(parsing: "price=")], to: b)
        try c.save()
        XCTAssertEqual(try b.objects(for: "genres").map(\.naturalKeyText), ["Poetry"])
        XCTAssertEqual(b["price"], .null)
        func failure(_ text: String) -> String {
            do { try c.apply(try Assignment(parsing: text), to: b); return "no error" } catch { return "\(error)" }
        }
        XCTAssertEqual(failure("pages=many"), "Book.pages: \"many\" is not an integer")
        XCTAssertEqual(failure("author=Nobody"), "Book.author: Author with name \"Nobody\" not found")
        XCTAssertEqual(failure("genres+=Crme"), "Book.genres: Genre with name \"Crme\" not found — did you mean \"Crime\"?")
        XCTAssertEqual(failure("titel=x"), "unknown key \"titel\" on Book — did you mean \"title\"?")
        XCTAssertEqual(failure("title+=x"), "Book.title is an attribute; use title=value, not += or -=")
        XCTAssertEqual(failure("=x"), "expected key=value, got \"=x\"")
    }

    /// Issue 15: `add Tag name=a name=b` kept `b`. Two `key=` for one property conflict; `+=`/`-=` may repeat.
    func testRepeatedAssignmentsToOnePropertyConflict() throws {
        let parse = { (texts: [String]) in try texts.map { try Assignment(parsing: $0) } }
        XCTAssertThrowsError(try Assignment.checkNoConflicts(parse(["name=a", "name=b"]))) { error in
            XCTAssertEqual("\(error)", #"name is given twice: "name=a" and "name=b" — give one value"#)
            XCTAssertEqual((error as? InputError)?.category, .usage)
        }
        XCTAssertThrowsError(try Assignment.checkNoConflicts(parse(["author=Ann", "author.email=ann@x"])))
        XCTAssertNoThrow(try Assignment.checkNoConflicts(parse(["genres+=Crime", "genres+=Poetry", "genres-=Crime", "title=T"])))
    }
}
