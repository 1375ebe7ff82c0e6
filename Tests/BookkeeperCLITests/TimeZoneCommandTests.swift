import Foundation
import TestSupport
import XCTest

/// Times mean what they say (issue 25 §2): a date-time typed without an offset is a local time in the zone outputs
/// use ($TZ), in every form glibc reads TZ (a name, `:name`, a zoneinfo path, a POSIX string); the stored instant is
/// the one `TZ=… date -d` gives; today is today in that zone; a TZ that names no zone is refused (78), and a local
/// time the clocks skip is refused with the value and the zone (65).
final class TimeZoneCommandTests: ZonedCommandTestCase {
    static let forms = [
        "Europe/Berlin", ":America/New_York", "/usr/share/zoneinfo/America/New_York", "EST5EDT,M3.2.0,M11.1.0",
        "<+03>-3", "CET-1CEST,M3.5.0,M10.5.0/3", "Australia/Lord_Howe",
    ]

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", Self.readingsModel)
        dir.write("readings.yaml", "entity: Reading\ncolumns: [name, at]\nsort: name\n")
        okIn("UTC", "init")
    }

    /// A new store (with the model of setUp).
    func fresh(_ tz: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        okIn(tz, "init")
    }

    /// What `TZ=tz date -d text +%s` says: the instant glibc reads the local time as, in UTC `…Z` text.
    func glibcInstant(_ tz: String, _ text: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["-d", text, "+%s"]
        process.environment = ["TZ": tz, "PATH": "/usr/bin:/bin"]
        let r = collect(process)
        let seconds = try XCTUnwrap(TimeInterval(r.stdout.trimmingCharacters(in: .whitespacesAndNewlines)), "\(r)")
        let formatter = ISO8601DateFormatter()
        return formatter.string(from: Date(timeIntervalSince1970: seconds))
    }

    /// `date`'s local date today in `tz`.
    func glibcToday(_ tz: String) -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/date")
        process.arguments = ["+%F"]
        process.environment = ["TZ": tz]
        return collect(process).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Typed 12:00 in Berlin was stored as 12:00Z and listed as 14:00 (a report, fetch): now an offset-less
    /// date-time is the local time it says, whichever way it comes in (import, --date-format, add, set), and every
    /// output that shows local times shows what was typed.
    func testAnOffsetlessDateTimeIsReadInTheOutputZone() throws {
        let typed = ["a": "2024-07-01 12:00:00", "b": "2024-01-15 08:30:00", "c": "2024-03-01 09:15:00", "d": "2024-11-20 23:45:00"]
        for tz in TimeZoneCommandTests.forms {
            fresh(tz)
            dir.write("readings.csv", "name,at\na,2024-07-01T12:00:00\nb,2024-01-15 08:30:00\n")
            okIn(tz, "import", "Reading", "readings.csv")
            dir.write("readings-de.csv", "name,at\nd,20.11.2024 23:45\n")
            okIn(tz, "import", "Reading", "readings-de.csv", "--date-format", "%d.%m.%Y %H:%M")
            okIn(tz, "add", "Reading", "name=c", "at=2024-01-01T00:00:00")
            okIn(tz, "set", "Reading", "c", "at=2024-03-01T09:15:00")
            // Shown in the zone: what was typed.
            let text = okIn(tz, "fetch", "Reading", "--columns", "name, at", "--sort", "name")
            let report = okIn(tz, "report", "./readings.yaml")
            let csv = okIn(tz, "fetch", "Reading", "--columns", "name, at", "--sort", "name", "--format", "csv")
            for (name, local) in typed {
                let minutes = String(local.prefix(16))
                XCTAssertTrue(text.contains("\(name)     \(minutes)"), "TZ=\(tz): \(name) \(minutes) in\n\(text)")
                XCTAssertTrue(report.contains(minutes), "TZ=\(tz): \(minutes) in\n\(report)")
                XCTAssertTrue(csv.contains("\(name),\(local.replacingOccurrences(of: " ", with: "T"))"), "TZ=\(tz): \(local) in\n\(csv)")
            }
            // Stored as the instant glibc reads the local time as: export shows it in UTC; list, as fetch does, in the zone.
            let list = okIn(tz, "list", "Reading")
            let export = okIn(tz, "export", "Reading")
            for (name, local) in typed {
                let instant = try glibcInstant(tz, local)
                XCTAssertTrue(list.contains(local.replacingOccurrences(of: " ", with: "T")), "TZ=\(tz): \(name) \(local) in list:\n\(list)")
                XCTAssertTrue(export.contains("\(name),\(instant)"), "TZ=\(tz): \(instant) in\n\(export)")
            }
        }
    }

    /// Foundation on Linux read `:America/New_York` as UTC: today, the generation time and date-times were UTC.
    /// `0001-01-01T00:00:00Z`, the first instant a store holds, is `0000-12-31T19:03:58-04:56:02` in New York (local
    /// mean time), and the last, `9999-12-31T23:59:59Z`, is `10000-01-01T08:59:59+09:00` in Tokyo: `fetch`, `list` and
    /// `show` wrote them so, and `set`, `add`, import and `--where` refused that text ("is not a date and time"). What
    /// is written reads back as the same instant, with its offset or without; a year-0 time before the first instant
    /// is refused as outside the years the store holds.
    func testTheFirstAndLastInstantsReadBackAsWrittenWestAndEastOfGreenwich() throws {
        for (tz, stored, shown) in [("America/New_York", "0001-01-01T00:00:00Z", "0000-12-31T19:03:58-04:56:02"),
                                    ("<-14>14", "0001-01-01T13:59:59Z", "0000-12-31T23:59:59-14:00"),
                                    ("Asia/Tokyo", "9999-12-31T23:59:59Z", "10000-01-01T08:59:59+09:00"),
                                    ("<+14>-14", "9999-12-31T10:00:00Z", "10000-01-01T00:00:00+14:00")] {
            fresh(tz)
            okIn(tz, "add", "Reading", "name=r", "at=\(stored)")
            XCTAssertEqual(okIn(tz, "fetch", "Reading", "--columns", "at", "--format", "csv"), "at\n\(shown)\n", tz)
            XCTAssertEqual(okIn(tz, "fetch", "Reading", "--columns", "at", "--format", "json"), "[\n  {\"at\": \"\(shown)\"}\n]\n", tz)
            XCTAssertTrue(okIn(tz, "show", "Reading", "r").contains("\nat    \(shown)\n"), tz)
            // Given back: as a value, with and without its offset, as a predicate's literal and in an import.
            let local = String(shown[..<shown.lastIndex(where: { $0 == "+" || $0 == "-" })!])
            XCTAssertEqual(okIn(tz, "set", "Reading", "r", "at=\(shown)"), "Reading/1 unchanged\n", tz)
            XCTAssertEqual(okIn(tz, "set", "Reading", "r", "at=\(local)"), "Reading/1 unchanged\n", tz)
            XCTAssertEqual(okIn(tz, "fetch", "Reading", "--where", "at == %@", "--arg", shown, "--count"), "1\n", tz)
            XCTAssertEqual(okIn(tz, "fetch", "Reading", "--where", "at == '\(local)'", "--count"), "1\n", tz)
            dir.write("more.csv", "name,at\ns,\(shown)\n")
            okIn(tz, "import", "Reading", "more.csv")
            XCTAssertEqual(okIn("UTC", "export", "Reading"), "name,at\nr,\(stored)\ns,\(stored)\n", tz)
        }
        let before = run("America/New_York", ["set", "Reading", "r", "at=0000-12-31T19:03:57"])
        XCTAssertEqual(before.status, 65, "\(before)")
        XCTAssertEqual(before.stderr, "bookkeeper: Reading.at: \"0000-12-31T19:03:57\" falls outside the years 1 to 9999 in UTC\n")
    }

    func testTZWithAColonIsHonoured() throws {
        try checkTodayAndHeader(":America/New_York", name: "America/New_York (UTC-05:00)")
    }

    func testTZAsAZoneinfoPathIsHonoured() throws {
        try checkTodayAndHeader("/usr/share/zoneinfo/America/New_York", name: "America/New_York (UTC-05:00)")
    }

    func testPOSIXTZStringIsHonoured() throws {
        try checkTodayAndHeader("EST5EDT,M3.2.0,M11.1.0", name: "EST5EDT,M3.2.0,M11.1.0 (UTC-05:00)")
        try checkTodayAndHeader("<-05>5", name: "<-05>5 (UTC-05:00)")
    }

    /// Today (BOOKKEEPER_TODAY as a moment, and the real clock) is the zone's local date, and reports say the zone.
    func checkTodayAndHeader(_ tz: String, name: String) throws {
        fresh(tz)
        okIn(tz, "add", "Order", "number=N-1", "date=2026-11-20")
        let moment = ["BOOKKEEPER_TODAY": "2026-11-21T02:00:00Z"]
        // 2026-11-21T02:00Z is 21:00 on the 20th in New York: the order is today's.
        XCTAssertEqual(okIn(tz, "fetch", "Order", "--where", "date == $TODAY", "--count", env: moment), "1\n")
        XCTAssertEqual(okIn("UTC", "fetch", "Order", "--where", "date == $TODAY", "--count", env: moment), "0\n")
        let report = okIn(tz, "report", "./readings.yaml", env: moment)
        XCTAssertTrue(report.contains("Generated 2026-11-20 21:00 \(name)"), report)
        // An offset-less BOOKKEEPER_TODAY is a local time there too.
        XCTAssertTrue(okIn(tz, "report", "./readings.yaml", env: ["BOOKKEEPER_TODAY": "2026-11-20T21:00:00"]).contains("Generated 2026-11-20 21:00"))
        // The real clock: today as `date` says it in that zone.
        let today = glibcToday(tz)
        okIn(tz, "add", "Order", "number=N-2", "date=\(today)")
        XCTAssertEqual(okIn(tz, "fetch", "Order", "--where", "number == 'N-2' AND date == $TODAY", "--count"), "1\n",
                       "TZ=\(tz): today is \(today)")
    }

    /// A TZ glibc would not read either was silently UTC; now every command that reads or shows a local time or
    /// today refuses it with one line naming it (78), before any work; the others run.
    func testAnUnknownTZIsRefusedWith78() throws {
        dir.write("readings.csv", "name,at\na,2024-07-01T12:00:00\n")
        for tz in ["Bogus/Zone", "garbage!!", "/etc/passwd", "CET-1CEST", "/usr/share/zoneinfo/America"] {
            for args in [["fetch", "Reading"], ["report", "./readings.yaml"], ["reports"], ["import", "Reading", "readings.csv"],
                         ["add", "Reading", "name=x", "at=2024-07-01T12:00:00Z"], ["list", "Reading"], ["export", "Reading"]] {
                let r = run(tz, args)
                XCTAssertEqual(r.status, 78, "TZ=\(tz) \(args): \(r)")
                XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: TZ \"\(tz)\" names no time zone: "), "\(r)")
                XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, "one line: \(r)")
            }
            // check and model read local times too (a rule's literal or $TODAY, a default); imports does not.
            XCTAssertEqual(run(tz, ["check"]).status, 78)
            XCTAssertEqual(run(tz, ["model"]).status, 78)
            XCTAssertEqual(run(tz, ["imports"]).status, 0)
        }
        XCTAssertEqual(okIn("UTC", "fetch", "Reading", "--count"), "0\n", "nothing was imported or added")
    }

    /// The clocks skip 02:00–03:00 in Berlin on 2024-03-31: such a time is refused with the value and the zone (65);
    /// 02:30 on 2024-10-27 happens twice: the earlier (02:30+02:00) is taken.
    func testANonexistentLocalTimeIsRefusedAndAnAmbiguousOneIsTheEarlier() throws {
        let tz = "Europe/Berlin"
        let r = run(tz, ["add", "Reading", "name=gap", "at=2024-03-31T02:30:00"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains(#""2024-03-31T02:30:00" does not exist in Europe/Berlin: the clocks skip from 02:00 to 03:00 on 2024-03-31"#), r.stderr)
        dir.write("gap.csv", "name,at\ngap,2024-03-31 02:30:00\n")
        let i = run(tz, ["import", "Reading", "gap.csv"])
        XCTAssertEqual(i.status, 65, "\(i)")
        XCTAssertTrue(i.stderr.contains("does not exist in Europe/Berlin"), i.stderr)
        okIn(tz, "add", "Reading", "name=fold", "at=2024-10-27T02:30:00")
        XCTAssertTrue(okIn(tz, "list", "Reading").contains("2024-10-27T02:30:00+02:00"))
        // With an offset, a value keeps its meaning whatever the zone.
        okIn(tz, "add", "Reading", "name=z", "at=2024-03-31T02:30:00Z")
        XCTAssertTrue(okIn(tz, "list", "Reading").contains("2024-03-31T04:30:00+02:00"))
    }
}
