import FileOutput
import ObjectStore

/// A plain-ASCII table with aligned columns: numbers right-aligned, everything else left-aligned. Every cell is
/// made one line with its control characters written `<U+001B>` (`oneLine`), whoever builds the row.
///
/// A column is padded to its widest value, but to no more than `maximumPadding`: a longer value overflows its
/// column whole, moving the rest of its line along. Padding every row to the widest value took time and output
/// in rows × that width (1,000 rows and one 1 MiB note: 20 s and a million dashes); values are never shortened,
/// since pipes read what `list` and `fetch` print.
struct TextTable {
    static let maximumPadding = 60

    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers.map(oneLine)
        self.alignments = alignments ?? Array(repeating: .left, count: headers.count)
    }

    mutating func append(_ row: [String]) { rows.append(row.map(oneLine)) }

    func render() -> String {
        let most = TextTable.maximumPadding
        var widths = headers.map { TextTable.width($0, upTo: most) }
        for row in rows {
            for (i, cell) in row.enumerated() where widths[i] < most {
                widths[i] = max(widths[i], TextTable.width(cell, upTo: most))
            }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - TextTable.width(cell, upTo: widths[i]))
                let isLast = i == cells.count - 1
                parts.append(alignments[i] == .right ? pad + cell : (isLast ? cell : cell + pad))
            }
            var text = parts.joined(separator: "  ")
            while text.last == " " { text.removeLast() }
            return text
        }
        var out = [line(headers), line(widths.map { String(repeating: "-", count: $0) })]
        out += rows.map(line)
        return out.joined(separator: "\n")
    }

    /// The characters in `cell`, counted up to `limit` only: a value's length past the widest padding is not
    /// needed, and counting all of a long one in every row would cost its length again.
    static func width(_ cell: String, upTo limit: Int) -> Int {
        if cell.utf8.count <= limit, cell.utf8.allSatisfy({ $0 < 0x80 }) { return cell.utf8.count }
        var n = 0
        for _ in cell {
            if n == limit { break }
            n += 1
        }
        return n
    }
}

/// Makes a cell one line: line breaks and tabs shown as spaces, so a stray newline cannot break the table, and
/// every other control character written `<U+001B>` (VisibleText), so that none acts on the terminal.
func oneLine(_ text: String) -> String {
    if text.utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return text }
    var s = text
    for c in ["\r\n", "\n", "\r", "\t"] { s = s.replacingOccurrences(of: c, with: " ") }
    return VisibleText.escaped(s)
}
