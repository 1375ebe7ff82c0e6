// An exact decimal: an integer count of units at a decimal scale (12550 at scale 2 is 125.50).
// Money never passes through floating point: parsing, arithmetic, rounding and storage all work
// on the scaled integer, and the store keeps the integer at the attribute's declared scale.

/// An exact decimal number, `units / 10^scale`.
public struct DecimalNumber: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let units: Int64
    public let scale: Int

    public static let maxScale = 18

    public init(units: Int64, scale: Int) {
        precondition(scale >= 0 && scale <= DecimalNumber.maxScale, "scale out of range")
        self.units = units
        self.scale = scale
    }

    public init(_ integer: Int64) { self.init(units: integer, scale: 0) }

    /// Parses `-1234.50`, `+3`, `.5`, `7.` exactly. No exponent, no grouping (callers strip those).
    public init?(exactly text: some StringProtocol) {
        var utf8 = Array(text.utf8)[...]
        guard !utf8.isEmpty else { return nil }
        var negative = false
        if let first = utf8.first, first == UInt8(ascii: "-") || first == UInt8(ascii: "+") {
            negative = first == UInt8(ascii: "-")
            utf8 = utf8.dropFirst()
        }
        var units: Int64 = 0
        var scale = 0
        var seenPoint = false
        var digits = 0
        for byte in utf8 {
            if byte == UInt8(ascii: ".") {
                if seenPoint { return nil }
                seenPoint = true
                continue
            }
            guard byte >= 48 && byte <= 57 else { return nil }
            let (m, o1) = units.multipliedReportingOverflow(by: 10)
            let (a, o2) = m.addingReportingOverflow(Int64(byte - 48))
            if o1 || o2 { return nil }
            units = a
            digits += 1
            if seenPoint { scale += 1 }
        }
        guard digits > 0, scale <= DecimalNumber.maxScale else { return nil }
        self.init(units: negative ? -units : units, scale: scale)
    }

    static func powerOfTen(_ n: Int) -> Int64 {
        var p: Int64 = 1
        for _ in 0..<n { p *= 10 }
        return p
    }

    /// The same value at a larger scale, or nil on overflow.
    public func widened(to newScale: Int) -> DecimalNumber? {
        precondition(newScale >= scale)
        let (u, o) = units.multipliedReportingOverflow(by: DecimalNumber.powerOfTen(newScale - scale))
        return o ? nil : DecimalNumber(units: u, scale: newScale)
    }

    /// The value at `newScale` if that loses nothing (`1.50` → scale 1 is `1.5`; `1.05` → scale 1 is nil).
    public func exactly(atScale newScale: Int) -> DecimalNumber? {
        if newScale >= scale { return widened(to: newScale) }
        let divisor = DecimalNumber.powerOfTen(scale - newScale)
        guard units % divisor == 0 else { return nil }
        return DecimalNumber(units: units / divisor, scale: newScale)
    }

    /// The value rounded half-to-even (banker's rounding) at `newScale`; nil on overflow.
    public func rounded(toScale newScale: Int) -> DecimalNumber? {
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
    public func multiplied(by other: DecimalNumber) -> DecimalNumber? {
        let (u, o) = units.multipliedReportingOverflow(by: other.units)
        guard !o, scale + other.scale <= DecimalNumber.maxScale else { return nil }
        return DecimalNumber(units: u, scale: scale + other.scale)
    }

    /// The exact sum at the larger scale, or nil on overflow.
    public func adding(_ other: DecimalNumber) -> DecimalNumber? {
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
        let divisor = UInt64(DecimalNumber.powerOfTen(scale))
        var fraction = String(magnitude % divisor)
        fraction = String(repeating: "0", count: scale - fraction.count) + fraction
        return (units < 0 ? "-" : "") + String(magnitude / divisor) + "." + fraction
    }
}
