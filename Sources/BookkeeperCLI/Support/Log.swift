import ArgumentParser
import FileOutput
import Foundation

/// How messages on stderr are written: `text` lines starting `bookkeeper: `, or one JSON object per line.
enum LogFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}

/// Messages go to stderr, never to stdout where results go. Errors are always written; notices (a migration,
/// a file written, a confirmation) are left out with --quiet, so that cron mails only failures; details are
/// written with --verbose.
enum Log {
    nonisolated(unsafe) static var quiet = false
    nonisolated(unsafe) static var verbose = false
    nonisolated(unsafe) static var format: LogFormat = .text

    static func error(_ message: String) { write("error", message) }
    static func warning(_ message: String) { if !quiet { write("warning", message) } }
    static func notice(_ message: String) { if !quiet { write("notice", message) } }
    static func debug(_ message: String) { if verbose { write("debug", message) } }

    private static func write(_ level: String, _ raw: String) {
        let message = oneLine(raw)
        switch format {
        case .text:
            let prefix = level == "warning" ? "bookkeeper: warning: " : "bookkeeper: "
            printError(prefix + message)
        case .json:
            let time = ISO8601DateFormatter().string(from: Date())
            printError("{\"time\": \(JSONText.string(time)), \"level\": \"\(level)\", \"message\": \(JSONText.string(message))}")
        }
    }
}

extension Log {
    /// The message with every control character written as `<U+000A>`, in the style of the predicate lexer's
    /// `unexpected character U+001B` (the brackets keep it apart from text that follows). Values in messages
    /// come from the command line, definitions and data: a line feed in one began a second, forged
    /// `bookkeeper:` line (or JSON record), and an escape sequence acted on the terminal.
    static func oneLine(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: needsEscape) else { return message }
        var out = String.UnicodeScalarView()
        for scalar in message.unicodeScalars {
            if needsEscape(scalar) {
                let digits = String(scalar.value, radix: 16, uppercase: true)
                out.append(contentsOf: "<U+\(String(repeating: "0", count: max(0, 4 - digits.count)))\(digits)>".unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
    }

    /// C0 and C1 controls (C1 holds CSI, U+009B, which some terminals obey) and the Unicode line and paragraph
    /// separators, which end a line for some readers.
    private static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: true
        default: false
        }
    }
}

/// A confirmation on stdout (`created bookkeeper.sqlite`, `updated Customer/3`), left out with --quiet — and when
/// the command's result itself went to standard output (`--output /dev/stdout`, `backup /dev/stdout`), where a
/// confirmation would become part of the report or the copy.
func confirm(_ text: String) {
    // Flushed at once: a cron job stopped by a signal must still show every file it replaced before the stop.
    if !Log.quiet && !OutputFile.standardOutputIsAResult {
        print(text)
        StandardOutput.flushLine()
    }
}
