// Places in a YAML file: from Yams' marks to the line and column a person sees, and from a scalar to
// the text a predicate parser should read so that its error positions land in the file.
//
// Why this file exists: Yams gives each node a `Mark` (1-based line, and a column counted in Unicode
// scalars, as libyaml counts). Our messages count columns in characters, as the predicate parser
// does, so `é` written as `e` + a combining accent is one column. A scalar's value is not always its
// source text either: quotes are removed, and a value written over several lines is folded and loses
// its indentation. For a predicate that matters: an error on the third line of
//
//     where: >
//       made == YES
//         AND paid == NO AND dat <= $until
//
// must point at `dat` on that line of the file. So `snippet(of:)` hands the parser the source region
// itself whenever it provably holds the same predicate (the same words once whitespace is ignored,
// no quoted string broken across lines); predicates ignore whitespace and line breaks, so both
// parse alike and every position is the file's own.

import Foundation
import Yams

struct YAMLSource {
    let file: String
    private let lines: [Substring]

    init(text: String, file: String) {
        self.file = file
        var text = Substring(text)
        if text.hasPrefix("\u{FEFF}") { text = text.dropFirst() }
        // libyaml breaks lines at LF, CR LF and CR.
        var lines: [Substring] = []
        var start = text.startIndex
        var index = start
        while index < text.endIndex {
            let c = text[index]
            if c == "\n" || c == "\r\n" || c == "\r" {
                lines.append(text[start..<index])
                start = text.index(after: index)
            }
            index = text.index(after: index)
        }
        lines.append(text[start...])
        self.lines = lines
    }

    /// The place of a mark, its column counted in characters.
    func place(_ mark: Mark?) -> SourcePlace {
        guard let mark else { return SourcePlace(file: file, line: 1, column: 1) }
        return place(line: mark.line, scalarColumn: mark.column)
    }

    /// The place of a line and libyaml's column on it (Yams' `Mark` cannot be made outside Yams).
    func place(line: Int, scalarColumn: Int) -> SourcePlace {
        SourcePlace(file: file, line: line, column: characterColumn(line: line, scalarColumn: scalarColumn))
    }

    func place(of node: Node) -> SourcePlace { place(node.mark) }

    /// Where `key:` is written as a mapping key, from line `from` on (at a line's start after indentation
    /// or `- `, or after `{` or `,` in a flow mapping): to point at the second of two equal keys.
    func places(ofKey key: String, from: Int) -> [SourcePlace] {
        var places: [SourcePlace] = []
        for number in max(1, from)...max(1, lines.count) {
            guard let text = line(number) else { continue }
            var index = text.startIndex
            while let range = text[index...].range(of: key + ":") {
                let before = text[..<range.lowerBound].trimmingCharacters(in: .whitespaces)
                if before.isEmpty || before == "-" || before.hasSuffix("{") || before.hasSuffix(",") {
                    places.append(SourcePlace(file: file, line: number, column: text.distance(from: text.startIndex, to: range.lowerBound) + 1))
                }
                index = range.upperBound
            }
        }
        return places
    }

    /// The character column of libyaml's scalar column on a line.
    private func characterColumn(line: Int, scalarColumn: Int) -> Int {
        guard let text = self.line(line) else { return scalarColumn }
        let scalars = text.unicodeScalars
        let end = scalars.index(scalars.startIndex, offsetBy: max(0, scalarColumn - 1), limitedBy: scalars.endIndex) ?? scalars.endIndex
        return String(scalars[scalars.startIndex..<end]).count + 1
    }

    private func line(_ number: Int) -> Substring? {
        lines.indices.contains(number - 1) ? lines[number - 1] : nil
    }

    /// The text of a scalar and where it starts. With `region`, a scalar written over several lines
    /// is given as its source lines (see the top of this file); otherwise as its value.
    func snippet(of scalar: Node.Scalar, region: Bool) -> SourceSnippet {
        let value = scalar.string
        let start = place(scalar.mark)
        guard let lineText = line(start.line) else { return SourceSnippet(value, at: start) }
        let rest = lineText.dropFirst(start.column - 1)
        switch scalar.style {
        case .singleQuoted, .doubleQuoted:
            // One line without escapes: the value sits right after the quote.
            let quote = scalar.style == .singleQuoted ? "'" : "\""
            let inner = rest.dropFirst()
            if rest.hasPrefix(quote), inner.hasPrefix(value), inner.dropFirst(value.count).hasPrefix(quote) {
                return SourceSnippet(value, at: SourcePlace(file: file, line: start.line, column: start.column + 1))
            }
        case .literal, .folded:
            // The mark is at `|` or `>`; the value starts on the next line.
            if region, let lines = matchingRegion(value, firstLine: start.line + 1, firstText: nil) {
                return SourceSnippet(lines, at: SourcePlace(file: file, line: start.line + 1, column: 1))
            }
            if let first = value.split(separator: "\n").first, let next = line(start.line + 1),
               let offset = next.range(of: first)?.lowerBound {
                let column = next.distance(from: next.startIndex, to: offset) + 1
                return SourceSnippet(value, at: SourcePlace(file: file, line: start.line + 1, column: column))
            }
        default:
            if rest.hasPrefix(value) { return SourceSnippet(value, at: start) }
            if region, let lines = matchingRegion(value, firstLine: start.line, firstText: rest) {
                return SourceSnippet(lines, at: start)
            }
        }
        return SourceSnippet(value, at: start)
    }

    /// Source lines from `firstLine` (the first one cut to `firstText`) holding the same words as
    /// `value`, with no quote left open at a line's end; nil if there are none.
    private func matchingRegion(_ value: String, firstLine: Int, firstText: Substring?) -> String? {
        let target = YAMLSource.words(value)
        guard !target.isEmpty else { return nil }
        var parts: [Substring] = []
        var number = firstLine
        while let text = number == firstLine ? (firstText ?? line(number)) : line(number), parts.count < 500 {
            guard YAMLSource.quotesBalance(text) else { return nil }
            parts.append(text)
            let words = YAMLSource.words(parts.joined(separator: "\n"))
            if words == target { return parts.joined(separator: "\n") }
            if !target.starts(with: words) { return nil }
            number += 1
        }
        return nil
    }

    private static func words(_ text: String) -> [Substring] {
        text.split(whereSeparator: { $0.isWhitespace || $0.isNewline })
    }

    /// Whether every quote opened on the line is closed on it.
    private static func quotesBalance(_ text: Substring) -> Bool {
        var open: Character?
        var escaped = false
        for c in text {
            if escaped { escaped = false; continue }
            if c == "\\" && open != nil { escaped = true; continue }
            if let o = open { if c == o { open = nil } } else if c == "\"" || c == "'" { open = c }
        }
        return open == nil
    }
}
