// Documents and rows shared by the renderer tests, and helpers to render into a temporary folder.

import Foundation
import LocalTime
import XCTest
@testable import ReportRenderers

enum ReportFixtures {
    /// 2026-11-21 21:00:00 UTC.
    static let generatedAt = Date(timeIntervalSince1970: 1_795_294_800)
    static let utc = Zone.utc

    /// A small, ordinary report.
    static let unpaidOrders = ReportDocument(
        name: "unpaid-orders", title: "Unpaid orders", description: "Orders that are not paid yet.",
        parameters: [(name: "Customer", value: "Acme Ltd"), (name: "Since", value: "2026-01-01")],
        sortDescription: "due date, oldest first", generatedAt: generatedAt, timeZone: utc,
        columns: [
            ReportColumn(title: "Number", format: .code),
            ReportColumn(title: "Customer"),
            ReportColumn(title: "Due", format: .date),
            ReportColumn(title: "Amount", format: .money, total: true),
            ReportColumn(title: "Paid", format: .boolean),
        ],
        chart: ChartSpec(kind: .column, title: "Amount by order", categoriesColumn: 0, valueColumns: [3]))

    static let unpaidOrderRows: [[ReportCell]] = [
        [.text("A-1"), .text("Acme Ltd"), .date(year: 2026, month: 10, day: 1), .decimal(units: 123_450, scale: 2), .boolean(false)],
        [.text("007"), .text("Zoë & Co"), .date(year: 2026, month: 10, day: 15), .decimal(units: 99, scale: 2), .boolean(false)],
        [.text("A-3"), .null, .null, .decimal(units: -1_000_000, scale: 2), .boolean(true)],
    ]

    /// Values that have broken renderers elsewhere.
    static let hostile = ReportDocument(
        name: "hostile", title: "Hostile \"values\"", description: nil,
        parameters: [(name: "Note", value: "a\tb\nc")], sortDescription: nil, generatedAt: generatedAt, timeZone: utc,
        columns: [
            ReportColumn(title: "Text"),
            ReportColumn(title: "Code", format: .code),
            ReportColumn(title: "Amount", format: .money, total: true),
            ReportColumn(title: "Ratio", format: .number),
            ReportColumn(title: "Share", format: .percent),
            ReportColumn(title: "When", format: .dateTime),
            ReportColumn(title: "Count", format: .integer, total: true),
        ])

    static let hostileRows: [[ReportCell]] = [
        [.text("say \"hi\", then; bye"), .integer(42), .decimal(units: Int128(Int64.max), scale: 2), .double(-0.0),
         .decimal(units: 125, scale: 3), .dateTime(secondsSinceEpoch: 1_795_163_415), .integer(1)],
        [.text("line\nfeed\ttab 😀"), .text("0042"), .decimal(units: -5, scale: 2), .double(0.1),
         .double(0.5), .null, .integer(-2)],
        [.text("=cmd|' /C calc'!A0"), .text("-2+3"), .decimal(units: 0, scale: 2), .double(1e21),
         .integer(1), .dateTime(secondsSinceEpoch: 0), .null],
        [.text("@SUM(A1)"), .text("+1"), .decimal(units: 1_000_000, scale: 4), .double(-2.5),
         .double(-0.0), .null, .integer(Int64.max)],
    ]

    static func empty(_ document: ReportDocument) -> ReportDocument {
        var document = document
        document.name += "-empty"
        return document
    }
}

/// A folder removed at the end of the test.
final class TemporaryFolder {
    let path: String

    init() throws {
        path = NSTemporaryDirectory() + "/report-renderers-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: path)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// The names in the folder, sorted (hidden ones included).
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: path).sorted()
    }
}

extension XCTestCase {
    /// Renders to a file in a fresh folder and returns its bytes.
    func renderedData(_ renderer: some ReportRenderer, _ document: ReportDocument, _ rows: [[ReportCell]],
                      file: StaticString = #filePath, line: UInt = #line) throws -> Data {
        let folder = try TemporaryFolder()
        let path = folder.file("report.out")
        var source = ArrayRowSource(rows)
        try renderer.render(document, rows: &source, to: .file(path: path))
        XCTAssertEqual(try folder.contents(), ["report.out"], "only the report is left", file: file, line: line)
        return try Data(contentsOf: URL(fileURLWithPath: path))
    }

    func rendered(_ renderer: some ReportRenderer, _ document: ReportDocument, _ rows: [[ReportCell]],
                  file: StaticString = #filePath, line: UInt = #line) throws -> String {
        String(decoding: try renderedData(renderer, document, rows, file: file, line: line), as: UTF8.self)
    }
}
