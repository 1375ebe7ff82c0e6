// A column of a report: its title, how its values are shown, and whether it has a total.

/// How a column's values are shown.
///
/// The raw values (`"dateTime"`, …) appear in the JSON output's `columns`.
package enum ColumnFormat: String, Sendable, Hashable, CaseIterable {
    /// Free text; the only kind the text renderer shortens to fit a line.
    case text
    /// IDs and codes: written as text even when they look numeric (`007`, `C042`).
    case code
    /// Whole numbers.
    case integer
    /// Decimals at their own scale.
    case number
    /// Two decimals (`1,234.50` in text, `#,##0.00` in XLSX).
    case money
    /// `YYYY-MM-DD`.
    case date
    /// `YYYY-MM-DD HH:MM` in the document's time zone (ISO 8601 with offset in CSV and JSON).
    case dateTime
    /// yes/no in text, true/false in CSV and JSON, a boolean cell in XLSX.
    case boolean
    /// A fraction shown as a percentage: 0.125 is `12.5%`. CSV and JSON write the fraction.
    case percent

    /// Numbers are right-aligned in text and summed in totals.
    var isNumeric: Bool {
        switch self {
        case .integer, .number, .money, .percent: return true
        case .text, .code, .date, .dateTime, .boolean: return false
        }
    }
}

/// A column of a report.
package struct ReportColumn: Sendable, Hashable {
    package var title: String
    package var format: ColumnFormat
    /// The XLSX column width the definition asks for (in characters); nil to size it from the values.
    package var width: Int?
    /// Whether the column has a totals cell (numeric columns only; ignored on others).
    package var total: Bool
    /// What the text and XLSX outputs show for an empty value (`(no customer)` for a group without a
    /// customer); nil to leave it empty. CSV and JSON always keep the empty value or null, for programs.
    package var emptyLabel: String?
    /// For a period column (`month(date)`): the unit, so XLSX writes each period as its first day, formatted to
    /// read as the period; text, CSV and JSON show the cell as it is (`2026-03`).
    package var period: ReportPeriodUnit?

    package init(title: String, format: ColumnFormat = .text, width: Int? = nil, total: Bool = false, emptyLabel: String? = nil) {
        self.title = title
        self.format = format
        self.width = width
        self.total = total
        self.emptyLabel = emptyLabel
    }

    /// Whether the renderers write a totals cell for this column.
    var hasTotal: Bool { total && format.isNumeric }

    /// The label to show instead of `cell`, when the cell is empty and the column has one.
    @inline(__always)
    func label(for cell: ReportCell) -> String? {
        guard let emptyLabel else { return nil }
        switch cell {
        case .null: return emptyLabel
        case .text(let text) where text.isEmpty: return emptyLabel
        case .list(let items) where items.isEmpty: return emptyLabel
        default: return nil
        }
    }
}
