// Overlapping jobs on one store (issue 6, "Concurrency"): imports, reports, fetches, an export and a backup
// started at once, as processes of the built binary. Writers take turns (WAL, a busy timeout) or give up
// cleanly after --wait with status 75 and the busy message; readers never wait and always see one committed
// state; and the final store equals the one a serial run of the imports that succeeded gives, in the order
// they committed (the import history records it), row IDs included.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ReliabilityConcurrencyTests: XCTestCase {
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21"]
    /// Who holds the lock, or — when the holder is committing (it removes its note just before COMMIT) or SQLite
    /// is checkpointing — that another process is writing.
    static let busy = try! NSRegularExpression(
        pattern: #"^bookkeeper: .*books\.sqlite: store is busy \((import of [^ ]+\.csv by pid \d+ since \d\d:\d\d:\d\d[+-]\d\d:\d\d|another process is writing to it)\)\n$"#)

    struct Job {
        let name: String
        let arguments: [String]
        /// Writers may be refused with status 75 (a short --wait).
        let mayBeBusy: Bool
    }

    /// `make test` runs one round, `make stress` ten: each a new store, the same jobs, another interleaving.
    func testImportsReportsAndFetchesStartedAtOnceEqualASerialRun() throws {
        let rounds = Trials.count("BOOKKEEPER_CONCURRENCY_ROUNDS", quick: 1, stress: 10)
        for round in 1...rounds {
            let summary = try oneRound()
            reportTrials("overlapping jobs", "round \(round) of \(rounds): \(summary)")
        }
    }

    private func oneRound() throws -> String {
        let dir = TemporaryDirectory("bookkeeper-concurrency")
        let store = dir.file("books.sqlite")
        SampleStore.copy(to: store)
        let base = dir.file("base.sqlite")
        SampleStore.copy(to: base)

        // Writers that do not depend on each other's data, so every order of commits succeeds; two import the
        // same file (the second finds it unchanged), two have a --wait so short that they may give up.
        dir.write("a.csv", ordersCSV(prefix: "A", count: 1500))
        dir.write("b.csv", ordersCSV(prefix: "B", count: 1500))
        dir.write("c.csv", ordersCSV(prefix: "C", count: 300))
        dir.write("customers.csv", "name,code,info\n" + (1...500).map { "New customer \($0),N\($0),\"info, \($0)\"\n" }.joined())
        dir.write("services.csv", "name,info\nDelivery,\"Courier delivery, now by bike\"\nRepair,Workshop repair\n")
        dir.write("tags.csv", "name\nnew tag\n")
        let writers: [Job] = [
            Job(name: "a", arguments: ["import", "Order", "a.csv", "--quiet"], mayBeBusy: false),
            Job(name: "b", arguments: ["import", "Order", "b.csv", "--quiet"], mayBeBusy: false),
            Job(name: "customers", arguments: ["import", "Customer", "customers.csv", "--quiet"], mayBeBusy: false),
            Job(name: "a again", arguments: ["import", "Order", "a.csv", "--quiet"], mayBeBusy: false),
            Job(name: "services", arguments: ["--wait", "0.05", "import", "Service", "services.csv", "--quiet"], mayBeBusy: true),
            Job(name: "tags", arguments: ["--wait", "0", "import", "Tag", "tags.csv", "--quiet"], mayBeBusy: true),
            Job(name: "c", arguments: ["import", "Order", "c.csv", "--quiet"], mayBeBusy: false),
        ]
        let readers: [Job] = [
            Job(name: "count", arguments: ["fetch", "Order", "--count"], mayBeBusy: false),
            Job(name: "customers", arguments: ["fetch", "Customer", "--format", "csv", "--columns", "name, code, orders.@count"], mayBeBusy: false),
            Job(name: "sales", arguments: ["report", "sales-by-customer", "--format", "csv", "--param", "from=2000-01-01"], mayBeBusy: false),
            Job(name: "unpaid", arguments: ["report", "unpaid-orders", "--format", "json"], mayBeBusy: false),
            Job(name: "export", arguments: ["export", "Order"], mayBeBusy: false),
        ]

        // Meanwhile, the busy note is read as often as it can be: each writer creates it, and it must never be found
        // empty (a writer refused then could not name its holder).
        final class NoteWatch: @unchecked Sendable {
            let lock = NSLock()
            var watching = true, seen = 0, empty = 0
        }
        let watch = NoteWatch()
        Thread {
            while watch.lock.withLock({ watch.watching }) {
                if let data = FileManager.default.contents(atPath: store + "-activity") {
                    watch.lock.withLock { watch.seen += 1; if data.isEmpty { watch.empty += 1 } }
                }
                usleep(20)
            }
        }.start()
        // All at once, readers twice (once among the first, once among the last).
        var running: [(Job, Child, isWriter: Bool)] = []
        for (i, writer) in writers.enumerated() {
            running.append((writer, try Child(["--store", store] + writer.arguments, in: dir.path, environment: Self.environment), true))
            if i < readers.count {
                running.append((readers[i], try Child(["--store", store] + readers[i].arguments, in: dir.path, environment: Self.environment), false))
            }
        }
        for reader in readers {
            running.append((reader, try Child(["--store", store] + reader.arguments, in: dir.path, environment: Self.environment), false))
        }
        let backup = dir.file("backup.sqlite")
        running.append((Job(name: "backup", arguments: [], mayBeBusy: false),
                        try Child(["--store", store, "backup", backup, "--quiet"], in: dir.path), false))
        let reportFile = dir.file("out/sales.csv")
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        running.append((Job(name: "sales to a file", arguments: [], mayBeBusy: false),
                        try Child(["--store", store, "report", "sales-by-customer", "--format", "csv", "--param", "from=2000-01-01",
                                   "--output", reportFile], in: dir.path, environment: Self.environment), false))

        var readerOutputs: [(Job, String)] = []
        var refused = 0
        var named = 0
        for (job, child, isWriter) in running {
            let r = child.wait()
            XCTAssertFalse(r.killedBySignal, "\(job.name): \(r)")
            if isWriter && r.status == 75 {
                XCTAssertTrue(job.mayBeBusy, "\(job.name) gave up although its --wait was the default 30 s")
                let range = NSRange(r.stderr.startIndex..., in: r.stderr)
                XCTAssertNotNil(Self.busy.firstMatch(in: r.stderr, range: range), "\(job.name): \(r.stderr)")
                refused += 1
                if r.stderr.contains(" by pid ") { named += 1 }
                continue
            }
            XCTAssertEqual(r.status, 0, "\(job.name): \(r)")
            XCTAssertEqual(r.stderr, "", job.name)
            if !isWriter && !job.arguments.isEmpty { readerOutputs.append((job, r.stdout)) }
        }
        let (notesSeen, emptyNotes) = watch.lock.withLock { watch.watching = false; return (watch.seen, watch.empty) }
        XCTAssertEqual(emptyNotes, 0, "the busy note was found empty \(emptyNotes) of \(notesSeen) times it was read")
        XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"])
        XCTAssertEqual(runCLI(["--store", store, "check", "--quiet"], in: dir.path).status, 0)

        // The serial run: the imports that committed, one after another in the order they committed.
        let committed = try queryStore(store, "SELECT file FROM _bookkeeper_imports WHERE id > 4 ORDER BY id").compactMap { $0 }
        XCTAssertEqual(committed.count, writers.count - refused, "\(committed)")
        var states = [try storeContent(base)]
        var validOutputs: [String: Set<String>] = [:]
        func recordReaders() {
            for reader in readers {
                let r = runCLI(["--store", base] + reader.arguments, in: dir.path, environment: Self.environment)
                validOutputs[reader.name, default: []].insert(r.stdout)
            }
            let r = runCLI(["--store", base, "report", "sales-by-customer", "--format", "csv", "--param", "from=2000-01-01"],
                           in: dir.path, environment: Self.environment)
            validOutputs["sales to a file", default: []].insert(r.stdout)
        }
        recordReaders()
        for file in committed {
            let job = writers.first { $0.arguments.contains(file) }!
            let r = runCLI(["--store", base] + job.arguments, in: dir.path, environment: Self.environment)
            XCTAssertEqual(r.status, 0, "serial \(file): \(r)")
            states.append(try storeContent(base))
            recordReaders()
        }
        XCTAssertEqual(try storeContent(store), states.last!, "the final store equals the serial run's")

        // Every reader saw one committed state, whole: its output is the output of some state of the serial run.
        for (job, output) in readerOutputs {
            XCTAssertTrue(validOutputs[job.name]!.contains(output), "\(job.name) saw something no committed state gives")
        }
        XCTAssertTrue(validOutputs["sales to a file"]!.contains(try String(contentsOfFile: reportFile, encoding: .utf8)))
        XCTAssertEqual(filesIn(dir.file("out")), ["sales.csv"], "no temporary file is left")
        // The backup, taken while the imports ran, is one of the committed states.
        XCTAssertEqual(try queryStore(backup, "PRAGMA integrity_check"), ["ok"])
        XCTAssertTrue(states.contains(try storeContent(backup)), "the backup is a committed state")
        return ("busy note read \(notesSeen) times, \(emptyNotes) of them empty; \(writers.count) writers (\(refused) gave up after a short --wait with status 75, \(named) of them naming the holder), "
              + "\(readerOutputs.count) readers, a backup and a report to a file, all at once; "
              + "\(committed.count) imports committed, in the order \(committed.joined(separator: ", "))")
    }

    /// A writer that cannot get the store within --wait says who holds it, and exits 75; the holder is unharmed.
    func testABusyStoreNamesItsHolderAndExits75() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("books.sqlite")
        SampleStore.copy(to: store)
        dir.write("orders.csv", ordersCSV(prefix: "L", count: 2000))
        dir.write("tags.csv", "name\nlate\n")
        let holder = try Child(["--store", store, "import", "Order", "orders.csv", "--quiet"], in: dir.path)
        // Once it holds the write lock (it says so in the activity file), stop it there: it keeps the lock for as
        // long as the test needs, whatever the machine's speed.
        let holding = waitUntil(holder) { FileManager.default.fileExists(atPath: store + "-activity") }
        holder.signal(SIGSTOP)
        XCTAssertTrue(holding, "the import ended before it took the lock")
        let before = try storeFingerprint(store)

        let start = Date()
        let late = runCLI(["--store", store, "--wait", "0.5", "import", "Tag", "tags.csv"], in: dir.path)
        let waited = Date().timeIntervalSince(start)
        XCTAssertEqual(late.status, 75, "\(late)")
        let pattern = "^bookkeeper: \(NSRegularExpression.escapedPattern(for: store)): store is busy \\(import of orders\\.csv by pid \(holder.pid) since \\d\\d:\\d\\d:\\d\\d[+-]\\d\\d:\\d\\d\\)\n$"
        XCTAssertNotNil(try NSRegularExpression(pattern: pattern).firstMatch(in: late.stderr, range: NSRange(late.stderr.startIndex..., in: late.stderr)),
                        late.stderr)
        XCTAssertGreaterThanOrEqual(waited, 0.5, "it waited --wait seconds before giving up")
        XCTAssertEqual(late.stdout, "")
        // For a log collector: one JSON object, on one line, with the same message.
        let json = runCLI(["--store", store, "--wait", "0", "--log-format", "json", "import", "Tag", "tags.csv"], in: dir.path)
        XCTAssertEqual(json.status, 75)
        XCTAssertEqual(json.stderr.split(separator: "\n").count, 1, json.stderr)
        let object = try JSONSerialization.jsonObject(with: Data(json.stderr.utf8)) as? [String: String]
        XCTAssertEqual(object?["level"], "error")
        XCTAssertEqual(object?["message"].map { "bookkeeper: " + $0 + "\n" }?.replacingOccurrences(of: #"since \d\d:\d\d:\d\d[+-]\d\d:\d\d"#, with: "since T", options: .regularExpression),
                       late.stderr.replacingOccurrences(of: #"since \d\d:\d\d:\d\d[+-]\d\d:\d\d"#, with: "since T", options: .regularExpression))
        // Every kind of writer gets the same answer; readers are not held up.
        for args in [["add", "Tag", "name=x"], ["delete", "Tag", "vip"], ["migrate"]] {
            let r = runCLI(["--store", store, "--wait", "0"] + args, in: dir.path)
            if args[0] == "migrate" && r.status == 0 { continue }   // nothing to migrate: it does not need the lock
            XCTAssertEqual(r.status, 75, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("store is busy (import of orders.csv by pid \(holder.pid) since "), "\(args): \(r.stderr)")
        }
        let reader = runCLI(["--store", store, "fetch", "Tag", "--count"], in: dir.path)
        XCTAssertEqual(reader.stdout, "4\n", "a reader sees the last committed state: \(reader)")
        XCTAssertEqual(try storeFingerprint(store), before)

        holder.signal(SIGCONT)
        let finished = holder.wait()
        XCTAssertEqual(finished.status, 0, "\(finished)")
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM \"Order\" WHERE number LIKE 'L-%'"), ["2000"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-activity"), "the holder removes its note when it commits")
        // With the default --wait the late writer would have waited its turn: now it simply succeeds.
        XCTAssertEqual(runCLI(["--store", store, "import", "Tag", "tags.csv", "--quiet"], in: dir.path).status, 0)
    }
}
