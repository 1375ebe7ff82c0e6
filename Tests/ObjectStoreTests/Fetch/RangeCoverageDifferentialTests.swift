import XCTest
import GRDB
import TestSupport
@testable import ObjectStore

/// Issue 27: a range on an indexed column that the index's own min and max show covering a fifth of the table or more
/// is written `+column` (Store+RangeCoverage.swift, SQLCompiler.unindexed). That must change the plan only, never an
/// answer, and the probe must survive every store it can meet: an empty table, a column that is all NULL, one value,
/// the widest numbers a column holds and bounds beyond an Int64 (bound as 16 bytes), bounds outside the values, bounds the wrong way round, a date-time against a date, and ranges on
/// an object reached by a to-one relationship. Each generated fetch runs with the store's coverage and without any,
/// and both are held to the in-memory evaluator.
final class RangeCoverageDifferentialTests: XCTestCase {
    static let model: ObjectModel = try! ObjectModel(entities: [
        Entity("Ledger", kind: .directory, naturalKey: "code", attributes: [
            EntityAttribute("code", .string, required: true, unique: true),
            EntityAttribute("day", .date, indexed: true),
            EntityAttribute("at", .dateTime, indexed: true),
            EntityAttribute("amount", .decimal(scale: 2), indexed: true),
            EntityAttribute("n", .integer, indexed: true),
            EntityAttribute("x", .double, indexed: true),
            EntityAttribute("label", .string, indexed: true),
        ], relationships: [
            EntityRelationship("entries", to: "Entry", inverse: "ledger", toMany: true, deleteRule: .cascade),
        ]),
        Entity("Entry", kind: .rows, attributes: [EntityAttribute("v", .integer)], relationships: [
            EntityRelationship("ledger", to: "Ledger", inverse: "entries", deleteRule: .nullify),
        ]),
    ])

    /// The widest a stored Decimal(2) holds; bounds go beyond it (a literal beyond an Int64 is bound as 16 bytes).
    static let wide = Int128(Int64.max)

    /// One generated value of `attribute` and its literal in a predicate, drawn from a small pool so that ranges
    /// meet equal values; `outside` draws from beyond every stored value.
    static func value(_ attribute: String, _ rng: inout SeededGenerator, outside: Bool = false) -> (Value, String) {
        switch attribute {
        case "day":
            let d = rng.pick(outside ? ["0001-01-01", "9999-12-31"] : ["2023-12-31", "2024-01-01", "2024-02-29", "2024-07-15", "2025-01-01"])
            return (.date(Day(iso: d)!), "'\(d)'")
        case "at":
            let t = rng.pick(outside ? ["1900-01-01T00:00:00Z", "2999-01-01T00:00:00Z"]
                                     : ["2024-01-01T00:00:00Z", "2024-01-01T23:59:59Z", "2024-06-30T12:00:00Z", "2025-03-01T08:30:00Z"])
            return (.dateTime(Timestamp(iso: t)!), "'\(t)'")
        case "amount":
            let units: Int128 = outside ? rng.pick([wide * 2, -wide * 2])
                : rng.next(upTo: 8) == 0 ? rng.pick([wide, -wide]) : Int128(rng.next(upTo: 20001)) - 10000
            let d = DecimalNumber(units: units, scale: 2)
            return (.decimal(d), d.description)
        case "n":
            let n = outside ? rng.pick([Int64.min, Int64.max]) : rng.pick([Int64.min + 1, -1, 0, 7, 42, 1000, Int64.max - 1])
            return (.integer(n), String(n))
        case "x":
            // Predicates take no exponents: the literal is written out.
            let x = outside ? rng.pick([-1e18, 1e18]) : rng.pick([-1.5, 0, 0.25, 3.75, 123456789.5])
            return (.double(x), x == x.rounded() ? String(Int64(x)) : "\(x)")
        default:
            let t = rng.pick(outside ? ["", "~~~"] : ["a", "b", "Zoë", "10", "9"])
            return (.string(t), "'\(t)'")
        }
    }

    /// A store whose Ledger columns are, by `shape`: 0 empty (no ledgers), 1 all NULL, 2 one ledger, else mixed with
    /// NULLs; Entries point at ledgers or at none.
    static func makeStore(_ rng: inout SeededGenerator, shape: Int) throws -> (Store, TemporaryDirectory) {
        let dir = TemporaryDirectory()
        let store = try Store.create(at: dir.file("ranges.sqlite"), model: model)
        let c = ObjectContext(store: store)
        let count = shape == 0 ? 0 : shape == 2 ? 1 : 2 + rng.next(upTo: 30)
        var ledgers: [ManagedObject] = []
        for i in 0..<count {
            let l = try c.insert("Ledger")
            l["code"] = .string("L\(i)")
            for a in ["day", "at", "amount", "n", "x", "label"] {
                l[a] = shape == 1 || rng.next(upTo: 5) == 0 ? .null : value(a, &rng).0
            }
            ledgers.append(l)
        }
        for _ in 0..<(count == 0 ? rng.next(upTo: 3) : rng.next(upTo: 40)) {
            let e = try c.insert("Entry")
            e["v"] = .integer(Int64(rng.next(upTo: 100)))
            if !ledgers.isEmpty, rng.next(upTo: 6) != 0 { try e.setObject(rng.pick(ledgers), for: "ledger") }
        }
        try c.save()
        return (store, dir)
    }

    /// A range on one attribute of the Ledger (through `prefix`): a comparison or a BETWEEN, bounds drawn from the
    /// values or far outside them, sometimes the wrong way round.
    static func range(_ prefix: String, _ rng: inout SeededGenerator) -> String {
        let attribute = rng.pick(["day", "at", "amount", "n", "x", "label"])
        // A date-time is also compared with a date (as its local day).
        func bound() -> String {
            value(attribute == "at" && rng.next(upTo: 3) == 0 ? "day" : attribute, &rng, outside: rng.next(upTo: 5) == 0).1
        }
        let key = prefix + attribute
        if rng.next(upTo: 3) == 0 { return "\(key) BETWEEN {\(bound()), \(bound())}" }
        return "\(key) \(rng.pick(["<", "<=", ">", ">="])) \(bound())"
    }

    func testRangesJudgedByTheIndexGiveTheAnswersOfTheUnjudgedStatementOnEveryShapeOfStore() throws {
        // `make test`: 30 stores from a fixed seed; `make stress`: 600 from the seed it prints
        // (BOOKKEEPER_RANGE_SEED and BOOKKEEPER_RANGE_COUNT override).
        let seed = Trials.seed("BOOKKEEPER_RANGE_SEED", fixed: 20261127)
        let count = Trials.count("BOOKKEEPER_RANGE_COUNT", quick: 30, stress: 600)
        var rng = SeededGenerator(seed: seed)
        var (checked, judged) = (0, 0)
        for storeNumber in 0..<count {
            let (store, dir) = try Self.makeStore(&rng, shape: storeNumber % 6)
            defer { withExtendedLifetime(dir) {} }
            let context = ObjectContext(store: store)
            let evaluator = PredicateEvaluator(context: context)
            for _ in 0..<12 {
                let (entity, prefix, columns) = rng.next(upTo: 2) == 0
                    ? ("Ledger", "", ["code", "day", "amount"]) : ("Entry", "ledger.", ["v", "ledger.code", "ledger.n"])
                var predicate = Self.range(prefix, &rng)
                if rng.next(upTo: 3) == 0 { predicate = "(\(predicate)) \(rng.pick(["AND", "OR"])) (\(Self.range(prefix, &rng)))" }
                let request = ObjectFetchRequest(entity: entity, predicate: predicate)
                let plan = try FetchPlan(request, model: store.model, columns: columns)
                let what = "seed \(seed), store \(storeNumber): \(entity) where \(predicate)"
                for selection in [FetchPlan.Selection.columns, .count] {
                    let judgedStatement = try store.read { db in plan.sql(selection, in: db) }
                    let plain = plan.sql(selection, dialect: SQLiteDialect(), coverage: nil)
                    if judgedStatement.sql != plain.sql { judged += 1 }
                    XCTAssertEqual(try Set(SharedAggregateDifferentialTests.rows(store, judgedStatement).map { "\($0)" }),
                                   try Set(SharedAggregateDifferentialTests.rows(store, plain).map { "\($0)" }),
                                   "\(what)\njudged: \(judgedStatement.sql)\nplain: \(plain.sql)")
                }
                var ours: [String] = []
                try store.fetchColumns(plan) { ours.append($0.map(\.description).joined(separator: "|")) }
                let expected = try context.fetchInMemory(plan).map { object in
                    try plan.columns.map { try evaluator.value($0.expression, [0: object]).description }.joined(separator: "|")
                }
                XCTAssertEqual(ours.sorted(), expected.sorted(), "\(what)\n\(store.explain(plan, .columns))")
                checked += 1
            }
        }
        XCTAssertGreaterThan(judged, checked / 10, "too few generated ranges were judged to cover their table")
        reportTrials("range coverage", "seed \(seed), \(count) stores, \(checked) fetches (\(judged) statements with a range left off its index): the judged statement, the plain one and the evaluator agree")
    }
}
