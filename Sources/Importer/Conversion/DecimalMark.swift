// Which mark is a number column's decimal one, decided once for the column from all its values.
//
// Why: read value by value, `261,96` was refused ("try --decimal-comma") while `22,368` in the same column
// went in as 22368, and with --on-error skip a real export's 3,900 lines went in 1000× too large. A value
// says which convention it writes when only one reading fits it (`261,96`, `1.234,50`, `1,234,567` and
// `14.62` are each readable one way only); one with a single mark and three digits after it (`22,368`,
// `1.500`) reads both ways. The column takes the convention its values show; values of both conventions
// in one column are an error naming both; a column of values that read both ways alone stops with the
// place, both readings and the options that choose. One exception, from the delimiter: in a file separated
// by commas a decimal comma would need quotes on every value, so an unquoted `2.000` there is two (as
// `export` writes a quantity); a quoted `1,500` there still stops.

import CSV

package enum DecimalMark: Sendable, Equatable {
    case point, comma

    var character: String { self == .point ? "." : "," }
    var option: String { self == .point ? "--decimal-point" : "--decimal-comma" }
}

/// What one value says about its column's decimal mark.
enum MarkEvidence: Equatable {
    /// No `.` or `,` (or only in a way neither mark reads: left to the conversion to refuse).
    case none
    /// Readable only with this decimal mark.
    case only(DecimalMark)
    /// A single mark with one to three digits before it (no leading zero) and three after: both readings fit.
    case either
}

enum MarkClassifier {
    /// Classifies the trimmed bytes of a number cell.
    static func evidence(_ b: UnsafeBufferPointer<UInt8>) -> MarkEvidence {
        var commas = 0, points = 0, last: UInt8 = 0, lastAt = -1
        for (i, c) in b.enumerated() where c == 0x2C || c == 0x2E {
            if c == 0x2C { commas += 1 } else { points += 1 }
            last = c
            lastAt = i
        }
        if commas == 0 && points == 0 { return .none }
        let lastMark: DecimalMark = last == 0x2C ? .comma : .point
        if commas > 0 && points > 0 { return .only(lastMark) }               // `1,234.50`, `1.234,50`
        if commas + points > 1 { return .only(lastMark == .comma ? .point : .comma) }   // `1,234,567`, `1.234.567`
        // One mark: a thousands mark needs 1–3 digits before it (the first not 0) and exactly 3 after.
        var start = 0
        if b.first == 0x2B || b.first == 0x2D { start = 1 }
        let before = lastAt - start, after = b.count - lastAt - 1
        guard before >= 1, before <= 3, after == 3, b[start] != 0x30 else { return .only(lastMark) }
        for i in start..<b.count where i != lastAt && !(b[i] >= 0x30 && b[i] <= 0x39) { return .only(lastMark) }
        return .either
    }
}

/// One column's evidence in a pass, and how its values readable both ways were read.
struct MarkTally {
    struct Place: Equatable {
        var line: Int
        var column: Int
        var text: String
    }
    /// The first value readable only with a comma, and only with a point.
    var comma: Place?
    var point: Place?
    /// The first value readable both ways, and the first such value whose mark is a comma.
    var either: Place?
    var eitherWithComma: Place?
    var eitherReadAsComma = false
    var eitherReadAsPoint = false

    /// The mark the column's values show, when they show one.
    var shown: DecimalMark? { comma != nil ? .comma : point != nil ? .point : nil }
}
