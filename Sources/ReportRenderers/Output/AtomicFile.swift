// A file that appears whole or not at all.
//
// Why this file exists: reports go to accountants and pipelines that pick files up by name; a
// report that failed halfway must not leave a truncated file behind, nor clobber yesterday's good
// one. Every renderer writes through this type: the bytes go to a temporary file in the target's
// directory (`.NAME.RANDOM.tmp`, so the rename stays on one file system), which is fsync'd and
// renamed over the target; then the directory is fsync'd so the rename itself survives a crash.
// On an error, on `discard()`, on deinit without `commit()`, and on SIGINT/SIGTERM/SIGHUP
// (`TemporaryFileCleanup`), the temporary file is removed and an existing target is left as it was.
//
// The new file gets the permissions of the file it replaces, or 0666 less the umask.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class AtomicFile {
    /// The target path, as given.
    public let path: String
    /// The temporary file being written, beside the target.
    public let temporaryPath: String
    /// Open for writing until `commit()` or `discard()`.
    public let fileDescriptor: Int32
    private let directory: String
    private var slot: Int?
    private var finished = false
    /// Runs before a file is renamed into place and throws when what was written must not become the target:
    /// the CLI checks there that a store read without locks stayed one state (ObjectStore's Store+SteadyRead).
    nonisolated(unsafe) public static var confirmBeforeCommit: (() throws -> Void)?

    /// Creates the temporary file. Throws `ReportRenderError` naming `path` (`cannot create (…)`).
    public init(path: String) throws {
        self.path = path
        let slash = path.lastIndex(of: "/")
        let base = slash.map { String(path[path.index(after: $0)...]) } ?? path
        directory = slash.map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
        let prefix = slash.map { String(path[...$0]) } ?? ""
        guard !base.isEmpty, base != ".", base != ".." else {
            throw ReportRenderError(file: path, kind: .io(operation: "create", errno: EISDIR))
        }

        var fd: Int32 = -1
        var candidate = ""
        var registered: Int?
        for _ in 0..<100 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            candidate = prefix + "." + String(base.prefix(100)) + "." + random + ".tmp"
            // Created and registered for removal on a signal as one step.
            let code: Int32
            (fd, code) = TemporaryFileCleanup.withSignalsBlocked {
                var fd: Int32
                repeat {
                    fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o666)
                } while fd < 0 && errno == EINTR
                let code = errno
                if fd >= 0 { registered = TemporaryFileCleanup.register(candidate) }
                return (fd, code)
            }
            if fd >= 0 { break }
            if code != EEXIST { throw ReportRenderError(file: path, kind: .io(operation: "create", errno: code)) }
        }
        guard fd >= 0 else { throw ReportRenderError(file: path, kind: .io(operation: "create", errno: EEXIST)) }
        temporaryPath = candidate
        fileDescriptor = fd
        slot = registered

        var existing = stat()
        if stat(path, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG {
            _ = fchmod(fd, existing.st_mode & 0o7777)
        }
    }

    deinit {
        if !finished { discard() }
    }

    /// Writes all the bytes (retrying partial writes and EINTR).
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var base = bytes.baseAddress else { return }
        var left = bytes.count
        while left > 0 {
            let n = Glibc.write(fileDescriptor, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw ReportRenderError(file: path, kind: .io(operation: "write", errno: errno))
            }
            base += n
            left -= n
        }
    }

    /// Syncs the temporary file, renames it over the target and syncs the directory. On an error
    /// before the rename, the temporary file is removed and the target left as it was.
    public func commit() throws {
        precondition(!finished, "AtomicFile committed or discarded twice")
        do {
            try AtomicFile.confirmBeforeCommit?()
            try retryingEINTR("sync") { fsync(fileDescriptor) }
        } catch {
            discard()
            throw error
        }
        finished = true
        let closed = Glibc.close(fileDescriptor)
        if closed != 0 && errno != EINTR {
            let code = errno
            removeTemporaryFile()
            throw ReportRenderError(file: path, kind: .io(operation: "close", errno: code))
        }
        if rename(temporaryPath, path) != 0 {
            let code = errno
            removeTemporaryFile()
            throw ReportRenderError(file: path, kind: .io(operation: "replace", errno: code))
        }
        if let slot { TemporaryFileCleanup.unregister(slot) }
        slot = nil

        var dirFD: Int32
        repeat { dirFD = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } while dirFD < 0 && errno == EINTR
        guard dirFD >= 0 else {
            throw ReportRenderError(file: path, kind: .io(operation: "sync its directory", errno: errno))
        }
        defer { _ = Glibc.close(dirFD) }
        try retryingEINTR("sync its directory") { fsync(dirFD) }
    }

    /// Closes and removes the temporary file; the target is untouched. Safe to call more than once.
    public func discard() {
        guard !finished else { return }
        finished = true
        _ = Glibc.close(fileDescriptor)
        removeTemporaryFile()
    }

    private func removeTemporaryFile() {
        _ = unlink(temporaryPath)
        if let slot { TemporaryFileCleanup.unregister(slot) }
        slot = nil
    }

    private func retryingEINTR(_ operation: String, _ call: () -> Int32) throws {
        while call() != 0 {
            if errno == EINTR { continue }
            throw ReportRenderError(file: path, kind: .io(operation: operation, errno: errno))
        }
    }
}
