// Worksheet names Excel accepts, made from report names.
//
// Excel's rules: at most 31 characters (counted in UTF-16), none of `[ ] : * ? / \`, not starting
// or ending with `'`, unique regardless of case, and not `History` (reserved by Excel). We also
// reserve `About`, the sheet describing the reports. Forbidden characters, control characters and
// U+FFFE, U+FFFF (which XML cannot hold) become `_`; a name too long is cut (at a character
// boundary); a repeated name gets ` (2)`, ` (3)`… within the 31 characters; an empty name becomes
// `Report`.

struct XLSXSheetNames {
    static let maximumLength = 31
    static let aboutSheet = "About"
    private static let reserved: Set<String> = ["history", "about"]

    private var used: Set<String> = reserved

    /// A valid name, unused so far, for a sheet of the report named `proposed`.
    mutating func name(for proposed: String) -> String {
        var base = ""
        for character in proposed {
            if "[]:*?/\\".contains(character)
                || character.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F || XLSXText.isForbidden($0) }) {
                base.append("_")
            } else {
                base.append(character)
            }
        }
        base = XLSXSheetNames.trimmed(base)
        if base.isEmpty { base = "Report" }
        var candidate = XLSXSheetNames.cut(base, to: XLSXSheetNames.maximumLength)
        var n = 2
        while used.contains(candidate.lowercased()) {
            let suffix = " (\(n))"
            candidate = XLSXSheetNames.cut(base, to: XLSXSheetNames.maximumLength - suffix.utf16.count) + suffix
            n += 1
        }
        used.insert(candidate.lowercased())
        return candidate
    }

    /// Without leading and trailing spaces and apostrophes.
    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let first = text.first, first == "'" || first == " " { text.removeFirst() }
        while let last = text.last, last == "'" || last == " " { text.removeLast() }
        return String(text)
    }

    /// The longest prefix of whole characters within `limit` UTF-16 units, without a trailing
    /// apostrophe or space.
    private static func cut(_ text: String, to limit: Int) -> String {
        var result = ""
        var length = 0
        for character in text {
            let units = character.utf16.count
            if length + units > limit { break }
            result.append(character)
            length += units
        }
        return trimmed(result)
    }
}
