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

    private func prepare(_ yaml: String, _ parameters: [String: String] = [:]) throws -> PreparedReport {
        try PreparedReport(ReportDefinition.parse(yaml, name: "t", file: "t.yaml"), model: BookkeepingModel.model,
                           arguments: ParameterArguments(parameters), clock: SampleStore.clock)
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
             .decimal(units: 3000, scale: 2), .decimal(units: 1025, scale: 2), .list([.text("Repair"), .text("Refund")]), .integer(2024)],
            [.text("A-2"), .text("Zoë \"Z\", Inc.\nline two\tand a tab 🧾"), .date(year: 2025, month: 12, day: 31), .boolean(false),
             .decimal(units: 999_999_999_999, scale: 2), .decimal(units: 999_999_999_999, scale: 2), .list([.text("Repair")]), .integer(2025)],
            [.text("A-3"), .null, .date(year: 2025, month: 1, day: 15), .boolean(false),
             .decimal(units: 0, scale: 2), .null, .list([]), .integer(2025)],
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

    /// Periods without data appear with zeros: between the first and last with data, or between the bounds the
    /// definition names; in either order; averages of nothing stay empty.
    func testMissingPeriodsAreFilledWithZeros() throws {
        let quarters = try prepare("""
            entity: Order
            group: [quarter(date)]
            sort: quarter(date)
            columns: [{ key: quarter(date), title: Q }, { key: count, title: N }, { key: sum:rows.sum, title: Total, format: money }, { key: avg:rows.price, title: Avg }]

            """)
        let rows = try quarters.rows(from: store)
        XCTAssertEqual(rows.map { $0[0] }, ["2024-Q1", "2024-Q2", "2024-Q3", "2024-Q4", "2025-Q1", "2025-Q2", "2025-Q3", "2025-Q4"].map(ReportCell.text))
        XCTAssertEqual(rows.map { $0[1] }, [1, 0, 0, 0, 1, 0, 0, 1].map(ReportCell.integer))
        XCTAssertEqual(rows[1][2], .decimal(units: 0, scale: 2))
        XCTAssertEqual(rows[1][3], .null, "no average of nothing")
        XCTAssertEqual(quarters.document.columns[0].period, .quarter)

        let weeks = try prepare("""
            entity: Order
            params: { from: date, to: date }
            where: date >= $from AND date <= $to
            group: [week(date)]
            sort: week(date) desc
            columns: [{ key: week(date), title: Week }, { key: count, title: N }]
            period: { from: $from, to: $to }

            """, ["from": "2025-12-22", "to": "2026-01-12"])
        XCTAssertEqual(try weeks.rows(from: store), [
            [.text("2026-W03"), .integer(0)], [.text("2026-W02"), .integer(0)], [.text("2026-W01"), .integer(1)], [.text("2025-W52"), .integer(0)],
        ])
        let csv = try rendered(weeks, .csv())
        XCTAssertEqual(csv, "Week,N\n2026-W03,0\n2026-W02,0\n2026-W01,1\n2025-W52,0\n")

        let years = try prepare("entity: Order\ngroup: [year(date)]\nsort: year(date)\ncolumns: [year(date), count]\n")
        XCTAssertEqual(try years.rows(from: store).map { $0[0] }, [.integer(2024), .integer(2025)])
    }

    /// The filling as rows stream: a group without a period where SQLite sorts it (first ascending, last descending),
    /// gaps inside and at both ends, a row outside the bounds shown as it comes.
    func testFilledRowsAroundGroupsWithoutAPeriod() throws {
        func month(_ text: String) -> ReportPeriod { ReportPeriod(unit: .month, cell: .text(text))! }
        func filled(_ rows: [[ReportCell]], descending: Bool, first: String?, last: String?) throws -> [String] {
            let fill = PeriodFill(column: 0, unit: .month, descending: descending, first: first.map(month), last: last.map(month),
                                  template: [.null, .integer(0)])
            var source = PeriodFilledRows(base: ArrayRowSource(rows), fill: fill)
            var out: [String] = []
            while let row = try source.nextRow() {
                guard case .integer(let n) = row[1] else { continue }
                if case .text(let m) = row[0] { out.append("\(m):\(n)") } else { out.append("-:\(n)") }
            }
            return out
        }
        let ascending: [[ReportCell]] = [[.null, .integer(7)], [.text("2026-02"), .integer(2)], [.text("2026-04"), .integer(4)]]
        XCTAssertEqual(try filled(ascending, descending: false, first: "2026-01", last: "2026-05"),
                       ["-:7", "2026-01:0", "2026-02:2", "2026-03:0", "2026-04:4", "2026-05:0"])
        XCTAssertEqual(try filled(ascending, descending: false, first: nil, last: nil), ["-:7", "2026-02:2", "2026-03:0", "2026-04:4"])
        let descending: [[ReportCell]] = [[.text("2026-04"), .integer(4)], [.text("2026-02"), .integer(2)], [.null, .integer(7)]]
        XCTAssertEqual(try filled(descending, descending: true, first: "2026-05", last: "2026-01"),
                       ["2026-05:0", "2026-04:4", "2026-03:0", "2026-02:2", "2026-01:0", "-:7"])
        XCTAssertEqual(try filled([[.text("2025-12"), .integer(1)], [.text("2026-02"), .integer(2)]], descending: false, first: "2026-01", last: "2026-02"),
                       ["2025-12:1", "2026-01:0", "2026-02:2"], "a row before the bounds is shown; the bounds are kept")
        XCTAssertEqual(try filled([], descending: false, first: "2026-01", last: "2026-03"), ["2026-01:0", "2026-02:0", "2026-03:0"])
    }

    func testPeriodBoundsThatCannotApplyAreDefinitionErrors() {
        func message(_ yaml: String) -> String {
            do {
                try PreparedReport.check(ReportDefinition.parse(yaml, name: "t", file: "t.yaml"), model: BookkeepingModel.model,
                                         clock: SampleStore.clock)
                return "no error"
            } catch {
                return "\(error)"
            }
        }
        let head = "entity: Order\nparams: { from: date, to: date, who: string }\n"
        XCTAssertEqual(message(head + "group: [month(date)]\nsort: month(date)\ncolumns: [month(date), count]\nperiod: { from: $frm, to: $to }\n"),
                       #"t.yaml:6:17: period: "$frm" names no date parameter — did you mean "$from"? (write $NAME of a parameter declared under params: with type: date)"#)
        XCTAssertEqual(message(head + "group: [month(date)]\nsort: month(date)\ncolumns: [month(date), count]\nperiod: { from: $who }\n"),
                       #"t.yaml:6:17: period: "$who" is a string parameter; a period is bounded by dates"#)
        XCTAssertEqual(message(head + "columns: [number]\nperiod: { from: $from }\n"),
                       "t.yaml:4:9: period: applies to a report grouped by one period (group: [month(date)]) that shows it as a column")
        XCTAssertEqual(message(head + "group: [month(date)]\nsort: count desc\ncolumns: [month(date), count]\nperiod: { from: $from }\n"),
                       "t.yaml:6:9: period: needs the report sorted by its period first (sort: month(date)), so that the missing periods are found between consecutive rows")
        XCTAssertEqual(message(head + "group: [month(date)]\nsort: month(date)\ncolumns: [month(date), count]\nperiod: { start: $from }\n"),
                       #"t.yaml:6:11: unknown key "start" in period (period takes from, to)"#)
        // A bound that where: does not use let rows run past it while the header named it as the end.
        let bounded = "where: date >= $from\ngroup: [month(date)]\nsort: month(date)\ncolumns: [month(date), count]\n"
        XCTAssertEqual(message(head + bounded + "period: { from: $from, to: $to }\n"),
                       #"t.yaml:7:28: period: "$to" bounds the period, but where: does not use $to, so rows outside it would show (write, say, date <= $to)"#)
        XCTAssertEqual(message(head + bounded + "period: { from: $from }\n"), "no error")
    }

    /// `format: integer` printed a decimal sum as `97.000` and an average as `376.65303030303033`, and an average
    /// without a format showed all of a double's digits: an average is shown at the scale of what it averages
    /// (two decimals for integers, two more for a percentage), `integer` as a whole number, both rounded half away
    /// from zero, in every output alike.
    func testAveragesShowAtTheScaleOfWhatTheyAverageAndFormatIntegerRounds() throws {
        let report = try prepare("""
            entity: Order
            group: [year(date)]
            sort: year(date)
            columns:
              - { key: year(date), title: Year }
              - { key: avg:rows.sum, title: Average }
              - { key: avg:rows.sum, title: Whole, format: integer }
              - { key: sum:rows.sum, title: Sum whole, format: integer }
              - { key: avg:rows.sum, title: Share, format: percent }
              - { key: avg:rows.@count, title: Rows per order }

            """)
        XCTAssertEqual(report.document.columns.map(\.format), [.code, .number, .integer, .integer, .percent, .number])
        XCTAssertEqual(try report.rows(from: store), [
            [.integer(2024), .decimal(units: 1500, scale: 2), .decimal(units: 15, scale: 0), .decimal(units: 30, scale: 0),
             .decimal(units: 150_000, scale: 4), .decimal(units: 200, scale: 2)],
            [.integer(2025), .decimal(units: 999_999_999_999, scale: 2), .decimal(units: 10_000_000_000, scale: 0),
             .decimal(units: 10_000_000_000, scale: 0), .decimal(units: 99_999_999_999_900, scale: 4), .decimal(units: 50, scale: 2)],
        ])
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
            [.integer(2025), .integer(2), .decimal(units: 999_999_999_999, scale: 2), .decimal(units: 999_999_999_999, scale: 2),
             .date(year: 2025, month: 1, day: 15), .decimal(units: 999_999_999_999, scale: 2), .integer(1)],
            [.integer(2024), .integer(1), .decimal(units: 3000, scale: 2), .decimal(units: 1500, scale: 2), .date(year: 2024, month: 3, day: 1),
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
        XCTAssertTrue(json.contains(#"{"Number": "A-2", "Customer": "Zoë \"Z\", Inc.\nline two\tand a tab 🧾", "Date": "2025-12-31", "Paid": false, "Total": 9999999999.99, "Avg price": 9999999999.99, "Services": ["Repair"], "Year": "2025"}"#), json)
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

    /// A report reads one snapshot, with no count first: a write committed while its rows stream does not show.
    func testTheRowsAreOneSnapshotWithNoCountFirst() throws {
        let report = try prepare("entity: Order\ncolumns: [number]\n")
        XCTAssertFalse(report.explanation.contains("COUNT("), "one statement")
        let (declared, rows) = try report.withRows(in: store) { source -> (Int?, Int) in
            var n = 0
            if try source.nextRow() != nil { n += 1 }
            // Another connection commits an order after the first row is read.
            try executeSQL(store.path, "INSERT INTO \"Order\" (number, date, made, paid) VALUES ('B-1', '2026-01-01', 0, 0)")
            while try source.nextRow() != nil { n += 1 }
            return (source.rowCount, n)
        }
        XCTAssertNil(declared, "not counted up front")
        XCTAssertEqual(rows, 3)
        XCTAssertEqual(try report.rows(from: store).count, 4, "the next run sees the new order")
    }
}
