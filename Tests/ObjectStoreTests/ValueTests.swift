import XCTest
@testable import ObjectStore

final class DecimalNumberTests: XCTestCase {
    func testParsesExactlyWithoutFloatingPoint() {
        XCTAssertEqual(DecimalNumber(exactly: "125.50"), DecimalNumber(units: 12550, scale: 2))
        XCTAssertEqual(DecimalNumber(exactly: "-0.05")?.description, "-0.05")
        XCTAssertEqual(DecimalNumber(exactly: "+3")?.description, "3")
        XCTAssertEqual(DecimalNumber(exactly: ".5")?.description, "0.5")
        XCTAssertEqual(DecimalNumber(exactly: "0.1")!.adding(DecimalNumber(exactly: "0.2")!), DecimalNumber(exactly: "0.3"))
        for bad in ["", "-", ".", "1.2.3", "1e5", "12a", " 1", "1234567890123456789012345678901234567890",
                    "1.0000000000000000000001"] {
            XCTAssertNil(DecimalNumber(exactly: bad), bad)
        }
        // Beyond an Int64 parses exactly (a sum, or a value to refuse with its range); storing it is refused.
        XCTAssertEqual(DecimalNumber(exactly: "9223372036854775808")?.fitsStorage, false)
        XCTAssertThrowsError(try Value.parse("92233720368547758.08", as: .decimal(scale: 2))) { error in
            XCTAssertEqual((error as? ValueParseError)?.message,
                           "\"92233720368547758.08\" is beyond what Decimal(2) can hold (±92233720368547758.07)")
        }
    }

    /// Issue 15: zeros after the point beyond the largest scale change nothing and are accepted.
    func testTrailingZerosBeyondTheLargestScale() throws {
        XCTAssertEqual(DecimalNumber(exactly: "1.0000000000000000000000"), DecimalNumber(1))
        XCTAssertEqual(DecimalNumber(exactly: "1.50")?.description, "1.50")
        XCTAssertEqual(try Value.parse("1.0000000000000000000000", as: .decimal(scale: 2)), .decimal(DecimalNumber(units: 100, scale: 2)))
        XCTAssertEqual(try Value.parse("92233720368547758.070000000000000000000", as: .decimal(scale: 2)),
                       .decimal(DecimalNumber(units: Int128(Int64.max), scale: 2)))
    }

    func testRoundsHalfToEven() {
        func r(_ s: String, _ scale: Int) -> String { DecimalNumber(exactly: s)!.rounded(toScale: scale)!.description }
        XCTAssertEqual(r("0.125", 2), "0.12")
        XCTAssertEqual(r("0.135", 2), "0.14")
        XCTAssertEqual(r("0.375", 2), "0.38")
        XCTAssertEqual(r("-0.125", 2), "-0.12")
        XCTAssertEqual(r("-0.135", 2), "-0.14")
        XCTAssertEqual(r("2.5", 0), "2")
        XCTAssertEqual(r("3.5", 0), "4")
        XCTAssertEqual(r("1.2349", 2), "1.23")
        XCTAssertEqual(r("1.2351", 2), "1.24")
        XCTAssertEqual(r("7", 2), "7.00")
    }

    func testExactRescalingRefusesLoss() {
        XCTAssertEqual(DecimalNumber(exactly: "1.50")!.exactly(atScale: 1)?.description, "1.5")
        XCTAssertNil(DecimalNumber(exactly: "1.05")!.exactly(atScale: 1))
        XCTAssertNil(DecimalNumber(units: Int128.max, scale: 0).widened(to: 2))
        // Widening beyond an Int64 is exact; storing it is what is refused.
        XCTAssertEqual(DecimalNumber(units: Int128(Int64.max), scale: 0).widened(to: 2)?.fitsStorage, false)
    }

    func testComparesAcrossScalesAndOverflow() {
        XCTAssertEqual(DecimalNumber(exactly: "1.5"), DecimalNumber(exactly: "1.500"))
        XCTAssertEqual(DecimalNumber(exactly: "1.5")!.hashValue, DecimalNumber(exactly: "1.500")!.hashValue)
        XCTAssertLessThan(DecimalNumber(exactly: "1.49")!, DecimalNumber(exactly: "1.5")!)
        XCTAssertLessThan(DecimalNumber(exactly: "0.000000000000000001")!, DecimalNumber(units: Int128.max, scale: 0))
        XCTAssertLessThan(DecimalNumber(units: Int128.min, scale: 0), DecimalNumber(exactly: "-0.1")!)
    }

    func testMultipliesExactly() {
        let product = DecimalNumber(exactly: "3.000")!.multiplied(by: DecimalNumber(exactly: "10.25")!)!
        XCTAssertEqual(product.description, "30.75000")
        XCTAssertNil(DecimalNumber(units: Int128.max / 2, scale: 0).multiplied(by: DecimalNumber(3)))
        // Two stored extremes multiply exactly (quantity × price never overflows before it is checked).
        XCTAssertEqual(DecimalNumber(Int64.max).multiplied(by: DecimalNumber(Int64.max))?.description,
                       "85070591730234615847396907784232501249")
    }
}

final class DayTests: XCTestCase {
    func testParsesCalendarDaysStrictly() {
        XCTAssertEqual(Day(iso: "2024-02-29")?.description, "2024-02-29")
        for bad in ["2023-02-29", "2024-13-01", "2024-00-10", "2024-04-31", "24-01-01", "2024-1-01", "2024/01/01", ""] {
            XCTAssertNil(Day(iso: bad), bad)
        }
    }

    func testCountsDaysFromEpoch() {
        XCTAssertEqual(Day(iso: "1970-01-01")!.daysSinceEpoch, 0)
        XCTAssertEqual(Day(iso: "2000-03-01")!.daysSinceEpoch, 11017)
        XCTAssertEqual(Day(daysSinceEpoch: 11017)?.description, "2000-03-01")
        XCTAssertEqual(Day(iso: "2024-12-31")!.adding(days: 1)?.description, "2025-01-01")
    }

    func testTimestampsAreUTC() {
        XCTAssertEqual(Timestamp(iso: "2024-03-01T12:30:00Z")?.description, "2024-03-01T12:30:00Z")
        XCTAssertEqual(Timestamp(iso: "2024-03-01 12:30:00+02:00")?.description, "2024-03-01T10:30:00Z")
        XCTAssertNil(Timestamp(iso: "2024-03-01T25:00:00"))
    }
}

final class ValueTextTests: XCTestCase {
    func testParsesEachTypeStrictly() throws {
        XCTAssertEqual(try Value.parse("42", as: .integer), .integer(42))
        XCTAssertEqual(try Value.parse("125.5", as: .decimal(scale: 2)), .decimal(DecimalNumber(units: 12550, scale: 2)))
        XCTAssertEqual(try Value.parse("YES", as: .boolean), .boolean(true))
        XCTAssertEqual(try Value.parse("0", as: .boolean), .boolean(false))
        XCTAssertEqual(try Value.parse("2024-03-01", as: .date), .date(Day(iso: "2024-03-01")!))
        XCTAssertEqual(try Value.parse("0x00ff", as: .binary), .binary(Data([0, 255])))
        XCTAssertEqual(try Value.parse("007", as: .string), .string("007"))
    }

    func testRefusalsNameTheValue() {
        func message(_ text: String, _ type: AttributeType) -> String? {
            do { _ = try Value.parse(text, as: type); return nil } catch { return error.message }
        }
        XCTAssertEqual(message("1.005", .decimal(scale: 2)), "\"1.005\" has more than 2 decimal places")
        XCTAssertEqual(message("12,50", .decimal(scale: 2)), "\"12,50\" is not a decimal number")
        XCTAssertEqual(message("2024-02-30", .date), "\"2024-02-30\" is not a date (expected YYYY-MM-DD)")
        XCTAssertEqual(message("maybe", .boolean), "\"maybe\" is not a boolean (expected yes/no, true/false or 1/0)")
        XCTAssertEqual(message("4.2", .integer), "\"4.2\" is not an integer")
        XCTAssertEqual(message("inf", .double), "\"inf\" is not a finite number (a double holds at most ±1.7976931348623157e+308; "
                       + "infinities and NaN are not stored)")
        XCTAssertEqual(message("1,5", .double), "\"1,5\" is not a number")
    }
}

/// Issue 15: decimals are Int128 inside, so every conversion into a stored decimal checks the stored range.
final class DecimalRangeConversionTests: XCTestCase {
    func testConversionsIntoADecimalKeepToTheStoredRange() {
        XCTAssertEqual(Value.integer(5).converted(to: .decimal(scale: 2)), .decimal(DecimalNumber(units: 500, scale: 2)))
        // A migration retyping an integer column to Decimal(2) cannot keep Int64.max: it does not convert.
        XCTAssertNil(Value.integer(Int64.max).converted(to: .decimal(scale: 2)))
        XCTAssertNil(Value.string("92233720368547758.08").converted(to: .decimal(scale: 2)))
        XCTAssertNil(Value.decimal(DecimalNumber(units: Int128(Int64.max) + 1, scale: 0)).converted(to: .integer))
        XCTAssertFalse(Value.decimal(DecimalNumber(units: Int128(Int64.max) + 1, scale: 2)).fits(.decimal(scale: 2)))
    }
}
