// Text from the store, a file name or the command line, made safe to print on a terminal or in a cron mail.
//
// Why this file exists: `list`, `fetch`, `show`, the import summary, `imports` and `init` wrote stored text and
// file names as they were: an ESC sequence in a customer's name cleared or retitled the operator's terminal, and
// a line feed in a file name began a forged `bookkeeper:` line in the mail. Every text output (and every message)
// writes such a character as `<U+001B>`, as the messages did; CSV and JSON outputs keep the exact bytes.

package enum VisibleText {
    /// `text` with every character that would act on a terminal or begin a line written `<U+001B>` (four hex
    /// digits at least; the brackets keep it apart from the text that follows).
    package static func escaped(_ text: String) -> String {
        // Most text has no such character: one pass over the bytes, no copy. (Every byte at 0x80 or above may
        // begin a C1 control, a separator or a bidirectional control: those take the slow path.)
        if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            if needsEscape(scalar) {
                out.append(contentsOf: code(scalar).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// `<U+001B>`.
    package static func code(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "<U+\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits)>"
    }

    /// C0 and C1 controls and DEL (C1 holds CSI, U+009B, which some terminals obey), the Unicode line and
    /// paragraph separators, which end a line for some readers, and every bidirectional control (Unicode's
    /// Bidi_Control property: the embeddings, overrides and isolates U+202A–202E and U+2066–2069, and the marks
    /// U+200E, U+200F and U+061C), which reorder what is shown around them on the line ("Trojan Source").
    /// Seen (attack 27, finding 13): the marks were passed raw while the overrides were coded.
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029: true
        case 0..<0x600: false
        default: scalar.properties.isBidiControl
        }
    }

    /// Whether `text[start...]` begins with a code as `code(_:)` writes it (`<U+` four to six hex digits `>`):
    /// its length in characters, else nil. A shortened text is cut before a code, never inside it.
    package static func codeLength<S: StringProtocol>(at start: S.Index, in text: S) -> Int? {
        var i = start
        for expected in "<U+" {
            guard i < text.endIndex, text[i] == expected else { return nil }
            i = text.index(after: i)
        }
        var digits = 0
        while i < text.endIndex, digits <= 6, let ascii = text[i].asciiValue,
              (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(ascii) || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(ascii) {
            digits += 1
            i = text.index(after: i)
        }
        guard (4...6).contains(digits), i < text.endIndex, text[i] == ">" else { return nil }
        return 3 + digits + 1
    }
}
