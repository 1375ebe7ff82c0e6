// The one text form of a value (issue 28): how `fetch --format csv`, the CSV and JSON reports, `list`, `show` and the
// messages that quote a stored value write each kind of value. The renderers build their formats on it (money's
// decimals, the text report's grouping and minutes: ReportRenderers' CellText); the engine writes its values with
// it (ObjectStore's `Value.text(in:)`). Nothing here depends on the machine's locale.
//
// Numbers are exact and never have an exponent: decimals at their scale (`92233720368547758.07`), doubles in their
// shortest form that reads back (`0.1`, `100000000000000000000`, `0.000005`), negative zero as `0`, NaN and the
// infinities as `NaN`, `Infinity`, `-Infinity`; dates `YYYY-MM-DD`; date-times ISO 8601 in a zone with its offset
// at that instant (`2026-11-21T21:00:00+01:00`); booleans `true`/`false`; bytes `0x` and lower-case hex.

import LocalTime

package enum PlainText {
    package static func decimal(units: Int128, scale: Int) -> String { DecimalText(units: units, scale: scale).text() }

    package static func double(_ value: Double) -> String { DecimalText(double: value)?.text() ?? nonFinite(value) }

    package static func nonFinite(_ value: Double) -> String { value.isNaN ? "NaN" : value < 0 ? "-Infinity" : "Infinity" }

    package static func boolean(_ value: Bool) -> String { value ? "true" : "false" }

    package static func date(year: Int, month: Int, day: Int) -> String { CalendarText.isoDate(year: year, month: month, day: day) }

    package static func dateTime(secondsSinceEpoch: Int64, in zone: Zone) -> String {
        LocalDateTime(secondsSinceEpoch: secondsSinceEpoch, timeZone: zone).iso8601
    }

    /// `1,234`: a count in a message (never negative), its digits grouped by threes.
    package static func groupedDigits(_ n: Int) -> String {
        let digits = String(n)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out.append(",") }
            out.append(c)
        }
        return out
    }

    /// Items of a list (a to-many column), each already written, joined with `, `; an item that would not read
    /// back as itself in quotes (`listItem`): `"x, y", z`. The rule `export` writes and `import` reads
    /// (ObjectStore's `ListText`).
    package static func list(_ items: [String]) -> String {
        items.map { listItem($0) }.joined(separator: ", ")
    }

    /// `item` as written in a list separated by `separator`: as it is, or in quotes when it would not read back as
    /// itself — empty, holding the separator, a quote or a line break, or beginning or ending with a space (Unicode's
    /// White_Space, which Foundation's `whitespacesAndNewlines` holds and a list's reader trims) — a quote inside
    /// written twice. Scalar by scalar: a quote followed by a combining accent is one Character, which String's own
    /// replacing would not see as a quote.
    package static func listItem(_ item: String, separator: Unicode.Scalar = ",") -> String {
        let scalars = item.unicodeScalars
        func isSpace(_ s: Unicode.Scalar) -> Bool { s.properties.isWhitespace }
        let needs = scalars.isEmpty || isSpace(scalars.first!) || isSpace(scalars.last!)
            || scalars.contains { $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == separator }
        guard needs else { return item }
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in scalars {
            quoted.append(scalar)
            if scalar == "\"" { quoted.append("\"") }
        }
        quoted.append("\"")
        return String(quoted)
    }

    package static func bytes(_ bytes: some Sequence<UInt8>) -> String {
        var hex = "0x"
        for byte in bytes { hex += (byte < 16 ? "0" : "") + String(byte, radix: 16) }
        return hex
    }
}
