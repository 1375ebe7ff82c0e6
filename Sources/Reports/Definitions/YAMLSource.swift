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
//
// A quoted value cannot be handed over as its source: `"na\u006De"` is `name`. Its escapes (`\"`,
// `\u00e9`, `\n`, a `\` before a line break), the `''` of single quotes and its folded lines are read
// again as libyaml reads them, each character of the value keeping its place in the file (a
// `SourceMap`), and the parser's positions in the value go through that map.

import Foundation
import ObjectStore
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
            // Escapes, `''` or folded lines: the value's columns are not the file's, so a map says where each is.
            if rest.hasPrefix(quote), let map = quotedMap(value, line: start.line, column: start.column, double: quote == "\"") {
                return SourceSnippet(value, at: SourcePlace(file: file, line: start.line, column: start.column + 1), map: map)
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

    /// Where each character of a quoted scalar's value is in the file, the quote being at `line`, `column`:
    /// the scalar is decoded again as libyaml does (escapes, `''`, line folding), each character keeping the
    /// place of what it came from — an escape its backslash, a folded line break the break. Nil unless the
    /// result is exactly `value`, so a case read otherwise keeps the place of the value's start.
    private func quotedMap(_ value: String, line: Int, column: Int, double: Bool) -> SourceMap? {
        var decoder = QuotedScalarDecoder(lines: lines, line: line, column: column, double: double)
        guard let decoded = decoder.decode() else { return nil }
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: decoded.map(\.scalar))
        guard String(scalars) == value else { return nil }
        var rows: [[SourceMap.Place]] = [[]]
        var index = 0
        for character in value {
            rows[rows.count - 1].append(decoded[index].place)
            index += character.unicodeScalars.count
            // Lines of the text end as the predicate lexer ends them.
            if character == "\n" || character == "\r\n" || character == "\r" { rows.append([]) }
        }
        rows[rows.count - 1].append(decoder.end)
        return SourceMap(rows)
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

/// libyaml's reading of a flow scalar (`yaml_parser_scan_flow_scalar`), over the file's lines, keeping for
/// each scalar of the value the place (line, column in characters) it was written at.
private struct QuotedScalarDecoder {
    let lines: [Substring]
    var line: Int
    let startColumn: Int
    let double: Bool
    /// The place of the closing quote, once decoded.
    var end = SourceMap.Place(line: 0, column: 0)

    init(lines: [Substring], line: Int, column: Int, double: Bool) {
        self.lines = lines
        self.line = line
        self.startColumn = column
        self.double = double
    }

    mutating func decode() -> [(scalar: Unicode.Scalar, place: SourceMap.Place)]? {
        var out: [(scalar: Unicode.Scalar, place: SourceMap.Place)] = []
        guard lines.indices.contains(line - 1) else { return nil }
        var text = Array(lines[line - 1])
        var i = startColumn            // just after the opening quote (0-based index of the next character)
        func place(_ index: Int) -> SourceMap.Place { SourceMap.Place(line: line, column: index + 1) }
        func emit(_ c: Character, _ at: SourceMap.Place) { for s in c.unicodeScalars { out.append((s, at)) } }
        while true {
            var leadingBlanks = false
            // Non-blank characters.
            while i < text.count, text[i] != " ", text[i] != "\t" {
                let c = text[i]
                if !double, c == "'" {
                    if i + 1 < text.count, text[i + 1] == "'" { emit("'", place(i)); i += 2; continue }
                    end = place(i)
                    return out
                }
                if double, c == "\"" { end = place(i); return out }
                if double, c == "\\" {
                    if i + 1 == text.count {
                        // An escaped line break: nothing of it is kept, nor the next line's indentation.
                        guard lines.indices.contains(line) else { return nil }
                        leadingBlanks = true
                        line += 1
                        text = Array(lines[line - 1])
                        i = 0
                        break
                    }
                    guard let (scalar, length) = Self.escape(text, at: i + 1) else { return nil }
                    out.append((scalar, place(i)))
                    i += 1 + length
                    continue
                }
                emit(c, place(i))
                i += 1
            }
            // Blanks and line breaks: blanks are kept unless a line break follows them.
            var whitespace: [(Character, SourceMap.Place)] = []
            var leadingBreak: SourceMap.Place?
            var trailingBreaks: [SourceMap.Place] = []
            while true {
                if i < text.count, text[i] == " " || text[i] == "\t" {
                    if !leadingBlanks { whitespace.append((text[i], place(i))) }
                    i += 1
                } else if i >= text.count {
                    // A line break (the scalar goes on: its closing quote is on a later line).
                    guard lines.indices.contains(line) else { return nil }
                    let breakPlace = place(text.count)
                    if !leadingBlanks {
                        whitespace.removeAll()
                        leadingBreak = breakPlace
                        leadingBlanks = true
                    } else {
                        trailingBreaks.append(breakPlace)
                    }
                    line += 1
                    text = Array(lines[line - 1])
                    i = 0
                } else {
                    break
                }
            }
            if leadingBlanks {
                // A single break folds to a space; empty lines after it are kept as line feeds. After an
                // escaped break (no leading break) only the empty lines count.
                if let leadingBreak, trailingBreaks.isEmpty {
                    out.append((" ", leadingBreak))
                } else {
                    for at in trailingBreaks { out.append(("\n", at)) }
                }
            } else {
                for (c, at) in whitespace { emit(c, at) }
            }
        }
    }

    /// YAML 1.1's one-character escapes, as libyaml reads them.
    private static let simpleEscapes: [Character: Unicode.Scalar] = [
        "0": "\u{0}", "a": "\u{7}", "b": "\u{8}", "t": "\t", "\t": "\t", "n": "\n", "v": "\u{B}", "f": "\u{C}",
        "r": "\r", "e": "\u{1B}", " ": " ", "\"": "\"", "/": "/", "\\": "\\", "N": "\u{85}", "_": "\u{A0}",
        "L": "\u{2028}", "P": "\u{2029}",
    ]

    /// The scalar of the escape after a backslash at `index`, and how many characters it takes.
    private static func escape(_ text: [Character], at index: Int) -> (Unicode.Scalar, Int)? {
        guard index < text.count else { return nil }
        if let scalar = simpleEscapes[text[index]] { return (scalar, 1) }
        let digits: Int
        switch text[index] {
        case "x": digits = 2
        case "u": digits = 4
        case "U": digits = 8
        default: return nil
        }
        guard index + digits < text.count else { return nil }
        let hex = String(text[(index + 1)...(index + digits)])
        guard let value = UInt32(hex, radix: 16), let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, 1 + digits)
    }
}
