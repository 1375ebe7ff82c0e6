// Text encodings of CSV input: UTF-8 validation and single-byte transcoding.
//
// Why this file exists: exports from other systems arrive as UTF-8 or Windows-1252 (the FDIC list
// has a 0x96 en dash), and a wrong guess silently corrupts names. The reader parses bytes — the
// delimiter, quote, CR and LF are ASCII in every encoding we accept — and decodes a field only when
// the caller asks for it as a String, so the encoding costs nothing for ignored fields. UTF-8 is
// validated once per byte with an ASCII fast path (8 bytes per step), which is what lets a
// wrong-encoding file fail with the place of the first bad byte instead of producing U+FFFD.

/// The encoding of CSV input.
public enum CSVEncoding: String, Sendable, CaseIterable, CustomStringConvertible {
    /// UTF-8 if every byte of the input is valid UTF-8 (or it starts with a UTF-8 byte-order mark),
    /// else Windows-1252. A regular file is pre-scanned; a stream (standard input, a pipe) is judged
    /// by its first buffer, and a later invalid byte is an error.
    case auto
    case utf8 = "utf-8"
    /// Windows-1252 as WHATWG defines it: the five undefined bytes 0x81 0x8D 0x8F 0x90 0x9D map to
    /// the C1 controls U+0081 U+008D U+008F U+0090 U+009D.
    case windows1252 = "windows-1252"
    /// ISO-8859-1: every byte is the code point of the same value.
    case latin1 = "latin1"

    /// Accepts the usual labels, case-insensitively: `utf-8`/`utf8`, `windows-1252`/`cp1252`,
    /// `latin1`/`iso-8859-1`/`iso8859-1`/`l1`, `auto`.
    public init?(label: String) {
        switch label.lowercased() {
        case "auto": self = .auto
        case "utf-8", "utf8": self = .utf8
        case "windows-1252", "cp1252", "win1252", "x-cp1252": self = .windows1252
        case "latin1", "latin-1", "iso-8859-1", "iso8859-1", "l1": self = .latin1
        default: return nil
        }
    }

    public var description: String { rawValue }
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

// MARK: - Decoding fields

/// The encoding a reader settled on (never `auto`).
enum ResolvedEncoding: Sendable {
    case utf8, windows1252, latin1

    var publicValue: CSVEncoding {
        switch self {
        case .utf8: .utf8
        case .windows1252: .windows1252
        case .latin1: .latin1
        }
    }
}

enum FieldDecoder {
    /// Windows-1252 bytes 0x80...0x9F as Unicode scalars (WHATWG index; undefined bytes → C1).
    static let windows1252High: [UInt16] = [
        0x20AC, 0x0081, 0x201A, 0x0192, 0x201E, 0x2026, 0x2020, 0x2021,
        0x02C6, 0x2030, 0x0160, 0x2039, 0x0152, 0x008D, 0x017D, 0x008F,
        0x0090, 0x2018, 0x2019, 0x201C, 0x201D, 0x2022, 0x2013, 0x2014,
        0x02DC, 0x2122, 0x0161, 0x203A, 0x0153, 0x009D, 0x017E, 0x0178,
    ]

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
        case .windows1252, .latin1:
            if isASCII(base, count) {
                return String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
            }
            return transcodeSingleByte(base, count: count, windows1252: encoding == .windows1252)
        }
    }

    static func transcodeSingleByte(_ base: UnsafePointer<UInt8>, count: Int, windows1252: Bool) -> String {
        String(unsafeUninitializedCapacity: count * 3) { out in
            var o = 0
            for i in 0..<count {
                let byte = base[i]
                if byte < 0x80 {
                    out[o] = byte
                    o &+= 1
                    continue
                }
                let scalar: UInt32 = windows1252 && byte < 0xA0
                    ? UInt32(windows1252High[Int(byte) - 0x80]) : UInt32(byte)
                if scalar < 0x800 {
                    out[o] = UInt8(0xC0 | (scalar >> 6))
                    out[o &+ 1] = UInt8(0x80 | (scalar & 0x3F))
                    o &+= 2
                } else {
                    out[o] = UInt8(0xE0 | (scalar >> 12))
                    out[o &+ 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
                    out[o &+ 2] = UInt8(0x80 | (scalar & 0x3F))
                    o &+= 3
                }
            }
            return o
        }
    }

    /// Number of characters (Unicode scalars) in `count` bytes: for UTF-8 the bytes that are not
    /// continuation bytes, for single-byte encodings the bytes.
    static func scalarCount(_ base: UnsafePointer<UInt8>, count: Int, encoding: ResolvedEncoding) -> Int {
        guard encoding == .utf8 else { return count }
        var n = 0
        for i in 0..<count where base[i] & 0xC0 != 0x80 { n &+= 1 }
        return n
    }
}
