import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// Attack 19's findings 11, 13, 14 and 16: books on PostgreSQL failing truthfully — a server that goes away
/// mid-command, two writers adding the same key at once, libpq's own lines on stderr, and hints that name a command
/// that does not work there. Every message one line, bookkeeper's.
final class PostgreSQLFailureTests: XCTestCase {
    private func oneLine(_ r: CLIResult, _ status: Int32, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(r.status, status, "\(r)", file: file, line: line)
        XCTAssertTrue(r.stderr.contains(words), "\(r)", file: file, line: line)
        XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "one line: \(r)", file: file, line: line)
        XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: "), "\(r)", file: file, line: line)
    }

    /// A server of its own (scripts/postgresql-server.sh, another folder and port), stopped and removed after `test`:
    /// its conninfo and the `--store` URI of books in schema `schema` on it.
    private func throwawayServer(schema: String) throws -> (conninfo: String, uri: String, dir: String) {
        _ = try PostgreSQLTestDatabase.requireConninfo()
        let dir = "/tmp/bookkeeper-halt-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let started = try serverScript("start", dir)
        addTeardownBlock { _ = try? self.serverScript("stop", dir) }
        guard started.status == 0 else { throw ServerScriptFailed(output: started.error) }
        let env = try String(contentsOfFile: dir + "/env", encoding: .utf8)
        guard let portLine = env.split(separator: "\n").first(where: { $0.contains("_PORT=") }) else {
            throw ServerScriptFailed(output: "no port in \(env)")
        }
        let port = portLine.split(separator: "=")[1].trimmingCharacters(in: CharacterSet(charactersIn: "'"))
        let host = dir.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? dir
        return ("host=\(dir) port=\(port) user=bk_owner dbname=bk_test", "postgresql://bk_owner@\(host):\(port)/bk_test?schema=\(schema)", dir)
    }

    private struct ServerScriptFailed: Error { let output: String }

    /// Runs scripts/postgresql-server.sh with its output in a file (the server it starts would hold a pipe open).
    private func serverScript(_ command: String, _ dir: String) throws -> (status: Int32, error: String) {
        let script = packageRoot.appendingPathComponent("scripts/postgresql-server.sh").path
        let log = dir + ".log"
        // The server would inherit every descriptor the script has — Process's own, whose end it waits for, among
        // them: all but 0, 1 and 2 are closed first, and those go to /dev/null and the log.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", "for fd in $(ls /proc/$$/fd); do [ \"$fd\" -gt 2 ] && eval \"exec $fd>&-\"; done; "
                             + "\"$0\" \"$1\" \"$2\" >\"$3\" 2>&1 </dev/null", script, command, dir, log]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        if command == "stop" { try? FileManager.default.removeItem(atPath: log) }
        return (process.terminationStatus, text)
    }

    /// Finding 11: the server stopped (`pg_ctl stop -m fast`) while an `add` waits for a lock another session holds:
    /// 69 (unavailable, as a server that cannot be reached), one line without libpq's `LINE 1: … ^` excerpt, saying
    /// that nothing was changed — and nothing was.
    func testTheServerStoppingMidWriteIs69AndSaysNothingWasChanged() throws {
        let server = try throwawayServer(schema: "halted")
        XCTAssertEqual(runCLI(["--store", server.uri, "init"]).status, 0)
        let holder = try PostgreSQLConnection(conninfo: server.conninfo)
        try holder.execute("BEGIN")
        try holder.execute("LOCK TABLE halted.\"Tag\" IN EXCLUSIVE MODE")
        nonisolated(unsafe) var writer: CLIResult?
        let done = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            writer = runCLI(["--store", server.uri, "--wait", "60", "add", "Tag", "name=K7"])
            done.signal()
        }
        // Until the writer waits for the lock.
        var waiting = 0
        for _ in 0..<200 where waiting == 0 {
            usleep(50_000)
            // (Inside a transaction the statistics are read once unless cleared.)
            try holder.execute("SELECT pg_stat_clear_snapshot()")
            waiting = try holder.int("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = 'bk_test'") ?? 0
        }
        XCTAssertEqual(waiting, 1, "the add waits for the lock")
        let halted = try serverScript("halt", server.dir)
        XCTAssertEqual(halted.status, 0, halted.error)
        done.wait()
        holder.close()
        let r = try XCTUnwrap(writer)
        oneLine(r, 69, "the connection to the database server was lost (terminating connection due to administrator command")
        XCTAssertTrue(r.stderr.hasSuffix("— nothing was changed\n"), "\(r)")
        XCTAssertFalse(r.stderr.contains("LINE 1") || r.stderr.contains("^") || r.stderr.contains("FATAL"), "\(r)")
        XCTAssertEqual(try serverScript("restart", server.dir).status, 0)
        XCTAssertEqual(runCLI(["--store", server.uri, "fetch", "Tag", "--count"]).stdout, "0\n", "nothing was written")
        // And a command started while the server is down is "cannot reach", 69 too.
        XCTAssertEqual(try serverScript("halt", server.dir).status, 0)
        oneLine(runCLI(["--store", server.uri, "list", "Tag"]), 69, "cannot reach the database server")
    }

    /// Finding 13: writers adding the same key at once — every one exits 0 or 65 with the validation's message, and
    /// each key is one object (the unique index's refusal, 23505, was 74 with the server's text).
    func testParallelAddsOfOneKeyGiveOneObjectAndTheValidationsMessage() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        XCTAssertEqual(runCLI(["--store", books.uri, "init"]).status, 0)
        try UniqueKeyRaceTests.race(store: books.uri, rounds: 4, writers: 6)
    }

    /// Finding 14b: a ~/.pgpass with group or world access, which libpq ignores with a `WARNING: …` line of its own:
    /// ignored all the same, said in bookkeeper's one-line form; a 0600 one is read without a word.
    func testAPasswordFileWithGroupAccessIsWarnedAboutInBookkeepersWords() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self, user: "bk_secret")
        let home = TemporaryDirectory("pg-home")
        let passfile = home.write(".pgpass", "*:*:*:bk_secret:\(PostgreSQLTestDatabase.secretPassword)\n")
        XCTAssertEqual(chmod(passfile, 0o644), 0)
        let environment = ["HOME": home.path, "PGPASSFILE": "", "PGPASSWORD": ""]
        let r = runCLI(["--store", books.uri, "list", "Tag"], environment: environment)
        XCTAssertEqual(r.status, 77, "libpq does not read it: no password: \(r)")
        let lines = r.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, "\(r)")
        XCTAssertTrue(lines.allSatisfy { $0.hasPrefix("bookkeeper: ") }, "\(r)")
        XCTAssertTrue(r.stderr.contains("bookkeeper: warning: ") && r.stderr.contains("the password file \(passfile) is not read: it has group or world access (mode 644)"), "\(r)")
        XCTAssertFalse(r.stderr.contains("WARNING") || r.stderr.contains(PostgreSQLTestDatabase.secretPassword), "\(r)")
        XCTAssertEqual(chmod(passfile, 0o600), 0)
        let read = runCLI(["--store", books.uri, "list", "Tag"], environment: environment)
        XCTAssertEqual(read.status, 66, "connected with the file's password; the books are not made: \(read)")
        XCTAssertFalse(read.stderr.contains("password file"), "\(read)")
    }

    /// Finding 16, now that `check` works on PostgreSQL (issue 31): a message that recommends it there is answered by
    /// it — a non-finite number another tool wrote, and another tool's schema change, are each a line of `check`.
    func testMessagesOnPostgreSQLBooksRecommendCheckWhichListsWhatTheyName() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let dir = TemporaryDirectory("pg-hints")
        let model = dir.write("model.yaml", "entities:\n  Thing:\n    kind: directory\n    key: name\n    attributes:\n"
                              + "      name: {type: string, required: true}\n      x: {type: double}\n")
        XCTAssertEqual(runCLI(["--store", books.uri, "--model", model, "init"]).status, 0)
        XCTAssertEqual(runCLI(["--store", books.uri, "add", "Thing", "name=f", "x=1"]).status, 0)
        let owner = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { owner.close() }
        let schema = "\"\(books.location.schema)\""
        let name = books.location.displayName
        try owner.execute("UPDATE \(schema).\"Thing\" SET x = 'NaN' WHERE name = 'f'")
        for step in [["show", "Thing", "f"], ["list", "Thing"]] {
            let r = runCLI(["--store", books.uri] + step)
            oneLine(r, 65, "non-finite number")
            XCTAssertTrue(r.stderr.contains("run `bookkeeper check` to list every such value"), "\(step): \(r)")
        }
        let check = runCLI(["--store", books.uri, "check"])
        XCTAssertEqual(check.status, 65, "\(check)")
        XCTAssertEqual(check.stderr, "bookkeeper: \(name): Thing/1.x holds a non-finite number (nan)\nbookkeeper: \(name): 1 problem found\n")
        // The stored NaN is named as stored, not as a sum that overflowed (it was, before `isNonFinite` found NaNs).
        oneLine(runCLI(["--store", books.uri, "fetch", "Thing", "--columns", "name,x"]), 65,
                "Thing/1.x: the store holds a non-finite number (nan)")
        try owner.execute("UPDATE \(schema).\"Thing\" SET x = 2 WHERE name = 'f'")
        try owner.execute("ALTER TABLE \(schema).\"Thing\" ALTER COLUMN name TYPE text COLLATE \"POSIX\"")
        let r = runCLI(["--store", books.uri, "set", "Thing", "f", "x=3"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("Thing.name is text COLLATE \"POSIX\""), "\(r)")
        XCTAssertTrue(r.stderr.hasSuffix("nothing was changed — `bookkeeper check` lists every difference\n"), "\(r)")
        let listed = runCLI(["--store", books.uri, "check"])
        XCTAssertEqual(listed.status, 65, "\(listed)")
        XCTAssertTrue(listed.stderr.contains("bookkeeper: \(name): schema: column Thing.name is text COLLATE \"POSIX\" NOT NULL where the model's is "
                                             + "text COLLATE \"C\" NOT NULL (another tool changed it); every command but check refuses the books until this is undone\n"),
                      "\(listed)")
    }

    /// Finding 14a: a command that does not work on PostgreSQL books yet is the user's to change (64), not an
    /// unavailable server (69) that a wrapper retries.
    func testACommandNotSupportedOnPostgreSQLIsNotUnavailable() throws {
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let dir = TemporaryDirectory("pg-unsupported")
        oneLine(runCLI(["--store", books.uri, "backup", dir.file("copy.sqlite")]), 64, "`backup` copies SQLite stores")
    }
}
