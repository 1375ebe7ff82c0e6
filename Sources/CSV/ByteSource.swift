// Where the reader's bytes come from: a file descriptor (a path, standard input) or Data in memory.
//
// Why this file exists: the reader must stream with bounded memory (a 1 GB export, a pipe from
// another job), so it pulls bytes with read(2) into its own fixed buffer instead of loading files or
// going through FileHandle. In-memory Data goes through the same path, chunk by chunk, so tests with
// a tiny buffer exercise every refill boundary the file path has.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

enum ByteSource {
    case file(descriptor: Int32, closesOnDeinit: Bool)
    case memory(Data, position: Int)
    /// Another source in an encoding that is transcoded to UTF-8 before parsing (Transcoder.swift).
    case transcoding(Transcoder)

    /// Opens `path` for reading; `-` is standard input (not closed afterwards).
    static func open(path: String, displayName: String) throws -> ByteSource {
        if path == "-" { return .file(descriptor: STDIN_FILENO, closesOnDeinit: false) }
        var fd: Int32
        repeat { fd = Glibc.open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0 { throw CSVError(file: displayName, line: 0, kind: .io(operation: "open", errno: errno)) }
        return .file(descriptor: fd, closesOnDeinit: true)
    }

    /// Reads up to `count` bytes into `destination`; 0 means end of input. Throws the errno.
    mutating func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(Errno) -> Int {
        switch self {
        case let .file(fd, _):
            while true {
                let n = Glibc.read(fd, destination, count)
                if n >= 0 { return n }
                if errno != EINTR { throw Errno(code: errno) }
            }
        case let .memory(data, position):
            let n = min(count, data.count - position)
            if n > 0 {
                data.withUnsafeBytes { raw in
                    (destination).update(from: raw.bindMemory(to: UInt8.self).baseAddress! + position, count: n)
                }
                self = .memory(data, position: position + n)
            }
            return n
        case let .transcoding(transcoder):
            return try transcoder.read(into: destination, count: count)
        }
    }

    /// The read position now, to pass to `prescanIsUTF8(from:)` later; `nil` if the input cannot
    /// be read twice (a pipe, a terminal).
    func rereadableStart() -> Int64? {
        switch self {
        case let .memory(_, position):
            return Int64(position)
        case .transcoding:
            return nil
        case let .file(fd, _):
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            let start = lseek(fd, 0, SEEK_CUR)
            return start >= 0 ? Int64(start) : nil
        }
    }

    /// What the input from `start` (a `rereadableStart()`) to its end is: UTF-8, UTF-8 with an
    /// invalid byte, or not UTF-8 (with a sample for guessing its code page). Found by reading it
    /// once up front, without moving the read position.
    ///
    /// Stops early at a stretch of more than `longestLine` bytes without a line break (the reader
    /// will stop at that record anyway, so a 1 GB file that is one line fails fast), and a
    /// megabyte after the first invalid byte (enough to weigh the evidence).
    func prescan(from start: Int64, longestLine: Int) throws(Errno) -> Prescan.Result {
        var scan = Prescan(longestLine: longestLine)
        switch self {
        case let .memory(data, _):
            return data.withUnsafeBytes { raw in
                let base = raw.bindMemory(to: UInt8.self).baseAddress
                var offset = Int(start)
                while offset < raw.count {
                    let n = min(Prescan.chunk, raw.count - offset)
                    if let answer = scan.feed(base! + offset, count: n, offset: Int64(offset)) { return answer }
                    offset += n
                }
                return scan.finish()
            }
        case .transcoding:
            return .utf8
        case let .file(fd, _):
            let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: Prescan.chunk)
            defer { buffer.deallocate() }
            var offset = off_t(start)
            while true {
                let n = pread(fd, buffer, Prescan.chunk, offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    throw Errno(code: errno)
                }
                if n == 0 { return scan.finish() }
                if let answer = scan.feed(buffer, count: n, offset: Int64(offset)) { return answer }
                offset += off_t(n)
            }
        }
    }

    func close() {
        if case let .file(fd, closes) = self, closes { _ = Glibc.close(fd) }
        if case let .transcoding(transcoder) = self { transcoder.close() }
    }
}

struct Errno: Error {
    var code: Int32
}

/// The state of `ByteSource.prescan`: UTF-8 validity plus the length of the current stretch without
/// a line break (checked per chunk from its end, so it costs next to nothing); after the first
/// invalid byte, the evidence: valid and invalid sequences counted, and a sample of the text.
struct Prescan {
    enum Result {
        case utf8
        /// Valid multi-byte UTF-8 at least as often as invalid bytes: a UTF-8 file with a bad
        /// byte (a field cut mid-character), never to be read as a code page.
        case utf8WithInvalidBytes
        case notUTF8(EncodingEvidence)
    }

    static let chunk = 1 << 20
    /// How far past the first invalid byte the evidence is gathered.
    static let evidenceBytes = 1 << 20
    let longestLine: Int
    var validator = UTF8Validator()
    var stretch = 0
    var evidence: EncodingEvidence?
    var valid = 0
    var invalid = 0
    var evidenceSeen = 0

    init(longestLine: Int) {
        self.longestLine = longestLine
    }

    /// An answer if one is known after these bytes, else nil (read on).
    mutating func feed(_ base: UnsafePointer<UInt8>, count: Int, offset: Int64) -> Result? {
        if evidence == nil {
            if let failure = validator.feed(base, count: count, offset: offset) {
                // From the start of the line with the first bad byte.
                var from = Int(failure.offset - offset)
                while from > 0, base[from - 1] != 0x0A, base[from - 1] != 0x0D { from -= 1 }
                valid = validator.multibyteCount
                evidence = EncodingEvidence()
                gather(base + from, count: count - from)
            } else {
                // The last line break of the chunk, searched from its end (near it in any CSV file).
                var i = count - 1
                while i >= 0, base[i] != UInt8(ascii: "\n"), base[i] != UInt8(ascii: "\r") { i -= 1 }
                stretch = i >= 0 ? count - 1 - i : stretch + count
                return stretch > longestLine ? .utf8 : nil
            }
        } else {
            gather(base, count: count)
        }
        return evidenceSeen >= Prescan.evidenceBytes ? decision() : nil
    }

    /// Counts UTF-8 sequences (resynchronising after a bad byte) and keeps a sample.
    private mutating func gather(_ base: UnsafePointer<UInt8>, count: Int) {
        let n = min(count, Prescan.evidenceBytes - evidenceSeen)
        evidence!.add(base, count: n)
        evidenceSeen += n
        var i = 0
        while i < n {
            let b = base[i]
            if b < 0x80 { i += 1; continue }
            let length = b >= 0xC2 && b <= 0xDF ? 2 : b >= 0xE0 && b <= 0xEF ? 3 : b >= 0xF0 && b <= 0xF4 ? 4 : 0
            var ok = length > 0 && i + length <= n
            if ok { for k in 1..<length where base[i + k] & 0xC0 != 0x80 { ok = false } }
            if ok { valid += 1; i += length } else { invalid += 1; i += 1 }
        }
    }

    private func decision() -> Result {
        valid > 0 && valid >= invalid ? .utf8WithInvalidBytes : .notUTF8(evidence!)
    }

    func finish() -> Result {
        if evidence != nil { return decision() }
        guard let failure = validator.finish() else { return .utf8 }
        // The input ends inside a sequence: UTF-8 cut short, or a last code-page byte.
        if validator.multibyteCount > 0 { return .utf8WithInvalidBytes }
        var evidence = EncodingEvidence()
        failure.bytes.withUnsafeBufferPointer { evidence.add($0.baseAddress!, count: $0.count) }
        return .notUTF8(evidence)
    }
}
