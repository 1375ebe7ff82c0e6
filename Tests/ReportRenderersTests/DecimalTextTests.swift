// Exact decimal text and sums: what every renderer's numbers rest on.

import XCTest
@testable import ReportRenderers
import ValueText

final class DecimalTextTests: XCTestCase {
    func testUnitsAtAScale() {
        XCTAssertEqual(DecimalText(units: 12_550, scale: 2).text(), "125.50")
        XCTAssertEqual(DecimalText(units: -5, scale: 3).text(), "-0.005")
        XCTAssertEqual(DecimalText(units: 0, scale: 2).text(), "0.00")
        XCTAssertEqual(DecimalText(units: 7, scale: -2).text(), "700")
        XCTAssertEqual(DecimalText(units: Int128(Int64.max), scale: 2).text(), "92233720368547758.07")
        XCTAssertEqual(DecimalText(units: Int128(Int64.min), scale: 2).text(), "-92233720368547758.08")
        XCTAssertEqual(DecimalText(units: -123_456_789, scale: 2).text(decimalSeparator: UInt8(ascii: ","),
                                                                       groupingSeparator: UInt8(ascii: ".")), "-1.234.567,89")
        XCTAssertEqual(DecimalText(units: 100_000, scale: 2).text(groupingSeparator: UInt8(ascii: ",")), "1,000.00")
        XCTAssertEqual(DecimalText(units: 99_999, scale: 0).text(groupingSeparator: UInt8(ascii: ",")), "99,999")
    }

    func testRoundingHalfAwayFromZero() {
        XCTAssertEqual(DecimalText(units: 1005, scale: 3).rounded(toScale: 2).text(), "1.01")
        XCTAssertEqual(DecimalText(units: -1005, scale: 3).rounded(toScale: 2).text(), "-1.01")
        XCTAssertEqual(DecimalText(units: 1004, scale: 3).rounded(toScale: 2).text(), "1.00")
        XCTAssertEqual(DecimalText(units: 9995, scale: 3).rounded(toScale: 2).text(), "10.00")
        XCTAssertEqual(DecimalText(units: -4, scale: 3).rounded(toScale: 2).text(), "0.00", "no negative zero")
        XCTAssertEqual(DecimalText(units: 5, scale: 3).rounded(toScale: 2).text(), "0.01")
        XCTAssertEqual(DecimalText(units: 5, scale: 25).rounded(toScale: 2).text(), "0.00")
        XCTAssertEqual(DecimalText(units: 12, scale: 0).rounded(toScale: 2).text(), "12.00")
    }

    func testDoublesInTheirShortestForm() {
        XCTAssertEqual(DecimalText(double: 0.1)?.text(), "0.1")
        XCTAssertEqual(DecimalText(double: -0.0)?.text(), "0")
        XCTAssertEqual(DecimalText(double: 12.0)?.text(), "12")
        XCTAssertEqual(DecimalText(double: 1e21)?.text(), "1000000000000000000000")
        XCTAssertEqual(DecimalText(double: -1.5e-7)?.text(), "-0.00000015")
        XCTAssertEqual(DecimalText(double: 0.125)?.timesPowerOfTen(2).text(), "12.5")
        XCTAssertEqual(DecimalText(double: .leastNonzeroMagnitude)?.text().count, 326)
        XCTAssertNil(DecimalText(double: .nan))
        XCTAssertNil(DecimalText(double: .infinity))
    }

    func testExactSums() {
        var sum = ExactSum()
        sum.add(units: Int128(Int64.max), scale: 2)
        sum.add(units: Int128(Int64.max), scale: 2)
        XCTAssertEqual(sum.decimalText.text(), "184467440737095516.14")
        sum.add(units: 1, scale: 4)
        XCTAssertEqual(sum.decimalText.text(), "184467440737095516.1401")
        sum.add(units: Int128(Int64.min), scale: 2)
        sum.add(units: Int128(Int64.min), scale: 2)
        XCTAssertEqual(sum.decimalText.text(), "-0.0199")
        sum.add(units: 199, scale: 4)
        XCTAssertEqual(sum.decimalText.text(), "0.0000")
        sum.add(units: -3, scale: -1)
        XCTAssertEqual(sum.decimalText.text(), "-30.0000")

        var total = ColumnTotal()
        for cell: ReportCell in [.integer(1), .decimal(units: 10, scale: 1), .text("9"), .null, .double(.nan)] { total.add(cell) }
        XCTAssertEqual(total.value.text(), "2.0")
        total.add(.double(0.25))
        XCTAssertEqual(total.value.text(), "2.25")
    }

    func testManySmallAmountsStayExact() {
        var total = ColumnTotal()
        for _ in 0..<10_000 { total.add(.decimal(units: 10, scale: 2)) }   // 0.10 ten thousand times
        XCTAssertEqual(total.value.text(), "1000.00")
    }
}
