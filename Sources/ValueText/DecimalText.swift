// Decimal numbers as text, exactly.
//
// Why this file exists: money must print exactly as stored (`92233720368547758.07` included) and
// totals must be exact, so numbers are never formatted through Double or NumberFormatter (whose
// output also depends on the locale). A `DecimalText` is the sign, the digits and the scale of a
// number; the renderers round, group and choose the decimal separator on it. Doubles enter through
// their shortest round-trip form (`0.1`, not `0.1000000000000000055…`), so what is shown is what
// the double's own description says, without exponent notation.

/// A decimal number: sign, magnitude digits, and how many of them follow the decimal point.
package struct DecimalText: Equatable, Sendable {
    /// Never true for zero (negative zero does not exist here).
    package private(set) var negative: Bool
    /// ASCII digits of the magnitude, most significant first; never empty.
    package private(set) var digits: [UInt8]
    /// Digits after the point (≥ 0).
    package private(set) var scale: Int

    private static let zero = UInt8(ascii: "0")

    package init(negative: Bool, digits: [UInt8], scale: Int) {
        var digits = digits.isEmpty ? [DecimalText.zero] : digits
        var scale = scale
        if scale < 0 {
            digits.append(contentsOf: repeatElement(DecimalText.zero, count: -scale))
            scale = 0
        }
        // Leading zeros of the integer part go (keep at least one integer digit's worth).
        var leading = 0
        while leading < digits.count - scale - 1, digits[leading] == DecimalText.zero { leading += 1 }
        if leading > 0 { digits.removeFirst(leading) }
        self.digits = digits
        self.scale = scale
        self.negative = negative && digits.contains { $0 != DecimalText.zero }
    }

    /// `units × 10^-scale`.
    package init(units: Int128, scale: Int) {
        self.init(negative: units < 0, digits: Array(String(units.magnitude).utf8), scale: scale)
    }

    package init(integer: Int64) {
        self.init(units: Int128(integer), scale: 0)
    }

    /// The shortest decimal that reads back as `value`; nil for NaN and infinities. Negative zero
    /// is zero.
    package init?(double value: Double) {
        guard value.isFinite else { return nil }
        guard value != 0 else {
            self.init(negative: false, digits: [DecimalText.zero], scale: 0)
            return
        }
        var text = Array(value.description.utf8)   // "-1.5e-05", "1e+20", "0.1", "12.0"
        var negative = false
        if text.first == UInt8(ascii: "-") {
            negative = true
            text.removeFirst()
        }
        var exponent = 0
        if let e = text.firstIndex(where: { $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }) {
            exponent = Int(String(decoding: text[(e + 1)...], as: UTF8.self)) ?? 0
            text.removeSubrange(e...)
        }
        var digits: [UInt8]
        var fraction = 0
        if let point = text.firstIndex(of: UInt8(ascii: ".")) {
            digits = Array(text[..<point]) + Array(text[(point + 1)...])
            fraction = text.count - point - 1
        } else {
            digits = text
        }
        var scale = fraction - exponent
        if scale < 0 {
            digits.append(contentsOf: repeatElement(DecimalText.zero, count: -scale))
            scale = 0
        }
        while scale > 0, digits.last == DecimalText.zero {
            digits.removeLast()
            scale -= 1
        }
        self.init(negative: negative, digits: digits, scale: scale)
    }

    /// The number as integer units at its scale; nil beyond an Int128.
    package var units: Int128? {
        var value: Int128 = 0
        for digit in digits {
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(Int128(digit - DecimalText.zero))
            if overflow || carry { return nil }
            value = sum
        }
        return negative ? -value : value
    }

    package var isZero: Bool { !digits.contains { $0 != DecimalText.zero } }

    /// Rounded half away from zero to `target` decimals (padded with zeros when it has fewer).
    package func rounded(toScale target: Int) -> DecimalText {
        let target = max(target, 0)
        if scale <= target { return withMinimumScale(target) }
        let dropped = scale - target
        var padded = digits
        if padded.count <= dropped {
            padded.insert(contentsOf: repeatElement(DecimalText.zero, count: dropped + 1 - padded.count), at: 0)
        }
        var kept = Array(padded[..<(padded.count - dropped)])
        if padded[padded.count - dropped] >= UInt8(ascii: "5") {
            var i = kept.count - 1
            while i >= 0, kept[i] == UInt8(ascii: "9") {
                kept[i] = DecimalText.zero
                i -= 1
            }
            if i >= 0 { kept[i] += 1 } else { kept.insert(UInt8(ascii: "1"), at: 0) }
        }
        return DecimalText(negative: negative, digits: kept, scale: target)
    }

    /// The same value with at least `minimum` decimals.
    package func withMinimumScale(_ minimum: Int) -> DecimalText {
        guard scale < minimum else { return self }
        return DecimalText(negative: negative,
                           digits: digits + repeatElement(DecimalText.zero, count: minimum - scale), scale: minimum)
    }

    /// The value × 10^power, digits unchanged (for percentages: 0.125 → 12.5).
    package func timesPowerOfTen(_ power: Int) -> DecimalText {
        DecimalText(negative: negative, digits: digits, scale: scale - power)
    }

    /// `-1234.5`, or with a grouping separator `-1,234.5`; `decimalSeparator` is `.` or `,`.
    package func text(decimalSeparator: UInt8 = UInt8(ascii: "."), groupingSeparator: UInt8? = nil) -> String {
        var result: [UInt8] = []
        result.reserveCapacity(digits.count + digits.count / 3 + 3)
        if negative { result.append(UInt8(ascii: "-")) }
        let integerCount = digits.count - scale
        if integerCount <= 0 {
            result.append(DecimalText.zero)
        } else {
            for i in 0..<integerCount {
                if let groupingSeparator, i > 0, (integerCount - i) % 3 == 0 { result.append(groupingSeparator) }
                result.append(digits[i])
            }
        }
        if scale > 0 {
            result.append(decimalSeparator)
            if integerCount < 0 { result.append(contentsOf: repeatElement(DecimalText.zero, count: -integerCount)) }
            result.append(contentsOf: digits[max(integerCount, 0)...])
        }
        return String(decoding: result, as: UTF8.self)
    }

    /// The nearest double (through the text, so correctly rounded).
    package var doubleValue: Double { Double(text()) ?? .nan }
}
