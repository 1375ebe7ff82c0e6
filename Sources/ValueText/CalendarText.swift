// Dates and times as text, without DateFormatter.
//
// Why this file exists: report output is a contract and must not depend on the machine's locale
// or calendar settings; and a report of 200,000 rows with a date-time column should not build a
// formatter per cell. Dates are proleptic Gregorian (days from civil, after Howard Hinnant's
// algorithms); date-times are shown in the document's time zone, at the offset that zone had then.

import Foundation
import LocalTime

package enum CalendarText {
    /// Days since 1970-01-01 of a proleptic Gregorian date.
    package static func days(year: Int, month: Int, day: Int) -> Int { CivilCalendar.days(year: year, month: month, day: day) }

    /// The proleptic Gregorian date `days` after 1970-01-01.
    package static func date(days: Int) -> (year: Int, month: Int, day: Int) { CivilCalendar.date(days: days) }

    /// `2026-01-05`; years outside 0…9999 keep their sign and digits (`-0044-03-15`, `10000-01-01`).
    package static func isoDate(year: Int, month: Int, day: Int) -> String {
        let yearText = year < 0 ? "-" + padded(-year, 4) : padded(year, 4)
        return yearText + "-" + padded(month, 2) + "-" + padded(day, 2)
    }

    /// `+01:00`, `-03:30`, `+00:00` (seconds only when the offset has some: `+00:09:21`).
    package static func isoOffset(seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let magnitude = abs(seconds)
        var text = sign + padded(magnitude / 3600, 2) + ":" + padded(magnitude / 60 % 60, 2)
        if magnitude % 60 != 0 { text += ":" + padded(magnitude % 60, 2) }
        return text
    }

    package static func padded(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }
}

/// An instant as wall-clock time in a time zone.
package struct LocalDateTime: Sendable {
    package var year: Int, month: Int, day: Int
    package var hour: Int, minute: Int, second: Int
    /// Seconds east of UTC at that instant.
    package var offset: Int

    package init(secondsSinceEpoch: Int64, timeZone: Zone) {
        offset = timeZone.offset(at: secondsSinceEpoch)
        let local = secondsSinceEpoch + Int64(offset)
        let days = local >= 0 ? local / 86_400 : (local - 86_399) / 86_400
        let secondOfDay = Int(local - days * 86_400)
        (year, month, day) = CalendarText.date(days: Int(days))
        hour = secondOfDay / 3600
        minute = secondOfDay / 60 % 60
        second = secondOfDay % 60
    }

    package init(_ date: Date, timeZone: Zone) {
        self.init(secondsSinceEpoch: Int64(date.timeIntervalSince1970.rounded(.down)), timeZone: timeZone)
    }

    /// `2026-11-21`
    package var isoDate: String { CalendarText.isoDate(year: year, month: month, day: day) }

    /// `2026-11-21 21:00`
    package var minutesText: String {
        isoDate + " " + CalendarText.padded(hour, 2) + ":" + CalendarText.padded(minute, 2)
    }

    /// `2026-11-21T21:00:05+01:00` (ISO 8601 with the zone's offset; `+00:00` for UTC).
    package var iso8601: String {
        isoDate + "T" + CalendarText.padded(hour, 2) + ":" + CalendarText.padded(minute, 2) + ":"
            + CalendarText.padded(second, 2) + CalendarText.isoOffset(seconds: offset)
    }
}
