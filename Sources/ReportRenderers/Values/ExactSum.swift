// Exact sums for totals.
//
// Why this file exists: a totals line must be the exact sum of the decimals shown above it, even
// when they do not fit in an Int64 together (a column of amounts near `92233720368547758.07`)
// and when scales differ. `ExactSum` is a small arbitrary-precision signed integer (base 10^9
// limbs) at the largest scale seen; `ColumnTotal` adds cells of any kind to one.

import ValueText

struct ExactSum: Sendable {
    private static let base: UInt64 = 1_000_000_000
    private static let powersOfTen: [UInt64] = [1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000,
                                                100_000_000]

    private var negative = false
    /// Magnitude, least significant limb first; empty for zero.
    private var limbs: [UInt32] = []
    /// Decimals of the sum: the largest scale added so far.
    private(set) var scale = 0

    /// Adds `units × 10^-scale`.
    mutating func add(units: Int128, scale unitsScale: Int) {
        var other = ExactSum.limbs(of: units.magnitude)
        var unitsScale = unitsScale
        if unitsScale < 0 {
            ExactSum.multiply(&other, byPowerOfTen: -unitsScale)
            unitsScale = 0
        }
        if unitsScale > scale {
            ExactSum.multiply(&limbs, byPowerOfTen: unitsScale - scale)
            scale = unitsScale
        } else if unitsScale < scale {
            ExactSum.multiply(&other, byPowerOfTen: scale - unitsScale)
        }
        guard !other.isEmpty else { return }
        let otherNegative = units < 0
        if limbs.isEmpty {
            limbs = other
            negative = otherNegative
        } else if negative == otherNegative {
            ExactSum.addMagnitude(&limbs, other)
        } else if ExactSum.compareMagnitudes(limbs, other) >= 0 {
            ExactSum.subtractMagnitude(&limbs, other)
            if limbs.isEmpty { negative = false }
        } else {
            var result = other
            ExactSum.subtractMagnitude(&result, limbs)
            limbs = result
            negative = otherNegative
        }
    }

    var decimalText: DecimalText {
        guard let top = limbs.last else { return DecimalText(negative: false, digits: [UInt8(ascii: "0")], scale: scale) }
        var digits = Array(String(top).utf8)
        for limb in limbs.dropLast().reversed() {
            let text = Array(String(limb).utf8)
            digits.append(contentsOf: repeatElement(UInt8(ascii: "0"), count: 9 - text.count))
            digits.append(contentsOf: text)
        }
        return DecimalText(negative: negative, digits: digits, scale: scale)
    }

    private static func limbs(of value: UInt128) -> [UInt32] {
        var value = value
        var result: [UInt32] = []
        while value > 0 {
            result.append(UInt32(value % UInt128(base)))
            value /= UInt128(base)
        }
        return result
    }

    private static func multiply(_ limbs: inout [UInt32], byPowerOfTen power: Int) {
        guard !limbs.isEmpty, power > 0 else { return }
        let rest = power % 9
        if rest > 0 {
            let factor = powersOfTen[rest]
            var carry: UInt64 = 0
            for i in limbs.indices {
                let value = UInt64(limbs[i]) * factor + carry
                limbs[i] = UInt32(value % base)
                carry = value / base
            }
            while carry > 0 {
                limbs.append(UInt32(carry % base))
                carry /= base
            }
        }
        if power / 9 > 0 { limbs.insert(contentsOf: repeatElement(0, count: power / 9), at: 0) }
    }

    private static func addMagnitude(_ a: inout [UInt32], _ b: [UInt32]) {
        var carry: UInt64 = 0
        for i in 0..<max(a.count, b.count) {
            let sum = (i < a.count ? UInt64(a[i]) : 0) + (i < b.count ? UInt64(b[i]) : 0) + carry
            if i < a.count { a[i] = UInt32(sum % base) } else { a.append(UInt32(sum % base)) }
            carry = sum / base
        }
        if carry > 0 { a.append(UInt32(carry)) }
    }

    /// a -= b, where |a| ≥ |b|.
    private static func subtractMagnitude(_ a: inout [UInt32], _ b: [UInt32]) {
        var borrow: Int64 = 0
        for i in a.indices {
            var difference = Int64(a[i]) - (i < b.count ? Int64(b[i]) : 0) - borrow
            if difference < 0 {
                difference += Int64(base)
                borrow = 1
            } else {
                borrow = 0
            }
            a[i] = UInt32(difference)
        }
        while a.last == 0 { a.removeLast() }
    }

    private static func compareMagnitudes(_ a: [UInt32], _ b: [UInt32]) -> Int {
        if a.count != b.count { return a.count < b.count ? -1 : 1 }
        for i in a.indices.reversed() where a[i] != b[i] { return a[i] < b[i] ? -1 : 1 }
        return 0
    }
}

/// The total of a column: integers and decimals summed exactly; if the column also holds doubles,
/// the total is a double (the exact part converted once, plus the doubles). NaN and infinities,
/// and cells that are not numbers, are left out. A double total beyond ±1.8e308 is not finite, and
/// `checkedValue` refuses it: it was written as 0 (JSON) and as nothing (text).
struct ColumnTotal: Sendable {
    private var exact = ExactSum()
    /// Values of one scale summed in an Int128 before they go into `exact`, which allocates for each one it adds:
    /// a column's values mostly share their scale, and an Int128 overflows only far beyond any stored sum.
    private var pending: Int128 = 0
    private var pendingScale = 0
    private var hasPending = false
    private var doubles = 0.0
    private var hasDoubles = false

    mutating func add(_ cell: ReportCell) {
        switch cell {
        case let .integer(value): add(units: Int128(value), scale: 0)
        case let .decimal(units, scale): add(units: units, scale: scale)
        case let .double(value) where value.isFinite:
            doubles += value
            hasDoubles = true
        default: break
        }
    }

    @inline(__always)
    private mutating func add(units: Int128, scale: Int) {
        if hasPending && scale == pendingScale {
            let (sum, overflow) = pending.addingReportingOverflow(units)
            if !overflow {
                pending = sum
                return
            }
        }
        if hasPending { exact.add(units: pending, scale: pendingScale) }
        pending = units
        pendingScale = scale
        hasPending = true
    }

    /// The exact sum of the integers and decimals added.
    private var exactSum: ExactSum {
        guard hasPending else { return exact }
        var sum = exact
        sum.add(units: pending, scale: pendingScale)
        return sum
    }

    var value: DecimalText {
        let sum = exactSum.decimalText
        guard hasDoubles else { return sum }
        return DecimalText(double: sum.doubleValue + doubles) ?? sum
    }

    /// Whether the total is a finite number.
    var isFinite: Bool { !hasDoubles || (exactSum.decimalText.doubleValue + doubles).isFinite }

    /// The total; one beyond what a double holds is an error naming the column (its title).
    func checkedValue(column: String, file: String) throws -> DecimalText {
        guard isFinite else { throw ReportRenderError.totalNotFinite(file: file, column: column) }
        return value
    }
}
