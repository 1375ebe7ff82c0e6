// Dates relative to today, for parameter defaults and `--param`: a nightly job asks for "last month"
// without anyone editing a date.
//
//     date   = base [ ("+" | "-") count unit ]
//     base   = YYYY-MM-DD | "today" | "yesterday" | "tomorrow"
//            | ( "start" | "end" ) "of" [ "this" | "last" | "next" ] ( "week" | "month" | "quarter" | "year" )
//     unit   = "day" | "days" | "week" | "weeks" | "month" | "months" | "quarter" | "quarters" | "year" | "years"
//
// Words in any case; spaces optional around the sign and before the unit (`today-30days`). Weeks
// start on Monday (ISO 8601). Adding months (a quarter is 3, a year 12) keeps the day of the month, or the month's
// last day when it has fewer days: `today - 1 month` on 2026-03-31 is 2026-02-28. An end of a period moved by months
// stays an end: it is the day before the start of the following period, moved — `end of month - 1 month` on 30 June
// is 31 May (the day before 1 June), `end of quarter - 3 months` in the second quarter 31 March, `end of year - 1
// year` 31 December of the year before. Only the result must lie in the years 1 to 9999 (`end of month` in December
// 9999 is 9999-12-31, though the next month's start is not a day of those years).

import LocalTime
import ObjectStore

package struct RelativeDate: Sendable, Hashable, CustomStringConvertible {
    enum Period: String, CaseIterable { case week, month, quarter, year }
    enum Unit { case day, week, month, quarter, year }
    enum Base: Hashable {
        case fixed(Day)
        /// Days from today: 0 today, -1 yesterday, 1 tomorrow.
        case today(Int)
        /// The start or end of this (0), last (-1) or next (1) period.
        case start(Period, Int)
        case end(Period, Int)
    }

    let base: Base
    let offset: Int
    let unit: Unit
    /// The text as written.
    package let text: String

    /// Phrases for messages and did-you-mean.
    static let phrases: [String] = {
        var phrases = ["today", "yesterday", "tomorrow"]
        for edge in ["start", "end"] {
            for which in ["", "last ", "next "] {
                for period in Period.allCases { phrases.append("\(edge) of \(which)\(period.rawValue)") }
            }
        }
        return phrases
    }()

    /// A count that moves any day out of the years 1 to 9999 in every unit (they span 3,652,059 days), so that
    /// larger ones need not be computed: `count * 12` stays far from overflowing. Any count whose result lies in
    /// those years is taken (`today + 999999 days` is in 4764).
    static let countBeyondTheYears = 10_000_000

    /// What a date may be, for messages.
    package static let forms = "YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, "
        + "today - 30 days, …"

    package init?(parsing text: String) {
        self.text = text
        var words = RelativeDate.tokens(text.lowercased())
        guard let first = words.first else { return nil }
        var base: Base
        if let day = Day(iso: first) {
            base = .fixed(day)
            words.removeFirst()
        } else if ["today", "yesterday", "tomorrow"].contains(first) {
            base = .today(first == "today" ? 0 : first == "yesterday" ? -1 : 1)
            words.removeFirst()
        } else if first == "start" || first == "end", words.count >= 3, words[1] == "of" {
            var index = 2
            var which = 0
            if ["this", "last", "next"].contains(words[index]) {
                which = words[index] == "last" ? -1 : words[index] == "next" ? 1 : 0
                index += 1
            }
            guard index < words.count, let period = Period(rawValue: words[index]) else { return nil }
            base = first == "start" ? .start(period, which) : .end(period, which)
            words.removeFirst(index + 1)
        } else {
            return nil
        }
        self.base = base
        if words.isEmpty {
            offset = 0
            unit = .day
            return
        }
        guard words.count == 3, words[0] == "+" || words[0] == "-", !words[1].isEmpty,
              words[1].allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        // A count too large for an Int is still a count: it resolves outside the years, and says so.
        let count = min(Int(words[1]) ?? RelativeDate.countBeyondTheYears, RelativeDate.countBeyondTheYears)
        switch words[2] {
        case "day", "days": unit = .day
        case "week", "weeks": unit = .week
        case "month", "months": unit = .month
        case "quarter", "quarters": unit = .quarter
        case "year", "years": unit = .year
        default: return nil
        }
        offset = words[0] == "-" ? -count : count
    }

    /// Splits into words, with `+` and `-` as words of their own except inside a date.
    private static func tokens(_ text: String) -> [String] {
        var tokens: [String] = []
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\t" }) {
            if Day(iso: word) != nil || Int(word) != nil && !word.hasPrefix("+") && !word.hasPrefix("-") {
                tokens.append(String(word))
                continue
            }
            var current = ""
            for c in word {
                if c == "+" || c == "-" {
                    if !current.isEmpty { tokens.append(current); current = "" }
                    tokens.append(String(c))
                } else if let last = current.last, last.isNumber != c.isNumber {
                    tokens.append(current)       // `30days`
                    current = String(c)
                } else {
                    current.append(c)
                }
            }
            if !current.isEmpty { tokens.append(current) }
        }
        return tokens
    }

    /// The day this date is when today is `today`; nil outside years 1–9999. The way there may pass days outside
    /// them (the start of the month after December 9999): days are counted as plain numbers and only the result
    /// must be a day.
    package func resolve(today: Day) -> Day? {
        let months: Int
        switch unit {
        case .day, .week: months = 0
        case .month: months = offset
        case .quarter: months = offset * 3
        case .year: months = offset * 12
        }
        let days = unit == .day ? offset : unit == .week ? offset * 7 : 0
        var result: Int
        switch base {
        case .fixed(let day):
            result = RelativeDate.adding(months: months, to: day.daysSinceEpoch)
        case .today(let shift):
            result = RelativeDate.adding(months: months, to: today.daysSinceEpoch + shift)
        case .start(let period, let which):
            result = RelativeDate.adding(months: months, to: RelativeDate.start(of: period, shifted: which, from: today))
        case .end(let period, let which):
            // The day before the next period's start, moved: an end of a period stays one.
            result = RelativeDate.adding(months: months, to: RelativeDate.start(of: period, shifted: which + 1, from: today)) - 1
        }
        result += days
        return Day(daysSinceEpoch: result)
    }

    /// The first day (days since 1970-01-01) of the period containing `day`, moved by `shift` periods.
    private static func start(of period: Period, shifted shift: Int, from day: Day) -> Int {
        switch period {
        case .week:
            // 1970-01-01 was a Thursday: Monday is 0.
            let weekday = ((day.daysSinceEpoch + 3) % 7 + 7) % 7
            return day.daysSinceEpoch - weekday + 7 * shift
        case .month:
            return firstOfMonth(index: day.year * 12 + day.month - 1 + shift)
        case .quarter:
            return firstOfMonth(index: day.year * 12 + (day.month - 1) / 3 * 3 + 3 * shift)
        case .year:
            return firstOfMonth(index: day.year * 12 + 12 * shift)
        }
    }

    /// Days since 1970-01-01 of the first of the month `index` (year × 12 + month − 1), in any year.
    private static func firstOfMonth(index: Int) -> Int {
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        return daysFromCivil(year: year, month: index - year * 12 + 1, day: 1)
    }

    /// `days` moved by `months`, keeping the day of the month or the month's last day when it has fewer.
    static func adding(months: Int, to days: Int) -> Int {
        guard months != 0 else { return days }
        let (y, m, d) = civilFromDays(days)
        let index = y * 12 + (m - 1) + months
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        let month = index - year * 12 + 1
        return daysFromCivil(year: year, month: month, day: min(d, Day.daysInMonth(year: year, month: month)))
    }

    // For any year (Day's are for the years 1 to 9999).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        CivilCalendar.days(year: year, month: month, day: day)
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) { CivilCalendar.date(days: days) }

    package var description: String { text }

    /// Whether the text is a plain `YYYY-MM-DD` date rather than one relative to today.
    package var isFixed: Bool {
        if case .fixed = base, offset == 0 { return true }
        return false
    }
}
