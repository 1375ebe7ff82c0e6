// An output file that appears whole or not at all, or a device, pipe or socket written in place.
//
// Why this file exists: reports, exports, rejects and backups go to accountants and pipelines that pick files
// up by name; a command that failed halfway must neither leave a truncated file nor clobber yesterday's good
// one, and must never replace the store, the input or a device. Every command writes through this type:
// - the target is resolved once (`OutputTarget`): protected files, folders, block devices and broken links
//   are refused before anything is written;
// - a regular target is written to `.NAME.RANDOM.tmp` beside the file it names (beside a symlink's target,
//   so the link stays a link), synced, renamed over it, and the folder synced so the rename survives a crash;
//   the new file keeps the permissions (and, for root, the owner) of the file it replaces;
// - a device, FIFO, socket or inherited descriptor is written directly: there is nothing to rename;
// - on an error, on `discard()`, on deinit without `commit()`, and on SIGINT/SIGTERM/SIGHUP
//   (`TemporaryFileCleanup`), the temporary file is removed: a failed command removes only what it created.
// Writers that need a path of their own (libxlsxwriter, SQLite's backup) ask for `assembledAtPath`: they write
// the file at `assemblyPath`, which becomes the output at commit (renamed into place, or copied into a device).

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package final class OutputFile {
    /// The path as given, for messages (`-` for standard output).
    package let displayName: String
    package let target: OutputTarget
    /// Where `write` sends bytes: the temporary file, the device, or the inherited descriptor.
    package let fileDescriptor: Int32
    /// The regular file a path-based writer assembles the output in (nil unless asked for).
    package let assemblyPath: String?
    /// The temporary file, for regular targets and assembled outputs.
    package let temporaryPath: String?
    /// The descriptor of the device or socket itself when the output is assembled in a temporary file first.
    private var destination: Int32 = -1
    private var ownsDestination = false
    private var slot: Int?
    /// The temporary file exists and is ours to remove.
    private var temporaryLive = false
    private var finished = false
    /// Checks run before an output is made final, each throwing when what was written must not become it: the
    /// library's own, never a caller's — ObjectStore registers there, once, that a store read without locks stayed
    /// one state (Store+SteadyRead), when it first reads one so. `package`: no caller outside the package sets it.
    nonisolated(unsafe) private static var commitChecks: [@Sendable () throws -> Void] = []
    private static let commitChecksLock = NSLock()

    /// Adds a check that every output runs before it is made final (see `commitChecks`).
    package static func addCommitCheck(_ check: @escaping @Sendable () throws -> Void) {
        commitChecksLock.lock()
        defer { commitChecksLock.unlock() }
        commitChecks.append(check)
    }

    private static func runCommitChecks() throws {
        commitChecksLock.lock()
        let checks = commitChecks
        commitChecksLock.unlock()
        for check in checks { try check() }
    }
    /// Whether an output of this process is its standard output (`-`, `/dev/stdout`, `/dev/fd/1`): then nothing
    /// else may be written there.
    nonisolated(unsafe) package private(set) static var standardOutputIsAResult = false
    /// Runs at commit just before a regular file is renamed into place, and throws when it must not be: a backup
    /// checks there that no stale SQLite companion has appeared beside its target.
    package var beforeReplacing: (() throws -> Void)?

    /// Resolves `path` and opens the output. `assembledAtPath`: the output is assembled in a regular file at
    /// `assemblyPath` by a writer that opens it by name (for a device or pipe, a temporary file in $TMPDIR).
    /// `creatingThroughDanglingLink`: see `OutputTarget.resolve`.
    package init(path: String, assembledAtPath: Bool = false, creatingThroughDanglingLink: Bool = false) throws {
        displayName = path
        target = try OutputTarget.resolve(path, creatingThroughDanglingLink: creatingThroughDanglingLink)
        switch target {
        case let .regular(resolved):
            let (fd, temporary, slot) = try OutputFile.createTemporary(beside: resolved, displayName: path)
            fileDescriptor = fd
            temporaryPath = temporary
            self.slot = slot
            assemblyPath = assembledAtPath ? temporary : nil
            var existing = stat()
            if stat(resolved, &existing) == 0, existing.st_mode & S_IFMT == S_IFREG {
                _ = fchmod(fd, existing.st_mode & 0o7777)
                if geteuid() == 0 { _ = fchown(fd, existing.st_uid, existing.st_gid) }
            }
        case let .special(resolved, isSocket):
            let out = try OutputFile.openSpecial(resolved, isSocket: isSocket, displayName: path)
            if assembledAtPath {
                let (fd, temporary, slot) = try OutputFile.createScratch(displayName: path, closing: out)
                fileDescriptor = fd
                temporaryPath = temporary
                assemblyPath = temporary
                self.slot = slot
                destination = out
            } else {
                fileDescriptor = out
                temporaryPath = nil
                assemblyPath = nil
            }
            ownsDestination = true
        case let .descriptor(fd):
            if fd == STDOUT_FILENO { OutputFile.standardOutputIsAResult = true }
            if assembledAtPath {
                let (scratch, temporary, slot) = try OutputFile.createScratch(displayName: path, closing: -1)
                fileDescriptor = scratch
                temporaryPath = temporary
                assemblyPath = temporary
                self.slot = slot
                destination = fd
            } else {
                fileDescriptor = fd
                temporaryPath = nil
                assemblyPath = nil
            }
        }
        temporaryLive = temporaryPath != nil
    }

    deinit {
        if !finished { discard() }
    }

    /// Whether the path as given is a symbolic link (its target is what is replaced).
    package var pathIsSymlink: Bool {
        var status = stat()
        return lstat(displayName, &status) == 0 && status.st_mode & S_IFMT == S_IFLNK
    }

    /// True when the output is a file put in place at commit (false for devices, pipes and descriptors).
    package var isReplacedAtCommit: Bool {
        if case .regular = target { return true }
        return false
    }

    /// Writes all the bytes (through EINTR and partial writes).
    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        let code = writeAll(fileDescriptor, bytes)
        if code != 0 { throw FileOutputError.system(displayName, "write", code, kind: .io) }
    }

    package func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    /// Syncs what was written so far to a regular file (so that a full disk shows before the caller commits
    /// anything else); a no-op for devices and descriptors.
    package func sync() throws {
        guard case .regular = target, !finished else { return }
        try retryingEINTR("sync") { fsync(fileDescriptor) }
    }

    /// Makes the output final: a regular file is synced and renamed into place, its folder synced; an assembled
    /// output is copied into its device. On an error before the rename the temporary file is removed and the
    /// target left as it was.
    package func commit() throws {
        precondition(!finished, "OutputFile committed or discarded twice")
        do {
            try OutputFile.runCommitChecks()
            switch target {
            case let .regular(resolved):
                try retryingEINTR("sync") { fsync(fileDescriptor) }
                finished = true
                if Glibc.close(fileDescriptor) != 0 && errno != EINTR {
                    throw FileOutputError.system(displayName, "close", errno, kind: .io)
                }
                try beforeReplacing?()
                // The folder may have changed since the target was resolved: never rename over a protected file.
                var now = stat()
                if lstat(resolved, &now) == 0 { try OutputTarget.refuseProtected(displayName, status: now, canonical: resolved) }
                if rename(temporaryPath!, resolved) != 0 {
                    throw FileOutputError.system(displayName, "replace", errno, kind: .io)
                }
                temporaryLive = false
                if let slot { TemporaryFileCleanup.unregister(slot) }
                slot = nil
                try syncFolder(of: resolved)
            case .special, .descriptor:
                if let temporaryPath {
                    try copyAssembled(temporaryPath)
                    finished = true
                    _ = Glibc.close(fileDescriptor)
                    removeTemporaryFile()
                } else {
                    finished = true
                }
                if ownsDestination {
                    let fd = destination >= 0 ? destination : fileDescriptor
                    destination = -1
                    if Glibc.close(fd) != 0 && errno != EINTR {
                        throw FileOutputError.system(displayName, "write", errno, kind: .io)
                    }
                }
            }
        } catch {
            discard()
            throw error
        }
    }

    /// Closes and removes the temporary file; the target is untouched. Safe to call more than once.
    package func discard() {
        if !finished {
            finished = true
            if temporaryPath != nil || ownsDestination { _ = Glibc.close(fileDescriptor) }
        }
        removeTemporaryFile()
        if destination >= 0, ownsDestination { _ = Glibc.close(destination) }
        destination = -1
    }

    /// After `discard()`: removes the regular file at the target (through a symbolic link, the file it points to),
    /// for a command whose result is "no file" (an import that rejected nothing removes an older rejects file).
    /// Devices and descriptors are left alone. Returns whether a file was removed.
    @discardableResult
    package func removeTarget() -> Bool {
        discard()
        if case let .regular(resolved) = target {
            var now = stat()
            guard lstat(resolved, &now) == 0, now.st_mode & S_IFMT == S_IFREG,
                  ProtectedFiles.match(status: now, canonical: resolved) == nil else { return false }
            return unlink(resolved) == 0
        }
        return false
    }

    private func removeTemporaryFile() {
        if temporaryLive, let temporaryPath { _ = unlink(temporaryPath) }
        temporaryLive = false
        if let slot { TemporaryFileCleanup.unregister(slot) }
        slot = nil
    }

    private func copyAssembled(_ path: String) throws {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw FileOutputError.system(displayName, "read back what was written", errno, kind: .io) }
        defer { _ = Glibc.close(fd) }
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                throw FileOutputError.system(displayName, "read back what was written", errno, kind: .io)
            }
            if n == 0 { return }
            let code = chunk.withUnsafeBytes { writeAll(destination, UnsafeRawBufferPointer(rebasing: $0[..<n])) }
            if code != 0 { throw FileOutputError.system(displayName, "write", code, kind: .io) }
        }
    }

    private func syncFolder(of path: String) throws {
        let folder = splitPath(path).folder
        var fd: Int32
        repeat { fd = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw FileOutputError.system(displayName, "sync its folder", errno, kind: .io) }
        defer { _ = Glibc.close(fd) }
        try retryingEINTR("sync its folder") { fsync(fd) }
    }

    private func retryingEINTR(_ operation: String, _ call: () -> Int32) throws {
        while call() != 0 {
            if errno == EINTR { continue }
            throw FileOutputError.system(displayName, operation, errno, kind: .io)
        }
    }

    // MARK: Opening

    /// Creates `.NAME.RANDOM.tmp` beside `resolved`, registered for removal on a signal in the same step.
    private static func createTemporary(beside resolved: String, displayName: String) throws -> (Int32, String, Int?) {
        let (folder, name) = splitPath(resolved)
        let prefix = folder == "/" ? "/" : folder + "/"
        for _ in 0..<100 {
            let random = String(UInt64.random(in: 0...UInt64.max), radix: 36)
            let candidate = prefix + "." + String(name.prefix(100)) + "." + random + ".tmp"
            var registered: Int?
            let (fd, code): (Int32, Int32) = TemporaryFileCleanup.withSignalsBlocked {
                var fd: Int32
                repeat {
                    fd = open(candidate, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o666)
                } while fd < 0 && errno == EINTR
                let code = errno
                if fd >= 0 { registered = TemporaryFileCleanup.register(candidate) }
                return (fd, code)
            }
            if fd >= 0 { return (fd, candidate, registered) }
            if code != EEXIST { throw FileOutputError.system(displayName, "create", code, kind: .cannotCreate) }
        }
        throw FileOutputError.system(displayName, "create", EEXIST, kind: .cannotCreate)
    }

    /// A temporary file in $TMPDIR for an output assembled before it is copied into a device.
    private static func createScratch(displayName: String, closing other: Int32) throws -> (Int32, String, Int?) {
        var folder = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        if folder.isEmpty { folder = "/tmp" }
        while folder.count > 1, folder.hasSuffix("/") { folder.removeLast() }
        do {
            return try createTemporary(beside: folder + "/bookkeeper-output", displayName: displayName)
        } catch {
            if other >= 0 { _ = Glibc.close(other) }
            throw error
        }
    }

    private static func openSpecial(_ path: String, isSocket: Bool, displayName: String) throws -> Int32 {
        if isSocket {
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
            guard fd >= 0 else { throw FileOutputError.system(displayName, "create", errno, kind: .cannotCreate) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            let bytes = Array(path.utf8)
            guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
                _ = Glibc.close(fd)
                throw FileOutputError.system(displayName, "create", ENAMETOOLONG, kind: .cannotCreate)
            }
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, b) in bytes.enumerated() { raw[i] = b }
                raw[bytes.count] = 0
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else {
                let code = errno
                _ = Glibc.close(fd)
                throw FileOutputError.system(displayName, "create", code, kind: .cannotCreate)
            }
            return fd
        }
        var fd: Int32
        repeat { fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { throw FileOutputError.system(displayName, "create", errno, kind: .cannotCreate) }
        return fd
    }
}
