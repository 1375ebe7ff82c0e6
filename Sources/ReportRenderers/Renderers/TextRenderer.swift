// The text format: for mail and terminals.
//
// The format (a contract; TextRendererTests hold it):
//
//     Unpaid orders                           title, underlined with `=`
//     =============
//     Orders that are not paid yet.           description, wrapped at the line width (if any)
//                                             blank line
//     Customer: Acme Ltd                      each parameter, `name: value`, in order
//     Sort: due date, oldest first            the sort (if any)
//     Generated 2026-11-21 21:00 UTC          generation time in the document's zone
//                                             blank line
//     Number  Customer  Due             Amount      column titles
//     ------  --------  ----------  ----------      rules as wide as the columns
//     A-1     Acme Ltd  2026-10-01    1,234.50      rows (values as CellText.swift shows them)
//     A-3                           -10,000.00
//     ------  --------  ----------  ----------      with total columns and at least one row:
//     Total                          -8,765.50      the exact sums ("Total" in the first column
//                                                   unless it has a total itself)
//                                             blank line
//     2 rows                                  `0 rows`, `1 row`, `2 rows`
//
// - Columns are separated by two spaces; numbers (integer, number, money, percent) are
//   right-aligned, everything else left-aligned; no line ends with spaces.
// - The table fits in `lineWidth` (78) columns where the data allows: only `text` columns are
//   shortened, the widest first and never below 10 columns, and a shortened value ends with
//   `...`. Numbers, codes and dates are never shortened, so a table of many of them is wider.
// - Line breaks and tabs inside values show as spaces, control characters as `?`
//   (TerminalText.swift); widths count terminal columns (an emoji is 2).
// - No escape codes unless `useColor`: then the title, the column titles and the totals are bold.
// - The rows are held in memory (their shown bytes, each value's length and width) to size the
//   columns: text reports are meant for mail and terminals, not for millions of rows.

import FileOutput
import Foundation
import ValueText

package struct TextRenderer: ReportRenderer {
    /// Bold title, column titles and totals (ANSI escapes). A command line sets it only when
    /// standard output is a terminal and NO_COLOR is unset.
    package var useColor: Bool
    /// The width to fit the table in, where the data allows.
    package var lineWidth: Int

    /// Shortened text columns keep at least this many terminal columns.
    static let minimumShortenedWidth = 10
    static let separator = "  "

    package init(useColor: Bool = false, lineWidth: Int = 78) {
        self.useColor = useColor
        self.lineWidth = lineWidth
    }

    package func render<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
                                              to output: ReportOutput) throws {
        try withOutputChannel(output) { channel in
            let buffer = OutputBuffer(channel)
            try self.write(document, rows: &rows, file: channel.displayName) { chunk in
                try chunk.withUnsafeBytes { try buffer.writeThrough(bytes: $0) }
            }
        }
    }

    /// The whole report as text.
    func text<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows, file: String) throws -> String {
        String(decoding: try bytes(document, rows: &rows, file: file), as: UTF8.self)
    }

    /// The whole report as UTF-8.
    func bytes<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows, file: String) throws -> [UInt8] {
        var whole: [UInt8] = []
        try write(document, rows: &rows, file: file) { whole.append(contentsOf: $0) }
        return whole
    }

    /// The report as UTF-8, handed to `emit` a piece at a time (whole lines, about a megabyte each): the lines are
    /// built as bytes, since appending to a String per value cost more than the rest of the layout. Every row is
    /// read (and every total checked) before the first piece, so a report that fails writes nothing.
    func write<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows, file: String,
                                      emit: ([UInt8]) throws -> Void) throws {
        let cells = CellText(timeZone: document.timeZone)
        let columns = document.columns
        let columnCount = columns.count

        // The shown values, row after row, as UTF-8 in one array (each value's length and terminal width beside it,
        // 8 bytes a value), measured once: a report of 200,000 rows is 800,000 values, and a String for each,
        // measured, shortened and padded, was most of this renderer's time. Numbers and dates are written as bytes
        // (CellBytes.swift).
        var checked = CheckedRows<Rows>(declared: rows.rowCount, columnCount: columnCount, file: file)
        var shown: [UInt8] = []
        var shownLengths: [UInt32] = []
        var shownWidths: [Int32] = []
        if let declared = rows.rowCount {
            shownLengths.reserveCapacity(declared * columnCount)
            shownWidths.reserveCapacity(declared * columnCount)
        }
        var totals = [ColumnTotal](repeating: ColumnTotal(), count: columnCount)
        var naturalWidths = [Int](repeating: 0, count: columnCount)
        var rowCount = 0
        var lastEnd = 0
        func add(_ value: String, column i: Int) {
            shown.append(contentsOf: value.utf8)
            added(width: TerminalText.width(value), column: i)
        }
        func added(width: Int, column i: Int) {
            shownLengths.append(UInt32(shown.count - lastEnd))   // a value is under 4 GiB (SQLite's limit: 1 GiB)
            lastEnd = shown.count
            shownWidths.append(Int32(width))
            if width > naturalWidths[i] { naturalWidths[i] = width }
        }
        let hasTotals = columns.contains(where: \.hasTotal)
        let formats = columns.map(\.format)
        while let row = try checked.next(from: &rows) {
            rowCount += 1
            for i in 0..<columnCount {
                let column = columns[i]
                if let label = column.label(for: row[i]) {
                    add(TerminalText.singleLine(label), column: i)
                } else if case let .text(text) = row[i] {
                    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) {   // one line, one column a byte already
                        shown.append(contentsOf: text.utf8)
                        added(width: text.utf8.count, column: i)
                    } else {
                        add(TerminalText.singleLine(text), column: i)
                    }
                } else {
                    let before = shown.count
                    if CellBytes.appendDisplay(row[i], as: formats[i], to: &shown) {   // ASCII: a column a byte
                        added(width: shown.count - before, column: i)
                    } else {
                        add(cells.display(row[i], as: column.format), column: i)   // one line already
                    }
                }
                if hasTotals && column.hasTotal { totals[i].add(row[i]) }
            }
        }

        var totalRow: [String]?
        if rowCount > 0, columns.contains(where: \.hasTotal) {
            var values = try columns.indices.map { i in
                columns[i].hasTotal ? cells.displayNumber(try totals[i].checkedValue(column: columns[i].title, file: file), as: columns[i].format) : ""
            }
            if !columns[0].hasTotal { values[0] = "Total" }
            totalRow = values
        }

        var output: [UInt8] = []
        func append(_ text: String) { output.append(contentsOf: text.utf8) }
        func appendSpaces(_ count: Int) { for _ in 0..<count { output.append(UInt8(ascii: " ")) } }
        append(headerLines(document).joined(separator: "\n"))
        output.append(newline)
        if !columns.isEmpty {
            let titles = columns.map { TerminalText.singleLine($0.title) }
            for (i, title) in titles.enumerated() { naturalWidths[i] = max(naturalWidths[i], TerminalText.width(title)) }
            for (i, total) in (totalRow ?? []).enumerated() { naturalWidths[i] = max(naturalWidths[i], TerminalText.width(total)) }
            let widths = fittedWidths(columns: columns, natural: naturalWidths)
            let rightAligned = columns.map(\.format.isNumeric)
            // One line: values shortened to their column, padded, two spaces apart, no trailing spaces.
            func line(_ value: (Int) -> (bytes: ArraySlice<UInt8>, width: Int)) {
                let start = output.count
                for i in 0..<columnCount {
                    if i > 0 { appendSpaces(TextRenderer.separator.utf8.count) }
                    var (shownBytes, shownWidth) = value(i)
                    if shownWidth > widths[i] {
                        let shortened = TerminalText.truncated(String(decoding: shownBytes, as: UTF8.self), toWidth: widths[i])
                        shownBytes = ArraySlice(shortened.utf8)
                        shownWidth = TerminalText.width(shortened)
                    }
                    let missing = widths[i] - shownWidth
                    if missing > 0 && rightAligned[i] { appendSpaces(missing) }
                    output.append(contentsOf: shownBytes)
                    if missing > 0 && !rightAligned[i] { appendSpaces(missing) }
                }
                while output.count > start, output.last == UInt8(ascii: " ") { output.removeLast() }
                output.append(newline)
            }
            func line(_ values: [String]) {
                line { (ArraySlice(values[$0].utf8), TerminalText.width(values[$0])) }
            }
            func boldLine(_ values: [String]) {
                let start = output.count
                line(values)
                guard useColor, output.count - 1 > start else { return }
                output.insert(contentsOf: TextRenderer.boldOn.utf8, at: start)
                output.insert(contentsOf: TextRenderer.boldOff.utf8, at: output.count - 1)
            }
            let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: TextRenderer.separator)
            boldLine(titles)
            append(rule)
            output.append(newline)
            let pieceSize = 1 << 20
            output.reserveCapacity(output.count + pieceSize + widths.reduce(0, +) + 2 * columnCount + 1)
            // The rows: `line` over the stored bytes, in place (a value wider than its column goes through `line`'s
            // shortening, as a String).
            try shown.withUnsafeBufferPointer { shownBytes in
                var index = 0
                var begin = 0
                for _ in 0..<rowCount {
                    let start = output.count
                    for i in 0..<columnCount {
                        if i > 0 { output.append(UInt8(ascii: " ")); output.append(UInt8(ascii: " ")) }
                        let end = begin + Int(shownLengths[index])
                        let value = UnsafeBufferPointer(rebasing: shownBytes[begin..<end])
                        var width = Int(shownWidths[index])
                        var shortened: [UInt8]?
                        var kept: Int?   // the bytes kept before the marker, when shortened without a String
                        if width > widths[i], let prefix = TerminalText.truncatedASCIIPrefix(value, toWidth: widths[i]) {
                            kept = prefix
                            width = widths[i]
                        } else if width > widths[i] {
                            let text = TerminalText.truncated(String(decoding: value, as: UTF8.self), toWidth: widths[i])
                            shortened = Array(text.utf8)
                            width = TerminalText.width(text)
                        }
                        let missing = widths[i] - width
                        if missing > 0 && rightAligned[i] { appendSpaces(missing) }
                        if let kept {
                            output.append(contentsOf: UnsafeBufferPointer(rebasing: value[..<kept]))
                            output.append(contentsOf: TerminalText.truncationMarker.utf8)
                        } else if let shortened {
                            output.append(contentsOf: shortened)
                        } else {
                            output.append(contentsOf: value)
                        }
                        if missing > 0 && !rightAligned[i] { appendSpaces(missing) }
                        begin = end
                        index += 1
                    }
                    while output.count > start, output.last == UInt8(ascii: " ") { output.removeLast() }
                    output.append(newline)
                    if output.count >= pieceSize {
                        try emit(output)
                        output.removeAll(keepingCapacity: true)
                    }
                }
            }
            if let totalRow {
                append(rule)
                output.append(newline)
                boldLine(totalRow)
            }
            output.append(newline)
        }
        append(rowCount == 1 ? "1 row" : "\(rowCount) rows")
        output.append(newline)
        try emit(output)
    }

    private let newline = UInt8(ascii: "\n")

    func headerLines(_ document: ReportDocument) -> [String] {
        var lines: [String] = []
        // The title as the `reports` listing shows it, every line break and tab coded (they were spaces here).
        let title = VisibleText.escaped(document.title)
        if !title.isEmpty {
            lines.append(bold(title))
            lines.append(String(repeating: "=", count: min(TerminalText.width(title), lineWidth)))
        }
        if let description = document.description {
            for paragraph in description.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
                lines.append(contentsOf: wrapped(TerminalText.singleLine(String(paragraph))))
            }
        }
        lines.append("")
        for parameter in document.parameters {
            lines.append(TerminalText.singleLine("\(parameter.name): \(parameter.value)"))
        }
        if let sort = document.sortDescription {
            lines.append("Sort: " + TerminalText.singleLine(sort))
        }
        let generated = LocalDateTime(document.generatedAt, timeZone: document.timeZone)
        lines.append("Generated \(generated.minutesText) \(document.timeZone.reportLabel(at: document.generatedAt))")
        lines.append("")
        return lines
    }

    /// The natural widths (the widest value of each column), with text columns shortened, widest first, until
    /// the line fits or they reach the minimum.
    func fittedWidths(columns: [ReportColumn], natural: [Int]) -> [Int] {
        var widths = natural
        let separators = TextRenderer.separator.count * (columns.count - 1)
        guard widths.reduce(separators, +) > lineWidth else { return widths }

        let minimum = TextRenderer.minimumShortenedWidth
        let shrinkable = columns.indices.filter { columns[$0].format == .text && widths[$0] > minimum }
        guard let widest = shrinkable.map({ widths[$0] }).max() else { return widths }
        let fixed = columns.indices.filter { !shrinkable.contains($0) }.reduce(separators) { $0 + widths[$1] }
        var cap = widest
        while cap > minimum, fixed + shrinkable.reduce(0, { $0 + min(widths[$1], cap) }) > lineWidth {
            cap -= 1
        }
        for i in shrinkable { widths[i] = min(widths[i], cap) }
        return widths
    }

    /// Words of `text` in lines of at most `lineWidth` columns (a longer word stays whole).
    private func wrapped(_ text: String) -> [String] {
        guard TerminalText.width(text) > lineWidth else { return [text] }
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            let candidate = current.isEmpty ? String(word) : current + " " + word
            if TerminalText.width(candidate) > lineWidth, !current.isEmpty {
                lines.append(current)
                current = String(word)
            } else {
                current = candidate
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    static let boldOn = "\u{1B}[1m", boldOff = "\u{1B}[0m"

    private func bold(_ text: String) -> String {
        useColor && !text.isEmpty ? TextRenderer.boldOn + text + TextRenderer.boldOff : text
    }
}
