// The CSV format: for pipelines and spreadsheets.
//
// The format (a contract; CSVRendererTests hold it), written by the CSV module's `CSVWriter`
// (RFC 4180: fields quoted only when needed, quotes doubled, UTF-8):
// - A header record of the column titles, then one record per row. No totals record: pipelines
//   read every record after the header as data (the text, JSON and XLSX outputs carry totals). A total
//   beyond what a double holds is still an error, as in the other formats.
// - Values in their plain form (CellText.swift): numbers exactly and without thousands
//   separators (`1234.50`; money with at least 2 decimals), percentages as fractions (`0.125`),
//   dates `YYYY-MM-DD`, date-times ISO 8601 with offset, booleans `true`/`false`, null as an
//   empty field.
// - Dialects:
//   `standard`  `,`, LF line endings.
//   `raw`       as `standard`, with text written exactly — for pipelines that want the stored text.
//   `excel`     a UTF-8 byte-order mark (so Excel reads UTF-8), CRLF line endings.
//   `excel-eu`  as `excel`, with `;` between fields and a decimal comma in numbers (`1234,50`),
//               as Excel expects where the comma is the decimal separator.
//   A report CSV is opened by people (a double-click starts a spreadsheet), so in every dialect but
//   `raw`, text cells (and column titles) that a spreadsheet would run as a formula — starting with
//   `=`, `+`, `-`, `@`, tab or CR — are prefixed with a single quote (OWASP's advice against CSV
//   injection): `=1+2` is written `'=1+2`. Numbers, dates and the other non-text cells are never
//   changed (`-2.5` stays `-2.5`). `bookkeeper export` (the Importer's CSV) stays exact, for round
//   trips.

import CSV
import Foundation

package struct CSVRenderer: ReportRenderer {
    package enum Dialect: String, Sendable, Hashable, CaseIterable {
        case standard
        case raw
        case excel
        case excelEU = "excel-eu"
    }

    package var dialect: Dialect

    package init(dialect: Dialect = .standard) {
        self.dialect = dialect
    }

    var writerOptions: CSVWriter.Options {
        switch dialect {
        case .standard, .raw: return CSVWriter.Options()
        case .excel: return CSVWriter.Options(lineEnding: .crlf, byteOrderMark: true)
        case .excelEU: return CSVWriter.Options(delimiter: UInt8(ascii: ";"), lineEnding: .crlf, byteOrderMark: true)
        }
    }

    package func render<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
                                              to output: ReportOutput) throws {
        try withOutputChannel(output) { channel in
            do {
                try write(document, rows: &rows, channel: channel)
            } catch let error as CSVError {
                guard case let .io(operation, code) = error.kind else { throw error }
                throw ReportRenderError(file: channel.displayName, kind: .io(operation: operation, errno: code))
            }
        }
    }

    private func write<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
                                              channel: OutputChannel) throws {
        let writer = try CSVWriter(fileDescriptor: channel.fileDescriptor, displayName: channel.displayName,
                                   closeWhenDone: false, options: writerOptions)
        let neutralizes = dialect != .raw
        let decimalSeparator = dialect == .excelEU ? UInt8(ascii: ",") : UInt8(ascii: ".")
        let cells = CellText(timeZone: document.timeZone)
        let formats = document.columns.map(\.format)

        for column in document.columns {
            try writer.writeField(neutralizes ? CSVRenderer.neutralized(column.title) : column.title)
        }
        try writer.endRecord()

        var checked = CheckedRows<Rows>(declared: rows.rowCount, columnCount: formats.count, file: channel.displayName)
        // No totals record, but a total beyond what a double holds fails the report here as in the other formats.
        let totalled = document.columns.indices.filter { document.columns[$0].hasTotal }
        var totals = [ColumnTotal](repeating: ColumnTotal(), count: formats.count)
        var scratch: [UInt8] = []
        scratch.reserveCapacity(64)
        while let row = try checked.next(from: &rows) {
            for i in totalled { totals[i].add(row[i]) }
            for i in row.indices {
                var cell = row[i]
                // A list of one number (or date, or Boolean) is that value, written as in its own column: neutralized
                // as text, `-5.000` became `'-5.000` (found by the attack on 0.7.0). Text stays a list (`"x, y"`).
                if case .list(let items) = cell, items.count == 1, !items[0].isTextLike { cell = items[0] }
                if case let .text(text) = cell {
                    try writer.writeField(neutralizes ? CSVRenderer.neutralized(text) : text)
                } else if case .list = cell {
                    // A list of several is text (`-0.01, 5.00` is no number), neutralized as text is.
                    let text = cells.plain(cell, as: formats[i], decimalSeparator: decimalSeparator)
                    try writer.writeField(neutralizes ? CSVRenderer.neutralized(text) : text)
                } else {
                    // Numbers and dates as bytes (CellBytes.swift); the rest through their String.
                    scratch.removeAll(keepingCapacity: true)
                    if CellBytes.appendPlain(cell, as: formats[i], decimalSeparator: decimalSeparator, to: &scratch) {
                        try scratch.withUnsafeBufferPointer { try writer.writeField(bytes: $0) }
                    } else {
                        try writer.writeField(cells.plain(cell, as: formats[i], decimalSeparator: decimalSeparator))
                    }
                }
            }
            try writer.endRecord()
        }
        for i in totalled { _ = try totals[i].checkedValue(column: document.columns[i].title, file: channel.displayName) }
        try writer.flush()
    }

    /// `text` with a leading single quote if a spreadsheet would take it for a formula.
    static func neutralized(_ text: String) -> String {
        guard let first = text.utf8.first else { return text }
        switch first {
        case UInt8(ascii: "="), UInt8(ascii: "+"), UInt8(ascii: "-"), UInt8(ascii: "@"), 0x09, 0x0D:
            return "'" + text
        default:
            return text
        }
    }
}
