/// A plain-ASCII table with aligned columns: numbers right-aligned, everything else left-aligned.
struct TextTable {
    enum Alignment { case left, right }

    var headers: [String]
    var alignments: [Alignment]
    var rows: [[String]] = []

    init(headers: [String], alignments: [Alignment]? = nil) {
        self.headers = headers
        self.alignments = alignments ?? Array(repeating: .left, count: headers.count)
    }

    mutating func append(_ row: [String]) { rows.append(row) }

    func render() -> String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            var parts: [String] = []
            for (i, cell) in cells.enumerated() {
                let pad = String(repeating: " ", count: widths[i] - cell.count)
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
}

/// Makes a cell one line: line breaks and tabs shown as spaces, so a stray newline cannot break the table.
func oneLine(_ text: String) -> String {
    var s = text
    for c in ["\r\n", "\n", "\r", "\t"] { s = s.replacingOccurrences(of: c, with: " ") }
    return s
}
