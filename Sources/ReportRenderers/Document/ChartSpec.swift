// A chart a report asks for (drawn in XLSX only; other formats ignore it).

/// A chart over a report's data rows: categories from one column, one series per value column.
public struct ChartSpec: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Vertical bars.
        case column
        /// Horizontal bars.
        case bar
        case line
        /// Only the first value column is meaningful in a pie.
        case pie
    }

    public var kind: Kind
    public var title: String?
    /// Index into the document's columns.
    public var categoriesColumn: Int
    /// Indexes into the document's columns, one series each.
    public var valueColumns: [Int]

    public init(kind: Kind, title: String? = nil, categoriesColumn: Int, valueColumns: [Int]) {
        self.kind = kind
        self.title = title
        self.categoriesColumn = categoriesColumn
        self.valueColumns = valueColumns
    }
}
