// The renderers' rules for writing one cell (CellText, and JSON's on top of it), for an output that is not a
// report but must write values the same way: `bookkeeper fetch` (its text table, CSV and JSON array).

import Foundation
import LocalTime

package struct CellFormatter: Sendable {
    let cells: CellText

    /// Date-times are shown in `timeZone` (the run's, $TZ), as a report's are in its document's.
    package init(timeZone: Zone) {
        cells = CellText(timeZone: timeZone)
    }

    /// As the text report shows it (`1234.50`, `2026-11-21`, `yes`, empty for null).
    package func display(_ cell: ReportCell, as format: ColumnFormat) -> String { cells.display(cell, as: format) }

    /// As the CSV report writes it (`1234.50`, `true`, ISO 8601 date-times with offset; never an exponent).
    package func plain(_ cell: ReportCell, as format: ColumnFormat) -> String { cells.plain(cell, as: format) }

    /// `plain(cell, as: format)`'s UTF-8 appended to `out`: numbers and dates written as bytes (CellBytes.swift),
    /// with no String in between; other cells through their String.
    package func appendPlain(_ cell: ReportCell, as format: ColumnFormat, to out: inout [UInt8]) {
        if case let .text(text) = cell {
            out.append(contentsOf: text.utf8)
        } else if !CellBytes.appendPlain(cell, as: format, decimalSeparator: CellText.point, to: &out) {
            out.append(contentsOf: cells.plain(cell, as: format).utf8)
        }
    }

    /// As the JSON report writes it: a JSON number, string, boolean or `null` (NaN and infinities too).
    package func json(_ cell: ReportCell, as format: ColumnFormat) -> String { JSONRenderer.value(cell, as: format, cells: cells) }
}
