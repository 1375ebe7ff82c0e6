import LocalTime
// Parameters: relative dates against a fixed today, `--param` values read as the declared type, and
// the usage errors of the command line (exit status 64) — an unknown name with a did-you-mean, a value
// of the wrong type, a required parameter left out.

import Bookkeeping
import ObjectStore
import Reports
import TestSupport
import XCTest

final class ParameterTests: XCTestCase {
    private let today = Day(iso: "2026-11-21")!   // a Saturday

    private func day(_ text: String) -> String? {
        RelativeDate(parsing: text)?.resolve(today: today)?.description
    }

    func testRelativeDates() {
        let cases: [(String, String)] = [
            ("today", "2026-11-21"), ("yesterday", "2026-11-20"), ("tomorrow", "2026-11-22"), ("2024-02-29", "2024-02-29"),
            ("start of month", "2026-11-01"), ("end of month", "2026-11-30"), ("start of this month", "2026-11-01"),
            ("start of last month", "2026-10-01"), ("end of last month", "2026-10-31"), ("start of next month", "2026-12-01"),
            ("start of year", "2026-01-01"), ("end of year", "2026-12-31"), ("start of last year", "2025-01-01"),
            ("end of last year", "2025-12-31"), ("start of quarter", "2026-10-01"), ("end of last quarter", "2026-09-30"),
            ("start of week", "2026-11-16"), ("end of week", "2026-11-22"), ("start of last week", "2026-11-09"),
            ("today - 30 days", "2026-10-22"), ("today-30days", "2026-10-22"), ("today + 2 weeks", "2026-12-05"),
            ("start of month - 11 months", "2025-12-01"), ("end of month - 1 month", "2026-10-31"),
            ("2024-02-29 + 1 year", "2025-02-28"), ("Start Of Last Month", "2026-10-01"), ("  today  ", "2026-11-21"),
        ]
        for (text, expected) in cases { XCTAssertEqual(day(text), expected, text) }
        for text in ["", "now", "start of", "start of lst month", "today - days", "today * 2", "2026-02-30", "today - 30 fortnights",
                     "end of last"] {
            XCTAssertNil(RelativeDate(parsing: text), text)
        }
        // Across the start of a year, and months of different lengths.
        XCTAssertEqual(RelativeDate(parsing: "end of last month")?.resolve(today: Day(iso: "2026-03-15")!)?.description, "2026-02-28")
        XCTAssertEqual(RelativeDate(parsing: "start of last month")?.resolve(today: Day(iso: "2026-01-05")!)?.description, "2025-12-01")
        XCTAssertEqual(RelativeDate(parsing: "start of last quarter")?.resolve(today: Day(iso: "2026-02-05")!)?.description, "2025-10-01")
    }

    /// M1: counts above 100,000 were refused as "not a date", though `today + 999999 days` is a day in 4764.
    func testALargeShiftWithinTheYearsWasCalledNotADate() {
        XCTAssertEqual(day("today + 999999 days"), "4764-10-17")
        XCTAssertEqual(day("today + 100001 days"), "2300-09-07")
        XCTAssertEqual(day("today - 700000 days"), "0110-05-10")
        XCTAssertEqual(day("start of year + 7973 years"), "9999-01-01")
        XCTAssertEqual(day("today + 95677 months"), "9999-12-21")
        for text in ["today + 100000 months", "today + 9999999 days", "today - 10000001 days",
                     "today + 99999999999999999999999 years", "start of year + 7974 years"] {
            XCTAssertNotNil(RelativeDate(parsing: text), text)
            XCTAssertNil(day(text), text)
        }
        XCTAssertEqual(usageError { _ = try self.unpaid(["until": "today + 99999999999999999999999 days"]) },
                       #"--param until: "today + 99999999999999999999999 days" falls outside the years 1 to 9999"#)
        XCTAssertNil(RelativeDate(parsing: "today + ١٢ days"), "digits other than ASCII")
    }

    private func unpaid(_ arguments: [String: String]) throws -> PreparedReport {
        try ShippedReports.prepared("unpaid-orders", arguments)
    }

    private func usageError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> String {
        do {
            try body()
            XCTFail("no error", file: file, line: line)
        } catch let error as ReportUsageError {
            return error.description
        } catch {
            XCTFail("not a usage error: \(error)", file: file, line: line)
        }
        return ""
    }

    func testValuesAreTypedAndShown() throws {
        XCTAssertEqual(try unpaid([:]).document.parameters.map(\.value), ["2026-11-21"])
        XCTAssertEqual(try unpaid(["until": "end of last month"]).document.parameters.map(\.value), ["2026-10-31"])
        XCTAssertEqual(try unpaid(["until": "end of last month"]).document.parameters.map(\.name), ["Until"])
        XCTAssertEqual(try ShippedReports.prepared("sales-by-month").document.parameters.map(\.value), ["2025-12-01", "2026-11-21"])
    }

    /// Issue 15: a repeated --param kept the last value in silence.
    func testARepeatedParameterIsRefusedWithBothValues() {
        XCTAssertThrowsError(try ParameterArguments(parsing: ["until=2024-01-01", "from=2023-01-01", "until=2025-01-01"])) { error in
            XCTAssertEqual("\(error)", #"--param until is given twice: "until=2024-01-01" and "until=2025-01-01" — give one value"#)
        }
        XCTAssertEqual(try ParameterArguments(parsing: ["a=1", "b=1"]).names, ["a", "b"])
    }

    func testUsageErrors() {
        XCTAssertEqual(usageError { _ = try self.unpaid(["unti": "2026-01-01"]) },
                       #"--param unti: report unpaid-orders has no parameter "unti" — did you mean "until"? (it takes until)"#)
        XCTAssertEqual(usageError { _ = try ShippedReports.prepared("customers", ["from": "2026-01-01"]) },
                       #"--param from: report customers has no parameter "from" (it takes no parameters)"#)
        XCTAssertEqual(usageError { _ = try self.unpaid(["until": "2026-13-01"]) },
                       #"--param until: "2026-13-01" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …)"#)
        XCTAssertEqual(usageError { _ = try self.unpaid(["until": "yesteday"]) },
                       #"--param until: "yesteday" is not a date (write YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, today - 30 days, …) — did you mean "yesterday"?"#)
        XCTAssertEqual(usageError { _ = try ParameterArguments(parsing: ["until"]) }, #"--param takes NAME=VALUE, got "until""#)
    }

    func testRequiredParametersAndOtherTypes() throws {
        let yaml = """
            entity: Order
            where: customer.name == $who AND rows.@sum.sum >= $min AND paid == $paid
            params:
              who: string
              min: { type: number, default: 0 }
              paid: { type: boolean, default: no }
            columns: [number]

            """
        let definition = try ReportDefinition.parse(yaml, name: "mine", file: "mine.yaml")
        func prepare(_ arguments: [String: String]) throws -> PreparedReport {
            try PreparedReport(definition, model: BookkeepingModel.model, arguments: ParameterArguments(arguments), clock: SampleStore.clock)
        }
        XCTAssertEqual(usageError { _ = try prepare([:]) }, "report mine needs --param who=TEXT (it has no default)")
        XCTAssertEqual(usageError { _ = try prepare(["who": "Acme Ltd", "min": "1,5"]) },
                       #"--param min: "1,5" is not a number (write 1234.50: digits, a point, no grouping)"#)
        XCTAssertEqual(usageError { _ = try prepare(["who": "Acme Ltd", "paid": "maybe"]) },
                       #"--param paid: "maybe" is not a boolean (write yes or no)"#)
        let report = try prepare(["who": "Müller GmbH", "min": "100.5", "paid": "YES"])
        XCTAssertEqual(report.document.parameters.map(\.value), ["Müller GmbH", "100.5", "yes"])
        let rows = try report.rows(from: SampleStore.open())
        let expected = try queryRowsFromSample("""
            SELECT o.number FROM "Order" o JOIN Customer c ON c.id = o.customer_id
            WHERE c.name = 'Müller GmbH' AND o.paid = 1
              AND (SELECT COALESCE(SUM(sum), 0) FROM OrderRow r WHERE r.order_id = o.id) >= 10050
            ORDER BY o.id
            """)
        XCTAssertFalse(expected.isEmpty)
        XCTAssertEqual(rows.map { $0.map(storedText) }, expected)
    }

    /// `$TODAY` follows the report's clock (BOOKKEEPER_TODAY in the command line), not the system's.
    func testTodayVariableFollowsTheClock() throws {
        let definition = try ReportDefinition.parse("entity: Order\nwhere: date >= $TODAY\ncolumns: [number]\n", name: "t", file: "t.yaml")
        let report = try PreparedReport(definition, model: BookkeepingModel.model, clock: SampleStore.clock)
        XCTAssertTrue(report.explanation.hasSuffix("?1 = \"2026-11-21\""), report.explanation)
    }

    func testClockFromTheEnvironment() throws {
        let utc = Zone.utc
        XCTAssertEqual(try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "2026-11-21"], timeZone: utc).today.description, "2026-11-21")
        let moment = try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "2026-11-21T23:30:00-02:00"], timeZone: utc)
        XCTAssertEqual(moment.today.description, "2026-11-22")
        XCTAssertEqual(moment.now.timeIntervalSince1970, 1_795_311_000)
        XCTAssertThrowsError(try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "tomorrow"], timeZone: utc)) { error in
            XCTAssertEqual("\(error)", #"BOOKKEEPER_TODAY: "tomorrow" is neither a date (YYYY-MM-DD) nor a date-time (YYYY-MM-DDTHH:MM:SSZ)"#)
        }
    }

    /// BOOKKEEPER_TODAY without an offset is a local time in the run's zone, and a date is its midnight there.
    func testAnOffsetlessBookkeeperTodayIsReadInTheOutputZone() throws {
        let newYork = try Zone(tz: ":America/New_York")
        let late = try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "2026-11-21T23:30:00"], timeZone: newYork)
        XCTAssertEqual(late.today.description, "2026-11-21")
        XCTAssertEqual(late.now.timeIntervalSince1970, 1_795_321_800)        // 2026-11-22T04:30:00Z
        let day = try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "2026-11-21"], timeZone: newYork)
        XCTAssertEqual(day.now.timeIntervalSince1970, 1_795_237_200)         // 2026-11-21T05:00:00Z
        XCTAssertThrowsError(try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "2026-03-08T02:30:00"], timeZone: newYork)) { error in
            XCTAssertEqual("\(error)", #"BOOKKEEPER_TODAY: "2026-03-08T02:30:00" does not exist in America/New_York: the clocks skip from 02:00 to 03:00 on 2026-03-08"#)
        }
        // A moment whose local date is past 9999 is refused, not a crash.
        XCTAssertThrowsError(try ReportClock.current(environment: ["BOOKKEEPER_TODAY": "9999-12-31T23:00:00Z"], timeZone: try Zone(tz: "<+03>-3")))
    }
}

func queryRowsFromSample(_ sql: String) throws -> [[String]] {
    try queryRows(SampleStore.path(), sql)
}
