import ObjectStore

/// JSON text for values: numbers as numbers (decimals written exactly at their scale), dates as `YYYY-MM-DD`
/// strings, booleans, null. The escaping follows RFC 8259 and also escapes U+2028/U+2029 for JavaScript readers.
enum JSONText {
    static func string(_ s: String) -> String {
        var out = "\""
        out.reserveCapacity(s.utf8.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }

    static func value(_ v: Value) -> String {
        switch v {
        case .null: "null"
        case .string(let s): string(s)
        case .integer(let i): String(i)
        case .decimal(let d): d.description
        case .double(let d): d.isFinite ? (d == d.rounded() && abs(d) < 1e15 ? String(Int64(d)) : "\(d)") : "null"
        case .boolean(let b): b ? "true" : "false"
        case .date, .dateTime, .binary: string(v.description)
        }
    }
}
