import XCTest
import TestSupport
@testable import ObjectStore

/// A library user reads a model file (issue 29: "model … a model file"): the model it makes, and every mistake as a
/// `ModelError` with its place — the same places the command line names.
final class ModelFileLibraryTests: XCTestCase {
    private func write(_ text: String, _ dir: TemporaryDirectory) throws -> String {
        let path = dir.file("model.yaml")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testAModelFileMakesAModelAStoreCanBeMadeOf() throws {
        let dir = TemporaryDirectory()
        let path = try write("""
            entities:
              Account:
                kind: directory
                key: code
                attributes:
                  code: { type: string }
                  name: { type: string, required: true }
              Entry:
                kind: document
                attributes:
                  number: { type: string }
                  amount: { type: decimal, scale: 2 }
                relationships:
                  account: { to: Account, inverse: entries, delete: nullify, inverse-delete: deny }
            """, dir)
        let model = try ObjectModel(contentsOfFile: path)
        XCTAssertEqual(model.entities.map(\.name).sorted(), ["Account", "Entry"])
        XCTAssertEqual(model.entity(named: "Entry")?.attribute(named: "amount")?.type, .decimal(scale: 2))
        XCTAssertEqual(model.entity(named: "Account")?.relationship(named: "entries")?.deleteRule, .deny)
        let store = try Store.create(at: dir.file("s.sqlite"), model: model)
        let context = ObjectContext(store: store)
        let account = try context.insert("Account")
        try account.setValue(.string("1200"), forKey: "code")
        try account.setValue(.string("Bank"), forKey: "name")
        try context.save()
        XCTAssertEqual(try ObjectContext(store: store).count(ObjectFetchRequest(entity: "Account", predicate: "code == %@", arguments: [.string("1200")])), 1)
        // Extending another model, as the command line extends its built-in one.
        let base = try ObjectModel(entities: [Entity("Tag", kind: .directory, naturalKey: "name",
                                                     attributes: [EntityAttribute("name", .string, required: true, unique: true)])])
        XCTAssertEqual(try ObjectModel(contentsOfFile: path, extending: base).entities.map(\.name).sorted(), ["Account", "Entry", "Tag"])
    }

    func testEveryMistakeIsAModelErrorWithItsPlace() throws {
        let dir = TemporaryDirectory()
        let cases: [(String, ModelError)] = [
            ("entities:\n  Account:\n    kind: shop\n    attributes:\n      name: { type: string }\n",
             .modelFile(file: dir.file("model.yaml"), line: 3, column: 11, message: "")),
            ("entities:\n  Note:\n    kind: rows\n    relationships:\n      cust: { to: Nope, inverse: notes }\n", .modelFile(file: "", line: 0, column: 0, message: "")),
            ("entities: [", .modelFile(file: "", line: 0, column: 0, message: "")),
        ]
        for (text, expected) in cases {
            let path = try write(text, dir)
            XCTAssertThrowsError(try ObjectModel(contentsOfFile: path), text) { error in
                guard let error = error as? ModelError else { return XCTFail("\(text): \(error)") }
                switch error {
                case .modelFile(let file, let line, let column, let message):
                    XCTAssertEqual(file, path)
                    XCTAssertGreaterThan(line, 0, text)
                    XCTAssertGreaterThan(column, 0, text)
                    XCTAssertFalse(message.isEmpty)
                    XCTAssertEqual(error.description, "\(file):\(line):\(column): \(message)")
                    if case .modelFile(_, let l, let c, _) = expected, l > 0 { XCTAssertEqual([line, column], [l, c], text) }
                case .invalidModel(let message, true, _):
                    XCTAssertTrue(message.hasPrefix(path + ":"), message)
                default:
                    XCTFail("\(text): \(error)")
                }
            }
        }
    }

    func testAFileThatCannotBeReadSaysWhy() throws {
        let dir = TemporaryDirectory()
        XCTAssertThrowsError(try ObjectModel(contentsOfFile: dir.file("none.yaml"))) {
            XCTAssertEqual($0 as? ModelError, .unreadableFile(path: dir.file("none.yaml"), reason: "no such model file"))
        }
        XCTAssertThrowsError(try ObjectModel(contentsOfFile: dir.path)) {
            XCTAssertEqual($0 as? ModelError, .unreadableFile(path: dir.path, reason: "is a directory, not a model file"))
        }
    }
}
