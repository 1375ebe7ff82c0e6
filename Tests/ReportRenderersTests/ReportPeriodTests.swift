// Periods as values: read from the cells the store's queries give, written back the same, stepped,
// and their first days — ISO weeks at the edges of years included.

import XCTest
@testable import ReportRenderers

final class ReportPeriodTests: XCTestCase {
    func testTextRoundTripsAndFirstDays() throws {
        let cases: [(ReportPeriodUnit, String, (Int, Int, Int))] = [
            (.month, "2026-03", (2026, 3, 1)), (.month, "2025-12", (2025, 12, 1)),
            (.quarter, "2026-Q1", (2026, 1, 1)), (.quarter, "2026-Q4", (2026, 10, 1)),
            (.week, "2026-W01", (2025, 12, 29)), (.week, "2026-W09", (2026, 2, 23)), (.week, "2020-W53", (2020, 12, 28)),
        ]
        for (unit, text, first) in cases {
            let period = try XCTUnwrap(ReportPeriod(unit: unit, cell: .text(text)), text)
            XCTAssertEqual(period.text, text)
            XCTAssertEqual(period.cell, .text(text))
            XCTAssertTrue(period.firstDay == first, "\(text): \(period.firstDay)")
        }
        let year = try XCTUnwrap(ReportPeriod(unit: .year, cell: .integer(2026)))
        XCTAssertEqual(year.text, "2026")
        XCTAssertEqual(year.cell, .integer(2026))
        XCTAssertTrue(year.firstDay == (2026, 1, 1))
        for bad in ["2026-13", "2026-3", "2026-Q5", "2026-W54", "2025-W53", "x", ""] {
            XCTAssertNil(ReportPeriod(unit: bad.contains("Q") ? .quarter : bad.contains("W") ? .week : .month, cell: .text(bad)), bad)
        }
        XCTAssertNil(ReportPeriod(unit: .month, cell: .null))
    }

    func testStepsAndTheDaysPeriods() {
        XCTAssertEqual(ReportPeriod(unit: .month, year: 2025, month: 12, day: 31).next.text, "2026-01")
        XCTAssertEqual(ReportPeriod(unit: .month, year: 2026, month: 1, day: 1).previous.text, "2025-12")
        XCTAssertEqual(ReportPeriod(unit: .quarter, year: 2026, month: 12, day: 31).next.text, "2027-Q1")
        XCTAssertEqual(ReportPeriod(unit: .week, year: 2026, month: 12, day: 28).next.text, "2027-W01")
        XCTAssertEqual(ReportPeriod(unit: .week, year: 2027, month: 1, day: 1).text, "2026-W53")
        XCTAssertEqual(ReportPeriod(unit: .week, year: 2021, month: 1, day: 3).text, "2020-W53", "a Sunday")
        XCTAssertEqual(ReportPeriod(unit: .year, year: 2026, month: 7, day: 4).next.text, "2027")
        XCTAssertLessThan(ReportPeriod(unit: .week, year: 2025, month: 12, day: 28), ReportPeriod(unit: .week, year: 2025, month: 12, day: 29))
    }
}
