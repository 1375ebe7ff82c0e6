
// An exact decimal: an integer count of units at a decimal scale (12550 at scale 2 is 125.50).
// Money never passes through floating point: parsing, arithmetic, rounding and storage all work
// on the scaled integer, and the store keeps the integer at the attribute's declared scale.
// Units are an Int128 although a stored value is an Int64: sums of stored values and products
// (quantity × price) must be exact and must be able to say by how much they exceed what an
// attribute holds, instead of overflowing.

/// An exact decimal number, `units / 10^scale`.
public struct DecimalNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The number's digits as an integer: 1050 for 10.50.
    public let units: Int128
    /// How many of `units`' digits are after the point: 2 for 10.50.
    public let scale: Int

    @usableFromInline package static let maxScale = 18

    /// Applies `count` trailing fraction zeros of a number being parsed while the scale and the range allow (so
    /// `1.50` stays at scale 2); the rest are dropped, which changes no value. Shared by every decimal parser.
    @inlinable
    package static func keepTrailingZeros<Units: FixedWidthInteger>(_ count: Int, units: inout Units, scale: inout Int) {
        var count = count
        while count > 0, scale < maxScale {
            let (m, o) = units.multipliedReportingOverflow(by: 10)
            if o { break }
            units = m
            scale += 1
            count -= 1
        }
    }

    /// The units a stored value may have (an attribute's column is an SQLite INTEGER): symmetric, as the range
    /// the messages give (±92233720368547758.07 at scale 2) — Int64.min's units have no negation in an Int64.
    package static let storedRange: ClosedRange<Int128> = Int128(-Int64.max)...Int128(Int64.max)

    /// The number `units` × 10^-`scale` (`units: 1050, scale: 2` is 10.50); `scale` 0 to `maxScale`, else a trap.
    /// Package only (attack 18, finding 7): a library user makes decimals from text (`init?(exactly:)`) or an
    /// integer, and cannot know the largest scale.
    @usableFromInline package init(units: Int128, scale: Int) {
        precondition(scale >= 0 && scale <= DecimalNumber.maxScale, "scale out of range")
        self.units = units
        self.scale = scale
    }

    /// The integer as a decimal of scale 0.
    public init(_ integer: Int64) { self.init(units: Int128(integer), scale: 0) }

    /// Whether the units fit a stored column (an Int64).
    package var fitsStorage: Bool { DecimalNumber.storedRange.contains(units) }

    /// The units as stored; nil when they do not fit an Int64.
    package var storedUnits: Int64? { Int64(exactly: units) }

    /// The value in SQL: an INTEGER, or beyond an Int64 the wide form of WideInteger.swift.
    package var wideStoredValue: StoredValue { WideInteger.encode(units) }

    /// The largest value an attribute of `scale` can hold, as text: `92233720368547758.07` at scale 2.
    package static func storedMaximum(scale: Int) -> DecimalNumber {
        DecimalNumber(units: Int128(Int64.max), scale: scale)
    }

    /// Parses `-1234.50`, `+3`, `.5`, `7.` exactly. No exponent, no grouping (callers strip those).
    /// Zeros after the point that are not followed by another digit are kept only up to `maxScale`
    /// (`1.0000000000000000000000` is 1 at scale 18): they change nothing, so they must not make a value fail.
    public init?(exactly text: some StringProtocol) {
        var utf8 = Array(text.utf8)[...]
        guard !utf8.isEmpty else { return nil }
        var negative = false
        if let first = utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        var units: Int128 = 0
        var scale = 0
        var seenPoint = false
        var digits = 0
        var pendingZeros = 0   // fraction zeros not yet applied (they may be trailing)
        func append(_ digit: Int128) -> Bool {
            let (m, o1) = units.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(digit)
            if o1 || o2 { return false }
            units = a
            return true
        }
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard byte >= 48 && byte <= 57 else { return nil }
            digits += 1
            if seenPoint && byte == 48 { pendingZeros += 1; continue }
            if seenPoint {
                while pendingZeros > 0 {
                    guard append(0) else { return nil }
                    pendingZeros -= 1
                    scale += 1
                }
            }
            guard append(Int128(byte - 48)) else { return nil }
            if seenPoint { scale += 1 }
        }
        DecimalNumber.keepTrailingZeros(pendingZeros, units: &units, scale: &scale)
        guard digits > 0, scale <= DecimalNumber.maxScale else { return nil }
        self.init(units: negative ? -units : units, scale: scale)
    }

    static func powerOfTen(_ n: Int) -> Int128 {
        var p: Int128 = 1
        for _ in 0..<n { p *= 10 }
        return p
    }

    /// The same value at a larger scale, or nil on overflow.
    package func widened(to newScale: Int) -> DecimalNumber? {
        precondition(newScale >= scale)
        let (u, o) = units.multipliedReportingOverflow(by: DecimalNumber.powerOfTen(newScale - scale))
        return o ? nil : DecimalNumber(units: u, scale: newScale)
    }

    /// The value at `newScale` if that loses nothing (`1.50` → scale 1 is `1.5`; `1.05` → scale 1 is nil); nil for
    /// a scale no decimal has (below 0 or above 18).
    public func exactly(atScale newScale: Int) -> DecimalNumber? {
        guard (0...DecimalNumber.maxScale).contains(newScale) else { return nil }
        if newScale >= scale { return widened(to: newScale) }
        let divisor = DecimalNumber.powerOfTen(scale - newScale)
        guard units % divisor == 0 else { return nil }
        return DecimalNumber(units: units / divisor, scale: newScale)
    }

    /// The value rounded half-to-even (banker's rounding) at `newScale`; nil on overflow, and for a scale no
    /// decimal has (below 0 or above 18).
    public func rounded(toScale newScale: Int) -> DecimalNumber? {
        guard (0...DecimalNumber.maxScale).contains(newScale) else { return nil }
        if newScale >= scale { return widened(to: newScale) }
        let divisor = DecimalNumber.powerOfTen(scale - newScale)
        var quotient = units / divisor
        let remainder = units % divisor
        let twice = remainder.magnitude * 2
        if twice > divisor.magnitude || (twice == divisor.magnitude && quotient % 2 != 0) {
            quotient += units < 0 ? -1 : 1
        }
        return DecimalNumber(units: quotient, scale: newScale)
    }

    /// The exact product (scales add), or nil on overflow.
    package func multiplied(by other: DecimalNumber) -> DecimalNumber? {
        let (u, o) = units.multipliedReportingOverflow(by: other.units)
        guard !o, scale + other.scale <= DecimalNumber.maxScale else { return nil }
        return DecimalNumber(units: u, scale: scale + other.scale)
    }

    /// The exact sum at the larger scale, or nil on overflow.
    package func adding(_ other: DecimalNumber) -> DecimalNumber? {
        let s = max(scale, other.scale)
        guard let a = widened(to: s), let b = other.widened(to: s) else { return nil }
        let (u, o) = a.units.addingReportingOverflow(b.units)
        return o ? nil : DecimalNumber(units: u, scale: s)
    }

    public static func < (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        compare(lhs, rhs) < 0
    }

    public static func == (lhs: DecimalNumber, rhs: DecimalNumber) -> Bool {
        compare(lhs, rhs) == 0
    }

    public func hash(into hasher: inout Hasher) {
        // Equal values at different scales hash alike: hash the normalised form.
        var u = units, s = scale
        while s > 0 && u % 10 == 0 { u /= 10; s -= 1 }
        hasher.combine(u)
        hasher.combine(s)
    }

    /// Compares exactly, even when widening one side would overflow.
    static func compare(_ a: DecimalNumber, _ b: DecimalNumber) -> Int {
        if a.scale == b.scale { return a.units < b.units ? -1 : (a.units > b.units ? 1 : 0) }
        let s = max(a.scale, b.scale)
        if let wa = a.widened(to: s), let wb = b.widened(to: s) {
            return wa.units < wb.units ? -1 : (wa.units > wb.units ? 1 : 0)
        }
        // Overflow while widening: the side that overflowed has the larger magnitude.
        let sa = a.units.signum(), sb = b.units.signum()
        if sa != sb { return sa < sb ? -1 : 1 }
        let aOverflows = a.widened(to: s) == nil
        return (aOverflows ? 1 : -1) * Int(sa)
    }

    /// Canonical text at the number's own scale: `125.50`, `-0.05`, `3`.
    public var description: String {
        if scale == 0 { return String(units) }
        let magnitude = units.magnitude
        let divisor = UInt128(DecimalNumber.powerOfTen(scale))
        var fraction = String(magnitude % divisor)
        fraction = String(repeating: "0", count: scale - fraction.count) + fraction
        return (units < 0 ? "-" : "") + String(magnitude / divisor) + "." + fraction
    }
}
