import Foundation
import GRDB
import LocalTime
import TestSupport
import XCTest
@testable import ObjectStore

/// One implementation of the storage layer: its dialect, where a feature's check keeps a new store, and how a
/// connection to it is opened as the store opens one. A second store is a new row (SQLite's is
/// `DialectImplementation.sqlite`, PostgreSQL's `.postgreSQL`), each run by a test class of its own.
struct DialectImplementation: Sendable {
    let name: String
    let dialect: any SQLDialect
    /// A new, empty store for one feature's check: a file in `directory`, or a schema (with our functions in it)
    /// dropped after `test`. What `open` takes.
    let makeStore: @Sendable (_ directory: TemporaryDirectory, _ test: XCTestCase) throws -> String
    /// A connection to the store at `location`, refusing at once (or after the shortest wait) what another holds.
    let open: @Sendable (_ location: String) throws -> OpenedConnection
    /// Whether the store is a file of its own, whose bytes a check may read and damage, with a journal beside it.
    let isFile: Bool
    /// The column type of a key the engine numbers by itself on INSERT (what the test's tables need; the store
    /// numbers its own objects).
    let generatedKey: String
    /// A collation of text that is not by bytes, for an index the catalog must say so of.
    let otherCollation: String
    /// Whether a column holds values of any kind, whatever its type (SQLite's storage classes); else a column's type
    /// decides the kind of its values, and a check puts each kind in a column of its own.
    let valuesHaveKinds: Bool
    /// The type of a test column holding numbers beyond an Int64 (`SQLDialect.wideValue`).
    let wideColumn: String
    /// The SQL that makes text of the bytes `blob` (a bound blob) as they are, where the engine takes bytes that
    /// are not UTF-8 as text, else refusing them.
    let bytesAsText: @Sendable (_ blob: String) -> String
    /// Whether text that is not UTF-8 can be stored (SQLDialectFeature.invalidText).
    let storesInvalidText: Bool
    /// Whether the checks of references are switched off for a connection and found broken afterwards by a
    /// statement (SQLite's PRAGMAs); else keys are always checked, a deferrable one at its transaction's commit.
    let switchesReferenceChecksOff: Bool
    /// Features this row does not provide yet, each with what brings it: its SQL must fail loudly, never answer.
    var pending: [SQLDialectFeature: String] = [:]

    static let sqlite = DialectImplementation(
        name: "SQLite", dialect: SQLiteDialect(),
        makeStore: { directory, _ in directory.file("conformance.db") },
        open: { path in
            // GRDB opens the file as the store does (Store.configuration: settings, busy handling, functions).
            let queue = try DatabaseQueue(path: path, configuration: Store.configuration(readOnly: false, busyTimeout: 0))
            let connection = queue.inDatabase { $0.storage }
            return OpenedConnection(connection: connection, access: { body in
                // GRDB's commit hook expects to run on the queue's own thread, as the store's statements do.
                try queue.unsafeReentrantWrite { _ in try body() }
            }, close: {
                connection.finalizeStatements()
                try queue.close()
            })
        },
        isFile: true, generatedKey: "INTEGER PRIMARY KEY", otherCollation: "NOCASE", valuesHaveKinds: true, wideColumn: "",
        bytesAsText: { "CAST(\($0) AS TEXT)" }, storesInvalidText: true, switchesReferenceChecksOff: true)

    static let postgreSQL = DialectImplementation(
        name: "PostgreSQL", dialect: PostgreSQLDialect(),
        makeStore: { _, test in
            // A schema of its own with our functions in it, as `init` makes the books' (PostgreSQLSchema).
            let (schema, connection) = try PostgreSQLTestDatabase.freshSchema(test)
            for statement in PostgreSQLFunctions.statements(schema: schema) + PostgreSQLSchema.functions(schema: schema) {
                try connection.execute(statement)
            }
            return schema
        },
        open: { schema in
            // As the store opens the books: the books' write lock, the schema first in the search path, and the
            // shortest wait for a lock (a store opened with no wait: 0 is "for ever" to PostgreSQL).
            let connection = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo(),
                                                      writeLockKey: PostgreSQLBooks.writeLockKey(schema: schema))
            // (Each transaction sets them, as the store's do; the statements the checks run outside one, on this
            // direct connection, find them in the session.)
            connection.transactionSettings += "; " + PostgreSQLSchema.searchPath(schema, local: true) + "; "
                + PostgreSQLSchema.lockTimeout(milliseconds: 1)
            try connection.execute(PostgreSQLSchema.searchPath(schema, local: false) + "; SET lock_timeout = 1")
            return OpenedConnection(connection: connection, access: { body in try body() }, close: { connection.close() })
        },
        isFile: false, generatedKey: "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", otherCollation: "\"und-x-icu\"", valuesHaveKinds: false, wideColumn: "numeric",
        bytesAsText: { "convert_from(\($0), 'UTF8')" }, storesInvalidText: false, switchesReferenceChecksOff: false,
        // Only a migration converts a column's values, and `migrate` refuses on PostgreSQL books until part 2.
        pending: [.conversion: "issue 31 (PostgreSQL part 2: migrate) brings bk_convert"])
}

/// A connection the conformance test opened through the storage protocol, and how to use and close it (what owns
/// the connection stays alive as long as this does).
struct OpenedConnection {
    let connection: any StorageConnection
    /// Runs `body`, which uses the connection, where the implementation lets it be used (as the store runs its
    /// statements inside `Store.read` and `write`). Calls may nest.
    let access: (_ body: () throws -> Void) throws -> Void
    /// Closes the connection; nothing may use it after.
    let close: () throws -> Void

    /// What `body` gives, run on the connection.
    func run<T>(_ body: (any StorageConnection) throws -> T) throws -> T {
        var result: T?
        try access { result = try body(connection) }
        return result!
    }
}

/// SQLite's row of the conformance checks (the quick tier).
final class DialectConformanceTests: XCTestCase {
    func testEveryFeatureOfEveryDialectMeansWhatItSays() throws {
        try DialectConformance(test: self).checkEveryFeature(of: .sqlite)
    }
}

/// PostgreSQL's row (the postgresql tier: it needs the server, scripts/postgresql-server.sh): each feature in a new
/// schema with our functions made in it.
final class PostgreSQLDialectConformanceTests: XCTestCase {
    func testEveryFeatureOfPostgreSQLMeansWhatItSays() throws {
        _ = try PostgreSQLTestDatabase.requireConninfo()
        try DialectConformance(test: self).checkEveryFeature(of: .postgreSQL)
    }
}

/// Every `SQLDialectFeature` run against a real connection of an implementation, its meaning checked against the
/// Swift it must agree with (the evaluator's comparisons, foldings and string operators, exact Int128 sums). One
/// set of checks for every row. A feature case without a check does not compile (the switch in `check` is
/// exhaustive, and warnings are errors); a check that asserts nothing fails the test.
struct DialectConformance {
    let test: XCTestCase

    func checkEveryFeature(of implementation: DialectImplementation) throws {
        var ran: [String] = []
        for feature in SQLDialectFeature.allCases {
            let directory = TemporaryDirectory("dialect")
            let c: Conformance
            do {
                c = try Conformance(implementation, feature, directory: directory, test: test)
            } catch {
                XCTFail("\(implementation.name), \(feature): no store: \(error)")
                continue
            }
            do {
                try check(feature, c)
            } catch {
                XCTFail("\(implementation.name), \(feature): \(error)")
            }
            try? c.close()
            XCTAssertGreaterThan(c.assertions, 0, "\(implementation.name): feature \(feature) has no conformance check")
            ran.append("\(feature.rawValue) \(c.assertions)")
        }
        test.reportTrials("dialect conformance", "\(implementation.name): "
                          + "\(SQLDialectFeature.allCases.count) features (checks each: \(ran.joined(separator: ", ")))")
    }

    /// The check of each feature. Exhaustive: a new case needs its check here before the tests build.
    private func check(_ feature: SQLDialectFeature, _ c: Conformance) throws {
        switch feature {
        case .placeholders: try placeholders(c)
        case .identifierQuoting: try identifierQuoting(c)
        case .identifierCase: try identifierCase(c)
        case .exactDecimals: try exactDecimals(c)
        case .dates: try dates(c)
        case .dateTimes: try dateTimes(c)
        case .booleans: try booleans(c)
        case .blobs: try blobs(c)
        case .upsert: try upsert(c)
        case .returning: try returning(c)
        case .codePointOrder: try textOrder(c, .binary, Self.codePointCompare)
        case .nocaseCollation: try textOrder(c, .nocase, TextCollation.nocaseCompare)
        case .naturalCollation: try textOrder(c, .natural, TextCollation.naturalCompare)
        case .textFolding: try textFolding(c)
        case .substringMatching: try stringOperators(c, [.beginsWith, .endsWith, .contains])
        case .like: try stringOperators(c, [.like])
        case .matches: try stringOperators(c, [.matches])
        case .invalidText: try invalidText(c)
        case .localDate: try localDate(c)
        case .longInList: try longInList(c)
        case .exactSum: try exactSum(c)
        case .wideNumbers: try wideNumbers(c)
        case .finiteNumbers: try finiteNumbers(c)
        case .conversion: try conversion(c)
        case .valueList: try valueList(c)
        case .temporaryTables: try temporaryTables(c)
        case .savepoints: try savepoints(c)
        case .locking: try locking(c)
        case .statistics: try statistics(c)
        case .bulkInsert: try bulkInsert(c)
        case .parallelSort: try parallelSort(c)
        case .foreignKeyEnforcement: try foreignKeyEnforcement(c)
        case .catalog: try catalog(c)
        case .nullSafeComparison: try nullSafeComparison(c)
        case .nonASCIIText: try nonASCIIText(c)
        case .transactions: try transactions(c)
        case .integrityCheck: try integrityCheck(c)
        case .storageClasses: try storageClasses(c)
        case .stringAggregate: try stringAggregate(c)
        case .fileJournal: try fileJournal(c)
        case .indexDeferral: try indexDeferral(c)
        case .ownTables: try ownTables(c)
        }
    }

    /// Code-point order, as the evaluator compares text (by UTF-8 bytes, which order as code points).
    static func codePointCompare(_ a: String, _ b: String) -> ComparisonResult {
        Array(a.utf8).lexicographicallyPrecedes(Array(b.utf8)) ? .orderedAscending : a.utf8.elementsEqual(b.utf8) ? .orderedSame : .orderedDescending
    }

    // MARK: Placeholders and names

    private func placeholders(_ c: Conformance) throws {
        let d = c.dialect
        let row = try c.row("SELECT \(d.placeholder(2)), \(d.placeholder(1)), \(d.placeholder(2))", [.text("first"), .int(7)])
        c.equal(row[0], .integer(7), "the second argument, by number")
        c.equal(row[1], .text("first"), "the first argument, after the second")
        c.equal(row[2], .integer(7), "a number named twice is one argument")
    }

    private func identifierQuoting(_ c: Conformance) throws {
        let names = ["a \"b\" c", "with space", "\"", "\"\"", "select", "Ünïcødé 帳簿", "x; DROP TABLE y", ".dot", "tab\there", "'", "[br]", "`tick`"]
        for (i, name) in names.enumerated() {
            let table = c.dialect.quote(name), column = c.dialect.quote(name + " col")
            try c.execute("CREATE TABLE \(table) (\(column) TEXT)")
            try c.execute("INSERT INTO \(table) (\(column)) VALUES (\(c.dialect.placeholder(1)))", [.text(name + "\(i)")])
            c.equal(try c.row("SELECT \(column) FROM \(table)").string(0), name + "\(i)", "round trip through \(table).\(column)")
        }
    }

    private func identifierCase(_ c: Conformance) throws {
        // Names differing in ASCII case, in non-ASCII case, or not at all: CREATE of the second fails exactly when
        // the dialect folds both to one name, and then either spelling reads the first.
        var rng = SeededGenerator(seed: 2801)
        let letters = ["a", "A", "z", "Z", "é", "É", "ß", "ẞ", "i", "İ", "ı", "_", "1"]
        for _ in 0..<40 {
            let a = "t" + (0..<3).map { _ in rng.pick(letters) }.joined()
            let b = a.map { ch in rng.next(upTo: 2) == 0 ? String(ch).uppercased() : String(ch).lowercased() }.joined()
            guard a != b else { continue }
            try c.execute("CREATE TABLE \(c.dialect.quote(a)) (v INTEGER)")
            let created = (try? c.execute("CREATE TABLE \(c.dialect.quote(b)) (v INTEGER)")) != nil
            c.equal(created, c.dialect.foldName(a) != c.dialect.foldName(b), "\(a) beside \(b)")
            if !created { c.equal(try c.row("SELECT COUNT(*) FROM \(c.dialect.quote(b))").int(0), 0, "\(b) reads \(a)") }
            try c.execute("DROP TABLE \(c.dialect.quote(a))")
            if created { try c.execute("DROP TABLE \(c.dialect.quote(b))") }
        }
    }

    // MARK: Types

    /// Values of `type` stored in a column of the dialect's type come back equal, and ORDER BY orders them as
    /// `before` does.
    private func roundTrip(_ c: Conformance, _ type: AttributeType, _ values: [Value], _ before: (Value, Value) -> Bool) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v \(d.columnType(type)))")
        for (i, v) in values.enumerated() {
            try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), v.storedValue(for: type)])
        }
        let rows = try c.rows("SELECT id, v FROM t ORDER BY v, id")
        let read = rows.map { Value(stored: $0[1], as: type) }
        c.equal(Set(read), Set(values), "\(type) values round-trip")
        let ordered = values.enumerated().sorted { before($0.1, $1.1) || (!before($1.1, $0.1) && $0.0 < $1.0) }.map(\.1)
        c.equal(read, ordered, "\(type) values order as their Swift values")
    }

    private func exactDecimals(_ c: Conformance) throws {
        var rng = SeededGenerator(seed: 2802)
        var values: [DecimalNumber] = [Int128(Int64.max), Int128(Int64.min), 0, 55_750, -1, 1].map { DecimalNumber(units: $0, scale: 2) }
        for _ in 0..<60 { values.append(DecimalNumber(units: Int128(Int64(bitPattern: rng.next()) >> rng.next(upTo: 64)), scale: 2)) }
        try roundTrip(c, .decimal(scale: 2), values.map(Value.decimal)) {
            guard case .decimal(let a) = $0, case .decimal(let b) = $1 else { return false }
            return a < b
        }
        // Equal values are equal in SQL, exactly at the extremes (no REAL in between).
        let d = c.dialect
        c.equal(try c.row("SELECT COUNT(*) FROM t WHERE v = \(d.placeholder(1))", [.integer(Int64.max - 1)]).int(0), 0, "Int64.max − 1 units is not Int64.max")
        c.equal(try c.row("SELECT COUNT(*) FROM t WHERE v = \(d.placeholder(1))", [.integer(Int64.max)]).int(0), 1, "Int64.max units found exactly")
    }

    private func dates(_ c: Conformance) throws {
        var rng = SeededGenerator(seed: 2803)
        var days = [Day(year: 1, month: 1, day: 1)!, Day(year: 9999, month: 12, day: 31)!, Day(year: 2024, month: 2, day: 29)!]
        for _ in 0..<80 { days.append(Day(year: 1 + rng.next(upTo: 9999), month: 1 + rng.next(upTo: 12), day: 1 + rng.next(upTo: 28))!) }
        try roundTrip(c, .date, days.map(Value.date)) {
            guard case .date(let a) = $0, case .date(let b) = $1 else { return false }
            return a < b
        }
    }

    private func dateTimes(_ c: Conformance) throws {
        var rng = SeededGenerator(seed: 2804)
        var times = [Timestamp(secondsSinceEpoch: 0), Timestamp(secondsSinceEpoch: -1), Timestamp(secondsSinceEpoch: 253_402_300_799)]
        for _ in 0..<80 { times.append(Timestamp(secondsSinceEpoch: Int64(rng.next(upTo: 253_402_300_799)) - 62_135_596_800 / 2)) }
        try roundTrip(c, .dateTime, times.map(Value.dateTime)) {
            guard case .dateTime(let a) = $0, case .dateTime(let b) = $1 else { return false }
            return a < b
        }
    }

    private func booleans(_ c: Conformance) throws {
        let values: [Bool] = [true, false, false, true, true]
        try roundTrip(c, .boolean, values.map(Value.boolean)) {
            guard case .boolean(let a) = $0, case .boolean(let b) = $1 else { return false }
            return !a && b
        }
        let truths = try c.ints("SELECT id FROM t WHERE \(c.dialect.storedBoolean("v")) = 1 ORDER BY id")
        c.equal(truths, values.indices.filter { values[$0] }, "a boolean column as the compiler reads it")
        // What another tool may store in a Boolean column: the dialect's reading of it (predicates, sorts, groups)
        // is the decoder's (any nonzero number is yes, NULL none).
        let d = c.dialect
        try c.execute("CREATE TABLE b (id INTEGER PRIMARY KEY, v \(d.columnType(.integer)))")
        let stored: [StoredValue] = [.integer(0), .integer(1), .integer(2), .integer(-1), .integer(Int64.min), .null]
        for (i, v) in stored.enumerated() {
            try c.execute("INSERT INTO b (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), v])
        }
        for row in try c.rows("SELECT id, \(d.storedBoolean("v")) FROM b ORDER BY id") {
            let raw = stored[Int(row.int64(0) ?? 0)]
            // 1, 0 or NULL exactly: what a comparison with YES or NO, a sort or a group then sees.
            let expected: StoredValue = switch Value(stored: raw, as: .boolean) {
            case .boolean(let b): .integer(b ? 1 : 0)
            default: .null
            }
            c.equal(row[1], expected, "a Boolean stored as \(raw) reads in SQL as the decoder reads it")
        }
    }

    private func blobs(_ c: Conformance) throws {
        var rng = SeededGenerator(seed: 2805)
        var values: [Data] = [Data(), Data([0]), Data([0, 0]), Data([0xFF]), Data([0x7F, 0x80])]
        for _ in 0..<60 { values.append(Data((0..<rng.next(upTo: 6)).map { _ in rng.pick([0x00, 0x01, 0x7F, 0x80, 0xFE, 0xFF]) })) }
        values = Array(Set(values))
        try roundTrip(c, .binary, values.map(Value.binary)) {
            guard case .binary(let a) = $0, case .binary(let b) = $1 else { return false }
            return a.lexicographicallyPrecedes(b)
        }
    }

    // MARK: Writes

    private func upsert(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE \(d.quote("a table")) (\(d.quote("key")) TEXT NOT NULL UNIQUE, \(d.quote("value")) INTEGER)")
        func put(_ key: String, _ value: Int, update: Bool) throws {
            try c.execute(d.upsert(into: "a table", columns: ["key", "value"], values: [d.placeholder(1), d.placeholder(2)],
                                   conflict: ["key"], update: update ? ["value"] : []), [.text(key), .int(value)])
        }
        func contents() throws -> [String] {
            try c.rows("SELECT \(d.quote("key")), \(d.quote("value")) FROM \(d.quote("a table")) ORDER BY 1").map { "\($0.string(0) ?? "NULL")=\($0.string(1) ?? "NULL")" }
        }
        try put("a", 1, update: true)
        c.equal(try contents(), ["a=1"], "the first upsert inserts")
        try put("a", 2, update: true)
        c.equal(try contents(), ["a=2"], "the second updates the same row")
        try put("a", 3, update: false)
        c.equal(try contents(), ["a=2"], "with nothing to update, the row stays")
        try put("b", 4, update: false)
        c.equal(try contents(), ["a=2", "b=4"], "a new key inserts")
        // Rows from a query, but none whose key is there.
        try c.execute("CREATE TABLE source (k TEXT, v INTEGER)")
        try c.execute("INSERT INTO source (k, v) VALUES ('a', 9), ('c', 5)")
        try c.execute(d.insertMissing(into: "a table", columns: ["key", "value"], select: "SELECT k, v FROM source", conflict: ["key"]))
        c.equal(try contents(), ["a=2", "b=4", "c=5"], "insertMissing adds what is missing and keeps what is there")
        // The greater of two, as the ID marks are raised.
        let raise = d.upsert(into: "a table", columns: ["key", "value"], values: [d.placeholder(1), d.placeholder(2)], conflict: ["key"], update: [])
            .replacingOccurrences(of: "DO NOTHING", with: "DO UPDATE SET \(d.quote("value")) = \(d.greater("\(d.quote("a table")).\(d.quote("value"))", d.placeholder(2)))")
        try c.execute(raise, [.text("b"), .int(3)])
        try c.execute(raise, [.text("c"), .int(8)])
        try c.execute(raise, [.text("d"), .int(-1)])
        c.equal(try contents(), ["a=2", "b=4", "c=8", "d=-1"], "greater never lowers, and raises")
    }

    private func returning(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id \(c.implementation.generatedKey), v TEXT)")
        var ids: [StoredValue] = []
        for v in ["x", "y", "z"] {
            let row = try c.row("INSERT INTO t (v) VALUES (\(d.placeholder(1)))" + d.returning(["id", "v"]), [.text(v)])
            c.equal(row.string(1), v, "RETURNING gives the row written")
            let id = row[0]
            c.equal(try c.row("SELECT v FROM t WHERE id = \(d.placeholder(1))", [id]).string(0), v, "RETURNING gives the id")
            ids.append(id)
        }
        c.equal(Set(ids).count, 3, "each insert its own id")
        let deleted = try c.rows("DELETE FROM t WHERE v <> \(d.placeholder(1))" + d.returning(["id"]), [.text("x")]).map { $0[0] }
        c.equal(Set(deleted), Set(ids.dropFirst()), "a DELETE returns the rows it removed")
    }

    // MARK: Text

    /// Strings meant to separate the orders: case, accents (composed and not), digits in runs, ß, CJK, emoji.
    private func generatedStrings(_ seed: UInt64, count: Int = 150) -> [String] {
        var rng = SeededGenerator(seed: seed)
        let pieces = ["a", "A", "b", "B", "z", "é", "É", "e\u{301}", "ß", "SS", "ss", "1", "2", "9", "10", "007", " ", "-", "_",
                      "İ", "ı", "Ω", "ω", "帳", "😀", "Z", "item", "Item", "ﬁ", ".", "0"]
        var strings = (0..<count).map { _ in (0..<(1 + rng.next(upTo: 4))).map { _ in rng.pick(pieces) }.joined() }
        strings += ["Item 2", "Item 10", "item 1", "Item 02", "", "a", "A"]
        return strings
    }

    private func textOrder(_ c: Conformance, _ comparison: SortKey.Comparison, _ compare: (String, String) -> ComparisonResult) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        let strings = generatedStrings(2806)
        for (i, s) in strings.enumerated() {
            try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), .text(s)])
        }
        let read = try c.rows("SELECT v FROM t ORDER BY \(d.collate("v", comparison)), id").compactMap { $0.string(0) }
        c.equal(read.count, strings.count, "\(comparison): every string")
        var wrong: [String] = []
        for (a, b) in zip(read, read.dropFirst()) where compare(a, b) == .orderedDescending { wrong.append("\(a.debugDescription) before \(b.debugDescription)") }
        c.check(wrong.isEmpty, "\(comparison) orders as Swift does: \(wrong.prefix(5))")
    }

    private func textFolding(_ c: Conformance) throws {
        for s in generatedStrings(2807) {
            for options in [PredicateStringOptions.caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]] {
                let folded = try c.row("SELECT \(c.dialect.fold(c.dialect.placeholder(1), options))", [.text(s)]).string(0)
                c.equal(folded, TextFolding.fold(s, caseInsensitive: options.contains(.caseInsensitive),
                                                 diacriticInsensitive: options.contains(.diacriticInsensitive)), "fold \(s.debugDescription) \(options)")
            }
        }
    }

    private func stringOperators(_ c: Conformance, _ ops: [PredicateOperator]) throws {
        var rng = SeededGenerator(seed: 2808)
        let texts = generatedStrings(2809, count: 60)
        let regexes = ["a.*", ".*[0-9]+", "[A-Z].", "(?i)item.*", "é|e\u{301}", ".", "", "\\d{2,}", "ß+", "("]
        for op in ops {
            for text in texts {
                for _ in 0..<3 {
                    let needle: String
                    switch op {
                    case .matches: needle = rng.pick(regexes)
                    case .like:
                        // Pieces of the text with * and ? in between.
                        let scalars = Array(text)
                        needle = scalars.map { ch in ["*", "?", String(ch), String(ch).uppercased()][rng.next(upTo: 4)] }.joined()
                    default:
                        let other = rng.pick(texts)
                        needle = rng.next(upTo: 2) == 0 ? String(text.prefix(rng.next(upTo: 3))) + String(text.suffix(rng.next(upTo: 2))) : other
                    }
                    for options in [PredicateStringOptions(), .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]] {
                        let sql = "SELECT \(c.dialect.stringMatch(op, c.dialect.placeholder(1), c.dialect.placeholder(2), options: c.dialect.placeholder(3)))"
                        let expected: Bool?
                        do { expected = try StringOperators.apply(op, text, needle, options) } catch { expected = nil }
                        let got: Bool?
                        do { got = try c.row(sql, [.text(text), .text(needle), .int(Int(options.rawValue))])[0].bool } catch { got = nil }
                        c.equal(got, expected, "\(text.debugDescription) \(op.rawValue)\(options) \(needle.debugDescription) (nil: refused)")
                    }
                }
            }
        }
    }

    private func invalidText(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        for (i, s) in ["abc", "é", "帳簿😀", ""].enumerated() {
            try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), .text(s)])
        }
        // An engine that refuses text that is not UTF-8 keeps none to find.
        let bad = [Data([0xFF, 0x41]), Data([0xC3]), Data([0xED, 0xA0, 0x80]), Data([0xC0, 0xAF])]
        var stored: [Int] = []
        for (i, bytes) in bad.enumerated() {
            let insert = "INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(c.implementation.bytesAsText(d.placeholder(2))))"
            if (try? c.execute(insert, [.int(10 + i), .blob(bytes)])) != nil {
                stored.append(10 + i)
            }
        }
        c.equal(stored.isEmpty, !c.implementation.storesInvalidText, "text that is not UTF-8 is stored only where the engine takes it")
        // UTF-8 bytes made text the same way are text like any other.
        try c.execute("INSERT INTO t (id, v) VALUES (20, \(c.implementation.bytesAsText(d.placeholder(1))))", [.blob(Data("é帳".utf8))])
        c.equal(try c.row("SELECT v FROM t WHERE id = 20").string(0), "é帳", "UTF-8 bytes as text")
        let flagged = try c.ints("SELECT id FROM t WHERE \(d.invalidUTF8("v")) = 1 ORDER BY id")
        c.equal(flagged, stored, "exactly the text that is not UTF-8 is found")
    }

    private func localDate(_ c: Conformance) throws {
        var rng = SeededGenerator(seed: 2810)
        let zone = Zone.process
        for _ in 0..<200 {
            let t = Timestamp(secondsSinceEpoch: Int64(rng.next(upTo: 4_102_444_800)))
            let day = try c.row("SELECT \(c.dialect.localDay(c.dialect.placeholder(1)))", [Value.dateTime(t).storedValue(for: .dateTime)]).string(0)
            c.equal(day, t.day(in: zone)?.description, "local day of \(t)")
        }
        c.equal(try c.row("SELECT \(c.dialect.localDay(c.dialect.placeholder(1)))", [.text("not a time")]).string(0), nil, "NULL for other text")
    }

    // MARK: Lists

    private func longInList(_ c: Conformance) throws {
        let d = c.dialect
        // Numbers and texts: in one column where a column holds any kind, else each in a column of its type.
        let numbers = "t", texts = c.implementation.valuesHaveKinds ? "t" : "s"
        try c.execute("CREATE TABLE t (v \(c.column(.integer)))")
        if texts != numbers { try c.execute("CREATE TABLE \(texts) (v \(c.column(.string)))") }
        try c.transaction(.immediate) {
            let inserts = try [numbers, texts].reduce(into: [String: any StorageStatement]()) {
                $0[$1] = try c.connection.prepare("INSERT INTO \($1) (v) VALUES (\(d.placeholder(1)))")
            }
            func put(_ value: StoredValue, into table: String) throws {
                let insert = inserts[table]!
                insert.bind([value])
                try insert.execute()
            }
            for v in 0..<3000 { try put(.int(v), into: numbers) }
            for s in ["quote\"d", "back\\slash", "line\nfeed", "tab\t", "nul\u{1}", "é", "😀"] { try put(.text(s), into: texts) }
            if c.implementation.valuesHaveKinds {
                try put(.blob(Data([1, 2])), into: numbers)
                try put(.real(2.5), into: numbers)
            }
            return .commit
        }
        func count(_ values: [StoredValue], in table: String = numbers) throws -> (rows: Int?, parameters: Int) {
            var arguments: [StoredValue] = []
            let sql = d.inList("v", values) { arguments.append($0); return d.placeholder(arguments.count) }
            return (try c.row("SELECT COUNT(*) FROM \(table) WHERE \(sql)", arguments).int(0), arguments.count)
        }
        let thirds = (0..<100_000).map { StoredValue.int($0 * 3) }
        let long = try count(thirds)
        c.equal(long.parameters, 1, "100,000 integers are one parameter")
        c.equal(long.rows, 1000, "and find every row they name")
        let strings = ["quote\"d", "back\\slash", "line\nfeed", "tab\t", "nul\u{1}", "é", "😀"] + (0..<100).map { "absent \($0)" }
        let textList = try count(strings.map(StoredValue.text), in: texts)
        c.equal(textList.parameters, 1, "107 texts are one parameter")
        c.equal(textList.rows, 7, "text with quotes, backslashes and control characters is found in a long list")
        if c.implementation.valuesHaveKinds {
            let mixed = try count([.blob(Data([1, 2])), .real(2.5)] + (0..<100).map(StoredValue.int))
            c.equal(mixed.rows, 102, "blobs and reals beside a long list")
            c.equal(try count([.int(1), .int(5), .text("é")]).rows, 3, "a short list")
        } else {
            c.equal(try count([.int(1), .int(5), .int(-1)]).rows, 2, "a short list of numbers")
            c.equal(try count([.text("é"), .text("E"), .text("line\nfeed")], in: texts).rows, 2, "a short list of texts")
        }
    }

    // MARK: Numbers

    /// The exact sum of `values` by each form, against Int128 arithmetic.
    private func exactSum(_ c: Conformance) throws {
        let d = c.dialect
        var rng = SeededGenerator(seed: 2811)
        let extremes: [Int64] = [.max, .min, .max - 1, .min + 1, 0, 1, -1]
        var sets: [[Int64]] = [[], [.max, .max], [.min, .min], [.max, .min], [.max, 1], [.min, -1], [.max, .max, .min, .min, 5]]
        for _ in 0..<30 { sets.append((0..<(1 + rng.next(upTo: 8))).map { _ in rng.pick(extremes) }) }
        for values in sets {
            try c.execute("DROP TABLE IF EXISTS t")
            try c.execute("CREATE TABLE t (v \(d.columnType(.integer)))")
            for v in values { try c.execute("INSERT INTO t (v) VALUES (\(d.placeholder(1)))", [.integer(v)]) }
            let sum = values.reduce(Int128(0)) { $0 + Int128($1) }
            let row = try c.row("SELECT \(d.exactSum("v", beyond: .exact)), \(d.exactSum("v", beyond: .comparable)) > \(d.placeholder(1)), "
                                + "\(d.exactSum("v", beyond: .comparable)) < \(d.placeholder(2)), \(d.exactSum("v", beyond: .real)) FROM t", [.integer(.max), .integer(.min)])
            if values.isEmpty {
                c.check(row[0] == .null && row[3] == .null, "the sum of no rows is NULL")
                continue
            }
            c.equal(row[0].wideNumber, sum, "exact sum of \(values)")
            c.equal(row[1].bool, sum > Int128(Int64.max), "comparable sum of \(values) against Int64.max")
            c.equal(row[2].bool, sum < Int128(Int64.min), "comparable sum of \(values) against Int64.min")
            c.equal(row[3].double, Double(sum), "real sum of \(values)")
        }
    }

    private func wideNumbers(_ c: Conformance) throws {
        let d = c.dialect
        var rng = SeededGenerator(seed: 2812)
        let near: [Int128] = [Int128(Int64.max), Int128(Int64.max) + 1, Int128(Int64.min), Int128(Int64.min) - 1, 0, -1, 1,
                              Int128(Int64.max) * 4, Int128(Int64.min) * 4]
        var values = near
        for _ in 0..<30 { values.append(Int128(Int64(bitPattern: rng.next())) * Int128(rng.next(upTo: 5) + 1)) }
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v \(c.implementation.wideColumn))")
        for (i, v) in values.enumerated() { try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), d.wideValue(v)]) }
        let ordered = try c.rows("SELECT v FROM t ORDER BY \(d.wideOrderKey("v")), id").map { $0[0] }
        c.equal(ordered.map(\.wideNumber), values.sorted(), "wide numbers order by value")
        for _ in 0..<60 {
            let a = rng.pick(values), b = rng.pick(values)
            let row = try c.row("SELECT \(d.wideComparison(d.placeholder(1), "<", d.placeholder(2))), \(d.wideComparison(d.placeholder(1), "=", d.placeholder(2))), "
                                + "\(d.wideComparison(d.placeholder(1), ">=", d.placeholder(2)))", [d.wideValue(a), d.wideValue(b)])
            c.equal([row[0].bool, row[1].bool, row[2].bool], [a < b, a == b, a >= b], "\(a) against \(b)")
        }
        for v in near where v.magnitude < UInt128(Int128.max) / 1000 {
            c.equal(try c.row("SELECT \(d.wideScaled(d.placeholder(1), by: 2))", [d.wideValue(v)])[0].wideNumber, v * 100, "\(v) × 100 exactly")
            c.equal(try c.row("SELECT \(d.wideReal(d.placeholder(1)))", [d.wideValue(v)])[0].double, Double(v), "\(v) as a REAL")
        }
        let row = try c.row("SELECT \(d.wideSum("v")), \(d.wideExtreme(true, "v")), \(d.wideExtreme(false, "v")) FROM t")
        c.equal(row[0].wideNumber, values.reduce(0, +), "the exact total of wide values")
        c.equal(row[1].wideNumber, values.min()!, "their minimum")
        c.equal(row[2].wideNumber, values.max()!, "their maximum")
        let comparable = try c.row("SELECT \(d.wideComparable(d.placeholder(1))) > \(d.placeholder(2))", [d.wideValue(Int128(Int64.max) + 1), .integer(.max)])
        c.equal(comparable[0].bool, true, "the comparable form stays above Int64.max")
    }

    private func finiteNumbers(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v \(d.columnType(.double)))")
        try c.execute("INSERT INTO t (id, v) VALUES (1, 1.5), (2, 2.25)")
        let sum = "SELECT SUM(\(d.finite("v", entity: "It's", attribute: "v", id: "id"))) FROM t"
        c.equal(try c.row(sum)[0].double, 3.75, "finite numbers pass")
        c.equal(try c.rows("SELECT id FROM t WHERE \(d.isNonFinite("v"))").count, 0, "no infinity yet")
        try c.execute("INSERT INTO t (id, v) VALUES (7, \(d.placeholder(1)))", [.real(-.infinity)])
        do {
            _ = try c.row(sum)
            c.check(false, "a stored infinity must fail the sum")
        } catch let error as StorageError {
            let named = NonFiniteStoredNumber.fromSQL(error.message)
            c.equal(named.map { "\($0.object.entity) \($0.object.rowID) \($0.attribute) \($0.value)" }, "It's 7 v -inf", "the error names the object")
        }
        try c.execute("INSERT INTO t (id, v) VALUES (8, \(d.placeholder(1))), (9, \(d.placeholder(2)))", [.real(.infinity), .real(.greatestFiniteMagnitude)])
        // A NaN: SQLite stores NULL for it, PostgreSQL a NaN, which must be found too.
        try c.execute("INSERT INTO t (id, v) VALUES (10, \(d.placeholder(1)))", [.real(.nan)])
        let nanKept = try c.row("SELECT v IS NOT NULL FROM t WHERE id = 10")[0].bool == true
        c.equal(try c.ints("SELECT id FROM t WHERE \(d.isNonFinite("v")) ORDER BY id"), nanKept ? [7, 8, 10] : [7, 8],
                "isNonFinite finds both infinities and a stored NaN, and no finite number")
    }

    private func conversion(_ c: Conformance) throws {
        let d = c.dialect
        let cases: [(Value, AttributeType, AttributeType)] = [
            (.decimal(DecimalNumber(units: 1250, scale: 2)), .decimal(scale: 2), .integer),
            (.decimal(DecimalNumber(units: 1200, scale: 2)), .decimal(scale: 2), .integer),
            (.integer(12), .integer, .decimal(scale: 2)),
            (.integer(Int64.max), .integer, .decimal(scale: 2)),
            (.string("12"), .string, .integer),
            (.string("twelve"), .string, .integer),
            (.string("2026-11-27"), .string, .date),
            (.integer(1), .integer, .boolean),
            (.double(0.1), .double, .decimal(scale: 2)),
            (.date(Day(year: 2026, month: 11, day: 27)!), .date, .string),
        ]
        if let pending = c.implementation.pending[.conversion] {
            // Not provided yet: the statement fails, it never answers something else.
            for (value, from, to) in cases {
                let answered = try? c.row("SELECT \(d.convert(d.placeholder(1), from: from, to: to))", [value.storedValue(for: from)])
                c.equal(answered == nil, true, "\(value) from \(from) to \(to) must fail until \(pending)")
            }
            return
        }
        for (value, from, to) in cases {
            let got = try c.row("SELECT \(d.convert(d.placeholder(1), from: from, to: to))", [value.storedValue(for: from)])[0]
            let expected = value.converted(to: to)?.storedValue(for: to) ?? .null
            c.equal(got, expected, "\(value) from \(from) to \(to)")
        }
    }

    private func valueList(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, s TEXT, i INTEGER)")
        let strings: [String?] = ["a", "b, c", nil, "d \"e\"", "f"]
        for (i, s) in strings.enumerated() {
            try c.execute("INSERT INTO t (id, s, i) VALUES (\(d.placeholder(1)), \(d.placeholder(2)), \(d.placeholder(1)))", [.int(i), .textOrNull(s)])
        }
        let row = try c.row("SELECT (SELECT \(d.valueList("v", .string)) FROM (SELECT s AS v FROM t ORDER BY id) AS o), "
                            + "(SELECT \(d.valueList("v", .integer)) FROM (SELECT i AS v FROM t ORDER BY id) AS o), "
                            + "(SELECT \(d.valueList("v", .string)) FROM (SELECT s AS v FROM t WHERE \(d.constant(false))) AS o)")
        // The stored values, in StoredValue.listText's one text (StoredValue+List.swift), which readers decode.
        c.equal(row.string(0).flatMap(StoredValue.listItems), strings.compactMap { $0 }.map { StoredValue.text($0) },
                "text values listed in order, NULLs left out")
        c.equal(row.string(1).flatMap(StoredValue.listItems), strings.indices.map { StoredValue.integer(Int64($0)) }, "integers listed")
        c.check(row[2] == .null, "no values: NULL")
    }

    // MARK: Transactions

    private func temporaryTables(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (v INTEGER)")
        let before = c.implementation.isFile ? try Data(contentsOf: URL(fileURLWithPath: c.path)) : nil
        try c.transaction(.immediate) {
            for _ in 0..<2 {  // made when missing: a second time is no error
                try c.execute(d.temporaryTable("pairs", columns: "\(d.quote("a")) INTEGER NOT NULL, \(d.quote("b")) INTEGER NOT NULL", primaryKey: ["a", "b"]))
                try c.execute(d.temporaryTable("ids", columns: "\(d.quote("id")) INTEGER PRIMARY KEY", primaryKey: nil))
            }
            try c.execute("INSERT INTO \(d.temporary("pairs")) VALUES (1, 2), (1, 3)")
            try c.execute(d.insertIgnoringDuplicates(into: d.temporary("pairs"), columns: ["a", "b"], select: "SELECT 1, 2 UNION ALL SELECT 2, 2"))
            try c.execute(d.insertIgnoringDuplicates(into: d.temporary("ids"), columns: ["id"], select: "SELECT 5 UNION ALL SELECT 5"))
            return .commit
        }
        c.equal(try c.rows("SELECT a, b FROM \(d.temporary("pairs")) ORDER BY a, b").map { [$0.int(0), $0.int(1)] }, [[1, 2], [1, 3], [2, 2]],
                "a row whose key is held is skipped, the others inserted")
        c.equal(try c.ints("SELECT id FROM \(d.temporary("ids"))"), [5], "one key inserted once")
        let other = try c.implementation.open(c.path)
        c.check((try? other.run { try $0.rows("SELECT * FROM \(d.temporary("pairs"))") }) == nil, "another connection does not see them")
        try other.close()
        if let before { c.equal(try Data(contentsOf: URL(fileURLWithPath: c.path)), before, "the store's file is as it was") }
    }

    private func savepoints(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (v INTEGER)")
        try c.transaction(.immediate) {
            func insert(_ v: Int) throws { try c.execute("INSERT INTO t (v) VALUES (\(d.placeholder(1)))", [.int(v)]) }
            try insert(1)
            try c.execute(d.savepoint("outer \"one\""))
            try insert(2)
            try c.execute(d.savepoint("inner"))
            try insert(3)
            try c.execute(d.rollbackToSavepoint("inner"))
            try insert(4)
            try c.execute(d.releaseSavepoint("inner"))
            try c.execute(d.rollbackToSavepoint("outer \"one\""))
            try insert(5)
            try c.execute(d.releaseSavepoint("outer \"one\""))
            try c.execute(d.savepoint("kept"))
            try insert(6)
            try c.execute(d.releaseSavepoint("kept"))
            return .commit
        }
        c.equal(try c.ints("SELECT v FROM t ORDER BY v"), [1, 5, 6], "what a savepoint rolled back is gone, the rest kept")
    }

    private func locking(_ c: Conformance) throws {
        try c.execute("CREATE TABLE t (v INTEGER)")
        let other = try c.implementation.open(c.path)
        // The first connection holds the write lock for the whole of its transaction; the second asks for its own,
        // as the store begins a writer's transaction, inside it.
        try c.transaction(.immediate) {
            var refused = false
            // (As the store begins a write: the connection's `.immediate` transaction, which on SQLite is the
            // dialect's `beginWriteTransaction` and on PostgreSQL BEGIN and the books' advisory lock.)
            try other.run { connection in
                do {
                    try connection.transaction(.immediate) { .rollback }
                } catch let error as StorageError where error.kind == .busy {
                    refused = true
                }
                c.check(!connection.isInsideTransaction, "the refused writer has no transaction left open")
            }
            c.check(refused, "a second writer is refused while the first holds the lock, before any write")
            c.equal(try other.run { try $0.int("SELECT COUNT(*) FROM t") }, 0, "a reader still reads")
            try c.execute("INSERT INTO t (v) VALUES (1)")
            return .commit
        }
        try other.run { connection in
            try connection.transaction(.immediate) {
                try connection.execute("INSERT INTO t (v) VALUES (2)", [])
                return .commit
            }
        }
        c.equal(try c.ints("SELECT v FROM t ORDER BY v"), [1, 2], "after the first commits, the second writes")
        try other.close()
    }

    /// A batch drops indexes for a load only where a reader of the table goes on reading meanwhile.
    private func indexDeferral(_ c: Conformance) throws {
        try c.execute("CREATE TABLE t (v INTEGER)")
        try c.execute("CREATE INDEX t_v ON t (v)")
        let other = try c.implementation.open(c.path)
        try c.transaction(.immediate) {
            try c.execute(BatchSQL(c.dialect).dropIndex("t_v"))
            var reads = true
            do { _ = try other.run { try $0.int("SELECT COUNT(*) FROM t") } } catch { reads = false }
            c.equal(reads, c.dialect.dropsIndexesDuringLoads, "a reader reads while an index is dropped exactly where a batch drops them")
            return .rollback
        }
        try other.close()
    }

    /// The import history's kind of table: numbered on INSERT (1, 2, …), typed columns.
    private func ownTables(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id \(d.generatedKey), n \(d.columnType(.integer)) NOT NULL)\(d.typedTable)")
        for n in [7, 8] { try c.execute("INSERT INTO t (n) VALUES (\(d.placeholder(1)))", [.int(n)]) }
        c.equal(try c.ints("SELECT id FROM t ORDER BY id"), [1, 2], "rows inserted without a key are numbered 1, 2")
        var refused = false
        do { try c.execute("INSERT INTO t (n) VALUES ('x')") } catch { refused = true }
        c.check(refused, "text in an integer column is refused")
        // The import history's table, made twice (IF NOT EXISTS), one import recorded and read back.
        let b = BatchSQL(d)
        try c.execute(b.createJournal)
        try c.execute(b.createJournal)
        let values: [StoredValue] = [.text("f.csv"), .text("ab"), .text("2026-11-28T00:00:00Z"), .real(0.5), .text("Tag"),
                                     .integer(3), .integer(3), .integer(0), .integer(0), .integer(0), .integer(0), .text("{}"), .null]
        try c.execute(b.recordImport, values)
        let row = try c.row(b.importHistory(hasEncoding: true))
        c.equal(row.int64(0), 1, "the first import is number 1")
        c.equal(row.string(1), "f.csv", "its file")
        c.equal(row[4].double, 0.5, "its seconds")
        c.equal(row.int64(6), 3, "its records")
    }

    private func statistics(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
        try c.execute("CREATE INDEX t_v ON t (v)")
        try c.transaction(.immediate) {
            for i in 0..<500 { try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), .int(i % 7)]) }
            return .commit
        }
        try c.execute(d.analyze("t"))
        try c.execute(d.analyze("t"))
        c.equal(try c.row("SELECT COUNT(*) FROM t WHERE v = 3").int(0), 71, "statements answer as before after ANALYZE")
    }

    private func bulkInsert(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE \(d.quote("a table")) (\(d.quote("id")) INTEGER PRIMARY KEY, \(d.quote("k")) TEXT NOT NULL UNIQUE, \(d.quote("n")) INTEGER)")
        let three = d.insertRows(into: "a table", columns: ["id", "k", "n"], rows: 3)
        try c.execute(three, [.int(1), .text("a"), .int(10), .int(2), .text("b"), .null, .int(3), .text("c"), .int(30)])
        func contents() throws -> [String] {
            try c.rows("SELECT \(d.quote("id")), \(d.quote("k")), \(d.quote("n")) FROM \(d.quote("a table")) ORDER BY 1")
                .map { "\($0.string(0) ?? "NULL")\($0.string(1) ?? "NULL")\($0.string(2) ?? "-")" }
        }
        c.equal(try contents(), ["1a10", "2b-", "3c30"], "every row in, in placeholder order, none kept as none")
        // What the batch relies on: a bulk insert that fails is undone by the savepoint around it, the rest kept.
        var failed = false
        try c.transaction(.immediate) {
            let connection = c.connection
            try connection.execute(d.savepoint("record"))
            do {
                try connection.execute(three, [.int(4), .text("d"), .int(40), .int(5), .text("a"), .int(50), .int(6), .text("f"), .int(60)])
            } catch let error as StorageError where error.kind == .constraint {
                failed = true
            }
            try connection.execute(d.rollbackToSavepoint("record"))
            try connection.execute(d.releaseSavepoint("record"))
            return .commit
        }
        c.check(failed, "a row breaking a uniqueness fails the statement")
        c.equal(try contents(), ["1a10", "2b-", "3c30"], "rolled back to the savepoint, none of the failed statement's rows stay")
    }

    private func parallelSort(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v INTEGER)")
        try c.transaction(.immediate) {
            for i in 0..<2_000 { try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), .int((i * 7919) % 2_000)]) }
            return .commit
        }
        try c.execute(d.sortHelpers(2))
        try c.execute("CREATE INDEX t_v ON t (v)")
        try c.execute(d.sortHelpers(0))
        c.equal(try c.ints("SELECT v FROM t ORDER BY v"), Array(0..<2_000), "an index sorted with helpers orders every key")
        c.equal(try c.row("SELECT COUNT(*) FROM t WHERE v BETWEEN 100 AND 199").int(0), 100, "and finds them")
    }

    private func foreignKeyEnforcement(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE parent (id INTEGER PRIMARY KEY)")
        // (DEFERRABLE: what lets PostgreSQL put its check off to the commit; SQLite reads and ignores it.)
        try c.execute("CREATE TABLE child (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent(id) DEFERRABLE)")
        try c.execute("INSERT INTO parent (id) VALUES (1)")
        c.equal(try c.row(d.foreignKeysEnabled).int(0), 1, "a store's connection checks references")
        var refused = false
        do { try c.execute("INSERT INTO child (id, parent_id) VALUES (1, 2)") } catch let error as StorageError where error.kind == .constraint { refused = true }
        c.check(refused, "a reference to no row is refused while checks are on")
        guard c.implementation.switchesReferenceChecksOff else {
            // Keys are always checked: switched "off" inside a transaction, a broken reference is refused at its
            // commit, and one mended before the commit is no error; the check of broken references finds none.
            var refusedAtCommit = false
            do {
                try c.transaction(.immediate) {
                    try c.execute(d.foreignKeys(on: false))
                    try c.execute("INSERT INTO child (id, parent_id) VALUES (2, 2)")
                    return .commit
                }
            } catch let error as StorageError where error.kind == .constraint {
                refusedAtCommit = true
            }
            c.check(refusedAtCommit, "a broken reference is refused at the commit")
            try c.transaction(.immediate) {
                try c.execute(d.foreignKeys(on: false))
                try c.execute("INSERT INTO child (id, parent_id) VALUES (3, 3)")
                try c.execute("INSERT INTO parent (id) VALUES (3)")
                try c.execute(d.foreignKeys(on: true))
                return .commit
            }
            c.equal(try c.ints("SELECT id FROM child ORDER BY id"), [3], "a reference mended before the commit is kept, the broken one not")
            c.equal(try c.row(d.foreignKeysEnabled).int(0), 1, "references are still checked")
            c.equal(try c.rows(d.foreignKeyCheck).count, 0, "no broken reference can be found")
            return
        }
        try c.execute(d.foreignKeys(on: false))
        c.equal(try c.row(d.foreignKeysEnabled).int(0), 0, "switched off")
        try c.execute("INSERT INTO child (id, parent_id) VALUES (2, 2)")
        try c.execute("INSERT INTO child (id, parent_id) VALUES (3, 1)")
        let broken = try c.rows(d.foreignKeyCheck).map { "\($0.string(0) ?? "NULL")/\($0.string(1) ?? "NULL") → \($0.string(2) ?? "NULL")" }
        c.equal(broken, ["child/2 → parent"], "the check names the table, row and parent table of each broken reference, and only those")
        try c.execute("DELETE FROM child WHERE id = 2")
        try c.execute(d.foreignKeys(on: true))
        c.equal(try c.rows(d.foreignKeyCheck).count, 0, "none once it is gone")
    }

    private func catalog(_ c: Conformance) throws {
        let d = c.dialect
        let text = d.columnType(.string)
        try c.execute("CREATE TABLE \(d.quote("Order")) (id INTEGER PRIMARY KEY, \(d.quote("number")) \(text), \(d.quote("date")) \(text), n INTEGER)")
        try c.execute("CREATE UNIQUE INDEX \(d.quote("Order_number")) ON \(d.quote("Order")) (\(d.quote("number")))")
        try c.execute("CREATE INDEX \(d.quote("Order_date_n")) ON \(d.quote("Order")) (\(d.quote("date")), n)")
        try c.execute("CREATE INDEX \(d.quote("Order_expr")) ON \(d.quote("Order")) ((n + 1))")
        try c.execute("CREATE INDEX \(d.quote("Order_nocase")) ON \(d.quote("Order")) (\(d.quote("number")) COLLATE \(c.implementation.otherCollation))")
        try c.execute("CREATE TABLE other (id INTEGER PRIMARY KEY, x TEXT)")
        try c.execute("CREATE INDEX other_x ON other (x)")
        let indexes = try c.rows(d.indexesOfTable, [.text("Order")])
        c.equal(indexes.map { $0.string(0) }, ["Order_date_n", "Order_expr", "Order_nocase", "Order_number"], "the table's own indexes by name, no other table's")
        c.equal(indexes.map { $0.int(2) }, [0, 0, 0, 1], "which are unique")
        // The definition makes the index again.
        let definition = try XCTUnwrap(indexes.first { $0.string(0) == "Order_date_n" }?.string(1))
        try c.execute("DROP INDEX \(d.quote("Order_date_n"))")
        c.equal(try c.rows(d.indexExists, [.text("Order_date_n")]).count, 0, "a dropped index does not exist")
        try c.execute(definition)
        c.equal(try c.rows(d.indexExists, [.text("Order_date_n")]).count, 1, "its definition makes it again")
        func keys(_ index: String) throws -> [String] {
            try c.rows(d.keyColumnsOfIndex, [.text(index)]).map { "\($0.string(0) ?? "(expression)") \($0.int(1) == 1 ? "bytes" : "other")" }
        }
        c.equal(try keys("Order_date_n"), ["date bytes", "n bytes"], "key columns in order")
        c.equal(try keys("Order_expr"), ["(expression) bytes"], "an expression has no column name")
        c.equal(try keys("Order_nocase"), ["number other"], "an order other than bytes is said")
        c.equal(try c.rows(d.columnsOfTable, [.text("Order")]).compactMap { $0.string(0) }.sorted(), ["date", "id", "n", "number"], "a table's columns")
        c.equal(try c.row(d.tableExists, [.text(d.foldName("order") == d.foldName("Order") ? "order" : "Order")]).int(0), 1, "a table exists, its name compared as the dialect folds names")
        c.equal(try c.row(d.tableExists, [.text("Order_number")]).int(0), 0, "an index is not a table")
        c.equal(try c.row(d.tableExists, [.text("nothing")]).int(0), 0, "no such table")
        let before = try c.row(d.schemaVersion).int(0)
        c.equal(try c.row(d.schemaVersion).int(0), before, "the schema's version stays while the schema does")
        try c.execute("CREATE TABLE later (id INTEGER PRIMARY KEY)")
        c.check(try c.row(d.schemaVersion).int(0) != before, "and changes with it")
    }

    private func nullSafeComparison(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (a INTEGER, b INTEGER)")
        let values: [Int?] = [nil, 1, 2]
        for a in values { for b in values { try c.execute("INSERT INTO t (a, b) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.intOrNull(a), .intOrNull(b)]) } }
        for row in try c.rows("SELECT a, b, CASE WHEN \(d.isDistinct("a", "b")) THEN 1 ELSE 0 END FROM t") {
            let a = row.int(0), b = row.int(1)
            c.equal(row.int(2) == 1, a != b, "\(String(describing: a)) against \(String(describing: b))")
        }
        try c.execute("UPDATE t SET a = \(d.placeholder(1)) WHERE \(d.isDistinct("a", d.placeholder(2)))", [.int(7), .int(7)])
        c.equal(try c.row("SELECT COUNT(*) FROM t WHERE a = 7").int(0), 9, "with a bound value, none included")
    }

    private func nonASCIIText(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v \(c.column(.string)))")
        let texts = ["plain", "", "Müller", "e\u{301}", "日本", "x\u{7F}", "😀"]
        for (i, t) in texts.enumerated() { try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), .text(t)]) }
        try c.execute("INSERT INTO t (id, v) VALUES (100, NULL)")
        // Other kinds where the column holds them (the bytes of é as a blob are not text).
        if c.implementation.valuesHaveKinds {
            try c.execute("INSERT INTO t (id, v) VALUES (101, \(d.placeholder(1))), (102, \(d.placeholder(2)))", [.int(5), .blob(Data([0xC3, 0xA9]))])
        }
        let found = try c.ints("SELECT id FROM t WHERE \(d.hasNonASCIIText("v")) ORDER BY id")
        c.equal(found, texts.indices.filter { !texts[$0].unicodeScalars.allSatisfy(\.isASCII) }, "texts with a character beyond ASCII, and no other value")
    }

    private func transactions(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (v INTEGER)")
        try c.execute("INSERT INTO t (v) VALUES (1)")
        let other = try c.implementation.open(c.path)
        // The dialect's own words for a read transaction and its ends are what is checked (not the connection's
        // `transaction`), within one use of the connection, as the store's reads and writes are.
        try c.run { connection in
            try connection.execute(d.beginRead)
            _ = try connection.rows(d.readSchema)
            try other.run { try $0.execute("INSERT INTO t (v) VALUES (2)") }
            c.equal(try connection.int("SELECT COUNT(*) FROM t"), 1, "a read transaction keeps the snapshot its first read took")
            try connection.execute(d.commit)
            c.equal(try connection.int("SELECT COUNT(*) FROM t"), 2, "after it, the other's commit is seen")
            try connection.execute(d.beginWriteTransaction)
            try connection.execute("INSERT INTO t (v) VALUES (3)")
            try connection.execute(d.rollback)
        }
        c.equal(try c.ints("SELECT v FROM t ORDER BY v"), [1, 2], "a rollback undoes the transaction's write")
        // The connection's own transaction ends as its body says, and a body that throws rolls back.
        try c.transaction(.immediate) {
            try c.execute("INSERT INTO t (v) VALUES (4)")
            return .rollback
        }
        struct Refused: Error {}
        do {
            try c.transaction(.deferred) {
                try c.execute("INSERT INTO t (v) VALUES (5)")
                throw Refused()
            }
        } catch is Refused {}
        c.equal(try c.ints("SELECT v FROM t ORDER BY v"), [1, 2], "the connection's transaction rolled back when its body said so or threw")
        c.check(try !c.run { $0.isInsideTransaction }, "and none is left open")
        try other.close()
    }

    private func integrityCheck(_ c: Conformance) throws {
        let d = c.dialect
        for setting in d.connectionSettings(readOnly: false) { try c.execute(setting) }
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)")
        try c.transaction(.immediate) {
            for i in 0..<3_000 { try c.execute("INSERT INTO t (id, v) VALUES (\(d.placeholder(1)), \(d.placeholder(2)))", [.int(i), .text(String(repeating: "x", count: i % 50))]) }
            return .commit
        }
        c.equal(try c.rows(d.quickCheck).map { $0.string(0) }, ["ok"], "a sound store: quick check")
        c.equal(try c.rows(d.integrityCheck).map { $0.string(0) }, ["ok"], "a sound store: integrity check")
        guard c.implementation.isFile else {
            // The server checks its own pages (data checksums, when the cluster has them); a page it finds damaged
            // fails the statement reading it with XX001 (or an index with XX002), which is the store's `damaged`.
            try c.execute(d.checkPagesOnRead(true))
            try c.execute(d.checkPagesOnRead(false))
            c.equal(["XX001", "XX002"].map { PostgreSQLConnection.kind(sqlState: $0) }, [.damaged, .damaged], "the server's damage is the store's")
            return
        }
        try c.close()
        // Damage the middle of the file (a table page), as a disk or another program might.
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: c.path))
        let size = try handle.seekToEnd()
        try handle.seek(toOffset: size / 2)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 2_000))
        try handle.close()
        let damaged = try c.implementation.open(c.path)
        func checkFindsDamage() throws -> Bool {
            try damaged.run {
                try $0.execute(d.checkPagesOnRead(false))
                return try $0.rows(d.integrityCheck).map { $0.string(0) } != ["ok"]
            }
        }
        var found = false
        do {
            found = try checkFindsDamage()
        } catch let error as StorageError where error.kind == .damaged {
            found = true
        }
        c.check(found, "a damaged store is found")
        try damaged.close()
    }

    private func storageClasses(_ c: Conformance) throws {
        let d = c.dialect
        guard c.implementation.valuesHaveKinds else {
            // The column's type decides: each column holds its own kind only, none stored otherwise.
            let columns: [(String, AttributeType, StoredKind, StoredValue)] = [
                ("i", .integer, .integer, .integer(5)), ("r", .double, .real, .real(2.5)), ("s", .string, .text, .text("text")),
                ("b", .binary, .blob, .blob(Data([0x00, 0xFF]))),
            ]
            try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, " + columns.map { "\($0.0) \(d.columnType($0.1))" }.joined(separator: ", ") + ")")
            try c.execute("INSERT INTO t (id, i, r, s, b) VALUES (1, \((1...4).map(d.placeholder).joined(separator: ", "))), (2, NULL, NULL, NULL, NULL)", columns.map(\.3))
            for (name, _, kind, _) in columns {
                for other in [StoredKind.integer, .real, .text, .blob] {
                    c.equal(try c.ints("SELECT id FROM t WHERE \(d.isStored(name, as: other)) ORDER BY id"), other == kind ? [1] : [],
                            "\(name) stored as \(other)")
                }
                c.equal(try c.ints("SELECT id FROM t WHERE \(d.isStoredOtherwise(name, than: kind)) ORDER BY id"), [], "\(name): none stored otherwise")
            }
            let bytes = try c.row("SELECT \(d.storedBytes("s")) FROM t WHERE id = 1")
            c.equal(bytes[0], .blob(Data("text".utf8)), "text as its bytes")
            var refused = false
            do { try c.execute("INSERT INTO t (id, s) VALUES (3, \(d.placeholder(1)))", [.text("a\u{0}b")]) } catch is StorageError { refused = true }
            c.check(refused, "text with a NUL cannot be stored")
            c.equal(try c.ints("SELECT id FROM t WHERE \(d.containsNUL("b")) ORDER BY id"), [1], "bytes holding a NUL")
            c.equal(try c.ints("SELECT id FROM t WHERE \(d.containsNUL(d.storedBytes("s"))) ORDER BY id"), [], "no text holds one")
            return
        }
        try c.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, v)")
        // (A text with a NUL, as another tool writes it: a bound Swift string ends at the NUL.)
        try c.execute("INSERT INTO t (id, v) VALUES (1, 5), (2, 2.5), (3, 'text'), (4, X'00FF'), (5, NULL), (6, CAST(X'610062' AS TEXT))")
        let kinds: [StoredKind] = [.integer, .real, .text, .blob]
        let expected: [StoredKind: [Int]] = [.integer: [1], .real: [2], .text: [3, 6], .blob: [4]]
        for kind in kinds {
            c.equal(try c.ints("SELECT id FROM t WHERE \(d.isStored("v", as: kind)) ORDER BY id"), expected[kind]!, "stored as \(kind)")
            c.equal(try c.ints("SELECT id FROM t WHERE \(d.isStoredOtherwise("v", than: kind)) ORDER BY id"),
                    [1, 2, 3, 4, 6].filter { !expected[kind]!.contains($0) }, "stored, but not as \(kind) (none is not)")
        }
        let bytes = try c.rows("SELECT \(d.storedBytes("v")) FROM t WHERE id IN (3, 6) ORDER BY id").map { row -> [UInt8] in
            if case .blob(let data) = row[0] { [UInt8](data) } else { [] }
        }
        c.equal(bytes, [Array("text".utf8), [0x61, 0, 0x62]], "text as its bytes, past a NUL")
        c.equal(try c.ints("SELECT id FROM t WHERE \(d.containsNUL(d.storedBytes("v"))) ORDER BY id"), [4, 6], "the values holding a NUL byte")
    }

    private func stringAggregate(_ c: Conformance) throws {
        let d = c.dialect
        try c.execute("CREATE TABLE t (g INTEGER, v INTEGER)")
        try c.execute("INSERT INTO t (g, v) VALUES (1, 3), (1, 1), (2, 7)")
        let rows = try c.rows("SELECT g, (SELECT \(d.joinedWithCommas("v")) FROM (SELECT v FROM t AS o WHERE o.g = t.g ORDER BY v) AS s) FROM t GROUP BY g ORDER BY g")
        c.equal(rows.map { $0.string(1) }, ["1,3", "7"], "each group's values, in the order read, joined with commas")
    }

    private func fileJournal(_ c: Conformance) throws {
        let d = c.dialect
        guard c.implementation.isFile else {
            // A server keeps its own write-ahead log: asking for any journal changes nothing, and writes are kept.
            try c.execute("CREATE TABLE t (v INTEGER)")
            for (i, kind) in [FileJournal.rollback, .none, .rollback, .writeAheadLog, .writeAheadLog].enumerated() {
                try c.execute(d.fileJournal(kind))
                try c.transaction(.immediate) {
                    try c.execute("INSERT INTO t (v) VALUES (\(d.placeholder(1)))", [.int(i)])
                    return .commit
                }
            }
            c.equal(try c.ints("SELECT v FROM t ORDER BY v"), [0, 1, 2, 3, 4], "every write kept, whatever journal was asked for")
            return
        }
        // (Out of the write-ahead log the store opens in: to a rollback journal first, then to none.)
        try c.execute(d.fileJournal(.rollback))
        try c.execute(d.fileJournal(.none))
        try c.execute("CREATE TABLE t (v INTEGER)")
        // A connection without a journal leaves no journal file behind a transaction.
        try c.transaction(.immediate) {
            try c.execute("INSERT INTO t (v) VALUES (1)")
            c.check(!FileManager.default.fileExists(atPath: c.path + "-journal"), "no journal while it writes")
            return .commit
        }
        try c.execute(d.fileJournal(.rollback))
        try c.transaction(.immediate) {
            try c.execute("INSERT INTO t (v) VALUES (2)")
            c.check(FileManager.default.fileExists(atPath: c.path + "-journal"), "a journal again while it writes")
            return .commit
        }
        c.equal(try c.ints("SELECT v FROM t ORDER BY v"), [1, 2], "both writes kept")
        // The write-ahead log: a write goes to the log beside the file, not to a journal.
        try c.execute(d.fileJournal(.writeAheadLog))
        try c.transaction(.immediate) {
            try c.execute("INSERT INTO t (v) VALUES (3)")
            c.check(!FileManager.default.fileExists(atPath: c.path + "-journal"), "no rollback journal in WAL mode")
            return .commit
        }
        c.check(FileManager.default.fileExists(atPath: c.path + "-wal"), "the write is in the log")
        let header = try Data(contentsOf: URL(fileURLWithPath: c.path)).prefix(100)
        try c.execute(d.fileJournal(.writeAheadLog))
        c.equal(try Data(contentsOf: URL(fileURLWithPath: c.path)).prefix(100), header, "asking again for the mode it is in writes nothing")
    }
}

/// One feature's run: a fresh store (a file, or a schema) and its connection, through the storage protocol, and a count of the
/// assertions made, so that a check asserting nothing fails.
final class Conformance {
    let implementation: DialectImplementation
    let feature: SQLDialectFeature
    /// Where the store is: its file, or its schema's name (what `implementation.open` takes).
    let path: String
    private let opened: OpenedConnection
    var dialect: any SQLDialect { implementation.dialect }
    private(set) var assertions = 0

    init(_ implementation: DialectImplementation, _ feature: SQLDialectFeature, directory: TemporaryDirectory, test: XCTestCase) throws {
        self.implementation = implementation
        self.feature = feature
        path = try implementation.makeStore(directory, test)
        opened = try implementation.open(path)
    }

    /// The type of a test column for values of `type`: none where a column holds any kind (SQLite), else the
    /// dialect's column type.
    func column(_ type: AttributeType) -> String { implementation.valuesHaveKinds ? "" : dialect.columnType(type) }

    /// The connection, for use inside `run` or `transaction`.
    var connection: any StorageConnection { opened.connection }

    /// Closes the connection (the feature's check uses it no more); a second time does nothing.
    func close() throws {
        guard !closed else { return }
        closed = true
        try opened.close()
    }
    private var closed = false

    /// What `body` gives, run on the connection.
    func run<T>(_ body: (any StorageConnection) throws -> T) throws -> T { try opened.run(body) }

    /// The connection's own transaction (`StorageConnection.transaction`).
    func transaction(_ kind: TransactionKind, _ body: () throws -> TransactionEnd) throws {
        try run { try $0.transaction(kind, body) }
    }

    func execute(_ sql: String, _ arguments: [StoredValue] = []) throws {
        try run { try $0.execute(sql, arguments) }
    }

    /// The first row, which must be there.
    func row(_ sql: String, _ arguments: [StoredValue] = []) throws -> StorageRow {
        guard let row = try rows(sql, arguments).first else { throw NoRow(sql: sql) }
        return row
    }

    func rows(_ sql: String, _ arguments: [StoredValue] = []) throws -> [StorageRow] {
        try run { try $0.rows(sql, arguments) }
    }

    /// The first column of every row, as integers.
    func ints(_ sql: String, _ arguments: [StoredValue] = []) throws -> [Int?] {
        try rows(sql, arguments).map { $0.int(0) }
    }

    struct NoRow: Error { let sql: String }

    func check(_ condition: Bool, _ message: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        assertions += 1
        XCTAssertTrue(condition, "\(implementation.name), \(feature): \(message())", file: file, line: line)
    }

    func equal<T: Equatable>(_ a: T, _ b: T, _ message: @autoclosure () -> String, file: StaticString = #filePath, line: UInt = #line) {
        assertions += 1
        XCTAssertEqual(a, b, "\(implementation.name), \(feature): \(message())", file: file, line: line)
    }
}

extension StoredValue {
    /// The number a stored integer, a wide number in the engine's form (WideInteger), or its digits stand for.
    var wideNumber: Int128? {
        switch self {
        case .integer(let i): Int128(i)
        case .blob(let data): WideInteger.decode(blob: data)
        case .text(let digits): Int128(digits)
        default: nil
        }
    }

    /// An `Int` bound as an integer.
    static func int(_ value: Int) -> StoredValue { .integer(Int64(value)) }
    /// An `Int`, or NULL for nil.
    static func intOrNull(_ value: Int?) -> StoredValue { value.map(StoredValue.int) ?? .null }
    /// Text, or NULL for nil.
    static func textOrNull(_ value: String?) -> StoredValue { value.map(StoredValue.text) ?? .null }
}
