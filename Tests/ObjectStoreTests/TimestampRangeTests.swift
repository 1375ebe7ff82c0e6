import LocalTime
import TestSupport
import XCTest
@testable import ObjectStore

/// The ends of the calendar (issue 25 §2): the store holds the years 1 to 9999 in UTC, and a local date or instant
/// past either end in some zone must be refused or give nothing, never trap. `migrate` from date to date-time of
/// 0001-01-01 in Berlin crashed (`Unexpectedly found nil` in `Timestamp.day`), because its local midnight is
/// 0000-12-31T23:00:00Z.
final class TimestampRangeTests: XCTestCase {
    static let zones = ["<+14>-14", "<-14>14", "<+1330>-13:30", "<-12>12", "Europe/Berlin", "Pacific/Kiritimati",
                        "America/Santiago", "Asia/Tokyo", "UTC"]

    /// The regression: 0001-01-01 east of Greenwich is no date-time (the dry run and the migration report it).
    func testMigratingTheFirstDayEastOfGreenwichToADateTimeIsRefusedNotACrash() throws {
        let berlin = try Zone(tz: "Europe/Berlin"), samoa = try Zone(tz: "<-14>14"), cet = try Zone(tz: "CET-1")
        XCTAssertNil(Value.date(Day.first).converted(to: .dateTime, zone: berlin))
        XCTAssertNil(Value.date(Day.first).converted(to: .dateTime, zone: try Zone(tz: "<+14>-14")))
        XCTAssertEqual(Value.date(Day.first).converted(to: .dateTime, zone: samoa),
                       .dateTime(Timestamp(secondsSinceEpoch: Timestamp.range.lowerBound + 14 * 3600)))
        XCTAssertEqual(Value.date(Day(year: 1, month: 1, day: 2)!).converted(to: .dateTime, zone: cet)?.description,
                       "0001-01-01T23:00:00Z")
        // Text with an offset that lands before year 1 in UTC is no stored value either.
        XCTAssertNil(Timestamp(iso: "0001-01-01T00:00:00+01:00"))
        XCTAssertNil(Timestamp(iso: "9999-12-31T23:59:59-00:01"))
        XCTAssertEqual(Timestamp(iso: "0001-01-01T01:00:00+01:00")?.secondsSinceEpoch, Timestamp.range.lowerBound)
    }

    /// Instants and local dates within three days of either end, in zones from -14 to +14 hours, through every
    /// conversion: the text (and reading it back), the UTC and local day, each period, and migration's conversions
    /// both ways. Whatever falls outside is nil or refused; nothing traps.
    func testInstantsAndDaysNearBothEndsConvertOrAreRefusedInEveryZone() throws {
        let seed = Trials.seed("BOOKKEEPER_RANGE_SEED", fixed: 25_02)
        var random = SeededGenerator(seed: seed)
        let trials = Trials.count("BOOKKEEPER_RANGE_TRIALS", quick: 300, stress: 5000)
        let zones = try TimestampRangeTests.zones.map { try Zone(tz: $0) }
        for _ in 0..<trials {
            let zone = zones[Int.random(in: 0..<zones.count, using: &random)]
            let end = Bool.random(using: &random) ? Timestamp.range.lowerBound : Timestamp.range.upperBound
            let t = end + Int64.random(in: -3 * 86_400 ... 3 * 86_400, using: &random)
            let inRange = Timestamp.range.contains(t)
            let stamp = Timestamp(secondsSinceEpoch: t)
            let text = stamp.description
            XCTAssertEqual(Timestamp(iso: text)?.secondsSinceEpoch, inRange ? t : nil, "\(t) \(text)")
            XCTAssertEqual(stamp.day != nil, inRange, "\(t)")
            if case .success(let parsed) = Timestamp.parse(text, in: zone) { XCTAssertEqual(parsed.secondsSinceEpoch, t) }
            else { XCTAssertFalse(inRange, "\(text) refused in \(zone)") }
            // The local date: nil exactly when the local time is outside the years 1 to 9999.
            let local = zone.localSeconds(at: t)
            let localInRange = (Timestamp.range.lowerBound...Timestamp.range.upperBound).contains(local)
            XCTAssertEqual(stamp.day(in: zone) != nil, localInRange, "\(text) in \(zone)")
            for unit in [PeriodUnit.year, .quarter, .month, .week] {
                let period = PredicateEvaluator.period(unit, of: .dateTime(stamp), in: zone)
                if !localInRange { XCTAssertEqual(period, .null, "\(unit) of \(text) in \(zone)") }
            }
            // Migration's conversions: a date-time to a date only at a local day's start; a date to its start.
            if let date = Value.dateTime(stamp).converted(to: .date, zone: zone), case .date(let d) = date {
                XCTAssertEqual(zone.startOfDay(days: Int64(d.daysSinceEpoch)), t)
            }
            let days = Int(zone.localDays(at: t))
            if let day = Day(daysSinceEpoch: days) {
                let start = zone.startOfDay(days: Int64(days))
                let converted = Value.date(day).converted(to: .dateTime, zone: zone)
                XCTAssertEqual(converted, Timestamp.range.contains(start) ? .dateTime(Timestamp(secondsSinceEpoch: start)) : nil,
                               "\(day) in \(zone)")
                // What a migration writes is the text of the converted value, which must read back.
                if case .dateTime(let s)? = converted { XCTAssertEqual(Timestamp(iso: s.description), s) }
            }
        }
        reportTrials("TimestampRangeTests", "\(trials) instants near year 1 and 9999 in ±14h zones (seed \(seed))")
    }
}

/// Offsets as RFC 3339 and ISO 8601 write them: `±HH:MM`, hours to 23 and minutes to 59, and `±HH:MM:SS` for local
/// mean time, which `fetch` writes. `+05:99` was read as 05:00 + 99 minutes, and `+99:59`, `+24:00` were accepted.
final class TimestampOffsetTests: XCTestCase {
    /// Generated offsets, in and out of range, with and without seconds: accepted exactly when hours < 24 and
    /// minutes and seconds < 60, as the instant the local time minus the offset is; refused otherwise with the offset.
    func testOffsetsBeyondTwentyThreeHoursOrFiftyNineMinutesAreRefused() throws {
        let seed = Trials.seed("BOOKKEEPER_OFFSET_SEED", fixed: 25_03)
        var random = SeededGenerator(seed: seed)
        let trials = Trials.count("BOOKKEEPER_OFFSET_TRIALS", quick: 500, stress: 20_000)
        let zone = try Zone(tz: "Europe/Berlin")
        let base = try XCTUnwrap(Timestamp(iso: "2024-07-01T12:00:00Z")).secondsSinceEpoch
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        for _ in 0..<trials {
            let sign = Bool.random(using: &random) ? "+" : "-"
            let hh = Int.random(in: 0...99, using: &random), mm = Int.random(in: 0...99, using: &random)
            let ss: Int? = Bool.random(using: &random) ? Int.random(in: 0...99, using: &random) : nil
            let offset = sign + two(hh) + ":" + two(mm) + (ss.map { ":" + two($0) } ?? "")
            let text = "2024-07-01T12:00:00" + offset
            let valid = hh < 24 && mm < 60 && (ss ?? 0) < 60
            switch Timestamp.parse(text, in: zone) {
            case .success(let t):
                XCTAssertTrue(valid, "\(text) accepted as \(t)")
                let seconds = Int64((hh * 3600 + mm * 60 + (ss ?? 0)) * (sign == "-" ? -1 : 1))
                XCTAssertEqual(t.secondsSinceEpoch, base - seconds, text)
                XCTAssertEqual(Timestamp(iso: text), t)
            case .failure(let problem):
                XCTAssertFalse(valid, "\(text) refused: \(problem.reason)")
                XCTAssertEqual(problem, .offsetOutOfRange(offset), text)
                XCTAssertNil(Timestamp(iso: text))
            }
        }
        reportTrials("TimestampOffsetTests", "\(trials) generated offsets (seed \(seed))")
    }
}

/// The busy message named the holder's clock time alone (`since 02:00:01`), in the writer's TZ, which a reader in
/// another zone (cron in UTC, a user in Berlin) reads as their own: now the time has its offset.
final class ActivityTimeTests: XCTestCase {
    func testTheBusyMessageNamesTheTimeWithItsOffset() throws {
        let t = try XCTUnwrap(Timestamp(iso: "2024-07-01T00:00:01Z")).secondsSinceEpoch
        for (tz, expected) in [("Europe/Berlin", "02:00:01+02:00"), ("UTC", "00:00:01+00:00"), ("America/New_York", "20:00:01-04:00"),
                               ("Asia/Kolkata", "05:30:01+05:30"), ("<-013015>1:30:15", "22:29:46-01:30:15")] {
            XCTAssertEqual(Store.activityTime(t, in: try Zone(tz: tz)), expected, tz)
        }
    }
}
