// A streaming, byte-level CSV reader (RFC 4180 plus the quirks of real exports).
//
// Why this file exists: the importer must stay near `sqlite3 .import` speed. A plain byte scan of a
// 63 MB, 1M-line file takes ~0.07 s on our machines; the CSV packages available to us took 3–6 s,
// because they go through Character or allocate per field. This reader scans bytes through raw
// pointers into a fixed buffer (refilled with read(2)), records each field as an offset range, and
// makes a String only when the caller asks for a field, so memory stays bounded and ignored fields
// cost nothing. The hot loop is in CSVReader+Scanning.swift; the field view in CSVRecord.swift.
//
// Behaviour, in one place:
// - Fields are separated by the delimiter; records end at LF, CRLF or a lone CR. A field that
//   starts with `"` is quoted: it may contain the delimiter, line breaks and `""` (one quote).
// - Leniency, as Python's csv module: a quote inside an unquoted field is literal (`37.8"N`), and
//   text after a closing quote is appended (`"ab"c` is `abc`). Spaces are kept as they are.
// - A UTF-8 byte-order mark at the start is skipped, whatever the encoding option; in UTF-8 text (as read or
//   transcoded) so is one at the start of any record, which joining two exports with `cat` leaves there (a
//   line of only a mark is blank). Columns and byte offsets count from after a skipped mark. A UTF-16 or UTF-32
//   mark names the encoding (with `auto` or `utf-16`/`utf-32`): such input, and the multi-byte encodings,
//   are transcoded to UTF-8 before parsing (Transcoder.swift); with another encoding the mark is an error.
// - Encodings: see TextEncoding.swift; what `auto` decides: ByteSource.prescan and EncodingGuesser.swift.
//   A byte the code page in use leaves undefined is an error at its place, as an invalid UTF-8 byte is.
// - Blank lines (an empty line anywhere, also before the header or at the end) are skipped
//   silently: they are not records and do not get a record number. `blankLinesSkipped` counts
//   them, and records keep their physical line numbers, so a caller can still see the gap. (So a
//   one-column file must write an empty value as `""`; CSVWriter does.)
// - An empty input, or one with only a byte-order mark or blank lines, has zero records.
// - Record numbers count records from 1 (the header is record 1); lines are physical lines from 1
//   (a quoted field may span lines); byte offsets are 0-based from the start of the input.
// - Errors: see CSVError. A field-count mismatch leaves the reader after the bad record, so the
//   caller may report it and go on; every other error is final and thrown again by later calls.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package final class CSVReader {
    /// Which byte separates fields.
    package enum Delimiter: Sendable, Hashable, CustomStringConvertible {
        /// Guess among `,` `;` tab `|` from the first records (see `DelimiterSniffer`).
        case auto
        case comma, semicolon, tab, pipe
        /// Any other ASCII byte except `"`, CR and LF.
        case byte(UInt8)

        /// `auto`, `,`/`comma`, `;`/`semicolon`, `\t`/`tab`, `|`/`pipe`, or any other single ASCII character.
        package init?(label: String) {
            switch label {
            case "auto": self = .auto
            case ",", "comma": self = .comma
            case ";", "semicolon": self = .semicolon
            case "\t", "\\t", "tab": self = .tab
            case "|", "pipe": self = .pipe
            default:
                guard label.utf8.count == 1, let byte = label.utf8.first, byte < 0x80,
                      byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\n"), byte != UInt8(ascii: "\r")
                else { return nil }
                self = .byte(byte)
            }
        }

        var byte: UInt8? {
            switch self {
            case .auto: nil
            case .comma: UInt8(ascii: ",")
            case .semicolon: UInt8(ascii: ";")
            case .tab: UInt8(ascii: "\t")
            case .pipe: UInt8(ascii: "|")
            case let .byte(byte): byte
            }
        }

        package var description: String {
            switch self {
            case .auto: "auto"
            case .tab: "tab"
            default: String(UnicodeScalar(byte!))
            }
        }
    }

    /// How many fields each record must have.
    package enum FieldCount: Sendable, Hashable {
        /// Any number; check yourself if you care.
        case any
        /// As many as the first record (the header); a record with another count throws
        /// `fieldCountMismatch` naming its line and both counts, e.g.
        /// `orders.csv:17: 15 fields, but the header has 14`.
        case sameAsHeader
        /// Exactly this many, for files without a header.
        case exactly(Int)
    }

    package struct Options: Sendable, Hashable {
        package var delimiter: Delimiter
        package var encoding: CSVEncoding
        package var fieldCount: FieldCount
        /// The longest record, in bytes without its line break, before the reader gives up with
        /// `recordTooLong`. Bounds memory: the buffer stays below this plus `bufferSize`, and the
        /// space for unescaping quoted fields below this.
        package var maxRecordBytes: Int
        /// Bytes read per read(2) call; the buffer starts this big (at least 4 bytes).
        package var bufferSize: Int

        package init(delimiter: Delimiter = .auto, encoding: CSVEncoding = .auto, fieldCount: FieldCount = .any,
                    maxRecordBytes: Int = 16 << 20, bufferSize: Int = 256 << 10) {
            self.delimiter = delimiter
            self.encoding = encoding
            self.fieldCount = fieldCount
            self.maxRecordBytes = maxRecordBytes
            self.bufferSize = bufferSize
        }
    }

    /// The name used in error messages: the path as given, `-` for standard input.
    package let displayName: String
    package let options: Options
    /// The encoding in use: the one given, or the one `auto` settled on (never `auto`).
    package private(set) var encoding: CSVEncoding = .utf8
    /// The delimiter in use: the one given, or the one sniffed.
    package private(set) var delimiter: UInt8 = UInt8(ascii: ",")
    /// Whether the input started with a byte-order mark (UTF-8, or the UTF-16/32 one that named its encoding),
    /// which was skipped.
    package private(set) var hadByteOrderMark = false
    /// Whether the first line ends with CRLF (as Excel and 1C write), for files written back in the input's dialect.
    package private(set) var usesCRLF = false
    /// Blank lines skipped so far (see the behaviour notes at the top of this file).
    package internal(set) var blankLinesSkipped = 0
    /// Records read so far, including the header and a record just reported as an error: the
    /// number of the last record read.
    package private(set) var recordCount = 0

    // MARK: Internal state (read by CSVRecord and the scanner)

    var source: ByteSource
    var resolvedEncoding: ResolvedEncoding = .utf8

    /// The buffer: `capacity` usable bytes plus one for a LF sentinel at `end`, which lets the
    /// scanning loops run without a bounds check.
    var buffer: UnsafeMutablePointer<UInt8>
    var capacity: Int
    /// Start of the next record (after skipped blank lines once they are committed).
    var position = 0
    /// End of the valid bytes.
    var end = 0
    var atEOF = false
    /// Input offset of `buffer[0]`.
    var bufferOffset: Int64 = 0
    /// Physical line at `position`.
    var line = 1

    /// Byte classes for the scanner: 256 entries for unquoted text (1: delimiter, 2: LF, 3: CR),
    /// then 256 for quoted text (1: quote, 2: LF, 3: CR), then 256 for a line's first byte (2: LF, 3: CR,
    /// 4: the first byte of a UTF-8 byte-order mark, when such marks are dropped).
    var classes: UnsafeMutablePointer<UInt8>

    // The current record.
    var fields: UnsafeMutablePointer<FieldSlot>
    var fieldCapacity = 16
    var fieldCount = 0
    var recordStart = 0
    var recordEnd = 0
    var recordLine = 0
    /// Bumped by each `next()`, so a CSVRecord can tell that it is stale. A pointer, so records
    /// read it without an exclusivity check.
    let generation: UnsafeMutablePointer<Int>

    /// Where quoted fields with `""` are unescaped on demand.
    var scratch: UnsafeMutablePointer<UInt8>?
    var scratchCapacity = 0

    // UTF-8 checking while reading (explicit utf-8, a BOM, or a stream judged by its start).
    var validator: UTF8Validator?
    var invalidBytes: UTF8Validator.Failure?
    /// Buffer offset of the first invalid byte, `Int.max` if none was seen.
    var invalidPosition = Int.max
    var guessedFromPrefix: Int?
    /// Set when `auto` found valid multi-byte UTF-8 and an invalid byte: that byte is an error.
    var mostlyUTF8 = false
    /// The bytes the code page in use leaves undefined, and whether the invalid byte noted is one of them.
    var undefinedBytes: [UInt8] = []
    var undefinedInCodePage = false

    var expectedFieldCount: Int?
    var finalError: CSVError?

    // MARK: Opening

    /// Reads the file at `path`; `-` reads standard input. `displayName` defaults to `path`.
    package convenience init(path: String, displayName: String? = nil, options: Options = Options()) throws {
        let name = displayName ?? path
        try self.init(source: ByteSource.open(path: path, displayName: name), displayName: name, options: options)
    }

    /// Reads CSV held in memory (tests, small inputs).
    package convenience init(data: Data, displayName: String = "<data>", options: Options = Options()) throws {
        try self.init(source: .memory(data, position: 0), displayName: displayName, options: options)
    }

    /// Reads CSV text held in memory, as UTF-8 bytes.
    package convenience init(string: String, displayName: String = "<string>", options: Options = Options()) throws {
        try self.init(data: Data(string.utf8), displayName: displayName, options: options)
    }

    /// Reads from an open file descriptor, from its current position. Closes it when the reader
    /// goes away only if `closeWhenDone`.
    package convenience init(fileDescriptor: Int32, displayName: String, closeWhenDone: Bool = false,
                            options: Options = Options()) throws {
        try self.init(source: .file(descriptor: fileDescriptor, closesOnDeinit: closeWhenDone),
                      displayName: displayName, options: options)
    }

    /// Opens the input: fills the first buffer, skips a byte-order mark, settles the encoding and
    /// the delimiter.
    init(source: ByteSource, displayName: String, options: Options) throws {
        precondition(options.maxRecordBytes > 0, "maxRecordBytes must be positive")
        if let byte = options.delimiter.byte {
            precondition(byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\n") && byte != UInt8(ascii: "\r"),
                         "the delimiter must be an ASCII byte other than a quote, CR or LF")
        }
        self.source = source
        self.displayName = displayName
        self.options = options
        capacity = max(options.bufferSize, 4)
        // malloc, so that growing can realloc (mremap for big blocks: no copy, no double peak).
        guard let memory = malloc(capacity + 1) else { fatalError("out of memory for a \(capacity)-byte CSV buffer") }
        buffer = memory.assumingMemoryBound(to: UInt8.self)
        buffer[0] = UInt8(ascii: "\n")
        classes = .allocate(capacity: 768)
        classes.initialize(repeating: 0, count: 768)
        fields = .allocate(capacity: fieldCapacity)
        generation = .allocate(capacity: 1)
        generation.initialize(to: 0)

        let rereadableStart = source.rereadableStart()

        // The first bytes. When something is to be guessed from them, a full buffer (or the whole
        // input; a stream's encoding is judged by its first MiB); otherwise what one read gives (at
        // least the 4 of a byte-order mark), so that a stream's first records are not held back.
        let judgesStream = options.encoding == .auto && rereadableStart == nil
        let guesses = options.delimiter == .auto || judgesStream
        let wanted = judgesStream ? max(capacity, CSVReader.streamJudgement) : capacity
        if wanted > capacity { grow(to: wanted) }
        while !atEOF, end < 4 || (guesses && end < wanted) { try readMore() }

        // UTF-16 and UTF-32 (by their mark, or by name) and the multi-byte encodings are
        // transcoded to UTF-8 before parsing (Transcoder.swift).
        if let (transcoded, iconvName, skip) = try transcoding(options.encoding) {
            try transcode(transcoded, iconvName: iconvName, skip: skip)
        }

        if end >= 3, buffer[0] == 0xEF, buffer[1] == 0xBB, buffer[2] == 0xBF {
            hadByteOrderMark = true
            position = 3
        }
        if let error = notTextError() { throw fail(error) }
        if let lineBreak = UnsafeBufferPointer(start: buffer + position, count: end - position).firstIndex(where: { $0 == 0x0A || $0 == 0x0D }) {
            usesCRLF = buffer[position + lineBreak] == 0x0D && position + lineBreak + 1 < end && buffer[position + lineBreak + 1] == 0x0A
        }

        switch options.encoding.family {
        case .utf8:
            startValidating()
        case .transcoded:
            resolvedEncoding = .utf8     // iconv's output is valid UTF-8
        case .singleByte:
            try useCodePage(options.encoding)
        case .auto:
            if case .transcoding = self.source {
                resolvedEncoding = .utf8
            } else if hadByteOrderMark {
                startValidating()
            } else if let rereadableStart {
                let result: Prescan.Result
                do { result = try source.prescan(from: rereadableStart, longestLine: options.maxRecordBytes) } catch {
                    throw fail(CSVError(file: displayName, line: 1, kind: .io(operation: "read", errno: error.code)))
                }
                try settle(result, validate: false)
            } else {
                // A stream cannot be read twice: judge its first MiB as a file is judged whole.
                var scan = Prescan(longestLine: .max)
                var result = scan.feed(buffer + position, count: end - position, offset: Int64(position))
                if result == nil { result = atEOF || scan.evidence != nil ? scan.finish() : .utf8 }
                if case .utf8 = result!, !atEOF { guessedFromPrefix = end }
                try settle(result!, validate: true)
            }
        }

        if let byte = options.delimiter.byte {
            delimiter = byte
        } else {
            delimiter = DelimiterSniffer.sniff(UnsafeBufferPointer(start: buffer + position, count: end - position),
                                               isComplete: atEOF)
        }
        classes[Int(delimiter)] = 1
        classes[Int(UInt8(ascii: "\n"))] = 2
        classes[Int(UInt8(ascii: "\r"))] = 3
        classes[256 + Int(UInt8(ascii: "\""))] = 1
        classes[256 + Int(UInt8(ascii: "\n"))] = 2
        classes[256 + Int(UInt8(ascii: "\r"))] = 3

        if case let .exactly(count) = options.fieldCount { expectedFieldCount = count }
        classes[512 + Int(UInt8(ascii: "\n"))] = 2
        classes[512 + Int(UInt8(ascii: "\r"))] = 3
        // In UTF-8 (as read or transcoded) EF BB BF can only be U+FEFF; in a code page they are three characters.
        if case .utf8 = resolvedEncoding { classes[512 + 0xEF] = 4 }
    }

    /// The bytes `text` has in the input as the reader sees it (UTF-8 for a transcoded input), to
    /// compare with a field's bytes; nil if the encoding cannot hold it.
    package func bytes(of text: String) -> [UInt8]? {
        switch resolvedEncoding {
        case .utf8:
            return Array(text.utf8)
        case .singleByte(let table):
            var out: [UInt8] = []
            for s in text.unicodeScalars {
                guard let b = table.bytes[s.value] else { return nil }
                out.append(b)
            }
            return out
        }
    }

    /// How much of a stream `auto` judges the encoding by.
    static let streamJudgement = 1 << 20

    /// The transcoding an encoding needs: what iconv reads, and the bytes of a byte-order mark to skip.
    /// Nil for the encodings the reader parses directly. With `auto`, only a UTF-16 or UTF-32 mark.
    private func transcoding(_ encoding: CSVEncoding) throws -> (CSVEncoding, String, Int)? {
        let bytes = UnsafeBufferPointer(start: buffer, count: end)
        let marks: [(prefix: [UInt8], name: String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "utf-32be"), ([0xFF, 0xFE, 0x00, 0x00], "utf-32le"),
            ([0xFE, 0xFF], "utf-16be"), ([0xFF, 0xFE], "utf-16le"),
        ]
        let mark = marks.first { bytes.starts(with: $0.prefix) }
        switch encoding.family {
        case .auto:
            guard let mark else { return nil }
            let e = CSVEncoding(label: mark.name)!
            return (e, e.iconvName, mark.prefix.count)
        case .transcoded:
            if encoding.name == "utf-16" || encoding.name == "utf-32" {
                // By its mark; without one, little-endian, as Windows writes it.
                if let mark, mark.name.hasPrefix(encoding.name) {
                    let e = CSVEncoding(label: mark.name)!
                    return (e, e.iconvName, mark.prefix.count)
                }
                let e = CSVEncoding(label: encoding.name + "le")!
                return (e, e.iconvName, 0)
            }
            if let mark, mark.name == encoding.name { return (encoding, encoding.iconvName, mark.prefix.count) }
            return (encoding, encoding.iconvName, 0)
        default:
            return nil
        }
    }

    /// Reads the rest of the input through iconv, from the bytes read so far (after `skip` bytes of a
    /// byte-order mark), and fills the buffer again with UTF-8.
    private func transcode(_ transcoded: CSVEncoding, iconvName: String, skip: Int) throws {
        guard let transcoder = Transcoder(inner: source, encoding: transcoded, iconvName: iconvName,
                                          pending: UnsafeBufferPointer(start: buffer + skip, count: end - skip),
                                          pendingOffset: Int64(skip))
        else { throw fail(CSVError(file: displayName, line: 0, kind: .unavailableEncoding(transcoded.name))) }
        source = .transcoding(transcoder)
        hadByteOrderMark = skip > 0
        end = 0
        position = 0
        atEOF = false
        while !atEOF, end < 3 || (options.delimiter == .auto && end < capacity) { try readMore() }
        encoding = transcoded
        resolvedEncoding = .utf8
    }

    /// Decodes fields through the code page's table.
    private func useCodePage(_ codePage: CSVEncoding) throws {
        guard let table = SingleByteTable.table(for: codePage) else {
            throw fail(CSVError(file: displayName, line: 0, kind: .unavailableEncoding(codePage.name)))
        }
        resolvedEncoding = .singleByte(table)
        encoding = codePage
        // A byte the code page leaves undefined (0x98 in Windows-1251) means the file is in another
        // encoding: an error where the reader meets it, never a control character in the store. A
        // stream `auto` judged by its first MiB is contradicted this way too.
        undefinedBytes = table.undefinedBytes
        findUndefined(from: 0, count: end)
    }

    /// Notes the first undefined byte of the code page in `buffer[from..<from + count]` (memchr per byte value:
    /// code pages leave a few undefined, so this costs next to nothing).
    private func findUndefined(from: Int, count: Int) {
        guard !undefinedBytes.isEmpty, invalidBytes == nil, count > 0 else { return }
        var first = Int.max
        for u in undefinedBytes {
            if let p = memchr(buffer + from, Int32(u), first == .max ? count : first - from) {
                first = min(first, buffer.distance(to: p.assumingMemoryBound(to: UInt8.self)))
            }
        }
        guard first != .max else { return }
        undefinedInCodePage = true
        noteInvalid(UTF8Validator.Failure(bytes: [buffer[first]], offset: bufferOffset + Int64(first)))
    }

    /// What `auto` makes of a pre-scan.
    /// `validate`: whether UTF-8 must still be checked as it is read (a stream judged by its start).
    private func settle(_ result: Prescan.Result, validate: Bool) throws {
        switch result {
        case .utf8:
            if validate {
                startValidating()
            } else {
                resolvedEncoding = .utf8
                encoding = .utf8
            }
        case .utf8WithInvalidBytes:
            // Never a code page: the invalid byte is reported where the reader meets it.
            guessedFromPrefix = nil
            mostlyUTF8 = true
            startValidating()
        case .notUTF8(let evidence):
            switch EncodingGuesser.guess(evidence) {
            case .encoding(let e):
                validator = nil
                invalidBytes = nil
                invalidPosition = .max
                if e.family == .transcoded {
                    try transcode(e, iconvName: e.iconvName, skip: 0)
                } else {
                    try useCodePage(e)
                }
            case .unclear(let candidates):
                // The region once, unless the candidates' differ: "Windows-1251 (Cyrillic) or KOI8-R".
                let names = candidates.enumerated().map { i, e in
                    i > 0 && e.region == candidates[0].region ? CSVError.displayName(e) : "\(CSVError.displayName(e)) (\(e.region))"
                }
                throw fail(CSVError(file: displayName, line: 0, kind: .unclearEncoding(names)))
            }
        }
    }

    private func grow(to size: Int) {
        guard let bigger = realloc(buffer, size + 1) else { fatalError("out of memory for a \(size)-byte CSV buffer") }
        buffer = bigger.assumingMemoryBound(to: UInt8.self)
        capacity = size
    }

    deinit {
        free(buffer)
        classes.deallocate()
        fields.deallocate()
        generation.deallocate()
        scratch?.deallocate()
        source.close()
    }

    // MARK: Reading records

    /// The next record, or `nil` at the end of the input. The record is a view into the reader's
    /// buffer, valid until the next call; copy what you keep (`Array(record)`, `record[i]`).
    package func next() throws -> CSVRecord? {
        if let finalError { throw finalError }
        generation.pointee &+= 1
        while true {
            switch scanRecord() {
            case .record:
                recordCount += 1
                if recordEnd > invalidPosition {
                    throw fail(encodingError())
                }
                if recordEnd - recordStart > options.maxRecordBytes {
                    throw fail(CSVError(file: displayName, line: recordLine, kind: .recordTooLong(limit: options.maxRecordBytes)))
                }
                if let expected = expectedFieldCount {
                    if fieldCount != expected {
                        let isHeader = options.fieldCount == .sameAsHeader
                        throw CSVError(file: displayName, line: recordLine,
                                       kind: .fieldCountMismatch(found: fieldCount, expected: expected, expectedIsHeader: isHeader))
                    }
                } else if options.fieldCount == .sameAsHeader {
                    expectedFieldCount = fieldCount
                }
                return CSVRecord(reader: self)
            case .needMore:
                try refill()
            case .endOfInput:
                return nil
            case let .unterminatedQuote(fieldStart):
                if invalidPosition < end { throw fail(encodingError()) }
                let place = locate(fieldStart)
                throw fail(CSVError(file: displayName, line: place.line, column: place.column, kind: .unterminatedQuote))
            }
        }
    }

    /// Every remaining record as strings. For small inputs and tests.
    package func readAll() throws -> [[String]] {
        var rows: [[String]] = []
        while let record = try next() { rows.append(Array(record)) }
        return rows
    }

    // MARK: Buffer management

    /// Makes room after the partial record at `position` and reads more input into it.
    func refill() throws {
        let partial = end - position
        if partial > options.maxRecordBytes {
            recordStart = position
            recordLine = line
            if invalidPosition < end { throw fail(encodingError()) }
            throw fail(CSVError(file: displayName, line: line, kind: .recordTooLong(limit: options.maxRecordBytes)))
        }
        if position > 0 {
            if partial > 0 { memmove(buffer, buffer + position, partial) }
            bufferOffset += Int64(position)
            if invalidPosition != .max { invalidPosition -= position }
            end = partial
            position = 0
        }
        if end == capacity {
            let grown = max(capacity + 1, min(capacity * 2, options.maxRecordBytes + max(options.bufferSize, 4)))
            guard let bigger = realloc(buffer, grown + 1) else {
                fatalError("out of memory for a \(grown)-byte CSV buffer")
            }
            buffer = bigger.assumingMemoryBound(to: UInt8.self)
            capacity = grown
        }
        try readMore()
    }

    /// One read(2) into the free space after `end`; validates the new bytes when asked to.
    func readMore() throws {
        let count: Int
        do {
            count = try source.read(into: buffer + end, count: capacity - end)
        } catch {
            if case let .transcoding(transcoder) = source, let f = transcoder.failure {
                throw fail(CSVError(file: displayName, line: f.line, column: f.column,
                                    kind: .undecodable(bytes: f.bytes, offset: f.offset, encoding: transcoder.encoding.name, atEnd: f.atEnd)))
            }
            throw fail(CSVError(file: displayName, line: line, kind: .io(operation: "read", errno: error.code)))
        }
        if count == 0 {
            atEOF = true
            if let failure = validator?.finish() { noteInvalid(failure) }
        } else {
            if validator != nil, let failure = validator!.feed(buffer + end, count: count, offset: bufferOffset + Int64(end)) {
                noteInvalid(failure)
            }
            findUndefined(from: end, count: count)
            end += count
        }
        buffer[end] = UInt8(ascii: "\n")
    }

    /// Reads as UTF-8 and checks every byte, starting with those already in the buffer.
    private func startValidating() {
        resolvedEncoding = .utf8
        encoding = .utf8
        var validator = UTF8Validator()
        if let failure = validator.feed(buffer, count: end, offset: bufferOffset) {
            self.validator = validator
            noteInvalid(failure)
            return
        }
        if atEOF, let failure = validator.finish() { noteInvalid(failure) }
        self.validator = validator
    }

    private func noteInvalid(_ failure: UTF8Validator.Failure) {
        guard invalidBytes == nil else { return }
        invalidBytes = failure
        invalidPosition = Int(failure.offset - bufferOffset)
        validator = nil
    }

    // MARK: Errors and positions

    /// Remembers a final error, so later calls throw it again.
    /// Input that is not text in any encoding we read, judged from the first bytes read: a UTF-16 or UTF-32
    /// byte-order mark, or a NUL byte. Windows-1252 gives every byte a character, so "not UTF-8 and not
    /// Windows-1252" cannot be decided byte by byte; but no UTF-8 or Windows-1252 export contains a NUL, while
    /// UTF-16 text and binary files (PNG, ZIP and so XLSX, executables) are full of them.
    private func notTextError() -> CSVError? {
        let bytes = UnsafeBufferPointer(start: buffer, count: end)
        let marks: [(prefix: [UInt8], name: String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "UTF-32 (big-endian)"), ([0xFF, 0xFE, 0x00, 0x00], "UTF-32 (little-endian)"),
            ([0xFE, 0xFF], "UTF-16 (big-endian)"), ([0xFF, 0xFE], "UTF-16 (little-endian)"),
        ]
        for mark in marks where bytes.starts(with: mark.prefix) {
            return CSVError(file: displayName, line: 0, kind: .notText(.byteOrderMark(mark.name)))
        }
        if let nul = bytes.firstIndex(of: 0) {
            let isZip = bytes.starts(with: [0x50, 0x4B, 0x03, 0x04])
            return CSVError(file: displayName, line: 0, kind: .notText(.nulByte(offset: bufferOffset + Int64(nul), isZip: isZip)))
        }
        return nil
    }

    func fail(_ error: CSVError) -> CSVError {
        finalError = error
        return error
    }

    /// The invalid-UTF-8 error, placed at the line of the first bad byte (which lies in the
    /// record that starts at `recordStart`).
    private func encodingError() -> CSVError {
        let failure = invalidBytes!
        let place = locate(invalidPosition)
        if undefinedInCodePage {
            return CSVError(file: displayName, line: place.line, column: place.column,
                            kind: .undecodable(bytes: failure.bytes, offset: failure.offset, encoding: encoding.name, atEnd: false))
        }
        if mostlyUTF8 {
            return CSVError(file: displayName, line: place.line, column: place.column,
                            kind: .invalidByteInUTF8(bytes: failure.bytes, offset: failure.offset))
        }
        return CSVError(file: displayName, line: place.line,
                        kind: .invalidUTF8(bytes: failure.bytes, offset: failure.offset, guessedFromPrefix: guessedFromPrefix))
    }

    /// Physical line and character column of buffer offset `offset` inside the current record,
    /// found by counting line breaks and characters from the record's start. Lazy on purpose:
    /// only error messages need columns, so the scanner does not track them.
    func locate(_ offset: Int) -> CSVPosition {
        var line = recordLine
        var lineStart = recordStart
        var i = recordStart
        while i < offset {
            let byte = buffer[i]
            if byte == UInt8(ascii: "\n") || (byte == UInt8(ascii: "\r") && (i + 1 >= end || buffer[i + 1] != UInt8(ascii: "\n"))) {
                line += 1
                lineStart = i + 1
            }
            i += 1
        }
        let column = FieldDecoder.scalarCount(buffer + lineStart, count: offset - lineStart, encoding: resolvedEncoding) + 1
        return CSVPosition(line: line, column: column)
    }
}

/// A place in the input: 1-based physical line and character column (Unicode scalars).
package struct CSVPosition: Sendable, Hashable, CustomStringConvertible {
    package var line: Int
    package var column: Int

    package init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `LINE:COLUMN`, to put after `FILE:` in a message.
    package var description: String { "\(line):\(column)" }
}
