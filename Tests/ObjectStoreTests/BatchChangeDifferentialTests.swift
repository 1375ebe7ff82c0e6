// Issue 33, part 3: a batch update or delete by predicate does what the object context does when every object the
// predicate finds is changed (or deleted) in one save: the same objects refused or none, the same store after. The
// context is the reference (its save validates every object, follows rules back through relationships object by
// object, and applies delete rules object by object); the batch is set-based SQL. Generated stores of the deep-rule
// model (every relationship shape, every delete rule, rules up to three relationships deep), generated predicates
// and assignments.

import Foundation
import GRDB
import TestSupport
import XCTest
@testable import ObjectStore

final class BatchChangeDifferentialTests: XCTestCase {
    /// A store of `model` grown by random saves (each refused one rolled back).
    func makeStore(_ path: String, _ model: ObjectModel, _ random: inout SeededGenerator, steps: Int) throws {
        let store = try Store.create(at: path, model: model)
        defer { try? store.close() }
        for _ in 0..<steps {
            let c = ObjectContext(store: store)
            func any(_ entity: String) throws -> ManagedObject? {
                let all = try c.objects(of: entity)
                return all.isEmpty ? nil : random.pick(all)
            }
            switch random.next(upTo: 12) {
            case 0:
                let a = try c.insert("Author"); a["name"] = .string(random.pick(["Ann", "Bob", "Zed", "Kim", "Lee", "Max"]))
                if random.next(upTo: 2) == 0 { a["email"] = .string(random.pick(["a@x", "b@x", "c@x"])) }
            case 1, 2:
                let b = try c.insert("Book"); b["isbn"] = .string("I\(random.next(upTo: 60))"); b["title"] = .string(random.pick(["T1", "T2", "U"]))
                b["pages"] = .integer(Int64(random.next(upTo: 500))); b["price"] = .decimal(DecimalNumber(Int64(random.next(upTo: 90))))
                if let a = try any("Author"), random.next(upTo: 4) > 0 { try b.setObject(a, for: "author") }
                if let s = try any("Shelf"), random.next(upTo: 2) == 0 { try b.setObject(s, for: "shelf") }
                if let g = try any("Genre"), random.next(upTo: 2) == 0 { try b.add(g, to: "genres") }
            case 3, 4:
                guard let b = try any("Book") else { continue }
                let ch = try c.insert("Chapter"); ch["title"] = .string(random.pick(["c1", "c2"])); try ch.setObject(b, for: "book")
            case 5:
                guard let ch = try any("Chapter") else { continue }
                let n = try c.insert("Note"); n["text"] = .string(random.pick(["n", "m"])); try n.setObject(ch, for: "chapter")
            case 6:
                let g = try c.insert("Genre"); g["name"] = .string("G\(random.next(upTo: 6))")
            case 7:
                let s = try c.insert("Shelf"); s["name"] = .string("S\(random.next(upTo: 4))")
            case 8:
                guard let b = try any("Book") else { continue }
                let cover = try c.insert("Cover"); cover["colour"] = .string(random.pick(["red", "blue"]))
                try b.setObject(cover, for: "cover")
            case 9:
                guard let b = try any("Book") else { continue }
                let loan = try c.insert("Loan"); loan["to"] = .string(random.pick(["x", "y"])); try loan.setObject(b, for: "book")
            default:
                guard let b = try any("Book"), let a = try any("Author") else { continue }
                try b.setObject(a, for: "author")
            }
            do { try c.save() } catch is ValidationFailure { c.rollback() }
        }
    }

    static let predicates: [String: [String]] = [
        "Author": ["TRUEPREDICATE", "name == 'Ann'", "books.@count == 0", "books.@count >= 1", "email != nil", "name IN {'Bob', 'Zed'}",
                   "ANY books.chapters.title == 'c1'"],
        "Book": ["TRUEPREDICATE", "pages > 250", "price < 30", "author.name == 'Zed'", "ANY genres.name == 'G1'", "chapters.@count >= 2",
                 "title BEGINSWITH 'T'", "shelf == nil", "cover.colour == 'red'", "loans.@count == 0", "author == nil"],
        "Chapter": ["TRUEPREDICATE", "title == 'c1'", "book.author.name == 'Ann'", "notes.@count > 0", "book.pages > 200"],
        "Note": ["TRUEPREDICATE", "text == 'n'", "chapter.book.title == 'T1'"],
        "Genre": ["TRUEPREDICATE", "books.@count == 0", "name == 'G1'"],
        "Shelf": ["TRUEPREDICATE", "books.@count == 0", "name == 'S1'"],
        "Cover": ["TRUEPREDICATE", "colour == 'red'", "book == nil"],
        "Loan": ["TRUEPREDICATE", "to == 'x'", "book.pages < 100"],
    ]

    /// Attribute and to-one assignments as `set` takes them; to-many and one-to-one relationships, which a batch
    /// refuses, are not generated.
    static let assignments: [String: [String]] = [
        "Author": ["name=Zed", "name=Nia", "email=", "email=a@x", "email=q@x", "born=2001-02-03", "born=", "name="],
        "Book": ["pages=-1", "pages=7", "pages=", "price=12.5", "title=", "title=T9", "isbn=I1", "author=Zed", "author=Kim", "author=",
                 "shelf=S1", "shelf=", "inPrint=NO", "rating=2.5"],
        "Chapter": ["title=c3", "title=", "book=I1", "book=I2", "book="],
        "Note": ["text=z", "text=", "chapter=Chapter/1", "chapter=Chapter/2", "chapter="],
        "Genre": ["name=G9", "name=G1"],
        "Shelf": ["name=S9", "name=S1"],
        "Cover": ["colour=red", "colour=blue", "colour="],
        "Loan": ["to=z", "book=I1", "book="],
    ]

    /// The outcome of a change: the store's dump after it, or "refused".
    enum Outcome: Equatable { case changed(String), refused(ErrorCategory) }

    /// With rules up to three relationships deep on every entity: every batch checks them on the set of changed
    /// objects and those whose rules read them.
    func testABatchChangeDoesWhatOneSaveOfEveryMatchingObjectDoes() throws {
        try differential(DeepRuleTests.model, fixed: 33_003)
    }

    /// Without rules (the test model has a behaviour on Book only): most updates are one statement, an UPDATE with
    /// the predicate's own WHERE, or `WHERE id IN (…)` for a predicate through a to-one key path.
    func testWithoutRulesABatchUpdateIsOneStatementAndStillDoesWhatOneSaveDoes() throws {
        try differential(TestModel.model, fixed: 33_004)
    }

    func differential(_ model: ObjectModel, fixed: UInt64) throws {
        let seed = Trials.seed(fixed: fixed)
        var random = SeededGenerator(seed: seed)
        let trials = Trials.count("BATCH_CHANGE_TRIALS", quick: 120, stress: 1_500)
        let dir = TemporaryDirectory("bookkeeper-batch-differential")
        var base = dir.file("base.sqlite")
        try makeStore(base, model, &random, steps: 250)
        var counts: [String: Int] = [:]
        for trial in 0..<trials {
            let entity = random.pick(Array(Self.predicates.keys).sorted())
            let predicate = random.pick(Self.predicates[entity]!)
            let deleting = random.next(upTo: 4) == 0
            var assignments: [Assignment] = []
            if !deleting {
                var keys: Set<String> = []
                for _ in 0..<(1 + random.next(upTo: 2)) {
                    let a = try Assignment(parsing: random.pick(Self.assignments[entity]!))
                    if keys.insert(a.key).inserted { assignments.append(a) }
                }
            }
            let what = deleting ? "delete \(entity) where \(predicate)"
                : "update \(entity) where \(predicate) set \(assignments.map { "\($0.key)=\($0.value)" }.joined(separator: " "))"

            // The batch, on one copy.
            let batchPath = dir.file("batch-\(trial).sqlite"), referencePath = dir.file("reference-\(trial).sqlite")
            for path in [batchPath, referencePath] {
                let source = try Store.open(at: base, model: model)
                try source.backup(to: path)
                try source.close()
            }
            let before = try dumpStore(batchPath)
            let batch: Outcome
            do {
                let store = try Store.open(at: batchPath, model: model)
                defer { try? store.close() }
                let fetch = ObjectFetchRequest(entity: entity, predicate: predicate)
                if deleting { _ = try ObjectContext(store: store).execute(BatchDeleteRequest(fetch: fetch)) }
                else { _ = try ObjectContext(store: store).execute(BatchUpdateRequest(fetch: fetch, assignments: assignments)) }
                batch = .changed(try dumpStore(batchPath))
            } catch let error as CategorizedError {
                batch = .refused(error.category)
                XCTAssertEqual(try dumpStore(batchPath), before, "\(what): a refused batch changed the store")
            }

            // The reference: every matching object changed in one context, one save.
            let reference: Outcome
            do {
                let store = try Store.open(at: referencePath, model: model)
                defer { try? store.close() }
                let c = ObjectContext(store: store)
                let objects = try c.fetch(ObjectFetchRequest(entity: entity, predicate: predicate))
                // A batch reads its values before it finds any object (a bad value is refused when none matches
                // too): so does the reference, on an object it never saves.
                if !deleting && objects.isEmpty {
                    try c.apply(assignments, to: try c.insert(entity))
                    c.rollback()
                }
                for o in objects {
                    if deleting { try c.delete(o) } else { try c.apply(assignments, to: o) }
                }
                try c.save()
                reference = .changed(try dumpStore(referencePath))
            } catch let error as CategorizedError {
                reference = .refused(error.category)
            }
            if batch != reference {
                func shown(_ o: Outcome) -> String {
                    if case .changed(let d) = o { return d.components(separatedBy: "## _bookkeeper_meta")[0] }
                    return "\(o)"
                }
                XCTFail("trial \(trial) (seed \(seed)): \(what): batch \(shown(batch))\nreference \(shown(reference))\nbefore: \(before.components(separatedBy: "## _bookkeeper_meta")[0])")
            }
            if batch != reference { break }
            switch batch {
            case .changed(let dump) where dump != before:
                counts[deleting ? "deleted" : "updated", default: 0] += 1
                if !deleting { base = batchPath }   // the next trial starts from what an update made
            case .changed: counts["unchanged", default: 0] += 1
            case .refused: counts["refused", default: 0] += 1
            }
        }
        reportTrials("batch change differential", "\(model.entities.contains { !$0.rules.isEmpty } ? "with rules" : "without rules"): \(trials) trials from seed \(seed): "
                     + counts.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
    }
}
