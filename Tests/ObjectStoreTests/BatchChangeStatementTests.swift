// Issue 33, part 3: a batch update or delete is set-based — the number of statements it runs does not grow with the
// number of objects it changes (never a statement per object), whatever rules and delete rules it must follow.

import XCTest
import GRDB
import TestSupport
@testable import ObjectStore

final class BatchChangeStatementTests: XCTestCase {
    /// A store of the deep-rule model with `n` authors, each with a book, its chapter and the chapter's note.
    func makeStore(_ dir: TemporaryDirectory, _ n: Int) throws -> Store {
        let store = try Store.create(at: dir.file("s\(n).sqlite"), model: DeepRuleTests.model)
        let c = ObjectContext(store: store)
        for i in 0..<n {
            let a = try c.insert("Author"); a["name"] = .string("A\(i)")
            let b = try c.insert("Book"); b["isbn"] = .string("\(i)"); b["title"] = .string("T"); try b.setObject(a, for: "author")
            let ch = try c.insert("Chapter"); ch["title"] = .string("c"); try ch.setObject(b, for: "book")
            let nt = try c.insert("Note"); try nt.setObject(ch, for: "chapter")
        }
        try c.save()
        return store
    }

    /// The statements SQLite ran while `body` ran, each once when it finished (SQLite's trace of each statement's
    /// start also reports the foreign keys' actions, row by row, under the statement that caused them: those are
    /// SQLite's, inside the one statement).
    func statements(_ store: Store, _ body: () throws -> Void) throws -> [String] {
        nonisolated(unsafe) var seen: [String] = []
        try store.readSQLite { db in db.trace(options: .profile) { event in if case .profile(let s, _) = event { seen.append(s.sql) } } }
        defer { try? store.readSQLite { db in db.trace(options: [], nil) } }
        try body()
        return seen
    }

    func testTheStatementsOfABatchDoNotGrowWithTheObjectsItChanges() throws {
        let dir = TemporaryDirectory("bookkeeper-batch-statements")
        var counts: [String: [Int]] = [:]
        for n in [50, 100] {
            let store = try makeStore(dir, n)
            defer { try? store.close() }
            func run(_ name: String, _ body: (ObjectContext) throws -> Void) throws {
                let sql = try statements(store) { try body(ObjectContext(store: store)) }
                counts[name, default: []].append(sql.count)
            }
            // Rules three relationships deep read the changed notes' books' authors.
            try run("update Book") { c in
                let r = try c.execute(BatchUpdateRequest(fetch: ObjectFetchRequest(entity: "Book", predicate: "TRUEPREDICATE"),
                                                         assignments: [Assignment(key: "title", value: "U")]))
                XCTAssertEqual(r.updated, n)
            }
            try run("update Note") { c in
                let r = try c.execute(BatchUpdateRequest(fetch: ObjectFetchRequest(entity: "Note", predicate: "chapter.book.author.name BEGINSWITH 'A'"),
                                                         assignments: [Assignment(key: "text", value: "x")]))
                XCTAssertEqual(r.updated, n)
            }
            // Refused on every object: the rule is broken n times, named five times.
            try run("refused update") { c in
                XCTAssertThrowsError(try c.execute(BatchUpdateRequest(fetch: ObjectFetchRequest(entity: "Author", predicate: "TRUEPREDICATE"),
                                                                      assignments: [Assignment(key: "name", value: "Zed")])))
            }
            try run("dry run") { c in
                let r = try c.execute(BatchUpdateRequest(fetch: ObjectFetchRequest(entity: "Chapter", predicate: "TRUEPREDICATE"),
                                                         assignments: [Assignment(key: "title", value: "d")], dryRun: true))
                XCTAssertEqual(r.changes.count, n)
            }
            // Cascades two deep (chapters, their notes), links and rules of the authors left.
            try run("delete Book") { c in
                let r = try c.execute(BatchDeleteRequest(fetch: ObjectFetchRequest(entity: "Book", predicate: "TRUEPREDICATE")))
                XCTAssertEqual(r.requested.count, n)
                XCTAssertEqual(r.cascaded.count, 2 * n)
            }
        }
        for (name, c) in counts.sorted(by: { $0.key < $1.key }) {
            XCTAssertEqual(c[0], c[1], "\(name): \(c[0]) statements for 50 objects, \(c[1]) for 100")
            XCTAssertLessThan(c[1], 200, "\(name)")
        }
        reportTrials("batch statements", counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value[1])" }.joined(separator: ", "))
    }
}
