import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// `check` compares the store's schema with the one its model makes (issue 25 §3). A difference where there is
/// none would fail every user's nightly `check` and refuse their writes, so: for generated models, a new store
/// checks clean, and so does the store after each of a run of generated model changes (attributes and entities
/// added, removed, renamed, retyped, made required or unique; relationships of every kind added and removed; delete
/// rules changed) that the migration planner applies — by ALTER TABLE, by rebuilding a table, or by renaming one.
final class SchemaCheckPropertyTests: XCTestCase {
    func testNewAndMigratedStoresOfGeneratedModelsCheckClean() throws {
        let seed = Trials.seed(fixed: 2_025_003)
        let trials = Trials.count("BOOKKEEPER_SCHEMA_CHECK_TRIALS", quick: 30, stress: 400)
        var generator = ModelGenerator(seed: seed)
        var migrations = 0
        for trial in 0..<trials {
            let dir = TemporaryDirectory("bookkeeper-schema-check")
            let path = dir.file("store.sqlite")
            var model = generator.model()
            let store = try Store.create(at: path, model: model)
            generator.fill(store)
            XCTAssertEqual(try store.check(), [], "seed \(seed), trial \(trial): a new store of\n\(generator.describe(model))")
            try store.close()
            for step in 0..<4 {
                guard let (next, renames) = generator.change(model) else { continue }
                let options = MigrationOptions(renames: renames, allowDataLoss: true)
                let migrating = try Store.openForMigration(at: path, model: next)
                let plan = try migrating.migrationPlan(options)
                guard plan.canApply(options) else { try migrating.close(); continue }
                try migrating.applyMigration(plan, backup: false)
                try migrating.close()
                migrations += 1
                model = next
                let migrated = try Store.open(at: path, model: model)
                XCTAssertNil(migrated.migration, "seed \(seed), trial \(trial), step \(step): migrated once")
                generator.fill(migrated)
                let problems = try migrated.check()
                XCTAssertEqual(problems, [], "seed \(seed), trial \(trial), step \(step): after \(plan.changes) to\n\(generator.describe(model))")
                try migrated.close()
                if !problems.isEmpty { break }
            }
        }
        reportTrials("schema check of generated models", "seed \(seed), \(trials) models, \(migrations) migrations, no difference found")
    }

    /// Opening for writing compares the whole schema: its cost grows with the model linearly. A search by name for
    /// each table and index, and a few statements for each, made a model of 400 entities take 15 s a write.
    func testComparingTheSchemaGrowsLinearlyWithTheModel() throws {
        func model(_ entities: Int) throws -> ObjectModel {
            var yaml = "entities:\n"
            for e in 0..<entities {
                yaml += "  E\(e):\n    kind: directory\n    attributes:\n"
                for a in 0..<6 { yaml += "      a\(a): { type: string, indexed: true }\n" }
                if e > 0 {
                    yaml += "    relationships:\n      r: { to: E\(e - 1), inverse: back\(e) }\n"
                    yaml += "      m: { to: E\(e - 1), many: true, inverse: mback\(e) }\n"
                }
            }
            return try ModelFile.parse(yaml, name: "model.yaml", extending: try ObjectModel(entities: []))
        }
        let dir = TemporaryDirectory("bookkeeper-schema-doubling")
        var stores: [Int: (Store, ObjectModel)] = [:]
        for n in [60, 120] {
            let m = try model(n)
            stores[n] = (try Store.create(at: dir.file("s\(n).sqlite"), model: m), m)
        }
        let (ratio, small, large) = doublingRatio(size: 60, repeats: 3) { n in
            let (store, m) = stores[n]!
            _ = try? store.readSQLite { db in try Store.schemaDifferences(db, model: m) }
        }
        XCTAssertLessThan(ratio, 3.0, "comparing the schema of 60 entities took \(small) s, of 120 \(large) s")
        for (store, _) in stores.values { try store.close() }
    }

    /// The schema of a new store compares equal to itself even when every object another tool may add is there —
    /// and each such object is found. (The other half of the property: no difference is missed.)
    func testEveryForeignObjectIsFound() throws {
        let dir = TemporaryDirectory("bookkeeper-schema-check")
        var generator = ModelGenerator(seed: 7)
        let model = generator.model()
        let path = dir.file("store.sqlite")
        try Store.create(at: path, model: model).close()
        let table = model.entities[0].name
        try executeSQL(path, """
            CREATE TABLE "extra" ("x"); CREATE VIEW "v" AS SELECT 1; CREATE INDEX "speed" ON "\(table)"("id");
            CREATE TRIGGER "t" AFTER DELETE ON "\(table)" BEGIN SELECT 1; END; ALTER TABLE "\(table)" ADD COLUMN "more" TEXT
            """)
        let store = try Store.open(at: path, model: model, readOnly: true)
        XCTAssertEqual(try store.check().filter { $0.hasPrefix("schema: ") }, [
            // What blocks writes first.
            "schema: trigger \"t\" on \"\(table)\" is not the model's: it would run with bookkeeper's writes (drop it: DROP TRIGGER \"t\"); bookkeeper writes nothing to the store until this is undone",
            "schema: column \(table).more is not the model's",
            "schema: table \"extra\" is not the model's",
            "schema: index \"speed\" is not the model's (CREATE INDEX \"speed\" ON \"\(table)\"(\"id\"))",
            "schema: view \"v\" is not the model's",
        ])
        XCTAssertThrowsError(try Store.open(at: path, model: model)) { error in
            XCTAssertEqual((error as? ForeignSchemaError)?.problems.count, 1, "\(error)")
        }
    }

    /// The schema is compared when the store is opened; another tool may change it before a write transaction
    /// begins (an import reading its input). Each write transaction — a save, a batch, a migration — compares it
    /// again when SQLite's schema version moved, under the write lock, before it writes anything.
    func testATriggerAddedAfterOpeningIsFoundInsideEveryWriteTransaction() throws {
        let dir = TemporaryDirectory("bookkeeper-schema-check")
        let model = try ObjectModel(entities: [Entity("Thing", kind: .directory, attributes: [EntityAttribute("a", .string)])])
        let path = dir.file("store.sqlite")
        try Store.create(at: path, model: model).close()
        let table = model.entities[0].name
        let trigger = "CREATE TABLE log(x); CREATE TRIGGER t AFTER INSERT ON \"\(table)\" BEGIN INSERT INTO log VALUES (new.id); END"
        func assertRefused(_ body: () throws -> Void, _ what: String) {
            XCTAssertThrowsError(try body(), what) { error in
                XCTAssertEqual((error as? ForeignSchemaError)?.problems.first?.hasPrefix("trigger \"t\" on \"\(table)\""), true, "\(what): \(error)")
            }
        }
        let store = try Store.open(at: path, model: model)
        try executeSQL(path, trigger)
        assertRefused({
            let context = ObjectContext(store: store)
            _ = try context.insert(table)
            try context.save()
        }, "a save")
        assertRefused({ try store.batch { _ in } }, "a batch")
        try store.close()
        try executeSQL(path, "DROP TRIGGER t; DROP TABLE log")
        let next = try XCTUnwrap(ObjectModel(entities: model.entities + [Entity("Added", kind: .directory, attributes: [EntityAttribute("a", .string)])]))
        let migrating = try Store.openForMigration(at: path, model: next)
        let plan = try migrating.migrationPlan()
        try executeSQL(path, trigger)
        assertRefused({ try migrating.applyMigration(plan, backup: false) }, "a migration")
        try migrating.close()
        XCTAssertEqual(try queryStore(path, "SELECT COUNT(*) FROM log"), ["0"])
        XCTAssertEqual(try queryStore(path, "SELECT COUNT(*) FROM sqlite_master WHERE name = 'Added'"), ["0"])
    }
}

extension Store {
    func close() throws { try closeQueue() }
}

/// Generated models and their changes. Names are never reused (a counter), so a change never clashes by accident.
struct ModelGenerator {
    var random: SeededGenerator
    var counter = 0
    var filled = 0

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    mutating func name(_ prefix: String) -> String {
        counter += 1
        return "\(prefix)\(counter)"
    }

    static let types: [AttributeType] = [.string, .integer, .decimal(scale: 2), .decimal(scale: 0), .double, .boolean, .date, .dateTime, .binary]

    mutating func attribute() -> EntityAttribute {
        let type = random.pick(Self.types)
        let unique = type != .binary && type != .boolean && random.next(upTo: 4) == 0
        let indexed = !unique && random.next(upTo: 4) == 0
        // A required attribute gets a default, so that one added to a table with rows can be filled.
        let required = type != .binary && random.next(upTo: 2) == 0
        return EntityAttribute(name("a"), type, required: required, default: required ? defaultValue(type) : nil, unique: unique, indexed: indexed)
    }

    func defaultValue(_ type: AttributeType) -> DefaultValue? {
        switch type {
        case .string: .value(.string("x"))
        case .integer: .value(.integer(1))
        case .decimal: .value(.decimal(DecimalNumber(1)))
        case .double: .value(.double(1.5))
        case .boolean: .value(.boolean(false))
        case .date: .today
        case .dateTime: .now
        case .binary: nil
        }
    }

    mutating func entity() -> Entity {
        var attributes = (0..<(1 + random.next(upTo: 4))).map { _ in attribute() }
        var key: String?
        if random.next(upTo: 2) == 0 {
            let a = EntityAttribute(name("k"), .string, required: true, unique: true)
            attributes.insert(a, at: 0)
            key = a.name
        }
        return Entity(name("E"), kind: random.pick(EntityKind.allCases), naturalKey: key, attributes: attributes)
    }

    /// A relationship between two entities of `entities` and its inverse, of a random kind.
    mutating func relate(_ entities: inout [Entity]) {
        let i = random.next(upTo: entities.count), j = random.next(upTo: entities.count)
        let (toMany, inverseToMany) = [(false, true), (true, false), (false, false), (true, true)][random.next(upTo: i == j ? 3 : 4)]
        let forward = name("r"), backward = name("r")
        let rules = DeleteRule.allCases
        entities[i].relationships.append(EntityRelationship(forward, to: entities[j].name, inverse: backward, toMany: toMany,
                                                      deleteRule: random.pick(rules)))
        entities[j].relationships.append(EntityRelationship(backward, to: entities[i].name, inverse: forward, toMany: inverseToMany,
                                                      deleteRule: random.pick(rules)))
    }

    mutating func model() -> ObjectModel {
        while true {
            var entities = (0..<(1 + random.next(upTo: 4))).map { _ in entity() }
            for _ in 0..<random.next(upTo: 5) { relate(&entities) }
            if let model = try? ObjectModel(entities: entities) { return model }
        }
    }

    /// The model changed in one way, with the renames the migration needs; nil when the change makes no valid model.
    mutating func change(_ model: ObjectModel) -> (ObjectModel, [String: String])? {
        var entities = model.entities
        var renames: [String: String] = [:]
        let e = random.next(upTo: entities.count)
        let plain = entities[e].attributes.indices.filter { entities[e].attributes[$0].name != entities[e].naturalKey }
        switch random.next(upTo: 12) {
        case 0, 11:
            // Twice as likely: an attribute added to a table with rows is the ALTER TABLE … ADD COLUMN … DEFAULT path.
            entities[e].attributes.append(attribute())
        case 1:
            guard let a = plain.randomElement(using: &random) else { return nil }
            entities[e].attributes.remove(at: a)
        case 2:
            guard let a = plain.randomElement(using: &random) else { return nil }
            let old = entities[e].attributes[a].name
            entities[e].attributes[a].name = name("a")
            renames["\(entities[e].name).\(old)"] = entities[e].attributes[a].name
        case 3:
            guard let a = plain.randomElement(using: &random) else { return nil }
            let type = random.pick(Self.types)
            entities[e].attributes[a].type = type
            entities[e].attributes[a].defaultValue = entities[e].attributes[a].isRequired ? defaultValue(type) : nil
            if type == .binary { entities[e].attributes[a].isRequired = false; entities[e].attributes[a].isUnique = false }
        case 4:
            guard let a = plain.randomElement(using: &random) else { return nil }
            entities[e].attributes[a].isRequired.toggle()
        case 5:
            guard let a = plain.randomElement(using: &random), entities[e].attributes[a].type != .binary else { return nil }
            entities[e].attributes[a].isUnique.toggle()
            entities[e].attributes[a].isIndexed = random.next(upTo: 2) == 0
        case 6:
            entities.append(entity())
            relate(&entities)
        case 7:
            let gone = entities.remove(at: e).name
            for i in entities.indices { entities[i].relationships.removeAll { $0.destination == gone } }
        case 8:
            let old = entities[e].name, new = name("E")
            entities[e].name = new
            for i in entities.indices {
                for r in entities[i].relationships.indices where entities[i].relationships[r].destination == old {
                    entities[i].relationships[r].destination = new
                }
            }
            renames[old] = new
        case 9:
            relate(&entities)
        default:  // 10
            guard let r = entities[e].relationships.indices.randomElement(using: &random) else { return nil }
            if random.next(upTo: 2) == 0 {
                entities[e].relationships[r].deleteRule = random.pick(DeleteRule.allCases)
            } else {
                let gone = entities[e].relationships.remove(at: r)
                let owner = entities[e].name
                if let d = entities.firstIndex(where: { $0.name == gone.destination }) {
                    entities[d].relationships.removeAll { $0.name == gone.inverse && $0.destination == owner }
                }
            }
        }
        guard !entities.isEmpty, let next = try? ObjectModel(entities: entities) else { return nil }
        return (next, renames)
    }

    /// A few objects in each entity, with a value for each attribute (unique ones distinct), each saved alone:
    /// one the model refuses (a required relationship left empty) is left out.
    mutating func fill(_ store: Store) {
        for entity in store.model.entities {
            for _ in 0..<2 {
                filled += 1
                let k = filled
                let context = ObjectContext(store: store)
                guard let object = try? context.insert(entity.name) else { continue }
                for a in entity.attributes where a.isRequired || random.next(upTo: 2) == 0 {
                    object[a.name] = value(a.type, k)
                }
                _ = try? context.save()
            }
        }
    }

    func value(_ type: AttributeType, _ k: Int) -> Value {
        switch type {
        case .string: .string("v\(k)")
        case .integer: .integer(Int64(k))
        case .decimal: .decimal(DecimalNumber(Int64(k)))
        case .double: .double(Double(k) + 0.5)
        case .boolean: .boolean(k % 2 == 0)
        case .date: .date(Day(year: 2024, month: 1 + k % 12, day: 1 + k % 28)!)
        case .dateTime: .dateTime(Timestamp(secondsSinceEpoch: 1_700_000_000 + Int64(k)))
        case .binary: .binary(Data([UInt8(k % 256)]))
        }
    }

    func describe(_ model: ObjectModel) -> String {
        SchemaBuilder.statements(for: model).joined(separator: ";\n")
    }
}
