// Issue 26: a rule that reads through relationships of any depth — to-one, to-many, many-to-many, one-to-one, in a
// quantifier or a SUBQUERY — is checked again when a save changes any object on its key path. The property: after
// every save that succeeds, `check` finds no rule broken (a missed re-check would leave one); and the search for the
// objects to check again reads the changed objects and their paths, not the store.

import XCTest
import TestSupport
@testable import ObjectStore

final class DeepRuleTests: XCTestCase {
    /// The test model with rules two and three relationships deep.
    static let model: ObjectModel = {
        var entities = TestModel.model.entities
        func rule(_ entity: String, _ predicate: String, _ message: String) {
            entities[entities.firstIndex { $0.name == entity }!].rules.append(ModelRule(predicate, message: message))
        }
        rule("Author", "books.chapters.notes.@count <= 3", "more than 3 notes in the author's books")          // to-many ×3
        rule("Note", "chapter.book.author.name != \"Zed\"", "a note in a book by Zed")                         // to-one ×3
        rule("Genre", "books.chapters.@count <= 4", "more than 4 chapters in the genre")                      // many-to-many, to-many
        rule("Genre", "books.@count == 0 OR books.chapters.@count >= 1", "no chapter in the genre's books")  // lost when a chapter moves
        rule("Chapter", "book.cover.colour != \"red\"", "a chapter of a book with a red cover")               // to-one, one-to-one
        rule("Shelf", "SUBQUERY(books, $b, $b.chapters.@count > 2).@count == 0", "a book of more than 2 chapters on the shelf")
        rule("Loan", "NONE book.genres.books.author.name == \"Zed\"", "a loan of a book in a genre Zed writes in")
        // Through Book.shelf, whose inverse is No Action: deleting the shelf leaves the reference, which reads as none.
        rule("Cover", "colour != \"red\" OR book.shelf != nil", "a red cover of a book on no shelf")
        return try! ObjectModel(entities: entities, behaviours: TestModel.model.behaviours)
    }()

    func testTheWaysBackFollowEveryPrefixOfEveryKeyPath() {
        let ways = Self.model.ruleDependencies.mapValues { $0.map { $0.map(\.name).joined(separator: ".") } }
        XCTAssertEqual(ways["Note"], ["chapter.book.author"])
        XCTAssertEqual(Set(ways["Chapter"] ?? []), ["notes", "book.author", "book.genres", "book.shelf"])
        XCTAssertEqual(Set(ways["Cover"] ?? []), ["book.chapters"])
        XCTAssertEqual(Set(ways["Author"] ?? []), ["books.chapters.notes", "books.genres.books.loans"])
        XCTAssertEqual(Set(ways["Genre"] ?? []), ["books.loans"])
        XCTAssertEqual(Set(ways["Book"] ?? []), ["author", "chapters", "chapters.notes", "genres", "shelf", "loans", "genres.books.loans", "cover"])
        XCTAssertEqual(ways["Shelf"], ["books.cover"])
    }

    func testEverySuccessfulSaveLeavesEveryRuleKept() throws {
        let seed = Trials.seed(fixed: 26_026)
        let steps = Trials.count("DEEP_RULE_STEPS", quick: 400, stress: 3_000)
        var random = SeededGenerator(seed: seed)
        let dir = TemporaryDirectory("bookkeeper-deep-rules")
        let store = try Store.create(at: dir.file("deep.sqlite"), model: Self.model)
        defer { try? store.close() }
        var saved = 0, refused = 0
        for step in 0..<steps {
            let c = ObjectContext(store: store)
            func any(_ entity: String) throws -> ManagedObject? {
                let all = try c.objects(of: entity)
                return all.isEmpty ? nil : random.pick(all)
            }
            var done: [String] = []
            for _ in 0..<(1 + random.next(upTo: 2)) {
                switch random.next(upTo: 16) {
                case 0:
                    let a = try c.insert("Author"); a["name"] = .string(random.pick(["Ann", "Bob", "Zed", "Kim", "Lee"]))
                    done.append("insert Author")
                case 1:
                    let b = try c.insert("Book"); b["isbn"] = .string("\(random.next(upTo: 1_000_000))"); b["title"] = .string("T")
                    if let a = try any("Author") { try b.setObject(a, for: "author") }
                    if let s = try any("Shelf") { try b.setObject(s, for: "shelf") }
                    done.append("insert Book")
                case 2:
                    guard let b = try any("Book") else { continue }
                    let ch = try c.insert("Chapter"); ch["title"] = .string("c"); try ch.setObject(b, for: "book")
                    done.append("insert Chapter")
                case 3:
                    guard let ch = try any("Chapter") else { continue }
                    let n = try c.insert("Note"); try n.setObject(ch, for: "chapter")
                    done.append("insert Note")
                case 4:
                    let g = try c.insert("Genre"); g["name"] = .string("G\(random.next(upTo: 1_000_000))")
                    done.append("insert Genre")
                case 5:
                    let s = try c.insert("Shelf"); s["name"] = .string("S\(random.next(upTo: 1_000_000))")
                    done.append("insert Shelf")
                case 6:
                    guard let b = try any("Book") else { continue }
                    try b.setObject(random.next(upTo: 4) == 0 ? nil : try any("Author"), for: "author")
                    done.append("relink a book's author")
                case 7:
                    guard let ch = try any("Chapter"), let b = try any("Book") else { continue }
                    try ch.setObject(b, for: "book")
                    done.append("move a chapter")
                case 8:
                    guard let n = try any("Note"), let ch = try any("Chapter") else { continue }
                    try n.setObject(ch, for: "chapter")
                    done.append("move a note")
                case 9:
                    guard let a = try any("Author") else { continue }
                    a["name"] = .string(random.pick(["Ann", "Bob", "Zed", "Kim", "Lee"]))
                    done.append("rename an author")
                case 10:
                    guard let b = try any("Book"), let g = try any("Genre") else { continue }
                    if random.next(upTo: 2) == 0 { try b.add(g, to: "genres") } else { try g.remove(b, from: "books") }
                    done.append("link or unlink a genre")
                case 11:
                    guard let b = try any("Book") else { continue }
                    let cover: ManagedObject
                    if let old = try b.object(for: "cover") { cover = old } else { cover = try c.insert("Cover") }
                    cover["colour"] = .string(random.pick(["red", "blue"]))
                    if random.next(upTo: 2) == 0, let other = try any("Book") { try cover.setObject(other, for: "book") } else {
                        try b.setObject(cover, for: "cover")
                    }
                    done.append("colour or move a cover")
                case 12:
                    guard let b = try any("Book") else { continue }
                    let loan = try c.insert("Loan"); loan["to"] = .string("x"); try loan.setObject(b, for: "book")
                    done.append("insert Loan")
                case 13:
                    guard let b = try any("Book") else { continue }
                    try b.setObject(random.next(upTo: 3) == 0 ? nil : try any("Shelf"), for: "shelf")
                    done.append("shelve a book")
                default:
                    // Deletions: a book cascades its chapters, their notes and its cover, nullifies genres and loans
                    // (whose required book refuses it); a chapter cascades its notes; an author is denied with books.
                    // A shelf's books keep their reference (No Action), which the covers' rule reads.
                    let entity = random.pick(["Book", "Chapter", "Note", "Genre", "Author", "Cover", "Shelf"])
                    guard let o = try any(entity) else { continue }
                    try c.delete(o)
                    done.append("delete \(entity)")
                }
            }
            do {
                try c.save()
                saved += 1
            } catch is ValidationFailure {
                refused += 1
                continue
            }
            // (`check`'s rule pass, by SQL: the other oracle.)
            let problems = try store.read { db in try store.ruleViolations(db, limit: 20) }
            XCTAssertEqual(problems, [], "seed \(seed), step \(step): a save of \(done) succeeded, and check found")
            if !problems.isEmpty { return }
        }
        XCTAssertGreaterThan(saved, steps / 4, "seed \(seed): most saves must succeed to test anything")
        reportTrials("deep rules in saves", "seed \(seed), \(steps) saves (\(refused) refused), no rule broken after each")
    }

    /// A save's search for the objects whose rules its changes reach follows the key paths back from the changed
    /// objects: a store of twice as many unrelated books takes no longer to change one note in (about 1, where a
    /// search through the store would give 2).
    func testTheSearchForDependentsDoesNotGrowWithTheStore() throws {
        let dir = TemporaryDirectory("bookkeeper-deep-doubling")
        var stores: [Int: (Store, ObjectID)] = [:]
        for n in [1_500, 3_000] {
            let store = try Store.create(at: dir.file("s\(n).sqlite"), model: Self.model)
            let c = ObjectContext(store: store)
            var note: ManagedObject?
            for i in 0..<n {
                let a = try c.insert("Author"); a["name"] = .string("A\(i)")
                let b = try c.insert("Book"); b["isbn"] = .string("\(i)"); b["title"] = .string("T"); try b.setObject(a, for: "author")
                let ch = try c.insert("Chapter"); ch["title"] = .string("c"); try ch.setObject(b, for: "book")
                let nt = try c.insert("Note"); try nt.setObject(ch, for: "chapter")
                if i == n / 2 { note = nt }
            }
            try c.save()
            stores[n] = (store, note!.objectID!)
        }
        var flip = false
        let (ratio, small, large) = doublingRatio(size: 1_500) { n in
            let (store, id) = stores[n]!
            let c = ObjectContext(store: store)
            flip.toggle()
            try! c.object(with: id)["text"] = .string(flip ? "a" : "b")
            try! c.save()
        }
        XCTAssertLessThan(ratio, 1.6, "changing a note among 1,500 books took \(small) s, among 3,000 \(large) s")
        for (store, _) in stores.values { try store.close() }
    }
}
