import GRDB
import TestSupport
import XCTest
@testable import ObjectStore

/// Nothing a model accepts may need two SQL names that SQLite takes for one (issue 26, attack finding 3).
///
/// Seen: `A.b_c` and `A_b.c`, both many-to-many to Tag, store their links in tables that are both named `A_b_c`.
/// The model was accepted, `init`, `migrate` and `check` said all was well, only one table was made, and every write
/// to one of the two relationships failed with 74.
final class ModelSQLNameTests: XCTestCase {
    /// The case that was seen.
    func testTwoManyToManyRelationshipsWhoseLinksWouldShareATableAreRefused() {
        XCTAssertThrowsError(try ObjectModel(entities: [
            Entity("A", kind: .directory, attributes: [EntityAttribute("name", .string)],
                   relationships: [EntityRelationship("b_c", to: "Tag", inverse: "as1", toMany: true)]),
            Entity("A_b", kind: .directory, attributes: [EntityAttribute("name", .string)],
                   relationships: [EntityRelationship("c", to: "Tag", inverse: "as2", toMany: true)]),
            Entity("Tag", kind: .directory, attributes: [EntityAttribute("name", .string)],
                   relationships: [EntityRelationship("as1", to: "A", inverse: "b_c", toMany: true),
                                   EntityRelationship("as2", to: "A_b", inverse: "c", toMany: true)]),
        ])) { error in
            XCTAssertEqual("\(error)", "invalid model: the links of A_b.c and the links of A.b_c would have one name, table A_b_c: "
                           + "give one of them another name")
            guard case .nameClash(_, let subjects) = error as? ModelError else { return XCTFail("\(error)") }
            XCTAssertEqual(Set(subjects), ["A.b_c", "Tag.as1", "A_b.c", "Tag.as2"])
        }
    }

    /// One relationship whose two sides would each name the table `A_b_c` has one table: not a clash.
    func testBothSidesOfOneManyToManyRelationshipShareTheirTable() throws {
        let model = try ObjectModel(entities: [
            Entity("A", kind: .directory, attributes: [], relationships: [EntityRelationship("b_c", to: "A_b", inverse: "c", toMany: true)]),
            Entity("A_b", kind: .directory, attributes: [], relationships: [EntityRelationship("c", to: "A", inverse: "b_c", toMany: true)]),
        ])
        XCTAssertEqual(SchemaBuilder.tables(for: model).map(\.name), ["A", "A_b", "A_b_c"])
    }

    /// Generated models, names from a small alphabet with underscores and both cases: every model the checks accept
    /// has one SQL name per thing it stores, counted from the model itself (a table per entity, a join table per
    /// many-to-many relationship, a column per attribute and to-one side, an index per unique, indexed and foreign-key
    /// column), no two alike in SQLite's eyes; and SQLite, given the schema, makes exactly those tables and indexes.
    func testNoAcceptedModelNeedsTwoSQLNamesSQLiteTakesForOne() throws {
        let trials = Trials.count("BOOKKEEPER_SQL_NAME_TRIALS", quick: 400, stress: 20_000)
        let seed = Trials.seed(fixed: 2611)
        var random = SeededGenerator(seed: seed)
        var accepted = 0, refused = 0, manyToMany = 0
        for trial in 0..<trials {
            let entities = Self.entities(&random)
            let model: ObjectModel
            do {
                model = try ObjectModel(entities: entities)
            } catch {
                refused += 1
                continue
            }
            accepted += 1
            let names = Self.namesNeeded(by: model)
            manyToMany += names.joinTables
            let context = "trial \(trial), seed \(seed): \(Self.describe(entities))"
            var objects: [String: String] = [:]
            for (name, what) in names.objects {
                if let other = objects.updateValue(what, forKey: ObjectModel.sqlFold(name)) {
                    XCTFail("\(what) and \(other) are both \(name) in SQLite — \(context)")
                }
            }
            for (table, columns) in names.columns {
                var seen: [String: String] = [:]
                for (name, what) in columns {
                    if let other = seen.updateValue(what, forKey: ObjectModel.sqlFold(name)) {
                        XCTFail("\(what) and \(other) are both column \(name) of \(table) — \(context)")
                    }
                }
            }
            // SQLite's own word: the schema makes one table or index per name counted above.
            let db = try DatabaseQueue()
            try db.write { db in
                for sql in SchemaBuilder.statements(for: model) { try db.execute(sql: sql) }
                let made = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master WHERE type IN ('table', 'index') AND name NOT LIKE 'sqlite_%'")
                XCTAssertEqual(made, names.objects.count, context)
                for (table, columns) in names.columns {
                    let present = try Row.fetchAll(db, sql: "SELECT name FROM pragma_table_info(?)", arguments: [table]).map { $0[0] as String }
                    XCTAssertEqual(Set(present.map(ObjectModel.sqlFold)), Set(columns.map { ObjectModel.sqlFold($0.0) }), "\(table) — \(context)")
                }
            }
            if testRun?.failureCount ?? 0 > 0 { break }
        }
        XCTAssertGreaterThan(accepted, trials / 10, "the generator must make models the checks accept")
        reportTrials("sql names", "\(trials) models from seed \(seed): \(accepted) accepted (\(manyToMany) join tables), \(refused) refused")
    }

    // MARK: The names a model needs, counted from the model

    struct Needed {
        /// Tables and indexes (one namespace in SQLite): name → what needs it.
        var objects: [(String, String)] = []
        /// Table → its columns: name → what needs it.
        var columns: [String: [(String, String)]] = [:]
        var joinTables = 0
    }

    static func namesNeeded(by model: ObjectModel) -> Needed {
        var needed = Needed()
        var pairs: Set<Set<String>> = []
        for e in model.entities {
            needed.objects.append((e.name, "entity \(e.name)"))
            var columns = [("id", "\(e.name).id")]
            for a in e.attributes {
                columns.append((a.name, "\(e.name).\(a.name)"))
                if a.isUnique || a.name == e.naturalKey {
                    needed.objects.append(("\(e.name)_\(a.name)_unique", "the unique index of \(e.name).\(a.name)"))
                } else if a.isIndexed {
                    needed.objects.append(("\(e.name)_\(a.name)_index", "the index of \(e.name).\(a.name)"))
                }
            }
            for r in e.relationships {
                switch model.storage(of: r, in: e) {
                case .foreignKey(let column):
                    columns.append((column, "\(e.name).\(r.name)"))
                    needed.objects.append(("\(e.name)_\(column)", "the index of \(e.name).\(r.name)"))
                case .joinTable(let table, let own, let other):
                    // Each relationship (two sides) needs its own table.
                    guard pairs.insert(["\(e.name).\(r.name)", "\(r.destination).\(r.inverse)"]).inserted else { continue }
                    needed.joinTables += 1
                    needed.objects.append((table, "the links of \(e.name).\(r.name)"))
                    needed.objects.append(("\(table)_\(other)", "the index of the links of \(e.name).\(r.name)"))
                    needed.columns[table] = [(own, "\(table).\(own)"), (other, "\(table).\(other)")]
                case .inverseForeignKey:
                    break
                }
            }
            needed.columns[e.name] = columns
        }
        return needed
    }

    // MARK: Generated models

    // Few names, so that names made of others (`A` + `b_c`, `A_b` + `c`) meet often.
    static let entityNames = ["A", "A_b", "A_B", "B", "b", "C"]
    static let propertyNames = ["b", "c", "b_c", "B_c", "c_id", "b_c_id", "id", "x", "A_id", "c_unique", "b_c_index"]

    static func entities(_ random: inout SeededGenerator) -> [Entity] {
        var names: [String] = []
        for _ in 0..<(2 + random.next(upTo: 3)) {
            let name = random.pick(entityNames)
            if !names.contains(name) { names.append(name) }
        }
        var entities = names.map { Entity($0, kind: .directory, attributes: []) }
        func free(_ name: String, on i: Int) -> Bool { !entities[i].propertyNames.contains(name) }
        for i in entities.indices {
            for _ in 0..<random.next(upTo: 3) {
                let name = random.pick(propertyNames)
                guard free(name, on: i) else { continue }
                let flag = random.next(upTo: 4)
                entities[i].attributes.append(EntityAttribute(name, .string, unique: flag == 0, indexed: flag == 1))
            }
        }
        for _ in 0..<(1 + random.next(upTo: 5)) {
            let s = random.next(upTo: entities.count), d = random.next(upTo: entities.count)
            let r = random.pick(propertyNames), inverse = random.pick(propertyNames)
            guard free(r, on: s), free(inverse, on: d), s != d || r != inverse else { continue }
            let toMany = random.next(upTo: 3) != 0, inverseToMany = random.next(upTo: 3) != 0
            if s == d && toMany && inverseToMany { continue }
            entities[s].relationships.append(EntityRelationship(r, to: entities[d].name, inverse: inverse, toMany: toMany))
            entities[d].relationships.append(EntityRelationship(inverse, to: entities[s].name, inverse: r, toMany: inverseToMany))
        }
        // Half the models also get names made of others': `E.p_q` and `E_p.q`, many-to-many to one entity, whose
        // links' tables are both `E_p_q` when E and E_p own them (seen: `A.b_c` and `A_b.c`).
        if random.next(upTo: 2) == 0 {
            let e = random.pick(entities).name, p = random.pick(["b", "c", "B"]), q = random.pick(["c", "b_c", "x"])
            let d = random.pick(["Z", "zz"])
            for name in ["\(e)_\(p)", d] where !entities.contains(where: { $0.name == name }) {
                entities.append(Entity(name, kind: .directory, attributes: []))
            }
            func link(_ owner: String, _ r: String, _ inverse: String) {
                guard let o = entities.firstIndex(where: { $0.name == owner }), let t = entities.firstIndex(where: { $0.name == d }),
                      free(r, on: o), free(inverse, on: t), o != t else { return }
                entities[o].relationships.append(EntityRelationship(r, to: d, inverse: inverse, toMany: true))
                entities[t].relationships.append(EntityRelationship(inverse, to: owner, inverse: r, toMany: true))
            }
            link(e, "\(p)_\(q)", "i1")
            link("\(e)_\(p)", q, "i2")
        }
        return entities
    }

    static func describe(_ entities: [Entity]) -> String {
        entities.map { e in
            let properties = e.attributes.map { $0.name + ($0.isUnique ? "!" : $0.isIndexed ? "?" : "") }
                + e.relationships.map { "\($0.name)\($0.isToMany ? "*" : "")→\($0.destination).\($0.inverse)" }
            return "\(e.name){\(properties.joined(separator: ", "))}"
        }.joined(separator: " ")
    }
}
