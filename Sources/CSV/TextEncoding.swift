// Text encodings of CSV input: UTF-8 validation and single-byte transcoding.
//
// Why this file exists: exports from other systems arrive in the encoding of the machine that wrote
// them (UTF-8, Windows-1252 with the FDIC list's 0x96 en dash, Windows-1251 from 1C, UTF-16 from
// Excel), and a wrong guess silently corrupts names. The reader parses bytes — the delimiter,
// quote, CR and LF are ASCII in every encoding it parses directly — and decodes a field only when
// the caller asks for it as a String, so the encoding costs nothing for ignored fields. UTF-8 is
// validated once per byte with an ASCII fast path (8 bytes per step), which is what lets a
// wrong-encoding file fail with the place of the first bad byte instead of producing U+FFFD.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The encoding of CSV input (and of export output).
///
/// Four families: UTF-8; ASCII-compatible single-byte code pages (decoded through a 256-entry table
/// built from glibc's iconv once, so the reader's byte-level parsing and its fast path stay as they
/// are); encodings whose bytes are not ASCII where the reader looks for ASCII (UTF-16/32, whose
/// every other byte is 0x00, and the multi-byte CJK encodings, whose second bytes can be `|` or
/// `\`), which are transcoded to UTF-8 by iconv before the reader parses them; and `auto`.
package struct CSVEncoding: Sendable, Hashable, CustomStringConvertible {
    package enum Family: Sendable, Hashable {
        case auto, utf8, singleByte, transcoded
    }

    /// The canonical name, as messages, summaries and the import history show it (`windows-1251`).
    package let name: String
    /// The name glibc's iconv knows it by.
    let iconvName: String
    package let family: Family
    /// The script or region, for messages (`Cyrillic`).
    package let region: String

    init(_ name: String, iconv: String, _ family: Family, region: String = "") {
        self.name = name
        iconvName = iconv
        self.family = family
        self.region = region
    }

    package static func == (a: CSVEncoding, b: CSVEncoding) -> Bool { a.name == b.name }
    package func hash(into hasher: inout Hasher) { hasher.combine(name) }

    /// UTF-8 if the input is UTF-8; else the code page the text's letters fit (see `EncodingGuesser`).
    package static let auto = CSVEncoding("auto", iconv: "", .auto)
    package static let utf8 = CSVEncoding("utf-8", iconv: "UTF-8", .utf8)
    /// Windows-1252 as WHATWG defines it: the five bytes glibc leaves undefined (0x81 0x8D 0x8F
    /// 0x90 0x9D) map to the C1 controls of the same value.
    package static let windows1252 = CSVEncoding("windows-1252", iconv: "CP1252", .singleByte, region: "Western European")
    /// ISO-8859-1: every byte is the code point of the same value.
    package static let latin1 = CSVEncoding("iso-8859-1", iconv: "ISO-8859-1", .singleByte, region: "Western European")

    package var description: String { name }

    /// Every accepted encoding with its aliases (normalized: lowercase letters and digits only).
    static let registry: [(CSVEncoding, [String])] = {
        var list: [(CSVEncoding, [String])] = [
            (.auto, []),
            (.utf8, ["utf8", "ascii", "usascii"]),
        ]
        let windows = ["Central European", "Cyrillic", "Western European", "Greek", "Turkish", "Hebrew", "Arabic",
                       "Baltic", "Vietnamese"]
        for (i, region) in windows.enumerated() {
            let n = 1250 + i
            let e = n == 1252 ? CSVEncoding.windows1252 : CSVEncoding("windows-\(n)", iconv: "CP\(n)", .singleByte, region: region)
            list.append((e, ["cp\(n)", "win\(n)", "xcp\(n)", "ms\(n)"]))
        }
        let iso: [(Int, String, [String])] = [
            (1, "Western European", ["latin1", "l1"]), (2, "Central European", ["latin2", "l2"]),
            (3, "South European", ["latin3", "l3"]), (4, "North European", ["latin4", "l4"]),
            (5, "Cyrillic", ["cyrillic"]), (6, "Arabic", ["arabic"]), (7, "Greek", ["greek"]),
            (8, "Hebrew", ["hebrew"]), (9, "Turkish", ["latin5", "l5"]), (10, "Nordic", ["latin6", "l6"]),
            (11, "Thai", []), (13, "Baltic", ["latin7", "l7"]), (14, "Celtic", ["latin8", "l8"]),
            (15, "Western European", ["latin9", "l9"]), (16, "South-Eastern European", ["latin10", "l10"]),
        ]
        for (n, region, aliases) in iso {
            let e = n == 1 ? CSVEncoding.latin1 : CSVEncoding("iso-8859-\(n)", iconv: "ISO-8859-\(n)", .singleByte, region: region)
            list.append((e, ["iso8859\(n)"] + aliases))
        }
        list += [
            (CSVEncoding("koi8-r", iconv: "KOI8-R", .singleByte, region: "Cyrillic"), ["koi8"]),
            (CSVEncoding("koi8-u", iconv: "KOI8-U", .singleByte, region: "Cyrillic"), []),
            (CSVEncoding("cp866", iconv: "CP866", .singleByte, region: "Cyrillic, DOS"), ["ibm866", "866", "dos866"]),
            (CSVEncoding("cp850", iconv: "CP850", .singleByte, region: "Western European, DOS"), ["ibm850", "850"]),
            (CSVEncoding("mac-roman", iconv: "MACINTOSH", .singleByte, region: "Western European, Mac"), ["macintosh", "mac", "xmacroman"]),
            (CSVEncoding("utf-16", iconv: "UTF-16", .transcoded), ["ucs2"]),
            (CSVEncoding("utf-16le", iconv: "UTF-16LE", .transcoded), []),
            (CSVEncoding("utf-16be", iconv: "UTF-16BE", .transcoded), []),
            (CSVEncoding("utf-32", iconv: "UTF-32", .transcoded), ["ucs4"]),
            (CSVEncoding("utf-32le", iconv: "UTF-32LE", .transcoded), []),
            (CSVEncoding("utf-32be", iconv: "UTF-32BE", .transcoded), []),
            (CSVEncoding("shift_jis", iconv: "SHIFT_JIS", .transcoded, region: "Japanese"), ["sjis", "mskanji", "xsjis"]),
            (CSVEncoding("euc-jp", iconv: "EUC-JP", .transcoded, region: "Japanese"), ["eucjp", "xeucjp"]),
            (CSVEncoding("gb18030", iconv: "GB18030", .transcoded, region: "Chinese"), ["gbk", "gb2312", "cp936", "euccn"]),
            (CSVEncoding("big5", iconv: "BIG5", .transcoded, region: "Chinese"), ["big5tw", "cp950"]),
            (CSVEncoding("euc-kr", iconv: "EUC-KR", .transcoded, region: "Korean"), ["euckr", "ksc5601"]),
        ]
        return list
    }()

    /// Every canonical name (for did-you-mean).
    package static var names: [String] { registry.map(\.0.name) }

    /// The accepted families, for messages.
    package static let accepted = "auto, utf-8, utf-16 and utf-32 (le, be), windows-1250…1258, iso-8859-1…16, koi8-r, koi8-u, "
        + "cp866, cp850, mac-roman, shift_jis, euc-jp, gb18030, big5, euc-kr"

    /// Why a label is not an encoding the reader accepts.
    package enum LabelProblem: Error, Equatable, Sendable {
        /// A known encoding that cannot be read byte by byte (EBCDIC, a stateful one, an iconv suffix).
        case refused(String)
        case unknown
    }

    /// Accepts the usual labels, case-insensitively (`windows-1251`, `cp1251`, `ISO_8859-5`, `koi8r`).
    package init?(label: String) {
        guard case .success(let e) = CSVEncoding.parse(label) else { return nil }
        self = e
    }

    /// The encoding a label names, or why it is not accepted.
    package static func parse(_ label: String) -> Result<CSVEncoding, LabelProblem> {
        let lower = label.lowercased()
        if lower.contains("//") {
            return .failure(.refused("iconv's //IGNORE and //TRANSLIT are not accepted: a character that does not fit is an error, never dropped or replaced"))
        }
        let key = String(lower.unicodeScalars.filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") })
        if key.hasPrefix("ebcdic") || ["cp037", "ibm037", "cp500", "ibm500", "cp1047", "ibm1047", "cp273", "ibm273", "cp875",
                                        "cp1140", "ibm1140", "cp1141", "cp1148", "ibm1148"].contains(key) {
            return .failure(.refused("EBCDIC is not ASCII-based, so its delimiters and line breaks are not the bytes a CSV reader looks for"))
        }
        if key.hasPrefix("iso2022") || key.hasPrefix("csiso2022") || key.hasPrefix("utf7") || key == "hz" || key.hasPrefix("hzgb") {
            return .failure(.refused("stateful encodings (ISO-2022-*, UTF-7, HZ) change meaning with escape sequences, so bytes cannot be read on their own"))
        }
        for (e, aliases) in registry {
            let canonical = String(e.name.unicodeScalars.filter { ($0 >= "a" && $0 <= "z") || ($0 >= "0" && $0 <= "9") })
            if key == canonical || aliases.contains(key) { return .success(e) }
        }
        return .failure(.unknown)
    }
}

// MARK: - UTF-8 validation

/// Validates UTF-8 incrementally, across chunk boundaries, by the WHATWG decoder's rules (which
/// reject overlongs, surrogates and code points above U+10FFFF). A failure reports the maximal
/// invalid subsequence, as a decoder that substitutes U+FFFD would.
struct UTF8Validator {
    struct Failure: Equatable {
        var bytes: [UInt8]
        var offset: Int64
    }

    /// Complete multi-byte sequences seen (evidence that the input is UTF-8 when a byte is not).
    private(set) var multibyteCount = 0
    private var needed = 0
    private var lower: UInt8 = 0x80
    private var upper: UInt8 = 0xBF
    private var sequence: UInt32 = 0      // the open sequence's bytes so far, first byte lowest
    private var sequenceLength = 0
    private var sequenceOffset: Int64 = 0

    private var sequenceBytes: [UInt8] {
        (0..<sequenceLength).map { UInt8(truncatingIfNeeded: sequence >> (8 * UInt32($0))) }
    }

    /// Validates `count` bytes that sit at input offset `offset`. Returns the first failure.
    mutating func feed(_ base: UnsafePointer<UInt8>, count: Int, offset: Int64) -> Failure? {
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i < count {
            if needed == 0 {
                // ASCII fast path: 32, then 8 bytes at a time.
                while i &+ 32 <= count {
                    let a = raw.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                    let b = raw.loadUnaligned(fromByteOffset: i &+ 8, as: UInt64.self)
                    let c = raw.loadUnaligned(fromByteOffset: i &+ 16, as: UInt64.self)
                    let d = raw.loadUnaligned(fromByteOffset: i &+ 24, as: UInt64.self)
                    if (a | b | c | d) & 0x8080_8080_8080_8080 != 0 { break }
                    i &+= 32
                }
                while i &+ 8 <= count {
                    if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                    i &+= 8
                }
                if i >= count { break }
                let byte = base[i]
                if byte < 0x80 { i &+= 1; continue }
                switch byte {
                case 0xC2...0xDF: needed = 1
                case 0xE0: needed = 2; lower = 0xA0
                case 0xED: needed = 2; upper = 0x9F
                case 0xE1...0xEC, 0xEE...0xEF: needed = 2
                case 0xF0: needed = 3; lower = 0x90
                case 0xF4: needed = 3; upper = 0x8F
                case 0xF1...0xF3: needed = 3
                default: return Failure(bytes: [byte], offset: offset + Int64(i))
                }
                sequence = UInt32(byte)
                sequenceLength = 1
                sequenceOffset = offset + Int64(i)
                i &+= 1
            } else {
                let byte = base[i]
                if byte < lower || byte > upper {
                    return Failure(bytes: sequenceBytes, offset: sequenceOffset)
                }
                lower = 0x80
                upper = 0xBF
                needed -= 1
                if needed == 0 { multibyteCount &+= 1 }
                sequence |= UInt32(byte) << (8 * UInt32(sequenceLength))
                sequenceLength += 1
                i &+= 1
            }
        }
        return nil
    }

    /// Call at the end of the input: a sequence still open there is invalid.
    func finish() -> Failure? {
        needed == 0 ? nil : Failure(bytes: sequenceBytes, offset: sequenceOffset)
    }
}

// MARK: - Single-byte tables

/// A single-byte code page as a table, built once per process from glibc's iconv: for each byte
/// its Unicode scalar and that scalar's UTF-8 bytes, so decoding a field is one lookup per byte.
final class SingleByteTable: @unchecked Sendable {
    let encoding: CSVEncoding
    /// The scalar of each byte; a byte the code page leaves undefined maps to the C1 control or
    /// Latin-1 character of the same value (WHATWG's rule for Windows-1252), and is not `defined`.
    let scalars: [UInt32]
    let defined: [Bool]
    /// Each byte's UTF-8: the bytes in the low 24 bits (first byte lowest), the length in the top 8.
    let utf8: UnsafeMutablePointer<UInt32>
    /// The byte of each scalar the code page holds (for writing it), and of each undefined byte's stand-in.
    let bytes: [UInt32: UInt8]
    /// The bytes the code page leaves undefined: a file that has one is in another encoding.
    let undefinedBytes: [UInt8]

    private init(encoding: CSVEncoding, scalars: [UInt32], defined: [Bool]) {
        self.encoding = encoding
        self.scalars = scalars
        self.defined = defined
        utf8 = .allocate(capacity: 256)
        var bytes: [UInt32: UInt8] = [:]
        for b in 0..<256 {
            let s = scalars[b]
            var packed: UInt32
            if s < 0x80 {
                packed = s | 1 << 24
            } else if s < 0x800 {
                packed = (0xC0 | s >> 6) | (0x80 | s & 0x3F) << 8 | 2 << 24
            } else {
                packed = (0xE0 | s >> 12) | (0x80 | (s >> 6) & 0x3F) << 8 | (0x80 | s & 0x3F) << 16 | 3 << 24
            }
            utf8[b] = packed
            if defined[b], bytes[s] == nil { bytes[s] = UInt8(b) }
        }
        // An undefined byte's stand-in (U+0098 for 0x98) writes back as that byte: read and written
        // again, a line is unchanged (the rejects file).
        for b in 0..<256 where !defined[b] && bytes[scalars[b]] == nil { bytes[scalars[b]] = UInt8(b) }
        self.bytes = bytes
        undefinedBytes = (0x80..<0x100).filter { !defined[$0] }.map { UInt8($0) }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var cache: [String: SingleByteTable] = [:]

    static var windows1252: SingleByteTable { table(for: .windows1252)! }

    /// The table of a single-byte encoding; nil when iconv does not know it or it is not
    /// ASCII-compatible (then it is not accepted).
    static func table(for encoding: CSVEncoding) -> SingleByteTable? {
        precondition(encoding.family == .singleByte)
        lock.lock()
        defer { lock.unlock() }
        if let t = cache[encoding.name] { return t }
        guard let cd = openIconv(to: "UTF-32LE", from: encoding.iconvName) else { return nil }
        defer { iconv_close(cd) }
        var scalars = [UInt32](repeating: 0, count: 256)
        var defined = [Bool](repeating: false, count: 256)
        for b in 0..<256 {
            var input = [CChar(bitPattern: UInt8(b))]
            var output = [UInt32](repeating: 0, count: 4)
            var produced = 0
            let ok = input.withUnsafeMutableBufferPointer { inBuf -> Bool in
                output.withUnsafeMutableBytes { outBuf -> Bool in
                    var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                    var inLeft = 1
                    var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress!.assumingMemoryBound(to: CChar.self)
                    var outLeft = outBuf.count
                    _ = iconv(cd, nil, nil, nil, nil)
                    if iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) == -1 { return false }
                    // Converters that combine (CP1255, CP1258) hold a character back until flushed.
                    _ = iconv(cd, nil, nil, &outPtr, &outLeft)
                    produced = (outBuf.count - outLeft) / 4
                    return true
                }
            }
            if ok && produced == 1 {
                scalars[b] = output[0]
                defined[b] = true
            } else {
                scalars[b] = UInt32(b)
            }
        }
        // Windows-1252 as WHATWG defines it: its five bytes glibc leaves undefined are the C1 controls.
        if encoding == .windows1252 { for b in [0x81, 0x8D, 0x8F, 0x90, 0x9D] { defined[b] = true } }
        // ASCII-compatible, or not accepted: the reader looks for ASCII delimiters, quotes and line breaks.
        for b in 0..<128 where !defined[b] || scalars[b] != UInt32(b) { return nil }
        let table = SingleByteTable(encoding: encoding, scalars: scalars, defined: defined)
        cache[encoding.name] = table
        return table
    }
}

/// iconv_open, nil on failure.
func openIconv(to: String, from: String) -> iconv_t? {
    let cd = iconv_open(to, from)
    if cd == nil || cd == iconv_t(bitPattern: -1) { return nil }
    return cd
}

// MARK: - Decoding fields

/// How the reader decodes field bytes (a transcoded input is UTF-8 by then).
enum ResolvedEncoding: Sendable {
    case utf8
    case singleByte(SingleByteTable)

    static var windows1252: ResolvedEncoding { .singleByte(.windows1252) }

    var isUTF8: Bool {
        if case .utf8 = self { return true }
        return false
    }
}

enum FieldDecoder {
    @inline(__always)
    static func isASCII(_ base: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var i = 0
        let raw = UnsafeRawPointer(base)
        while i &+ 8 <= count {
            if raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
            i &+= 8
        }
        while i < count {
            if base[i] >= 0x80 { return false }
            i &+= 1
        }
        return true
    }

    /// Makes a String from field bytes in `encoding`.
    @inline(__always)
    static func string(_ base: UnsafePointer<UInt8>, count: Int, encoding: ResolvedEncoding) -> String {
        if count == 0 { return "" }
        switch encoding {
        case .utf8:
            return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
        case .singleByte(let table):
            if isASCII(base, count) {
                return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
            }
            return transcodeSingleByte(base, count: count, table: table.utf8)
        }
    }

    static func transcodeSingleByte(_ base: UnsafePointer<UInt8>, count: Int, table: UnsafeMutablePointer<UInt32>) -> String {
        String(unsafeUninitializedCapacity: count * 3) { out in
            var o = 0
            for i in 0..<count {
                let byte = base[i]
                if byte < 0x80 {
                    out[o] = byte
                    o &+= 1
                    continue
                }
                let packed = table[Int(byte)]
                let length = Int(packed >> 24)
                out[o] = UInt8(truncatingIfNeeded: packed)
                out[o &+ 1] = UInt8(truncatingIfNeeded: packed >> 8)
                if length == 3 { out[o &+ 2] = UInt8(truncatingIfNeeded: packed >> 16) }
                o &+= length
            }
            return o
        }
    }

    /// Number of characters (Unicode scalars) in `count` bytes: for UTF-8 the bytes that are not
    /// continuation bytes, for single-byte encodings the bytes.
    static func scalarCount(_ base: UnsafePointer<UInt8>, count: Int, encoding: ResolvedEncoding) -> Int {
        guard encoding.isUTF8 else { return count }
        var n = 0
        for i in 0..<count where base[i] & 0xC0 != 0x80 { n &+= 1 }
        return n
    }
}
