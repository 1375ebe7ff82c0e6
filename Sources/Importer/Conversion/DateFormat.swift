// Date formats as strftime-style patterns, parsed strictly from bytes.
//
// Directives: %Y (year, 4 digits), %y (2 digits: 69–99 are 1969–1999, 00–68 are 2000–2068, as POSIX
// strptime), %m (month), %d (day, zero-padded), %e (day, space-padded as strftime writes it: " 3"; "03" too),
// %b and %h (month name abbreviated, English, any case), %B (full month name), %H (hour 0–23), %I (hour 1–12)
// with %p (AM/PM, any case), %M, %S (0–60; a leap second 60 is read as 59), %F (= %Y-%m-%d), %T (= %H:%M:%S),
// %% (a percent sign). Anything else is matched literally. The whole text must match: trailing text is an error.
// A Date attribute ignores the time parts; a DateTime attribute uses them, as a local time in the zone outputs use
// ($TZ; see ValueConverter).
//
// Widths, so that no text is read two ways (issue 24: `2024113` with %Y%m%d was read as 2024-11-03, though a
// writer that drops zeros writes 2024-01-13 the same way): %Y is exactly 4 digits and %y exactly 2. %m %d %e %H
// %I %M %S are exactly 2 characters, and may be a single digit only when the field is delimited on both sides —
// what comes before it (the start of the text, a literal that is not a digit, a month name, AM/PM) and what comes
// after it (the end of the text or one of those) cannot be a digit. So `1/2/2024` is %d/%m/%Y and `3Nov2024` is
// %d%b%Y, but with %Y%m%d every field has its full width: `20241103`, never `2024113`. A pattern that cannot
// delimit a field (%Y%m%d, %H%M%S) thereby asks for its padding.

import ObjectStore

package struct DateFormat: Sendable, Equatable, CustomStringConvertible {
    enum Part: Sendable, Equatable {
        case literal(UInt8)
        case year4, year2, month, day, daySpacePadded, monthAbbreviation, monthName, hour24, hour12, ampm, minute, second
    }

    package struct PatternError: Error, Equatable {
        package let message: String
    }

    package let pattern: String
    let parts: [Part]
    /// For each part, whether a two-digit field of it may be a single digit: it is delimited on both sides.
    let narrow: [Bool]
    /// Whether the pattern has time parts.
    package let hasTime: Bool

    package static let iso = try! DateFormat("%Y-%m-%d")

    package init(_ pattern: String) throws(PatternError) {
        self.pattern = pattern
        var parts: [Part] = []
        var bytes = Array(pattern.utf8)[...]
        var seen: Set<String> = []
        while let b = bytes.popFirst() {
            guard b == UInt8(ascii: "%") else { parts.append(.literal(b)); continue }
            guard let d = bytes.popFirst() else { throw PatternError(message: "ends with a lone %") }
            let expansion: [Part]
            switch d {
            case UInt8(ascii: "Y"): expansion = [.year4]
            case UInt8(ascii: "y"): expansion = [.year2]
            case UInt8(ascii: "m"): expansion = [.month]
            case UInt8(ascii: "d"): expansion = [.day]
            case UInt8(ascii: "e"): expansion = [.daySpacePadded]
            case UInt8(ascii: "b"), UInt8(ascii: "h"): expansion = [.monthAbbreviation]
            case UInt8(ascii: "B"): expansion = [.monthName]
            case UInt8(ascii: "H"): expansion = [.hour24]
            case UInt8(ascii: "I"): expansion = [.hour12]
            case UInt8(ascii: "p"): expansion = [.ampm]
            case UInt8(ascii: "M"): expansion = [.minute]
            case UInt8(ascii: "S"): expansion = [.second]
            case UInt8(ascii: "F"): expansion = [.year4, .literal(UInt8(ascii: "-")), .month, .literal(UInt8(ascii: "-")), .day]
            case UInt8(ascii: "T"): expansion = [.hour24, .literal(UInt8(ascii: ":")), .minute, .literal(UInt8(ascii: ":")), .second]
            case UInt8(ascii: "%"): expansion = [.literal(UInt8(ascii: "%"))]
            default:
                throw PatternError(message: "unknown directive %\(Character(UnicodeScalar(d))) (known: %Y %y %m %d %e %b %B %H %I %p %M %S %F %T %%)")
            }
            parts += expansion
            for p in expansion {
                let name: String
                switch p {
                case .year4, .year2: name = "year"
                case .month, .monthAbbreviation, .monthName: name = "month"
                case .day, .daySpacePadded: name = "day"
                case .hour24, .hour12: name = "hour"
                default: continue
                }
                if !seen.insert(name).inserted { throw PatternError(message: "gives the \(name) twice") }
            }
        }
        guard seen.contains("year"), seen.contains("month"), seen.contains("day") else {
            throw PatternError(message: "needs a year, a month and a day (%Y or %y, %m or %b, %d)")
        }
        if parts.contains(.hour12) != parts.contains(.ampm) {
            throw PatternError(message: "%I and %p go together")
        }
        self.parts = parts
        // A neighbour that may be a digit could take a digit of this field's, or give it one.
        func delimits(_ p: Part?) -> Bool {
            switch p {
            case nil, .monthAbbreviation, .monthName, .ampm: return true
            case .literal(let b): return !(48...57).contains(b)
            default: return false
            }
        }
        narrow = parts.indices.map { k in
            delimits(k > 0 ? parts[k - 1] : nil) && delimits(k + 1 < parts.count ? parts[k + 1] : nil)
        }
        hasTime = parts.contains { [.hour24, .hour12, .minute, .second].contains($0) }
    }

    package var description: String { pattern }

    static let monthAbbreviations: [[UInt8]] = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"].map { Array($0.utf8) }
    static let monthNames: [[UInt8]] = ["january", "february", "march", "april", "may", "june", "july", "august",
                                        "september", "october", "november", "december"].map { Array($0.utf8) }

    /// The day and the seconds into it, or nil when the text does not match or is not a real date.
    package func parse(_ text: UnsafeBufferPointer<UInt8>) -> (day: Day, seconds: Int)? {
        var i = 0
        let n = text.count
        var year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0
        var pm: Bool?
        func digits(_ width: Int) -> Int? {
            guard i + width <= n else { return nil }
            var value = 0
            for k in i..<(i + width) {
                guard text[k] >= 48, text[k] <= 57 else { return nil }
                value = value * 10 + Int(text[k] - 48)
            }
            i += width
            return value
        }
        // Two characters, a pad (zero, or a space when `space`) then a digit; or where `narrow`, one digit alone,
        // which the next part (not a digit) then ends.
        func field(_ narrow: Bool, space: Bool = false) -> Int? {
            if space, i + 1 < n, text[i] == 32 {
                i += 1
                return digits(1)
            }
            if narrow, i < n, i + 1 == n || text[i + 1] < 48 || text[i + 1] > 57 { return digits(1) }
            return digits(2)
        }
        func name(_ table: [[UInt8]]) -> Int? {
            for (m, candidate) in table.enumerated() where i + candidate.count <= n {
                var match = true
                for (k, c) in candidate.enumerated() where text[i + k] | 0x20 != c { match = false; break }
                if match { i += candidate.count; return m + 1 }
            }
            return nil
        }
        for (part, narrow) in zip(parts, narrow) {
            switch part {
            case .literal(let b):
                guard i < n, text[i] == b else { return nil }
                i += 1
            case .year4: guard let v = digits(4) else { return nil }; year = v
            case .year2: guard let v = digits(2) else { return nil }; year = v < 69 ? 2000 + v : 1900 + v
            case .month: guard let v = field(narrow) else { return nil }; month = v
            case .day: guard let v = field(narrow) else { return nil }; day = v
            case .daySpacePadded: guard let v = field(narrow, space: true) else { return nil }; day = v
            case .monthAbbreviation: guard let v = name(DateFormat.monthAbbreviations) else { return nil }; month = v
            case .monthName: guard let v = name(DateFormat.monthNames) else { return nil }; month = v
            case .hour24: guard let v = field(narrow), v < 24 else { return nil }; hour = v
            case .hour12: guard let v = field(narrow), (1...12).contains(v) else { return nil }; hour = v
            case .minute: guard let v = field(narrow), v < 60 else { return nil }; minute = v
            case .second: guard let v = field(narrow), v < 61 else { return nil }; second = min(v, 59)
            case .ampm:
                guard i + 2 <= n, text[i + 1] | 0x20 == UInt8(ascii: "m") else { return nil }
                switch text[i] | 0x20 {
                case UInt8(ascii: "a"): pm = false
                case UInt8(ascii: "p"): pm = true
                default: return nil
                }
                i += 2
            }
        }
        guard i == n, let d = Day(year: year, month: month, day: day) else { return nil }
        if let pm { hour = hour % 12 + (pm ? 12 : 0) }
        return (d, hour * 3600 + minute * 60 + second)
    }
}
