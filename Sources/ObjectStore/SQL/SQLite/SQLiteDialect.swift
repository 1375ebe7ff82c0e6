import GRDB

/// SQLite: sums through ExactSum.swift, wide numbers through WideInteger.swift, long lists through `json_each`.
package struct SQLiteDialect: SQLDialect {
    /// Lists up to this long are written as placeholders (readable in `--explain`, planned as SQLite plans a
    /// literal list); longer ones are bound as one JSON array.
    static let placeholderListLimit = 64

    package init() {}

    package func exactSum(_ value: String, beyond: WideForm) -> String {
        // Aggregates adding in 128 bits (ExactSum.swift), one per form of a wider result.
        switch beyond {
        case .exact: return "\(ExactSum.exact)(\(value))"
        case .comparable: return "\(ExactSum.comparable)(\(value))"
        case .real: return "\(ExactSum.real)(\(value))"
        }
    }

    package func wideSum(_ value: String) -> String { "\(ExactSum.wideTotal)(\(value))" }

    package func wideExtreme(_ minimum: Bool, _ value: String) -> String {
        minimum ? "bk_wide_min(\(value))" : "bk_wide_max(\(value))"
    }

    package func wideComparison(_ a: String, _ op: String, _ b: String) -> String {
        let compare = "bk_wide_cmp(\(a), \(b))"
        switch op {
        case "IS": return "\(compare) IS 0"
        case "IS NOT": return "\(compare) IS NOT 0"
        default: return "\(compare) \(op) 0"
        }
    }

    package func wideScaled(_ value: String, by power: Int) -> String { "bk_wide_scale(\(value), \(power))" }

    package func wideReal(_ value: String) -> String { "bk_wide_real(\(value))" }

    package func wideOrderKey(_ value: String) -> String { "bk_wide_order(\(value))" }

    package func wideValue(_ value: Int128) -> DatabaseValue { WideInteger.encode(value) }

    package func inList(_ lhs: String, _ values: [DatabaseValue], bind: (DatabaseValue) -> String) -> String {
        if values.count <= SQLiteDialect.placeholderListLimit {
            return "\(lhs) IN (\(values.map(bind).joined(separator: ", ")))"
        }
        // json_each gives INTEGER, REAL and TEXT back as they were; a BLOB (binary, or a wide number) has no
        // JSON form, so those few stay placeholders beside the array.
        var json = "["
        json.reserveCapacity(values.count * 8)
        var others: [DatabaseValue] = []
        var first = true
        for value in values {
            let item: String
            switch value.storage {
            case .int64(let i): item = String(i)
            case .double(let d) where d.isFinite: item = "\(d)"
            case .string(let s): item = SQLiteDialect.jsonString(s)
            default: others.append(value); continue
            }
            if !first { json += "," }
            json += item
            first = false
        }
        json += "]"
        var sql = "\(lhs) IN (SELECT value FROM json_each(\(bind(json.databaseValue))))"
        if !others.isEmpty { sql = "(\(sql) OR \(lhs) IN (\(others.map(bind).joined(separator: ", "))))" }
        return sql
    }

    /// A JSON string literal (RFC 8259: quote, backslash and control characters escaped).
    static func jsonString(_ s: String) -> String {
        var out = "\""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
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
}
