// A store in DELETE journal mode with a killed writer's hot rollback journal beside it (attack 27, finding 7): every
// command failed, `list` with "this user cannot open its -wal or -shm file: attempt to write a readonly database —
// retry later" (75, after the whole wait) and the writers and dry runs with "attempt to write a readonly database"
// (74), for a user who could write the store and with no -wal anywhere; the sqlite3 shell recovered it at once.
//
// Decided: a user who can write the store gets it rolled back as SQLite does (the first read by a connection that
// can write) and the command proceeds on the last committed state; a user who cannot, and a dry run (which changes
// no byte), get one line, 75, and nothing changes.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class HotJournalTests: XCTestCase {
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21", "TZ": "UTC", "BOOKKEEPER_REPORTS": ""]
    static let line = "bookkeeper: s.sqlite: a killed writer's journal (s.sqlite-journal) must be rolled back by a user who can write the store"

    /// The sample store at `store`, in DELETE mode, with a writer killed mid-transaction: its changed pages spilled into
    /// the file (a cache of one page), the journal holding the committed ones.
    static func makeHotJournal(_ store: String) {
        SampleStore.copy(to: store)
        let r = runProgram("/usr/bin/python3", ["-c", """
            import sqlite3, os, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute('PRAGMA journal_mode=delete')
            c.execute('PRAGMA cache_size=1')
            c.execute('BEGIN')
            c.execute('UPDATE Customer SET info=hex(randomblob(300))')
            c.execute('UPDATE OrderRow SET price=price+1')
            os._exit(0)
            """, store], in: "/")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: store + "-journal"), "the killed writer left its journal")
        XCTAssertNotEqual(FileManager.default.contents(atPath: store), FileManager.default.contents(atPath: SampleStore.path),
                          "the uncommitted pages are in the file")
    }

    /// The folder's files and contents.
    static func snapshot(_ dir: TemporaryDirectory) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) { files[name] = FileManager.default.contents(atPath: dir.file(name)) }
        return files
    }

    static let reads: [[String]] = [
        ["list", "Tag"], ["show", "Customer", "Acme Ltd"], ["fetch", "Customer", "--columns", "code,info", "--format", "csv"],
        ["fetch", "OrderRow", "--columns", "price", "--format", "csv"], ["export", "Customer", "/dev/stdout"],
        ["report", "customers", "--format", "csv", "--output", "/dev/stdout"], ["imports"], ["check"],
    ]
    static let writes: [[String]] = [["add", "Tag", "name=new"], ["import", "Tag", "tags.csv"], ["migrate"], ["backup", "copy.sqlite"]]

    func testAKilledWritersJournalIsRolledBackByTheNextCommandOfAUserWhoCanWrite() throws {
        let dir = TemporaryDirectory()
        dir.write("tags.csv", "name\nfresh\n")
        let store = dir.file("s.sqlite")
        for command in Self.reads + Self.writes {
            // What the command prints on the store as last committed.
            SampleStore.copy(to: store)
            try? FileManager.default.removeItem(atPath: dir.file("copy.sqlite"))
            let expected = runCLI(["--store", "s.sqlite"] + command, in: dir.path, environment: Self.environment)
            XCTAssertEqual(expected.status, 0, "\(command): \(expected)")
            Self.makeHotJournal(store)
            try? FileManager.default.removeItem(atPath: dir.file("copy.sqlite"))
            let r = runCLI(["--store", "s.sqlite"] + command, in: dir.path, environment: Self.environment)
            XCTAssertEqual(r.status, 0, "\(command): rolled back, then run: \(r)")
            // (An import's line has its time and speed.)
            if command.first != "import" { XCTAssertEqual(r.stdout, expected.stdout, "\(command): the last committed state") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-journal"), "\(command): the journal is rolled back")
            let after = runCLI(["--store", "s.sqlite", "fetch", "Customer", "--columns", "code,info", "--format", "csv"], in: dir.path)
            XCTAssertTrue(after.stdout.contains("C001,Main account since 2019"), "\(command): the uncommitted change is gone: \(after)")
        }
    }

    func testADryRunLeavesAKilledWritersJournalAndSaysSoInOneLine() throws {
        let dir = TemporaryDirectory()
        dir.write("tags.csv", "name\nfresh\n")
        let store = dir.file("s.sqlite")
        Self.makeHotJournal(store)
        let before = try Self.snapshot(dir)
        for command in [["migrate", "--dry-run"], ["import", "Tag", "tags.csv", "--dry-run"]] {
            let r = runCLI(["--store", "s.sqlite"] + command, in: dir.path, environment: Self.environment)
            XCTAssertEqual(r.status, 75, "\(command): \(r)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(command): one line: \(r)")
            XCTAssertTrue(r.stderr.hasPrefix(Self.line + " (a dry run changes nothing"), "\(command): \(r)")
            XCTAssertEqual(try Self.snapshot(dir), before, "\(command): a dry run changes no byte")
        }
        // Any other command rolls it back; the dry run then runs.
        XCTAssertEqual(runCLI(["--store", "s.sqlite", "list", "Tag"], in: dir.path).status, 0)
        let r = runCLI(["--store", "s.sqlite", "import", "Tag", "tags.csv", "--dry-run"], in: dir.path, environment: Self.environment)
        XCTAssertEqual(r.status, 0, "\(r)")
    }

    func testAUserWhoCannotWriteTheStoreIsToldWhoMustRollBackTheJournal() throws {
        try OtherUser.skipUnlessAvailable()
        let dir = TemporaryDirectory()
        dir.write("tags.csv", "name\nfresh\n")
        let store = dir.file("s.sqlite")
        Self.makeHotJournal(store)
        XCTAssertEqual(chmod(dir.path, 0o755), 0)
        for name in try FileManager.default.contentsOfDirectory(atPath: dir.path) { XCTAssertEqual(chmod(dir.file(name), 0o644), 0) }
        let before = try Self.snapshot(dir)
        for command in Self.reads + Self.writes + [["migrate", "--dry-run"], ["import", "Tag", "tags.csv", "--dry-run"]] {
            let r = OtherUser.run(["--store", "s.sqlite"] + command, in: dir.path, environment: Self.environment)
            XCTAssertEqual(r.status, 75, "\(command): \(r)")
            XCTAssertEqual(r.stderr, Self.line + "\n", "\(command): one true line: \(r)")
        }
        XCTAssertEqual(try Self.snapshot(dir), before, "nothing the reader ran changed a file")
    }
}
