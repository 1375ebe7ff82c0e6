import ArgumentParser
import FileOutput
import Foundation
import ObjectStore

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
    /// `bookkeeper:` line (or JSON record), and an escape sequence acted on the terminal. (VisibleText.swift,
    /// which every text output uses too.)
    static func oneLine(_ message: String) -> String { VisibleText.escaped(message) }
}

/// A confirmation on stdout (`created bookkeeper.sqlite`, `updated Customer/3`), left out with --quiet — and when
/// the command's result itself went to standard output (`--output /dev/stdout`, `backup /dev/stdout`), where a
/// confirmation would become part of the report or the copy.
func confirm(_ text: String) {
    // Flushed at once: a cron job stopped by a signal must still show every file it replaced before the stop.
    if !Log.quiet && !OutputFile.standardOutputIsAResult {
        // A file name in it (`created x.sqlite`) is written as the messages write it: no control character acts.
        print(VisibleText.escaped(text))
        StandardOutput.flushLine()
    }
}
