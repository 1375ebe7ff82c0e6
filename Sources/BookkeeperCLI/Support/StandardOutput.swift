import FileOutput
import Foundation
import ObjectStore
#if canImport(Glibc)
import Glibc
#endif

// Results go to stdout, and a result that did not reach its file is a failure, not a success: a full disk,
// a file-size limit (`ulimit -f`; SIGXFSZ is ignored, see Interruption) or /dev/full must end with a
// one-line message and status 74, never with status 0 and a truncated file, nor with a crash.

/// Standard output could not be written.
struct StandardOutputError: CategorizedError {
    let errno: Int32
    var category: ErrorCategory { .io }
    var description: String { "standard output: cannot write (\(String(cString: strerror(errno))))" }
}

/// Buffered standard output for streamed results, written with write(2) so that a failure is an error.
struct StandardOutput {
    private var buffer: [UInt8] = []

    mutating func write(_ text: String) throws {
        buffer.append(contentsOf: text.utf8)
        if buffer.count >= 1 << 16 { try flush() }
    }

    mutating func flush() throws {
        let code = buffer.withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
        if code != 0 { throw StandardOutputError(errno: code) }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Flushes what `print` left in the C library's buffers; throws if any of it could not be written. (All
    /// streams: Swift 6 does not let us name `stdout`. A write that failed earlier left its bytes in the buffer,
    /// so this fails too.)
    static func flushPrinted() throws {
        if fflush(nil) != 0 {
            throw StandardOutputError(errno: errno == 0 ? EIO : errno)
        }
        if let failed = earlierFailure { throw StandardOutputError(errno: failed) }
    }

    /// Flushes a line printed now (a confirmation that must be out before the next step); a failure is kept for
    /// `flushPrinted`, since a failed fflush drops its bytes and would not fail again.
    static func flushLine() {
        if fflush(nil) != 0, earlierFailure == nil { earlierFailure = errno == 0 ? EIO : errno }
    }

    nonisolated(unsafe) private static var earlierFailure: Int32?
}
