// The problems of an import, collected while it runs and rendered as a compiler renders its errors:
// `orders.csv:1742:5: column "date": "31/02/2024" is not a date in format %d/%m/%Y`. Physical line
// numbers (a quoted field may span lines) and, when it differs from the line, the record number. The
// first 20 are shown, then a count of the rest.

import ObjectStore

/// One problem with one place in the input.
package struct ImportIssue: Sendable, Equatable, Codable {
    /// 1-based physical line; 0 when the problem has no line (the end of the import).
    package let line: Int
    /// 1-based character column of the field at fault, when one is.
    package let column: Int?
    /// 1-based record number (the header is record 1), when it differs from `line`.
    package let record: Int?
    package let message: String

    package init(line: Int, column: Int? = nil, record: Int? = nil, message: String) {
        self.line = line
        self.column = column
        self.record = record != line ? record : nil
        // One line each: a value with a line break (a quoted field may have one) is shown with \n.
        self.message = message.contains(where: \.isNewline)
            ? message.replacingOccurrences(of: "\r\n", with: "\\r\\n").replacingOccurrences(of: "\n", with: "\\n")
                .replacingOccurrences(of: "\r", with: "\\r")
            : message
    }

    /// `FILE:LINE[:COLUMN]: message[ (record N)]`
    package func rendered(file: String) -> String {
        var place = file
        if line > 0 {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        var text = "\(place): \(message)"
        if let record { text += " (record \(record))" }
        return text
    }
}

/// An import that failed: every line of `description` is one message. The category gives the exit status.
package struct ImportFailure: CategorizedError {
    package let lines: [String]
    package let category: ErrorCategory
    /// The summary of what was done (counts with --on-error skip; nil when nothing could start).
    package let summary: ImportSummary?

    package init(lines: [String], category: ErrorCategory, summary: ImportSummary? = nil) {
        self.lines = lines
        self.category = category
        self.summary = summary
    }

    package var description: String { lines.joined(separator: "\n") }
    package var messages: [String] { lines }
}

/// Collects issues, keeping the first `shownLimit` and counting the rest.
struct IssueLog {
    static let shownLimit = 20
    private(set) var shown: [ImportIssue] = []
    private(set) var total = 0

    mutating func add(_ issue: ImportIssue) {
        total += 1
        if shown.count < IssueLog.shownLimit { shown.append(issue) }
    }

    func rendered(file: String) -> [String] {
        var lines = shown.map { $0.rendered(file: file) }
        if total > shown.count {
            let more = total - shown.count
            lines.append("… and \(more) more error\(more == 1 ? "" : "s") (\(total) in all)")
        }
        return lines
    }
}
