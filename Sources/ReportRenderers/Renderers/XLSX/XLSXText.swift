// Text that goes into a workbook's XML outside cells: document properties, print headers and footers,
// chart titles, sheet names.
//
// Why this file exists: libxlsxwriter 1.1.4 escapes control characters only in cell text (as `_x001B_`);
// everywhere else it writes them raw, and XML 1.0 forbids them — openpyxl refuses such a file and Excel
// offers to repair it. So every such string passes through here first. Swift strings hold no lone
// surrogates, so the characters left to replace are C0 controls and U+FFFE, U+FFFF.

enum XLSXText {
    /// What a character XML cannot hold becomes: `?`, as the text renderer shows control characters.
    static let replacement: Character = "?"

    /// `text` with every character XML 1.0 forbids — C0 controls other than tab, LF and CR, and U+FFFE,
    /// U+FFFF — replaced by `?`; NUL too (the C API would end the string there).
    static func xmlSafe(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isForbidden) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { isForbidden($0) ? "?" : $0 }))
    }

    /// One line for a print header or footer or a chart title: line breaks and tabs become spaces (a
    /// taller header would overlap the page), other control characters `?`.
    static func singleLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0xFFFE || $0.value == 0xFFFF }) else {
            return text
        }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { scalar -> Unicode.Scalar in
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: return " "
            case 0..<0x20, 0xFFFE, 0xFFFF: return "?"
            default: return scalar
            }
        }))
    }

    static func isForbidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x09, 0x0A, 0x0D: return false
        case 0..<0x20, 0xFFFE, 0xFFFF: return true
        default: return false
        }
    }
}
