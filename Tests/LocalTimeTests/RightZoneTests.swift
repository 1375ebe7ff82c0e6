import Foundation
import Glibc
import TestSupport
import XCTest
@testable import LocalTime

/// The `right/` zones, whose zoneinfo files count leap seconds: their transition times were read as POSIX instants,
/// so every change of the clocks came 27 seconds late (`TZ=right/Europe/Berlin` stored 02:00:10 on 2024-03-31,
/// which the clocks skip, as 01:00:10Z, and said they skip "from 02:00:27 to 03:00:27"). Now each transition is
/// moved back by the leap correction in effect then.
final class RightZoneTests: XCTestCase {
    static let zones = ["Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "America/Santiago", "Asia/Tokyo"]

    /// Against glibc, which keeps the leap-counting time_t of these files: for instants t within a minute of each
    /// transition from 1972 to 2037, glibc's offset and abbreviation under right/X at the leap-counting T of t (the
    /// one right/UTC shows as t's UTC time) equal ours at t; and right/X resolves local times as X does.
    func testRightZonesChangeTheClocksAtTheSameInstantsAsTheirPosixZones() throws {
        let seed = Trials.seed(fixed: 2508)
        var g = SeededGenerator(seed: seed)
        let saved = getenv("TZ").map { String(cString: $0) }
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        var compared = 0
        for name in RightZoneTests.zones {
            let plain = try Zone(tz: name), right = try Zone(tz: "right/" + name)
            guard case .file(let file) = plain.rules, case .file(let rightFile) = right.rules else {
                return XCTFail("\(name) is not a file")
            }
            let rightEnd = rightFile.footer == nil ? rightFile.transitions.last ?? 0 : .max
            var points: [Int64] = []
            file.breakpoints(in: 63_072_000...2_114_380_800, into: &points)      // 1972 to 2037
            let instants = points.flatMap { p in (0..<3).map { _ in p + Int64(g.next(upTo: 121)) - 60 } }
            // Pass 1, under right/UTC: the leap-counting T whose UTC time is t (never inside a leap second).
            setenv("TZ", "right/UTC", 1)
            tzset()
            var leapCounting: [(t: Int64, T: Int64)] = []
            for t in instants {
                for c in Int64(0)...40 {
                    var time = time_t(t + c)
                    var parts = tm()
                    guard gmtime_or_local(&time, &parts), parts.tm_sec < 60 else { continue }
                    let days = CivilCalendar.days(year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday))
                    let posix = Int64(days) * 86_400 + Int64(parts.tm_hour * 3600 + parts.tm_min * 60 + parts.tm_sec)
                    if posix == t { leapCounting.append((t, t + c)); break }
                }
            }
            XCTAssertEqual(leapCounting.count, instants.count, name)
            // Pass 2, under right/X: glibc's offset and abbreviation at T against ours at t.
            setenv("TZ", "right/" + name, 1)
            tzset()
            for (t, leapT) in leapCounting {
                let expected = ZoneDifferentialTests.glibc(leapT)
                XCTAssertEqual(right.offset(at: t), expected.offset, "right/\(name) at \(t)")
                XCTAssertEqual(right.abbreviation(at: t), expected.abbreviation, "right/\(name) at \(t)")
                compared += 1
                // tzdata's right/ files stop at the leap-second table's expiry, without a rule after it: from their
                // last transition on, its offset lasts (in glibc too). Before, they change with their POSIX zone.
                guard t < rightEnd - 86_400 else { continue }
                XCTAssertEqual(right.offset(at: t), plain.offset(at: t), "right/\(name) and \(name) at \(t)")
                let local = plain.localSeconds(at: t)
                XCTAssertEqual(right.resolve(localSeconds: local), plain.resolve(localSeconds: local), "\(name) local \(local)")
            }
        }
        reportTrials("right zones", "\(compared) instants near transitions in \(RightZoneTests.zones.count) right/ zones (seed \(seed))")
    }

    /// localtime_r under the TZ last set (right/UTC shows UTC times, leap seconds as :60).
    private func gmtime_or_local(_ time: inout time_t, _ parts: inout tm) -> Bool { localtime_r(&time, &parts) != nil }
}
