import XCTest
import TestSupport
@testable import ObjectStore

/// Each delete rule, shown on the store's contents afterwards.
final class DeleteRuleTests: XCTestCase {
    var store: Store!
    var dir: TemporaryDirectory!

    /// Ann wrote book 1 (two chapters, the first with a note; genres Crime and Poetry; a cover; on shelf A).
    override func setUpWithError() throws {
        (store, dir) = try TestModel.makeStore()
        let c = ObjectContext(store: store)
        let ann = try c.insert("Author"); ann["name"] = .string("Ann")
        let shelf = try c.insert("Shelf"); shelf["name"] = .string("A")
        let b = try c.insert("Book"); b["isbn"] = .string("1"); b["title"] = .string("One")
        try b.setObject(ann, for: "author")
        try b.setObject(shelf, for: "shelf")
        for title in ["Start", "End"] {
            let ch = try c.insert("Chapter"); ch["title"] = .string(title)
            try ch.setObject(b, for: "book")
        }
        let note = try c.insert("Note"); note["text"] = .string("n")
        try note.setObject(try b.objects(for: "chapters")[0], for: "chapter")
        for name in ["Crime", "Poetry"] {
            let g = try c.insert("Genre"); g["name"] = .string(name)
            try b.add(g, to: "genres")
        }
        try b.setObject(try c.insert("Cover"), for: "cover")
        try c.save()
    }

    private func count(_ table: String) throws -> String? {
        try queryStore(store.path, "SELECT COUNT(*) FROM \"\(table)\"")[0]
    }

    func testDenyRefusesAndSaysWhatBlocks() throws {
        let before = try dumpStore(store.path)
        let c = ObjectContext(store: store)
        try c.delete(try c.resolve("Ann", in: "Author"))
        XCTAssertThrowsError(try c.save()) { error in
            XCTAssertEqual("\(error)", "Author/1 \"Ann\" cannot be deleted: 1 Book object refers to it (Book/1 \"1\") — Author.books has delete rule Deny")
        }
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    func testCascadeDeletesDependantsRecursively() throws {
        let c = ObjectContext(store: store)
        try c.delete(try c.resolve("1", in: "Book"))
        let result = try c.save()
        XCTAssertEqual(result.deleted.sorted(), ["Book/1", "Chapter/1", "Chapter/2", "Cover/1", "Note/1"].map { ObjectID($0)! })
        XCTAssertEqual(try count("Chapter"), "0")
        XCTAssertEqual(try count("Note"), "0")
        XCTAssertEqual(try count("Cover"), "0")
        XCTAssertEqual(try count("Book_genres"), "0", "many-to-many links go with the object")
        XCTAssertEqual(try count("Genre"), "2", "Nullify keeps the genres")
        XCTAssertEqual(try count("Author"), "1")
        // Once the book is gone, the Deny on Author.books no longer blocks.
        try c.delete(try c.resolve("Ann", in: "Author"))
        XCTAssertEqual(try c.save().deleted, [ObjectID("Author/1")!])
    }

    func testNullifyClearsToOneReferencesAndManyToManyLinks() throws {
        let c = ObjectContext(store: store)
        try c.delete(try c.resolve("Crime", in: "Genre"))
        let result = try c.save()
        XCTAssertEqual(result.deleted, [ObjectID("Genre/1")!])
        XCTAssertEqual(try queryStore(store.path, "SELECT Genre_id FROM Book_genres"), ["2"])

        // Deleting the cover nullifies the book's to-one reference to it.
        try c.delete(try c.object(with: ObjectID("Cover/1")!))
        XCTAssertEqual(try c.save().updated, [ObjectID("Book/1")!])
        XCTAssertEqual(try queryStore(store.path, "SELECT cover_id FROM Book"), [nil])
        XCTAssertEqual(try count("Book"), "1")
    }

    func testNullifyOnARequiredReferenceIsRefused() throws {
        let c = ObjectContext(store: store)
        let loan = try c.insert("Loan")
        try loan.setObject(try c.resolve("1", in: "Book"), for: "book")
        try c.save()
        let before = try dumpStore(store.path)
        try c.delete(try c.resolve("1", in: "Book"))
        XCTAssertThrowsError(try c.save()) { error in
            XCTAssertEqual("\(error)", "Loan.book is required, but the deletion would clear it on Loan/1")
        }
        XCTAssertEqual(try dumpStore(store.path), before)
    }

    func testDeletingARowCascadesToItsOwnRows() throws {
        let c = ObjectContext(store: store)
        try c.delete(try c.object(with: ObjectID("Chapter/1")!))
        XCTAssertEqual(try c.save().deleted.sorted(), [ObjectID("Chapter/1")!, ObjectID("Note/1")!])
        XCTAssertEqual(try c.resolve("1", in: "Book").objects(for: "chapters").map { $0["title"] }, [.string("End")])
    }

    func testNoActionLeavesReferencesAsTheyAre() throws {
        let c = ObjectContext(store: store)
        try c.delete(try c.resolve("A", in: "Shelf"))
        XCTAssertEqual(try c.save().deleted, [ObjectID("Shelf/1")!])
        XCTAssertEqual(try queryStore(store.path, "SELECT shelf_id FROM Book"), ["1"], "the dangling reference stays")
    }
}
