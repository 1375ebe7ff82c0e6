// Text from the store, a file name or the command line, made safe to print on a terminal or in a cron mail.
//
// Why this file exists: `list`, `fetch`, `show`, the import summary, `imports` and `init` wrote stored text and
// file names as they were: an ESC sequence in a customer's name cleared or retitled the operator's terminal, and
// a line feed in a file name began a forged `bookkeeper:` line in the mail. Every text output (and every message)
// writes such a character as `<U+001B>`, as the messages did; CSV and JSON outputs keep the exact bytes.

public enum VisibleText {
    /// `text` with every character that would act on a terminal or begin a line written `<U+001B>` (four hex
    /// digits at least; the brackets keep it apart from the text that follows).
    public static func escaped(_ text: String) -> String {
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
    public static func code(_ scalar: Unicode.Scalar) -> String {
        let digits = String(scalar.value, radix: 16, uppercase: true)
        return "<U+\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits)>"
    }

    /// C0 and C1 controls and DEL (C1 holds CSI, U+009B, which some terminals obey), the Unicode line and
    /// paragraph separators, which end a line for some readers, and the bidirectional embeddings, overrides and
    /// isolates, which reorder what follows them on the line ("Trojan Source").
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0..<0x20, 0x7F..<0xA0, 0x2028, 0x2029, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
