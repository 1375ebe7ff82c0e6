import ObjectStore
import TestSupport
import XCTest
@testable import Reports

/// Every form of relative date the definitions accept, evaluated for every day of several years (leap 2000 and 2024,
/// 1900 that is not, 2023, the first months of year 1 and the last of 9999) against a reference written here from the
/// rules in RelativeDate.swift's header, without its code: days counted from 0001-01-01 by the plain formula, a
/// month as year × 12 + month. A result outside the years 1 to 9999 must be the one-line error
/// `"TEXT" falls outside the years 1 to 9999`. `make stress` sweeps every expression over every day; `make test`
/// a sample (seed printed), with the spellings varied (case, spaces, singular and plural).
final class RelativeDatePropertyTests: XCTestCase {
    enum Base {
        case fixed(Int, Int, Int)
        case today(Int)
        case start(String, Int)
        case end(String, Int)
    }

    struct Expression {
        var base: Base
        var baseText: String
        var count: Int
        var unit: String?      // day, week, month, quarter, year
    }

    static let periods = ["week", "month", "quarter", "year"]
    static let units = ["day", "week", "month", "quarter", "year"]
    static let counts = [0, 1, 2, 3, 5, 11, 12, 13, 100, 9998, 3_652_059]

    static var expressions: [Expression] {
        var bases: [(Base, String)] = [(.today(0), "today"), (.today(-1), "yesterday"), (.today(1), "tomorrow"),
                                       (.fixed(2024, 2, 29), "2024-02-29"), (.fixed(1, 1, 1), "0001-01-01"), (.fixed(9999, 12, 31), "9999-12-31")]
        for period in periods {
            for (word, which) in [("", 0), ("this ", 0), ("last ", -1), ("next ", 1)] {
                bases.append((.start(period, which), "start of \(word)\(period)"))
                bases.append((.end(period, which), "end of \(word)\(period)"))
            }
        }
        var result: [Expression] = []
        for (base, text) in bases {
            result.append(Expression(base: base, baseText: text, count: 0, unit: nil))
            for unit in units {
                for count in counts {
                    result.append(Expression(base: base, baseText: text, count: count, unit: unit))
                    if count != 0 { result.append(Expression(base: base, baseText: text, count: -count, unit: unit)) }
                }
            }
        }
        return result
    }

    static func text(_ e: Expression, variant: Int = 0) -> String {
        guard let unit = e.unit else { return variant % 2 == 1 ? e.baseText.uppercased() : e.baseText }
        let sign = e.count < 0 ? "-" : "+"
        let spelled = abs(e.count) == 1 && variant % 3 != 2 ? unit : unit + "s"
        // A date must stand apart from the sign (`2024-02-29+2days` is not read): the grammar splits a word at signs.
        let fixed: Bool
        if case .fixed = e.base { fixed = true } else { fixed = false }
        switch variant % 4 {
        case 1 where !fixed: return "\(e.baseText.uppercased())\(sign)\(abs(e.count))\(spelled)"
        case 2: return "\(e.baseText) \(sign)\(abs(e.count)) \(spelled.capitalized)"
        case 3: return "  \(e.baseText)   \(sign)  \(abs(e.count))   \(spelled)  ".trimmingCharacters(in: .whitespaces)
        default: return "\(e.baseText) \(sign) \(abs(e.count)) \(spelled)"
        }
    }

    // MARK: The reference

    static func leap(_ y: Int) -> Bool { y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) }
    static func length(_ y: Int, _ m: Int) -> Int { [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] }
    static let before = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334]
    static func floorDiv(_ a: Int, _ b: Int) -> Int { a >= 0 ? a / b : -((-a + b - 1) / b) }

    /// Days since 0001-01-01.
    static func ordinal(_ y: Int, _ m: Int, _ d: Int) -> Int {
        let p = y - 1
        return 365 * p + floorDiv(p, 4) - floorDiv(p, 100) + floorDiv(p, 400) + before[m - 1] + (m > 2 && leap(y) ? 1 : 0) + d - 1
    }

    static func civil(_ n: Int) -> (Int, Int, Int) {
        var y = Int((Double(n) / 365.2425).rounded(.down)) + 1
        while ordinal(y, 1, 1) > n { y -= 1 }
        while ordinal(y + 1, 1, 1) <= n { y += 1 }
        var m = 12
        while ordinal(y, m, 1) > n { m -= 1 }
        return (y, m, n - ordinal(y, m, 1) + 1)
    }

    static let first = ordinal(1, 1, 1), last = ordinal(9999, 12, 31)

    /// The month `index` (year × 12 + month − 1) as year and month, nil when far outside the years.
    static func month(_ index: Int) -> (Int, Int)? {
        let y = floorDiv(index, 12)
        guard (-1...10_001).contains(y) else { return nil }
        return (y, index - y * 12 + 1)
    }

    /// `n` moved by `months`, the day kept or the month's last.
    static func addMonths(_ n: Int, _ months: Int) -> Int? {
        let (y, m, d) = civil(n)
        guard let (y2, m2) = month(y * 12 + m - 1 + months) else { return nil }
        return ordinal(y2, m2, min(d, length(y2, m2)))
    }

    static func reference(_ e: Expression, today: Int) -> (Int, Int, Int)? {
        let n = e.count
        let months = e.unit == "month" ? n : e.unit == "quarter" ? 3 * n : e.unit == "year" ? 12 * n : 0
        let days = e.unit == "day" ? n : e.unit == "week" ? 7 * n : 0
        let (ty, tm, _) = civil(today)
        let periodMonths = ["month": 1, "quarter": 3, "year": 12]
        func firstMonth(_ period: String) -> Int {
            period == "month" ? ty * 12 + tm - 1 : period == "quarter" ? ty * 12 + (tm - 1) / 3 * 3 : ty * 12
        }
        // 0001-01-01 was a Monday.
        let monday = today - ((today % 7) + 7) % 7
        var result: Int?
        switch e.base {
        case .fixed(let y, let m, let d): result = addMonths(ordinal(y, m, d), months)
        case .today(let k): result = addMonths(today + k, months)
        case .start(let period, let which):
            if period == "week" {
                result = addMonths(monday + 7 * which, months)
            } else if let (y, m) = month(firstMonth(period) + periodMonths[period]! * which) {
                result = addMonths(ordinal(y, m, 1), months)
            }
        case .end(let period, let which):
            if period == "week" {
                // The day before next Monday, moved by months from that Monday.
                result = addMonths(monday + 7 * (which + 1), months).map { $0 - 1 }
            } else if let (y, m) = month(firstMonth(period) + periodMonths[period]! * (which + 1) - 1 + months) {
                // The last day of the period's last month, moved.
                result = ordinal(y, m, length(y, m))
            }
        }
        guard let r = result.map({ $0 + days }), (first...last).contains(r) else { return nil }
        return civil(r)
    }

    // MARK: The sweep

    static var days: [Int] {
        var days: [Int] = []
        for year in [1900, 2000, 2023, 2024] { days += ordinal(year, 1, 1)...ordinal(year, 12, 31) }
        days += ordinal(1, 1, 1)...ordinal(1, 3, 31)
        days += ordinal(9999, 10, 1)...ordinal(9999, 12, 31)
        return days
    }

    func check(_ e: Expression, _ text: String, parsed: RelativeDate, today: Int, failures: inout Int) {
        let (y, m, d) = RelativeDatePropertyTests.civil(today)
        let day = Day(year: y, month: m, day: d)!
        let expected = RelativeDatePropertyTests.reference(e, today: today)
        let got = parsed.resolve(today: day)
        let same = expected.map { got?.year == $0.0 && got?.month == $0.1 && got?.day == $0.2 } ?? (got == nil)
        if !same {
            failures += 1
            if failures <= 20 { XCTFail("\"\(text)\" on \(day): \(got?.description ?? "outside") ≠ \(expected.map { "\($0)" } ?? "outside")") }
            return
        }
        if expected == nil {
            // Outside the years: the one-line error a parameter gives.
            guard case .failure(let problem) = ParameterType.date.value(text, today: day) else { return XCTFail("\"\(text)\" on \(day)") }
            XCTAssertEqual(problem.message, "\"\(text)\" falls outside the years 1 to 9999")
        }
    }

    func testEveryFormOnEveryDayEqualsTheReference() throws {
        let expressions = RelativeDatePropertyTests.expressions
        let days = RelativeDatePropertyTests.days
        var failures = 0, checked = 0
        if Trials.isStress && ProcessInfo.processInfo.environment["BOOKKEEPER_RELATIVE_DATE_SAMPLES"] == nil {
            for e in expressions {
                let text = RelativeDatePropertyTests.text(e)
                let parsed = try XCTUnwrap(RelativeDate(parsing: text), text)
                for today in days {
                    check(e, text, parsed: parsed, today: today, failures: &failures)
                    checked += 1
                }
            }
            reportTrials("relative dates", "\(expressions.count) expressions × \(days.count) days = \(checked), full sweep")
            return
        }
        let seed = Trials.seed(fixed: 25)
        let samples = Trials.count("BOOKKEEPER_RELATIVE_DATE_SAMPLES", quick: 60_000, stress: 60_000)
        var g = SeededGenerator(seed: seed)
        for _ in 0..<samples {
            let e = g.pick(expressions)
            let text = RelativeDatePropertyTests.text(e, variant: g.next(upTo: 4))
            let parsed = try XCTUnwrap(RelativeDate(parsing: text), text)
            check(e, text, parsed: parsed, today: g.pick(days), failures: &failures)
            checked += 1
        }
        reportTrials("relative dates", "\(checked) samples of \(expressions.count) expressions × \(days.count) days, seed \(seed)")
    }

    func value(_ text: String, on today: String) -> String {
        switch ParameterType.date.value(text, today: Day(iso: today)!) {
        case .success(let value): return value.description
        case .failure(let problem): return problem.message
        }
    }

    /// `end of month - 1 months` on 30 June was 30 May: the 31st's orders fell out of a report.
    func testEndOfMonthMinusAMonthKeepsTheEndOfTheMonth() {
        XCTAssertEqual(value("end of month - 1 months", on: "2026-06-30"), "2026-05-31")
        XCTAssertEqual(value("end of quarter - 3 months", on: "2026-06-30"), "2026-03-31")
        XCTAssertEqual(value("end of quarter - 1 quarter", on: "2026-05-10"), "2026-03-31")
        XCTAssertEqual(value("end of month + 1 month", on: "2026-02-10"), "2026-03-31")
        XCTAssertEqual(value("end of year - 1 year", on: "2024-02-29"), "2023-12-31")
        XCTAssertEqual(value("end of last month - 1 month", on: "2024-03-31"), "2024-01-31")
        XCTAssertEqual(value("end of month - 1 month", on: "2024-03-15"), "2024-02-29")
        // A day that is not an end keeps its day, or the month's last.
        XCTAssertEqual(value("today - 1 month", on: "2026-06-30"), "2026-05-30")
        XCTAssertEqual(value("2024-03-31 - 1 month", on: "2026-06-30"), "2024-02-29")
    }

    /// `end of month` with today in December 9999 "fell outside the years": the next month's start did.
    func testEndOfMonthInDecember9999() {
        XCTAssertEqual(value("end of month", on: "9999-12-25"), "9999-12-31")
        XCTAssertEqual(value("end of year", on: "9999-12-25"), "9999-12-31")
        XCTAssertEqual(value("end of quarter", on: "9999-12-25"), "9999-12-31")
        XCTAssertEqual(value("end of week", on: "9999-12-25"), "9999-12-26")
        XCTAssertEqual(value("start of last year + 1 year", on: "0001-06-01"), "0001-01-01")
        XCTAssertEqual(value("start of next month", on: "9999-12-25"), #""start of next month" falls outside the years 1 to 9999"#)
        XCTAssertEqual(value("end of week", on: "9999-12-31"), #""end of week" falls outside the years 1 to 9999"#)
    }
}
