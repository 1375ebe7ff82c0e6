// The input of an import: a file or standard input, hashed (SHA-256) on a second thread while the
// import reads it, so the hash costs no wall time.
//
// A regular file is hashed through its own descriptor (pread), so the reader keeps its pre-scan for the
// encoding. Standard input cannot be read twice: a thread reads it, hashes it and passes it on through a
// pipe, from which the CSV reader reads.

import CSV
import FileOutput
import Foundation
import ObjectStore
#if canImport(Glibc)
import Glibc
#endif

/// A problem with an input or output file, categorised for the exit status (66, 73, 74).
package struct ImportInputError: CategorizedError, Equatable {
    package let message: String
    package let category: ErrorCategory

    package init(message: String, category: ErrorCategory) {
        self.message = message
        self.category = category
    }

    package var description: String { message }
}

final class InputFile: @unchecked Sendable {
    let path: String
    let displayName: String
    /// Bytes in the input when known (a regular file), for the progress bar.
    let size: Int64?
    let descriptor: Int32
    private var hashThread: Thread?
    private let done = DispatchSemaphore(value: 0)
    private var digest = ""
    private var hashError: Int32 = 0
    /// A second descriptor of a regular file, so that it can be read again from the start (-1: it cannot).
    private var spare: Int32 = -1

    init(path: String) throws {
        self.path = path
        displayName = path
        if path == "-" {
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw ImportInputError(message: "-: cannot create a pipe: \(String(cString: strerror(errno)))", category: .io) }
            let (readEnd, writeEnd) = (fds[0], fds[1])
            descriptor = readEnd
            size = nil
            let thread = Thread { [self] in
                let hasher = SHA256Hasher()
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate(); close(writeEnd); done.signal() }
                var forwarding = true
                while true {
                    let n = read(STDIN_FILENO, buffer.baseAddress, buffer.count)
                    if n < 0 { if errno == EINTR { continue }; hashError = errno; break }
                    if n == 0 { break }
                    hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
                    // A failure means the reader stopped: keep hashing, stop forwarding.
                    if forwarding && writeAll(writeEnd, UnsafeRawBufferPointer(rebasing: buffer[0..<n])) != 0 { forwarding = false }
                }
                digest = hasher.finish()
            }
            hashThread = thread
            signal(SIGPIPE, SIG_IGN)
            thread.start()
            return
        }
        // No output of this run may replace the file being read (`--rejects` equal to the input, through any link).
        ProtectedFiles.protect(path, as: "the input being imported")
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw ImportInputError(message: "\(path): no such file", category: .missingInput)
        }
        if isDirectory.boolValue { throw ImportInputError(message: "\(path): is a directory, not a CSV file", category: .missingInput) }
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        if fd < 0 {
            let code = errno
            throw ImportInputError(message: "\(path): cannot open: \(String(cString: strerror(code)))",
                                   category: code == ENOENT || code == EACCES ? .missingInput : .io)   // sysexits: 66 is missing or unreadable
        }
        descriptor = fd
        spare = dup(fd)
        var info = stat()
        size = fstat(fd, &info) == 0 ? Int64(info.st_size) : nil
        let hashFD = open(path, O_RDONLY | O_CLOEXEC)
        let thread = Thread { [self] in
            let hasher = SHA256Hasher()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate(); if hashFD >= 0 { close(hashFD) }; done.signal() }
            guard hashFD >= 0 else { hashError = errno; return }
            while true {
                let n = read(hashFD, buffer.baseAddress, buffer.count)
                if n < 0 { if errno == EINTR { continue }; hashError = errno; return }
                if n == 0 { break }
                hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<n]))
            }
            digest = hasher.finish()
        }
        hashThread = thread
        thread.start()
    }

    /// The CSV reader over the input (which owns and closes the descriptor).
    func reader(options: CSVReader.Options) throws -> CSVReader {
        try CSVReader(fileDescriptor: descriptor, displayName: displayName, closeWhenDone: true, options: options)
    }

    /// A new reader from the first byte, for an import that must read its input again; nil for standard input.
    func readerFromStart(options: CSVReader.Options) throws -> CSVReader? {
        guard spare >= 0 else { return nil }
        let fd = dup(spare)
        guard fd >= 0, lseek(fd, 0, SEEK_SET) == 0 else {
            throw ImportInputError(message: "\(displayName): cannot read it again: \(String(cString: strerror(errno)))", category: .io)
        }
        return try CSVReader(fileDescriptor: fd, displayName: displayName, closeWhenDone: true, options: options)
    }

    deinit {
        if spare >= 0 { close(spare) }
    }

    /// The SHA-256 of every byte of the input; waits for the hashing thread.
    func sha256() throws -> String {
        done.wait()
        done.signal()
        if hashError != 0 {
            throw ImportInputError(message: "\(displayName): cannot read: \(String(cString: strerror(hashError)))", category: .io)
        }
        return digest
    }
}
