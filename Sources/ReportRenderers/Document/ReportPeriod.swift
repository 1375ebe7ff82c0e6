// Calendar periods as report values: a column grouped by `month(date)`, `quarter(date)`,
// `week(date)` or `year(date)` holds one period per row.
//
// Why this file exists: text, CSV and JSON show a period as the store's query gives it (`2026-03`,
// `2026-Q1`, `2026-W09`, `2026`), but a spreadsheet needs a real date to sort, filter and group by —
// the period's first day, formatted to read as the period. And a report of twelve months must show
// the months without data too, so periods have successors. Weeks are ISO 8601's: Monday first, each
// belonging to the year of its Thursday (2026-W01 starts on Monday 2025-12-29).

import ValueText

/// A calendar period unit.
package enum ReportPeriodUnit: String, Sendable, Hashable, CaseIterable {
    case month, quarter, week, year
}

/// One period: a unit and an ordinal (months, quarters and years counted from year 0; weeks as the
/// day number of their Monday).
package struct ReportPeriod: Sendable, Hashable, Comparable {
    package let unit: ReportPeriodUnit
    /// Months since 0000-01, quarters since 0000-Q1, the year, or for weeks days from 1970-01-01 to the Monday.
    let ordinal: Int

    init(unit: ReportPeriodUnit, ordinal: Int) {
        self.unit = unit
        self.ordinal = ordinal
    }

    /// The period of `unit` that holds the date.
    package init(unit: ReportPeriodUnit, year: Int, month: Int, day: Int) {
        self.unit = unit
        switch unit {
        case .month: ordinal = year * 12 + month - 1
        case .quarter: ordinal = year * 4 + (month - 1) / 3
        case .year: ordinal = year
        case .week:
            let days = CalendarText.days(year: year, month: month, day: day)
            ordinal = days - ReportPeriod.isoWeekday(days: days)
        }
    }

    /// The period a cell of a period column holds (`2026-03`, `2026-Q1`, `2026-W09`, `2026` as text or an
    /// integer); nil for anything else.
    package init?(unit: ReportPeriodUnit, cell: ReportCell) {
        switch cell {
        case .integer(let value) where unit == .year:
            self.init(unit: .year, ordinal: Int(value))
        case .text(let text):
            self.init(unit: unit, text: text)
        default:
            return nil
        }
    }

    init?(unit: ReportPeriodUnit, text: String) {
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var n = 0
            for i in range {
                let d = Int(bytes[i]) - 48
                guard d >= 0 && d <= 9 else { return nil }
                n = n * 10 + d
            }
            return n
        }
        guard let year = number(0..<4) else { return nil }
        switch unit {
        case .year:
            guard bytes.count == 4 else { return nil }
            self.init(unit: .year, ordinal: year)
        case .month:
            guard bytes.count == 7, bytes[4] == UInt8(ascii: "-"), let month = number(5..<7), (1...12).contains(month) else { return nil }
            self.init(unit: .month, ordinal: year * 12 + month - 1)
        case .quarter:
            guard bytes.count == 7, bytes[4] == UInt8(ascii: "-"), bytes[5] == UInt8(ascii: "Q"), let quarter = number(6..<7),
                  (1...4).contains(quarter) else { return nil }
            self.init(unit: .quarter, ordinal: year * 4 + quarter - 1)
        case .week:
            guard bytes.count == 8, bytes[4] == UInt8(ascii: "-"), bytes[5] == UInt8(ascii: "W"), let week = number(6..<8),
                  week >= 1, week <= ReportPeriod.weeksInISOYear(year) else { return nil }
            self.init(unit: .week, ordinal: ReportPeriod.mondayOfWeekOne(year) + (week - 1) * 7)
        }
    }

    package static func < (a: ReportPeriod, b: ReportPeriod) -> Bool { a.ordinal < b.ordinal }

    /// The next period.
    package var next: ReportPeriod { ReportPeriod(unit: unit, ordinal: ordinal + (unit == .week ? 7 : 1)) }

    /// The period before.
    package var previous: ReportPeriod { ReportPeriod(unit: unit, ordinal: ordinal - (unit == .week ? 7 : 1)) }

    /// The period's first day.
    package var firstDay: (year: Int, month: Int, day: Int) {
        switch unit {
        case .month: return (Int(floorDiv(ordinal, 12)), ordinal - floorDiv(ordinal, 12) * 12 + 1, 1)
        case .quarter: return (floorDiv(ordinal, 4), (ordinal - floorDiv(ordinal, 4) * 4) * 3 + 1, 1)
        case .year: return (ordinal, 1, 1)
        case .week: return CalendarText.date(days: ordinal)
        }
    }

    /// As text, CSV and JSON show it: `2026-03`, `2026-Q1`, `2026-W09`, `2026`. A year is an integer there (`1` for
    /// the year 1, a JSON number), so it is not padded here either: XLSX writes a year before 1900 as this text,
    /// and wrote `0001` where every other output wrote `1`.
    package var text: String {
        switch unit {
        case .year:
            return String(firstDay.year)
        case .month:
            let day = firstDay
            return CalendarText.padded(day.year, 4) + "-" + CalendarText.padded(day.month, 2)
        case .quarter:
            return CalendarText.padded(floorDiv(ordinal, 4), 4) + "-Q" + String(ordinal - floorDiv(ordinal, 4) * 4 + 1)
        case .week:
            let (year, week) = isoWeek
            return CalendarText.padded(year, 4) + "-W" + CalendarText.padded(week, 2)
        }
    }

    /// The ISO year and week number of a week.
    var isoWeek: (year: Int, week: Int) {
        let thursday = CalendarText.date(days: ordinal + 3)
        let dayOfYear = ordinal + 3 - CalendarText.days(year: thursday.year, month: 1, day: 1)
        return (thursday.year, dayOfYear / 7 + 1)
    }

    /// The cell a period column holds for this period: the year as an integer, the others as text.
    package var cell: ReportCell {
        unit == .year ? .integer(Int64(ordinal)) : .text(text)
    }

    /// 0 for Monday … 6 for Sunday.
    static func isoWeekday(days: Int) -> Int {
        // 1970-01-01 was a Thursday (3).
        ((days % 7) + 7 + 3) % 7
    }

    /// The Monday of ISO week 1 of `year`: the week holding 4 January.
    static func mondayOfWeekOne(_ year: Int) -> Int {
        let fourth = CalendarText.days(year: year, month: 1, day: 4)
        return fourth - isoWeekday(days: fourth)
    }

    static func weeksInISOYear(_ year: Int) -> Int {
        (mondayOfWeekOne(year + 1) - mondayOfWeekOne(year)) / 7
    }
}

private func floorDiv(_ a: Int, _ b: Int) -> Int {
    a >= 0 ? a / b : -((-a + b - 1) / b)
}
