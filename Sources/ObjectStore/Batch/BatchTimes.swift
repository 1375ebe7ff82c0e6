// Where a batch's time goes, by phase and by thread: `BOOKKEEPER_IMPORT_TIMES=1` in the environment makes every
// batch print, to standard error when it ends, the wall time of each phase (from the batch's start) and the CPU
// time (user+system) spent in it by the batch's own thread, by the background inserter, and by the rest of the
// process (SQLite's sorter helpers during the index rebuild, and whatever ran before the batch). Not a user
// option: it exists so that docs/design/import-speed.md can say per thread where an import's time goes without
// a profiler, whose sampling on a loaded machine counts only shares. Costs nothing when unset (one flag).

import Foundation

enum BatchTimes {
    static let enabled = ProcessInfo.processInfo.environment["BOOKKEEPER_IMPORT_TIMES"] == "1"

    /// A phase's end: its name, the monotonic clock, and the CPU clocks of this thread, the process, the inserter.
    private struct Mark {
        let name: String
        let wall, thread, process, inserter: Double
    }

    nonisolated(unsafe) private static var marks: [Mark] = []
    /// The inserter thread's CPU seconds so far (it adds its own when it exits, and `mark` reads it live).
    nonisolated(unsafe) private static var inserterThread: pthread_t?
    nonisolated(unsafe) private static var inserterDone = 0.0
    private static let lock = NSLock()

    private static func now(_ clock: clockid_t) -> Double {
        var t = timespec()
        clock_gettime(clock, &t)
        return Double(t.tv_sec) + Double(t.tv_nsec) / 1e9
    }

    private static func inserterCPU() -> Double {
        lock.lock()
        defer { lock.unlock() }
        guard let t = inserterThread else { return inserterDone }
        var clock = clockid_t()
        guard pthread_getcpuclockid(t, &clock) == 0 else { return inserterDone }
        return inserterDone + now(clock)
    }

    /// Called on the inserter's thread when it starts and when it exits.
    static func inserterStarted() {
        guard enabled else { return }
        lock.lock()
        inserterThread = pthread_self()
        lock.unlock()
    }

    static func inserterExiting() {
        guard enabled else { return }
        let spent = now(CLOCK_THREAD_CPUTIME_ID)
        lock.lock()
        inserterThread = nil
        inserterDone += spent
        lock.unlock()
    }

    /// The batch's start: forgets the marks of an earlier batch that failed before its report.
    static func begin() {
        guard enabled else { return }
        marks = []
        mark("start")
    }

    /// The end of a phase.
    static func mark(_ name: String) {
        guard enabled else { return }
        marks.append(Mark(name: name, wall: now(CLOCK_MONOTONIC), thread: now(CLOCK_THREAD_CPUTIME_ID),
                          process: now(CLOCK_PROCESS_CPUTIME_ID), inserter: inserterCPU()))
    }

    /// Prints the phases since the first mark, and forgets them.
    static func report() {
        guard enabled, let first = marks.first else { return }
        func f(_ x: Double) -> String { String(format: "%6.3f", x) }
        var lines = ["batch times: phase, wall at its end (s), then CPU in it (s): batch thread, inserter, other threads"]
        lines.append("  before the batch: CPU \(f(first.process)) (whole process)")
        var previous = first
        for m in marks.dropFirst() {
            let own = m.thread - previous.thread
            let ins = m.inserter - previous.inserter
            let other = (m.process - previous.process) - own - ins
            lines.append("  \(m.name.padding(toLength: 44, withPad: " ", startingAt: 0)) \(f(m.wall - first.wall))  "
                         + "\(f(own)) \(f(ins)) \(f(max(0, other)))")
            previous = m
        }
        FileHandle.standardError.write((lines.joined(separator: "\n") + "\n").data(using: .utf8)!)
        marks = []
    }
}
