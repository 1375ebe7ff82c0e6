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

public enum AddressSpace {
    /// The address space a command may take, with room to spare. Measured with release builds (VmPeak): 78 MiB
    /// for `--version` (the program and its libraries), about 215 MiB for a command that opens a store (each
    /// thread's stack and malloc arena is reserved, not used), 318 MiB for `import` of 200,000 or 1,000,000 lines;
    /// resident memory stays under 64 MiB for all of them.
    public static let needed: UInt64 = 512 << 20

    /// The lower of the soft limits on address space (RLIMIT_AS) and on data (RLIMIT_DATA, which counts the same
    /// private mappings since Linux 4.7), with the `ulimit` option that sets it; nil when neither is set.
    static var limit: (bytes: UInt64, option: String)? {
        var lowest: (bytes: UInt64, option: String)?
        for (resource, option) in [(RLIMIT_AS, "-v"), (RLIMIT_DATA, "-d")] {
            var limits = rlimit()
            guard getrlimit(__rlimit_resource_t(resource.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max else { continue }
            if lowest.map({ UInt64(limits.rlim_cur) < $0.bytes }) ?? true { lowest = (UInt64(limits.rlim_cur), option) }
        }
        return lowest
    }

    /// The stack a command needs (`ulimit -s`), with room to spare: a predicate nested as deep as the parser allows
    /// overflowed 96 KiB and `report --all` 64 KiB (SIGSEGV, no message); 128 KiB was enough for every command tried.
    /// Every thread gets that limit as its stack too. Below 48 KiB the Swift runtime cannot start the program at all.
    public static let neededStack: UInt64 = 1 << 20

    /// The largest stack a new thread gets. glibc gives every thread a stack as large as the soft stack limit:
    /// under `ulimit -s 1048576` beside `ulimit -v 1048576`, the importer's second thread could not get its 1 GiB
    /// and libdispatch retried for ever (the import hung, holding its store). Capped at the size glibc uses when
    /// the stack is unlimited, which every command fits in (see `neededStack`).
    public static let threadStackCap = 8 << 20

    /// Caps the stack of every thread created from now on at `threadStackCap` when the stack limit is larger. Call
    /// it before any thread starts. `pthread_setattr_default_np` is a GNU extension that Swift's Glibc module does
    /// not import, so it is looked up by name; without it (another C library), nothing changes.
    public static func capThreadStacks() {
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

    /// Throws `TooLittleMemory` when a limit leaves less than `bytes` of address space, or less than `stack` of stack.
    public static func require(_ bytes: UInt64 = needed, stack: UInt64 = neededStack) throws {
        if let limit, limit.bytes < bytes { throw TooLittleMemory(limit: limit.bytes, option: limit.option, needed: bytes) }
        var limits = rlimit()
        if getrlimit(__rlimit_resource_t(RLIMIT_STACK.rawValue), &limits) == 0, limits.rlim_cur != rlim_t.max, UInt64(limits.rlim_cur) < stack {
            throw TooLittleMemory(limit: UInt64(limits.rlim_cur), option: "-s", needed: stack)
        }
    }
}

/// A limit on memory (`ulimit -v`, `ulimit -d` or `ulimit -s`) below what a command needs.
public struct TooLittleMemory: CategorizedError {
    public let limit: UInt64
    public let option: String
    public let needed: UInt64

    public var category: ErrorCategory { .io }
    public var description: String {
        // ulimit counts in KiB.
        "too little memory allowed: the limit on \(["-v": "address space", "-d": "data"][option] ?? "the stack") (ulimit \(option)) is "
            + "\(limit / 1024) KiB, and bookkeeper needs \(needed / 1024) KiB (\(needed >> 20) MiB) — raise the limit "
            + "(ulimit \(option) \(needed / 1024)) or remove it (ulimit \(option) unlimited)"
    }
}
