import Foundation
import TestSupport
import XCTest

/// What a hostile tester found in the handling of zones and date-times (issue 25 §2, "times and dates mean what
/// they say"), each at the command line: `TZ=… bookkeeper …` on the model of an `Event` with a date-time and a date.
final class TimeMeaningCommandTests: ZonedCommandTestCase {
    static let model = """
        entities:
          Event:
            kind: directory
            attributes:
              name: { type: string, required: true }
              at:   { type: datetime }
              d:    { type: date }
        """

    override func setUp() {
        super.setUp()
        dir.write("model.yaml", TimeMeaningCommandTests.model)
        XCTAssertEqual(run("UTC", ["init"]).status, 0)
    }

    func files() -> [String] { ((try? FileManager.default.contentsOfDirectory(atPath: dir.path)) ?? []).sorted() }

    /// `migrate` of d from date to date-time with d = 0001-01-01 in Berlin trapped in `Timestamp.day` (exit 132),
    /// leaving a backup and a stale activity note: that day's midnight is 0000-12-31T23:00:00Z. Now the dry run and
    /// the migration both report the value as one that cannot convert (65, naming the object) and change nothing.
    func testMigratingTheFirstDayToADateTimeEastOfGreenwichIsReportedNotACrash() {
        okIn("Europe/Berlin", "add", "Event", "name=c", "d=0001-01-01")
        okIn("Europe/Berlin", "add", "Event", "name=e", "d=0001-01-02")
        let before = files()
        dir.write("model.yaml", TimeMeaningCommandTests.model.replacingOccurrences(of: "d:    { type: date }", with: "d:    { type: datetime }"))
        for args in [["migrate", "--dry-run"], ["migrate", "--allow-data-loss"]] {
            let r = run("Europe/Berlin", args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("\"0001-01-01\" in Event/1"), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("Fatal error"), r.stderr)
        }
        XCTAssertEqual(files(), before, "no backup, no activity note left")
        // West of Greenwich the same day converts.
        okIn("America/New_York", "migrate", "--allow-data-loss")
        XCTAssertTrue(okIn("UTC", "fetch", "Event", "--format", "csv").contains("c,,0001-01-01T04:56:02+00:00"))
    }
}

extension TimeMeaningCommandTests {
    /// `at=2024-07-01T12:00:00+05:99` was stored as 05:21:00Z, and `+99:59`, `+24:00`, `-99:59` were accepted, in
    /// every way a date-time comes in. Now each is refused with the offset: 65 for data (add, import, a model
    /// default), 64 for a predicate on the command line (--where, --param).
    func testOffsetsOutOfRangeAreRefusedInEveryEntryPoint() {
        for offset in ["+05:99", "+99:59", "+24:00", "-99:59", "+05:30:60"] {
            let value = "2024-07-01T12:00:00\(offset)"
            let reason = "has no possible offset \"\(offset)\""
            var r = run("UTC", ["add", "Event", "name=n", "at=\(value)"])
            XCTAssertEqual(r.status, 65, "\(r)")
            XCTAssertTrue(r.stderr.contains(reason), r.stderr)
            dir.write("events.csv", "name,at\nn,\(value)\n")
            r = run("UTC", ["import", "Event", "events.csv"])
            XCTAssertEqual(r.status, 65, "\(r)")
            XCTAssertTrue(r.stderr.contains(reason), r.stderr)
            r = run("UTC", ["fetch", "Event", "--where", "at == \"\(value)\""])
            XCTAssertEqual(r.status, 64, "\(r)")
            XCTAssertTrue(r.stderr.contains(reason), r.stderr)
            r = run("UTC", ["fetch", "Event", "--where", "at == $p", "--param", "p=\(value)"])
            XCTAssertEqual(r.status, 64, "\(r)")
            XCTAssertTrue(r.stderr.contains(reason), r.stderr)
            dir.write("default.yaml", TimeMeaningCommandTests.model.replacingOccurrences(
                of: "at:   { type: datetime }", with: "at:   { type: datetime, default: \"\(value)\" }"))
            r = run("UTC", ["--model", "default.yaml", "add", "Event", "name=n"])
            XCTAssertEqual(r.status, 78, "\(r)")
            XCTAssertTrue(r.stderr.contains(reason), r.stderr)
        }
        XCTAssertEqual(okIn("UTC", "fetch", "Event", "--count").trimmingCharacters(in: .whitespacesAndNewlines), "0")
        okIn("UTC", "add", "Event", "name=ok", "at=2024-07-01T12:00:00+23:59")
        XCTAssertTrue(okIn("UTC", "fetch", "Event", "--format", "csv").contains("ok,2024-06-30T12:01:00+00:00"))
    }

    /// `fetch --format csv` (and json) writes an instant of local mean time with its offset's seconds
    /// (`1950-06-01T12:00:00-00:44:30` in Monrovia, `+09:18:59` in Tokyo before 1888), and importing that file was
    /// refused ("is not a date and time"). What fetch writes now reads back: the same instants, in any zone.
    func testWhatFetchWritesForLocalMeanTimeImportsBack() throws {
        let cases = [("Africa/Monrovia", "1950-06-01T12:00:00", "-00:44:30"), ("Asia/Tokyo", "1880-03-01T09:30:00", "+09:18:59"),
                     ("Europe/Amsterdam", "1930-07-01T12:00:00", "+01:19:32"), ("America/New_York", "1870-01-01T00:00:00", "-04:56:02")]
        for (k, (tz, local, offset)) in cases.enumerated() {
            okIn(tz, "add", "Event", "name=m\(k)", "at=\(local)")
            let csv = okIn(tz, "fetch", "Event", "--where", "name == \"m\(k)\"", "--columns", "name,at", "--format", "csv")
            XCTAssertTrue(csv.contains("m\(k),\(local)\(offset)"), "\(tz): \(csv)")
            dir.write("back.csv", csv.replacingOccurrences(of: "m\(k),", with: "b\(k),"))
            okIn("UTC", "import", "Event", "back.csv")
            let stored = okIn("UTC", "list", "Event")
            let original = try XCTUnwrap(stored.split(separator: "\n").first { $0.contains("m\(k)") })
            let imported = try XCTUnwrap(stored.split(separator: "\n").first { $0.contains("b\(k)") })
            XCTAssertEqual(original.replacingOccurrences(of: "m\(k)", with: "b\(k)").split(separator: " ").filter { $0.hasSuffix("Z") },
                           imported.split(separator: " ").filter { $0.hasSuffix("Z") }, "\(tz): \(stored)")
        }
    }
}

extension TimeMeaningCommandTests {
    /// `TZ=Asia/Tokyo BOOKKEEPER_TODAY=0001-01-01` was accepted — its first instant is 0000-12-31T14:41:01Z — and a
    /// report's XLSX got `created` = `0-12-31T14:41:01Z`, which openpyxl refuses; the same moment written as a
    /// date-time was refused. Now a today that starts outside the years 1 to 9999 in UTC is refused alike (78).
    func testATodayStartingBeforeYearOneInUTCIsRefused() {
        for (tz, today) in [("Asia/Tokyo", "0001-01-01"), ("Europe/Berlin", "0001-01-01"), ("<+14>-14", "0001-01-01"),
                            ("Asia/Tokyo", "0001-01-01T00:00:00")] {
            for args in [["report", "customers", "--format", "xlsx", "--output", "y.xlsx"], ["fetch", "Event", "--count"]] {
                let r = run(tz, args, env: ["BOOKKEEPER_TODAY": today])
                XCTAssertEqual(r.status, 78, "TZ=\(tz) BOOKKEEPER_TODAY=\(today) \(args): \(r)")
                XCTAssertTrue(r.stderr.contains("BOOKKEEPER_TODAY: \"\(today)\""), r.stderr)
            }
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("y.xlsx")))
        // The next day, and the first day west of Greenwich, are days a run can have.
        okIn("Asia/Tokyo", "fetch", "Event", "--count", env: ["BOOKKEEPER_TODAY": "0001-01-02"])
        okIn("America/New_York", "fetch", "Event", "--count", env: ["BOOKKEEPER_TODAY": "0001-01-01"])
    }
}

extension TimeMeaningCommandTests {
    /// `check` and `model` ran under any TZ, as if they read no local time, yet a rule's offset-less literal or
    /// `$TODAY` and a model default are local times: `TZ=Bogus/Zone bookkeeper check` evaluated the rule in UTC (a
    /// false "too early", 65) and `model` showed the default read in UTC. Now both refuse a TZ that names no zone
    /// (78), and init, backup and imports — which read no other local time — refuse it exactly when the model
    /// file has a date-time default without an offset.
    func testCheckAndModelRefuseATZThatNamesNoZone() {
        let rules = TimeMeaningCommandTests.model + """

                rules:
                  - where: "at == nil OR at >= \\"2024-07-01T12:00:00\\""
            """
        dir.write("model.yaml", rules)
        okIn("Europe/Berlin", "add", "Event", "name=x", "at=2024-07-01T12:30:00")
        okIn("Europe/Berlin", "check")
        for args in [["check"], ["model"]] {
            let r = run("Bogus/Zone", args)
            XCTAssertEqual(r.status, 78, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("TZ \"Bogus/Zone\" names no time zone"), r.stderr)
        }
        for args in [["imports"], ["backup", "copy.sqlite"]] { XCTAssertEqual(run("Bogus/Zone", args).status, 0, "\(args)") }
        // A date-time default without an offset is a local time: every command that loads it needs the zone.
        dir.write("model.yaml", rules.replacingOccurrences(of: "at:   { type: datetime }",
                                                          with: "at:   { type: datetime, default: \"2024-07-01T12:00:00\" }"))
        for args in [["init"], ["imports"], ["backup", "copy2.sqlite"], ["model"]] {
            let r = run("Bogus/Zone", args)
            XCTAssertEqual(r.status, 78, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("default for Event.at: \"2024-07-01T12:00:00\" is a local time, but TZ \"Bogus/Zone\"")
                          || r.stderr.contains("TZ \"Bogus/Zone\" names no time zone"), r.stderr)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("copy2.sqlite")))
        dir.write("model.yaml", rules.replacingOccurrences(of: "at:   { type: datetime }",
                                                          with: "at:   { type: datetime, default: \"2024-07-01T12:00:00Z\" }"))
        for args in [["imports"], ["backup", "copy3.sqlite"]] { XCTAssertEqual(run("Bogus/Zone", args).status, 0, "\(args)") }
    }
}

extension TimeMeaningCommandTests {
    /// `TZ=/tmp/f` with f a FIFO waited forever for a writer (open without O_NONBLOCK). Now the zone file is opened
    /// without waiting and anything but a regular file is refused, naming it (78), as a report definition is.
    func testATZNamingAPipeOrDeviceIsRefusedWithoutWaiting() {
        let fifo = dir.file("zone-fifo")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        for (tz, env, what) in [(fifo, [:], "\(fifo) is a named pipe"),
                                (":zone-fifo", ["TZDIR": dir.path], "\(fifo) is a named pipe"),
                                ("/dev/null", [:], "/dev/null is a device")] {
            let r = run(tz, ["fetch", "Event", "--count"], env: env)
            XCTAssertEqual(r.status, 78, "TZ=\(tz): \(r)")
            XCTAssertTrue(r.stderr.contains("names no time zone: \(what), not a zoneinfo file"), r.stderr)
        }
    }
}

extension TimeMeaningCommandTests {
    /// The 78 for a TZ escaped a line feed as `\u{a}` where every other message (and docs/commands.md) writes
    /// `<U+000A>`; and `TZ=EST99999` said `99 hours is more than 24`, `…/99999` said `999 hours is more than 167`:
    /// the message quoted a number that was never written. Now the standard escape and the number as written.
    func testTheTZMessageEscapesAsEveryMessageAndQuotesTheNumberAsWritten() {
        for (tz, expected) in [("Bogus\nbookkeeper: forged", "TZ \"Bogus<U+000A>bookkeeper: forged\" names no time zone"),
                               ("Bad\u{1B}[31m\u{85}", "TZ \"Bad<U+001B>[31m<U+0085>\" names no time zone"),
                               ("EST99999", "99999 hours is more than 24"),
                               ("EST5EDT,M3.2.0/99999,M11.1.0", "99999 hours is more than 167"),
                               ("EST5EDT,M3.2.0/1000,M11.1.0", "1000 hours is more than 167"),
                               ("EST-025", "025 hours is more than 24"), ("EST005", "too many digits in hours 005")] {
            let r = run(tz, ["fetch", "Event", "--count"])
            XCTAssertEqual(r.status, 78, "TZ=\(tz): \(r)")
            XCTAssertTrue(r.stderr.contains(expected), "TZ=\(tz): \(r.stderr)")
            XCTAssertFalse(r.stderr.contains("\\u{"), r.stderr)
            XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, "one line: \(r.stderr)")
        }
    }
}

extension TimeMeaningCommandTests {
    /// `TZ=right/Europe/Berlin`: 02:00:10 on 2024-03-31, which the clocks skip, was stored as 01:00:10Z, and the
    /// message said the clocks skip "from 02:00:27 to 03:00:27" — the file's leap-counting transition times read as
    /// POSIX instants. Now the changes are where Europe/Berlin has them (RightZoneTests compares with glibc).
    func testRightZonesChangeTheClocksOnTheSecond() {
        let r = run("right/Europe/Berlin", ["add", "Event", "name=r", "at=2024-03-31T02:00:10"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("does not exist in right/Europe/Berlin: the clocks skip from 02:00 to 03:00 on 2024-03-31"), r.stderr)
        okIn("right/Europe/Berlin", "add", "Event", "name=s", "at=2024-03-31T01:59:59")
        okIn("right/Europe/Berlin", "add", "Event", "name=t", "at=2024-03-31T03:00:00")
        let list = okIn("UTC", "list", "Event")
        XCTAssertTrue(list.contains("2024-03-31T00:59:59+00:00") && list.contains("2024-03-31T01:00:00+00:00"), list)
    }
}

extension TimeMeaningCommandTests {
    /// `migrate --default Event.w=2024-09-08T00:30:00` in America/Santiago said only `is not a DateTime` — though it
    /// is written as one, the clocks skip it; and a predicate literal at a gap said `… does not exist in
    /// Europe/Berlin: …, but "at" is DateTime`, as if the type were wrong. Now each gives the reason alone.
    func testASkippedTimeIsNamedAsSkippedInMigrationDefaultsAndPredicates() {
        okIn("UTC", "add", "Event", "name=a")
        dir.write("w.yaml", TimeMeaningCommandTests.model + "\n      w:    { type: datetime, required: true }\n")
        var r = run("America/Santiago", ["--model", "w.yaml", "migrate", "--default", "Event.w=2024-09-08T00:30:00"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("--default Event.w=2024-09-08T00:30:00: \"2024-09-08T00:30:00\" does not exist in "
                                        + "America/Santiago: the clocks skip from 00:00 to 01:00 on 2024-09-08\n"), r.stderr)
        r = run("America/Santiago", ["--model", "w.yaml", "migrate", "--default", "Event.w=2024-09-08T00:30:00+24:00"])
        XCTAssertTrue(r.stderr.contains("has no possible offset \"+24:00\""), r.stderr)
        for args in [["--where", "at == \"2024-03-31T02:30:00\""], ["--where", "at == $p", "--param", "p=2024-03-31T02:30:00"]] {
            r = run("Europe/Berlin", ["fetch", "Event"] + args)
            XCTAssertEqual(r.status, 64, "\(r)")
            XCTAssertTrue(r.stderr.hasSuffix("\"2024-03-31T02:30:00\" does not exist in Europe/Berlin: the clocks skip from "
                                             + "02:00 to 03:00 on 2024-03-31\n"), r.stderr)
        }
        // A text that is no date-time at all keeps the type it should have been.
        r = run("Europe/Berlin", ["fetch", "Event", "--where", "at == \"junk\""])
        XCTAssertTrue(r.stderr.hasSuffix(", but \"at\" is DateTime\n"), r.stderr)
    }
}

extension TimeMeaningCommandTests {
    /// A report could not filter a date-time by a date parameter (`where: at >= $from`, `from: {type: date}` → 78),
    /// and `fetch --where 'at < $TODAY'` was 64 quoting a value the user never typed. Now a date compared with a
    /// date-time is its local day in $TZ, in fetch (literals, --param, $TODAY) and reports alike; the objects are
    /// those whose local date, as fetch shows it, stands so to the day.
    func testADateTimeIsFilteredByADateAsItsLocalDay() throws {
        let tz = "America/Santiago"           // 2024-09-08 begins at 01:00: the clocks skip midnight
        let times = ["a": "2024-09-07T23:59:59", "b": "2024-09-08T01:00:00", "c": "2024-09-08T23:59:59", "d": "2024-09-09T00:00:00"]
        for (name, at) in times.sorted(by: { $0.key < $1.key }) { okIn(tz, "add", "Event", "name=\(name)", "at=\(at)") }
        okIn(tz, "add", "Event", "name=n")
        for (predicate, expected) in [("at >= '2024-09-08'", "b c d"), ("at > '2024-09-08'", "d"), ("at <= '2024-09-08'", "a b c"),
                                      ("at < '2024-09-08'", "a"), ("at == '2024-09-08'", "b c"), ("at != '2024-09-08'", "a d n"),
                                      ("at BETWEEN {'2024-09-08', '2024-09-09'}", "b c d"),
                                      ("at BETWEEN {'2024-09-08', '2024-09-08T12:00:00'}", "b")] {
            let out = okIn(tz, "fetch", "Event", "--where", predicate, "--columns", "name", "--format", "csv", "--sort", "name")
            XCTAssertEqual(out.split(separator: "\n").dropFirst().joined(separator: " "), expected, predicate)
        }
        XCTAssertEqual(okIn(tz, "fetch", "Event", "--where", "at < $TODAY", "--count", env: ["BOOKKEEPER_TODAY": "2024-09-08"]), "1\n")
        XCTAssertEqual(okIn(tz, "fetch", "Event", "--where", "at >= $from", "--param", "from=2024-09-09", "--count"), "1\n")
        dir.write("since.yaml", """
            title: Since
            entity: Event
            params:
              from: { type: date }
            where: at >= $from
            columns: [name]
            sort: name
            """)
        let report = okIn(tz, "report", "./since.yaml", "--param", "from=2024-09-08", "--format", "csv")
        XCTAssertEqual(report.split(separator: "\n").filter { ["a", "b", "c", "d", "n"].contains($0) }.joined(separator: " "), "b c d", report)
    }
}
