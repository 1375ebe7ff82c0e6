// A small note beside another file, such as the store's busy note (`<store>-activity`).
//
// Why this file exists: a note is written into a folder other people can write to. A symlink of that name once
// redirected the write into another file, and a directory of that name was deleted recursively. So a note is
// created exclusively and without following symlinks, and removed only while the name is still the very file
// this process created. A note left by a process that died is recognised by its content (our own format, a pid
// that is gone or now belongs to a program started at another time) and is the only thing ever replaced.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package final class SideFile {
    package let path: String
    private let device: dev_t
    private let inode: ino_t
    private var removed = false
    /// Its slot in the table of files removed on SIGINT/SIGTERM/SIGHUP.
    private var slot: Int?

    private init(path: String, device: dev_t, inode: ino_t) {
        self.path = path
        self.device = device
        self.inode = inode
    }

    /// Creates the note `path` holding this process's identity and `text` (one line). Returns nil when it
    /// cannot be created, or when something that is not a stale note of ours has that name (left untouched).
    package static func createNote(at path: String, text: String) -> SideFile? {
        let identity = ProcessIdentity.current.map { "\($0.pid) \($0.startTime)" } ?? "\(getpid())"
        let bytes = Array("\(identity)\n\(text.replacingOccurrences(of: "\n", with: " "))\n".utf8)
        for attempt in 0..<2 {
            // Written whole under a private name, then linked to its name: a reader never finds it empty, link(2)
            // fails when the name exists (a file, a folder or a symlink, never followed), and the step is one
            // with its registration for removal on a signal.
            var result: (note: SideFile?, code: Int32) = (nil, 0)
            TemporaryFileCleanup.withSignalsBlocked {
                let temporary = path + ".\(getpid()).tmp"
                var fd: Int32
                repeat {
                    fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
                } while fd < 0 && errno == EINTR
                guard fd >= 0 else { result.code = errno; return }
                defer { _ = close(fd); _ = unlink(temporary) }
                var status = stat()
                guard bytes.withUnsafeBytes({ writeAll(fd, $0) }) == 0, fstat(fd, &status) == 0 else { result.code = EIO; return }
                guard link(temporary, path) == 0 else { result.code = errno; return }
                let note = SideFile(path: path, device: status.st_dev, inode: status.st_ino)
                note.slot = TemporaryFileCleanup.register(path)
                result.note = note
            }
            if let note = result.note { return note }
            guard result.code == EEXIST, attempt == 0, isStaleNote(at: path) else { return nil }
            _ = unlink(path)
        }
        return nil
    }

    /// Removes the note if the name still is the file created here: the same inode, and (since a file made after
    /// ours was removed may get its inode number) still naming this process.
    package func remove() {
        guard !removed else { return }
        removed = true
        if let slot { TemporaryFileCleanup.unregister(slot) }
        var status = stat()
        guard lstat(path, &status) == 0, status.st_dev == device, status.st_ino == inode,
              let (identity, _) = SideFile.readNote(at: path), identity.pid == getpid(),
              identity.startTime == ProcessIdentity.current?.startTime else { return }
        _ = unlink(path)
    }

    /// The note's text if it was written by a process that is still running, else nil.
    package static func liveNote(at path: String) -> String? {
        guard let (identity, text) = readNote(at: path) else { return nil }
        return identity.isRunning ? text : nil
    }

    /// A regular file in our note format whose writer is gone.
    static func isStaleNote(at path: String) -> Bool {
        guard let (identity, _) = readNote(at: path) else { return false }
        return !identity.isRunning
    }

    /// Reads a note without following symlinks: a regular file of at most 4 KiB, `PID [START]\nTEXT\n`.
    static func readNote(at path: String) -> (ProcessIdentity, String)? {
        var fd: Int32
        repeat { fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) } while fd < 0 && errno == EINTR
        guard fd >= 0 else { return nil }
        defer { _ = close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_size <= 4096 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0, let text = String(bytes: buffer[..<n], encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count >= 2 else { return nil }
        let fields = lines[0].split(separator: " ")
        guard (1...2).contains(fields.count), let pid = Int32(fields[0]), pid > 0 else { return nil }
        let start = fields.count == 2 ? UInt64(fields[1]) : nil
        if fields.count == 2 && start == nil { return nil }
        return (ProcessIdentity(pid: pid, startTime: start ?? 0, knowsStart: start != nil), String(lines[1]))
    }
}

/// A process as the kernel knows it: its pid and its start time (clock ticks since boot), which together
/// name one process even after the pid is reused.
package struct ProcessIdentity: Equatable, Sendable {
    package let pid: Int32
    package let startTime: UInt64
    var knowsStart = true

    package static var current: ProcessIdentity? {
        startTime(of: getpid()).map { ProcessIdentity(pid: getpid(), startTime: $0) }
    }

    /// Field 22 of /proc/PID/stat (after the command name, which may hold spaces and parentheses).
    static func startTime(of pid: Int32) -> UInt64? {
        guard let data = FileManager.default.contents(atPath: "/proc/\(pid)/stat"),
              let text = String(data: data, encoding: .utf8),
              let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); start time is field 22.
        guard fields.count > 19 else { return nil }
        return UInt64(fields[19])
    }

    /// Whether this very process still runs (not merely a process with the same pid).
    package var isRunning: Bool {
        guard kill(pid, 0) == 0 || errno == EPERM else { return false }
        guard knowsStart else { return true }
        return ProcessIdentity.startTime(of: pid) == startTime
    }
}
