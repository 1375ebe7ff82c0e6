// Text (as UTF-8) → the bytes of an output encoding, for `export --encoding` and the rejects file.
//
// Why this file exists: a file exported for a 1C or Excel machine must be in that machine's code page,
// and a rejects file must be in the input's encoding to be fixed and imported again with the same
// options. A character the encoding cannot hold is an error naming it, never a `?` (iconv's
// //TRANSLIT and //IGNORE are not used); only text of our own (a rejects file's reason) may fall back
// to ASCII equivalents, on request.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A character that the output encoding cannot hold.
package struct UnencodableCharacter: Error, Sendable, Equatable {
    package var character: Unicode.Scalar
    package var encoding: String

    /// `"中" (U+4E2D) cannot be written in windows-1251`
    package var message: String {
        let code = String(character.value, radix: 16, uppercase: true)
        return "\"\(character)\" (U+\(String(repeating: "0", count: max(0, 4 - code.count)) + code)) cannot be written in \(encoding)"
    }
}

package final class OutputEncoder {
    package let encoding: CSVEncoding
    private enum Method {
        case utf8
        case table(SingleByteTable)
        case iconv(iconv_t)
    }
    private let method: Method
    /// The byte-order mark to begin the output with (UTF-16 and UTF-32 named without an endianness:
    /// little-endian with a mark, as Excel writes "Unicode Text").
    package let byteOrderMark: [UInt8]

    /// Nil when `encoding` is `auto` or this system's iconv cannot write it.
    package init?(_ encoding: CSVEncoding) {
        self.encoding = encoding
        switch encoding.family {
        case .auto:
            return nil
        case .utf8:
            method = .utf8
            byteOrderMark = []
        case .singleByte:
            guard let table = SingleByteTable.table(for: encoding) else { return nil }
            method = .table(table)
            byteOrderMark = []
        case .transcoded:
            var target = encoding.iconvName
            var mark: [UInt8] = []
            if encoding.name == "utf-16" { target = "UTF-16LE"; mark = [0xFF, 0xFE] }
            if encoding.name == "utf-32" { target = "UTF-32LE"; mark = [0xFF, 0xFE, 0x00, 0x00] }
            guard let cd = openIconv(to: target, from: "UTF-8") else { return nil }
            method = .iconv(cd)
            byteOrderMark = mark
        }
    }

    deinit {
        if case let .iconv(cd) = method { iconv_close(cd) }
    }

    /// Whether the encoding writes ASCII as ASCII (then only non-ASCII text needs encoding).
    package var isASCIICompatible: Bool {
        if case .iconv = method { return false }
        return true
    }

    /// Appends `text` (UTF-8) in the output encoding to `out`. `fallback`: write a character the
    /// encoding cannot hold as its ASCII equivalent instead of failing.
    package func encode(_ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], fallback: Bool = false) throws(UnencodableCharacter) {
        switch method {
        case .utf8:
            out.append(contentsOf: text)
        case .table(let table):
            var iterator = text.makeIterator()
            var decoder = UTF8()
            while case .scalarValue(let s) = decoder.decode(&iterator) {
                if s.value < 0x80 { out.append(UInt8(s.value)); continue }
                if let b = table.bytes[s.value] { out.append(b); continue }
                guard fallback else { throw UnencodableCharacter(character: s, encoding: encoding.name) }
                out += OutputEncoder.asciiEquivalent(s).utf8
            }
        case .iconv(let cd):
            try convert(cd, text, into: &out, fallback: fallback)
        }
    }

    package func encode(_ text: String, into out: inout [UInt8], fallback: Bool = false) throws(UnencodableCharacter) {
        let bytes = Array(text.utf8)
        let mark = out.count
        do {
            try bytes.withUnsafeBufferPointer { (b) throws(UnencodableCharacter) in try encode(b, into: &out, fallback: fallback) }
        } catch {
            // Text stored decomposed (NFD, as macOS writes it: `U` + U+0308) has no code for the lone mark, but a
            // code page holds the composed letter (`Ü`): the same text, composed, is written instead.
            let composed = text.precomposedStringWithCanonicalMapping
            guard composed != text || composed.utf8.count != text.utf8.count else { throw error }
            out.removeSubrange(mark...)
            let again = Array(composed.utf8)
            try again.withUnsafeBufferPointer { (b) throws(UnencodableCharacter) in try encode(b, into: &out, fallback: fallback) }
        }
    }

    private func convert(_ cd: iconv_t, _ text: UnsafeBufferPointer<UInt8>, into out: inout [UInt8], fallback: Bool) throws(UnencodableCharacter) {
        guard let base = text.baseAddress, text.count > 0 else { return }
        var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self)
        var inLeft = text.count
        var buffer = [UInt8](repeating: 0, count: text.count * 4 + 16)
        while inLeft > 0 {
            let capacity = buffer.count
            let (result, code, produced): (Int, Int32, Int) = buffer.withUnsafeMutableBytes { raw in
                var outPtr: UnsafeMutablePointer<CChar>? = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
                var outLeft = capacity
                let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                return (r, errno, capacity - outLeft)
            }
            out.append(contentsOf: buffer[0..<produced])
            if result != -1 { break }
            if code == E2BIG { continue }
            // The character iconv stopped at: decode it from the UTF-8 left.
            let rest = UnsafeBufferPointer(start: UnsafeRawPointer(inPtr!).assumingMemoryBound(to: UInt8.self), count: inLeft)
            var iterator = rest.makeIterator()
            var decoder = UTF8()
            guard case .scalarValue(let s) = decoder.decode(&iterator) else { return }
            guard fallback else { throw UnencodableCharacter(character: s, encoding: encoding.name) }
            var ascii: [UInt8] = []
            let equivalent = Array(OutputEncoder.asciiEquivalent(s).utf8)
            try equivalent.withUnsafeBufferPointer { (b) throws(UnencodableCharacter) in try convert(cd, b, into: &ascii, fallback: false) }
            out += ascii
            let length = String(s).utf8.count
            inPtr = inPtr! + length
            inLeft -= length
        }
    }

    /// An ASCII stand-in for a character of our own text: dashes, quotes, arrows, letters without accents.
    static func asciiEquivalent(_ s: Unicode.Scalar) -> String {
        switch s.value {
        case 0x2013, 0x2014, 0x2212: return "-"
        case 0x201C, 0x201D, 0x201E, 0xAB, 0xBB: return "\""
        case 0x2018, 0x2019, 0x201A: return "'"
        case 0x2026: return "..."
        case 0x2192: return "->"
        case 0xD7: return "x"
        case 0xA0, 0x202F: return " "
        default:
            // A letter with marks: its base letter (é → e), when that is ASCII.
            let base = String(s).decomposedStringWithCanonicalMapping.unicodeScalars.first!
            return base.isASCII ? String(base) : "?"
        }
    }
}
