import ObjectStore
import ReportRenderers

/// JSON text for values: numbers as numbers (decimals written exactly at their scale), dates as `YYYY-MM-DD`
/// strings, booleans, null. Strings are escaped by the JSON report renderer's own escaper, so every JSON the
/// tool writes escapes alike.
enum JSONText {
    static func string(_ s: String) -> String { JSONString.quoted(s) }

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
