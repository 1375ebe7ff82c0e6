// An RFC 4180 CSV writer into a buffered sink.
//
// Why this file exists: the exporter and the report renderers need output that this reader,
// Python's csv module and spreadsheets read back as the same values, written fast. Its format is a
// contract — change it only on purpose:
// - UTF-8 by default; an optional byte-order mark (`byteOrderMark`, for Excel) comes first. Another
//   `encoding` (a code page, UTF-16, Shift_JIS) encodes every byte written, its mark included
//   (UTF-16 and UTF-32 without an endianness get one); a character it cannot hold is an error
//   (`UnencodableCharacter`, with `fieldIndex` in the record), never a `?`.
// - A field is quoted only when it must be: when it contains the delimiter, `"`, CR or LF, or
//   starts with U+FEFF (which a reader would take for a byte-order mark). Quotes inside are
//   doubled. Leading and trailing spaces are written as they are, unquoted (RFC 4180 keeps them).
// - A record with one empty field is written as `""`, because an empty line is a blank line that
//   readers (ours included) skip. A record with no fields is written as an empty line.
// - Records end with LF by default, or CRLF (`lineEnding`), also after the last record.

import FileOutput
import Foundation
#if canImport(Glibc)
import Glibc
#endif

package final class CSVWriter {
    package enum LineEnding: Sendable, Hashable {
        case lf, crlf
    }

    package struct Options: Sendable, Hashable {
        /// An ASCII byte other than `"`, CR and LF.
        package var delimiter: UInt8
        package var lineEnding: LineEnding
        /// Start the output with a UTF-8 byte-order mark.
        package var byteOrderMark: Bool
        /// The output's encoding (`auto` is not one).
        package var encoding: CSVEncoding

        package init(delimiter: UInt8 = UInt8(ascii: ","), lineEnding: LineEnding = .lf, byteOrderMark: Bool = false,
                    encoding: CSVEncoding = .utf8) {
            precondition(encoding != .auto, "an output has a named encoding")
            self.encoding = encoding
            precondition(delimiter < 0x80 && delimiter != UInt8(ascii: "\"") && delimiter != UInt8(ascii: "\n")
                         && delimiter != UInt8(ascii: "\r"),
                         "the delimiter must be an ASCII byte other than a quote, CR or LF")
            self.delimiter = delimiter
            self.lineEnding = lineEnding
            self.byteOrderMark = byteOrderMark
        }
    }

    /// The name used in error messages: the path as given, `-` for standard output.
    package let displayName: String
    package let options: Options
    /// Records ended so far.
    package private(set) var recordCount = 0

    private let sink: ByteSink
    /// 1 for bytes that force quoting: the delimiter, quote, CR, LF.
    private let special: [Bool]
    private var fieldsInRecord = 0
    private var lastFieldEmpty = false
    /// Set for any encoding but UTF-8: each field is assembled in UTF-8, then encoded.
    private let encoder: OutputEncoder?
    private var assembled: [UInt8] = []
    private var encodedBytes: [UInt8] = []

    /// A field's character that the output encoding cannot hold.
    package struct Unencodable: Error, Sendable {
        /// The field's index in its record.
        package var fieldIndex: Int
        package var character: UnencodableCharacter
    }

    /// Writes to `path` through the one output module (`OutputFile`: the store and the input are refused, a
    /// regular file appears whole at `close()`, a device or pipe is written in place); `-` is standard output.
    /// Throws `FileOutputError` when the output is refused or cannot be created.
    package convenience init(path: String, displayName: String? = nil, options: Options = Options()) throws {
        let file = try OutputFile(path: path)
        try self.init(target: .output(file), displayName: displayName ?? FileOutputError.shownName(path), options: options)
    }

    /// Writes to an open file descriptor; closes it on `close()` only if `closeWhenDone`.
    package convenience init(fileDescriptor: Int32, displayName: String, closeWhenDone: Bool = false,
                            options: Options = Options()) throws {
        try self.init(target: .file(descriptor: fileDescriptor, closes: closeWhenDone), displayName: displayName,
                      options: options)
    }

    /// Writes to memory; read the result with `data`.
    package convenience init(options: Options = Options()) {
        try! self.init(target: .memory, displayName: "<memory>", options: options)
    }

    private init(target: ByteSink.Target, displayName: String, options: Options) throws {
        self.displayName = displayName
        self.options = options
        sink = ByteSink(target: target)
        var special = [Bool](repeating: false, count: 256)
        for byte in [options.delimiter, UInt8(ascii: "\""), UInt8(ascii: "\r"), UInt8(ascii: "\n")] {
            special[Int(byte)] = true
        }
        self.special = special
        if options.encoding != .utf8 {
            guard let encoder = OutputEncoder(options.encoding) else {
                throw CSVError(file: displayName, line: 0, kind: .unavailableEncoding(options.encoding.name))
            }
            self.encoder = encoder
            if !encoder.byteOrderMark.isEmpty {
                try io { () throws(Errno) in try sink.reserve(encoder.byteOrderMark.count) }
                for b in encoder.byteOrderMark { sink.append(b) }
            }
            return
        }
        encoder = nil
        if options.byteOrderMark {
            try io { () throws(Errno) in try sink.reserve(3) }
            sink.append(0xEF); sink.append(0xBB); sink.append(0xBF)
        }
    }

    /// Buffered bytes are written out here too, but errors then go unseen: call `close()`.
    deinit {
        try? sink.flush()
    }

    /// The bytes written so far (memory writers; for others, empty).
    package var data: Data {
        try? sink.flush()
        return sink.data
    }

    /// Writes one record.
    package func writeRecord(_ fields: [String]) throws {
        for field in fields { try writeField(field) }
        try endRecord()
    }

    /// Writes one record (any sequence of strings or substrings).
    package func writeRecord<S: Sequence>(_ fields: S) throws where S.Element: StringProtocol {
        for field in fields { try writeField(field) }
        try endRecord()
    }

    /// Writes one field of the current record; finish the record with `endRecord()`.
    package func writeField(_ field: String) throws {
        var field = field
        try field.withUTF8 { try writeField(bytes: $0) }
    }

    /// Writes one field of the current record; finish the record with `endRecord()`.
    package func writeField<S: StringProtocol>(_ field: S) throws {
        if let done = try field.utf8.withContiguousStorageIfAvailable({ try writeField(bytes: $0) }) {
            return done
        }
        var copy = String(field)
        try copy.withUTF8 { try writeField(bytes: $0) }
    }

    /// Writes one field given as UTF-8 bytes (quoted if needed, like any field).
    package func writeField(bytes: UnsafeBufferPointer<UInt8>) throws {
        if let encoder { return try writeEncodedField(bytes, encoder) }
        let count = bytes.count
        // Worst case: delimiter, two quotes, every byte a doubled quote.
        try io { () throws(Errno) in try sink.reserve(2 * count + 3) }
        if fieldsInRecord > 0 { sink.append(options.delimiter) }
        fieldsInRecord += 1
        lastFieldEmpty = count == 0
        guard count > 0, let base = bytes.baseAddress else { return }

        var needsQuotes = count >= 3 && base[0] == 0xEF && base[1] == 0xBB && base[2] == 0xBF
        if !needsQuotes {
            special.withUnsafeBufferPointer { special in
                for i in 0..<count where special[Int(base[i])] {
                    needsQuotes = true
                    break
                }
            }
        }
        guard needsQuotes else {
            sink.append(base, count: count)
            return
        }
        let quote = UInt8(ascii: "\"")
        sink.append(quote)
        var runStart = 0
        for i in 0..<count where base[i] == quote {
            sink.append(base + runStart, count: i + 1 - runStart)   // up to and including the quote
            sink.append(quote)
            runStart = i + 1
        }
        sink.append(base + runStart, count: count - runStart)
        sink.append(quote)
    }

    /// A field in another encoding: quoted by the same rules (on its UTF-8), then encoded, the
    /// delimiter and quotes with it.
    private func writeEncodedField(_ bytes: UnsafeBufferPointer<UInt8>, _ encoder: OutputEncoder) throws {
        assembled.removeAll(keepingCapacity: true)
        if fieldsInRecord > 0 { assembled.append(options.delimiter) }
        let index = fieldsInRecord
        fieldsInRecord += 1
        lastFieldEmpty = bytes.isEmpty
        let quote = UInt8(ascii: "\"")
        let needsQuotes = bytes.starts(with: [0xEF, 0xBB, 0xBF]) || bytes.contains { special[Int($0)] }
        if needsQuotes { assembled.append(quote) }
        for b in bytes {
            assembled.append(b)
            if needsQuotes && b == quote { assembled.append(quote) }
        }
        if needsQuotes { assembled.append(quote) }
        try emit(assembled, encoder, field: index)
    }

    private func emit(_ utf8: [UInt8], _ encoder: OutputEncoder, field: Int) throws {
        encodedBytes.removeAll(keepingCapacity: true)
        do {
            try utf8.withUnsafeBufferPointer { (b) throws(UnencodableCharacter) in try encoder.encode(b, into: &encodedBytes) }
        } catch {
            // Through the String form, which writes text stored decomposed (NFD) composed when the page needs it.
            encodedBytes.removeAll(keepingCapacity: true)
            do {
                try encoder.encode(String(decoding: utf8, as: UTF8.self), into: &encodedBytes)
            } catch {
                throw Unencodable(fieldIndex: field, character: error)
            }
        }
        try io { () throws(Errno) in try sink.reserve(encodedBytes.count) }
        encodedBytes.withUnsafeBufferPointer { sink.append($0.baseAddress!, count: $0.count) }
    }

    /// Ends the current record with the line ending.
    package func endRecord() throws {
        if let encoder {
            var ending: [UInt8] = fieldsInRecord == 1 && lastFieldEmpty ? [UInt8(ascii: "\""), UInt8(ascii: "\"")] : []
            if options.lineEnding == .crlf { ending.append(UInt8(ascii: "\r")) }
            ending.append(UInt8(ascii: "\n"))
            try emit(ending, encoder, field: fieldsInRecord)
            fieldsInRecord = 0
            lastFieldEmpty = false
            recordCount += 1
            return
        }
        try io { () throws(Errno) in try sink.reserve(4) }
        if fieldsInRecord == 1, lastFieldEmpty {
            sink.append(UInt8(ascii: "\""))
            sink.append(UInt8(ascii: "\""))
        }
        if options.lineEnding == .crlf { sink.append(UInt8(ascii: "\r")) }
        sink.append(UInt8(ascii: "\n"))
        fieldsInRecord = 0
        lastFieldEmpty = false
        recordCount += 1
    }

    /// Writes out the buffered bytes.
    package func flush() throws {
        try io { () throws(Errno) in try sink.flush() }
    }

    /// Flushes and, if the writer owns the descriptor, closes it.
    package func close() throws {
        try flush()
        try io(operation: "close") { () throws(Errno) in try sink.close() }
        // A failure to put the file in place is the output module's own error (`FileOutputError`).
        if case let .output(file) = sink.target { try file.commit() }
    }

    @inline(__always)
    private func io(operation: String = "write", _ body: () throws(Errno) -> Void) throws {
        do {
            try body()
        } catch {
            throw CSVError(file: displayName, line: 0, kind: .io(operation: operation, errno: error.code))
        }
    }
}
