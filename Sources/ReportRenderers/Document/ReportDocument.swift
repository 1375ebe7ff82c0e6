// Everything about a report except its rows: what the renderers put in headers, About sheets and
// document properties.

import Foundation
import LocalTime

/// A report to render, without its rows (those come from a `ReportRowSource`).
package struct ReportDocument: Sendable {
    /// A short file-safe name (`unpaid-orders`): XLSX sheet names are made from it.
    package var name: String
    package var title: String
    package var description: String?
    /// The parameters the report was run with, in the order to show them.
    package var parameters: [(name: String, value: String)]
    /// How the rows are sorted, in words (`due date, oldest first`).
    package var sortDescription: String?
    package var generatedAt: Date
    /// The zone for the generation time and for date-time cells.
    package var timeZone: Zone
    package var columns: [ReportColumn]
    package var chart: ChartSpec?
    /// How negative money looks in XLSX.
    package var negative: NegativeStyle

    package init(name: String, title: String, description: String? = nil,
                parameters: [(name: String, value: String)] = [], sortDescription: String? = nil,
                generatedAt: Date, timeZone: Zone, columns: [ReportColumn], chart: ChartSpec? = nil,
                negative: NegativeStyle = .minus) {
        self.name = name
        self.title = title
        self.description = description
        self.parameters = parameters
        self.sortDescription = sortDescription
        self.generatedAt = generatedAt
        self.timeZone = timeZone
        self.columns = columns
        self.chart = chart
        self.negative = negative
    }
}
