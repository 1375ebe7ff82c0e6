import LocalTime
import XCTest
import ObjectStore
import TestSupport
@testable import Importer

/// Date formats against a formatter of the test's own: every way a date may be written in a format reads back as
/// that date, and text a digit away from one either is refused or is itself a way of writing what it reads as.
final class DateFormatPropertyTests: XCTestCase {
    /// The formats tried: each directive, fields between separators and side by side, names, AM/PM, literal digits.
    static let formats = [
        "%Y-%m-%d", "%d/%m/%Y", "%m/%d/%y", "%Y%m%d", "%y%m%d", "%d%m%Y", "%d.%m.%Y", "%e %b %Y", "%b %e %Y",
        "%e.%m.%Y", "%B %d, %Y", "%d %B %Y", "%h %d %y", "%d-%b-%y", "%d%b%Y", "%F", "%F %T", "%Y-%m-%dT%H:%M:%S",
        "%Y%m%d%H%M%S", "%Y%m%d %H%M", "%m/%d/%Y %I:%M %p", "%d.%m.%Y %I:%M:%S%p", "%I%p %d/%m/%Y", "%Y/%m/%d %H:%M",
        "%Y-%m-%d 0:00:00", "%Y%%%m%%%d", "%e%m%Y",
    ]

    /// One date and time; the seconds are those into the day that the parser gives back.
    struct Moment: Equatable, CustomStringConvertible {
        var year, month, day, hour, minute, second: Int
        var description: String { "\(year)-\(month)-\(day) \(hour):\(minute):\(second)" }
    }

    enum Token: Equatable {
        case literal(Character)
        case directive(Character)
    }

    /// The pattern as tokens, %F and %T written out.
    static func tokens(_ pattern: String) -> [Token] {
        var out: [Token] = []
        var chars = pattern[...]
        while let c = chars.popFirst() {
            guard c == "%", let d = chars.popFirst() else { out.append(.literal(c)); continue }
            switch d {
            case "F": out += tokens("%Y-%m-%d")
            case "T": out += tokens("%H:%M:%S")
            case "%": out.append(.literal("%"))
            default: out.append(.directive(d))
            }
        }
        return out
    }

    /// Whether a neighbour cannot be a digit (the rule in DateFormat.swift's header, written again here).
    static func delimits(_ token: Token?) -> Bool {
        switch token {
        case nil: return true
        case .literal(let c): return !c.isASCII || !c.isNumber
        case .directive(let d): return "bBhp".contains(d)
        }
    }

    static let months = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                         "October", "November", "December"]

    /// Every text that writes `m` in `pattern`: two-digit fields zero-padded, or as one digit where the rule lets
    /// them, %e padded with a space (or a zero), a leap second (:60) for :59, as the header allows.
    static func writings(_ m: Moment, _ pattern: String) -> Set<String> {
        let tokens = tokens(pattern)
        var texts: Set<String> = [""]
        for (k, token) in tokens.enumerated() {
            let narrow = delimits(k > 0 ? tokens[k - 1] : nil) && delimits(k + 1 < tokens.count ? tokens[k + 1] : nil)
            func two(_ v: Int) -> [String] {
                let padded = v < 10 ? "0\(v)" : "\(v)"
                return narrow && v < 10 ? [padded, "\(v)"] : [padded]
            }
            let choices: [String]
            switch token {
            case .literal(let c): choices = [String(c)]
            case .directive(let d):
                switch d {
                case "Y": choices = [String(repeating: "0", count: max(0, 4 - "\(m.year)".count)) + "\(m.year)"]
                case "y": choices = [m.year % 100 < 10 ? "0\(m.year % 100)" : "\(m.year % 100)"]
                case "m": choices = two(m.month)
                case "d": choices = two(m.day)
                case "e": choices = two(m.day) + (m.day < 10 ? [" \(m.day)"] : [])
                case "b", "h": choices = [String(months[m.month - 1].prefix(3))]
                case "B": choices = [months[m.month - 1]]
                case "H": choices = two(m.hour)
                case "I": choices = two(m.hour % 12 == 0 ? 12 : m.hour % 12)
                case "p": choices = [m.hour < 12 ? "AM" : "PM"]
                case "M": choices = two(m.minute)
                case "S": choices = two(m.second) + (m.second == 59 ? ["60"] : [])
                default: fatalError("no directive %\(d) in the test's formatter")
                }
            }
            texts = Set(texts.flatMap { text in choices.map { text + $0 } })
        }
        return texts
    }

    /// What the pattern keeps of a moment: the parts it has (a pattern without %S reads 0 seconds, and so on).
    static func kept(_ m: Moment, _ pattern: String) -> Moment {
        let has = { (d: Character) in tokens(pattern).contains(.directive(d)) }
        return Moment(year: m.year, month: m.month, day: m.day,
                      hour: has("H") || has("I") ? m.hour : 0, minute: has("M") ? m.minute : 0, second: has("S") ? m.second : 0)
    }

    static func parse(_ text: String, _ format: DateFormat) -> Moment? {
        guard let (day, seconds) = Array(text.utf8).withUnsafeBufferPointer({ format.parse($0) }) else { return nil }
        return Moment(year: day.year, month: day.month, day: day.day,
                      hour: seconds / 3600, minute: seconds / 60 % 60, second: seconds % 60)
    }

    static func randomMoment(_ g: inout SeededGenerator, years: ClosedRange<Int>) -> Moment {
        let year = years.lowerBound + g.next(upTo: years.count)
        let month = 1 + g.next(upTo: 12)
        let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1]
        // Days and hours under 10 and the month ends half the time: they are where the widths matter.
        let day = g.next(upTo: 2) == 0 ? g.pick([1, 2, 9, days]) : 1 + g.next(upTo: days)
        return Moment(year: year, month: month, day: day, hour: g.next(upTo: 2) == 0 ? g.pick([0, 1, 9, 11, 12, 13, 23]) : g.next(upTo: 24),
                      minute: g.next(upTo: 60), second: g.next(upTo: 60))
    }

    func testEveryWritingOfADateReadsBackAsThatDate() throws {
        let trials = Trials.count("BOOKKEEPER_DATE_FORMAT_TRIALS", quick: 400, stress: 20_000)
        let seed = Trials.seed(fixed: 20_241_103)
        var g = SeededGenerator(seed: seed)
        var texts = 0
        for pattern in Self.formats {
            let format = try DateFormat(pattern)
            // %y holds 1969–2068 (the POSIX pivot); the others the whole range.
            let years = pattern.contains("%y") ? 1969...2068 : 1900...2099
            for trial in 0..<trials {
                let m = Self.randomMoment(&g, years: years)
                for text in Self.writings(m, pattern).sorted() {
                    texts += 1
                    XCTAssertEqual(Self.parse(text, format), Self.kept(m, pattern),
                                   "\(pattern): \"\(text)\" (trial \(trial), seed \(seed))")
                }
            }
        }
        reportTrials("date formats: writings read back", "seed \(seed), \(trials) moments in each of \(Self.formats.count) formats, \(texts) texts")
    }

    func testADigitDeletedOrInsertedIsRefusedOrReadAsWhatItWrites() throws {
        let trials = Trials.count("BOOKKEEPER_DATE_FORMAT_TRIALS", quick: 400, stress: 20_000)
        let seed = Trials.seed(fixed: 20_241_103)
        var g = SeededGenerator(seed: seed)
        var refused = 0, read = 0
        for pattern in Self.formats {
            let format = try DateFormat(pattern)
            let years = pattern.contains("%y") ? 1969...2068 : 1900...2099
            for trial in 0..<trials {
                let m = Self.randomMoment(&g, years: years)
                var text = Array(g.pick(Self.writings(m, pattern).sorted()))
                let digits = text.indices.filter { text[$0].isASCII && text[$0].isNumber }
                if g.next(upTo: 2) == 0, !digits.isEmpty {
                    text.remove(at: g.pick(digits))
                } else {
                    text.insert(Character("\(g.next(upTo: 10))"), at: g.next(upTo: text.count + 1))
                }
                let mutated = String(text)
                guard let reading = Self.parse(mutated, format) else { refused += 1; continue }
                read += 1
                XCTAssertTrue(Self.writings(reading, pattern).contains(mutated),
                              "\(pattern): \"\(mutated)\" is read as \(reading), which is not written so (trial \(trial), seed \(seed))")
            }
        }
        reportTrials("date formats: a digit away", "seed \(seed), \(trials) texts in each of \(Self.formats.count) formats: \(refused) refused, \(read) read as what they write")
    }

    /// Issue 24: with fields side by side a single-digit day was read as the month's second digit's neighbour.
    func testADayOfOneDigitBetweenDigitsWasReadAsAnotherDate() throws {
        let converter = ValueConverter(dateFormat: try DateFormat("%Y%m%d"), zone: .utc)
        func convert(_ text: String) throws -> Value {
            try Array(text.utf8).withUnsafeBufferPointer { try converter.convert($0, as: .date) { text } }
        }
        XCTAssertThrowsError(try convert("2024113")) {
            XCTAssertEqual(($0 as? ConversionError)?.message, "\"2024113\" is not a date in format %Y%m%d")
        }
        XCTAssertEqual(try convert("20241103"), .date(Day(year: 2024, month: 11, day: 3)!))
        XCTAssertEqual(try convert("20240113"), .date(Day(year: 2024, month: 1, day: 13)!))
    }

    func testTheWidthsOfEachDirective() throws {
        func reads(_ text: String, _ pattern: String) throws -> Bool { Self.parse(text, try DateFormat(pattern)) != nil }
        // %Y exactly 4, %y exactly 2.
        XCTAssertFalse(try reads("024-01-02", "%Y-%m-%d"))
        XCTAssertFalse(try reads("02024-01-02", "%Y-%m-%d"))
        XCTAssertFalse(try reads("1/2/4", "%d/%m/%y"))
        XCTAssertFalse(try reads("1/2/024", "%d/%m/%y"))
        // One digit between separators; never three.
        XCTAssertTrue(try reads("1/2/2024", "%d/%m/%Y"))
        XCTAssertFalse(try reads("001/2/2024", "%d/%m/%Y"))
        XCTAssertTrue(try reads("2024-03-01 7:08:09", "%Y-%m-%d %H:%M:%S"))
        XCTAssertTrue(try reads("3Nov2024", "%d%b%Y"))
        XCTAssertTrue(try reads("01/02/2024 7PM", "%d/%m/%Y %I%p"))
        // Beside a digit, the full width.
        XCTAssertFalse(try reads("2024113", "%Y%m%d"))
        XCTAssertFalse(try reads("2024-03-01 7:8:9", "%Y-%m-%d %H%M%S"))
        XCTAssertTrue(try reads("202411030", "%Y%m%d0"))
        XCTAssertFalse(try reads("20241130", "%Y%m%d0"))
        // %e pads with a space.
        XCTAssertTrue(try reads("Nov  3 2024", "%b %e %Y"))
        XCTAssertTrue(try reads("Nov 3 2024", "%b %e %Y"))
        XCTAssertTrue(try reads(" 3112024", "%e%m%Y"))
        XCTAssertFalse(try reads("3112024", "%e%m%Y"))
        XCTAssertFalse(try reads(" 13112024", "%e%m%Y"))
        XCTAssertTrue(try reads("Nov 03 2024", "%b %d %Y"))
        XCTAssertFalse(try reads("Nov  3 2024", "%b %d %Y"))
        // Patterns without a year, a month and a day are still refused as patterns.
        for pattern in ["%B %d", "%Y", "%I:%M %p"] { XCTAssertThrowsError(try DateFormat(pattern), pattern) }
    }
}
