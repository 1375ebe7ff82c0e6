// One protocol for every output format; one file per format beside this one.
//
// Every format is a contract (cron mails the text, pipelines read the CSV and JSON, accountants
// open the XLSX): change one only on purpose, and its golden tests with it. Each renderer reads
// the rows once, in order, and writes through `withOutputChannel`, so a file output is atomic (see
// FileOutput/OutputFile.swift) and every failure is a `ReportRenderError` naming the output — except
// an output refused or not created (`FileOutputError`) and the row source's own errors, which pass
// through unchanged.

/// A report output format.
package protocol ReportRenderer: Sendable {
    /// Reads `rows` to the end and writes the report to `output`. On any error a file output is
    /// left as it was (no partial file, no temporary file).
    func render<Rows: ReportRowSource>(_ document: ReportDocument, rows: inout Rows, to output: ReportOutput) throws
}

extension ReportRenderer where Self == TextRenderer {
    /// Aligned plain-text columns for mail and terminals (see TextRenderer.swift).
    package static func text(useColor: Bool = false) -> TextRenderer { TextRenderer(useColor: useColor) }
}

extension ReportRenderer where Self == CSVRenderer {
    /// RFC 4180 CSV (see CSVRenderer.swift).
    package static func csv(_ dialect: CSVRenderer.Dialect = .standard) -> CSVRenderer { CSVRenderer(dialect: dialect) }
}

extension ReportRenderer where Self == JSONRenderer {
    /// One JSON object, streamed (see JSONRenderer.swift).
    package static func json() -> JSONRenderer { JSONRenderer() }
}

extension ReportRenderer where Self == XLSXRenderer {
    /// An Excel workbook written in constant memory (see XLSXRenderer.swift).
    package static func xlsx() -> XLSXRenderer { XLSXRenderer() }
}

/// The formats by name, for a command line's `--format`.
package enum ReportFormat: String, Sendable, Hashable, CaseIterable {
    case text, csv, json, xlsx

    /// The renderer for this format; `csvDialect` applies to CSV, `useColor` to text.
    package func renderer(csvDialect: CSVRenderer.Dialect = .standard, useColor: Bool = false) -> any ReportRenderer {
        switch self {
        case .text: return TextRenderer(useColor: useColor)
        case .csv: return CSVRenderer(dialect: csvDialect)
        case .json: return JSONRenderer()
        case .xlsx: return XLSXRenderer()
        }
    }

    /// The usual file extension, without the dot.
    package var fileExtension: String {
        switch self {
        case .text: return "txt"
        case .csv: return "csv"
        case .json: return "json"
        case .xlsx: return "xlsx"
        }
    }
}

extension ReportDocument {
    /// Checks what renderers rely on; throws `ReportRenderError.invalidDocument` naming `file`.
    func validate(file: String) throws {
        guard let chart else { return }
        for column in [chart.categoriesColumn] + chart.valueColumns where !columns.indices.contains(column) {
            throw ReportRenderError(file: file, kind: .invalidDocument(
                "the chart refers to column \(column), but the report has \(columns.count) columns (0-based indexes)"))
        }
        if chart.valueColumns.isEmpty {
            throw ReportRenderError(file: file, kind: .invalidDocument("the chart has no value columns"))
        }
    }
}
