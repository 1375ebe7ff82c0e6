// A chart a report asks for (drawn in XLSX only; other formats ignore it).

/// A chart over a report's data rows: categories from one column, one series per value column.
package struct ChartSpec: Sendable, Hashable {
    package enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Vertical bars.
        case column
        /// Horizontal bars.
        case bar
        case line
        /// Only the first value column is meaningful in a pie.
        case pie
    }

    package var kind: Kind
    package var title: String?
    /// Index into the document's columns.
    package var categoriesColumn: Int
    /// Indexes into the document's columns, one series each.
    package var valueColumns: [Int]

    package init(kind: Kind, title: String? = nil, categoriesColumn: Int, valueColumns: [Int]) {
        self.kind = kind
        self.title = title
        self.categoriesColumn = categoriesColumn
        self.valueColumns = valueColumns
    }
}
