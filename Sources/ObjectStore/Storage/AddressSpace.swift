// The limits on memory a cron job or a service may set (`ulimit -v`, `ulimit -d`, `ulimit -s`).
//
// Why this file exists: under a low limit on address space a thread could not get its stack. libdispatch, which
// GRDB's queues use, then retries for ever (`_dispatch_temporary_resource_shortage`): `import` under `ulimit -v
// 80000` hung asleep, holding its store, and under 120000 it ended in SIGSEGV with no message. No library reports
// the failure to us, so every command makes sure at its start, before any work, that the limits leave it the address
// space it needs, and says so in one line when they do not — as OpenFiles.swift does for descriptors.

#if canImport(Glibc)
import Glibc
#endif

package enum AddressSpace {
    /// The address space a command may take, with room to spare. Measured with release builds (VmPeak): 78 MiB
    /// for `--version` (the program and its libraries), about 215 MiB for a command that opens a store (each
    /// thread's stack and malloc arena is reserved, not used), 318 MiB for `import` of 200,000 or 1,000,000 lines;
    /// resident memory stays under 64 MiB for all of them.
    package static let needed: UInt64 = 512 << 20

    /// The soft limits on address space (RLIMIT_AS) and on data (RLIMIT_DATA, which counts the same private mappings
    /// since Linux 4.7) that are set, with the `ulimit` option that sets each.
    static var limits: [(bytes: UInt64, option: String)] {
        var set: [(bytes: UInt64, option: String)] = []
        for (resource, option) in [(RLIMIT_AS, "-v"), (RLIMIT_DATA, "-d")] {
            var limits = rlimit()
            guard getrlimit(__rlimit_resource_t(resource.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max else { continue }
            set.append((UInt64(limits.rlim_cur), option))
        }
        return set
    }

    /// The stack a command needs (`ulimit -s`), with room to spare: a predicate nested as deep as the parser allows
    /// overflowed 96 KiB and `report --all` 64 KiB (SIGSEGV, no message); 128 KiB was enough for every command tried.
    /// Every thread gets that limit as its stack too. Below 48 KiB the Swift runtime cannot start the program at all.
    package static let neededStack: UInt64 = 1 << 20

    /// The largest stack a new thread gets. glibc gives every thread a stack as large as the soft stack limit:
    /// under `ulimit -s 1048576` beside `ulimit -v 1048576`, the importer's second thread could not get its 1 GiB
    /// and libdispatch retried for ever (the import hung, holding its store). Capped at the size glibc uses when
    /// the stack is unlimited, which every command fits in (see `neededStack`).
    package static let threadStackCap = 8 << 20

    /// Caps the stack of every thread created from now on at `threadStackCap` when the stack limit is larger. Call
    /// it before any thread starts. `pthread_setattr_default_np` is a GNU extension that Swift's Glibc module does
    /// not import, so it is looked up by name; without it (another C library), nothing changes.
    package static func capThreadStacks() {
        var limits = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_STACK.rawValue), &limits) == 0,
              limits.rlim_cur == rlim_t.max || UInt64(limits.rlim_cur) > UInt64(threadStackCap),
              let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "pthread_setattr_default_np") else { return }
        typealias SetDefault = @convention(c) (UnsafePointer<pthread_attr_t>) -> Int32
        var attributes = pthread_attr_t()
        guard pthread_attr_init(&attributes) == 0 else { return }
        defer { pthread_attr_destroy(&attributes) }
        guard pthread_attr_setstacksize(&attributes, threadStackCap) == 0 else { return }
        _ = unsafeBitCast(symbol, to: SetDefault.self)(&attributes)
    }

    /// Throws `TooLittleMemory`, naming every limit that is too low, when the limits leave less than `bytes` of
    /// address space or less than `stack` of stack.
    package static func require(_ bytes: UInt64 = needed, stack: UInt64 = neededStack) throws {
        var low = limits.filter { $0.bytes < bytes }.map { TooLittleMemory.Limit(limit: $0.bytes, option: $0.option, needed: bytes) }
        var limits = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_STACK.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max, UInt64(limits.rlim_cur) < stack {
            low.append(TooLittleMemory.Limit(limit: UInt64(limits.rlim_cur), option: "-s", needed: stack))
        }
        if !low.isEmpty { throw TooLittleMemory(limits: low) }
    }
}

/// Limits on memory (`ulimit -v`, `ulimit -d`, `ulimit -s`) below what a command needs: every one that is, so that
/// raising the first does not only lead to the next.
package struct TooLittleMemory: CategorizedError {
    package struct Limit: Sendable {
        package let limit: UInt64
        package let option: String
        package let needed: UInt64

        var what: String { ["-v": "address space", "-d": "data"][option] ?? "the stack" }
    }

    package let limits: [Limit]

    package var category: ErrorCategory { .io }
    package var description: String {
        // ulimit counts in KiB.
        let found = limits.map { "the limit on \($0.what) (ulimit \($0.option)) is \($0.limit / 1024) KiB, and bookkeeper needs "
            + "\($0.needed / 1024) KiB (\($0.needed >> 20) MiB)" }
        // One `ulimit` per limit: dash, cron's /bin/sh on Debian, takes one option at a time.
        let raise = limits.map { "ulimit \($0.option) \($0.needed / 1024)" }.joined(separator: "; ")
        let remove = limits.map { "ulimit \($0.option) unlimited" }.joined(separator: "; ")
        let them = limits.count == 1 ? "it" : "them"
        return "too little memory allowed: " + found.joined(separator: "; ")
            + " — raise the limit\(limits.count == 1 ? "" : "s") (\(raise)) or remove \(them) (\(remove))"
    }
}
