// Proleptic Gregorian days and the UTC calendar year of an instant (Howard Hinnant's days_from_civil /
// civil_from_days), for any year: the one copy every module's calendar (the zone rules, Day, Timestamp, relative
// dates, the renderers' dates) counts days with. It lives here because LocalTime depends on nothing.

package enum CivilCalendar {
    /// Days since 1970-01-01 of a proleptic Gregorian date (any year; month 1–12, day 1–31).
    package static func days(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    package static func date(days: Int) -> (year: Int, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func isLeap(_ year: Int) -> Bool { (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return isLeap(year) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Whole days (rounded down) in `seconds` since the epoch.
    static func floorDays(_ seconds: Int64) -> Int64 {
        // (Not `(seconds - 86_399) / 86_400`, which overflows within a day of Int64.min.)
        seconds / 86_400 - (seconds % 86_400 < 0 ? 1 : 0)
    }

    /// The UTC calendar year an instant falls in.
    static func year(of seconds: Int64) -> Int { date(days: Int(floorDays(seconds))).year }

    /// 0 for Sunday … 6 for Saturday (1970-01-01 was a Thursday).
    static func weekday(days: Int) -> Int { ((days + 4) % 7 + 7) % 7 }
}
