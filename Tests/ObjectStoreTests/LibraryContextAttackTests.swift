import XCTest
import TestSupport
@testable import ObjectStore

/// What the attack on the library (attack 18) broke in contexts and objects: public calls that trapped, and a save
/// that reported an update it did not write. Each is now an error a caller can match.
final class LibraryContextAttackTests: XCTestCase {
    private func store() throws -> (Store, TemporaryDirectory) {
        let (store, dir) = try TestModel.makeStore()
        let c = ObjectContext(store: store)
        for name in ["Ann", "Bob"] { try c.insert("Author").setValue(.string(name), forKey: "name") }
        let shelf = try c.insert("Shelf")
        try shelf.setValue(.string("A"), forKey: "name")
        try c.save()
        return (store, dir)
    }

    private func names(_ store: Store) throws -> [String] {
        try ObjectContext(store: store).objects(of: "Author").map { try $0.value(forKey: "name").description }
    }

    func testAnObjectKeptPastItsContextThrowsInsteadOfTrapping() throws {
        let (store, dir) = try store()
        _ = dir
        let ann = try ObjectContext(store: store).object(with: ObjectID("Author/1")!)
        // Its context is gone: what needs it throws; what the object holds still reads.
        XCTAssertEqual(try ann.value(forKey: "name"), .string("Ann"))
        for attempt in [{ _ = try ann.objects(for: "books") }, { try ann.setValue(.string("Zed"), forKey: "name") }] {
            XCTAssertThrowsError(try attempt()) { error in
                XCTAssertEqual(error as? ContextError, .contextGone(#"Author/1 "Ann""#), "\(error)")
                XCTAssertEqual("\(error)", #"the context of Author/1 "Ann" is gone: keep a context while its objects are used"#)
            }
        }
        XCTAssertEqual(try names(store), ["Ann", "Bob"])
    }

    func testAnObjectOfAnotherContextIsRefusedByEveryRelationshipCallAndByDelete() throws {
        let (store, dir) = try store()
        _ = dir
        let mine = ObjectContext(store: store), other = ObjectContext(store: store)
        let book = try mine.insert("Book")
        try book.setValue(.string("1"), forKey: "isbn")
        try book.setValue(.string("T"), forKey: "title")
        let ann = try other.object(with: ObjectID("Author/1")!)
        let shelf = try other.object(with: ObjectID("Shelf/1")!)
        let calls: [(String, () throws -> Void)] = [
            ("setObject", { try book.setObject(ann, for: "author") }),
            ("add", { try shelf.add(book, to: "books") }),
            ("setObjects", { try shelf.setObjects([book], for: "books") }),
            ("remove", { try shelf.remove(book, from: "books") }),
            ("delete", { try mine.delete(ann) }),
        ]
        for (name, call) in calls {
            XCTAssertThrowsError(try call(), name) { error in
                guard case .otherContext? = error as? ContextError else { return XCTFail("\(name): \(error)") }
            }
        }
        try mine.save()
        try other.save()
        let fresh = ObjectContext(store: store)
        XCTAssertNil(try fresh.object(with: ObjectID("Book/1")!).object(for: "author"))
        XCTAssertEqual(try fresh.object(with: ObjectID("Shelf/1")!).objects(for: "books").count, 0)
        XCTAssertEqual(try names(store), ["Ann", "Bob"])
    }

    func testANameThatIsNotAnAttributeIsAnErrorNotATrap() throws {
        let (store, dir) = try store()
        _ = dir
        let ann = try ObjectContext(store: store).object(with: ObjectID("Author/1")!)
        for key in ["books", "nmae", ""] {
            XCTAssertThrowsError(try ann.value(forKey: key), key) { XCTAssertTrue($0 is ModelError, "\(key): \($0)") }
            XCTAssertThrowsError(try ann.setValue(.string("x"), forKey: key), key) { XCTAssertTrue($0 is ModelError, "\(key): \($0)") }
        }
    }

    func testAnUpdateOfAnObjectDeletedElsewhereFailsTheSaveInsteadOfReportingIt() throws {
        let (store, dir) = try store()
        _ = dir
        let reader = ObjectContext(store: store), deleter = ObjectContext(store: store)
        let bob = try reader.object(with: ObjectID("Author/2")!)
        try deleter.delete(deleter.object(with: ObjectID("Author/2")!))
        XCTAssertEqual(try deleter.save().deleted, [ObjectID("Author/2")!])
        try bob.setValue(.string("Robert"), forKey: "name")
        try reader.object(with: ObjectID("Author/1")!).setValue(.string("Anne"), forKey: "name")
        XCTAssertThrowsError(try reader.save()) { error in
            XCTAssertEqual(error as? ContextError, .objectNotFound(ObjectID("Author/2")!), "\(error)")
        }
        // Nothing of the failed save was written: Ann keeps her name.
        XCTAssertEqual(try names(store), ["Ann"])
    }

    func testANegativeLimitOrOffsetIsRefusedNotReadAsNone() throws {
        let (store, dir) = try store()
        _ = dir
        let context = ObjectContext(store: store)
        for (request, field) in [(ObjectFetchRequest(entity: "Author", limit: -1), "limit"),
                                 (ObjectFetchRequest(entity: "Author", offset: -3), "offset")] {
            for attempt in [{ _ = try context.fetch(request) }, { _ = try context.count(request) }] {
                XCTAssertThrowsError(try attempt()) { error in
                    guard let error = error as? FetchError else { return XCTFail("\(error)") }
                    XCTAssertEqual(error.kind, .request)
                    XCTAssertEqual(error.source, field)
                    XCTAssertEqual(error.description, field == "limit" ? "limit: limit is -1; it must be 0 or more" : "offset: offset is -3; it must be 0 or more")
                }
            }
        }
        XCTAssertEqual(try context.count(ObjectFetchRequest(entity: "Author", limit: 0)), 0)
    }

    func testAnObjectUsedAfterARollbackSaysItWasForgottenInsteadOfDroppingTheEdit() throws {
        let (store, dir) = try store()
        _ = dir
        let context = ObjectContext(store: store)
        let ann = try context.object(with: ObjectID("Author/1")!)
        let new = try context.insert("Author")
        context.rollback()
        XCTAssertFalse(new.isInserted)
        for object in [ann, new] {
            XCTAssertThrowsError(try object.setValue(.string("Zed"), forKey: "name")) { error in
                guard case .forgotten? = error as? ContextError else { return XCTFail("\(error)") }
            }
        }
        XCTAssertThrowsError(try context.delete(ann))
        XCTAssertThrowsError(try context.object(with: ObjectID("Author/2")!).setObjects([new], for: "books"))
        try context.object(with: ObjectID("Author/1")!).setValue(.string("Anne"), forKey: "name")
        try context.save()
        XCTAssertEqual(try names(store), ["Anne", "Bob"])
    }
}
