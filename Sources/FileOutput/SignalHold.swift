#if canImport(Glibc)
import Glibc
#endif

/// Holds SIGINT, SIGTERM, SIGHUP and SIGXCPU back across a step that must finish once begun (a store's COMMIT), for
/// every handler of this process: a handler that finds a hold records its signal and returns; `end()` raises
/// it again, when the handlers can tell the truth about what was done. Blocking the signals instead would not
/// do: a signal sent to the process goes to any thread that does not block it.
package enum SignalHold {
    nonisolated(unsafe) private static let memory: UnsafeMutablePointer<Int32> = {
        let memory = UnsafeMutablePointer<Int32>.allocate(capacity: 2)
        memory.initialize(repeating: 0, count: 2)
        return memory
    }()

    /// Async-signal-safe.
    package static var isHolding: Bool { memory[0] != 0 }

    /// From a signal handler while `isHolding`. Async-signal-safe.
    package static func hold(_ signal: Int32) { memory[1] = signal }

    package static func begin() { memory[0] = 1 }

    /// Ends the hold; a signal that arrived meanwhile is raised now.
    package static func end() {
        memory[0] = 0
        let held = memory[1]
        memory[1] = 0
        if held != 0 { _ = raise(held) }
    }
}
