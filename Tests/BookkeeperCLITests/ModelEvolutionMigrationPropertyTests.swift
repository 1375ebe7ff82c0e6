import XCTest
import TestSupport

/// Generated model changes — names that differ only in case, swaps, SQL keywords, attributes named as a
/// relationship's column, entities named as a join table, case-only entity renames — each with and without its
/// --rename and --allow-data-loss: `migrate --dry-run`'s verdict is the real run's, the dry run changes not a byte,
/// a refused real run leaves no copy and the store's content as it was, and a migrated store passes `check`.
/// (Issue 26: names SQLite cannot hold apart passed the dry run, then failed after copying the store.)
final class ModelEvolutionMigrationPropertyTests: StoreCommandTestCase {
    struct Change: CustomStringConvertible {
        var box = "Box"
        var attributes: [(name: String, type: String)] = [("name", "string"), ("alpha", "string"), ("beta", "integer")]
        var relationships = ["owner: { to: Customer, inverse: items }"]
        var entities: [String] = []
        var arguments: [String] = []
        var what: [String] = []

        var model: String {
            var text = "entities:\n  Item:\n    kind: directory\n    attributes:\n"
            text += attributes.map { "      \($0.name): { type: \($0.type) }\n" }.joined()
            text += "    relationships:\n" + relationships.map { "      \($0)\n" }.joined()
            text += "  \(box):\n    kind: directory\n    attributes:\n      name: { type: string }\n"
            text += entities.map { "  \($0):\n    kind: directory\n    attributes:\n      name: { type: string }\n" }.joined()
            return text
        }

        var description: String { "\(what.joined(separator: "; ")) \(arguments)" }
    }

    static let keywords = ["select", "from", "where", "order", "group", "index", "table", "primary", "key", "values", "default"]

    /// `name` with each ASCII letter's case flipped at random, and never `name` itself.
    static func otherCase(_ name: String, _ g: inout SeededGenerator) -> String {
        let flipped = String(name.map { g.next(upTo: 2) == 0 ? Character($0.uppercased()) : Character($0.lowercased()) })
        return flipped == name ? name.uppercased() == name ? name.lowercased() : name.uppercased() : flipped
    }

    static func change(_ g: inout SeededGenerator) -> Change {
        var c = Change()
        for _ in 0..<(1 + g.next(upTo: 2)) {
            switch g.next(upTo: 8) {
            case 0:
                let name = otherCase(g.pick(["name", "alpha", "beta", "owner_id", "id"]), &g)
                c.attributes.append((name, "string"))
                c.what.append("add attribute \(name)")
            case 1:
                guard let i = c.attributes.firstIndex(where: { $0.name == "alpha" }) else { continue }
                let name = otherCase("alpha", &g)
                c.attributes[i].name = name
                if g.next(upTo: 2) == 0 { c.arguments += ["--rename", "Item.alpha=\(name)"] }
                c.what.append("case-only rename alpha to \(name)")
            case 2:
                guard let a = c.attributes.firstIndex(where: { $0.name == "alpha" }),
                      let b = c.attributes.firstIndex(where: { $0.name == "beta" }) else { continue }
                c.attributes[a].type = "integer"
                c.attributes[b].type = "string"
                if g.next(upTo: 3) > 0 { c.arguments += ["--rename", "Item.alpha=beta", "--rename", "Item.beta=alpha"] }
                c.what.append("swap alpha and beta")
            case 3:
                let name = g.pick(["ORDER", "order", "Order", "Select", "TABLE", "Group", "ITEM", "Item", "Where", "Index", "CUSTOMER", "BOX"])
                guard !c.entities.contains(name) else { continue }
                c.entities.append(name)
                c.what.append("add entity \(name)")
            case 4:
                let name = g.next(upTo: 2) == 0 ? g.pick(keywords) : otherCase(g.pick(keywords), &g)
                guard !c.attributes.contains(where: { $0.name == name }) else { continue }
                c.attributes.append((name, "string"))
                c.what.append("add attribute \(name)")
            case 5:
                let name = otherCase("owner_id", &g)
                c.attributes.append((name, "integer"))
                c.what.append("add attribute \(name)")
            case 6:
                guard c.relationships.count == 1 else { continue }
                c.relationships.append("tags: { to: Tag, inverse: items, many: yes, inverse-many: yes }")
                c.what.append("add many-to-many Item.tags (table Item_tags)")
                if g.next(upTo: 2) == 0 {
                    let name = g.next(upTo: 2) == 0 ? "Item_tags" : otherCase("Item_tags", &g)
                    c.entities.append(name)
                    c.what.append("add entity \(name)")
                }
            default:
                guard c.box == "Box" else { continue }
                c.box = otherCase("Box", &g)
                if g.next(upTo: 2) == 0 { c.arguments += ["--rename", "Box=\(c.box)"] }
                c.what.append("case-only rename Box to \(c.box)")
            }
        }
        if g.next(upTo: 2) == 0 { c.arguments.append("--allow-data-loss") }
        return c
    }

    /// Read from a copy: a read-only connection to the store itself leaves its -wal and -shm files beside it.
    func storeContent() throws -> String {
        let copy = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: store, toPath: copy.file("copy.sqlite"))
        return try dumpStore(copy.file("copy.sqlite"))
    }

    func testTheDryRunsVerdictIsTheRealRunsForGeneratedChangesOfNames() throws {
        let count = Trials.count("BOOKKEEPER_MIGRATION_NAME_TRIALS", quick: 4, stress: 200)
        let seed = Trials.seed(fixed: 26)
        var g = SeededGenerator(seed: seed)
        var verdicts: [Int32: Int] = [:]
        for trial in 0..<count {
            let change = Self.change(&g)
            dir = TemporaryDirectory()
            dir.write("model.yaml", Change().model)
            ok("init")
            dir.write("items.csv", "name,alpha,beta,owner\ni1,x,1,Acme\ni2,,2,\n")
            ok("import", "Item", "items.csv", "--create-missing")
            ok("add", "Box", "name=b1")
            dir.write("model.yaml", change.model)
            try FileManager.default.removeItem(atPath: dir.file("items.csv"))
            let context = "seed \(seed), trial \(trial): \(change)\n\(change.model)"

            let bytes = try Data(contentsOf: URL(fileURLWithPath: store))
            let listing = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
            let content = try storeContent()
            let dry = bk(["migrate", "--dry-run"] + change.arguments)
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: store)), bytes, "the dry run changed the store: \(context)\n\(dry)")
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), listing, "\(context)\n\(dry)")

            let real = bk(["migrate"] + change.arguments)
            XCTAssertEqual(real.status, dry.status, "the dry run's verdict is not the real run's: \(context)\ndry: \(dry)\nreal: \(real)")
            verdicts[real.status, default: 0] += 1
            if real.status == 0 {
                let check = bk("check")
                XCTAssertEqual(check.status, 0, "a migrated store fails check: \(context)\n\(real)\n\(check)")
            } else {
                XCTAssertFalse(real.stderr.contains("duplicate column") || real.stderr.contains("already exists"), "SQLite's own refusal: \(context)\n\(real)")
                XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(), listing,
                               "a refused migration left a file: \(context)\n\(real)")
                XCTAssertEqual(try storeContent(), content, "a refused migration changed the store: \(context)\n\(real)")
            }
        }
        reportTrials("migration names", "\(count) generated model changes, seed \(seed): verdicts \(verdicts.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }.joined(separator: ", "))")
    }
}
