import Foundation
import LocalTime

/// A calendar day with no time and no time zone, stored as `YYYY-MM-DD` text so that text order is date order.
public struct Day: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The year, 1 to 9999.
    public let year: Int
    /// The month, 1 to 12.
    public let month: Int
    /// The day of the month, 1 to 31.
    public let day: Int

    /// The day, or nil when there is no such day between 0001-01-01 and 9999-12-31.
    public init?(year: Int, month: Int, day: Int) {
        guard (1...9999).contains(year), (1...12).contains(month),
              day >= 1, day <= Day.daysInMonth(year: year, month: month) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// Parses exactly `YYYY-MM-DD` and refuses impossible days such as `2024-02-30`.
    public init?(iso text: some StringProtocol) {
        // Read in place when the text is contiguous (every native String): an array per date was a malloc per date
        // cell of a fetch (issue 27).
        guard let (y, m, d) = text.utf8.withContiguousStorageIfAvailable(Day.isoParts) ?? Day.isoParts(Array(text.utf8)) else {
            return nil
        }
        self.init(year: y, month: m, day: d)
    }

    private static func isoParts(_ b: some RandomAccessCollection<UInt8>) -> (Int, Int, Int)? {
        guard b.count == 10 else { return nil }
        var digits = (0, 0, 0)
        for (i, byte) in b.enumerated() {
            if i == 4 || i == 7 {
                guard byte == UInt8(ascii: "-") else { return nil }
                continue
            }
            guard byte >= 48 && byte <= 57 else { return nil }
            let digit = Int(byte - 48)
            switch i {
            case 0..<4: digits.0 = digits.0 * 10 + digit
            case 5..<7: digits.1 = digits.1 * 10 + digit
            default: digits.2 = digits.2 * 10 + digit
            }
        }
        return digits
    }

    package static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The first and last days a date holds: 0001-01-01 and 9999-12-31.
    package static let first = Day(checkedYear: 1, month: 1, day: 1)
    package static let last = Day(checkedYear: 9999, month: 12, day: 31)

    private init(checkedYear year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// Today in `zone` (the process's, TZ), as a user at the terminal sees it; a clock outside the years 1 to 9999
    /// gives the nearest day a date holds rather than a trap.
    package static func today(now: Date = Date(), zone: Zone = .process) -> Day {
        let seconds = Int64(now.timeIntervalSince1970.rounded(.down))
        let days = Int(zone.localDays(at: seconds))
        return Day(daysSinceEpoch: days) ?? (days < 0 ? .first : .last)
    }

    /// Today for this run (`RunMoment.today`): `BOOKKEEPER_TODAY` when set — for tests, and for re-running a past
    /// night's jobs — else the system clock in the process's time zone. `$TODAY` in predicates, `default: today`
    /// and the reports' relative dates all count from it.
    package static func current() -> Day { RunMoment.today }

    /// Days since 1970-01-01 (negative before), for arithmetic.
    package var daysSinceEpoch: Int { CivilCalendar.days(year: year, month: month, day: day) }

    package init?(daysSinceEpoch: Int) {
        let (year, month, day) = CivilCalendar.date(days: daysSinceEpoch)
        self.init(year: year, month: month, day: day)
    }

    package func adding(days: Int) -> Day? { Day(daysSinceEpoch: daysSinceEpoch + days) }

    public static func < (a: Day, b: Day) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }

    public var description: String {
        func pad(_ n: Int, _ w: Int) -> String {
            let s = String(n)
            return String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(year, 4))-\(pad(month, 2))-\(pad(day, 2))"
    }
}

/// A moment in time, to the second, stored as UTC text `YYYY-MM-DDTHH:MM:SSZ`.
public struct Timestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z (negative before).
    public let secondsSinceEpoch: Int64

    /// The instant `secondsSinceEpoch` seconds after 1970-01-01T00:00:00Z.
    public init(secondsSinceEpoch: Int64) { self.secondsSinceEpoch = secondsSinceEpoch }

    /// The current instant, to the second.
    public static func now() -> Timestamp {
        Timestamp(secondsSinceEpoch: Int64(Date().timeIntervalSince1970.rounded(.down)))
    }

    /// The store's text (always with `Z`) and other text with an explicit offset: `YYYY-MM-DDTHH:MM:SS` (or a space
    /// instead of `T`) with an optional `Z`, `±HH:MM` or `±HH:MM:SS` offset; without an offset the time is UTC. Text a user wrote
    /// is read by `Timestamp.parse(_:in:)`, where a time without an offset is a local time in the zone.
    public init?(iso text: some StringProtocol) {
        guard let (local, offset) = Timestamp.isoParts(text) else { return nil }
        let t = local - Int64(offset ?? 0)
        // `0001-01-01T00:00:00+01:00` is in year 0 in UTC: not a value the store holds.
        guard Timestamp.range.contains(t) else { return nil }
        self.init(secondsSinceEpoch: t)
    }

    /// The local time written (seconds since 1970-01-01T00:00:00 in its zone) and the offset, if one is written.
    static func isoParts(_ text: some StringProtocol) -> (local: Int64, offset: Int?)? {
        if case .parts(let local, let offset) = scan(text) { return (local, offset) }
        return nil
    }

    /// What `scan` found in a text.
    enum Scan: Equatable {
        case parts(local: Int64, offset: Int?)
        case malformed
        /// A date-time with an offset of 24 hours or more, or 60 minutes or seconds (`+05:99`, `+24:00`).
        case offsetOutOfRange(String)
    }

    /// `YYYY-MM-DDTHH:MM:SS` (or a space for `T`), then nothing, `Z`, `±HH:MM` or `±HH:MM:SS`. An offset has hours
    /// 00–23 and minutes and seconds 00–59 (RFC 3339, ISO 8601); seconds are for local mean time (`-00:44:30`,
    /// Monrovia before 1972), which `fetch` writes and so must read back, as Python's fromisoformat and RFC 9557 do.
    ///
    /// The local date may be in year 0000 or be 10000-01-01 (as `CalendarText` writes them): a stored instant (years
    /// 1 to 9999 in UTC) falls there in a zone west or east of Greenwich (`0001-01-01T00:00:00Z` is
    /// `0000-12-31T19:03:58-04:56:02` in New York), and what `fetch`, `list` and `show` write must read back. Whether
    /// the instant is one the store holds is for the caller (`Timestamp.range`).
    static func scan(_ text: some StringProtocol) -> Scan {
        let b = Array(String(text).utf8)
        func number(_ r: Range<Int>) -> Int? {
            var n = 0
            for i in r {
                guard i < b.count, b[i] >= 48 && b[i] <= 57 else { return nil }
                n = n * 10 + Int(b[i] - 48)
            }
            return n
        }
        // `w` is how much longer than YYYY-MM-DD the date is: 1 for year 10000.
        let w = b.count >= 6 && b[5] == UInt8(ascii: "-") && number(0..<5) == 10_000 ? 1 : 0
        guard b.count >= 19 + w, let year = number(0..<4 + w), b[4 + w] == UInt8(ascii: "-"), b[7 + w] == UInt8(ascii: "-"),
              let month = number(5 + w..<7 + w), let dayOfMonth = number(8 + w..<10 + w), (1...12).contains(month),
              dayOfMonth >= 1, dayOfMonth <= Day.daysInMonth(year: year, month: month) else { return .malformed }
        let days = CivilCalendar.days(year: year, month: month, day: dayOfMonth)
        guard b[10 + w] == UInt8(ascii: "T") || b[10 + w] == UInt8(ascii: " "),
              b[13 + w] == UInt8(ascii: ":"), b[16 + w] == UInt8(ascii: ":") else { return .malformed }
        guard let hh = number(11 + w..<13 + w), let mm = number(14 + w..<16 + w), let ss = number(17 + w..<19 + w),
              hh < 24, mm < 60, ss < 60 else { return .malformed }
        var offset: Int?
        let rest = b[(19 + w)...]
        let o = 19 + w
        if rest.isEmpty {
            offset = nil
        } else if Array(rest) == [UInt8(ascii: "Z")] {
            offset = 0
        } else if rest.count == 6 || rest.count == 9, rest.first == UInt8(ascii: "+") || rest.first == UInt8(ascii: "-"),
                  let oh = number(o + 1..<o + 3), b[o + 3] == UInt8(ascii: ":"), let om = number(o + 4..<o + 6) {
            var os = 0
            if rest.count == 9 {
                guard b[o + 6] == UInt8(ascii: ":"), let seconds = number(o + 7..<o + 9) else { return .malformed }
                os = seconds
            }
            guard oh < 24, om < 60, os < 60 else { return .offsetOutOfRange(String(decoding: rest, as: UTF8.self)) }
            offset = (oh * 3600 + om * 60 + os) * (rest.first == UInt8(ascii: "-") ? -1 : 1)
        } else {
            return .malformed
        }
        return .parts(local: Int64(days) * 86400 + Int64(hh * 3600 + mm * 60 + ss), offset: offset)
    }

    /// The UTC date of the instant; nil outside the years 1 to 9999 (`Timestamp.range`).
    public var day: Day? { Day(daysSinceEpoch: Int(Timestamp.floorDays(secondsSinceEpoch))) }

    /// The day the instant falls on (days since 1970-01-01, rounded down). Written without `seconds - 86_399`, which
    /// overflowed for an instant within a day of `Int64.min` (attack 18, finding 6).
    static func floorDays(_ seconds: Int64) -> Int64 { seconds / 86_400 - (seconds % 86_400 < 0 ? 1 : 0) }

    /// The seconds since the start of the instant's day, 0 to 86,399 (`seconds - floorDays * 86_400` would overflow
    /// near `Int64.min`).
    static func secondsOfDay(_ seconds: Int64) -> Int64 {
        let r = seconds % 86_400
        return r < 0 ? r + 86_400 : r
    }

    public static func < (a: Timestamp, b: Timestamp) -> Bool { a.secondsSinceEpoch < b.secondsSinceEpoch }

    /// `YYYY-MM-DDTHH:MM:SSZ`. Every way in refuses an instant outside `Timestamp.range`; one made directly from
    /// seconds that is outside is still written (its year as it falls, `0000-12-31T23:00:00Z`), never a trap.
    public var description: String {
        let days = Timestamp.floorDays(secondsSinceEpoch)
        let daySeconds = Timestamp.secondsOfDay(secondsSinceEpoch)
        func pad(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let date = day?.description ?? Timestamp.civilText(days: days)
        return "\(date)T\(pad(daySeconds / 3600)):\(pad(daySeconds / 60 % 60)):\(pad(daySeconds % 60))Z"
    }

    /// The proleptic Gregorian date of any day, for instants outside the years a `Day` holds.
    static func civilText(days: Int64) -> String {
        let (year, month, day) = CivilCalendar.date(days: Int(days))
        let (y, m, d) = (Int64(year), Int64(month), Int64(day))
        func pad(_ n: Int64, _ w: Int) -> String {
            let s = String(abs(n))
            return (n < 0 ? "-" : "") + String(repeating: "0", count: max(0, w - s.count)) + s
        }
        return "\(pad(y, 4))-\(pad(m, 2))-\(pad(d, 2))"
    }
}
