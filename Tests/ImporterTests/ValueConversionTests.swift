import LocalTime
import XCTest
import ObjectStore
@testable import Importer

/// Cell text → values for import: exact decimals, grouping, decimal comma, date formats, booleans, strictness.
final class ValueConversionTests: XCTestCase {
    func convert(_ text: String, _ type: AttributeType, decimalComma: Bool = false, format: String? = nil) throws -> Value {
        let converter = ValueConverter(decimalComma: decimalComma, dateFormat: try format.map { try DateFormat($0) }, zone: .utc)
        return try Array(text.utf8).withUnsafeBufferPointer { try converter.convert($0, as: type) { text } }
    }

    func failure(_ text: String, _ type: AttributeType, decimalComma: Bool = false, format: String? = nil) -> String? {
        do {
            _ = try convert(text, type, decimalComma: decimalComma, format: format)
            return nil
        } catch let e as ConversionError {
            return e.message
        } catch {
            return "\(error)"
        }
    }

    func decimal(_ units: Int64, _ scale: Int) -> Value { .decimal(DecimalNumber(units: Int128(units), scale: scale)) }

    func testTextWithANulByteIsRefused() {
        XCTAssertEqual(failure("bad\u{0}tail", .string), "the value contains a NUL byte, which text in the store cannot hold")
        XCTAssertEqual(try? convert("  007 ", .string), .string("  007 "))
    }

    func testDecimalsAreExactWithPointAndGrouping() throws {
        XCTAssertEqual(try convert("1234.50", .decimal(scale: 2)), decimal(123450, 2))
        XCTAssertEqual(try convert("1,234.50", .decimal(scale: 2)), decimal(123450, 2))
        XCTAssertEqual(try convert("1,234,567.5", .decimal(scale: 2)), decimal(123456750, 2))
        XCTAssertEqual(try convert(" -3 ", .decimal(scale: 2)), decimal(-300, 2))
        XCTAssertEqual(try convert("+0.10", .decimal(scale: 3)), decimal(100, 3))
        XCTAssertEqual(try convert("1.500", .decimal(scale: 2)), decimal(150, 2), "trailing zeros beyond the scale lose nothing")
        // 0.1 + 0.2 would not be exact in floating point; here it is units.
        XCTAssertEqual(try convert("9007199254740993", .decimal(scale: 0)), decimal(9_007_199_254_740_993, 0))
    }

    func testDecimalCommaReadsPointsAsGrouping() throws {
        XCTAssertEqual(try convert("1.234,50", .decimal(scale: 2), decimalComma: true), decimal(123450, 2))
        XCTAssertEqual(try convert("12,5", .decimal(scale: 2), decimalComma: true), decimal(1250, 2))
        XCTAssertEqual(failure("1.5", .decimal(scale: 2), decimalComma: true),
                       "\"1.5\" is not a decimal number — with --decimal-comma the decimal separator is a comma")
    }

    func testRegionalGroupingAsRussianGermanPolishAndSwissExportsWriteIt() throws {
        // 1C and Excel: a space, a no-break space, a narrow no-break space, an apostrophe, or the other mark.
        XCTAssertEqual(try convert("1 234,50", .decimal(scale: 2), decimalComma: true), decimal(123450, 2))
        XCTAssertEqual(try convert("1\u{A0}234,50", .decimal(scale: 2), decimalComma: true), decimal(123450, 2))
        XCTAssertEqual(try convert("12\u{A0}345\u{A0}678,00", .decimal(scale: 2), decimalComma: true), decimal(1_234_567_800, 2))
        XCTAssertEqual(try convert("1\u{202F}234,5", .decimal(scale: 2), decimalComma: true), decimal(123450, 2))
        XCTAssertEqual(try convert("1'234.50", .decimal(scale: 2)), decimal(123450, 2))
        XCTAssertEqual(try convert("-1 234 567", .integer), .integer(-1_234_567))
        XCTAssertEqual(try convert("1.234.567,89", .decimal(scale: 2), decimalComma: true), decimal(123_456_789, 2))
        // Anything else is an error, never a silently joined number.
        XCTAssertEqual(failure("12 34,5", .decimal(scale: 2), decimalComma: true), "\"12 34,5\" is not a decimal number")
        XCTAssertEqual(failure("1 2345", .decimal(scale: 2)), "\"1 2345\" is not a decimal number")
        XCTAssertEqual(failure("1234 567,5", .decimal(scale: 2), decimalComma: true), "\"1234 567,5\" is not a decimal number")
        XCTAssertEqual(failure("1 234.567,5", .decimal(scale: 2), decimalComma: true), "\"1 234.567,5\" is not a decimal number", "one grouping mark throughout")
        XCTAssertEqual(failure("1 234,5", .decimal(scale: 2)), "\"1 234,5\" is not a decimal number — try --decimal-comma")
        XCTAssertEqual(failure("1,234,5", .decimal(scale: 2), decimalComma: true), "\"1,234,5\" is not a decimal number", "the grouping mark differs from the decimal one")
        // In a code page the no-break space is that page's byte.
        var koi8 = ValueConverter(decimalComma: true, zone: .utc)
        koi8.spaceGroupings = [[0x9A]]
        XCTAssertEqual(try [0x31, 0x9A, 0x32, 0x33, 0x34, 0x2C, 0x35].withUnsafeBufferPointer { try koi8.convert($0, as: .decimal(scale: 2)) { "" } }, decimal(123450, 2))
    }

    func testDecimalsThatDoNotFitAreErrorsNeverRounded() {
        XCTAssertEqual(failure("1.005", .decimal(scale: 2)), "\"1.005\" has more than 2 decimal places")
        XCTAssertEqual(failure("12,5", .decimal(scale: 2)), "\"12,5\" is not a decimal number — try --decimal-comma")
        XCTAssertEqual(failure("1,23,456", .decimal(scale: 2)), "\"1,23,456\" is not a decimal number — try --decimal-comma")
        XCTAssertEqual(failure("12abc", .decimal(scale: 2)), "\"12abc\" is not a decimal number")
        XCTAssertEqual(failure("1e5", .decimal(scale: 2)), "\"1e5\" is not a decimal number")
        // Issue 15: a value beyond the attribute's range says so, with the range.
        XCTAssertEqual(failure("99999999999999999999", .decimal(scale: 2)),
                       "\"99999999999999999999\" is beyond what Decimal(2) can hold (±92233720368547758.07)")
        XCTAssertEqual(failure("92233720368547758.08", .decimal(scale: 2)),
                       "\"92233720368547758.08\" is beyond what Decimal(2) can hold (±92233720368547758.07)")
        XCTAssertEqual(failure("92233720368547758.07", .decimal(scale: 3)),
                       "\"92233720368547758.07\" is beyond what Decimal(3) can hold (±9223372036854775.807)")
        // Issue 26: a nonzero digit past the 18th place is a decimal number with too many places, not "not a decimal number".
        XCTAssertEqual(failure("1.0000000000000000000001", .decimal(scale: 2)), "\"1.0000000000000000000001\" has more than 2 decimal places")
        XCTAssertEqual(failure("1.0000000000000000001", .decimal(scale: 3)), "\"1.0000000000000000001\" has more than 3 decimal places")
        XCTAssertEqual(failure("1.000000000000000000.1", .decimal(scale: 2)), "\"1.000000000000000000.1\" is not a decimal number")
    }

    /// Issue 15: places beyond the scale that are all zeros change nothing, however many.
    func testTrailingZerosBeyondTheScaleAreAccepted() throws {
        XCTAssertEqual(try convert("1.0000000000000000000000", .decimal(scale: 2)), decimal(100, 2))
        XCTAssertEqual(try convert("-92233720368547758.0700000000000000000000000", .decimal(scale: 2)), decimal(-9223372036854775807, 2))
        XCTAssertEqual(try convert("1.000", .decimal(scale: 2)), decimal(100, 2))
        XCTAssertEqual(try convert("0.10000000000000000000", .decimal(scale: 1)), decimal(1, 1))
    }

    func testIntegers() throws {
        XCTAssertEqual(try convert("1,000", .integer), .integer(1000))
        XCTAssertEqual(try convert("-42", .integer), .integer(-42))
        XCTAssertEqual(failure("4.2", .integer), "\"4.2\" is not an integer")
    }

    func testBooleansInAnyCase() throws {
        for t in ["yes", "Y", "TRUE", "1", " y "] { XCTAssertEqual(try convert(t, .boolean), .boolean(true), t) }
        for t in ["no", "N", "False", "0"] { XCTAssertEqual(try convert(t, .boolean), .boolean(false), t) }
        XCTAssertEqual(failure("maybe", .boolean), "\"maybe\" is not a boolean (expected yes/no, true/false, y/n or 1/0)")
    }

    func testDatesDefaultToISO() throws {
        XCTAssertEqual(try convert("2024-02-29", .date), .date(Day(year: 2024, month: 2, day: 29)!))
        XCTAssertEqual(failure("2023-02-29", .date), "\"2023-02-29\" is not a date in format %Y-%m-%d")
        XCTAssertEqual(failure("01/02/2024", .date), "\"01/02/2024\" is not a date in format %Y-%m-%d")
    }

    func testDateFormats() throws {
        XCTAssertEqual(try convert("31/01/2024", .date, format: "%d/%m/%Y"), .date(Day(year: 2024, month: 1, day: 31)!))
        XCTAssertEqual(failure("31/02/2024", .date, format: "%d/%m/%Y"), "\"31/02/2024\" is not a date in format %d/%m/%Y")
        // The FDIC list: one-digit days, month abbreviations, two-digit years.
        XCTAssertEqual(try convert("1-May-23", .date, format: "%d-%b-%y"), .date(Day(year: 2023, month: 5, day: 1)!))
        XCTAssertEqual(try convert("13-OCT-00", .date, format: "%d-%b-%y"), .date(Day(year: 2000, month: 10, day: 13)!))
        XCTAssertEqual(try convert("13-Oct-99", .date, format: "%d-%b-%y"), .date(Day(year: 1999, month: 10, day: 13)!))
        // Time parts are allowed and ignored for a Date.
        XCTAssertEqual(try convert("1996-07-04 13:05:59", .date, format: "%Y-%m-%d %H:%M:%S"), .date(Day(year: 1996, month: 7, day: 4)!))
        XCTAssertEqual(try convert("March 3, 2024", .date, format: "%B %d, %Y"), .date(Day(year: 2024, month: 3, day: 3)!))
        XCTAssertEqual(failure("2024-03-01 25:00:00", .date, format: "%Y-%m-%d %H:%M:%S"),
                       "\"2024-03-01 25:00:00\" is not a date in format %Y-%m-%d %H:%M:%S")
        XCTAssertEqual(failure("2024-03-01x", .date, format: "%F"), "\"2024-03-01x\" is not a date in format %F")
    }

    func testDateTimes() throws {
        XCTAssertEqual(try convert("2024-03-01 07:08:09 PM", .dateTime, format: "%Y-%m-%d %I:%M:%S %p"),
                       .dateTime(Timestamp(iso: "2024-03-01T19:08:09Z")!))
        XCTAssertEqual(try convert("2024-03-01T07:08:09+01:00", .dateTime), .dateTime(Timestamp(iso: "2024-03-01T06:08:09Z")!))
    }

    func testDateFormatPatternsAreChecked() {
        func error(_ p: String) -> String? {
            do { _ = try DateFormat(p); return nil } catch { return error.message }
        }
        XCTAssertEqual(error("%d/%m/%Q"), "unknown directive %Q (known: %Y %y %m %d %e %b %B %H %I %p %M %S %F %T %%)")
        XCTAssertEqual(error("%d/%m"), "needs a year, a month and a day (%Y or %y, %m or %b, %d)")
        XCTAssertEqual(error("%Y-%m-%d %Y"), "gives the year twice")
        XCTAssertEqual(error("%Y-%m-%d %I"), "%I and %p go together")
        XCTAssertEqual(error("%Y-%m-%d %"), "ends with a lone %")
    }

    func testStringsKeepLeadingZerosAndSpaces() throws {
        XCTAssertEqual(try convert("007", .string), .string("007"))
        XCTAssertEqual(try convert(" Acme ", .string), .string(" Acme "))
    }
}
