// The CSV and text renderers write numbers and dates as bytes (CellBytes.swift) and the text renderer keeps its
// values as bytes (issue 27): differential tests against the String forms they replaced, on generated cells and
// reports (the seed is printed; STRESS_SEED replays one).

import Foundation
import LocalTime
import TestSupport
import XCTest
@testable import ReportRenderers
import ValueText

final class RendererBytesDifferentialTests: XCTestCase {
    private static let texts = ["", "Acme", "Zoë & Co", "日本語のテキスト", "a\u{1B}b", "line\nbreak", "tab\there", "=1+2", "-5",
                                "x\u{0600}", "😀 emoji", "a, \"quoted\"", "  spaced  ", "a rather long customer name, longer than a line",
                                "Ac\u{1B}[2Jme, a long name with a control in it", "x <U+0041> a code written out, long too",
                                "1 < 2 and a long tail of plain words"]

    static func cell(_ g: inout SeededGenerator) -> ReportCell {
        func units() -> Int128 {
            switch g.next(upTo: 6) {
            case 0: return 0
            case 1: return Int128(Int64(bitPattern: g.next()))
            case 2: return Int128(g.next(upTo: 2_000_000)) - 1_000_000
            case 3: return Int128(g.next(upTo: 200)) - 100
            case 4: return (Int128(Int64(bitPattern: g.next())) << 60) + Int128(g.next(upTo: 1000))   // beyond an Int64
            default: return g.next(upTo: 2) == 0 ? Int128.max : Int128.min + 1
            }
        }
        switch g.next(upTo: 10) {
        case 0: return .null
        case 1: return .text(g.pick(texts))
        case 2:
            return .integer(g.pick([0, 1, -1, 999, 1000, -1000, 1_234_567, Int64.max, Int64.min, Int64(bitPattern: g.next())]))
        case 3, 4: return .decimal(units: units(), scale: g.next(upTo: 24) - 3)
        case 5: return .double(g.pick([0, -0.0, 0.1, -2.5, 1e20, 1.5e-7, 123456.789, .nan, .infinity, Double(g.next(upTo: 100000)) / 7]))
        case 6:
            return .date(year: g.pick([2026, 1, 0, 9999, -44, 10000, 1970]), month: g.next(upTo: 13), day: g.next(upTo: 32))
        case 7: return .dateTime(secondsSinceEpoch: Int64(g.next(upTo: 4_000_000_000)) - 1_000_000_000)
        case 8: return .boolean(g.next(upTo: 2) == 0)
        default: return .decimal(units: Int128(g.next(upTo: 100_000_000)), scale: 2)   // money as stored
        }
    }

    func testBytesAreTheStringForms() {
        let seed = Trials.seed(fixed: 2727)
        var g = SeededGenerator(seed: seed)
        let cells = CellText(timeZone: try! Zone(tz: "Europe/Helsinki"))
        var checked = 0
        for _ in 0..<Trials.count("BOOKKEEPER_CELL_BYTES_TRIALS", quick: 20_000, stress: 400_000) {
            let cell = Self.cell(&g)
            let format = g.pick(ColumnFormat.allCases)
            for separator in [UInt8(ascii: "."), UInt8(ascii: ",")] {
                var bytes: [UInt8] = []
                if CellBytes.appendPlain(cell, as: format, decimalSeparator: separator, to: &bytes) {
                    XCTAssertEqual(String(decoding: bytes, as: UTF8.self), cells.plain(cell, as: format, decimalSeparator: separator),
                                   "seed \(seed): plain \(cell) as \(format)")
                    checked += 1
                } else {
                    XCTAssertTrue(bytes.isEmpty)
                }
            }
            var bytes: [UInt8] = []
            if CellBytes.appendDisplay(cell, as: format, to: &bytes) {
                XCTAssertEqual(String(decoding: bytes, as: UTF8.self), cells.display(cell, as: format),
                               "seed \(seed): display \(cell) as \(format)")
                checked += 1
            } else {
                XCTAssertTrue(bytes.isEmpty)
            }
        }
        XCTAssertGreaterThan(checked, 1000)
        reportTrials("cell bytes against CellText", "seed \(seed), \(checked) forms compared")
    }

    private static func report(_ g: inout SeededGenerator) -> (ReportDocument, [[ReportCell]]) {
        let columns = (0..<(1 + g.next(upTo: 6))).map { i -> ReportColumn in
            var column = ReportColumn(title: g.pick(["Date", "Customer", "Order", "Total", "=x", "日本", "A long column title"]) + "\(i)",
                                      format: g.pick(ColumnFormat.allCases), total: g.next(upTo: 2) == 0,
                                      emptyLabel: g.next(upTo: 4) == 0 ? "(none)" : nil)
            if g.next(upTo: 5) == 0 { column.format = .money }
            return column
        }
        let document = ReportDocument(name: "generated", title: "Generated", generatedAt: ReportFixtures.generatedAt,
                                      timeZone: try! Zone(tz: "America/New_York"), columns: columns)
        let rows = (0..<g.next(upTo: 12)).map { _ in
            columns.map { column -> ReportCell in
                // Mostly the column's own kind of value, as a report's are; sometimes anything.
                if g.next(upTo: 3) > 0 {
                    switch column.format {
                    case .money: return .decimal(units: Int128(g.next(upTo: 10_000_000)) - 2_000_000, scale: g.next(upTo: 4))
                    case .date: return .date(year: 2000 + g.next(upTo: 30), month: 1 + g.next(upTo: 12), day: 1 + g.next(upTo: 28))
                    case .integer: return .integer(Int64(g.next(upTo: 1_000_000)) - 500_000)
                    default: break
                    }
                }
                return cell(&g)
            }
        }
        return (document, rows)
    }

    func testTextAndCSVAreWhatTheStringFormsWrote() throws {
        let seed = Trials.seed(fixed: 27_272)
        var g = SeededGenerator(seed: seed)
        var compared = 0
        for trial in 0..<Trials.count("BOOKKEEPER_RENDER_BYTES_TRIALS", quick: 400, stress: 8000) {
            let (document, rows) = Self.report(&g)
            let width = g.pick([78, 40, 20, 200])
            var source = ArrayRowSource(rows)
            let expectedText = try? ReferenceText(lineWidth: width).bytes(document, rows: rows)
            let text = try? TextRenderer(useColor: trial % 5 == 0, lineWidth: width).bytes(document, rows: &source, file: "-")
            if trial % 5 != 0 {
                XCTAssertEqual(text.map { String(decoding: $0, as: UTF8.self) }, expectedText.map { String(decoding: $0, as: UTF8.self) },
                               "seed \(seed), trial \(trial): text of \(rows)")
            } else {
                XCTAssertEqual(text == nil, expectedText == nil, "seed \(seed), trial \(trial)")
            }
            for dialect in CSVRenderer.Dialect.allCases {
                let csv = try? rendered(.csv(dialect), document, rows)
                XCTAssertEqual(csv, try? referenceCSV(document, rows, dialect), "seed \(seed), trial \(trial): \(dialect) of \(rows)")
            }
            compared += 1
        }
        reportTrials("text and CSV against the String forms", "seed \(seed), \(compared) reports")
    }

    /// The text renderer shortens printable ASCII values from their bytes (`TerminalText.truncatedASCIIPrefix`):
    /// the same bytes as `TerminalText.truncated` on the String, on generated values of printable ASCII with `<`,
    /// codes written out (`<U+001B>`, kept whole) and near-codes, at every width.
    func testShorteningFromBytesIsWhatTruncatedWrites() {
        let seed = Trials.seed(fixed: 27_273)
        var g = SeededGenerator(seed: seed)
        let pieces = ["a", "Z", " ", "~", "<", ">", "<U+001B>", "<U+1F600>", "<U+12>", "<U+0041", "U+0041>", "...", "Customer 0077"]
        var checked = 0
        for _ in 0..<Trials.count("BOOKKEEPER_RENDER_BYTES_TRIALS", quick: 3000, stress: 60000) {
            let text = (0..<g.next(upTo: 8)).map { _ in g.pick(pieces) }.joined()
            for width in 0...(text.utf8.count + 2) {
                let kept = Array(text.utf8).withUnsafeBufferPointer { TerminalText.truncatedASCIIPrefix($0, toWidth: width) }
                guard let kept else { continue }
                XCTAssertEqual(String(decoding: Array(text.utf8)[..<kept], as: UTF8.self) + TerminalText.truncationMarker,
                               TerminalText.truncated(text, toWidth: width), "seed \(seed): \(text.debugDescription) to \(width)")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 0)
        reportTrials("shortening from bytes against truncated", "seed \(seed), \(checked) values")
    }

    /// XLSX writes a decimal exact in a double as the quotient of two doubles and counts its width from CellBytes
    /// (`XLSXSheetWriter.exactNumber`): the same double as parsing its DecimalText and the same width as CellText's
    /// shown text, on generated units (up to 2^53, negative, zero) and scales 0…15 in every numeric format.
    func testXLSXNumbersFromUnitsAreWhatTheTextGave() {
        let seed = Trials.seed(fixed: 27_274)
        var g = SeededGenerator(seed: seed)
        let cells = CellText(timeZone: ReportFixtures.utc)
        var shown: [UInt8] = []
        var checked = 0
        for _ in 0..<Trials.count("BOOKKEEPER_RENDER_BYTES_TRIALS", quick: 20000, stress: 400000) {
            let magnitude = Int128(g.next() >> UInt64(11 + g.next(upTo: 53)))
            let units = g.next(upTo: 2) == 0 ? -magnitude : magnitude
            let scale = g.next(upTo: 16)
            let format = g.pick([ColumnFormat.money, .number, .integer, .percent])
            guard let value = XLSXSheetWriter.exactNumber(units: units, scale: scale, as: format, shown: &shown) else { continue }
            let number = DecimalText(units: units, scale: scale)
            XCTAssertEqual(value.bitPattern, number.doubleValue.bitPattern, "seed \(seed): \(units) at scale \(scale)")
            XCTAssertEqual(shown.count, cells.displayNumber(number, as: format).utf8.count, "seed \(seed): \(units) at scale \(scale) as \(format)")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 0)
        reportTrials("XLSX numbers from units against DecimalText", "seed \(seed), \(checked) numbers")
    }

    /// The CSV as the renderer wrote it before its cells went as bytes: every cell through `CellText.plain`.
    private func referenceCSV(_ document: ReportDocument, _ rows: [[ReportCell]], _ dialect: CSVRenderer.Dialect) throws -> String {
        let renderer = CSVRenderer(dialect: dialect)
        let writer = CSVWriter(options: renderer.writerOptions)
        let neutralizes = dialect != .raw
        let separator = dialect == .excelEU ? UInt8(ascii: ",") : UInt8(ascii: ".")
        let cells = CellText(timeZone: document.timeZone)
        try writer.writeRecord(document.columns.map { neutralizes ? CSVRenderer.neutralized($0.title) : $0.title })
        var totals = [ColumnTotal](repeating: ColumnTotal(), count: document.columns.count)
        for row in rows {
            for (i, cell) in row.enumerated() {
                if document.columns[i].hasTotal { totals[i].add(cell) }
                if case let .text(text) = cell {
                    try writer.writeField(neutralizes ? CSVRenderer.neutralized(text) : text)
                } else {
                    try writer.writeField(cells.plain(cell, as: document.columns[i].format, decimalSeparator: separator))
                }
            }
            try writer.endRecord()
        }
        for i in document.columns.indices where document.columns[i].hasTotal {
            _ = try totals[i].checkedValue(column: document.columns[i].title, file: "-")
        }
        return String(decoding: writer.data, as: UTF8.self)
    }
}

import CSV

/// The text renderer's table as it was laid out before (every value a String), for the differential test.
private struct ReferenceText {
    var lineWidth: Int

    func bytes(_ document: ReportDocument, rows: [[ReportCell]]) throws -> [UInt8] {
        let renderer = TextRenderer(useColor: false, lineWidth: lineWidth)
        let cells = CellText(timeZone: document.timeZone)
        let columns = document.columns
        let columnCount = columns.count
        var shown: [String] = []
        var totals = [ColumnTotal](repeating: ColumnTotal(), count: columnCount)
        var naturalWidths = [Int](repeating: 0, count: columnCount)
        for row in rows {
            for i in 0..<columnCount {
                let column = columns[i]
                let value: String
                if let label = column.label(for: row[i]) {
                    value = TerminalText.singleLine(label)
                } else if case let .text(text) = row[i] {
                    value = TerminalText.singleLine(text)
                } else {
                    value = cells.display(row[i], as: column.format)
                }
                shown.append(value)
                naturalWidths[i] = max(naturalWidths[i], TerminalText.width(value))
                if column.hasTotal { totals[i].add(row[i]) }
            }
        }
        var totalRow: [String]?
        if !rows.isEmpty, columns.contains(where: \.hasTotal) {
            var values = try columns.indices.map { i in
                columns[i].hasTotal ? cells.displayNumber(try totals[i].checkedValue(column: columns[i].title, file: "-"), as: columns[i].format) : ""
            }
            if !columns[0].hasTotal { values[0] = "Total" }
            totalRow = values
        }
        var lines = renderer.headerLines(document)
        if !columns.isEmpty {
            let titles = columns.map { TerminalText.singleLine($0.title) }
            for (i, title) in titles.enumerated() { naturalWidths[i] = max(naturalWidths[i], TerminalText.width(title)) }
            for (i, total) in (totalRow ?? []).enumerated() { naturalWidths[i] = max(naturalWidths[i], TerminalText.width(total)) }
            let widths = renderer.fittedWidths(columns: columns, natural: naturalWidths)
            func line(_ values: [String]) -> String {
                var text = ""
                for i in 0..<columnCount {
                    if i > 0 { text += "  " }
                    var value = values[i]
                    if TerminalText.width(value) > widths[i] { value = TerminalText.truncated(value, toWidth: widths[i]) }
                    text += TerminalText.padded(value, toWidth: widths[i], rightAligned: columns[i].format.isNumeric)
                }
                while text.utf8.last == UInt8(ascii: " ") { text = String(decoding: text.utf8.dropLast(), as: UTF8.self) }
                return text
            }
            let rule = widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")
            lines.append(line(titles))
            lines.append(rule)
            for r in 0..<rows.count { lines.append(line(Array(shown[(r * columnCount)..<((r + 1) * columnCount)]))) }
            if let totalRow {
                lines.append(rule)
                lines.append(line(totalRow))
            }
            lines.append("")
        }
        lines.append(rows.count == 1 ? "1 row" : "\(rows.count) rows")
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }
}
