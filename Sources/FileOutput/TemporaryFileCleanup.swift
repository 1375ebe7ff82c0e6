// Temporary files removed when the process is stopped by a signal.
//
// Why this file exists: an accountant must never open a half-written report. `OutputFile` writes
// beside the target and renames at the end, and removes its temporary file on any error; but a
// cron job killed by SIGTERM (or a user's Ctrl-C, or a closed terminal's SIGHUP) runs no Swift
// error path. So the paths of the temporary files being written are kept in a fixed table that a
// signal handler can read without allocating, and the handler unlinks them, puts back the handler
// it replaced and raises the signal again, so the process ends (or the previous handler runs) as
// it would have.
//
// The handlers are installed when the first temporary file is registered, for SIGINT, SIGTERM,
// SIGHUP and SIGXCPU, except for signals that are ignored (nohup). A program that installs its own handlers
// for these signals afterwards replaces ours: it should then call `removeRegisteredFiles()` itself.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package enum TemporaryFileCleanup {
    /// At most this many files at once are cleaned up on a signal (more are still written and
    /// removed on errors as usual).
    package static let slotCount = 64
    /// Longest path (in bytes, with its terminating NUL) that can be registered.
    package static let slotBytes = 4096
    /// SIGXCPU too: a soft limit on CPU time (`ulimit -S -t`) ends a cron job with it, and the files must go.
    package static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGXCPU]

    // Fixed memory, allocated once and never freed: the signal handler only reads it.
    nonisolated(unsafe) private static let paths: UnsafeMutablePointer<CChar> = {
        let memory = UnsafeMutablePointer<CChar>.allocate(capacity: slotCount * slotBytes)
        memory.initialize(repeating: 0, count: slotCount * slotBytes)
        return memory
    }()
    nonisolated(unsafe) private static let inUse: UnsafeMutablePointer<Int32> = {
        let memory = UnsafeMutablePointer<Int32>.allocate(capacity: slotCount)
        memory.initialize(repeating: 0, count: slotCount)
        return memory
    }()
    #if canImport(Glibc)
    nonisolated(unsafe) fileprivate static let previousActions: UnsafeMutablePointer<sigaction> = {
        let memory = UnsafeMutablePointer<sigaction>.allocate(capacity: 65)
        memory.initialize(repeating: sigaction(), count: 65)
        return memory
    }()
    #endif
    private static let lock = NSLock()

    /// Registers a path to unlink on a signal; returns its slot, or nil when the table is full or
    /// the path too long (the file is then only removed on errors, not on signals).
    package static func register(_ path: String) -> Int? {
        _ = handlersInstalled
        let bytes = Array(path.utf8)
        guard bytes.count < slotBytes, !bytes.contains(0) else { return nil }
        lock.lock()
        defer { lock.unlock() }
        guard let slot = (0..<slotCount).first(where: { inUse[$0] == 0 }) else { return nil }
        let base = paths + slot * slotBytes
        for (i, byte) in bytes.enumerated() { base[i] = CChar(bitPattern: byte) }
        base[bytes.count] = 0
        inUse[slot] = 1
        return slot
    }

    /// Runs `body` with the cleanup signals blocked, so that creating a file and registering it
    /// happen together: a signal arrives before both or after both.
    package static func withSignalsBlocked<Result>(_ body: () throws -> Result) rethrows -> Result {
        #if canImport(Glibc)
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in signals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        defer { pthread_sigmask(SIG_SETMASK, &previous, nil) }
        #endif
        return try body()
    }

    package static func unregister(_ slot: Int) {
        lock.lock()
        defer { lock.unlock() }
        inUse[slot] = 0
    }

    /// Unlinks every registered file. Async-signal-safe: no locks, no allocation.
    package static func removeRegisteredFiles() {
        for slot in 0..<slotCount where inUse[slot] != 0 {
            _ = unlink(paths + slot * slotBytes)
        }
    }

    /// Whether the handlers are in place (installed on first use).
    package static let handlersInstalled: Bool = {
        #if canImport(Glibc)
        // Everything the handler reads exists before it can run.
        _ = (paths, inUse, previousActions, SignalHold.isHolding)
        for signal in signals {
            var old = sigaction()
            guard sigaction(signal, nil, &old) == 0 else { continue }
            let ignored = old.sa_flags & Int32(SA_SIGINFO) == 0
                && unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == 1   // SIG_IGN
            if ignored { continue }
            previousActions[Int(signal)] = old
            var action = sigaction()
            action.__sigaction_handler.sa_handler = removeTemporaryFilesAndRaiseAgain
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            _ = sigaction(signal, &action, nil)
        }
        return true
        #else
        return false
        #endif
    }()
}

#if canImport(Glibc)
private func removeTemporaryFilesAndRaiseAgain(_ signal: Int32) {
    // A step that must finish is under way (a COMMIT): the files it may still put in place stay until it is over.
    if SignalHold.isHolding {
        SignalHold.hold(signal)
        return
    }
    TemporaryFileCleanup.removeRegisteredFiles()
    // Back to the previous disposition; the signal, blocked while this handler runs, is delivered
    // again when it returns.
    _ = sigaction(signal, TemporaryFileCleanup.previousActions + Int(signal), nil)
    _ = raise(signal)
}
#endif
