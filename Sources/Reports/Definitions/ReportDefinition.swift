// A report definition as written in its YAML file, before it is checked against a model.
//
// Why this file exists: a report is a fetch request (entity, predicate, sort keys, group keys) plus
// presentation (titles, formats, totals, a chart), declared in a file an operator can copy and edit
// without rebuilding anything. Every value here remembers where it was written (`Placed`), so that
// every later check — a key path against the model, a total naming a column that does not exist —
// reports the file, line and column.
//
// The format (docs/reports.md holds the reference; `ReportDefinition+YAML.swift` reads it):
//
//     title: Completed but unpaid orders              optional (default: the report's name)
//     description: Orders made but not yet paid.      optional
//     entity: Order                                   required
//     where: made == YES AND paid == NO AND date <= $until
//     params:                                         in the order they are shown
//       until: { type: date, default: today, title: Until }
//     sort: date, customer.name                       a string, or a list of keys
//     group: [customer.name]                          a string, or a list of keys
//     columns:                                        required, at least one
//       - { key: date, title: Date }
//       - { key: rows.@sum.sum, title: Total, format: money, width: 14 }
//     totals: [Total]                                 column titles
//     chart: { type: column, categories: Month, values: [Total], title: Sales }
//     negative: parentheses                           XLSX money: minus (default), red, parentheses
//     period: { from: $from, to: $to }               the parameters that bound a period report

import Foundation
import ObjectStore
import ReportRenderers

/// A value with the place it was written: the file and the 1-based line and column (in characters).
package struct Placed<Value: Sendable>: Sendable {
    package var value: Value
    package var place: SourcePlace

    package init(_ value: Value, at place: SourcePlace) {
        self.value = value
        self.place = place
    }
}

/// A place in a definition file.
package struct SourcePlace: Sendable, Hashable, CustomStringConvertible {
    /// The file as messages name it (relative to the working directory when inside it).
    package var file: String
    package var line: Int
    package var column: Int

    package init(file: String, line: Int, column: Int) {
        self.file = file
        self.line = line
        self.column = column
    }

    /// `Reports/x.yaml:4:8`
    package var description: String { "\(file):\(line):\(column)" }
}

/// The text of a predicate, key path or key list, and where its first character is: what the
/// predicate parser needs to report errors at the right place in the file.
package struct SourceSnippet: Sendable, Hashable {
    /// The text to parse. For a YAML scalar written over several lines this is the source region
    /// itself (indentation included), so that positions on every line are those of the file.
    package var text: String
    package var place: SourcePlace
    /// For a quoted value with escapes or folded lines, where each of its characters is in the file.
    package var map: SourceMap?

    package init(_ text: String, at place: SourcePlace, map: SourceMap? = nil) {
        self.text = text
        self.place = place
        self.map = map
    }
}

package struct ReportDefinition: Sendable {
    /// The file's base name without `.yaml`: `unpaid-orders`.
    package var name: String
    /// The file as messages name it.
    package var file: String
    package var title: Placed<String>?
    package var description: Placed<String>?
    package var entity: Placed<String>
    package var predicate: SourceSnippet?
    package var parameters: [ParameterDefinition]
    package var sort: [SourceSnippet]
    package var group: [SourceSnippet]
    package var columns: [ColumnDefinition]
    package var totals: [Placed<String>]
    package var chart: ChartDefinition?
    /// Which parameters bound the report's period (`period: { from: $from, to: $to }`): every period between
    /// them is shown, those without data with zeros.
    package var period: PeriodDefinition?
    /// How negative money looks in XLSX (`negative: minus|red|parentheses`); nil for a minus.
    package var negative: Placed<NegativeStyle>?
    /// Where the whole definition starts (for errors about something missing).
    package var place: SourcePlace

    /// The title to show: the definition's, else the name.
    package var displayTitle: String { title?.value ?? name }
}

/// A typed parameter: `until: { type: date, default: today }`.
package struct ParameterDefinition: Sendable {
    package var name: Placed<String>
    package var type: Placed<ParameterType>
    /// The default as written (`today`, `start of last month`, `2024-01-01`, `yes`); nil when the
    /// parameter must be given with `--param`.
    package var defaultValue: Placed<String>?
    /// The label shown in report headers; nil for the name.
    package var title: Placed<String>?

    package var displayName: String { title?.value ?? name.value }
}

package enum ParameterType: String, Sendable, CaseIterable, CustomStringConvertible {
    case date, string, number, boolean

    package var description: String { rawValue }
}

/// One column: a key path (or a period or aggregate), its title and how its values are shown.
package struct ColumnDefinition: Sendable {
    package var key: SourceSnippet
    package var title: Placed<String>?
    /// `money`, `number`, `code`, …; nil to choose from the value type.
    package var format: Placed<String>?
    /// The XLSX column width in characters; nil to size it from the values.
    package var width: Placed<Int>?
    /// What text and XLSX show for an empty value (`empty: (none)`); nil for the default: `(no customer)` for a
    /// group key `customer.name`, nothing for other columns.
    package var empty: Placed<String>?
    package var place: SourcePlace

    package var displayTitle: String { title?.value ?? key.text.trimmingCharacters(in: .whitespacesAndNewlines) }
}

/// The parameters bounding a report grouped by a period: `period: { from: $from, to: $to }`.
package struct PeriodDefinition: Sendable {
    /// `$from` as written (a date parameter's name with its `$`).
    package var from: Placed<String>?
    package var to: Placed<String>?
    package var place: SourcePlace
}

/// A chart drawn in XLSX output: `{ type: column, categories: Month, values: [Total] }`.
package struct ChartDefinition: Sendable {
    package var kind: Placed<String>
    package var title: Placed<String>?
    /// The title (or key) of the categories column.
    package var categories: Placed<String>
    /// The titles (or keys) of the value columns, one series each.
    package var values: [Placed<String>]
    package var place: SourcePlace
}
