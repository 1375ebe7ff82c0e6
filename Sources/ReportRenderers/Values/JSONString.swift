// JSON string literals, written by hand.
//
// Why this file exists: the JSON report is a contract (see JSONRenderer.swift) and is streamed, so
// it is written as text rather than through JSONEncoder, whose output (key order, slash escaping,
// number forms) is not ours to fix. Escaped: `"` and `\`, every control character (C0 and DEL;
// \b \f \n \r \t by name, the others as \u00XX), U+2028/U+2029, which are valid JSON but end
// lines in JavaScript, and U+FEFF, which some readers drop as a byte-order mark. Everything else,
// emoji included, is written as UTF-8.

package enum JSONString {
    /// `text` as a JSON string literal, quotes included.
    package static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count + 2)
        append(text, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends `text` as a JSON string literal, quotes included.
    package static func append(_ text: String, to bytes: inout [UInt8]) {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        bytes.append(UInt8(ascii: "\""))
        let utf8 = Array(text.utf8)
        var i = 0
        while i < utf8.count {
            let byte = utf8[i]
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x0A: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x08: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: bytes.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0..<0x20, 0x7F:
                bytes.append(contentsOf: Array("\\u00".utf8))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0xF)])
            case 0xE2 where i + 2 < utf8.count && utf8[i + 1] == 0x80 && (utf8[i + 2] == 0xA8 || utf8[i + 2] == 0xA9):
                bytes.append(contentsOf: Array((utf8[i + 2] == 0xA8 ? "\\u2028" : "\\u2029").utf8))
                i += 2
            case 0xEF where i + 2 < utf8.count && utf8[i + 1] == 0xBB && utf8[i + 2] == 0xBF:
                bytes.append(contentsOf: Array("\\ufeff".utf8))
                i += 2
            default:
                bytes.append(byte)
            }
            i += 1
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
