import Foundation
import TestSupport
import XCTest

/// A date-time's day, month, quarter, year and ISO week in `fetch` columns, `fetch --group` and a report's groups
/// and filled periods are those of the local time the same output shows (issue 25 §2). They were taken from the
/// stored UTC text: in Berlin `2024-03-01 00:30` was shown beside `month(at)` 2024-02, and counted in February.
final class LocalPeriodCommandTests: ZonedCommandTestCase {
    static let zones = [
        "Europe/Berlin", "America/New_York", "Pacific/Auckland", "EST5EDT,M3.2.0,M11.1.0", "Asia/Kathmandu",
        "America/Santiago",
    ]

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", Self.readingsModel)
        dir.write("weekly.yaml", """
            title: Weekly
            entity: Reading
            group: [week(at)]
            sort: week(at)
            columns:
              - { key: week(at), title: Week }
              - { key: count, title: Readings }
            """)
    }

    /// glibc's local date and ISO week of each instant in `tz` (`date -f`).
    func glibc(_ tz: String, _ instants: [Int64]) throws -> [(day: String, week: String)] {
        dir.write("instants", instants.map { "@\($0)\n" }.joined())
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["-f", dir.file("instants"), "+%F %G-W%V"]
        process.environment = ["TZ": tz]
        let r = collect(process)
        let lines = r.stdout.split(separator: "\n")
        XCTAssertEqual(lines.count, instants.count, "\(r)")
        return lines.map { ($0.split(separator: " ")[0].description, $0.split(separator: " ")[1].description) }
    }

    /// Instants at and around local midnights (a second either side, and within two hours), and across the clocks'
    /// changes, in years 1990 to 2035, as glibc reads the zone.
    func instants(_ tz: String, count: Int, using rng: inout SeededGenerator) throws -> [Int64] {
        var days: [Int64] = []
        for _ in 0..<count { days.append(Int64(7305 + rng.next(upTo: 16_800))) }   // 1990 … 2035
        // Local midnights by glibc: `date -d 'YYYY-MM-DD'` is the first instant of that day (01:00 when the clocks skip midnight).
        dir.write("days", days.map { Self.isoDay($0) + "\n" }.joined())
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["-f", dir.file("days"), "+%s"]
        process.environment = ["TZ": tz]
        // `date -d` calls some days whose midnight the clocks skip invalid (Santiago, seed 4242: 5 of 600) and
        // writes no line for them; those days are left out, the others keep their instants.
        let midnights = collect(process).stdout.split(separator: "\n").compactMap { Int64($0) }
        XCTAssertGreaterThan(midnights.count, count * 9 / 10, "date read too few days in \(tz)")
        var result: [Int64] = []
        for m in midnights {
            switch rng.next(upTo: 4) {
            case 0: result.append(m - 1)
            case 1: result.append(m)
            default: result.append(m + Int64(rng.next(upTo: 14_401)) - 7200)
            }
        }
        return result
    }

    static func isoDay(_ days: Int64) -> String {
        let f = DateFormatter()
        f.locale = Locale(identifier: "en_US_POSIX")
        f.timeZone = TimeZone(identifier: "UTC")
        f.dateFormat = "yyyy-MM-dd"
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(days * 86_400)))
    }

    static func utcText(_ t: Int64) -> String {
        let f = ISO8601DateFormatter()
        return f.string(from: Date(timeIntervalSince1970: TimeInterval(t)))
    }

    /// Each instant's periods in `fetch` are those of the local date `fetch` shows it with, and of glibc's date;
    /// `fetch --group` counts and the report's groups count them in those periods.
    func testADateTimeNearLocalMidnightIsGroupedInTheDayItIsShownIn() throws {
        let count = Trials.count("BOOKKEEPER_LOCAL_PERIOD_CLI_TRIALS", quick: 25, stress: 600)
        let seed = Trials.seed(fixed: 25_03)
        var rng = SeededGenerator(seed: seed)
        for tz in Self.zones {
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
            _ = okIn(tz, "init")
            let instants = try instants(tz, count: count, using: &rng)
            let reference = try glibc(tz, instants)
            var csv = "name,at\n"
            for (k, t) in instants.enumerated() { csv += "r\(k),\(Self.utcText(t))\n" }
            dir.write("readings.csv", csv)
            _ = okIn(tz, "import", "Reading", "readings.csv")

            let fetched = okIn(tz, "fetch", "Reading", "--columns", "name,at,month(at),quarter(at),year(at),week(at)", "--format", "csv")
            var rows: [String: [String]] = [:]
            for line in fetched.split(separator: "\n").dropFirst() {
                let cells = line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
                rows[cells[0]] = cells
            }
            var months: [String: Int] = [:], weeks: [String: Int] = [:], quarters: [String: Int] = [:], years: [String: Int] = [:]
            for (k, t) in instants.enumerated() {
                let (day, week) = reference[k]
                let month = Int(day.dropFirst(5).prefix(2))!
                let quarter = "\(day.prefix(4))-Q\((month + 2) / 3)"
                let year = String(Int(day.prefix(4))!)
                months[String(day.prefix(7)), default: 0] += 1
                weeks[week, default: 0] += 1
                quarters[quarter, default: 0] += 1
                years[year, default: 0] += 1
                guard let row = rows["r\(k)"] else { XCTFail("TZ=\(tz): r\(k) not fetched:\n\(fetched)"); continue }
                let what = "TZ=\(tz) \(Self.utcText(t)) (date says \(day)), seed \(seed): \(row)"
                XCTAssertEqual(String(row[1].prefix(10)), day, "shown on its local date: \(what)")
                XCTAssertEqual(row[2], String(row[1].prefix(7)), "month(at) is the month it is shown in: \(what)")
                XCTAssertEqual([row[2], row[3], row[4], row[5]], [String(day.prefix(7)), quarter, year, week], what)
            }
            for (unit, expected) in [("month", months), ("quarter", quarters), ("year", years), ("week", weeks)] {
                let grouped = okIn(tz, "fetch", "Reading", "--group", "\(unit)(at)", "--columns", "\(unit)(at),count", "--format", "csv")
                var counts: [String: Int] = [:]
                for line in grouped.split(separator: "\n").dropFirst() {
                    let cells = line.split(separator: ",")
                    counts[String(cells[0])] = Int(cells[1])
                }
                XCTAssertEqual(counts, expected, "TZ=\(tz) fetch --group \(unit)(at), seed \(seed)")
            }
            // The report fills the weeks without readings with zeros: those with readings count as date says.
            let report = okIn(tz, "report", "./weekly.yaml", "--format", "csv")
            var reported: [String: Int] = [:]
            for line in report.split(separator: "\n").dropFirst() {
                let cells = line.split(separator: ",")
                if let n = Int(cells[1]), n > 0 { reported[String(cells[0])] = n }
            }
            XCTAssertEqual(reported, weeks, "TZ=\(tz) report grouped by week(at), seed \(seed)")
        }
        reportTrials("local periods (CLI)", "\(count) instants in each of \(Self.zones.count) zones, seed \(seed)")
    }
}
