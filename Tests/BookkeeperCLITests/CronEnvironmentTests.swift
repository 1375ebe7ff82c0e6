// The cron environment (issue 26, "Trust, part 6"): a low limit on open files, a store whose folder the job's
// user may not write, stored text and file names that carry terminal controls into the operator's terminal and the
// cron mail, a table with one long value, and a decimal with more places than any scale holds.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// Runs the binary under `ulimit -n limit` (through bash, which then execs it) and waits for it.
private func runLimited(_ limit: Int, _ arguments: [String], in directory: String,
                        environment: [String: String] = [:]) throws -> (status: Int32, killedBySignal: Bool, stdout: String, stderr: String) {
    try runUnder("-n \(limit)", arguments, in: directory, environment: environment)
}

/// Runs the binary under `ulimit LIMIT` (`-v 300000`) and waits for it.
private func runUnder(_ limit: String, _ arguments: [String], in directory: String,
                      environment: [String: String] = [:]) throws -> (status: Int32, killedBySignal: Bool, stdout: String, stderr: String) {
    let child = try Child(["-c", "ulimit \(limit) && exec \"$0\" \"$@\"", bookkeeperBinary] + arguments,
                          in: directory, environment: environment, executable: "/bin/bash")
    return child.wait()
}

/// The one line a command under too low a limit on open files ends with (OpenFiles.swift).
private func isTooManyOpenFilesLine(_ line: Substring, limit: Int) -> Bool {
    line.hasPrefix("bookkeeper: too many open files: the limit on open files (ulimit -n) is \(limit), and bookkeeper needs ")
}

private let committedThenFailed = "bookkeeper: the change was committed before this failure: it is in the store; only this output was lost"

final class OpenFileLimitTests: SampleStoreTestCase {
    /// One command of the sweep: its arguments (run in a fresh copy of the sample store's folder), and whether its
    /// standard output is the same on every run (an import summary counts seconds; a report says when it was made).
    fileprivate struct Command {
        let arguments: [String]
        var stableOutput = true
        /// 65 for the import whose second line is rejected (written to the rejects file, one more descriptor).
        var status: Int32 = 0
    }

    fileprivate static let commands: [Command] = [
        Command(arguments: ["init", "--store", "new.sqlite"]),
        Command(arguments: ["--store", "books.sqlite", "model"]),
        Command(arguments: ["--store", "books.sqlite", "add", "Tag", "name=ulimit"]),
        Command(arguments: ["--store", "books.sqlite", "set", "Customer", "Acme Ltd", "info=changed"]),
        Command(arguments: ["--store", "books.sqlite", "show", "Customer", "Acme Ltd"]),
        Command(arguments: ["--store", "books.sqlite", "list", "Customer"]),
        Command(arguments: ["--store", "books.sqlite", "delete", "Tag", "retail"]),
        Command(arguments: ["--store", "books.sqlite", "fetch", "Order", "--where", "paid == NO", "--columns", "number, customer.name, rows.@sum.sum"]),
        Command(arguments: ["--store", "books.sqlite", "fetch", "Customer", "--format", "csv"]),
        Command(arguments: ["--store", "books.sqlite", "fetch", "Customer", "--format", "json"]),
        Command(arguments: ["--store", "books.sqlite", "migrate"]),
        Command(arguments: ["--store", "books.sqlite", "backup", "copy.sqlite"]),
        Command(arguments: ["--store", "books.sqlite", "check"]),
        Command(arguments: ["--store", "books.sqlite", "import", "Customer", "customers.csv", "--on-error", "skip", "--rejects", "rejects.csv"],
                stableOutput: false, status: 65),
        Command(arguments: ["--store", "books.sqlite", "imports", "--format", "json"], stableOutput: false),
        Command(arguments: ["--store", "books.sqlite", "export", "Customer", "customers-out.csv"]),
        Command(arguments: ["--store", "books.sqlite", "reports"]),
        Command(arguments: ["--store", "books.sqlite", "report", "sales-by-customer", "--format", "csv"]),
        Command(arguments: ["--store", "books.sqlite", "report", "--all", "--format", "xlsx", "--output-dir", "reports"], stableOutput: false),
    ]

    /// A folder with a copy of the sample store and an input to import.
    fileprivate static func freshFolder() -> TemporaryDirectory {
        let folder = TemporaryDirectory()
        SampleStore.copy(to: folder.file("books.sqlite"))
        folder.write("customers.csv", "code,name,info\nC901,Ulimit Ltd,new\nC902,,no name\n")
        return folder
    }

    /// Every command under every limit on open files from 3 to 32 (`make stress`; a few of each in `make test`):
    /// never a signal, never a false message. It succeeds as it does without a limit, or fails with status 74 and the
    /// one line "too many open files" — and then the store is as it was, or, had the change been committed, the
    /// next line says so. (Before, limits 6 to 11 ended in SIGILL from libdispatch, even after `add` had committed,
    /// and 5 and 8 said "not a bookkeeper store" or "cannot create the store".)
    func testEveryCommandUnderEveryOpenFileLimitSucceedsOrSaysTooManyOpenFiles() throws {
        let limits = Trials.isStress || environmentInt("BOOKKEEPER_ULIMIT_SWEEP", 0) == 1 ? Array(3...32) : [6, 11, 32]
        let commands = Trials.isStress || environmentInt("BOOKKEEPER_ULIMIT_SWEEP", 0) == 1
            ? Self.commands : Self.commands.filter { ["add", "import", "list", "init"].contains($0.arguments.first { !$0.hasPrefix("-") && $0 != "books.sqlite" } ?? "") }
        var outcomes: [String: Int] = [:]
        for command in commands {
            let reference = Self.freshFolder()
            let expected = runProgram(bookkeeperBinary, command.arguments, in: reference.path, environment: Self.environment)
            XCTAssertEqual(expected.status, command.status, "\(command.arguments) without a limit: \(expected)")
            let untouched = Self.freshFolder()
            let unchanged = try storeFingerprint(untouched.file("books.sqlite"))
            for limit in limits {
                let folder = Self.freshFolder()
                let r = try runLimited(limit, command.arguments, in: folder.path, environment: Self.environment)
                let what = "ulimit -n \(limit); bookkeeper \(command.arguments.joined(separator: " ")): exit \(r.status)\n\(r.stdout)\(r.stderr)"
                XCTAssertFalse(r.killedBySignal, "never a signal: \(what)")
                if r.killedBySignal { continue }
                if r.status == 127 && r.stderr.contains("error while loading shared libraries") {
                    // Below 4 the system's loader cannot open the program's libraries: nothing of ours ran.
                    XCTAssertEqual(limit, 3, "only with no descriptor free does the loader fail: \(what)")
                    outcomes["loader", default: 0] += 1
                    continue
                }
                if r.status == command.status {
                    if command.stableOutput { XCTAssertEqual(r.stdout, expected.stdout, what) }
                    XCTAssertEqual(r.stderr, expected.stderr, what)
                    outcomes["success", default: 0] += 1
                    continue
                }
                XCTAssertEqual(r.status, 74, what)
                let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
                XCTAssertTrue(lines.first.map { isTooManyOpenFilesLine($0, limit: limit) } ?? false, "the one line: \(what)")
                let fingerprint = try storeFingerprint(folder.file("books.sqlite"))
                let changed = fingerprint != unchanged
                XCTAssertEqual(Array(lines.dropFirst()), changed ? [Substring(committedThenFailed)] : [],
                               "after a commit, the committed-then-failed wording; else nothing more: \(what)")
                outcomes[changed ? "committed, then too many open files" : "too many open files", default: 0] += 1
            }
            // With the most descriptors the sweep gives, every command works.
            let last = Self.freshFolder()
            let most = try runLimited(limits.max()!, command.arguments, in: last.path, environment: Self.environment)
            XCTAssertEqual(most.status, command.status, "ulimit -n \(limits.max()!): \(command.arguments): \(most.stderr)")
        }
        reportTrials("open-file limits", "\(commands.count) commands × limits \(limits.min()!)–\(limits.max()!): "
                     + outcomes.sorted { $0.key < $1.key }.map { "\($0.value) \($0.key)" }.joined(separator: ", "))
    }

    /// A limit that leaves too few descriptors: one line naming the limit, status 74, nothing written — where `add`
    /// crashed with SIGILL after it had committed, and `list` said the store was not one.
    func testACommandUnderALowOpenFileLimitSaysTooManyOpenFilesAndChangesNothing() throws {
        let before = try storeFingerprint(store)
        for args in [["--store", store, "add", "Customer", "name=Low Limit"], ["--store", store, "list", "Customer"], ["--store", "other.sqlite", "init"]] {
            let r = try runLimited(8, args, in: dir.path, environment: Self.environment)
            XCTAssertFalse(r.killedBySignal, "\(args): \(r)")
            XCTAssertEqual(r.status, 74, "\(args): \(r)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            let lines = r.stderr.split(separator: "\n")
            XCTAssertEqual(lines.count, 1, "\(args): \(r.stderr)")
            XCTAssertTrue(lines.first.map { isTooManyOpenFilesLine($0, limit: 8) } ?? false, "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasSuffix(" — raise the limit (ulimit -n 1024) or close files the job inherits\n"), r.stderr)
        }
        XCTAssertEqual(try storeFingerprint(store), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("other.sqlite")))
    }
}

/// Limits on memory (`ulimit -v`, `ulimit -d`, `ulimit -s`), as a cron job or a service may set them: under a low
/// one, `import` hung for ever asleep in libdispatch (a thread could not get its stack) or ended in SIGSEGV with no
/// message, and a deeply nested predicate or `report --all` overflowed a small stack. Now every command checks the
/// limits before any work (AddressSpace.swift).
final class MemoryLimitTests: SampleStoreTestCase {
    private static let needed = 524288

    /// Too low a limit: one line naming it and what is needed, status 74, nothing written — for either limit.
    func testACommandUnderALowMemoryLimitSaysSoAndChangesNothing() throws {
        let before = try storeFingerprint(store)
        dir.write("low.csv", "code,name\nC990,Low Memory Ltd\n")
        for (option, limit, what, needed) in [("-v", 300000, "address space", Self.needed), ("-d", 300000, "data", Self.needed),
                                              ("-s", 96, "the stack", 1024)] {
            for args in [["--store", store, "add", "Customer", "name=Low Limit"], ["--store", store, "import", "Customer", "low.csv"],
                         ["--store", store, "list", "Customer"], ["--store", "other.sqlite", "init"]] {
                let r = try runUnder("\(option) \(limit)", args, in: dir.path, environment: Self.environment)
                XCTAssertFalse(r.killedBySignal, "\(option) \(args): \(r)")
                XCTAssertEqual(r.status, 74, "\(option) \(args): \(r)")
                XCTAssertEqual(r.stdout, "", "\(args)")
                XCTAssertEqual(r.stderr, "bookkeeper: too little memory allowed: the limit on \(what) (ulimit \(option)) is \(limit) KiB, "
                               + "and bookkeeper needs \(needed) KiB (\(needed / 1024) MiB) — raise the limit (ulimit \(option) \(needed)) "
                               + "or remove it (ulimit \(option) unlimited)\n")
            }
        }
        XCTAssertEqual(try storeFingerprint(store), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("other.sqlite")))
    }

    /// Several limits too low at once: the line named only the first, so raising it only led to the next. Help
    /// was refused too, though it needs none of what is checked.
    func testEveryLowLimitIsNamedAtOnceAndHelpIsNotRefused() throws {
        let before = try storeFingerprint(store)
        let r = try runUnder("-v 300000 && ulimit -d 400000 && ulimit -s 96", ["--store", store, "list", "Customer"], in: dir.path,
                             environment: Self.environment)
        XCTAssertEqual(r.status, 74, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: too little memory allowed: the limit on address space (ulimit -v) is 300000 KiB, and "
                       + "bookkeeper needs 524288 KiB (512 MiB); the limit on data (ulimit -d) is 400000 KiB, and bookkeeper needs "
                       + "524288 KiB (512 MiB); the limit on the stack (ulimit -s) is 96 KiB, and bookkeeper needs 1024 KiB (1 MiB) — "
                       + "raise the limits (ulimit -v 524288; ulimit -d 524288; ulimit -s 1024) or remove them (ulimit -v unlimited; "
                       + "ulimit -d unlimited; ulimit -s unlimited)\n")
        XCTAssertEqual(try storeFingerprint(store), before)
        for args in [["--help"], ["help"], ["import", "--help"], ["help", "report"], []] {
            let helped = try runUnder("-v 300000 && ulimit -n 8", args, in: dir.path, environment: Self.environment)
            XCTAssertEqual(helped.status, 0, "\(args): \(helped)")
            XCTAssertTrue(helped.stdout.contains("USAGE:"), "\(args): \(helped)")
            XCTAssertEqual(helped.stderr, "", "\(args)")
        }
    }

    /// The limit it asks for is enough: every command of the open-file sweep, and an import of 50,000 order lines,
    /// under exactly that limit on address space and on the stack (and on data for a few) does what it does without one.
    func testEveryCommandWorksUnderTheMemoryLimitItAsksFor() throws {
        var checked = 0
        for command in OpenFileLimitTests.commands {
            let reference = OpenFileLimitTests.freshFolder()
            let expected = runProgram(bookkeeperBinary, command.arguments, in: reference.path, environment: Self.environment)
            let limits = ["init", "import", "report"].contains(where: command.arguments.contains)
                ? ["-v \(Self.needed)", "-d \(Self.needed)", "-s 1024"] : ["-v \(Self.needed)", "-s 1024"]
            for limit in limits {
                let folder = OpenFileLimitTests.freshFolder()
                let r = try runUnder(limit, command.arguments, in: folder.path, environment: Self.environment)
                let what = "ulimit \(limit); bookkeeper \(command.arguments.joined(separator: " ")): \(r)"
                XCTAssertFalse(r.killedBySignal, what)
                XCTAssertEqual(r.status, command.status, what)
                if command.stableOutput { XCTAssertEqual(r.stdout, expected.stdout, what) }
                XCTAssertEqual(r.stderr, expected.stderr, what)
                checked += 1
            }
        }
        var lines = ["number,date,customer,rows.service,rows.sum"]
        for i in 0..<50_000 {
            let order = i / 5
            lines.append("N\(order),2024-0\(1 + order % 9)-1\(order % 10),Customer \(order % 997),Service \(i % 31),\(i % 1000).25")
        }
        dir.write("orders.csv", lines.joined(separator: "\n") + "\n")
        let r = try runUnder("-v \(Self.needed)", ["--store", store, "import", "Order", "orders.csv", "--create-missing"],
                             in: dir.path, environment: Self.environment)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(bk(["fetch", "Order", "--where", "number BEGINSWITH 'N'", "--count"]).stdout, "10000\n")
        // A predicate nested as deep as the parser allows (24 levels), under the stack it asks for.
        let nested = String(repeating: "(", count: 24) + "number BEGINSWITH 'N'" + String(repeating: ")", count: 24)
        let deep = try runUnder("-s 1024", ["--store", store, "fetch", "Order", "--where", nested, "--count"], in: dir.path,
                                environment: Self.environment)
        XCTAssertEqual(deep.status, 0, "\(deep)")
        XCTAssertEqual(deep.stdout, "10000\n")
        XCTAssertGreaterThan(checked, OpenFileLimitTests.commands.count)
    }

    /// A big stack limit beside a limit on address space: glibc gives every thread a stack as large as `ulimit -s`,
    /// so under `-s 1048576 -v 1048576` the importer's second thread could not get its 1 GiB, libdispatch retried
    /// for ever and the import hung holding its store. Threads' stacks are now capped (AddressSpace.capThreadStacks).
    func testAnImportUnderABigStackLimitBesideAnAddressSpaceLimitFinishes() throws {
        var lines = ["number,date,customer,rows.service,rows.sum"]
        for i in 0..<5_000 { lines.append("B\(i / 5),2024-03-1\(i / 5 % 10),Customer \(i / 5 % 97),Service \(i % 31),\(i % 1000).25") }
        dir.write("big-stack.csv", lines.joined(separator: "\n") + "\n")
        for limits in ["-s 1048576 && ulimit -v 1048576", "-s unlimited && ulimit -v 1048576"] {
            let child = try Child(["-c", "ulimit \(limits) && exec \"$0\" \"$@\"", bookkeeperBinary, "--store", store, "import", "Order",
                                   "big-stack.csv", "--create-missing"], in: dir.path, environment: Self.environment, executable: "/bin/bash")
            // A watchdog for the hang, not a limit on speed: the import takes about a second.
            var polls = 0
            while child.isRunning && polls < 3_000 { usleep(100_000); polls += 1 }
            if child.isRunning { child.signal(SIGKILL) }
            let r = child.wait()
            XCTAssertFalse(r.killedBySignal, "ulimit \(limits): hung or killed: \(r)")
            XCTAssertEqual(r.status, 0, "ulimit \(limits): \(r)")
        }
        XCTAssertEqual(bk(["fetch", "Order", "--where", "number BEGINSWITH 'B'", "--count"]).stdout, "1000\n")
    }
}

/// A limit on processes (`ulimit -u`), which counts every thread of every process of a user other than root: under
/// `ulimit -u 3` an import waited for ever for a thread that never started (Foundation's `Thread.start` says nothing
/// when `pthread_create` fails), holding its store. Now every command checks the limit before any work
/// (ProcessLimit.swift).
final class ProcessLimitTests: SampleStoreTestCase {
    /// A user of its own (no name needed), so that no other test's processes count against its limit.
    private static let uid = "64123"

    private func runAs(limit: Int, _ arguments: [String]) throws -> (status: Int32, killedBySignal: Bool, stdout: String, stderr: String) {
        try runAs(limits: "ulimit -u \(limit)", arguments)
    }

    private func runAs(limits: String, _ arguments: [String]) throws -> (status: Int32, killedBySignal: Bool, stdout: String, stderr: String) {
        let child = try Child(["--reuid=\(Self.uid)", "--regid=\(Self.uid)", "--clear-groups", "/bin/bash", "-c",
                               "\(limits) && exec \"$0\" \"$@\"", OtherUser.binary] + arguments,
                              in: dir.path, environment: Self.environment, executable: OtherUser.setpriv)
        // A watchdog for the hang, not a limit on speed: each command takes about a second.
        var polls = 0
        while child.isRunning && polls < 3_000 { usleep(100_000); polls += 1 }
        if child.isRunning { child.signal(SIGKILL) }
        return child.wait()
    }

    func testACommandUnderALowProcessLimitSaysSoAndChangesNothing() throws {
        try OtherUser.skipUnlessAvailable()
        XCTAssertEqual(chmod(dir.path, 0o777), 0)
        XCTAssertEqual(chmod(store, 0o666), 0)
        var lines = ["number,date,customer,rows.service,rows.sum"]
        for i in 0..<5_000 { lines.append("P\(i / 5),2024-04-1\(i / 5 % 10),Customer \(i / 5 % 97),Service \(i % 31),\(i % 1000).25") }
        dir.write("threads.csv", lines.joined(separator: "\n") + "\n")
        let before = try storeFingerprint(store)
        let message = { (limit: Int) in
            "bookkeeper: too few processes allowed: the limit on processes (ulimit -u, which counts threads) is \(limit), this "
                + "user's other processes run 0 threads, and bookkeeper needs 16 of its own — raise the limit (ulimit -u 16; in dash, "
                + "ulimit -p 16) or remove it (ulimit -u unlimited)\n"
        }
        let importing = ["--store", store, "import", "Order", "threads.csv", "--create-missing"]
        for limit in [1, 3, 15] {
            for args in [importing, ["--store", store, "list", "Customer"], ["--store", store, "report", "customers"]] {
                let r = try runAs(limit: limit, args)
                XCTAssertFalse(r.killedBySignal, "ulimit -u \(limit) \(args): hung or killed: \(r)")
                XCTAssertEqual(r.status, 74, "ulimit -u \(limit) \(args): \(r)")
                XCTAssertEqual(r.stdout, "")
                XCTAssertEqual(r.stderr, message(limit), "\(args)")
            }
        }
        XCTAssertEqual(try storeFingerprint(store), before)
        // Low limits of every kind at once: a line for each, in one run (it took three runs to learn of all three).
        let all = try runAs(limits: "ulimit -S -n 20 && ulimit -u 5 && ulimit -v 300000", ["--store", store, "list", "Customer"])
        XCTAssertEqual(all.status, 74, "\(all)")
        let allLines = all.stderr.split(separator: "\n")
        XCTAssertEqual(allLines.count, 3, all.stderr)
        XCTAssertTrue(allLines.first?.hasPrefix("bookkeeper: too many open files: the limit on open files (ulimit -n) is 20,") ?? false, all.stderr)
        XCTAssertTrue(allLines.dropFirst().first?.hasPrefix("bookkeeper: too little memory allowed: the limit on address space (ulimit -v) is 300000 KiB") ?? false, all.stderr)
        XCTAssertEqual(allLines.last.map(String.init), String(message(5).dropLast()))
        XCTAssertEqual(try storeFingerprint(store), before)
        // The limit it asks for is enough.
        let r = try runAs(limit: 16, importing)
        XCTAssertFalse(r.killedBySignal, "\(r)")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(bk(["fetch", "Order", "--where", "number BEGINSWITH 'P'", "--count"]).stdout, "1000\n")
    }
}

/// Control characters in stored text and in file names, through every text output: shown as `<U+001B>`, as the
/// messages show them; CSV and JSON keep the exact text.
final class TerminalInjectionTests: SampleStoreTestCase {
    /// C0 controls, DEL, C1 controls (CSI U+009B, NEL U+0085), the line and paragraph separators and the
    /// bidirectional controls: Unicode's Bidi_Control property as PropList.txt lists it (061C, 200E..200F,
    /// 202A..202E, 2066..2069; VisibleTextTests checks the list over every scalar). U+200F and U+061C were missing.
    static let bidiControls: [Unicode.Scalar] = ([0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069))
        .map { Unicode.Scalar($0)! }
    static let hostile: [Unicode.Scalar] = (Array(0x01...0x1F) + [0x7F] + Array(0x80...0x9F) + [0x2028, 0x2029])
        .map { Unicode.Scalar($0)! } + bidiControls

    /// How a table cell shows `text`: line breaks and tabs as spaces, every other such character as its code.
    static func shownInTable(_ text: String) -> String {
        var s = text
        for c in ["\r\n", "\n", "\r", "\t"] { s = s.replacingOccurrences(of: c, with: " ") }
        return shownInLine(s)
    }

    /// How a line (a file name in the import summary, a confirmation) shows `text`: every such character as its code.
    static func shownInLine(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if hostile.contains(scalar) {
                let digits = String(scalar.value, radix: 16, uppercase: true)
                out += "<U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ">"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }

    /// The first hostile character in `text`, if any.
    static func firstHostile(_ text: String) -> String? {
        text.unicodeScalars.first { hostile.contains($0) && $0 != "\n" }.map { String(format: "U+%04X", $0.value) }
    }

    /// Generated names, each with a few of the hostile characters among letters, imported from a CSV: `list`,
    /// `fetch` and `show` show each as its code and print no such character (but the line feeds that end their
    /// lines); `fetch --format csv` and `--format json` give back the exact names.
    func testControlCharactersInStoredTextAreShownAsCodesInEveryTextOutput() throws {
        let seed = Trials.seed(fixed: 26)
        var generator = SeededGenerator(seed: seed)
        var names: [String] = ["\u{1B}]0;pwned\u{07}title", "clear\u{1B}[2J\u{1B}[H", "csi\u{9B}31mred", "del\u{7F}x", "rtl\u{202E}gpj.exe"]
        for i in 0..<Trials.count("BOOKKEEPER_INJECTION_TRIALS", quick: 15, stress: 200) {
            var name = "n\(i)-"
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                name.unicodeScalars.append(Self.hostile.randomElement(using: &generator)!)
                name += ["a", "é", "中", " ", "Z"].randomElement(using: &generator)!
            }
            names.append(name)
        }
        var csv = "name,info\n"
        for name in names { csv += csvField(name) + "," + csvField("info " + name) + "\n" }
        dir.write("hostile.csv", csv)
        let imported = bk(["import", "Customer", "hostile.csv", "--quiet"])
        XCTAssertEqual(imported.status, 0, "seed \(seed): \(imported)")

        let total = Int(bk(["fetch", "Customer", "--count"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        let list = bk(["list", "Customer"])
        let fetch = bk(["fetch", "Customer", "--columns", "name, info"])
        for (output, label) in [(list, "list"), (fetch, "fetch")] {
            XCTAssertEqual(output.status, 0, "\(label): \(output)")
            XCTAssertNil(Self.firstHostile(output.stdout), "seed \(seed): \(label) printed a control character")
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false)
            XCTAssertEqual(lines.count, 2 + total + 1 + 1, "seed \(seed): \(label): one line per object")
            for name in names {
                XCTAssertTrue(output.stdout.contains(Self.shownInTable(name)), "seed \(seed): \(label) shows \(Self.shownInTable(name))")
            }
        }
        for name in names.prefix(8) {
            let show = bk(["show", "Customer", name])
            XCTAssertEqual(show.status, 0, "seed \(seed): \(show)")
            XCTAssertNil(Self.firstHostile(show.stdout), "seed \(seed): show printed a control character")
            XCTAssertTrue(show.stdout.contains("name    \(Self.shownInTable(name))\n"), "seed \(seed): \(show.stdout)")
        }
        // CSV and JSON keep the exact text.
        let csvOut = bk(["fetch", "Customer", "--columns", "name", "--where", "info BEGINSWITH 'info '", "--format", "csv"])
        let parsedCSV = parseCSV(csvOut.stdout)
        XCTAssertEqual(parsedCSV.dropFirst().map { $0[0] }, names, "seed \(seed): CSV keeps the exact names")
        let json = bk(["fetch", "Customer", "--columns", "name", "--where", "info BEGINSWITH 'info '", "--format", "json"])
        let objects = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: String]]
        XCTAssertEqual(objects?.map { $0["name"]! }, names, "seed \(seed): JSON keeps the exact names")
        reportTrials("terminal injection", "\(names.count) names with controls (seed \(seed))")
    }

    /// Attack 27, finding 13: `show` and `list` passed U+200F and U+061C raw; `reports` passed U+200F; the text
    /// report's title made line breaks and tabs spaces where `reports` coded them. Every control character and every
    /// bidirectional control, each in a customer's name and all in a report's title, through `list`, `show`,
    /// `reports` and the text report: each shown as its code (line breaks and tabs in a cell as spaces), none printed.
    func testEveryControlAndBidiControlIsShownAsACodeInListShowReportsAndTheTextReport() throws {
        let names = Self.hostile.map { scalar in
            var name = String(format: "h%04X-a", scalar.value)
            name.unicodeScalars.append(scalar)
            return name + "b"
        }
        dir.write("hostile.csv", "name\n" + names.map(csvField).joined(separator: "\n") + "\n")
        let imported = bk(["import", "Customer", "hostile.csv", "--quiet"])
        XCTAssertEqual(imported.status, 0, "\(imported)")
        let list = bk(["list", "Customer"])
        XCTAssertNil(Self.firstHostile(list.stdout), "list printed a control character")
        for name in names { XCTAssertTrue(list.stdout.contains(Self.shownInTable(name)), "list shows \(Self.shownInTable(name))") }
        for (scalar, name) in zip(Self.hostile, names) where Self.bidiControls.contains(scalar) {
            let show = bk(["show", "Customer", name])
            XCTAssertNil(Self.firstHostile(show.stdout), "show printed \(Self.firstHostile(show.stdout) ?? "")")
            XCTAssertTrue(show.stdout.contains("name    \(Self.shownInTable(name))\n"), show.stdout)
        }

        // A report titled with every one of them (YAML escapes), listing the names.
        let title = "T" + String(String.UnicodeScalarView(Self.hostile)) + "end"
        let escapedTitle = Self.hostile.map { String(format: "\\u%04X", $0.value) }.joined()
        try FileManager.default.createDirectory(atPath: dir.file("defs"), withIntermediateDirectories: false)
        dir.write("defs/hostile.yaml", "title: \"T\(escapedTitle)end\"\nentity: Customer\nwhere: \"name BEGINSWITH 'h'\"\ncolumns:\n  - key: name\n")
        let reports = bk(["reports", "--reports", "defs"])
        XCTAssertEqual(reports.status, 0, "\(reports)")
        XCTAssertNil(Self.firstHostile(reports.stdout), "reports printed a control character")
        XCTAssertTrue(reports.stdout.contains(Self.shownInLine(title)), reports.stdout)
        let report = bk(["report", "hostile", "--reports", "defs", "--format", "text"])
        XCTAssertEqual(report.status, 0, "\(report)")
        XCTAssertNil(Self.firstHostile(report.stdout), "the text report printed a control character")
        XCTAssertEqual(report.stdout.split(separator: "\n").first.map(String.init), Self.shownInLine(title), "the title as reports shows it")
        for name in names {
            // A cell: every line break (as Swift's Character.isNewline) and tab a space, every other one its code.
            var cell = ""
            for character in name { cell += character.isNewline || character == "\t" ? " " : Self.shownInLine(String(character)) }
            XCTAssertTrue(report.stdout.contains(cell + "\n"), "the text report shows \(cell)")
        }
    }

    /// A file name with a line feed and an escape sequence: the import summary, `imports` and `init` show it with
    /// codes, so no line of the cron mail begins `bookkeeper:` that the tool did not write; `imports --format json`
    /// keeps the exact name.
    func testControlCharactersInFileNamesAreShownAsCodesInTheSummaryTheHistoryAndInit() throws {
        let file = "in\nbookkeeper: error: forged\u{1B}]0;t\u{07}\u{9B}2J\u{7F}.csv"
        dir.write(file, "name\nFile Name Ltd\n")
        let imported = bk(["import", "Customer", file])
        XCTAssertEqual(imported.status, 0, "\(imported)")
        XCTAssertNil(Self.firstHostile(imported.stdout), imported.stdout)
        XCTAssertTrue(imported.stdout.hasPrefix(Self.shownInLine(file) + " → Customer: 1 record in "), imported.stdout)
        XCTAssertFalse(imported.stdout.split(separator: "\n").contains { $0.hasPrefix("bookkeeper:") }, "no forged line: \(imported.stdout)")

        let history = bk(["imports"])
        XCTAssertEqual(history.status, 0, "\(history)")
        XCTAssertNil(Self.firstHostile(history.stdout), history.stdout)
        XCTAssertTrue(history.stdout.contains(Self.shownInTable(file)), history.stdout)
        let json = bk(["imports", "--format", "json"])
        let entries = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]]
        XCTAssertEqual(entries?.last?["file"] as? String, file, "JSON keeps the exact name")

        let storeName = "new\n\u{1B}[2J\u{85}.sqlite"
        let created = runCLI(["--store", storeName, "init"], in: dir.path)
        XCTAssertEqual(created.status, 0, "\(created)")
        XCTAssertEqual(created.stdout, "created \(Self.shownInLine(storeName))\n")
        let again = runCLI(["--store", storeName, "init"], in: dir.path)
        XCTAssertEqual(again.stderr, "bookkeeper: \(Self.shownInLine(storeName)) is already a store; nothing to do\n")
    }
}

/// A store file the job's user may write, in a folder it may not: SQLite cannot make the -wal and -shm beside it.
final class StoreFolderPermissionTests: SampleStoreTestCase {
    func testAWritableStoreInAFolderThatIsNotSaysTheFolderMustBeWritable() throws {
        try OtherUser.skipUnlessAvailable()
        XCTAssertEqual(chmod(store, 0o666), 0)
        XCTAssertEqual(chmod(dir.path, 0o755), 0)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        let before = try storeFingerprint(store)
        for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
        dir.write("tags.csv", "name\nnew\n")
        let message = "bookkeeper: \(store): cannot write the store: its folder \(dir.path) must be writable by this user too, "
            + "for SQLite's books.sqlite-wal and -shm files beside it\n"
        for args in [["add", "Tag", "name=x"], ["set", "Tag", "vip", "name=VIP"], ["delete", "Tag", "vip"], ["import", "Tag", "tags.csv"], ["migrate"]] {
            let r = OtherUser.run(["--store", store] + args, in: dir.path)
            XCTAssertEqual(r.status, 73, "\(args): \(r)")
            XCTAssertEqual(r.stderr, message, "\(args)")
        }
        // Readers still read it.
        let list = OtherUser.run(["--store", store, "list", "Tag"], in: dir.path)
        XCTAssertEqual(list.status, 0, "\(list)")
        XCTAssertEqual(try storeFingerprint(store), before)
    }
}

/// Tables with one long value: columns are padded to at most 60 characters, and a longer value overflows whole.
final class LongValueTableTests: StoreCommandTestCase {
    func testLongValuesArePrintedWholeAndColumnsArePaddedToAtMostSixty() throws {
        ok("init")
        let long = String(repeating: "x", count: 70) + "-end"
        let longer = String(repeating: "é", count: 100)
        ok("add", "Customer", "name=A", "code=1", "info=\(long)")
        ok("add", "Customer", "name=\(longer)", "code=22", "info=short")
        let sixty = String(repeating: "-", count: 60)
        let pad = { (text: String, width: Int) in text + String(repeating: " ", count: max(0, width - text.count)) }
        let expected = [
            "id  \(pad("name", 60))  code  info",
            "--  \(sixty)  ----  \(sixty)",
            " 1  \(pad("A", 60))  1     \(long)",
            " 2  \(longer)  22    short",
            "2 objects",
            "",
        ].joined(separator: "\n")
        XCTAssertEqual(ok("list", "Customer"), expected)
        let fetch = ok("fetch", "Customer", "--columns", "info, name")
        XCTAssertEqual(fetch, [
            "\(pad("info", 60))  name",
            "\(sixty)  \(sixty)",
            "\(long)  A",
            "\(pad("short", 60))  \(longer)",
            "2 objects",
            "",
        ].joined(separator: "\n"))
        // What a pipe reads is the whole value.
        XCTAssertTrue(ok("show", "Customer", "A").contains("info    \(long)\n"))
    }

    /// `list` and `fetch` of n rows with one value n × 256 characters long: linear in rows + value length (twice
    /// the rows and twice the value take about twice the time), where padding every row to the long value took
    /// rows × length (1,000 rows and a 1 MiB note: 20 s and a million dashes).
    func testListAndFetchWithOneLongValueTakeTimeLinearInRowsAndLength() throws {
        ok("init")
        func store(_ n: Int) -> String {
            let path = dir.file("rows-\(n).sqlite")
            if FileManager.default.fileExists(atPath: path) { return path }
            XCTAssertEqual(runCLI(["--store", path, "init"], in: dir.path).status, 0)
            var csv = "name,info\n"
            for i in 0..<n { csv += "name \(i),\(i == n / 2 ? String(repeating: "x", count: n * 256) : "short")\n" }
            dir.write("rows-\(n).csv", csv)
            let imported = runCLI(["--store", path, "import", "Customer", "rows-\(n).csv", "--quiet"], in: dir.path)
            XCTAssertEqual(imported.status, 0, "\(imported)")
            return path
        }
        let size = 1_000
        for args in [["list", "Customer"], ["fetch", "Customer", "--columns", "name, info"]] {
            let (ratio, small, large) = measuredDoublingRatio(size: size, repeats: 3) { n in
                childCPUSeconds(["--store", store(n)] + args)
            }
            XCTAssertLessThan(ratio, 3, "\(args): \(size) rows took \(small) s of CPU, \(2 * size) took \(large) s")
        }
    }
}

/// The CPU time (user and system) of a run of the binary (paths in `arguments` absolute), its output thrown away.
private func childCPUSeconds(_ arguments: [String]) -> Double {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([bookkeeperBinary] + arguments).map { strdup($0) } + [nil]
    let envp = childEnvironment().map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    precondition(posix_spawn(&pid, bookkeeperBinary, &actions, nil, argv, envp) == 0)
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    XCTAssertEqual(status, 0, "\(arguments)")
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// A decimal with a nonzero digit past the 18th place is a decimal number with too many places, not "not a
/// decimal number" — on the command line and in an import.
final class DecimalPlacesMessageTests: SampleStoreTestCase {
    func testADecimalWithMorePlacesThanAnyScaleHoldsSaysSo() throws {
        try fails(65, ["add", "OrderRow", "order=2026-001", "service=Repair", "price=1.0000000000000000001", "sum=1"],
                  "bookkeeper: OrderRow.price: \"1.0000000000000000001\" has more than 2 decimal places\n")
    }
}
