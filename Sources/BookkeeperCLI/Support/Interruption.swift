import Foundation
import FileOutput
import ObjectStore
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM, SIGHUP and SIGXCPU: say so on stderr and end with the signal (status 130, 143, 129, 152 as a
/// shell reports it). Nothing else is needed for the store: a write transaction that is not committed is rolled
/// back by SQLite, and temporary output files are removed by the output module's own handler, which runs
/// first and then hands the signal on to this one. The message tells the truth about the store: a signal
/// that arrives while a COMMIT runs is held back until it is over (`CommitProgress`), and one that arrives
/// after it says the change was committed.
enum Interruption {
    nonisolated(unsafe) private static var messages: [Int32: [UInt8]] = [:]
    nonisolated(unsafe) private static var committedMessages: [Int32: [UInt8]] = [:]

    static func install() {
        // A file-size limit (`ulimit -f`, a full quota) must be an error we report, not a silent death: with
        // SIGXFSZ ignored, the write that crosses it fails with EFBIG, reported with the file's name (status 74).
        signal(SIGXFSZ, SIG_IGN)
        // A closed pipe on standard output is a failed write we report (saying whether the change was committed
        // before it, status 74), not a silent death by SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        // What the handler reads exists before it can run (a first use there would allocate).
        _ = (SignalHold.isHolding, CommitProgress.state)
        // SIGXCPU: a soft limit on CPU time was reached (the hard one ends the process with SIGKILL, which no one
        // can catch); it ended an import with no message, its busy note left beside the store.
        for (signal, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM"), (SIGHUP, "SIGHUP"),
                               (SIGXCPU, "SIGXCPU, the limit on CPU time (ulimit -t)")] {
            var old = sigaction()
            guard sigaction(signal, nil, &old) == 0 else { continue }
            // Leave ignored signals ignored (nohup).
            if old.sa_flags & Int32(SA_SIGINFO) == 0 && unsafeBitCast(old.__sigaction_handler.sa_handler, to: Int.self) == 1 { continue }
            messages[signal] = Array("bookkeeper: interrupted by \(name); nothing was committed by the unfinished step\n".utf8)
            committedMessages[signal] = Array("bookkeeper: interrupted by \(name) after the change was committed: it is in the store\n".utf8)
            var action = sigaction()
            action.__sigaction_handler.sa_handler = interrupted
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            _ = sigaction(signal, &action, nil)
        }
    }

    fileprivate static func message(_ signal: Int32) -> [UInt8]? {
        CommitProgress.hasCommitted ? committedMessages[signal] : messages[signal]
    }
}

private func interrupted(_ signal: Int32) {
    // In the middle of a COMMIT: let it finish; the signal is raised again when it is over.
    if SignalHold.isHolding {
        SignalHold.hold(signal)
        return
    }
    if let message = Interruption.message(signal) {
        message.withUnsafeBufferPointer { _ = write(STDERR_FILENO, $0.baseAddress, $0.count) }
    }
    var action = sigaction()
    action.__sigaction_handler.sa_handler = SIG_DFL
    sigemptyset(&action.sa_mask)
    _ = sigaction(signal, &action, nil)
    _ = raise(signal)
}
