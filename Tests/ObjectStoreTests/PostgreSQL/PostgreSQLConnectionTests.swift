import Foundation
@testable import ObjectStore
import TestSupport
import XCTest

/// The storage protocol over libpq against the test server (the postgresql tier: `make test-postgresql`).
final class PostgreSQLConnectionTests: XCTestCase {
    /// A scalar from every plane (0–16) but the surrogates, with controls and the noncharacters at the end.
    static let everyPlane: String = {
        var s = "A\u{1}\u{7F}\u{80}\u{FFFD}\u{FFFF}"
        for plane in 1...16 { s.unicodeScalars.append(Unicode.Scalar(UInt32(plane) << 16 | 0x1234)!) }
        s.unicodeScalars.append(Unicode.Scalar(0x10FFFF)!)
        return s
    }()

    func testEveryKindOfStoredValueComesBackAsBound() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, i bigint, r double precision, s text, b bytea)")
        var random = SystemRandomNumberGenerator()
        let big = Data((0..<3_000_000).map { _ in UInt8.random(in: 0...255, using: &random) })
        let values: [(Int64?, Double?, String?, Data?)] = [
            (0, 0, "", Data()),
            (Int64.max, .infinity, "a", Data([0])),
            (Int64.min, -.infinity, Self.everyPlane, Data((0...255).map { UInt8($0) })),
            (nil, nil, nil, nil),
            (-1, -0.0, "x y\t\n\\'\"$1", big),
            (42, 0.1, "é (composed) e\u{301} (decomposed) 😀", Data([0xFF, 0x00, 0x5C])),
            (Int64.min + 1, .leastNonzeroMagnitude, String(repeating: "long ", count: 200_000), nil),
            (Int64.max - 1, .greatestFiniteMagnitude, "-", Data(repeating: 0, count: 1)),
        ]
        func stored<T>(_ v: T?, _ f: (T) -> StoredValue) -> StoredValue { v.map(f) ?? .null }
        for (n, (i, r, s, b)) in values.enumerated() {
            try db.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)",
                           [.integer(Int64(n)), stored(i, StoredValue.integer), stored(r, StoredValue.real), stored(s, StoredValue.text), stored(b, StoredValue.blob)])
        }
        try db.execute("INSERT INTO t VALUES ($1, $2, $3, $4, $5)", [.integer(99), .null, .real(.nan), .null, .null])
        let rows = try db.rows("SELECT i, r, s, b FROM t WHERE id < 99 ORDER BY id")
        XCTAssertEqual(rows.count, values.count)
        for (row, (i, r, s, b)) in zip(rows, values) {
            XCTAssertEqual(row[0], stored(i, StoredValue.integer))
            XCTAssertEqual(row[1], stored(r, StoredValue.real))
            if case .real(let d) = row[1], let r { XCTAssertEqual(d.sign, r.sign, "the sign of \(r)") }
            XCTAssertEqual(row[2], stored(s, StoredValue.text))
            XCTAssertEqual(row[3], stored(b, StoredValue.blob))
        }
        XCTAssertEqual(rows.first?.names, ["i", "r", "s", "b"])
        guard case .real(let nan)? = try db.value("SELECT r FROM t WHERE id = 99") else { return XCTFail("NaN is not a real") }
        XCTAssertTrue(nan.isNaN)
        XCTAssertEqual(try db.string("SELECT r::text FROM t WHERE id = 1"), "Infinity", "bound as PostgreSQL spells it")

        // Through SELECT $1 alone (text is of unknown type there: the server takes it for text), each kind as bound.
        for value: StoredValue in [.integer(.min), .real(-.infinity), .text(Self.everyPlane), .text(""), .blob(Data([1, 0, 2])), .null] {
            XCTAssertEqual(try db.value("SELECT $1", [value]), value)
        }
        // Text bound beside a date, a bigint and a numeric column is taken for their type.
        XCTAssertEqual(try db.value("SELECT $1 + 1 FROM t WHERE id = 0", [.text("41")]), .integer(42))
        XCTAssertEqual(try db.string("SELECT $1::date + 1", [.text("2024-02-28")]), "2024-02-29")
        XCTAssertEqual(try db.value("SELECT count(*) FROM t WHERE i = $1", [.text("42")]), .integer(1))
    }

    /// Generated values of every kind go through every path — `SELECT $1` unnamed, a kept statement rebound with
    /// other types each time, a bulk insert read back as a stream — and come back as they were (NaN as NaN, the sign
    /// of zero kept).
    func testGeneratedValuesComeBackThroughEveryPath() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        let count = Trials.count("BOOKKEEPER_PG_VALUE_TRIALS", quick: 2000, stress: 2000)  // whole in its tier: `make stress` has no server
        let seed = Trials.seed(fixed: 30)
        var g = SeededGenerator(seed: seed)
        let scalarRanges: [ClosedRange<UInt32>] = [0x1...0x7F, 0x80...0x7FF, 0x800...0xD7FF, 0xE000...0xFFFF, 0x10000...0x10FFFF]
        func value(_ kind: Int) -> StoredValue {
            switch kind {
            case 0:
                return .integer(g.pick([Int64(bitPattern: g.next()), Int64(g.next(upTo: 1000)) - 500, .max, .min]))
            case 1:
                return .real(g.pick([Double(bitPattern: g.next()), Double(g.next(upTo: 10_000)) / 100, -0.0, .nan, .infinity,
                                     -.infinity, .leastNonzeroMagnitude, -.greatestFiniteMagnitude]))
            case 2:
                var s = String.UnicodeScalarView()
                for _ in 0..<g.next(upTo: 40) {
                    let range = g.pick(scalarRanges)
                    s.append(Unicode.Scalar(range.lowerBound + UInt32(g.next(upTo: Int(range.upperBound - range.lowerBound) + 1)))!)
                }
                return .text(String(s))
            case 3:
                return .blob(Data((0..<g.next(upTo: 64)).map { _ in UInt8(truncatingIfNeeded: g.next()) }))
            default:
                return .null
            }
        }
        func same(_ a: StoredValue, _ b: StoredValue) -> Bool {
            if case .real(let x) = a, case .real(let y) = b { return x.isNaN ? y.isNaN : x == y && x.sign == y.sign }
            return a == b
        }
        let kinds = (0..<count).map { _ in g.next(upTo: 5) }
        let values = kinds.map(value)
        var mismatches: [String] = []
        for v in values {
            let unnamed = try db.value("SELECT $1", [v]) ?? .null
            let kept = try db.cachedRows("SELECT $1", [v]).first?[0] ?? .null
            if !same(unnamed, v) || !same(kept, v) { mismatches.append("\(v) came back as \(unnamed) and \(kept)") }
        }
        try db.execute("CREATE TABLE g (n bigint, i bigint, r double precision, s text, b bytea)")
        var rows: [StoredValue] = []
        for (n, (kind, v)) in zip(kinds, values).enumerated() {
            var row: [StoredValue] = [.integer(Int64(n)), .null, .null, .null, .null]
            if kind < 4 { row[1 + kind] = v }
            rows += row
        }
        try db.bulkInsert(into: "g", columns: ["n", "i", "r", "s", "b"], values: rows, rows: count)
        var cursor = try db.cursor("SELECT n, i, r, s, b FROM g ORDER BY n")
        var read = 0
        while let row = try cursor.next() {
            let n = Int(row.int64(0)!)
            for c in 1...4 where !same(row[c], rows[n * 5 + c]) {
                mismatches.append("row \(n) column \(c): \(rows[n * 5 + c]) came back as \(row[c])")
            }
            read += 1
        }
        XCTAssertEqual(read, count)
        XCTAssertEqual(mismatches, [], "seed \(seed)")
        reportTrials("postgresql-values", "\(count) generated values (seed \(seed)) through SELECT $1, a kept statement and a bulk insert")
    }

    func testTextInPlaceAndIntegersAreReadWithoutAString() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        let s = try db.prepare("SELECT 'é😀'::text, 7::int4, NULL::text, 1.5::numeric, 'x'::varchar")
        XCTAssertTrue(try s.step())
        XCTAssertEqual(s.text(0).map { String(decoding: $0, as: UTF8.self) }, "é😀")
        XCTAssertNil(s.text(1), "a number is not text")
        XCTAssertNil(s.text(2), "NULL is not text")
        XCTAssertNil(s.text(3))
        XCTAssertEqual(s.text(4).map { String(decoding: $0, as: UTF8.self) }, "x")
        XCTAssertEqual(s.int64(1), 7)
        XCTAssertNil(s.int64(2))
        XCTAssertEqual(s.int64(3), 1)
        XCTAssertEqual(s.exactColumn(0), .text("é😀"))
        XCTAssertFalse(try s.step())
        s.reset()
    }

    func testColumnsAreReadByTheirType() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        let row = try XCTUnwrap(db.rows("""
            SELECT 1::int2, 2::int4, 3::int8, 1.5::float4, 'NaN'::float8, 'Infinity'::float8, '-Infinity'::float4,
                   12::numeric, 12.50::numeric, 12.00::numeric, true, false, '\\x00ff'::bytea, 'n'::name,
                   DATE '2024-02-29', TIMESTAMPTZ '2024-02-29 12:34:56.789+02', 'v'::varchar(3), NULL::int8,
                   '1e400'::numeric
            """).first)
        XCTAssertEqual(row[0], .integer(1))
        XCTAssertEqual(row[1], .integer(2))
        XCTAssertEqual(row[2], .integer(3))
        XCTAssertEqual(row[3], .real(1.5))
        XCTAssertTrue(row[4].double!.isNaN)
        XCTAssertEqual(row[5], .real(.infinity))
        XCTAssertEqual(row[6], .real(-.infinity))
        XCTAssertEqual(row[7], .integer(12))
        XCTAssertEqual(row[8], .real(12.5))
        XCTAssertEqual(row[9], .integer(12))
        XCTAssertEqual(row[10], .integer(1))
        XCTAssertEqual(row[11], .integer(0))
        XCTAssertEqual(row[12], .blob(Data([0, 0xFF])))
        XCTAssertEqual(row[13], .text("n"))
        XCTAssertEqual(row[14], .text("2024-02-29"), "DateStyle ISO")
        XCTAssertEqual(row[15], .text("2024-02-29 10:34:56.789+00"), "TimeZone UTC")
        XCTAssertEqual(row[16], .text("v"))
        XCTAssertEqual(row[17], .null)
        XCTAssertEqual(row[18], .text("1" + String(repeating: "0", count: 400)), "integral beyond an Int128: its digits")
    }

    func testASumPastInt64IsItsExactWideForm() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE n (v bigint)")
        try db.execute("INSERT INTO n VALUES ($1), ($1), ($1)", [.integer(.max)])
        XCTAssertEqual(try db.value("SELECT sum(v) FROM n"), WideInteger.encode(27670116110564327421))
        try db.execute("INSERT INTO n VALUES ($1), ($1), ($1), ($1), ($1), ($1)", [.integer(.min)])
        XCTAssertEqual(try db.value("SELECT sum(v) FROM n"), WideInteger.encode(-27670116110564327427))
        try db.execute("DELETE FROM n")
        try db.execute("INSERT INTO n VALUES ($1), ($2)", [.integer(.max), .integer(-1)])
        XCTAssertEqual(try db.value("SELECT sum(v) FROM n"), .integer(.max - 1), "within Int64: an integer")
    }

    func testACachedStatementIsPreparedAgainWhenItsBindingsTypesChange() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE k (v bigint, w text)")
        let insert = "INSERT INTO k VALUES ($1, $2)"
        let prepared = "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1"
        try db.transaction(.deferred) {
            try db.execute(cached: insert, [.null, .null])
            try db.execute(cached: insert, [.integer(5), .text("five")])
            try db.execute(cached: insert, [.integer(6), .text("six")])
            try db.execute(cached: insert, [.text("7"), .null])
            XCTAssertEqual(try db.rows("SELECT v, w FROM k ORDER BY v NULLS FIRST").map(\.values),
                           [[.null, .null], [.integer(5), .text("five")], [.integer(6), .text("six")], [.integer(7), .null]])
            XCTAssertEqual(try db.int(prepared, [.text(insert)]), 2,
                           "(unknown, unknown), then (int8, unknown) twice, then (unknown, unknown) again: two")
            XCTAssertEqual(try db.int("SELECT count(*) FROM pg_prepared_statements WHERE name LIKE $1",
                                      [.text("bk\\_\(db.statementToken)\\_%")]), 2, "named with the connection's token")
            return .commit
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM pg_prepared_statements"), 0, "deallocated with the COMMIT")
        try db.execute(cached: insert, [.integer(8), .text("eight")])
        XCTAssertEqual(try db.int("SELECT count(*) FROM pg_prepared_statements"), 0, "outside a transaction: unnamed")
        // A transaction that fails leaves none either (DEALLOCATE after its ROLLBACK, in the same round trip).
        XCTAssertThrowsError(try db.transaction(.deferred) {
            try db.execute(cached: insert, [.integer(9), .text("nine")])
            try db.execute(cached: "SELECT 1 / $1", [.integer(0)])
            return .commit
        })
        XCTAssertEqual(try db.int("SELECT count(*) FROM pg_prepared_statements"), 0, "deallocated after the ROLLBACK")
        // The next transaction prepares them again.
        try db.transaction(.deferred) {
            try db.execute(cached: insert, [.integer(10), .text("ten")])
            XCTAssertEqual(try db.int(prepared, [.text(insert)]), 1)
            return .rollback
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM pg_prepared_statements"), 0)
        let select = "SELECT $1"
        try db.transaction(.deferred) {
            XCTAssertEqual(try db.cachedRows(select, [.null]).first?[0], .null)
            XCTAssertEqual(try db.cachedRows(select, [.integer(3)]).first?[0], .integer(3))
            XCTAssertEqual(try db.cachedRows(select, [.real(0.5)]).first?[0], .real(0.5))
            XCTAssertEqual(try db.cachedRows(select, [.text("t")]).first?[0], .text("t"))
            XCTAssertEqual(try db.cachedRows(select, [.blob(Data([9]))]).first?[0], .blob(Data([9])))
            XCTAssertEqual(try db.cachedRows(select, [.integer(4)]).first?[0], .integer(4))
            db.finalizeStatements()
            try db.execute(cached: insert, [.integer(11), .text("eleven")])
            return .commit
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM pg_prepared_statements"), 0)
        XCTAssertEqual(try db.int("SELECT count(*) FROM k"), 6)
    }

    /// Nothing outlives a transaction on the server session (a pooler in transaction mode lends it to others): the
    /// settings are SET LOCAL with BEGIN, in the same round trip, and gone after COMMIT.
    func testEveryTransactionSetsItsSettingsAndLeavesTheSessionAsItWas() throws {
        let db = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo(), writeLockKey: 77)
        defer { db.close() }
        try db.execute("SET TimeZone = 'America/New_York'; SET extra_float_digits = 0; SET bytea_output = 'escape'; SET DateStyle = 'SQL, DMY'")
        db.transactionSettings += "; SET LOCAL search_path = pg_catalog; SET LOCAL lock_timeout = 1234"
        for readOnly in [false, true] {
            try db.transaction(.immediate, readOnly: readOnly) {
                XCTAssertEqual(try db.string("SHOW TimeZone"), "UTC")
                XCTAssertEqual(try db.string("SHOW DateStyle"), "ISO, MDY")
                XCTAssertEqual(try db.string("SHOW extra_float_digits"), "1")
                XCTAssertEqual(try db.string("SHOW bytea_output"), "hex")
                XCTAssertEqual(try db.string("SHOW client_encoding"), "UTF8")
                XCTAssertEqual(try db.string("SHOW search_path"), "pg_catalog")
                XCTAssertEqual(try db.string("SHOW lock_timeout"), "1234ms")
                XCTAssertEqual(try db.string("SHOW transaction_read_only"), readOnly ? "on" : "off")
                XCTAssertEqual(try db.string("SHOW transaction_isolation"), readOnly ? "repeatable read" : "read committed")
                XCTAssertEqual(try db.int("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"),
                               readOnly ? 0 : 1, "the write lock, for a write only")
                return .commit
            }
            XCTAssertEqual(try db.string("SHOW TimeZone"), "America/New_York")
            XCTAssertEqual(try db.string("SHOW extra_float_digits"), "0")
            XCTAssertEqual(try db.string("SHOW bytea_output"), "escape")
            XCTAssertEqual(try db.string("SHOW DateStyle"), "SQL, DMY")
            XCTAssertNotEqual(try db.string("SHOW search_path"), "pg_catalog")
            XCTAssertEqual(try db.int("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"), 0)
        }
    }

    func testTransactionsCommitRollBackAndRollBackWhenTheirBodyThrows() throws {
        let (schema, db) = try PostgreSQLTestDatabase.freshSchema(self)
        let other = try PostgreSQLTestDatabase.connect(self, schema: schema)
        try db.execute("CREATE TABLE t (v bigint UNIQUE)")
        XCTAssertFalse(db.isInsideTransaction)
        try db.transaction(.deferred) {
            XCTAssertTrue(db.isInsideTransaction)
            try db.execute("INSERT INTO t VALUES (1)")
            XCTAssertEqual(try other.int("SELECT count(*) FROM t"), 0, "not yet committed")
            return .commit
        }
        XCTAssertFalse(db.isInsideTransaction)
        XCTAssertEqual(try other.int("SELECT count(*) FROM t"), 1)
        try db.transaction(.immediate) {
            try db.execute("INSERT INTO t VALUES (2)")
            return .rollback
        }
        XCTAssertEqual(try other.int("SELECT count(*) FROM t"), 1)
        struct Thrown: Error {}
        XCTAssertThrowsError(try db.transaction(.deferred) {
            try db.execute("INSERT INTO t VALUES (3)")
            throw Thrown()
        }) { XCTAssertTrue($0 is Thrown) }
        XCTAssertFalse(db.isInsideTransaction)
        XCTAssertEqual(try other.int("SELECT count(*) FROM t"), 1)

        // A statement that failed inside aborts the transaction: a commit asked for after it is refused, not a silent
        // rollback reported as done.
        XCTAssertThrowsError(try db.transaction(.deferred) {
            try db.execute("INSERT INTO t VALUES (4)")
            do { try db.execute("INSERT INTO t VALUES (1)") } catch {}
            return .commit
        }) { error in
            XCTAssertEqual((error as? StorageError)?.sqlState, "25P02", "\(error)")
        }
        XCTAssertFalse(db.isInsideTransaction)
        XCTAssertEqual(try db.int("SELECT count(*) FROM t"), 1)

        // A transaction inside a transaction is refused (PostgreSQL would only warn, and commit the outer's work).
        try db.transaction(.deferred) {
            try db.execute("INSERT INTO t VALUES (5)")
            XCTAssertThrowsError(try db.transaction(.immediate) { .commit }) {
                XCTAssertEqual(($0 as? StorageError)?.sqlState, "25001")
            }
            return .rollback
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM t"), 1)
    }

    func testAnImmediateTransactionWaitsForAnotherConnectionsImmediateOne() throws {
        let (schema, db) = try PostgreSQLTestDatabase.freshSchema(self)
        let first = try PostgreSQLTestDatabase.connect(self, schema: schema, writeLockKey: 7_004_001)
        let second = try PostgreSQLTestDatabase.connect(self, schema: schema, writeLockKey: 7_004_001)
        let unrelated = try PostgreSQLTestDatabase.connect(self, schema: schema, writeLockKey: 7_004_002)
        try db.execute("CREATE TABLE t (v bigint)")
        // The second one's wait ends at its lock_timeout (55P03) rather than after a measured time.
        try second.execute("SET lock_timeout = '200ms'")
        try unrelated.execute("SET lock_timeout = '200ms'")
        try first.transaction(.immediate) {
            XCTAssertThrowsError(try second.transaction(.immediate) { .commit }) { error in
                XCTAssertEqual((error as? StorageError)?.kind, .busy, "\(error)")
                XCTAssertEqual((error as? StorageError)?.sqlState, "55P03", "\(error)")
            }
            XCTAssertFalse(second.isInsideTransaction)
            try second.transaction(.deferred) { .commit }  // a deferred one takes no lock
            try unrelated.transaction(.immediate) { .commit }  // another key: other books
            try first.execute("INSERT INTO t VALUES (1)")
            return .commit
        }
        try second.transaction(.immediate) {
            try second.execute("INSERT INTO t VALUES (2)")
            return .commit
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM t"), 2)
    }

    func testErrorsAreKindedBySQLState() throws {
        let (schema, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE t (id bigint PRIMARY KEY, v text NOT NULL)")
        try db.execute("INSERT INTO t VALUES (1, 'a')")
        let insert = "INSERT INTO t VALUES ($1, $2)"
        do {
            try db.execute(insert, [.integer(1), .text("b")])
            XCTFail("a duplicate key was inserted")
        } catch {
            XCTAssertEqual(error.kind, .constraint)
            XCTAssertEqual(error.sqlState, "23505")
            XCTAssertEqual(error.sql, insert)
            XCTAssertEqual(error.message, "duplicate key value violates unique constraint \"t_pkey\" (Key (id)=(1) already exists.)")
            XCTAssertFalse(error.message.contains("\n"))
        }
        XCTAssertThrowsError(try db.execute(cached: insert, [.integer(2), .null])) {
            XCTAssertEqual(($0 as? StorageError)?.kind, .constraint)
            XCTAssertEqual(($0 as? StorageError)?.sqlState, "23502")
        }
        XCTAssertThrowsError(try db.execute("SELEC 1")) {
            XCTAssertEqual(($0 as? StorageError)?.kind, .other)
            XCTAssertEqual(($0 as? StorageError)?.sqlState, "42601")
        }
        XCTAssertThrowsError(try db.rows("SELECT 1 / (v - 1) FROM generate_series(1, 3) v")) {
            XCTAssertEqual(($0 as? StorageError)?.sqlState, "22012", "an error while the rows stream")
        }
        XCTAssertThrowsError(try db.execute(insert, [.integer(3), .text("nul\u{0}in text")])) {
            XCTAssertEqual(($0 as? StorageError)?.sqlState, "22021", "text with a NUL is refused, not cut")
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM t"), 1)

        // A write in a READ ONLY transaction.
        try db.execute("BEGIN READ ONLY")
        XCTAssertThrowsError(try db.execute(insert, [.integer(4), .text("d")])) {
            XCTAssertEqual(($0 as? StorageError)?.kind, .readOnly)
            XCTAssertEqual(($0 as? StorageError)?.sqlState, "25006")
        }
        try db.execute("ROLLBACK")

        // A write as the reader role, which may only read.
        try db.execute("GRANT USAGE ON SCHEMA \(schema) TO bk_reader")
        try db.execute("GRANT SELECT ON t TO bk_reader")
        let reader = try PostgreSQLTestDatabase.connect(self, schema: schema, user: "bk_reader")
        XCTAssertEqual(try reader.string("SELECT v FROM t WHERE id = 1"), "a")
        XCTAssertThrowsError(try reader.execute(insert, [.integer(5), .text("e")])) {
            XCTAssertEqual(($0 as? StorageError)?.kind, .readOnly)
            XCTAssertEqual(($0 as? StorageError)?.sqlState, "42501")
        }
        XCTAssertThrowsError(try reader.execute("CREATE TABLE u (v int)")) {
            XCTAssertEqual(($0 as? StorageError)?.kind, .readOnly)
        }
    }

    func testConnectionFailuresAreKindedAndNeverShowThePassword() throws {
        _ = try PostgreSQLTestDatabase.requireConninfo()
        let host = try XCTUnwrap(PostgreSQLTestDatabase.host), port = try XCTUnwrap(PostgreSQLTestDatabase.port)
        func failure(_ conninfo: String) -> PostgreSQLConnectError? {
            do {
                _ = try PostgreSQLConnection(conninfo: conninfo)
                return nil
            } catch {
                return error
            }
        }
        let nowhere = failure("host=\(host)/nowhere port=\(port) user=bk_owner dbname=bk_test")
        XCTAssertEqual(nowhere?.kind, .unreachable, "\(String(describing: nowhere))")
        XCTAssertEqual(nowhere?.reason.contains("\n"), false)

        let missing = failure(try PostgreSQLTestDatabase.conninfo(user: "bk_owner", database: "no_such_books"))
        XCTAssertEqual(missing?.kind, .databaseMissing, "\(String(describing: missing))")
        XCTAssertEqual(missing?.reason.contains("database \"no_such_books\" does not exist"), true)

        let wrong = "Wr0ng-Passw0rd-81f2"
        for conninfo in [try PostgreSQLTestDatabase.conninfo(user: "bk_secret", password: wrong),
                         "postgresql://bk_secret:\(wrong)@/bk_test?host=\(host)&port=\(port)"] {
            let refused = failure(conninfo)
            XCTAssertEqual(refused?.kind, .authentication, "\(String(describing: refused))")
            for shown in [refused?.reason ?? "", "\(String(describing: refused))", String(reflecting: refused as Any),
                          refused.map { "\($0)" } ?? "", refused?.localizedDescription ?? ""] {
                XCTAssertFalse(shown.contains(wrong), shown)
                XCTAssertFalse(shown.contains("Passw0rd"), shown)
            }
        }
        let unsupplied = failure(try PostgreSQLTestDatabase.conninfo(user: "bk_secret"))
        XCTAssertEqual(unsupplied?.kind, .authentication, "\(String(describing: unsupplied))")

        let latin1 = failure(try PostgreSQLTestDatabase.conninfo(user: "bk_owner", database: "bk_latin1"))
        XCTAssertEqual(latin1?.kind, .notUTF8(encoding: "LATIN1"), "\(String(describing: latin1))")

        // The right password connects (the role is not otherwise refused).
        let secret = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.conninfo(user: "bk_secret", password: PostgreSQLTestDatabase.secretPassword))
        XCTAssertEqual(try secret.string("SELECT current_user"), "bk_secret")
        try secret.transaction(.deferred, readOnly: true) {
            XCTAssertEqual(try secret.string("SHOW TimeZone"), "UTC")
            XCTAssertEqual(try secret.string("SHOW DateStyle"), "ISO, MDY")
            XCTAssertEqual(try secret.string("SHOW client_encoding"), "UTF8")
            return .commit
        }
        secret.close()
        XCTAssertThrowsError(try secret.execute("SELECT 1"), "a closed connection runs nothing")
    }

    func testBulkInsertSplitsPastTheParameterLimit() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE b (x bigint, y text, z double precision)")
        let rows = 30_000  // 90,000 parameters
        var values: [StoredValue] = []
        for i in 0..<rows { values += [.integer(Int64(i)), i % 7 == 0 ? .null : .text("r\(i)"), .real(Double(i) / 4)] }
        try db.bulkInsert(into: "b", columns: ["x", "y", "z"], values: values, rows: rows)
        XCTAssertEqual(db.changes, rows)
        XCTAssertEqual(try db.int("SELECT count(*) FROM b"), rows)
        XCTAssertEqual(try db.value("SELECT sum(x) FROM b"), .integer(Int64(rows * (rows - 1) / 2)))
        XCTAssertEqual(try db.int("SELECT count(*) FROM b WHERE y IS NULL"), (rows + 6) / 7)
        XCTAssertEqual(try db.rows("SELECT x, y, z FROM b WHERE x IN (21844, 21847, 29999) ORDER BY x").map(\.values),
                       [[.integer(21844), .text("r21844"), .real(5461)], [.integer(21847), .null, .real(5461.75)],
                        [.integer(29999), .text("r29999"), .real(7499.75)]])
        // A table of one column: 65,535 rows per statement.
        try db.execute("CREATE TABLE one (x bigint)")
        try db.bulkInsert(into: "one", columns: ["x"], values: (0..<70_000).map { .integer(Int64($0)) }, rows: 70_000)
        XCTAssertEqual(try db.int("SELECT count(DISTINCT x) FROM one"), 70_000)
    }

    func testChangesLastInsertedIDAndTheSchemasTables() throws {
        let (schema, db) = try PostgreSQLTestDatabase.freshSchema(self)
        XCTAssertEqual(db.lastInsertedID, 0, "no identity drawn yet in this session")
        try db.execute("CREATE TABLE t (id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, v text, \"Odd \"\"name\" int)")
        try db.execute("INSERT INTO t (v) VALUES ('a'), ('b')")
        XCTAssertEqual(db.changes, 2)
        XCTAssertEqual(db.lastInsertedID, 2)
        try db.transaction(.immediate) {
            try db.execute("INSERT INTO t (v) VALUES ($1)", [.text("c")])
            XCTAssertEqual(db.lastInsertedID, 3)
            return .commit
        }
        _ = try db.rows("SELECT * FROM t")
        XCTAssertEqual(db.changes, 1, "a SELECT changes nothing")
        try db.execute("UPDATE t SET v = v || 'x'")
        XCTAssertEqual(db.changes, 3)
        try db.execute("DELETE FROM t WHERE id > 5")
        XCTAssertEqual(db.changes, 0)

        // In a new session, inside a transaction: lastval() not yet defined leaves the transaction usable.
        let other = try PostgreSQLTestDatabase.connect(self, schema: schema)
        try other.transaction(.deferred) {
            XCTAssertEqual(other.lastInsertedID, 0)
            XCTAssertEqual(try other.int("SELECT count(*) FROM t"), 3)
            return .commit
        }

        XCTAssertTrue(try db.tableExists("t"))
        XCTAssertFalse(try db.tableExists("T"))
        XCTAssertFalse(try db.tableExists("pg_class"), "only the connection's schema")
        XCTAssertEqual(try db.columns(of: "t"), ["id", "v", "Odd \"name"])
        try db.execute("ALTER TABLE t DROP COLUMN v")
        XCTAssertEqual(try db.columns(of: "t"), ["id", "Odd \"name"])
        XCTAssertEqual(try db.columns(of: "nothing"), [])
        try db.execute("CREATE VIEW w AS SELECT 1 AS one")
        XCTAssertFalse(try db.tableExists("w"), "a view is not a table")
    }

    func testStatementsStepSideBySideAndOneAbandonedMidwayLeavesTheConnectionUsable() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE n AS SELECT g::bigint AS v FROM generate_series(1, 5000) g")
        // Outer and inner statements interleaved, as SQLite allows: the outer one's rows are read ahead.
        let outer = try db.prepare("SELECT v FROM n WHERE v <= 100 ORDER BY v")
        let inner = try db.statement("SELECT v * 2 FROM n WHERE v = $1")
        var total: Int64 = 0
        while try outer.step() {
            inner.bind([outer.column(0)])
            XCTAssertTrue(try inner.step())
            total += inner.int64(0)!
            inner.reset()
        }
        outer.reset()
        XCTAssertEqual(total, 2 * 5050)

        // Abandoned after a few rows, outside a transaction (cancelled) and inside (read to its end).
        for inTransaction in [false, true] {
            if inTransaction { try db.execute("BEGIN") }
            let s = try db.prepare("SELECT v FROM n, generate_series(1, 100)")
            for _ in 0..<10 { XCTAssertTrue(try s.step()) }
            s.reset()
            XCTAssertEqual(try db.int("SELECT count(*) FROM n"), 5000)
            if inTransaction {
                XCTAssertTrue(db.isInsideTransaction)
                try db.execute("INSERT INTO n VALUES (0)")
                try db.execute("COMMIT")
            }
        }
        XCTAssertEqual(try db.int("SELECT count(*) FROM n"), 5001)

        // Stepped again after a reset, it runs again from the start with its bindings.
        let again = try db.prepare("SELECT count(*) FROM n WHERE v <= $1")
        again.bind([.integer(10)])
        for _ in 0..<2 {
            XCTAssertEqual(again.columnCount, 1)
            XCTAssertTrue(try again.step())
            XCTAssertEqual(again.int64(0), 11)
            again.reset()
        }
        // Its columns are known before it runs.
        let described = try db.prepare("SELECT v AS first, v + 1 AS second FROM n WHERE false")
        XCTAssertEqual(described.columnCount, 2)
        XCTAssertEqual(described.columnName(1), "second")
        XCTAssertFalse(try described.step())
        described.reset()
        let bound = try db.prepare("SELECT v AS only FROM n WHERE v = $1")
        bound.bind([.integer(3)])
        XCTAssertEqual(try bound.allRows().map(\.values), [[.integer(3)]])
    }
}
