// Helpers for the batch-job reliability tests (issue 6): processes of the built binary started in the
// background, run as another user, or measured with wait4; a store's content compared without the
// times the import history records; a sample store copied rather than re-imported; seeded randomness.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

/// An integer from the environment (the long runs of `make stress`), else `fallback`.
func environmentInt(_ name: String, _ fallback: Int) -> Int {
    ProcessInfo.processInfo.environment[name].flatMap { Int($0) } ?? fallback
}

/// The environment every child gets: as `runCLI` gives it.
func childEnvironment(_ extra: [String: String] = [:]) -> [String: String] {
    var env = ProcessInfo.processInfo.environment
    env["BOOKKEEPER_STORE"] = nil
    env["BOOKKEEPER_MODEL"] = nil
    env["NO_COLOR"] = "1"
    env["TZ"] = env["TZ"] ?? "UTC"
    for (k, v) in extra { env[k] = v }
    return env
}

/// A run of the binary in the background; its output goes to files, so nothing can block it.
final class Child {
    let process = Process()
    private let out: String
    private let err: String
    private static let counter = NSLock()
    nonisolated(unsafe) private static var next = 0

    /// Starts `bookkeeper ARGS` (or `executable ARGS`) in `directory`.
    init(_ arguments: [String], in directory: String, environment: [String: String] = [:],
         executable: String = bookkeeperBinary, stdin: String? = nil) throws {
        Child.counter.lock()
        Child.next += 1
        let n = Child.next
        Child.counter.unlock()
        let logs = FileManager.default.temporaryDirectory.appendingPathComponent("bookkeeper-child-\(getpid())-\(n)").path
        out = logs + ".out"
        err = logs + ".err"
        XCTAssertTrue(FileManager.default.createFile(atPath: out, contents: nil))
        XCTAssertTrue(FileManager.default.createFile(atPath: err, contents: nil))
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        process.environment = childEnvironment(environment)
        process.standardOutput = FileHandle(forWritingAtPath: out)
        process.standardError = FileHandle(forWritingAtPath: err)
        process.standardInput = stdin.map { FileHandle(forReadingAtPath: $0)! } ?? FileHandle.nullDevice
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var isRunning: Bool { process.isRunning }
    func signal(_ signal: Int32) { kill(process.processIdentifier, signal) }

    /// Waits for the end; the exit status (or the signal's number, see `killedBySignal`) and the output.
    func wait() -> (status: Int32, killedBySignal: Bool, stdout: String, stderr: String) {
        process.waitUntilExit()
        let result = (process.terminationStatus, process.terminationReason == .uncaughtSignal,
                      (try? String(contentsOfFile: out, encoding: .utf8)) ?? "", (try? String(contentsOfFile: err, encoding: .utf8)) ?? "")
        try? FileManager.default.removeItem(atPath: out)
        try? FileManager.default.removeItem(atPath: err)
        return result
    }
}

/// What a program printed and how it exited.
struct ProgramResult: CustomStringConvertible {
    let status: Int32
    let stdout: String
    let stderr: String
    var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// Runs a program to its end and returns what it printed.
@discardableResult
func runProgram(_ executable: String, _ arguments: [String], in directory: String, environment: [String: String] = [:]) -> ProgramResult {
    guard let child = try? Child(arguments, in: directory, environment: environment, executable: executable) else {
        return ProgramResult(status: -1, stdout: "", stderr: "could not run \(executable)")
    }
    let r = child.wait()
    return ProgramResult(status: r.status, stdout: r.stdout, stderr: r.stderr)
}

// MARK: Another user

/// Runs the binary as user and group 65534 (nobody) with `setpriv` (util-linux), to test permissions while the
/// tests run as root (as CI does).
///
/// The checkout may live in a private folder (a 0700 home) that this user cannot enter, so it runs a copy of the
/// binary, with the shipped report definitions beside it (`Reports/` next to a `Package.swift`, where the binary
/// looks for them), in a world-readable temporary folder made once per test run. Stores and inputs are in the
/// tests' own temporary folders.
enum OtherUser {
    static let setpriv = "/usr/bin/setpriv"
    static let prefix = ["--reuid=65534", "--regid=65534", "--clear-groups"]

    /// The folder holding the copies, or why it could not be made.
    private static let installed: Result<String, InstallError> = {
        struct Failure: Error {}
        let fm = FileManager.default
        let folder = fm.temporaryDirectory.appendingPathComponent("bookkeeper-other-user-\(getpid())").path
        do {
            try? fm.removeItem(atPath: folder)
            try fm.createDirectory(atPath: folder + "/bin", withIntermediateDirectories: true)
            try fm.copyItem(atPath: bookkeeperBinary, toPath: folder + "/bin/bookkeeper")
            try fm.copyItem(atPath: packageRoot.appendingPathComponent("Reports").path, toPath: folder + "/Reports")
            _ = fm.createFile(atPath: folder + "/Package.swift", contents: Data("// where bookkeeper finds Reports/\n".utf8))
            // Readable (and the binary and folders runnable) by everyone, whatever the umask and the checkout's modes.
            var paths = [folder]
            if let walker = fm.enumerator(atPath: folder) {
                for case let relative as String in walker { paths.append(folder + "/" + relative) }
            }
            for path in paths {
                var isDirectory: ObjCBool = false
                _ = fm.fileExists(atPath: path, isDirectory: &isDirectory)
                let mode: mode_t = isDirectory.boolValue || path.hasSuffix("/bin/bookkeeper") ? 0o755 : 0o644
                guard chmod(path, mode) == 0 else { throw Failure() }
            }
            // Removed when the test run ends (a static is never released).
            atexit { try? FileManager.default.removeItem(atPath: OtherUser.folderForCleanup) }
            return .success(folder)
        } catch {
            return .failure(InstallError(text: "cannot copy the binary and Reports/ to \(folder): \(error)"))
        }
    }()

    struct InstallError: Error { let text: String }

    private static var folderForCleanup: String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bookkeeper-other-user-\(getpid())").path
    }

    /// The copy of the binary the other user runs.
    static var binary: String { ((try? installed.get()) ?? "/nonexistent") + "/bin/bookkeeper" }

    /// Why it cannot be done here, or nil when it can.
    static let unavailable: String? = {
        guard getuid() == 0 else { return "the tests do not run as root, so they cannot switch to another user" }
        guard FileManager.default.isExecutableFile(atPath: setpriv) else { return "\(setpriv) (util-linux) is missing" }
        if case .failure(let error) = installed { return error.text }
        let r = runProgram(setpriv, prefix + [binary, "--version"], in: "/")
        guard r.status == 0 else { return "setpriv cannot run the binary as uid 65534: \(r)" }
        return nil
    }()

    static func run(_ arguments: [String], in directory: String, environment: [String: String] = [:]) -> ProgramResult {
        runProgram(setpriv, prefix + [binary] + arguments, in: directory, environment: environment)
    }

    /// Starts `bookkeeper ARGS` as the other user in the background.
    static func start(_ arguments: [String], in directory: String, environment: [String: String] = [:]) throws -> Child {
        try Child(prefix + [binary] + arguments, in: directory, environment: environment, executable: setpriv)
    }

    static func skipUnlessAvailable() throws {
        if let reason = unavailable { throw XCTSkip("cannot test as another user: \(reason)") }
    }
}

// MARK: Peak memory

/// A run measured by GNU time: its status, the signal that ended it (0 if none), its peak resident set size,
/// and what it printed on stderr. (Not by wait4 on our own child: posix_spawn is a vfork, and exec records the
/// old address space's peak — this test process's — as the child's, so a child of a test process that had
/// grown past 256 MiB measured 256.7 MiB whatever it used. GNU time forks, and reports its child's own peak.) `feed`, when given, writes the child's standard input from another thread
/// (it returns when the child stops reading). Paths in `arguments` must be absolute.
func runMeasured(_ arguments: [String],
                 feed: (@Sendable (Int32) -> Void)? = nil) -> (status: Int32, signal: Int32, maxRSSBytes: Int, stderr: String) {
    let errPath = FileManager.default.temporaryDirectory.appendingPathComponent("bookkeeper-measured-\(getpid()).err").path
    if feed != nil { signal(SIGPIPE, SIG_IGN) }   // the child may stop reading: write then fails with EPIPE
    var fds: [Int32] = [-1, -1]
    precondition(pipe(&fds) == 0)
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if feed != nil {
        posix_spawn_file_actions_adddup2(&actions, fds[0], 0)
    } else {
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    posix_spawn_file_actions_addclose(&actions, fds[1])
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    let rssPath = errPath + ".rss"
    let time = "/usr/bin/time"
    let measured = FileManager.default.isExecutableFile(atPath: time)
    let program = measured ? time : bookkeeperBinary
    let argv = ((measured ? [time, "-f", "%M", "-o", rssPath] : []) + [bookkeeperBinary] + arguments).map { strdup($0) } + [nil]
    let envp = childEnvironment().map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, program, &actions, nil, argv, envp)
    close(fds[0])
    precondition(spawned == 0, "posix_spawn: \(spawned)")
    let writer = Thread { [fd = fds[1]] in
        feed?(fd)
        close(fd)
    }
    if feed != nil { writer.start() } else { close(fds[1]) }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    let stderr = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
    try? FileManager.default.removeItem(atPath: errPath)
    let signaled = (status & 0x7f) != 0 && (status & 0x7f) != 0x7f
    var peak = Int(usage.ru_maxrss) * 1024
    if measured {
        // GNU time's last line is the figure (a line before it says when the child was ended by a signal).
        let report = (try? String(contentsOfFile: rssPath, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(atPath: rssPath)
        if let kib = report.split(separator: "\n").last.flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }) { peak = kib * 1024 }
    }
    return (signaled ? -1 : (status >> 8) & 0xff, signaled ? status & 0x7f : 0, peak, stderr)
}

// MARK: Stores

/// A store with SampleData/ imported with the shipped profiles, made once and copied by the tests that need one (a
/// copy is a few milliseconds; importing is a second). The test runner runs the suite as several processes and gives
/// them one folder, `BOOKKEEPER_TEST_CACHE`: the first process to get there makes the store in it (under an
/// exclusive lock, renamed into place whole) and every other process copies that one. Without the variable, each
/// process makes its own.
enum SampleStore {
    nonisolated(unsafe) private static var made: (dir: TemporaryDirectory?, path: String)?
    private static let lock = NSLock()

    static var path: String {
        lock.lock()
        defer { lock.unlock() }
        if let made { return made.path }
        if let cache = ProcessInfo.processInfo.environment["BOOKKEEPER_TEST_CACHE"], !cache.isEmpty {
            let path = cache + "/sample.sqlite"
            let lockFile = open(cache + "/sample.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
            precondition(lockFile >= 0, "\(cache)/sample.lock: \(String(cString: strerror(errno)))")
            defer { close(lockFile) }
            while flock(lockFile, LOCK_EX) != 0 { precondition(errno == EINTR) }
            if !FileManager.default.fileExists(atPath: path) {
                make(at: cache + "/sample.making.sqlite")
                precondition(rename(cache + "/sample.making.sqlite", path) == 0)
            }
            made = (nil, path)
            return path
        }
        let dir = TemporaryDirectory("bookkeeper-sample")
        let path = dir.file("sample.sqlite")
        make(at: path)
        made = (dir, path)
        return path
    }

    private static func make(at path: String) {
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let data = packageRoot.appendingPathComponent("SampleData")
        precondition(runCLI(["--store", path, "init"]).status == 0)
        for (entity, file) in [("Tag", "tags"), ("Service", "services"), ("Customer", "customers"), ("Order", "orders")] {
            let r = runCLI(["--store", path, "import", entity, data.appendingPathComponent("\(file).csv").path,
                            "--profile", data.appendingPathComponent("\(file).yaml").path, "--quiet"])
            precondition(r.status == 0, "import \(file): \(r)")
        }
        precondition(!FileManager.default.fileExists(atPath: path + "-wal"), "the last connection to close checkpoints the store")
    }

    /// Copies the sample store to `target` (nothing else beside it).
    static func copy(to target: String) {
        for suffix in ["", "-wal", "-shm", "-activity"] { try? FileManager.default.removeItem(atPath: target + suffix) }
        try! FileManager.default.copyItem(atPath: path, toPath: target)
    }
}

/// The base of the tests that each start from a copy of the sample store in a folder of their own, run the binary
/// there with today fixed at 2026-11-21, and check that what fails leaves the store as it was.
class SampleStoreTestCase: XCTestCase {
    var dir: TemporaryDirectory!
    var store: String { dir.file("books.sqlite") }
    class var environment: [String: String] { ["BOOKKEEPER_TODAY": "2026-11-21"] }

    override func setUp() {
        super.setUp()
        dir = TemporaryDirectory()
        SampleStore.copy(to: store)
    }

    func bk(_ args: [String], environment: [String: String] = [:], stdin: String? = nil) -> CLIResult {
        runCLI(["--store", store] + args, in: dir.path, environment: Self.environment.merging(environment) { $1 }, stdin: stdin)
    }

    /// Runs `args`, which must fail with `status` and exactly `stderr`, and leave the store as it was.
    func fails(_ status: Int32, _ args: [String], _ stderr: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try storeFingerprint(store)
        let r = bk(args)
        XCTAssertEqual(r.status, status, "\(args): \(r)", file: file, line: line)
        XCTAssertEqual(r.stderr, stderr, "\(args)", file: file, line: line)
        XCTAssertEqual(try storeFingerprint(store), before, "\(args): the store is unchanged", file: file, line: line)
    }
}

/// Everything in a store, as text, without what differs between two runs of the same imports: the import history's
/// times. Two stores with the same content give the same text, row IDs included.
func storeContent(_ path: String) throws -> String {
    var out = ""
    for sql in try queryStore(path, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name") {
        out += (sql ?? "") + "\n"
    }
    let tables = try queryStore(path, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name").compactMap { $0 }
    for table in tables {
        var columns = try queryStore(path, "SELECT name FROM pragma_table_info('\(table)') ORDER BY cid").compactMap { $0 }
        if table == "_bookkeeper_imports" { columns.removeAll { $0 == "started_at" || $0 == "seconds" } }
        out += "## \(table)\n"
        let list = columns.map { "\"\($0)\"" }.joined(separator: ", ")
        for row in try queryRows(path, "SELECT \(list) FROM \"\(table)\" ORDER BY 1") {
            out += row.joined(separator: "|") + "\n"
        }
    }
    return out
}

/// The files in a directory, sorted (temporary files and leftovers show up here).
func filesIn(_ directory: String) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted()
}

/// The SHA-256-free fingerprint of raw bytes (for a file that SQLite can no longer read).
func fileBytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }

/// Waits (without a deadline: the machine may be slow) until `condition` holds or the child has ended.
/// Returns whether the condition held while the child was still running.
func waitUntil(_ child: Child, pollMicroseconds: UInt32 = 1000, _ condition: () -> Bool) -> Bool {
    while child.isRunning {
        if condition() { return child.isRunning }
        usleep(pollMicroseconds)
    }
    return false
}

func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
}

/// Quotes a CSV field (always: the reader accepts quoted fields everywhere).
func csvField(_ text: String) -> String { "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

/// Orders for `import Order`: `count` orders numbered `prefix-N` (or by `number`), each with `rows` rows, on
/// sample customers and services (which must exist).
func ordersCSV(prefix: String = "N", count: Int, rows: Int = 3, from start: Int = 0, number: ((Int) -> String)? = nil) -> String {
    let customers = ["Acme Ltd", "Müller GmbH", "Café Olé", "Smith & Sons", "O'Brien Builders"]
    let services = ["Delivery", "Repair", "Consulting", "Spare parts"]
    var text = "number,date,customer,made,paid,rows.service,rows.quantity,rows.price\n"
    for i in start..<(start + count) {
        let date = String(format: "2026-%02d-%02d", 1 + i % 12, 1 + i % 28)
        for r in 0..<rows {
            text += "\(number?(i) ?? "\(prefix)-\(i)"),\(date),\(csvField(customers[i % customers.count])),\(i % 2 == 0 ? "yes" : "no"),\(i % 3 == 0 ? "yes" : "no"),"
            text += "\(services[(i + r) % services.count]),\(1 + r),\(10 + i % 90).\(String(format: "%02d", (i * 7 + r) % 100))\n"
        }
    }
    return text
}
