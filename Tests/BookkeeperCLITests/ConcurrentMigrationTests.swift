// Jobs that start together after the model file changed, and stores made at once (issue 26, "Migrations tell the
// truth before they start"): exactly one job migrates, under the write lock; the others find the store migrated and
// run on it; a command that waited behind a migration runs on the migrated store; several `init` at once on a new
// path make one store; an empty file is called what it is.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class ConcurrentMigrationTests: XCTestCase {
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21"]
    /// The change every job's model file makes: an attribute added, which opening the store migrates.
    static let noteModel = "entities:\n  Customer:\n    attributes:\n      note: { type: string }\n"

    struct Job {
        let name: String
        let arguments: [String]
    }

    /// Readers and writers whose output does not depend on the order they run in (the writers import entities no
    /// reader reads), a reader of the new attribute, and `migrate`.
    private func jobs(_ dir: TemporaryDirectory) -> [Job] {
        dir.write("tags.csv", "name\nnew tag\n")
        dir.write("services.csv", "name,info\nDelivery,\"Courier delivery, now by bike\"\nRepair,Workshop repair\n")
        return [
            Job(name: "list", arguments: ["list", "Customer"]),
            Job(name: "import tags", arguments: ["import", "Tag", "tags.csv"]),
            Job(name: "notes", arguments: ["fetch", "Customer", "--format", "csv", "--columns", "name, code, note"]),
            Job(name: "count", arguments: ["fetch", "Order", "--count"]),
            Job(name: "unpaid", arguments: ["report", "unpaid-orders", "--format", "json"]),
            Job(name: "import services", arguments: ["import", "Service", "services.csv"]),
            Job(name: "migrate", arguments: ["migrate"]),
        ]
    }

    /// What two stores hold that does not depend on the order of independent jobs: the schema, the model recorded,
    /// every model table's rows, and the files imported (the import history's order is the order of commits).
    private func orderFreeContent(_ path: String) throws -> String {
        var out = try queryStore(path, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name").map { $0 ?? "" }
            .joined(separator: "\n")
        out += "\n" + (try queryStore(path, "SELECT key || '=' || value FROM _bookkeeper_meta WHERE key IN ('format', 'model_hash', 'model') ORDER BY key")
            .map { $0 ?? "" }.joined(separator: "\n"))
        out += "\n## imports\n" + (try queryStore(path, "SELECT file FROM _bookkeeper_imports ORDER BY file, id").map { $0 ?? "" }.joined(separator: "\n"))
        let tables = try queryStore(path, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE '\\_bookkeeper%' ESCAPE '\\' ORDER BY name")
            .compactMap { $0 }
        for table in tables {
            out += "\n## \(table)\n"
            for row in try queryRows(path, "SELECT * FROM \"\(table)\" ORDER BY 1") { out += row.joined(separator: "|") + "\n" }
        }
        return out
    }

    /// An import's summary without its timing (`in 0.01 s (97 records/s)`).
    private func withoutTiming(_ text: String) -> String {
        text.replacingOccurrences(of: #"in [0-9.]+ s \([0-9]+ records?/s\)"#, with: "in T", options: .regularExpression)
    }

    private func migrationCopies(_ dir: TemporaryDirectory, of name: String) -> [String] {
        filesIn(dir.path).filter { $0.hasPrefix(name + ".before-migration-") }
    }

    /// Six jobs (and `migrate`) started at once after the model file changed: before, one migrated and the others
    /// failed with `duplicate column name: note` (74), each having made its own backup copy first. Now exactly one
    /// migrates (one copy, one notice), every job exits 0 with the output a serial run gives, and the store checks
    /// clean. `make test` runs two rounds, `make stress` 20.
    func testJobsStartedTogetherAfterTheModelChangedMigrateOnce() throws {
        let rounds = Trials.count("BOOKKEEPER_MIGRATE_TOGETHER_ROUNDS", quick: 2, stress: 20)
        var winners: [String: Int] = [:]
        for round in 1...rounds {
            let winner = try migrateTogether(round: round)
            winners[winner, default: 0] += 1
        }
        reportTrials("jobs migrating together", "\(rounds) rounds of \(jobs(TemporaryDirectory()).count) jobs at once; the migration was made by "
                     + winners.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)×" }.joined(separator: ", "))
    }

    /// One round; returns which job migrated.
    private func migrateTogether(round: Int) throws -> String {
        let dir = TemporaryDirectory("bookkeeper-migrate-together")
        let store = dir.file("books.sqlite")
        let serial = dir.file("serial.sqlite")
        SampleStore.copy(to: store)
        SampleStore.copy(to: serial)
        let jobs = jobs(dir)
        dir.write("model.yaml", Self.noteModel)

        // The serial run: the same jobs one after another; the first migrates.
        var expected: [String: String] = [:]
        for job in jobs {
            let r = runCLI(["--store", serial] + job.arguments, in: dir.path, environment: Self.environment)
            XCTAssertEqual(r.status, 0, "serial \(job.name): \(r)")
            expected[job.name] = withoutTiming(r.stdout.replacingOccurrences(of: serial, with: store))
        }
        XCTAssertEqual(migrationCopies(dir, of: "serial.sqlite").count, 1)

        let running = try jobs.map { ($0, try Child(["--store", store] + $0.arguments, in: dir.path, environment: Self.environment)) }
        var migrated: [String] = []
        for (job, child) in running {
            let r = child.wait()
            XCTAssertFalse(r.killedBySignal, "round \(round), \(job.name): \(r)")
            XCTAssertEqual(r.status, 0, "round \(round), \(job.name): \(r)")
            if job.name == "migrate" {
                if r.stdout == "\(store) is up to date with the model\n" { continue }
                XCTAssertEqual(r.stdout.split(separator: "\n").first, "- add attribute Customer.note", "round \(round): \(r)")
                migrated.append(job.name)
                continue
            }
            if r.stderr.isEmpty {
                XCTAssertEqual(withoutTiming(r.stdout), expected[job.name], "round \(round), \(job.name)")
            } else {
                XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: \(store): migrated to the current model: add attribute Customer.note (backup: \(store).before-migration-"),
                              "round \(round), \(job.name): \(r.stderr)")
                XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "round \(round), \(job.name): \(r.stderr)")
                XCTAssertEqual(withoutTiming(r.stdout), expected[job.name], "round \(round), \(job.name)")
                migrated.append(job.name)
            }
        }
        XCTAssertEqual(migrated.count, 1, "round \(round): exactly one job migrates: \(migrated)")
        XCTAssertEqual(migrationCopies(dir, of: "books.sqlite").count, 1, "round \(round): one copy before the one migration: \(filesIn(dir.path))")
        XCTAssertEqual(try orderFreeContent(store), try orderFreeContent(serial), "round \(round): the store equals the serial run's")
        let check = runCLI(["--store", store, "check"], in: dir.path, environment: Self.environment)
        XCTAssertEqual(check.status, 0, "round \(round): \(check)")
        return migrated.first ?? "none"
    }

    /// Starts `migrate` and stops it (SIGSTOP) while it holds the write lock, on a store big enough for its backup
    /// copy to take a moment; tries again on a fresh copy when it was too quick to be caught.
    private func stoppedMigration(_ dir: TemporaryDirectory, store: String, original: String, arguments: [String]) throws -> Child {
        for _ in 0..<50 {
            for suffix in ["", "-wal", "-shm", "-activity"] { try? FileManager.default.removeItem(atPath: store + suffix) }
            for copy in filesIn(dir.path) where copy.hasPrefix("books.sqlite.before-migration-") { try? FileManager.default.removeItem(atPath: dir.file(copy)) }
            try FileManager.default.copyItem(atPath: original, toPath: store)
            let migration = try Child(["--store", store] + arguments, in: dir.path, environment: Self.environment)
            if waitUntil(migration, pollMicroseconds: 100, { FileManager.default.fileExists(atPath: store + "-activity") }) {
                migration.signal(SIGSTOP)
                // The note is removed just before COMMIT: still there, the migration is stopped inside its transaction.
                if FileManager.default.fileExists(atPath: store + "-activity") { return migration }
                migration.signal(SIGCONT)
            }
            _ = migration.wait()
        }
        // A failure, not a skip: 50 tries that never caught the migration mean the test no longer tests anything.
        struct NeverCaught: Error, CustomStringConvertible {
            var description: String { "the migration never held the lock long enough to be stopped, in 50 tries" }
        }
        throw NeverCaught()
    }

    /// Whether the process has the store open (its -wal, which every connection opens).
    private func hasOpened(_ child: Child, _ store: String) -> Bool {
        let fds = "/proc/\(child.pid)/fd"
        for fd in filesIn(fds) {
            if (try? FileManager.default.destinationOfSymbolicLink(atPath: fds + "/" + fd)) == store + "-wal" { return true }
        }
        return false
    }

    /// A big store (a backup copy of it takes a moment) and its path.
    private func bigStore(_ dir: TemporaryDirectory) throws -> String {
        let original = dir.file("original.sqlite")
        SampleStore.copy(to: original)
        try executeSQL(original, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 40000)
            INSERT INTO Customer (name, code, info) SELECT 'Bulk customer ' || i, 'B' || i, 'bulk' FROM n
            """)
        return original
    }

    /// Commands started while `migrate` held the write lock wait for it, then run on the migrated store: before, each
    /// planned the same migration again and failed with `duplicate column name: note` (74) once it had the lock.
    func testCommandsThatWaitedBehindAMigrationRunOnTheMigratedStore() throws {
        let dir = TemporaryDirectory("bookkeeper-migrate-wait")
        let store = dir.file("books.sqlite")
        let original = try bigStore(dir)
        dir.write("model.yaml", Self.noteModel)
        dir.write("tags.csv", "name\nlate tag\n")
        let migration = try stoppedMigration(dir, store: store, original: original, arguments: ["migrate"])

        let waiting = [
            ("add", ["add", "Customer", "name=Late", "code=LATE", "note=waited"]),
            ("import", ["import", "Tag", "tags.csv", "--quiet"]),
            ("reader", ["fetch", "Customer", "--where", "code = 'LATE' OR code = 'B7'", "--format", "csv", "--columns", "code, note"]),
        ].map { ($0.0, try! Child(["--store", store] + $0.1, in: dir.path, environment: Self.environment)) }
        // Each has opened the store and is waiting for the lock (no other process can write it).
        for (name, child) in waiting {
            XCTAssertTrue(waitUntil(child) { hasOpened(child, store) }, "\(name) ended while the migration held the lock: \(child.wait())")
        }
        usleep(300_000)
        migration.signal(SIGCONT)
        let migrated = migration.wait()
        XCTAssertEqual(migrated.status, 0, "\(migrated)")
        XCTAssertTrue(migrated.stdout.hasPrefix("- add attribute Customer.note\nmigrated \(store) (backup: "), migrated.stdout)
        for (name, child) in waiting {
            let r = child.wait()
            XCTAssertEqual(r.status, 0, "\(name): \(r)")
            XCTAssertEqual(r.stderr, "", "\(name) found the store migrated and did not migrate it again")
            if name == "add" { XCTAssertEqual(r.stdout, "Customer/\(try queryStore(store, "SELECT max(id) FROM Customer")[0]!)\n") }
            if name == "reader" { XCTAssertTrue(["code,note\nB7,\n", "code,note\nB7,\nLATE,waited\n", "code,note\nLATE,waited\nB7,\n"].contains(r.stdout), r.stdout) }
        }
        XCTAssertEqual(try queryStore(store, "SELECT note FROM Customer WHERE code = 'LATE'"), ["waited"])
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Tag WHERE name = 'late tag'"), ["1"])
        XCTAssertEqual(migrationCopies(dir, of: "books.sqlite").count, 1, "\(filesIn(dir.path))")
        let check = runCLI(["--store", store, "check"], in: dir.path, environment: Self.environment)
        XCTAssertEqual(check.status, 0, "\(check)")
    }

    /// A job started with yesterday's model file while `migrate --allow-data-loss` removed an attribute: once it has
    /// the lock it runs on the migrated store; only a command that names the removed attribute fails, with 75 and
    /// why (before: `no such column: fax`, 74), and one that does not succeeds.
    func testACommandNamingWhatTheMigrationItWaitedForRemovedExits75() throws {
        let dir = TemporaryDirectory("bookkeeper-migrate-wait-removed")
        let store = dir.file("books.sqlite")
        let original = try bigStore(dir)
        let yesterday = dir.write("yesterday.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n")
        XCTAssertEqual(runCLI(["--store", original, "--model", yesterday, "migrate", "--quiet"], in: dir.path).status, 0)
        for copy in filesIn(dir.path) where copy.hasPrefix("original.sqlite.before-migration-") { try FileManager.default.removeItem(atPath: dir.file(copy)) }
        dir.write("model.yaml", Self.noteModel)   // today's: fax removed, note added
        dir.write("tags.csv", "name\nlate tag\n")
        let migration = try stoppedMigration(dir, store: store, original: original, arguments: ["migrate", "--allow-data-loss"])

        let naming = try Child(["--store", store, "--model", yesterday, "add", "Customer", "name=Late", "code=LATE", "fax=555"],
                               in: dir.path, environment: Self.environment)
        let other = try Child(["--store", store, "--model", yesterday, "import", "Tag", "tags.csv", "--quiet"], in: dir.path, environment: Self.environment)
        for child in [naming, other] { XCTAssertTrue(waitUntil(child) { hasOpened(child, store) }, "\(child.wait())") }
        usleep(300_000)
        migration.signal(SIGCONT)
        XCTAssertEqual(migration.wait().status, 0)
        let refused = naming.wait()
        XCTAssertEqual(refused.status, 75, "\(refused)")
        XCTAssertEqual(refused.stderr, "bookkeeper: \(store): another process migrated the store to another model while this command waited (table Customer has no column named fax) — run it again\n")
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Customer WHERE code = 'LATE'"), ["0"])
        let imported = other.wait()
        XCTAssertEqual(imported.status, 0, "a command that names nothing the migration removed runs on the migrated store: \(imported)")
        XCTAssertEqual(try queryStore(store, "SELECT count(*) FROM Tag WHERE name = 'late tag'"), ["1"])
        // Run again, with today's model file, it succeeds.
        XCTAssertEqual(runCLI(["--store", store, "add", "Customer", "name=Late", "code=LATE", "note=again"], in: dir.path).status, 0)
        XCTAssertEqual(runCLI(["--store", store, "check"], in: dir.path, environment: Self.environment).status, 0)
    }

    /// The model of attack 26's finding 2: an entity added, and an attribute with a unique index.
    static let bankModel = """
        entities:
          Bank:
            kind: directory
            key: cert
            attributes:
              name: { type: string, required: true }
              cert: { type: integer, unique: true, required: true }
          Customer:
            attributes:
              vat: { type: string, unique: true }
        """

    /// A dry run's verdict on stdout, without what differs from the real run's by design (the timing, the last line).
    private func verdict(_ text: String) -> String {
        withoutTiming(text).replacingOccurrences(of: "dry run: nothing was written\n", with: "")
    }

    /// Dry runs (`import --dry-run`, `migrate --dry-run`) racing a real `migrate` decide as the real run does, under
    /// the write lock against the store as it is then. Before, one that planned before the migration committed and
    /// ran its plan once it had the lock called the migrated store blocked: "SQLite refuses the step ALTER TABLE
    /// "Customer" ADD COLUMN "vat" TEXT: duplicate column name: vat" (65), where the real run exited 0.
    /// Each round stops a migration while it holds the lock, starts the dry runs behind it (they plan against the
    /// old store, then wait), lets it go, and compares each dry run's verdict with the real run's on the migrated
    /// store; then starts dry runs and `migrate` at once, unsynchronized, a few times. `make test` runs one round,
    /// `make stress` 10.
    func testDryRunsRacingAMigrationGiveTheRealRunsVerdict() throws {
        let rounds = Trials.count("BOOKKEEPER_DRY_RUN_RACE_ROUNDS", quick: 1, stress: 10)
        let dir = TemporaryDirectory("bookkeeper-dry-run-race")
        let store = dir.file("books.sqlite")
        let original = try bigStore(dir)
        dir.write("model.yaml", Self.bankModel)
        dir.write("banks.csv", "name,cert\nFirst,1\nSecond,2\n")
        let importDry = ["import", "Bank", "banks.csv", "--dry-run"]
        let migrateDry = ["migrate", "--dry-run"]
        let upToDate = "the store is up to date with the model\n"
        var races = 0
        for round in 1...rounds {
            let migration = try stoppedMigration(dir, store: store, original: original, arguments: ["migrate"])
            let waiting = try [importDry, importDry, migrateDry, migrateDry].map {
                ($0, try Child(["--store", store] + $0, in: dir.path, environment: Self.environment))
            }
            for (args, child) in waiting {
                XCTAssertTrue(waitUntil(child) { hasOpened(child, store) }, "round \(round), \(args) ended while the migration held the lock: \(child.wait())")
            }
            usleep(300_000)
            migration.signal(SIGCONT)
            XCTAssertEqual(migration.wait().status, 0, "round \(round)")
            let results = waiting.map { ($0.0, $0.1.wait()) }
            // The real runs, on the store the migration left: what each dry run must have said.
            let real = runCLI(["--store", store, "import", "Bank", "banks.csv"], in: dir.path, environment: Self.environment)
            XCTAssertEqual(real.status, 0, "round \(round): \(real)")
            for (args, r) in results {
                XCTAssertEqual(r.status, 0, "round \(round), \(args): \(r)")
                XCTAssertEqual(r.stderr, "", "round \(round), \(args): it found the store migrated")
                XCTAssertEqual(args == importDry ? verdict(r.stdout) : r.stdout, args == importDry ? verdict(real.stdout) : upToDate,
                               "round \(round), \(args)")
            }
            XCTAssertEqual(runCLI(["--store", store, "migrate"], in: dir.path, environment: Self.environment).stdout, "\(store) is up to date with the model\n")

            // Unsynchronized, on the small sample store: whichever comes first, never a false "blocked".
            for race in 1...3 {
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
                SampleStore.copy(to: store)
                let args = race % 2 == 0 ? migrateDry : importDry
                let migrate = try Child(["--store", store, "migrate"], in: dir.path, environment: Self.environment)
                let dry = runCLI(["--store", store] + args, in: dir.path, environment: Self.environment)
                XCTAssertEqual(migrate.wait().status, 0, "round \(round), race \(race)")
                XCTAssertEqual(dry.status, 0, "round \(round), race \(race), \(args): \(dry)")
                XCTAssertFalse(dry.stdout.contains("blocked") || dry.stderr.contains("blocked"), "round \(round), race \(race): \(dry)")
                if args == importDry {
                    XCTAssertEqual(verdict(dry.stdout), verdict(real.stdout), "round \(round), race \(race)")
                }
                races += 1
            }
            for copy in filesIn(dir.path) where copy.hasPrefix("books.sqlite.before-migration-") { try? FileManager.default.removeItem(atPath: dir.file(copy)) }
        }
        reportTrials("dry runs racing a migration", "\(rounds) rounds of 4 dry runs behind a stopped migration, \(races) unsynchronized races")
    }

    /// Eight `init` at once on a new path: before, the losers said "not a bookkeeper store" (65, the empty file SQLite
    /// had just made) or "a store already exists there" (73), and one that began to write its schema into the
    /// winner's file removed it. Now all exit 0, one store is made, and it checks clean; no temporary file is left.
    func testInitsStartedTogetherOnANewPathMakeOneStore() throws {
        let rounds = Trials.count("BOOKKEEPER_INIT_TOGETHER_ROUNDS", quick: 3, stress: 30)
        var created = 0
        for round in 1...rounds {
            let dir = TemporaryDirectory("bookkeeper-init-together")
            let store = dir.file("books.sqlite")
            let children = try (0..<8).map { _ in try Child(["--store", store, "init"], in: dir.path) }
            var made = 0
            for child in children {
                let r = child.wait()
                XCTAssertEqual(r.status, 0, "round \(round): \(r)")
                if r.stdout == "created \(store)\n" {
                    made += 1
                    XCTAssertEqual(r.stderr, "")
                } else {
                    XCTAssertEqual(r.stdout, "", "round \(round)")
                    XCTAssertEqual(r.stderr, "bookkeeper: \(store) is already a store; nothing to do\n", "round \(round)")
                }
            }
            XCTAssertEqual(made, 1, "round \(round): one init made the store")
            created += made
            XCTAssertEqual(filesIn(dir.path).filter { !$0.hasPrefix("books.sqlite") }, [], "round \(round): no temporary file is left")
            let check = runCLI(["--store", store, "check"], in: dir.path)
            XCTAssertEqual(check.status, 0, "round \(round): \(check)")
            XCTAssertEqual(runCLI(["--store", store, "add", "Tag", "name=x"], in: dir.path).stdout, "Tag/1\n")
        }
        reportTrials("inits together", "\(rounds) rounds of 8 inits at once on a new path; \(created) stores made")
    }

    /// An empty file is not "an SQLite database without bookkeeper metadata": it is called empty, by every command,
    /// and `init` leaves it alone.
    func testAnEmptyFileAsTheStoreIsCalledEmpty() throws {
        let dir = TemporaryDirectory()
        let store = dir.write("books.sqlite", "")
        dir.write("tags.csv", "name\nx\n")
        for args in [["list", "Tag"], ["fetch", "Order", "--count"], ["check"], ["add", "Tag", "name=x"], ["import", "Tag", "tags.csv"],
                     ["migrate"], ["backup", dir.file("copy.sqlite")], ["init"]] {
            let r = runCLI(["--store", store] + args, in: dir.path)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(store): not a bookkeeper store (the file is empty)\n", "\(args)")
            XCTAssertEqual(fileSize(store), 0, "\(args) leaves it as it is")
        }
        XCTAssertEqual(filesIn(dir.path), ["books.sqlite", "tags.csv"])
    }
}
