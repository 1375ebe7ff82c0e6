// The engine on a small store of awkward values: cells of every type straight from the stored
// values (decimals stay integer units, dates are dates, averages doubles), nulls, to-many lists,
// periods, grouped aggregates, formats chosen from value types, and hostile text through the text,
// CSV and JSON renderers.

import Bookkeeping
import Foundation
import ObjectStore
import ReportRenderers
@testable import Reports
import TestSupport
import XCTest

final class ReportEngineTests: XCTestCase {
    var directory: TemporaryDirectory!
    var store: Store!

    override func setUpWithError() throws {
        directory = TemporaryDirectory()
        store = try Store.create(at: directory.file("books.sqlite"), model: BookkeepingModel.model)
        let context = ObjectContext(store: store)
        func add(_ entity: String, _ values: [String: String]) throws {
            try context.apply(values.map { Assignment(key: $0.key, value: $0.value) }, to: try context.insert(entity))
        }
        try add("Service", ["name": "Repair"])
        try add("Service", ["name": "Refund"])
        try add("Customer", ["name": "Zoë \"Z\", Inc.\nline two\tand a tab 🧾", "code": "007"])
        try add("Customer", ["name": "=cmd|' /C calc'!A0", "code": "C2"])
        try context.save()
        try add("Order", ["number": "A-1", "date": "2024-03-01", "customer.code": "C2", "paid": "yes"])
        try add("Order", ["number": "A-2", "date": "2025-12-31", "customer.code": "007"])
        try add("Order", ["number": "A-3", "date": "2025-01-15"])
        try context.save()
        try add("OrderRow", ["order": "A-1", "service": "Repair", "quantity": "3", "price": "10.25"])
        try add("OrderRow", ["order": "A-1", "service": "Refund", "sum": "-0.75"])
        try add("OrderRow", ["order": "A-2", "service": "Repair", "quantity": "1", "price": "9999999999.99"])
        try context.save()
    }

    private func prepare(_ yaml: String) throws -> PreparedReport {
        try PreparedReport(ReportDefinition.parse(yaml, name: "t", file: "t.yaml"), model: BookkeepingModel.model, clock: SampleStore.clock)
    }

    private func rendered(_ report: PreparedReport, _ renderer: any ReportRenderer) throws -> String {
        let path = directory.file("out-\(UUID().uuidString)")
        try report.render(from: store, with: renderer, to: .file(path: path))
        return String(decoding: try Data(contentsOf: URL(fileURLWithPath: path)), as: UTF8.self)
    }

    static let objects = """
        title: Orders
        entity: Order
        sort: number
        columns:
          - { key: number, title: Number, format: code }
          - { key: customer.name, title: Customer }
          - { key: date, title: Date }
          - { key: paid, title: Paid }
          - { key: rows.@sum.sum, title: Total, format: money }
          - { key: rows.@avg.price, title: Avg price }
          - { key: rows.service.name, title: Services }
          - { key: year(date), title: Year }
        totals: [Total]

        """

    func testCellsComeStraightFromTheStoredValues() throws {
        let report = try prepare(Self.objects)
        XCTAssertEqual(report.document.columns.map(\.format), [.code, .text, .date, .boolean, .money, .number, .text, .code])
        XCTAssertEqual(report.document.columns.map(\.total), [false, false, false, false, true, false, false, false])
        let rows = try report.rows(from: store)
        XCTAssertEqual(rows, [
            [.text("A-1"), .text("=cmd|' /C calc'!A0"), .date(year: 2024, month: 3, day: 1), .boolean(true),
             .decimal(units: 3000, scale: 2), .double(10.25), .text("Repair, Refund"), .integer(2024)],
            [.text("A-2"), .text("Zoë \"Z\", Inc.\nline two\tand a tab 🧾"), .date(year: 2025, month: 12, day: 31), .boolean(false),
             .decimal(units: 999_999_999_999, scale: 2), .double(9_999_999_999.99), .text("Repair"), .integer(2025)],
            [.text("A-3"), .null, .date(year: 2025, month: 1, day: 15), .boolean(false),
             .decimal(units: 0, scale: 2), .null, .null, .integer(2025)],
        ])
    }

    func testNegativeStyleReachesTheDocument() throws {
        XCTAssertEqual(try prepare(ReportEngineTests.objects).document.negative, .minus, "the default")
        XCTAssertEqual(try prepare(ReportEngineTests.objects + "negative: parentheses\n").document.negative, .parentheses)
        XCTAssertEqual(try prepare(ReportEngineTests.objects + "negative: red\n").document.negative, .red)
    }

    func testEmptyGroupKeysAreLabelledAfterTheirKeyPathOrAsTheColumnSays() throws {
        XCTAssertEqual(PreparedReport.emptyLabel(keyPath: "customer.name"), "(no customer)")
        XCTAssertEqual(PreparedReport.emptyLabel(keyPath: "order.customer.name"), "(no customer)")
        XCTAssertEqual(PreparedReport.emptyLabel(keyPath: "month(date)"), "(no date)")
        XCTAssertEqual(PreparedReport.emptyLabel(keyPath: "name"), "(no name)")
        let grouped = try prepare("""
            entity: Order
            group: [customer.name]
            sort: customer.name
            columns:
              - { key: customer.name, title: Customer }
              - { key: count, title: Orders }
              - { key: sum:rows.sum, title: Total, format: money, empty: "—" }

            """)
        XCTAssertEqual(grouped.document.columns.map(\.emptyLabel), ["(no customer)", nil, "—"])
        let text = try rendered(grouped, .text())
        XCTAssertTrue(text.contains("\n(no customer)  "), text)
        // CSV and JSON keep the empty value, for programs.
        XCTAssertTrue(try rendered(grouped, .csv()).contains("\n,1,"), "empty in CSV")
        XCTAssertTrue(try rendered(grouped, .json()).contains(#"{"Customer": null, "Orders": 1"#))
        // Plain (ungrouped) columns stay empty unless they ask.
        XCTAssertEqual(try prepare(ReportEngineTests.objects).document.columns.map(\.emptyLabel), Array(repeating: nil, count: 8))
        let asked = try prepare("entity: Order\nsort: number\ncolumns: [{ key: number, title: N }, { key: customer.name, title: C, empty: (walk-in) }]\n")
        XCTAssertTrue(try rendered(asked, .text()).contains("A-3  (walk-in)"))
    }

    func testGroupedAggregates() throws {
        let report = try prepare("""
            entity: Order
            group: [year(date)]
            sort: year(date) desc
            columns:
              - { key: year(date), title: Year }
              - { key: count, title: Orders }
              - { key: sum:rows.sum, title: Total, format: money }
              - { key: avg:rows.sum, title: Average row }
              - { key: min:date, title: First }
              - { key: max:rows.@sum.sum, title: Largest order, format: money }
              - { key: count:rows, title: Rows }
            totals: [Orders, Total, Rows]

            """)
        XCTAssertEqual(report.document.columns.map(\.format), [.code, .integer, .money, .number, .date, .money, .integer])
        XCTAssertEqual(try report.rows(from: store), [
            [.integer(2025), .integer(2), .decimal(units: 999_999_999_999, scale: 2), .double(9_999_999_999.99),
             .date(year: 2025, month: 1, day: 15), .decimal(units: 999_999_999_999, scale: 2), .integer(1)],
            [.integer(2024), .integer(1), .decimal(units: 3000, scale: 2), .double(15), .date(year: 2024, month: 3, day: 1),
             .decimal(units: 3000, scale: 2), .integer(2)],
        ])
        XCTAssertEqual(report.document.sortDescription, "Year (descending)")
    }

    func testHostileTextThroughTheRenderers() throws {
        let report = try prepare(Self.objects)
        XCTAssertEqual(try rendered(report, .text()), """
            Orders
            ======

            Sort: Number
            Generated 2026-11-21 00:00 UTC

            Number  Customer    Date        Paid              Total      Avg price  Services    Year
            ------  ----------  ----------  ----  -----------------  -------------  ----------  ----
            A-1     =cmd|' ...  2024-03-01  yes               30.00          10.25  Repair,...  2024
            A-2     Zoë "Z"...  2025-12-31  no     9,999,999,999.99  9999999999.99  Repair      2025
            A-3                 2025-01-15  no                 0.00                             2025
            ------  ----------  ----------  ----  -----------------  -------------  ----------  ----
            Total                                 10,000,000,029.99

            3 rows

            """)
        XCTAssertEqual(try rendered(report, .csv(.raw)), """
            Number,Customer,Date,Paid,Total,Avg price,Services,Year
            A-1,=cmd|' /C calc'!A0,2024-03-01,true,30.00,10.25,"Repair, Refund",2024
            A-2,"Zoë ""Z"", Inc.
            line two\tand a tab 🧾",2025-12-31,false,9999999999.99,9999999999.99,Repair,2025
            A-3,,2025-01-15,false,0.00,,,2025

            """)
        XCTAssertTrue(try rendered(report, .csv()).contains("\nA-1,'=cmd|' /C calc'!A0,"), "formula neutralised by default")
        XCTAssertTrue(try rendered(report, .csv(.excel)).contains("\r\nA-1,'=cmd|' /C calc'!A0,"), "formula neutralised for Excel")
        let json = try rendered(report, .json())
        XCTAssertTrue(json.contains(#"{"Number": "A-2", "Customer": "Zoë \"Z\", Inc.\nline two\tand a tab 🧾", "Date": "2025-12-31", "Paid": false, "Total": 9999999999.99, "Avg price": 9999999999.99, "Services": "Repair", "Year": "2025"}"#), json)
        XCTAssertTrue(json.contains(#""totals": {"Total": 10000000029.99}"#), json)
    }

    func testAnEmptyReportSaysSo() throws {
        let report = try prepare("entity: Order\nwhere: number == \"none\"\ncolumns:\n  - { key: rows.@sum.sum, title: Total, format: money }\ntotals: [Total]\n")
        XCTAssertEqual(try rendered(report, .text()), """
            t
            =

            Generated 2026-11-21 00:00 UTC

            Total
            -----

            0 rows

            """)
        XCTAssertEqual(try rendered(report, .csv()), "Total\n")
    }

    /// The count and the rows come from one snapshot: a write between them cannot make them disagree.
    func testCountAndRowsShareATransaction() throws {
        let report = try prepare("entity: Order\ncolumns: [number]\n")
        let (count, rows) = try report.withRows(in: store) { source -> (Int, Int) in
            // Another connection commits an order after the count, before the rows are read.
            try executeSQL(store.path, "INSERT INTO \"Order\" (number, date, made, paid) VALUES ('B-1', '2026-01-01', 0, 0)")
            var n = 0
            while try source.nextRow() != nil { n += 1 }
            return (source.rowCount, n)
        }
        XCTAssertEqual(count, 3)
        XCTAssertEqual(rows, 3)
        XCTAssertEqual(try report.rows(from: store).count, 4, "the next run sees the new order")
    }
}
