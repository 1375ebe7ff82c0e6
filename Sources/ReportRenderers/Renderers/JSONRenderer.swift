// The JSON format: one object, streamed row by row.
//
// The format (a contract; JSONRendererTests hold it — this encoder must not change by accident,
// because pipelines rely on it):
//
//     {
//       "name": "unpaid-orders",
//       "title": "Unpaid orders",
//       "description": "Orders not paid yet.",            null when absent
//       "parameters": {"Customer": "Acme Ltd"},            in order
//       "sort": "due date, oldest first",                  null when absent
//       "generated": "2026-11-21T21:00:00+00:00",          ISO 8601 with the document zone's offset
//       "timeZone": "UTC",                                 the zone's identifier (UTC for its aliases)
//       "columns": [
//         {"key": "Amount", "title": "Amount", "format": "money"}
//       ],
//       "rows": [
//         {"Amount": 1234.50}
//       ],
//       "totals": {"Amount": 1234.50},                     one entry per total column; {} if none
//       "rowCount": 1
//     }
//
// - Rows are objects keyed by column title; a title used twice gets ` (2)`, ` (3)`… in its key
//   (`columns[].key` says which). Parameter names are made unique the same way.
// - Numbers are JSON numbers written from the exact decimal text, never through Double: decimals
//   at their scale (`1234.50`, `92233720368547758.07`), money with at least 2 decimals, integers
//   as they are, doubles in their shortest form without exponent, negative zero as `0`;
//   percentages as the fraction (`0.125`). NaN and infinities are `null`.
// - `code` columns are always strings (`"007"`). Dates are `"YYYY-MM-DD"`, date-times ISO 8601
//   with offset, booleans true/false, null null.
// - Totals are the exact sums of the rows (0 at the column's scale when there are no rows); a double
//   total beyond ±1.8e308 is an error naming the column, and nothing is written to a file.
// - Strings are escaped by JSONString.swift. One row per line, so the output diffs well.

import Foundation
import ValueText

package struct JSONRenderer: ReportRenderer {
    package init() {}

    package func render<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows,
                                              to output: ReportOutput) throws {
        try withOutputChannel(output) { channel in
            let out = OutputBuffer(channel)
            let cells = CellText(timeZone: document.timeZone)
            let columns = document.columns
            let keys = JSONRenderer.uniqueKeys(columns.map(\.title)).map(JSONString.quoted)

            var head = "{\n"
            head += "  \"name\": \(JSONString.quoted(document.name)),\n"
            head += "  \"title\": \(JSONString.quoted(document.title)),\n"
            head += "  \"description\": \(document.description.map(JSONString.quoted) ?? "null"),\n"
            let parameterKeys = JSONRenderer.uniqueKeys(document.parameters.map(\.name))
            let parameters = zip(parameterKeys, document.parameters)
                .map { "\(JSONString.quoted($0)): \(JSONString.quoted($1.value))" }
            head += "  \"parameters\": {\(parameters.joined(separator: ", "))},\n"
            head += "  \"sort\": \(document.sortDescription.map(JSONString.quoted) ?? "null"),\n"
            let generated = LocalDateTime(document.generatedAt, timeZone: document.timeZone).iso8601
            head += "  \"generated\": \"\(generated)\",\n"
            head += "  \"timeZone\": \(JSONString.quoted(document.timeZone.reportIdentifier)),\n"
            head += "  \"columns\": ["
            for (i, column) in columns.enumerated() {
                head += i == 0 ? "\n" : ",\n"
                head += "    {\"key\": \(keys[i]), \"title\": \(JSONString.quoted(column.title)), "
                    + "\"format\": \"\(column.format.rawValue)\"}"
            }
            head += columns.isEmpty ? "],\n" : "\n  ],\n"
            head += "  \"rows\": ["
            try out.write(head)

            var checked = CheckedRows<Rows>(declared: rows.rowCount, columnCount: columns.count,
                                            file: channel.displayName)
            var totals = [ColumnTotal](repeating: ColumnTotal(), count: columns.count)
            while let row = try checked.next(from: &rows) {
                var line = checked.count == 1 ? "\n    {" : ",\n    {"
                for (i, column) in columns.enumerated() {
                    if i > 0 { line += ", " }
                    line += keys[i] + ": " + JSONRenderer.value(row[i], as: column.format, cells: cells)
                    if column.hasTotal { totals[i].add(row[i]) }
                }
                line += "}"
                try out.write(line)
            }

            var tail = checked.count == 0 ? "],\n" : "\n  ],\n"
            let totalEntries = try columns.indices.filter { columns[$0].hasTotal }.map { i in
                "\(keys[i]): \(cells.plainNumber(try totals[i].checkedValue(column: columns[i].title, file: channel.displayName), as: columns[i].format))"
            }
            tail += "  \"totals\": {\(totalEntries.joined(separator: ", "))},\n"
            tail += "  \"rowCount\": \(checked.count)\n"
            tail += "}\n"
            try out.write(tail)
            try out.flush()
        }
    }

    /// A cell as a JSON value.
    static func value(_ cell: ReportCell, as format: ColumnFormat, cells: CellText) -> String {
        switch cell {
        case .null:
            return "null"
        case let .text(text):
            return JSONString.quoted(text)
        case .integer, .decimal, .double:
            if case let .double(value) = cell, !value.isFinite { return "null" }
            let text = cells.plain(cell, as: format)
            return format == .code ? JSONString.quoted(text) : text
        case .date, .dateTime:
            return JSONString.quoted(cells.plain(cell, as: format))
        case let .boolean(value):
            return format == .code ? JSONString.quoted(value ? "true" : "false") : (value ? "true" : "false")
        case let .list(items):
            return "[" + items.map { value($0, as: format, cells: cells) }.joined(separator: ", ") + "]"
        }
    }

    /// `names` with repeats suffixed ` (2)`, ` (3)`… so each is unique.
    static func uniqueKeys(_ names: [String]) -> [String] {
        var used = Set<String>()
        return names.map { name in
            var key = name
            var n = 2
            while used.contains(key) {
                key = "\(name) (\(n))"
                n += 1
            }
            used.insert(key)
            return key
        }
    }
}
