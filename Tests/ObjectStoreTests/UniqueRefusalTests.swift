import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// Attack 19's finding 13, made certain: another writer stores a unique value between a save's validation and its
/// write (here from inside validation, through a second connection to the same store file). The unique index
/// refuses the write, which is rolled back; the save is validated again and fails with validation's own message —
/// a ValidationFailure (65), not the database's words as an I/O error (74).
final class UniqueRefusalTests: XCTestCase {
    /// Set by the test: what the behaviour does, once, during the first validation.
    nonisolated(unsafe) static var meanwhile: (() -> Void)?

    static let model: ObjectModel = try! ObjectModel(entities: [
        Entity("Genre", kind: .directory, naturalKey: "name", attributes: [
            EntityAttribute("name", .string, required: true, unique: true),
        ]),
    ], behaviours: [
        "Genre": EntityBehaviour(validate: { _ in
            let action = UniqueRefusalTests.meanwhile
            UniqueRefusalTests.meanwhile = nil
            action?()
            return []
        }),
    ])

    func testAKeyStoredBetweenValidationAndWriteFailsAsValidationWould() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("test.sqlite")
        let store = try Store.create(at: path, model: Self.model)
        let other = try Store.open(at: path, model: Self.model)
        var otherSaved: Error?
        Self.meanwhile = {
            do {
                let context = ObjectContext(store: other)
                try context.insert("Genre").setValue(.string("poetry"), forKey: "name")
                try context.save()
            } catch {
                otherSaved = error
            }
        }
        let context = ObjectContext(store: store)
        try context.insert("Genre").setValue(.string("poetry"), forKey: "name")
        XCTAssertThrowsError(try context.save()) { error in
            guard let failure = error as? ValidationFailure else { return XCTFail("\(error)") }
            XCTAssertEqual(failure.issues.map(\.message), ["Genre.name \"poetry\" already exists (Genre/1)"])
        }
        XCTAssertNil(otherSaved)
        XCTAssertNil(Self.meanwhile, "the other writer ran, between validation and write")
        XCTAssertEqual(try store.read { try $0.int("SELECT count(*) FROM Genre") }, 1)
    }
}
