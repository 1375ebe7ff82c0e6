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
        }
    }

    /// The read position now, to pass to `prescanIsUTF8(from:)` later; `nil` if the input cannot
    /// be read twice (a pipe, a terminal).
    func rereadableStart() -> Int64? {
        switch self {
        case let .memory(_, position):
            return Int64(position)
        case let .file(fd, _):
            var info = stat()
            guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
            let start = lseek(fd, 0, SEEK_CUR)
            return start >= 0 ? Int64(start) : nil
        }
    }

    /// Whether the input from `start` (a `rereadableStart()`) to its end is valid UTF-8, found by
    /// reading it once up front, without moving the read position.
    ///
    /// Stops early, answering from the bytes seen, at the first invalid byte or at a stretch of more
    /// than `longestLine` bytes without a line break: the reader will stop at that record anyway
    /// (it is longer than the record limit), so a 1 GB file that is one line fails fast.
    func prescanIsUTF8(from start: Int64, longestLine: Int) throws(Errno) -> Bool {
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
    }
}

struct Errno: Error {
    var code: Int32
}

/// The state of `ByteSource.prescanIsUTF8`: UTF-8 validity plus the length of the current stretch
/// without a line break (checked per chunk from its end, so it costs next to nothing).
struct Prescan {
    static let chunk = 1 << 20
    let longestLine: Int
    var validator = UTF8Validator()
    var stretch = 0

    init(longestLine: Int) {
        self.longestLine = longestLine
    }

    /// An answer if one is known after these bytes, else nil (read on).
    mutating func feed(_ base: UnsafePointer<UInt8>, count: Int, offset: Int64) -> Bool? {
        if validator.feed(base, count: count, offset: offset) != nil { return false }
        // The last line break of the chunk, searched from its end (near it in any CSV file).
        var i = count - 1
        while i >= 0, base[i] != UInt8(ascii: "\n"), base[i] != UInt8(ascii: "\r") { i -= 1 }
        stretch = i >= 0 ? count - 1 - i : stretch + count
        return stretch > longestLine ? true : nil
    }

    func finish() -> Bool {
        validator.finish() == nil
    }
}
