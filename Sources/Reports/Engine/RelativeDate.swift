// Dates relative to today, for parameter defaults and `--param`: a nightly job asks for "last month"
// without anyone editing a date.
//
//     date   = base [ ("+" | "-") count unit ]
//     base   = YYYY-MM-DD | "today" | "yesterday" | "tomorrow"
//            | ( "start" | "end" ) "of" [ "this" | "last" | "next" ] ( "week" | "month" | "quarter" | "year" )
//     unit   = "day" | "days" | "week" | "weeks" | "month" | "months" | "year" | "years"
//
// Words in any case; spaces optional around the sign and before the unit (`today-30days`). Weeks
// start on Monday (ISO 8601). Adding months or years keeps the day of the month, or the month's last
// day when it has fewer days: `end of month - 1 month` on 2026-11-21 is 2026-10-30 (write
// `end of last month` for 2026-10-31).

import ObjectStore

public struct RelativeDate: Sendable, Hashable, CustomStringConvertible {
    enum Period: String, CaseIterable { case week, month, quarter, year }
    enum Unit { case day, week, month, year }
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
    public let text: String

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
    public static let forms = "YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, "
        + "today - 30 days, …"

    public init?(parsing text: String) {
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

    /// The day this date is when today is `today`; nil outside years 1–9999.
    public func resolve(today: Day) -> Day? {
        guard let day = baseDay(today: today) else { return nil }
        switch unit {
        case .day: return day.adding(days: offset)
        case .week: return day.adding(days: offset * 7)
        case .month: return RelativeDate.adding(months: offset, to: day)
        case .year: return RelativeDate.adding(months: offset * 12, to: day)
        }
    }

    private func baseDay(today: Day) -> Day? {
        switch base {
        case .fixed(let day): return day
        case .today(let days): return today.adding(days: days)
        case .start(let period, let which): return RelativeDate.start(of: period, shifted: which, from: today)
        case .end(let period, let which):
            guard let next = RelativeDate.start(of: period, shifted: which + 1, from: today) else { return nil }
            return next.adding(days: -1)
        }
    }

    /// The first day of the period containing `day`, moved by `shift` periods.
    private static func start(of period: Period, shifted shift: Int, from day: Day) -> Day? {
        switch period {
        case .week:
            // 1970-01-01 was a Thursday: Monday is 0.
            let weekday = ((day.daysSinceEpoch + 3) % 7 + 7) % 7
            return day.adding(days: -weekday + 7 * shift)
        case .month:
            return adding(months: shift, to: Day(year: day.year, month: day.month, day: 1)!)
        case .quarter:
            let first = Day(year: day.year, month: (day.month - 1) / 3 * 3 + 1, day: 1)!
            return adding(months: 3 * shift, to: first)
        case .year:
            return adding(months: 12 * shift, to: Day(year: day.year, month: 1, day: 1)!)
        }
    }

    static func adding(months: Int, to day: Day) -> Day? {
        let index = day.year * 12 + (day.month - 1) + months
        let year = index >= 0 ? index / 12 : (index - 11) / 12
        let month = index - year * 12 + 1
        guard (1...9999).contains(year) else { return nil }
        return Day(year: year, month: month, day: min(day.day, Day.daysInMonth(year: year, month: month)))
    }

    public var description: String { text }

    /// Whether the text is a plain `YYYY-MM-DD` date rather than one relative to today.
    public var isFixed: Bool {
        if case .fixed = base, offset == 0 { return true }
        return false
    }
}
