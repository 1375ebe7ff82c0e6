// Positions in predicate text, and the text itself as errors quote it.
//
// Every token and every syntax node carries a `SourceRange` relative to the
// predicate text (line 1, column 1 is its first character). The caller says
// where that text lives with a `PredicateSourceOrigin` ("where", or a YAML
// file and the line/column the predicate starts at); only rendering applies
// the origin, so trees do not depend on where their text came from.

/// Where the text of a predicate comes from, for error messages.
///
/// `PredicateSourceOrigin(name: "where")` reports `where:1:6: …`.
/// A predicate embedded in `Reports/x.yaml` at line 5, column 8 is
/// `PredicateSourceOrigin(name: "Reports/x.yaml", line: 5, column: 8)`, and an
/// error at column 6 of the predicate's first line reports
/// `Reports/x.yaml:5:13: …`. Lines after the predicate's first line keep their
/// own column (column 1 is the first character of that line), as they do in a
/// YAML block scalar once its indentation is removed.
package struct PredicateSourceOrigin: Hashable, Sendable {
    /// The name shown before the position: `where`, `--filter`, a file path.
    package var name: String
    /// The line, 1-based, of the predicate's first character in the named source.
    package var line: Int
    /// The column, 1-based, of the predicate's first character in the named source.
    package var column: Int

    /// For text that is not its source (a YAML quoted value, whose escapes and folded lines make the value's
    /// columns differ from the file's): where each line and column of the text is in the file. `line` and
    /// `column` then count in the text (1 and 1 at its start), and the map turns them into the file's.
    package var map: SourceMap?

    package init(name: String, line: Int = 1, column: Int = 1, map: SourceMap? = nil) {
        self.name = name
        self.line = line
        self.column = column
        self.map = map
    }

    /// The same source from another column of its first line (a term of a list, the key path inside
    /// `month(…)`), keeping the map.
    package func at(column: Int) -> PredicateSourceOrigin {
        var moved = self
        moved.column = column
        return moved
    }

    /// The place in the named source of a line and column counted as `line` and `column` are.
    package func place(line: Int, column: Int) -> (line: Int, column: Int) {
        map?.place(line: line, column: column) ?? (line, column)
    }
}

/// Where the characters of a text are in the file it was read from, line by line: `places[l][c]` is the
/// file's line and column (in characters) of the text's character at line l + 1, column c + 1. Each text line
/// holds its line break too; the last has one entry more, the place just after the text (a closing quote).
package struct SourceMap: Hashable, Sendable {
    package struct Place: Hashable, Sendable {
        package let line: Int
        package let column: Int
        package init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }
    }

    private let places: [[Place]]

    package init(_ places: [[Place]]) {
        self.places = places
    }

    /// A place beyond the text is clamped to its last one.
    func place(line: Int, column: Int) -> (line: Int, column: Int) {
        guard let last = places.last?.last else { return (line, column) }
        guard line >= 1, line <= places.count else { return (last.line, last.column) }
        let row = places[line - 1]
        guard let end = row.last else { return (last.line, last.column) }
        let place = column >= 1 && column <= row.count ? row[column - 1] : end
        return (place.line, place.column)
    }
}

/// A place in predicate text.
package struct SourcePosition: Hashable, Sendable, Comparable {
    /// Offset in bytes of the UTF-8 encoding of the predicate text.
    package var offset: Int
    /// 1-based line in the predicate text. Lines end at "\n", "\r\n" or "\r".
    package var line: Int
    /// 1-based column in the line, counted in characters (extended grapheme
    /// clusters), so "é" is one column whether it is written as one scalar or two.
    package var column: Int

    package init(offset: Int, line: Int, column: Int) {
        self.offset = offset
        self.line = line
        self.column = column
    }

    /// The start of any text.
    package static let start = SourcePosition(offset: 0, line: 1, column: 1)

    package static func < (lhs: SourcePosition, rhs: SourcePosition) -> Bool {
        lhs.offset < rhs.offset
    }
}

/// A span of predicate text: `start` up to, not including, `end`.
package struct SourceRange: Hashable, Sendable {
    package var start: SourcePosition
    package var end: SourcePosition

    package init(start: SourcePosition, end: SourcePosition) {
        self.start = start
        self.end = end
    }

    /// The range of nodes that come from no text: trees built in code, and
    /// trees whose ranges were erased to compare their shape.
    package static let synthetic = SourceRange(
        start: SourcePosition(offset: 0, line: 0, column: 0),
        end: SourcePosition(offset: 0, line: 0, column: 0))

    /// From the start of `self` to the end of `other`.
    package func through(_ other: SourceRange) -> SourceRange {
        SourceRange(start: start, end: other.end)
    }
}

/// Predicate text with its origin: what errors quote and point into.
///
/// The binder reports its own errors (unknown key, wrong type) through
/// `renderDiagnostic(message:hint:at:)` so they read like syntax errors.
package struct PredicateSourceText: Hashable, Sendable {
    package let text: String
    package let origin: PredicateSourceOrigin

    package init(_ text: String, origin: PredicateSourceOrigin) {
        self.text = text
        self.origin = origin
    }

    /// Line and column of `position` in the named source (origin applied).
    package func location(of position: SourcePosition) -> (line: Int, column: Int) {
        let line = origin.line + position.line - 1
        let column = position.line == 1 ? origin.column + position.column - 1 : position.column
        return origin.place(line: line, column: column)
    }

    /// `where:1:6: message; hint`
    package func renderOneLine(message: String, hint: String?, at position: SourcePosition) -> String {
        let (line, column) = location(of: position)
        var result = "\(origin.name):\(line):\(column): \(message)"
        if let hint { result += "; \(hint)" }
        return result
    }

    /// The one-line form (without the hint), then the predicate's line and a
    /// caret under the position, then the hint:
    ///
    ///     where:1:6: expected a comparison operator after "name", found "BEGINSWTH"
    ///       name BEGINSWTH "A"
    ///            ^
    ///       hint: did you mean BEGINSWITH?
    package func renderWithSource(message: String, hint: String?, at position: SourcePosition) -> String {
        var lines = [renderOneLine(message: message, hint: nil, at: position)]
        let sourceLine = self.line(position.line)
        // The caret line copies the characters before the column as spaces
        // (tabs stay tabs), so it lines up under any character width that the
        // terminal gives tabs, and combining marks count once.
        let padding = String(sourceLine.prefix(max(0, position.column - 1)).map { $0 == "\t" ? "\t" : " " })
        // Control characters would act on the terminal: show each as one "�".
        let shown = String(sourceLine.map { character -> Character in
            guard character != "\t", let scalar = character.unicodeScalars.first,
                  scalar.properties.generalCategory == .control else { return character }
            return "\u{FFFD}"
        })
        lines.append("  " + shown)
        lines.append("  " + padding + "^")
        if let hint { lines.append("  hint: \(hint)") }
        return lines.joined(separator: "\n")
    }

    /// The text of a 1-based line, without its line break.
    package func line(_ number: Int) -> Substring {
        var current = 1
        var lineStart = text.startIndex
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            if character == "\n" || character == "\r\n" || character == "\r" {
                if current == number { return text[lineStart..<index] }
                current += 1
                lineStart = text.index(after: index)
            }
            index = text.index(after: index)
        }
        return current == number ? text[lineStart...] : ""
    }

    /// The source text covered by `range`.
    package func text(in range: SourceRange) -> Substring {
        let utf8 = text.utf8
        guard range != .synthetic,
              range.start.offset >= 0, range.end.offset <= utf8.count, range.start.offset <= range.end.offset
        else { return "" }
        let start = utf8.index(utf8.startIndex, offsetBy: range.start.offset)
        let end = utf8.index(utf8.startIndex, offsetBy: range.end.offset)
        return text[start..<end]
    }
}
