// The input of an import: a file or standard input, hashed (SHA-256) on a second thread while the
// import reads it, so the hash costs no wall time.
//
// A regular file is hashed through its own descriptor (pread), so the reader keeps its pre-scan for the
// encoding. Standard input, a named pipe, a socket or a device cannot be read twice: a thread reads it once,
// hashes it and passes it on through a pipe, from which the CSV reader reads.

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
    /// A regular file's size and times when opened: another program writing into it while it is read (an export
    /// rewriting it in place) gave a second reading other bytes than the first, and a hash of neither.
    private var opened: (size: Int64, modified: timespec, changed: timespec)?

    init(path: String) throws {
        self.path = path
        displayName = path
        var source = STDIN_FILENO
        if path != "-" {
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
                throw ImportInputError(message: "\(path): cannot open (\(String(cString: strerror(code))))",
                                       category: code == ENOENT || code == EACCES ? .missingInput : .io)   // sysexits: 66 is missing or unreadable
            }
            var info = stat()
            if fstat(fd, &info) == 0 && (info.st_mode & S_IFMT) == S_IFREG {
                descriptor = fd
                spare = dup(fd)
                size = Int64(info.st_size)
                opened = (Int64(info.st_size), info.st_mtim, info.st_ctim)
                startHashing(regular: fd)
                return
            }
            // A named pipe, a socket or a device: whatever it gives is gone once read, and a second open would
            // be a second reader splitting the stream (garbled lines, records neither imported nor rejected). It is
            // read once, through the same hashing thread as standard input.
            source = fd
        }
        do {
            let source = source
            var fds: [Int32] = [0, 0]
            guard pipe(&fds) == 0 else { throw ImportInputError(message: "\(path): cannot create a pipe: \(String(cString: strerror(errno)))", category: .io) }
            let (readEnd, writeEnd) = (fds[0], fds[1])
            descriptor = readEnd
            size = nil
            let thread = Thread { [self] in
                let hasher = SHA256Hasher()
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate(); close(writeEnd); done.signal() }
                var forwarding = true
                defer { if source != STDIN_FILENO { close(source) } }
                while true {
                    let n = read(source, buffer.baseAddress, buffer.count)
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
        }
    }

    /// A regular file is hashed through a descriptor of its own, by offset (pread), while the reader reads: the
    /// same open file, never the path again (which may have been replaced since).
    private func startHashing(regular fd: Int32) {
        let hashFD = dup(fd)
        let thread = Thread { [self] in
            let hasher = SHA256Hasher()
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate(); if hashFD >= 0 { close(hashFD) }; done.signal() }
            guard hashFD >= 0 else { hashError = errno; return }
            var offset: off_t = 0
            while true {
                let n = pread(hashFD, buffer.baseAddress, buffer.count, offset)
                if n < 0 { if errno == EINTR { continue }; hashError = errno; return }
                if n == 0 { break }
                offset += off_t(n)
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

    /// Whether the input can be read again from the start (a regular file; not standard input, a pipe or a device).
    var canReadAgain: Bool { spare >= 0 }

    /// A new reader from the first byte, for an import that must read its input again; nil for standard input.
    func readerFromStart(options: CSVReader.Options) throws -> CSVReader? {
        guard spare >= 0 else { return nil }
        let fd = dup(spare)
        guard fd >= 0, lseek(fd, 0, SEEK_SET) == 0 else {
            throw ImportInputError(message: "\(displayName): cannot read it again: \(String(cString: strerror(errno)))", category: .io)
        }
        return try CSVReader(fileDescriptor: fd, displayName: displayName, closeWhenDone: true, options: options)
    }

    /// Throws when the regular file was written to since it was opened (its size or times moved). A file replaced
    /// by a rename is another file: the one being read is unchanged, and so is the import.
    func checkUnchanged() throws {
        guard let opened, spare >= 0 else { return }
        var info = stat()
        guard fstat(spare, &info) == 0 else { return }
        let same = Int64(info.st_size) == opened.size
            && info.st_mtim.tv_sec == opened.modified.tv_sec && info.st_mtim.tv_nsec == opened.modified.tv_nsec
            && info.st_ctim.tv_sec == opened.changed.tv_sec && info.st_ctim.tv_nsec == opened.changed.tv_nsec
        if !same {
            throw ImportFailure(lines: ["\(displayName): another program wrote to it while it was being imported; nothing was imported "
                                        + "— import it again once it is written whole"], category: .temporaryFailure)
        }
    }

    deinit {
        if spare >= 0 { close(spare) }
    }

    /// The SHA-256 of every byte of the input; waits for the hashing thread.
    func sha256() throws -> String {
        done.wait()
        done.signal()
        if hashError != 0 {
            throw ImportInputError(message: "\(displayName): cannot read (\(String(cString: strerror(hashError))))", category: .io)
        }
        return digest
    }
}
