import Foundation
import Synchronization
import TestSupport
import XCTest
@testable import ObjectStore

/// Issue 31: books on PostgreSQL through PgBouncer, in transaction pooling (each transaction gets whichever server
/// session is free) and in session pooling, give what they give on a direct connection — and two books sharing a
/// pool of two server sessions never see each other's rows (docs/postgresql.md, "PgBouncer"). The test starts its
/// own PgBouncers in front of the tier's server (scripts/postgresql-server.sh pgbouncer DIR MODE) and stops them
/// after; it skips, saying so, only when pgbouncer is not installed (`make test-postgresql` installs it).
final class PgBouncerTests: XCTestCase {
    static let modes = ["transaction", "session"]
    /// The PgBouncers started, by pool mode: the socket folder and port.
    private static let started = Mutex<[String: (host: String, port: String)]>([:])

    override class func tearDown() {
        let modes = started.withLock { started in
            defer { started = [:] }
            return Array(started.keys)
        }
        if let server = PostgreSQLTestDatabase.host {
            for mode in modes { _ = run(script, ["pgbouncer-stop", server, mode]) }
        }
        super.tearDown()
    }

    static var script: String { packageRoot.appendingPathComponent("scripts/postgresql-server.sh").path }

    /// Runs scripts/postgresql-server.sh with its output in a file: the PgBouncer it starts would inherit every
    /// descriptor the script has — Process's own, whose end `waitUntilExit` waits for, among them — so all but 0, 1
    /// and 2 are closed first, and those go to /dev/null and the log (as PostgreSQLFailureTests does).
    private static func run(_ script: String, _ arguments: [String]) -> (status: Int32, output: String) {
        let log = NSTemporaryDirectory() + "pgbouncer-tests-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
                             + "log=$1; shift; \"$@\" >\"$log\" 2>&1 </dev/null", "run", log, script] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do { try process.run() } catch { return (-1, "\(error)") }
        process.waitUntilExit()
        return (process.terminationStatus, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    /// The URI of books in `schema` through the PgBouncer of `mode` (started on first use), or directly (nil).
    func uri(_ schema: String, through mode: String?) throws -> String {
        _ = try PostgreSQLTestDatabase.requireConninfo()
        guard let server = PostgreSQLTestDatabase.host, let serverPort = PostgreSQLTestDatabase.port else {
            throw XCTSkip("BOOKKEEPER_TEST_POSTGRESQL_HOST and _PORT are not set")
        }
        var (host, port) = (server, serverPort)
        if let mode {
            (host, port) = try Self.started.withLock { started in
                if let known = started[mode] { return known }
                guard FileManager.default.isExecutableFile(atPath: "/usr/sbin/pgbouncer")
                        || FileManager.default.isExecutableFile(atPath: "/usr/bin/pgbouncer") else {
                    throw XCTSkip("pgbouncer is not installed (`make test-postgresql` installs it: the Makefile's APT_PACKAGES)")
                }
                let r = Self.run(Self.script, ["pgbouncer", server, mode])
                guard r.status == 0 else { throw XCTSkip("unexpected: pgbouncer did not start: \(r.output)") }
                let env = try String(contentsOfFile: "\(server)/env-pgbouncer-\(mode)", encoding: .utf8)
                func value(_ name: String) -> String {
                    let line = env.split(separator: "\n").first { $0.hasPrefix("export \(name)=") } ?? ""
                    return String(line.dropFirst("export \(name)=".count)).trimmingCharacters(in: CharacterSet(charactersIn: "'"))
                }
                let bouncer = (value("BOOKKEEPER_TEST_PGBOUNCER_HOST"), value("BOOKKEEPER_TEST_PGBOUNCER_PORT"))
                started[mode] = bouncer
                return bouncer
            }
        }
        let encodedHost = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
        return "postgresql://bk_owner@\(encodedHost):\(port)/bk_test?schema=\(schema)"
    }

    /// A new schema name for books, dropped after the test.
    func freshSchema() throws -> String {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        return books.location.schema
    }

    // MARK: The commands, through each pool mode, as direct

    /// PostgreSQLCommandTests' script (init, add, set, delete, show, list, fetch), then export of every entity and
    /// every shipped report in CSV.
    static let steps: [[String]] = {
        let reports = packageRoot.appendingPathComponent("Reports").path
        var steps = PostgreSQLCommandTests.script
        for entity in ["Tag", "Service", "Customer", "Order", "OrderRow"] { steps.append(["export", entity]) }
        for name in ["customers", "order-details", "sales-by-customer", "sales-by-month", "sales-by-service", "unpaid-orders"] {
            steps.append(["report", name, "--reports", reports, "--format", "csv"])
        }
        return steps
    }()

    func testEveryCommandThroughEachPoolModeAnswersAsDirect() throws {
        let today = ["BOOKKEEPER_TODAY": "2026-11-21"]
        let direct = try freshSchema()
        let directURI = try uri(direct, through: nil)
        let directName = try PostgreSQLLocation(uri: directURI).displayName
        var answers: [CLIResult] = []
        for step in Self.steps {
            let r = runCLI(["--store", directURI] + step, environment: today)
            if ["export", "report"].contains(step[0]) { XCTAssertEqual(r.status, 0, "\(step): \(r)") }
            answers.append(r)
        }
        for mode in Self.modes {
            let pooledURI = try uri(try freshSchema(), through: mode)
            let pooledName = try PostgreSQLLocation(uri: pooledURI).displayName
            for (step, expected) in zip(Self.steps, answers) {
                let r = runCLI(["--store", pooledURI] + step, environment: today)
                XCTAssertEqual(r.status, expected.status, "\(mode): \(step): exit status\ndirect: \(expected)\npooled: \(r)")
                XCTAssertEqual(r.stdout.replacingOccurrences(of: pooledName, with: "STORE"),
                               expected.stdout.replacingOccurrences(of: directName, with: "STORE"), "\(mode): \(step): stdout")
                XCTAssertEqual(r.stderr.replacingOccurrences(of: pooledName, with: "STORE"),
                               expected.stderr.replacingOccurrences(of: directName, with: "STORE"), "\(mode): \(step): stderr")
            }
        }
    }

    // MARK: Two books, one pool

    /// Runs every command of `commands` at once, each its own process; their results in order.
    func concurrently(_ commands: [[String]]) -> [CLIResult] {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var byIndex: [Int: CLIResult] = [:]
        }
        let results = Results()
        DispatchQueue.concurrentPerform(iterations: commands.count) { i in
            let r = runCLI(commands[i])
            results.lock.withLock { results.byIndex[i] = r }
        }
        return commands.indices.map { results.byIndex[$0]! }
    }

    /// Books A and B, their rows told apart by name, read and written at once by many processes through two server
    /// sessions: every read answers what a direct read of the same books answers, never the other books' rows, and
    /// every write lands in its own books. Many rounds; reads and writes mixed in each.
    func testTwoBooksSharingAPoolNeverSeeEachOthersRows() throws {
        for mode in Self.modes {
            let schemas = [try freshSchema(), try freshSchema()]
            let direct = try schemas.map { try uri($0, through: nil) }
            let pooled = try schemas.map { try uri($0, through: mode) }
            for (b, store) in direct.enumerated() {
                XCTAssertEqual(runCLI(["--store", store, "init"]).status, 0)
                for i in 0..<(3 + 4 * b) {
                    XCTAssertEqual(runCLI(["--store", store, "add", "Customer", "name=\(["A", "B"][b])-\(i)", "code=K\(i)"]).status, 0)
                }
            }
            let reads: [[String]] = [
                ["fetch", "Customer", "--columns", "name, code", "--sort", "name"],
                ["fetch", "Customer", "--count"],
                ["fetch", "Customer", "--where", "name BEGINSWITH %@", "--arg", "A", "--columns", "name", "--sort", "name"],
                ["list", "Customer"],
                ["show", "Customer", "Customer/2"],
            ]
            var added = [0, 0]
            for round in 0..<6 {
                // Reads only, at once: each answers exactly what a direct read of its books answers.
                let expected = direct.map { store in reads.map { runCLI(["--store", store] + $0) } }
                let asked = (0..<12).map { k in (books: (k + round) % 2, read: (k + round / 2) % reads.count) }
                let answers = concurrently(asked.map { ["--store", pooled[$0.books]] + reads[$0.read] })
                for (r, (b, read)) in zip(answers, asked) {
                    XCTAssertEqual(r.status, expected[b][read].status, "\(mode) round \(round): \(reads[read]) of books \(b): \(r)")
                    XCTAssertEqual(r.stdout, expected[b][read].stdout, "\(mode) round \(round): \(reads[read]) of books \(b)")
                    XCTAssertEqual(r.stderr.replacingOccurrences(of: try PostgreSQLLocation(uri: pooled[b]).displayName, with: "STORE"),
                                   expected[b][read].stderr.replacingOccurrences(of: try PostgreSQLLocation(uri: direct[b]).displayName, with: "STORE"),
                                   "\(mode) round \(round): \(reads[read]) of books \(b)")
                }
                // Reads and writes at once: a read may see this round's adds of its books or not, never a row of
                // the other books; every add lands in its own books.
                var commands: [[String]] = []
                var writes: [Int?] = []
                for k in 0..<12 {
                    let b = (k + round) % 2
                    if k % 3 == 2 {
                        commands.append(["--store", pooled[b], "add", "Customer", "name=\(["A", "B"][b])-new-\(round)-\(k)"])
                        writes.append(b)
                        added[b] += 1
                    } else {
                        commands.append(["--store", pooled[b]] + reads[(k + round) % reads.count])
                        writes.append(nil)
                    }
                }
                for (i, r) in concurrently(commands).enumerated() {
                    let b = writes[i] ?? (i + round) % 2
                    XCTAssertEqual(r.status, 0, "\(mode) round \(round): \(commands[i]): \(r)")
                    XCTAssertFalse(r.stdout.contains(["B-", "A-"][b]), "\(mode) round \(round): books \(b) showed the other's rows: \(r.stdout)")
                }
                for b in 0..<2 {
                    let names = runCLI(["--store", direct[b], "fetch", "Customer", "--columns", "name", "--format", "csv"]).stdout
                    XCTAssertEqual(names.split(separator: "\n").filter { $0.contains("-new-") }.count, added[b], "\(mode) round \(round): books \(b)")
                    XCTAssertFalse(names.contains(["B-", "A-"][b]), "\(mode) round \(round): \(names)")
                }
            }
            // The final answers, through the pool and direct, are the same.
            for b in 0..<2 {
                for read in reads {
                    XCTAssertEqual(runCLI(["--store", pooled[b]] + read).stdout, runCLI(["--store", direct[b]] + read).stdout, "\(mode): \(read)")
                }
            }
        }
    }

    // MARK: Writers take turns

    /// A write through the pool takes the books' advisory lock in its transaction: while another session holds it,
    /// the write waits its `--wait` and is refused as busy (75, one line, nothing written); once the lock is let go
    /// it goes through. Writers of other books do not wait.
    func testAWriteThroughThePoolWaitsForTheBooksLock() throws {
        for mode in Self.modes {
            let schema = try freshSchema(), other = try freshSchema()
            let pooled = try uri(schema, through: mode), otherPooled = try uri(other, through: mode)
            XCTAssertEqual(runCLI(["--store", pooled, "init"]).status, 0)
            XCTAssertEqual(runCLI(["--store", otherPooled, "init"]).status, 0)
            let holder = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo(),
                                                  writeLockKey: PostgreSQLBooks.writeLockKey(schema: schema))
            defer { holder.close() }
            try holder.transaction(.immediate) {
                let refused = runCLI(["--store", pooled, "--wait", "1", "add", "Tag", "name=late"])
                XCTAssertEqual(refused.status, 75, "\(mode): \(refused)")
                XCTAssertTrue(refused.stderr.hasSuffix("store is busy (another process is writing to it)\n"), "\(mode): \(refused)")
                XCTAssertEqual(refused.stderr.split(separator: "\n").count, 1, "\(mode): \(refused)")
                let elsewhere = runCLI(["--store", otherPooled, "--wait", "1", "add", "Tag", "name=elsewhere"])
                XCTAssertEqual(elsewhere.status, 0, "\(mode): other books do not wait: \(elsewhere)")
                // A read does not wait for the lock.
                XCTAssertEqual(runCLI(["--store", pooled, "fetch", "Tag", "--count"]).stdout, "0\n", mode)
                return .commit
            }
            // Writers queued behind one another all go through, each once.
            let adds = (0..<8).map { ["--store", pooled, "add", "Tag", "name=t\($0)"] }
            for r in concurrently(adds) { XCTAssertEqual(r.status, 0, "\(mode): \(r)") }
            XCTAssertEqual(runCLI(["--store", pooled, "fetch", "Tag", "--count"]).stdout, "8\n", mode)
        }
    }
}
