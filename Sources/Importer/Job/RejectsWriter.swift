// The rejects file of `--on-error skip`: the header, then each rejected input line as it was read, with
// one more column, `reason`. The file is UTF-8 (an input read as Windows-1252 is transcoded, so the
// rejects can be fixed and imported again with the same options but the encoding); a rejected record
// that spans several physical lines is written whole. Like every output file it is written to a temporary file
// beside the target, synced and renamed when the import ends, so it is never found half-written.

import CSV
import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class RejectsWriter {
    let path: String
    private let temporaryPath: String
    private let fd: Int32
    private var buffer: [UInt8] = []
    private let delimiter: UInt8
    private(set) var count = 0

    /// Creates (or truncates) the file now, so an unwritable path fails before anything is imported.
    init(path: String, delimiter: UInt8) throws {
        self.path = path
        self.temporaryPath = path + ".partial-\(getpid())"
        self.delimiter = delimiter
        var fd: Int32
        repeat { fd = open(temporaryPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) } while fd < 0 && errno == EINTR
        if fd < 0 {
            throw ImportInputError(message: "\(path): cannot create the rejects file: \(String(cString: strerror(errno)))",
                                   category: .cannotCreateOutput)
        }
        self.fd = fd
        buffer.reserveCapacity(1 << 16)
    }

    func writeHeader(_ raw: String) throws {
        try writeLine(raw, reason: "reason")
    }

    func reject(_ raw: String, reason: String) throws {
        count += 1
        try writeLine(raw, reason: reason)
    }

    private func writeLine(_ raw: String, reason: String) throws {
        buffer += raw.utf8
        buffer.append(delimiter)
        // The reason is quoted when it must be, as CSVWriter quotes.
        let special: Set<UInt8> = [delimiter, UInt8(ascii: "\""), 10, 13]
        let needsQuotes = reason.utf8.contains { special.contains($0) }
        if needsQuotes {
            buffer.append(UInt8(ascii: "\""))
            for b in reason.utf8 {
                buffer.append(b)
                if b == UInt8(ascii: "\"") { buffer.append(b) }
            }
            buffer.append(UInt8(ascii: "\""))
        } else {
            buffer += reason.utf8
        }
        buffer.append(10)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        var written = 0
        while written < buffer.count {
            let n = buffer.withUnsafeBytes { write(fd, $0.baseAddress! + written, $0.count - written) }
            if n < 0 {
                if errno == EINTR { continue }
                throw ImportInputError(message: "\(path): cannot write: \(String(cString: strerror(errno)))", category: .io)
            }
            written += n
        }
        buffer.removeAll(keepingCapacity: true)
    }

    /// Syncs the file, renames it over the target and syncs the folder.
    func close() throws {
        do {
            try flush()
            guard fsync(fd) == 0 else {
                throw ImportInputError(message: "\(path): cannot write: \(String(cString: strerror(errno)))", category: .io)
            }
            _ = Glibc.close(fd)
            guard rename(temporaryPath, path) == 0 else {
                throw ImportInputError(message: "\(path): cannot create the rejects file: \(String(cString: strerror(errno)))",
                                       category: .cannotCreateOutput)
            }
        } catch {
            unlink(temporaryPath)
            throw error
        }
        let folder = open(URL(fileURLWithPath: path).deletingLastPathComponent().path, O_RDONLY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            _ = Glibc.close(folder)
        }
    }

    /// Removes the file, and an older rejects file at the target (nothing was rejected, or it was a dry run).
    func discard() {
        _ = Glibc.close(fd)
        unlink(temporaryPath)
        unlink(path)
    }
}
