// A POSIX TZ string (`EST5EDT,M3.2.0,M11.1.0`, `<+03>-3`, `CET-1CEST,M3.5.0,M10.5.0/3`): as the value of TZ, and as
// the footer of a zoneinfo file, which says what follows its last transition.
//
// The grammar (POSIX.1-2024 "TZ", as glibc reads it, with the extensions RFC 8536 names for footers):
//
//     tz     = std offset [ dst [ offset ] "," rule "," rule ]
//     std    = dst = three or more ASCII letters | "<" three or more of A-Z a-z 0-9 + - ">"
//     offset = [ "+" | "-" ] hh [ ":" mm [ ":" ss ] ]         hours 0–24, west of Greenwich positive (EST5 is UTC-5)
//     rule   = date [ "/" time ]
//     date   = "J" n (1–365, February 29 never counted) | n (0–365, counted) | "M" m "." w "." d
//              (month 1–12, week 1–5 with 5 the last, weekday 0–6 with 0 Sunday)
//     time   = [ "+" | "-" ] hh [ ":" mm [ ":" ss ] ]         hours 0–167, local time before the change; default 02:00
//
// Stricter than glibc, which reads what it can and ignores the rest: anything after a complete string, a DST name
// without the two rules (glibc then takes them from the `posixrules` file, which gives muddled results for years its
// transitions do not cover), or a single rule, is refused, with where and why.
//
// A change happens in each UTC calendar year as glibc's __tz_compute computes it: both changes are computed for the
// UTC year of the instant, and daylight time is in effect between them (or outside them, south of the equator). That
// is what glibc's localtime gives for every rule, odd ones included (`J365/25`, negative times), and what the
// differential test against it checks. One difference: glibc computes the changes of years before 1970 as if they
// were in 1970 (compute_change starts from 1970-01-01 for any earlier year), so it shows standard time for every
// instant before 1970; here the rules apply in every year.

struct POSIXRule: Sendable, Equatable {
    struct Change: Sendable, Equatable {
        enum Day: Sendable, Equatable {
            /// Jn: 1–365, February 29 never counted.
            case julian(Int)
            /// n: 0–365, February 29 counted.
            case ordinal(Int)
            /// Mm.w.d
            case monthWeekDay(month: Int, week: Int, weekday: Int)
        }
        var day: Day
        /// Seconds after local midnight (of the time in effect before the change).
        var time: Int
    }

    struct Daylight: Sendable, Equatable {
        var name: String
        /// Seconds east of Greenwich.
        var offset: Int
        var start: Change
        var end: Change
    }

    var standardName: String
    /// Seconds east of Greenwich.
    var standardOffset: Int
    var daylight: Daylight?

    struct ParseError: Error, Equatable {
        let reason: String
    }

    // MARK: Parsing

    init(parsing text: String) throws(ParseError) {
        var p = Parser(Array(text.utf8))
        standardName = try p.name("the standard time's name")
        guard let standard = try p.offset(hourLimit: 24) else {
            throw ParseError(reason: p.atEnd ? "the name \(standardName) needs an offset after it (as in EST5 or <+03>-3)"
                                             : "an offset (as in EST5 or <+03>-3) must follow \(standardName), not \(p.rest)")
        }
        standardOffset = -standard
        guard !p.atEnd else { daylight = nil; return }
        let daylightName = try p.name("the daylight saving time's name after the offset")
        let daylightOffset = try p.offset(hourLimit: 24).map { -$0 } ?? standardOffset + 3600
        guard p.take(UInt8(ascii: ",")) else {
            throw ParseError(reason: p.atEnd
                ? "it names a daylight saving time (\(daylightName)) but not when it starts and ends: add the two rules, "
                  + "as in \(text),M3.5.0,M10.5.0/3 (the EU) or \(text),M3.2.0,M11.1.0 (the US)"
                : "expected a comma and the rules after \(daylightName)'s offset, not \(p.rest)")
        }
        let start = try p.change()
        guard p.take(UInt8(ascii: ",")) else {
            throw ParseError(reason: p.atEnd ? "it gives when daylight saving time starts but not when it ends (a second rule)"
                                             : "expected a comma and the second rule, not \(p.rest)")
        }
        let end = try p.change()
        guard p.atEnd else { throw ParseError(reason: "unexpected \(p.rest) after the second rule") }
        daylight = Daylight(name: daylightName, offset: daylightOffset, start: start, end: end)
    }

    private struct Parser {
        let bytes: [UInt8]
        var i = 0
        init(_ bytes: [UInt8]) { self.bytes = bytes }

        var atEnd: Bool { i == bytes.count }
        var rest: String { "\"" + String(decoding: bytes[i...], as: UTF8.self) + "\"" }
        var peek: UInt8? { i < bytes.count ? bytes[i] : nil }

        mutating func take(_ b: UInt8) -> Bool {
            guard peek == b else { return false }
            i += 1
            return true
        }

        static func isLetter(_ b: UInt8) -> Bool { (65...90).contains(b) || (97...122).contains(b) }
        static func isDigit(_ b: UInt8) -> Bool { (48...57).contains(b) }

        mutating func name(_ what: String) throws(ParseError) -> String {
            if take(UInt8(ascii: "<")) {
                let start = i
                while let b = peek, Parser.isLetter(b) || Parser.isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") { i += 1 }
                let name = String(decoding: bytes[start..<i], as: UTF8.self)
                guard take(UInt8(ascii: ">")) else {
                    throw ParseError(reason: atEnd ? "the quoted name <\(name) has no closing >"
                                                   : "a quoted name holds only letters, digits, + and -, not \(rest)")
                }
                guard name.utf8.count >= 3 else { throw ParseError(reason: "the quoted name <\(name)> is shorter than three characters") }
                return name
            }
            let start = i
            while let b = peek, Parser.isLetter(b) { i += 1 }
            let name = String(decoding: bytes[start..<i], as: UTF8.self)
            guard name.utf8.count >= 3 else {
                if atEnd && name.isEmpty { throw ParseError(reason: "\(what) is missing") }
                throw ParseError(reason: "\(what) must be three or more letters (or <…> quoted), not \(name.isEmpty ? rest : "\"\(name)\"")")
            }
            return name
        }

        /// Up to `width` digits, at least one.
        mutating func number(_ width: Int) -> Int? {
            let start = i
            var value = 0
            while let b = peek, Parser.isDigit(b), i - start < width {
                value = value * 10 + Int(b - 48)
                i += 1
            }
            return i > start ? value : nil
        }

        /// `[+-]hh[:mm[:ss]]` as seconds (positive west, as written), or nil when no sign or digit starts here.
        mutating func offset(hourLimit: Int) throws(ParseError) -> Int? {
            guard let b = peek, Parser.isDigit(b) || b == UInt8(ascii: "+") || b == UInt8(ascii: "-") else { return nil }
            let negative = take(UInt8(ascii: "-"))
            if !negative { _ = take(UInt8(ascii: "+")) }
            // Every digit written, so that the message quotes the number as written (`99999`, not its first two).
            let start = i
            while let b = peek, Parser.isDigit(b) { i += 1 }
            guard i > start else { throw ParseError(reason: "expected hours after the sign, not \(atEnd ? "the end" : rest)") }
            let written = String(decoding: bytes[start..<i], as: UTF8.self)
            guard let hours = Int(written), hours <= hourLimit else {
                throw ParseError(reason: "\(written) hours is more than \(hourLimit)")
            }
            guard i - start <= (hourLimit > 99 ? 3 : 2) else { throw ParseError(reason: "too many digits in hours \(written)") }
            var seconds = hours * 3600
            for unit in [60, 1] {
                guard take(UInt8(ascii: ":")) else { break }
                guard let v = number(2), v <= 59 else {
                    throw ParseError(reason: "expected minutes or seconds 00–59 after the colon, not \(atEnd ? "the end" : rest)")
                }
                seconds += v * unit
            }
            if let b = peek, Parser.isDigit(b) { throw ParseError(reason: "too many digits in \(rest)") }
            return negative ? -seconds : seconds
        }

        mutating func change() throws(ParseError) -> Change {
            let day: Change.Day
            if take(UInt8(ascii: "J")) {
                guard let n = number(3), (1...365).contains(n) else { throw ParseError(reason: "Jn takes a day 1–365") }
                day = .julian(n)
            } else if take(UInt8(ascii: "M")) {
                guard let m = number(2), (1...12).contains(m), take(UInt8(ascii: ".")),
                      let w = number(1), (1...5).contains(w), take(UInt8(ascii: ".")),
                      let d = number(1), (0...6).contains(d) else {
                    throw ParseError(reason: "Mm.w.d takes a month 1–12, a week 1–5 and a weekday 0–6 (as in M3.5.0)")
                }
                day = .monthWeekDay(month: m, week: w, weekday: d)
            } else if let n = number(3) {
                guard n <= 365 else { throw ParseError(reason: "a day of the year n is 0–365, not \(n)") }
                day = .ordinal(n)
            } else {
                throw ParseError(reason: "a rule is Jn, n or Mm.w.d, not \(atEnd ? "nothing" : rest)")
            }
            if let b = peek, Parser.isDigit(b) { throw ParseError(reason: "too many digits in \(rest)") }
            var time = 7200
            if take(UInt8(ascii: "/")) {
                guard let t = try offset(hourLimit: 167) else { throw ParseError(reason: "a time must follow /, not \(atEnd ? "nothing" : rest)") }
                time = t
            }
            return Change(day: day, time: time)
        }
    }

    // MARK: Computing

    /// The day (since 1970-01-01) in `year` on which `change` happens.
    static func day(of change: Change, in year: Int) -> Int {
        let january1 = CivilCalendar.days(year: year, month: 1, day: 1)
        switch change.day {
        case .julian(let n):
            return january1 + n - 1 + (n >= 60 && CivilCalendar.isLeap(year) ? 1 : 0)
        case .ordinal(let n):
            return january1 + n
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilCalendar.days(year: year, month: month, day: 1)
            var d = (weekday - CivilCalendar.weekday(days: first) + 7) % 7
            let length = CivilCalendar.daysInMonth(year: year, month: month)
            for _ in 1..<week where d + 7 < length { d += 7 }
            return first + d
        }
    }

    /// When daylight time starts and ends in `year` (UTC seconds), as glibc's compute_change.
    func changes(in year: Int, _ daylight: Daylight) -> (start: Int64, end: Int64) {
        let start = Int64(POSIXRule.day(of: daylight.start, in: year)) * 86_400 + Int64(daylight.start.time - standardOffset)
        let end = Int64(POSIXRule.day(of: daylight.end, in: year)) * 86_400 + Int64(daylight.end.time - daylight.offset)
        return (start, end)
    }

    func isDaylight(at t: Int64) -> Bool {
        guard let daylight else { return false }
        let (start, end) = changes(in: CivilCalendar.year(of: t), daylight)
        return start > end ? (t < end || t >= start) : (t >= start && t < end)
    }

    func offset(at t: Int64) -> Int {
        guard let daylight else { return standardOffset }
        return isDaylight(at: t) ? daylight.offset : standardOffset
    }

    func abbreviation(at t: Int64) -> String {
        guard let daylight else { return standardName }
        return isDaylight(at: t) ? daylight.name : standardName
    }

    /// Every instant in `range` at which the offset may change (a superset: the two changes of each year, and the
    /// start of each UTC year, where the per-year computation can switch too).
    func breakpoints(in range: ClosedRange<Int64>, into result: inout [Int64]) {
        guard let daylight else { return }
        for year in CivilCalendar.year(of: range.lowerBound)...CivilCalendar.year(of: range.upperBound) {
            let (start, end) = changes(in: year, daylight)
            let january1 = Int64(CivilCalendar.days(year: year, month: 1, day: 1)) * 86_400
            for t in [january1, start, end] where range.contains(t) { result.append(t) }
        }
    }

    var largestOffsetMagnitude: Int {
        max(abs(standardOffset), abs(daylight?.offset ?? 0))
    }
}
