// The limit on open files (`ulimit -n`), as a cron job or a service may set it low.
//
// Why this file exists: with few descriptors free, libdispatch — which GRDB's queues use, and which starts a
// worker thread when one of them is released — could not make its epoll descriptor and stopped the process with
// SIGILL (`ulimit -n` 6 to 11, even after `add` had committed), and SQLite's failed opens read as "not a bookkeeper
// store" or "cannot create the store". No library reports the failure to us in time, so every command makes sure
// at its start, before any work, that it has the descriptors it can need, and says so in one line when it has not.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package enum OpenFiles {
    /// The descriptors a command may hold at once beyond standard input, output and error, with room to spare: the
    /// store and its -wal and -shm (3), libdispatch's epoll and event descriptors (2), an input, a rejects file or
    /// an output and its temporary file, the busy note, the input's hash thread, SQLite's temporary files and
    /// libxlsxwriter's — at most 11 at once as measured (an import, an XLSX report), so 24 leaves as many again.
    package static let needed = 24

    /// How many more descriptors this process can open now, counted up to `limit` by opening them (and closing
    /// them again); nil when the probe itself failed for another reason than the limit (no `/` to open).
    static func free(upTo limit: Int) -> Int? {
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        while opened.count < limit {
            let fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if fd < 0 {
                return errno == EMFILE || errno == ENFILE ? opened.count : nil
            }
            opened.append(fd)
        }
        return opened.count
    }

    /// Throws `TooManyOpenFiles` unless `count` more descriptors can be opened now.
    package static func require(_ count: Int = needed) throws {
        guard let free = free(upTo: count), free < count else { return }
        throw TooManyOpenFiles(free: free, needed: count)
    }

    /// The error to report when fewer than `count` descriptors are free now — an open failed for the limit, not for
    /// the file — else nil.
    package static func exhausted(needing count: Int = 3) -> TooManyOpenFiles? {
        guard let free = free(upTo: count), free < count else { return nil }
        return TooManyOpenFiles(free: free)
    }

    /// The soft limit on open files, when there is one.
    static var limit: UInt64? {
        var limits = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max else { return nil }
        return UInt64(limits.rlim_cur)
    }
}

/// Too few file descriptors are free for the command (`ulimit -n` too low, or the system's table full).
package struct TooManyOpenFiles: CategorizedError {
    package let free: Int
    package let needed: Int
    package let limit: UInt64?

    package init(free: Int, needed: Int = OpenFiles.needed) {
        self.free = free
        self.needed = needed
        self.limit = OpenFiles.limit
    }

    package var category: ErrorCategory { .io }
    package var description: String {
        let limitText = limit.map { "the limit on open files (ulimit -n) is \($0), and " } ?? ""
        return "too many open files: \(limitText)bookkeeper needs \(needed) free besides standard input, output and error "
            + "but has \(free) — raise the limit (ulimit -n 1024) or close files the job inherits"
    }
}
