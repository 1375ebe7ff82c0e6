// Where the writer's bytes go: a buffered file descriptor (a path, standard output) or memory.
//
// Why this file exists: exports and reports write millions of small fields; one write(2) per field
// (or FileHandle per line) would dominate. The sink collects bytes in a 256 KiB buffer and writes
// it whole, retrying partial writes and EINTR.

import FileOutput
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class ByteSink {
    enum Target {
        case file(descriptor: Int32, closes: Bool)
        /// A file of the one output module: committed (renamed into place) on `close()`, discarded if never closed.
        case output(OutputFile)
        case memory
    }

    let target: Target
    private(set) var buffer: UnsafeMutablePointer<UInt8>
    private(set) var capacity: Int
    private(set) var count = 0
    /// Everything written so far, for the memory target.
    private(set) var data = Data()
    private var closed = false

    init(target: Target, capacity: Int = 256 << 10) {
        self.target = target
        self.capacity = max(capacity, 16)
        buffer = .allocate(capacity: self.capacity)
    }

    deinit {
        buffer.deallocate()
        if case let .file(fd, closes) = target, closes, !closed { _ = Glibc.close(fd) }
    }

    /// Makes room for `needed` more bytes, flushing (or growing, for one huge field) as needed.
    @inline(__always)
    func reserve(_ needed: Int) throws(Errno) {
        if capacity - count >= needed { return }
        try flush()
        if capacity < needed {
            buffer.deallocate()
            capacity = needed
            buffer = .allocate(capacity: capacity)
        }
    }

    @inline(__always)
    func append(_ byte: UInt8) {
        buffer[count] = byte
        count &+= 1
    }

    @inline(__always)
    func append(_ bytes: UnsafePointer<UInt8>, count n: Int) {
        (buffer + count).update(from: bytes, count: n)
        count &+= n
    }

    func flush() throws(Errno) {
        guard count > 0 else { return }
        switch target {
        case .memory:
            data.append(buffer, count: count)
        case let .file(fd, _):
            let code = writeAll(fd, UnsafeRawBufferPointer(start: buffer, count: count))
            if code != 0 { throw Errno(code: code) }
        case let .output(file):
            let code = writeAll(file.fileDescriptor, UnsafeRawBufferPointer(start: buffer, count: count))
            if code != 0 { throw Errno(code: code) }
        }
        count = 0
    }

    func close() throws(Errno) {
        try flush()
        if case let .file(fd, closes) = target, closes, !closed {
            closed = true
            if Glibc.close(fd) != 0 { throw Errno(code: errno) }
        }
    }
}
