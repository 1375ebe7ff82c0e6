import Foundation
import GRDB
import LocalTime
import TestSupport
import XCTest
@testable import ObjectStore

/// The periods of a date-time (`month(at)`, `quarter(at)`, `year(at)`, `week(at)`) are those of its local date in
/// the zone outputs show it in, in SQL (bk_localday) and in the evaluator alike, and that date is the one glibc's
/// `date` gives — for instants around local midnights and the clocks' changes, in zones east and west, with half
/// and three-quarter hour offsets, a POSIX string, and a zone whose midnight the clocks skip. They were the periods
/// of the UTC date the stored text begins with: 00:30 on 1 March in Berlin was in February.
final class LocalPeriodDifferentialTests: XCTestCase {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Pacific/Auckland", "EST5EDT,M3.2.0,M11.1.0",
        "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0", "Asia/Kathmandu", "America/Santiago",
    ]

    /// The SQL of a period column as the compiler writes it, for a value named `t`.
    func periodSQL(_ unit: PeriodUnit) throws -> String {
        let plan = try FetchPlan(ObjectFetchRequest(entity: "Book"), model: TestModel.model, columns: ["\(unit.rawValue)(checked)"])
        let select = plan.sql(.columns, dialect: SQLiteDialect()).sql
        return String(select.dropFirst("SELECT ".count)).components(separatedBy: " FROM ")[0]
            .replacingOccurrences(of: #"t0."checked""#, with: "t")
    }

    func testThePeriodsOfADateTimeAreThoseOfItsLocalDateInSQLAndTheEvaluator() throws {
        let count = Trials.count("BOOKKEEPER_LOCAL_PERIOD_TRIALS", quick: 150, stress: 5_000)
        let seed = Trials.seed(fixed: 25_02)
        var rng = SeededGenerator(seed: seed)
        let units = PeriodUnit.allCases
        let expressions = try units.map(periodSQL)
        for (unit, sql) in zip(units, expressions) {
            XCTAssertTrue(sql.contains("bk_localday(t)"), "\(unit): \(sql)")
        }
        var checked = 0
        for tz in Self.zones {
            let zone = try Zone(tz: tz)
            let instants = Self.instants(near: zone, count: count, using: &rng)
            let reference = try Self.glibcDays(tz, instants)
            let queue = try DatabaseQueue()
            try queue.write { db in
                StoreFunctions.register(in: db, zone: zone)
                try db.execute(sql: "CREATE TABLE v(k INTEGER PRIMARY KEY, t TEXT)")
                for (k, t) in instants.enumerated() {
                    try db.execute(sql: "INSERT INTO v VALUES (?, ?)", arguments: [k, Timestamp(secondsSinceEpoch: t).description])
                }
            }
            let rows = try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT \(expressions.joined(separator: ", ")) FROM v ORDER BY k")
            }
            for (k, t) in instants.enumerated() {
                let stored = Timestamp(secondsSinceEpoch: t)
                let (day, isoWeek) = reference[k]
                let month = Int(day.dropFirst(5).prefix(2))!
                let expected: [PeriodUnit: String] = [
                    .month: String(day.prefix(7)), .year: String(Int(day.prefix(4))!),
                    .quarter: "\(day.prefix(4))-Q\((month + 2) / 3)", .week: isoWeek,
                ]
                XCTAssertEqual(stored.day(in: zone)?.description, day, "TZ=\(tz) \(stored): its local date (seed \(seed))")
                for (i, unit) in units.enumerated() {
                    let sql: DatabaseValue = rows[k][i]
                    let sqlText: String
                    switch sql.storage {
                    case .int64(let n): sqlText = String(n)
                    case .string(let text): sqlText = text
                    default: sqlText = "\(sql)"
                    }
                    let memory = PredicateEvaluator.period(unit, of: .dateTime(stored), in: zone).description
                    XCTAssertEqual(sqlText, expected[unit], "TZ=\(tz) \(unit)(\(stored)) in SQL, date says \(day) (seed \(seed))")
                    XCTAssertEqual(memory, expected[unit], "TZ=\(tz) \(unit)(\(stored)) in the evaluator (seed \(seed))")
                    checked += 1
                }
            }
        }
        reportTrials("local periods", "\(checked) periods of \(count) instants in each of \(Self.zones.count) zones agree with date (seed \(seed))")
    }

    /// A date outside the years 1 to 9999 has no period, in SQL as in the evaluator: NULL.
    func testADateTimeWhoseLocalDateIsBeforeYear1HasNoPeriodInEither() throws {
        let zone = try Zone(tz: "America/New_York")
        let first = Timestamp(secondsSinceEpoch: Timestamp.range.lowerBound)
        let queue = try DatabaseQueue()
        queue.inDatabase { db in StoreFunctions.register(in: db, zone: zone) }
        for unit in PeriodUnit.allCases {
            let sql = try queue.read { db in
                try DatabaseValue.fetchOne(db, sql: "SELECT \(try periodSQL(unit)) FROM (SELECT ? AS t)", arguments: [first.description])
            }
            XCTAssertTrue(sql?.isNull ?? true, "\(unit) in SQL: \(String(describing: sql))")
            XCTAssertEqual(PredicateEvaluator.period(unit, of: .dateTime(first), in: zone), .null)
        }
    }

    /// bk_localday depends on the process's zone, which another process may not share: it is kept out of a
    /// store's schema (an index on it would be wrong in another zone).
    func testTheLocalDayFunctionCannotBeUsedInTheSchema() throws {
        let queue = try DatabaseQueue()
        try queue.inDatabase { db in
            StoreFunctions.register(in: db, zone: .utc)
            try db.execute(sql: "CREATE TABLE v(t TEXT)")
            XCTAssertThrowsError(try db.execute(sql: "CREATE INDEX i ON v(bk_localday(t))"))
            XCTAssertEqual(try String.fetchOne(db, sql: "SELECT bk_localday('2024-03-01T00:30:00Z')"), "2024-03-01")
            XCTAssertNil(try String.fetchOne(db, sql: "SELECT bk_localday('not a time')"))
        }
    }

    /// Instants around local midnights (within two hours, and the second either side) and around the clocks'
    /// changes (within a day) in years 1980 to 2037.
    static func instants(near zone: Zone, count: Int, using rng: inout SeededGenerator) -> [Int64] {
        var result: [Int64] = []
        var changes: [Int: [Int64]] = [:]
        while result.count < count {
            let year = 1980 + rng.next(upTo: 58)
            let yearStart = Int64(Day(year: year, month: 1, day: 1)!.daysSinceEpoch) * 86_400
            switch rng.next(upTo: 3) {
            case 0:
                let day = yearStart / 86_400 + Int64(rng.next(upTo: 365))
                let midnight = zone.startOfDay(days: day)
                result += [midnight - 1, midnight, midnight + Int64(rng.next(upTo: 14_401) - 7200)]
            default:
                if changes[year] == nil {
                    var found: [Int64] = []
                    var t = yearStart - 86_400
                    while t < yearStart + 367 * 86_400 {
                        if zone.offset(at: t) != zone.offset(at: t + 900) { found.append(t) }
                        t += 900
                    }
                    changes[year] = found
                }
                guard let change = changes[year]!.isEmpty ? nil : rng.pick(changes[year]!) else { continue }
                result.append(change + Int64(rng.next(upTo: 180_001) - 90_000))
            }
        }
        return result
    }

    /// glibc's local date (`%F`) and ISO week (`%G-W%V`) of each instant, by `TZ=tz date -f`.
    static func glibcDays(_ tz: String, _ instants: [Int64]) throws -> [(String, String)] {
        let dir = TemporaryDirectory()
        let input = dir.file("instants")
        try instants.map { "@\($0)\n" }.joined().write(toFile: input, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["-f", input, "+%F %G-W%V"]
        process.environment = ["TZ": tz]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let lines = String(decoding: data, as: UTF8.self).split(separator: "\n")
        XCTAssertEqual(lines.count, instants.count, "date -f gave a line per instant")
        return lines.map { line in
            let parts = line.split(separator: " ")
            return (String(parts[0]), String(parts[1]))
        }
    }
}
