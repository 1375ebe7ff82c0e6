// The limit on processes (`ulimit -u`), as a cron job or a service may set it for a user other than root.
//
// Why this file exists: the limit counts every thread of every process of the user. Under `ulimit -u 3` an import
// could not start its threads: Foundation's `Thread.start` says nothing when `pthread_create` fails, so the import
// waited for ever for a thread that never ran, holding its store. No library reports the failure to us, so every
// command makes sure at its start, before any work, that it can start the threads it may need, and says so in one
// line when it cannot — as OpenFiles.swift does for descriptors and AddressSpace.swift for memory.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

package enum ProcessLimit {
    /// The threads a command may run at once, its main thread included, with room to spare: an import runs its
    /// input's hash thread, the inserter, up to four index helpers (one per core beyond the first), the checkpoint
    /// thread and libdispatch's two — 5 at once as measured on two cores, up to 3 more with five cores or more.
    package static let needed = 16

    /// How many more threads this process could start now, counted up to `limit` by starting them (each waits on a
    /// lock until all are started, then ends); nil when starting failed for another reason than the limit.
    static func free(upTo limit: Int) -> Int? {
        let gate = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        defer { gate.deallocate() }
        pthread_mutex_init(gate, nil)
        defer { pthread_mutex_destroy(gate) }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        // A small stack: the probe must not ask for address space the limits on memory would refuse.
        pthread_attr_setstacksize(&attributes, 64 << 10)
        var started: [pthread_t] = []
        var failure: Int32 = 0
        pthread_mutex_lock(gate)
        while started.count < limit {
            var thread = pthread_t()
            let status = pthread_create(&thread, &attributes, { argument in
                let gate = argument!.assumingMemoryBound(to: pthread_mutex_t.self)
                pthread_mutex_lock(gate)
                pthread_mutex_unlock(gate)
                return nil
            }, gate)
            if status != 0 { failure = status; break }
            started.append(thread)
        }
        pthread_mutex_unlock(gate)
        for thread in started { pthread_join(thread, nil) }
        if failure != 0 && failure != EAGAIN { return nil }
        return started.count
    }

    /// Throws `TooFewProcesses` unless this process can run `count` threads at once (its main thread and
    /// `count - 1` more). Only a limit set on processes is probed, and not for root, whom the kernel does not hold
    /// to it.
    package static func require(_ count: Int = needed) throws {
        var limits = rlimit()
        guard getuid() != 0, getrlimit(__rlimit_resource_t(__RLIMIT_NPROC.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max,
              let free = free(upTo: count - 1), free < count - 1 else { return }
        throw TooFewProcesses(limit: UInt64(limits.rlim_cur), others: otherThreadsOfThisUser(), needed: count)
    }

    /// The threads of this user's other processes, which the limit counts too; nil when /proc cannot tell.
    static func otherThreadsOfThisUser() -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        let user = String(getuid()), me = String(getpid())
        var count = 0
        for entry in entries where entry != me && entry.allSatisfy(\.isASCIIDigit) {
            guard let status = try? String(contentsOfFile: "/proc/\(entry)/status", encoding: .utf8) else { continue }
            var uid: Substring?, threads: Int?
            for line in status.split(separator: "\n") {
                // "Uid:" is followed by the real, effective, saved and file-system ids; the limit counts the real one.
                if line.hasPrefix("Uid:") { uid = line.dropFirst(4).split(whereSeparator: { $0 == "\t" || $0 == " " }).first }
                if line.hasPrefix("Threads:") { threads = Int(line.dropFirst(8).trimmingCharacters(in: .whitespaces)) }
            }
            if uid.map(String.init) == user, let threads { count += threads }
        }
        return count
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}

/// A limit on processes (`ulimit -u`) that leaves too few for the threads a command may run.
package struct TooFewProcesses: CategorizedError {
    package let limit: UInt64
    /// The threads of the user's other processes, which count against the same limit; nil when unknown.
    package let others: Int?
    package let needed: Int

    package var category: ErrorCategory { .io }
    package var description: String {
        let running = others.map { ", this user's other processes run \($0) thread\($0 == 1 ? "" : "s")" } ?? ""
        let suggested = others.map { UInt64($0 + needed) } ?? limit + UInt64(needed)
        // dash, cron's /bin/sh on Debian, calls the limit -p where bash calls it -u.
        return "too few processes allowed: the limit on processes (ulimit -u, which counts threads) is \(limit)\(running), "
            + "and bookkeeper needs \(needed) of its own — raise the limit (ulimit -u \(suggested); in dash, ulimit -p \(suggested)) "
            + "or remove it (ulimit -u unlimited)"
    }
}

/// The limits every command is held to before any work — open files, memory, processes — checked together, so that
/// a job under several low limits learns of all of them in one run rather than one per run (found by the attack on
/// 0.6.0 before it landed: `ulimit -n 20 -u 5 -v 100000` took three runs to tell).
package enum CommandLimits {
    package static func require() throws {
        var found: [any CategorizedError] = []
        let checks: [() throws -> Void] = [{ try OpenFiles.require() }, { try AddressSpace.require() }, { try ProcessLimit.require() }]
        for check in checks {
            do { try check() } catch let error as any CategorizedError { found.append(error) }
        }
        if found.count == 1 { throw found[0] }
        if !found.isEmpty { throw LimitsTooLow(errors: found) }
    }
}

/// Several limits too low at once: one line for each.
package struct LimitsTooLow: CategorizedError {
    package let errors: [any CategorizedError]
    package var category: ErrorCategory { .io }
    package var messages: [String] { errors.flatMap(\.messages) }
    package var description: String { messages.joined(separator: "\n") }
}
