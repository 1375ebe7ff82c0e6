// Errors of the CSV reader and writer.
//
// Why this file exists: every failure a user can meet while importing a file must name the place
// (`FILE:LINE[:COLUMN]: `, like a compiler) and, where we know one, the remedy. Callers also need
// the place as data (to collect several bad rows, to point at a column), so the error is a value
// with structured fields and a one-line `description` rendered from them in exactly one place.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An error from reading or writing CSV.
///
/// `description` is one line that begins with `FILE:LINE: ` or `FILE:LINE:COLUMN: ` (FILE is the
/// display name the caller gave, `-` for standard input). Errors that have no position (a file
/// that cannot be opened, a failed write) have `line == 0` and begin with `FILE: `.
package struct CSVError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// Bytes that are not UTF-8 while the input is read as UTF-8. `offset` is the 0-based byte
        /// offset of the first of them in the input. `guessedFromPrefix` is set when the encoding
        /// was not given but guessed from that many leading bytes of a stream that cannot be
        /// pre-scanned (standard input, a pipe).
        case invalidUTF8(bytes: [UInt8], offset: Int64, guessedFromPrefix: Int?)
        /// A quoted field is still open at the end of the input; `line`/`column` say where it began.
        case unterminatedQuote
        /// A record (without its line break) is longer than `limit` bytes.
        case recordTooLong(limit: Int)
        /// A record has `found` fields where `expected` were wanted; `expectedIsHeader` tells whether
        /// the expectation came from the header (the first record).
        case fieldCountMismatch(found: Int, expected: Int, expectedIsHeader: Bool)
        /// A system call failed: `operation` is `open`, `read`, `write` or `close`.
        case io(operation: String, errno: Int32)
        /// The input is not text in an encoding the reader knows (found when it is opened).
        case notText(NotText)
        /// With `auto`: a byte that is not UTF-8 in a file whose other non-ASCII bytes are (a field
        /// cut mid-character); `line`/`column` say where.
        case invalidByteInUTF8(bytes: [UInt8], offset: Int64)
        /// With `auto`: not UTF-8, and no code page reads its letters clearly better than another.
        case unclearEncoding([String])
        /// Bytes of a transcoded input (UTF-16, Shift_JIS, …) that are not that encoding;
        /// `atEnd` when the input ends inside a character.
        case undecodable(bytes: [UInt8], offset: Int64, encoding: String, atEnd: Bool)
        /// An accepted encoding this system's iconv cannot convert.
        case unavailableEncoding(String)
    }

    /// Why an input is not CSV text.
    package enum NotText: Sendable, Equatable {
        /// It starts with the byte-order mark of an encoding the reader does not read (`UTF-16 (little-endian)`).
        case byteOrderMark(String)
        /// A NUL byte at this input offset, among the first bytes read; `isZip` when it starts as a ZIP archive.
        case nulByte(offset: Int64, isZip: Bool)
    }

    /// The display name of the input or output, as the caller passed it.
    package let file: String
    /// 1-based physical line; 0 when the error has no position.
    package let line: Int
    /// 1-based character column within `line`, when the error points at a field.
    package let column: Int?
    package let kind: Kind

    package init(file: String, line: Int, column: Int? = nil, kind: Kind) {
        self.file = file
        self.line = line
        self.column = column
        self.kind = kind
    }

    /// `FILE:LINE[:COLUMN]: message`, on one line.
    package var description: String {
        var place = file
        if line > 0 {
            place += ":\(line)"
            if let column { place += ":\(column)" }
        }
        return "\(place): \(message)"
    }

    /// The message without the place.
    package var message: String {
        switch kind {
        case let .invalidUTF8(bytes, offset, guessedFromPrefix):
            let shown = bytes.map { "0x" + String($0, radix: 16, uppercase: true).leftPadded(to: 2) }
                .joined(separator: " ")
            var text = "bytes \(shown) at offset \(offset) are not UTF-8"
            if let guessedFromPrefix {
                text += ", though the first \(guessedFromPrefix) bytes were"
            }
            return text + " — try --encoding windows-1252"
        case .unterminatedQuote:
            return "quoted field begins here but is never closed — is a quote unbalanced?"
        case let .recordTooLong(limit):
            return "record longer than \(CSVError.formatSize(limit)) — is the file CSV, or a quote unbalanced?"
        case let .fieldCountMismatch(found, expected, expectedIsHeader):
            let fields = found == 1 ? "1 field" : "\(found) fields"
            if expectedIsHeader {
                return "\(fields), but the header has \(expected)"
            }
            return "\(fields), but \(expected) \(expected == 1 ? "was" : "were") expected"
        case let .io(operation, code):
            let reason = String(cString: strerror(code))
            return "cannot \(operation) (\(reason))"
        case let .notText(.byteOrderMark(encoding)):
            return "not CSV text in the encoding given: the file begins with a \(encoding) byte-order mark — leave --encoding auto, or give \(encoding.hasPrefix("UTF-32") ? "utf-32" : "utf-16")"
        case let .invalidByteInUTF8(bytes, offset):
            return "bytes \(CSVError.hex(bytes)) at offset \(offset) are not UTF-8, though the rest of the file is — a value cut mid-character? (if the whole file is in another encoding, give it with --encoding)"
        case let .unclearEncoding(candidates):
            let listed = candidates.count > 2 ? candidates.dropLast().joined(separator: ", ") + " or " + candidates.last! : candidates.joined(separator: " or ")
            return "not UTF-8; the text looks like \(listed) — give --encoding"
        case let .undecodable(bytes, offset, encoding, atEnd):
            return atEnd ? "the file ends inside a character (bytes \(CSVError.hex(bytes)) at offset \(offset)) — is it \(encoding)?"
                : "bytes \(CSVError.hex(bytes)) at offset \(offset) are not \(encoding) — is the file in another encoding? (give it with --encoding)"
        case let .unavailableEncoding(name):
            return "this system's iconv cannot convert \(name)"
        case let .notText(.nulByte(offset, isZip)):
            if isZip {
                return "not CSV text: a ZIP archive (an .xlsx workbook?) — export the sheet as CSV"
            }
            return "not CSV text: a NUL byte at offset \(offset) — a binary file, or UTF-16 without a byte-order mark?"
        }
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { "0x" + String($0, radix: 16, uppercase: true).leftPadded(to: 2) }.joined(separator: " ")
    }

    /// How messages name an encoding: `Windows-1251`, `KOI8-R`, `CP866`, `UTF-8`.
    static func displayName(_ encoding: CSVEncoding) -> String {
        let n = encoding.name
        if n.hasPrefix("windows-") { return "Windows-" + n.dropFirst(8) }
        if n == "mac-roman" { return "Mac Roman" }
        if n == "big5" { return "Big5" }
        if n == "shift_jis" { return "Shift_JIS" }
        return n.uppercased()
    }

    /// `16 MiB`, `64 KiB` or `1000 bytes`.
    static func formatSize(_ bytes: Int) -> String {
        if bytes >= 1 << 20, bytes % (1 << 20) == 0 { return "\(bytes >> 20) MiB" }
        if bytes >= 1 << 10, bytes % (1 << 10) == 0 { return "\(bytes >> 10) KiB" }
        return bytes == 1 ? "1 byte" : "\(bytes) bytes"
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
