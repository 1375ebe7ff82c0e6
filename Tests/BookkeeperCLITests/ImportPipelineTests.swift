import Foundation
import XCTest
import TestSupport

/// A batch writes on two threads (the importer's, which reads and checks the lines, and one that binds and steps
/// SQLite's inserts: BackgroundInserter) unless `BOOKKEEPER_IMPORT_THREADS=1` makes it write on one. The two must
/// not differ in anything a user sees: the same generated files imported both ways give the same stores, the same
/// output and messages, the same exit codes and the same rejects.
final class ImportPipelineTests: ImportTestCase {
    /// The bench's file shape (bench/generate.py): documents with their rows, customers and services created as they
    /// come; `random` shuffles the documents (each one's lines kept together), which makes the writer fill its
    /// order-number cache and drop the indexes whose keys then arrive out of order. `faults` spoils that many lines.
    private func ordersFile(lines: Int, random: Bool, faults: Int, seed: UInt64) -> String {
        var rng = SeededGenerator(seed: seed)
        var documents: [[String]] = []
        var written = 0
        var i = 0
        let start = Date(timeIntervalSince1970: 1_704_067_200)  // 2024-01-01
        let format = DateFormatter()
        format.dateFormat = "yyyy-MM-dd"
        format.timeZone = TimeZone(identifier: "UTC")
        while written < lines {
            let n = min(Int.random(in: 1...9, using: &rng), lines - written)
            let number = String(format: "B%08d", i + 1)
            let day = format.string(from: start.addingTimeInterval(Double(i / 7) * 86_400))
            let customer = String(format: "Customer %04d", Int.random(in: 1...max(2, lines / 50), using: &rng))
            let made = i % 7 == 0 ? "no" : "yes"
            let paid = i % 3 == 0 ? "no" : "yes"
            var document: [String] = []
            for _ in 0..<n {
                let service = String(format: "Service %03d", Int.random(in: 1...60, using: &rng))
                let cents = Int.random(in: 100..<1_000_000, using: &rng)
                document.append("\(number),\(day),\(customer),\(made),\(paid),\(service),\(cents / 100).\(String(format: "%02d", cents % 100))")
            }
            documents.append(document)
            written += n
            i += 1
        }
        if random { documents.shuffle(using: &rng) }
        var all = documents.flatMap { $0 }
        for _ in 0..<faults {
            let k = Int.random(in: 0..<all.count, using: &rng)
            var fields = all[k].split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: fields[6] = "12,3x"                 // a sum that is no number (and one field too many)
            case 1: fields[1] = "2024-13-40"            // no such date
            case 2: fields[6] = "abc"                   // a sum that is no number
            default: fields[3] = "perhaps"              // no boolean
            }
            all[k] = fields.joined(separator: ",")
        }
        return "number,date,customer,made,paid,rows.service,rows.sum\n" + all.joined(separator: "\n") + "\n"
    }

    /// The store's tables without the import history and the store's creation time (which record times).
    private func contents(of path: String) throws -> String {
        let dump = try dumpStore(path)
        var out: [Substring] = []
        var skipping = false
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { skipping = line == "## _bookkeeper_imports" }
            if !skipping && !line.contains("created_at") { out.append(line) }
        }
        return out.joined(separator: "\n")
    }

    /// Output without the figures that depend on the machine (times, rates).
    private func steady(_ text: String) -> String {
        text.replacingOccurrences(of: #"in [0-9][0-9.,]* (s|ms) \([0-9]+ records/s\)"#, with: "in T", options: .regularExpression)
    }

    /// Both ways run at one fixed moment: the store's creation time and any default of today or now are then the same.
    private let moment = ["BOOKKEEPER_TODAY": "2026-11-21T21:00:00Z"]
    private var oneThread: [String: String] { moment.merging(["BOOKKEEPER_IMPORT_THREADS": "1"]) { $1 } }

    /// Imports `file` with `arguments` into a new store, on two threads and on one; checks that nothing differs.
    private func compareBothWays(_ file: String, _ arguments: [String], seed: UInt64, label: String) throws {
        var results: [(status: Int32, stdout: String, stderr: String, store: String, rejects: String?)] = []
        for (k, environment) in [moment, oneThread].enumerated() {
            let path = dir.file("books-\(label)-\(k).sqlite")
            let initResult = runCLI(["--store", path, "init"], in: dir.path, environment: moment)
            XCTAssertEqual(initResult.status, 0, "\(initResult)")
            let rejectsFile = dir.file("rejects-\(label)-\(k).csv")
            var args = ["--store", path, "import", "Order", file] + arguments
            if arguments.contains("skip") { args += ["--rejects", rejectsFile] }
            let r = runCLI(args, in: dir.path, environment: environment)
            let rejects = try? String(contentsOfFile: rejectsFile, encoding: .utf8)
            results.append((r.status, steady(r.stdout).replacingOccurrences(of: rejectsFile, with: "REJECTS"),
                            r.stderr.replacingOccurrences(of: rejectsFile, with: "REJECTS"),
                            try contents(of: path), rejects))
        }
        let (two, one) = (results[0], results[1])
        let context = "\(label), seed \(seed)"
        XCTAssertEqual(two.status, one.status, context)
        XCTAssertEqual(two.stdout, one.stdout, context)
        XCTAssertEqual(two.stderr.replacingOccurrences(of: "-0.sqlite", with: "-N.sqlite"),
                       one.stderr.replacingOccurrences(of: "-1.sqlite", with: "-N.sqlite"), context)
        XCTAssertEqual(two.store, one.store, context)
        XCTAssertEqual(two.rejects, one.rejects, context)
    }

    func testTwoThreadsAndOneGiveTheSameStoresAndMessages() throws {
        let seed = UInt64(ProcessInfo.processInfo.environment["IMPORT_PIPELINE_SEED"] ?? "") ?? UInt64.random(in: 1...1_000_000)
        print("ImportPipelineTests seed \(seed) (IMPORT_PIPELINE_SEED=\(seed) repeats it)")
        for random in [false, true] {
            let order = random ? "random" : "dated"
            let clean = csv("clean-\(order).csv", ordersFile(lines: 3_000, random: random, faults: 0, seed: seed))
            try compareBothWays(clean, ["--create-missing"], seed: seed, label: "clean-\(order)")
            try compareBothWays(clean, ["--create-missing", "--dry-run"], seed: seed, label: "dry-\(order)")
            let faulty = csv("faulty-\(order).csv", ordersFile(lines: 3_000, random: random, faults: 12, seed: seed &+ 1))
            try compareBothWays(faulty, ["--create-missing"], seed: seed, label: "faulty-\(order)")
            try compareBothWays(faulty, ["--create-missing", "--on-error", "skip"], seed: seed, label: "skip-\(order)")
        }
    }

    /// `BOOKKEEPER_IMPORT_TIMES=1` (BatchTimes) only adds the batch's phase times to standard error: the same
    /// store, output, exit code and other messages as without it, for a clean import with its indexes rebuilt
    /// (random order), a dry run, and an import that fails (whose batch is rolled back and reports no times).
    func testPhaseTimesChangeNothingButAddTheirLines() throws {
        let seed = UInt64.random(in: 1...1_000_000)
        print("ImportPipelineTests times seed \(seed)")
        let clean = csv("times-clean.csv", ordersFile(lines: 1_500, random: true, faults: 0, seed: seed))
        let faulty = csv("times-faulty.csv", ordersFile(lines: 1_500, random: true, faults: 5, seed: seed &+ 1))
        let timed = moment.merging(["BOOKKEEPER_IMPORT_TIMES": "1"]) { $1 }
        for (n, (file, arguments)) in [(clean, ["--create-missing"]), (clean, ["--create-missing", "--dry-run"]),
                                       (faulty, ["--create-missing"])].enumerated() {
            var results: [(status: Int32, stdout: String, stderr: String, store: String)] = []
            for (k, environment) in [moment, timed].enumerated() {
                let path = dir.file("times-\(n)-\(k).sqlite")
                let created = runCLI(["--store", path, "init"], in: dir.path, environment: moment)
                XCTAssertEqual(created.status, 0, "\(created)")
                let r = runCLI(["--store", path, "import", "Order", file] + arguments, in: dir.path, environment: environment)
                results.append((r.status, steady(r.stdout), r.stderr.replacingOccurrences(of: "-\(k).sqlite", with: "-N.sqlite"),
                                try contents(of: path)))
            }
            let (plain, withTimes) = (results[0], results[1])
            let context = "\(arguments), seed \(seed)"
            XCTAssertEqual(plain.status, withTimes.status, context)
            XCTAssertEqual(plain.stdout, withTimes.stdout, context)
            XCTAssertEqual(plain.store, withTimes.store, context)
            // The times' block: its heading and the indented lines after it.
            var lines = withTimes.stderr.split(separator: "\n", omittingEmptySubsequences: false)
            if let first = lines.firstIndex(where: { $0.hasPrefix("batch times:") }) {
                var end = first + 1
                while end < lines.count && lines[end].hasPrefix("  ") { end += 1 }
                XCTAssertGreaterThan(end - first, 3, context)
                lines.removeSubrange(first..<end)
            }
            let rest = lines.joined(separator: "\n")
            XCTAssertEqual(plain.stderr, rest, context)
            if plain.status == 0 {
                XCTAssertTrue(withTimes.stderr.contains("batch times:"), context)
                for phase in ["load: reading the records", "end of the transaction"] {
                    XCTAssertTrue(withTimes.stderr.contains(phase), "\(phase): \(context)")
                }
                // The random order makes the writer drop the index of order dates and rebuild it at the end (a dry
                // run rolls back before the rebuild).
                let dry = arguments.contains("--dry-run")
                XCTAssertEqual(withTimes.stderr.contains("index rebuild: Order_date_index"), !dry, context)
                XCTAssertEqual(withTimes.stderr.contains("index rebuild done"), !dry, context)
            } else {
                XCTAssertFalse(withTimes.stderr.contains("batch times:"), context)
            }
        }
    }

    /// The store written both ways is the one the file gives, and a second import of the same file into it
    /// (every document found, so no insert goes to the other thread) is the same both ways too.
    func testReimportIsTheSameBothWays() throws {
        let seed = UInt64.random(in: 1...1_000_000)
        print("ImportPipelineTests reimport seed \(seed)")
        let file = csv("orders.csv", ordersFile(lines: 2_000, random: true, faults: 0, seed: seed))
        var stores: [String] = []
        for environment in [moment, oneThread] {
            removeStore()
            XCTAssertEqual(runCLI(["--store", store, "init"], in: dir.path, environment: moment).status, 0)
            for _ in 0..<2 {
                let r = runCLI(["--store", store, "import", "Order", file, "--create-missing"], in: dir.path, environment: environment)
                XCTAssertEqual(r.status, 0, "seed \(seed): \(r)")
            }
            stores.append(try contents(of: store))
        }
        XCTAssertEqual(stores[0], stores[1], "seed \(seed)")
        XCTAssertEqual(try query("SELECT count(*) FROM OrderRow"), ["2000"])
    }
}
