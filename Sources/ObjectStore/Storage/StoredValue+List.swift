// The items of a to-many column (`tags.name`, `customers.at`, `rows.sum`) as one SQL value.
//
// Why this file exists: `bk_list` wrote each item as `export` writes it (date-times in UTC, booleans `yes`/`no`)
// and joined them into one text, so `fetch` and reports printed a list's items unlike the same values in a column
// of their own (local date-times with their offset, `true`/`false` in CSV and JSON). The items now stay stored
// values — decimals as units, booleans 0/1, dates and date-times as stored text —, in order, NULLs left out, in one
// text that SQL (`bk_list`) and the in-memory evaluator both give; each reader decodes the items through
// `StoredValue.decoded(as:)` and writes them as it writes a value of their attribute's type.
//
// The text: each item a letter for its storage class and its content — `t` text, `i` integer, `r` real (shortest
// form that reads back), `x` bytes in hex —, the items joined by U+001F (the unit separator), a `\` or U+001F
// inside a text written `\\` and `\u`. It sorts as the lists read: a list before a longer one it begins
// (`retail` before `retail, slow payer`), which is what a grouped fetch by a to-many path (`--group tags.name`)
// orders its groups by. No one reads it but the decoder below.

import Foundation

extension StoredValue {
    static let listSeparator: Unicode.Scalar = "\u{1F}"

    /// The list text of `items` (see above); NULL items are left out.
    package static func listText(_ items: [StoredValue]) -> String {
        var out = String.UnicodeScalarView()
        var first = true
        for item in items {
            if item == .null { continue }
            if !first { out.append(listSeparator) }
            first = false
            switch item {
            case .null: break
            case .integer(let i): out.append(contentsOf: ("i" + String(i)).unicodeScalars)
            case .real(let d): out.append(contentsOf: ("r" + d.description).unicodeScalars)
            case .text(let s):
                out.append("t")
                for scalar in s.unicodeScalars {
                    switch scalar {
                    case "\\": out.append(contentsOf: "\\\\".unicodeScalars)
                    case listSeparator: out.append(contentsOf: "\\u".unicodeScalars)
                    default: out.append(scalar)
                    }
                }
            case .blob(let data):
                out.append("x")
                for byte in data { out.append(contentsOf: ((byte < 16 ? "0" : "") + String(byte, radix: 16)).unicodeScalars) }
            }
        }
        return String(out)
    }

    /// The items of a text `listText` wrote; nil for any other text.
    package static func listItems(_ text: String) -> [StoredValue]? {
        var items: [StoredValue] = []
        for part in text.unicodeScalars.split(separator: listSeparator, omittingEmptySubsequences: false) {
            guard let tag = part.first else { return nil }
            let content = part.dropFirst()
            switch tag {
            case "i":
                guard let i = Int64(String(String.UnicodeScalarView(content))) else { return nil }
                items.append(.integer(i))
            case "r":
                guard let d = Double(String(String.UnicodeScalarView(content))) else { return nil }
                items.append(.real(d))
            case "t":
                var s = String.UnicodeScalarView()
                var escaped = false
                for scalar in content {
                    if escaped {
                        switch scalar {
                        case "\\": s.append("\\")
                        case "u": s.append(listSeparator)
                        default: return nil
                        }
                        escaped = false
                    } else if scalar == "\\" {
                        escaped = true
                    } else {
                        s.append(scalar)
                    }
                }
                guard !escaped else { return nil }
                items.append(.text(String(s)))
            case "x":
                let hex = Array(String(String.UnicodeScalarView(content)).utf8)
                guard hex.count % 2 == 0 else { return nil }
                var data = Data()
                var k = 0
                while k < hex.count {
                    guard let byte = UInt8(String(decoding: hex[k..<k + 2], as: UTF8.self), radix: 16) else { return nil }
                    data.append(byte)
                    k += 2
                }
                items.append(.blob(data))
            default:
                return nil
            }
        }
        return items
    }
}
