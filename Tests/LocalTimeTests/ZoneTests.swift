import Foundation
import Glibc
import TestSupport
import XCTest
@testable import LocalTime

/// The zone against glibc: for random instants and every form TZ takes (a name, `:name`, a zoneinfo path, POSIX
/// strings with ordinary and odd rules, generated ones), the offset and the abbreviation equal what glibc's
/// localtime_r gives under the same TZ; and local times map back to exactly the instants that have them.
final class ZoneDifferentialTests: XCTestCase {
    static let named = [
        "America/New_York", ":America/New_York", "/usr/share/zoneinfo/America/New_York", "Europe/Berlin", ":Europe/Dublin",
        "Australia/Lord_Howe", "Africa/Casablanca", "America/Sao_Paulo", "Pacific/Chatham", "Asia/Kolkata",
        "Antarctica/Troll", "America/Santiago", "Asia/Beirut", "Pacific/Apia", "Europe/London", "UTC", "EST5EDT", "US/Eastern",
        "posix/Europe/Paris",
    ]
    static let posix = [
        "EST5EDT,M3.2.0,M11.1.0", "<+03>-3", "CET-1CEST,M3.5.0,M10.5.0/3", "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1",
        "AEST-10AEDT,M10.1.0,M4.1.0/3", "EST5EDT,0/0,J365/25", "XXX3YYY2,J60/1:30,J300/25:15:07",
        "ABC-5:45DEF-6:45:30,100/167,M12.5.6/-167", "<+0330>-3:30<+0430>,J79/24,J263/24", "IST-2IDT,M3.4.4/26,M10.5.0",
        "WART4WARST,J1/0,J365/25", "NZST-12NZDT,M9.5.0,M4.1.0/3", "<-00>0<+01>-1,M2.5.6/23:59:59,J59/0",
        "AAA+24BBB-24,M1.1.0,M12.5.6", "UTC0",
    ]

    /// A POSIX TZ string with random offsets and rules of every kind.
    static func randomRule(_ g: inout SeededGenerator) -> String {
        func offset(_ limit: Int) -> String {
            let sign = g.pick(["", "+", "-"])
            var text = sign + String(g.next(upTo: limit + 1))
            if g.next(upTo: 2) == 0 { text += String(format: ":%02d", g.next(upTo: 60)) }
            if g.next(upTo: 3) == 0 { text += String(format: ":%02d", g.next(upTo: 60)) }
            return text
        }
        func rule() -> String {
            var text: String
            switch g.next(upTo: 3) {
            case 0: text = "J\(1 + g.next(upTo: 365))"
            case 1: text = "\(g.next(upTo: 366))"
            default: text = "M\(1 + g.next(upTo: 12)).\(1 + g.next(upTo: 5)).\(g.next(upTo: 7))"
            }
            if g.next(upTo: 2) == 0 { text += "/" + offset(167) }
            return text
        }
        let names = ["AAA", "BBB", "<+05>", "<-0130>", "<X1Y>", "ZZZZ"]
        var text = g.pick(names) + offset(24) + g.pick(names)
        if g.next(upTo: 2) == 0 { text += offset(24) }
        return text + "," + rule() + "," + rule()
    }

    /// glibc's offset and abbreviation at `t` under the TZ last set.
    static func glibc(_ t: Int64) -> (offset: Int, abbreviation: String) {
        var time = time_t(t)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return (Int.min, "") }
        return (parts.tm_gmtoff, parts.tm_zone.map { String(cString: $0) } ?? "")
    }

    func compare(_ tz: String, from: Int64, to: Int64, count: Int, _ g: inout SeededGenerator) throws {
        let zone = try Zone(tz: tz)
        setenv("TZ", tz, 1)
        tzset()
        var instants: [Int64] = (0..<count).map { _ in from + Int64(g.next() % UInt64(to - from)) }
        // Around each change too, where a rule's arithmetic shows.
        var points: [Int64] = []
        switch zone.rules {
        case .posix(let rule): rule.breakpoints(in: from...to, into: &points)
        case .file(let file): file.breakpoints(in: from...to, into: &points)
        case .fixed: break
        }
        for p in points.prefix(400) { instants += [p - 1, p, p + 1] }
        for t in instants where t >= from {
            let expected = ZoneDifferentialTests.glibc(t)
            XCTAssertEqual(zone.offset(at: t), expected.offset, "offset of TZ=\(tz) at \(t)")
            XCTAssertEqual(zone.abbreviation(at: t), expected.abbreviation, "abbreviation of TZ=\(tz) at \(t)")
            // The local time maps back to the instant, and whatever it maps to has that local time.
            let local = zone.localSeconds(at: t)
            switch zone.resolve(localSeconds: local) {
            case .unique(let u): XCTAssertEqual(u, t, "TZ=\(tz) local \(local)")
            case .ambiguous(let a, let b):
                XCTAssertTrue(a == t || b == t, "TZ=\(tz) at \(t): \(a), \(b)")
                XCTAssertLessThan(a, b)
                XCTAssertEqual(zone.localSeconds(at: a), local)
                XCTAssertEqual(zone.localSeconds(at: b), local)
            case .skipped: XCTFail("TZ=\(tz): the local time of \(t) is said not to exist")
            }
        }
    }

    // 1970 on for POSIX strings: glibc computes the changes of earlier years as if in 1970 (POSIXRule.swift).
    static let since1970: Int64 = 0
    static let until2100: Int64 = 4_102_444_800
    static let since1850: Int64 = -3_786_825_600

    func testOffsetsAndAbbreviationsEqualGlibcs() throws {
        let saved = getenv("TZ").map { String(cString: $0) }
        defer {
            if let saved { setenv("TZ", saved, 1) } else { unsetenv("TZ") }
            tzset()
        }
        let seed = Trials.seed(fixed: 2025)
        let generated = Trials.count("BOOKKEEPER_ZONE_RULES", quick: 40, stress: 2000)
        let perZone = Trials.count("BOOKKEEPER_ZONE_INSTANTS", quick: 300, stress: 3000)
        var g = SeededGenerator(seed: seed)
        for tz in ZoneDifferentialTests.named {
            try compare(tz, from: ZoneDifferentialTests.since1850, to: ZoneDifferentialTests.until2100 * 2, count: perZone, &g)
        }
        for tz in ZoneDifferentialTests.posix {
            try compare(tz, from: ZoneDifferentialTests.since1970, to: ZoneDifferentialTests.until2100, count: perZone, &g)
        }
        var rules: [String] = []
        for _ in 0..<generated {
            let tz = ZoneDifferentialTests.randomRule(&g)
            rules.append(tz)
            try compare(tz, from: ZoneDifferentialTests.since1970, to: ZoneDifferentialTests.until2100, count: perZone / 4, &g)
        }
        reportTrials("zone differential", "\(ZoneDifferentialTests.named.count) named zones, "
                     + "\(ZoneDifferentialTests.posix.count + generated) POSIX strings (e.g. \(rules.first ?? "")), seed \(seed)")
    }

    /// Every zone file of the system reads, and its footer (what follows the last transition) parses.
    func testEveryZoneFileOfTheSystemReads() throws {
        let root = "/usr/share/zoneinfo"
        guard let walker = FileManager.default.enumerator(atPath: root) else { throw XCTSkip("no \(root)") }
        var read = 0
        for case let relative as String in walker {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let head = FileHandle(forReadingAtPath: path)?.readData(ofLength: 4), head == Data("TZif".utf8) else { continue }
            let file = try ZoneFile.read(path: path)
            if let footer = file.footerText { XCTAssertNotNil(file.footer, "\(relative): footer \(footer) does not parse") }
            read += 1
        }
        XCTAssertGreaterThan(read, 300)
    }
}

/// The forms TZ takes, and the names outputs call them by.
final class ZoneNameTests: XCTestCase {
    func testTZWithAColonIsHonoured() throws {
        let zone = try Zone(tz: ":America/New_York")
        XCTAssertEqual(zone.name, "America/New_York")
        XCTAssertEqual(zone.offset(at: 1_719_835_200), -4 * 3600)     // 2024-07-01T12:00:00Z
    }

    func testTZAsAZoneinfoPathIsHonoured() throws {
        let zone = try Zone(tz: "/usr/share/zoneinfo/America/New_York")
        XCTAssertEqual(zone.name, "America/New_York")
        XCTAssertEqual(zone.offset(at: 1_704_110_400), -5 * 3600)     // 2024-01-01T12:00:00Z
    }

    func testPOSIXTZStringIsHonoured() throws {
        let us = try Zone(tz: "EST5EDT,M3.2.0,M11.1.0")
        XCTAssertEqual(us.name, "EST5EDT,M3.2.0,M11.1.0")
        XCTAssertEqual(us.offset(at: 1_719_835_200), -4 * 3600)
        XCTAssertEqual(us.abbreviation(at: 1_704_110_400), "EST")
        let moscow = try Zone(tz: "<+03>-3")
        XCTAssertEqual(moscow.offset(at: 0), 3 * 3600)
        XCTAssertEqual(moscow.abbreviation(at: 0), "+03")
        let europe = try Zone(tz: "CET-1CEST,M3.5.0,M10.5.0/3")
        XCTAssertEqual(europe.offset(at: 1_719_835_200), 2 * 3600)
    }

    func testUTCAndItsAliasesAreCalledUTC() throws {
        for tz in ["", ":", "UTC", "Etc/UTC", ":GMT", "/usr/share/zoneinfo/Etc/UTC", "UTC0"] {
            XCTAssertEqual(try Zone(tz: tz).name, "UTC", tz)
        }
    }

    func testAnUnknownTZIsRefused() throws {
        for (tz, reason) in [
            ("Bogus/Zone", #"there is no file /usr/share/zoneinfo/Bogus/Zone, and it is not a POSIX TZ string: an offset (as in EST5 or <+03>-3) must follow Bogus, not "/Zone""#),
            ("garbage!!", #"there is no file /usr/share/zoneinfo/garbage!!, and it is not a POSIX TZ string: an offset (as in EST5 or <+03>-3) must follow garbage, not "!!""#),
            ("/etc/passwd", "/etc/passwd is not a zoneinfo (TZif) file"),
            ("/usr/share/zoneinfo/zone.tab", "/usr/share/zoneinfo/zone.tab is not a zoneinfo (TZif) file"),
            ("/usr/share/zoneinfo/America", "/usr/share/zoneinfo/America is a directory, not a zoneinfo file"),
            ("CET-1CEST", "there is no file /usr/share/zoneinfo/CET-1CEST, and it is not a POSIX TZ string: it names a daylight saving time (CEST) but not when it starts and ends: add the two rules, as in CET-1CEST,M3.5.0,M10.5.0/3 (the EU) or CET-1CEST,M3.2.0,M11.1.0 (the US)"),
            ("EST5EDT,M3.2.0", "there is no file /usr/share/zoneinfo/EST5EDT,M3.2.0, and it is not a POSIX TZ string: it gives when daylight saving time starts but not when it ends (a second rule)"),
            ("EST5EDT,M3.2.0,M11.1.0x", #"there is no file /usr/share/zoneinfo/EST5EDT,M3.2.0,M11.1.0x, and it is not a POSIX TZ string: unexpected "x" after the second rule"#),
            ("EST25", "there is no file /usr/share/zoneinfo/EST25, and it is not a POSIX TZ string: 25 hours is more than 24"),
        ] {
            XCTAssertThrowsError(try Zone(tz: tz), tz) { error in
                XCTAssertEqual((error as? ZoneError)?.reason, reason, tz)
                XCTAssertFalse("\(error)".contains("\n"))
            }
        }
        XCTAssertThrowsError(try Zone(tz: "a\nb")) { error in XCTAssertFalse("\(error)".contains("\n")) }
    }

    /// A spring-forward gap has no instant, a fall-back hour two: the earlier is taken.
    func testGapsAndFolds() throws {
        let berlin = try Zone(tz: "Europe/Berlin")
        let gap = Int64(CivilCalendar.days(year: 2024, month: 3, day: 31)) * 86_400 + 2 * 3600 + 30 * 60
        guard case .skipped(let from, let to, _) = berlin.resolve(localSeconds: gap) else { return XCTFail() }
        XCTAssertEqual(berlin.skippedReason(from: from, to: to), "does not exist in Europe/Berlin: the clocks skip from 02:00 to 03:00 on 2024-03-31")
        XCTAssertNil(berlin.instant(localSeconds: gap))
        let fold = Int64(CivilCalendar.days(year: 2024, month: 10, day: 27)) * 86_400 + 2 * 3600 + 30 * 60
        XCTAssertEqual(berlin.resolve(localSeconds: fold), .ambiguous(earlier: fold - 7200, later: fold - 3600))
        XCTAssertEqual(berlin.instant(localSeconds: fold), fold - 7200)
        // Santiago skips midnight: the day starts at 01:00.
        let santiago = try Zone(tz: "America/Santiago")
        let day = Int64(CivilCalendar.days(year: 2024, month: 9, day: 8))
        XCTAssertEqual(santiago.localSeconds(at: santiago.startOfDay(days: day)), day * 86_400 + 3600)
    }
}

extension ZoneNameTests {
    /// `TZ=/usr/share/zoneinfo/../zoneinfo/Asia/Tokyo` was shown as `../zoneinfo/Asia/Tokyo`, and with `TZDIR=/x/`
    /// (a trailing slash) a zone's path was shown in full: the path is now made plain before its name is taken.
    func testAZonePathIsNamedAfterItsPlainForm() throws {
        for (tz, directory, name) in [
            ("/usr/share/zoneinfo/../zoneinfo/Asia/Tokyo", nil, "Asia/Tokyo"),
            ("/usr/share/zoneinfo/./Asia//Tokyo", nil, "Asia/Tokyo"),
            ("/usr/share//zoneinfo/Asia/../Asia/Tokyo", nil, "Asia/Tokyo"),
            ("/usr/share/zoneinfo/Asia/Tokyo", "/usr/share/zoneinfo/", "Asia/Tokyo"),
            ("/usr/share/zoneinfo/Asia/Tokyo", "/usr/share/zoneinfo//", "Asia/Tokyo"),
            ("Asia/Tokyo", "/usr/share/zoneinfo/", "Asia/Tokyo"),
            ("Asia/./Tokyo", "/usr/share/zoneinfo", "Asia/Tokyo"),
            ("/usr/share/zoneinfo/Asia/Tokyo", "/usr/share/zoneinfo/Asia/..", "Asia/Tokyo"),
            ("/usr/share/zoneinfo/../zoneinfo/Etc/UTC", nil, "UTC"),
        ] as [(String, String?, String)] {
            XCTAssertEqual(try Zone(tz: tz, zoneinfoDirectory: directory).name, name, "TZ=\(tz) TZDIR=\(directory ?? "")")
        }
        XCTAssertEqual(Zone.lexicalPath("/a/../../b/./c/"), "/b/c")
        XCTAssertEqual(Zone.lexicalPath("../a/b/../c", relative: true), "../a/c")
    }
}
