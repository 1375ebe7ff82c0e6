import Foundation
import LocalTime

extension Value {
    /// The value as another attribute type, exactly, or nil when it cannot be converted without loss:
    /// numbers between integer and decimal scales only when nothing is rounded, anything to text, text parsed
    /// strictly, booleans to and from 0/1, a date to a date-time at its start in the process's zone ($TZ: midnight,
    /// or when the clocks skipped midnight, the moment they did) and back only at such a start.
    package func converted(to type: AttributeType, zone: Zone = .process) -> Value? {
        // A decimal must also fit the stored column: `converted` is how migrations retype values.
        guard let result = convertedIgnoringRange(to: type, zone: zone) else { return nil }
        if case .decimal(let d) = result, !d.fitsStorage { return nil }
        return result
    }

    private func convertedIgnoringRange(to type: AttributeType, zone: Zone) -> Value? {
        if isNull { return .null }
        if fits(type) {
            if case .decimal(let d) = self, case .decimal(let s) = type { return d.exactly(atScale: s).map(Value.decimal) }
            return self
        }
        switch (self, type) {
        case (_, .string):
            return .string(description)
        case (.integer(let i), .decimal(let s)):
            return DecimalNumber(i).exactly(atScale: s).map(Value.decimal)
        case (.decimal(let d), .integer):
            return d.exactly(atScale: 0).flatMap { Int64(exactly: $0.units) }.map(Value.integer)
        case (.decimal(let d), .decimal(let s)):
            return d.exactly(atScale: s).map(Value.decimal)
        case (.integer(let i), .double):
            return Double(exactly: i).map(Value.double)
        case (.decimal(let d), .double):
            let x = Double(d.units) / pow10(d.scale)
            return DecimalNumber(exactly: String(x)).flatMap { $0 == d ? Value.double(x) : nil }
        case (.double(let x), .integer):
            return Int64(exactly: x).map(Value.integer)
        case (.double(let x), .decimal(let s)):
            guard x.isFinite, let d = DecimalNumber(exactly: Value.format(double: x)) else { return nil }
            return d.exactly(atScale: s).map(Value.decimal)
        case (.boolean(let b), .integer):
            return .integer(b ? 1 : 0)
        case (.integer(let i), .boolean):
            return i == 0 || i == 1 ? .boolean(i == 1) : nil
        case (.date(let d), .dateTime):
            // 0001-01-01 east of Greenwich starts in year 0 in UTC: it cannot be a stored date-time.
            let start = zone.startOfDay(days: Int64(d.daysSinceEpoch))
            return Timestamp.range.contains(start) ? .dateTime(Timestamp(secondsSinceEpoch: start)) : nil
        case (.dateTime(let t), .date):
            guard let day = t.day(in: zone), zone.startOfDay(days: Int64(day.daysSinceEpoch)) == t.secondsSinceEpoch else { return nil }
            return .date(day)
        case (.string(let s), _):
            return try? Value.parse(s, as: type)
        default:
            return nil
        }
    }
}
