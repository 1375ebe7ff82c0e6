// Issue 13, part 1: no output may destroy the store, the input or a device. Every command that writes a file
// (report --output/--output-dir, export, import --rejects, backup) goes through the one output module; these
// tests run the built binary on each class, as root and as a plain user, and check the store afterwards.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class OutputGuardTests: SampleStoreTestCase {
    /// The commands that write a file, with the file as the last argument.
    static func writers(to target: String) -> [[String]] {
        [["report", "customers", "--format", "csv", "--output", target],
         ["report", "sales-by-month", "--format", "xlsx", "--output", target],
         ["report", "--all", "--format", "xlsx", "--output", target],
         ["export", "Customer", target],
         ["backup", target],
         ["import", "Tag", "tags.csv", "--on-error", "skip", "--rejects", target]]
    }

    // MARK: Never the store or the input

    func testAnOutputThatIsTheStoreIsRefusedHoweverSpelt() throws {
        dir.write("tags.csv", "name\nvip\n\"\"\n")
        try FileManager.default.createDirectory(atPath: dir.file("sub"), withIntermediateDirectories: false)
        try FileManager.default.createSymbolicLink(atPath: dir.file("link.sqlite"), withDestinationPath: "books.sqlite")
        XCTAssertEqual(link(store, dir.file("hard.sqlite")), 0)
        let before = try storeFingerprint(store)
        for spelling in ["books.sqlite", "sub/../books.sqlite", "./books.sqlite", "link.sqlite", "hard.sqlite", store] {
            for args in Self.writers(to: spelling) {
                let r = bk(args)
                XCTAssertEqual(r.status, 73, "\(args): \(r)")
                XCTAssertEqual(r.stderr, "bookkeeper: \(spelling): refusing to write: it is the store (\(store))\n", "\(args)")
            }
        }
        XCTAssertEqual(try storeFingerprint(store), before)
        XCTAssertEqual(filesIn(dir.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") },
                       ["books.sqlite", "hard.sqlite", "link.sqlite", "sub", "tags.csv"])
    }

    func testAnOutputThatIsTheStoresLogOrJournalIsRefused() throws {
        let before = try storeFingerprint(store)
        for (suffix, role) in [("-wal", "the store's write-ahead log"), ("-shm", "the store's shared-memory index"),
                               ("-journal", "the store's rollback journal"), ("-activity", "the store's busy note")] {
            let r = bk(["export", "Tag", "books.sqlite" + suffix])
            XCTAssertEqual(r.status, 73, "\(suffix): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: books.sqlite\(suffix): refusing to write: it is \(role) (\(store)\(suffix))\n")
        }
        XCTAssertEqual(try storeFingerprint(store), before)
    }

    func testRejectsThatAreTheInputAreRefusedBeforeAnythingIsImported() throws {
        let input = dir.write("tags.csv", "name\nnew-tag\n\"\"\n")
        XCTAssertEqual(link(input, dir.file("same.csv")), 0)
        let before = try storeFingerprint(store)
        for rejects in ["tags.csv", "same.csv", "./sub/../tags.csv".replacingOccurrences(of: "./sub/..", with: ".")] {
            let r = bk(["import", "Tag", "tags.csv", "--on-error", "skip", "--rejects", rejects])
            XCTAssertEqual(r.status, 73, "\(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(rejects): refusing to write: it is the input being imported (tags.csv)\n")
        }
        XCTAssertEqual(try String(contentsOfFile: input, encoding: .utf8), "name\nnew-tag\n\"\"\n")
        XCTAssertEqual(try storeFingerprint(store), before, "nothing was imported")
    }

    func testAReportOverTheModelFileIsRefused() throws {
        let model = dir.write("model.yaml", "entities: {}\n")
        let r = runCLI(["--store", store, "--model", model, "export", "Tag", "model.yaml"], in: dir.path)
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: model.yaml: refusing to write: it is the model file (\(model))\n")
    }

    // MARK: A failed command removes only what it created

    func testAFatalImportErrorKeepsTheOlderRejectsFile() throws {
        let old = dir.write("rejects.csv", "name,reason\nyesterday,x\n")
        dir.write("broken.csv", "name\nvip\n\"unterminated\n")
        let r = bk(["import", "Tag", "broken.csv", "--on-error", "skip", "--rejects", "rejects.csv"])
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(try String(contentsOfFile: old, encoding: .utf8), "name,reason\nyesterday,x\n")
        XCTAssertEqual(filesIn(dir.path), ["books.sqlite", "broken.csv", "rejects.csv"])
    }

    // MARK: Special files are written, not replaced

    func testDevNullIsWrittenNotReplaced() throws {
        dir.write("tags.csv", "name\nvip\n\"\"\n")
        for args in Self.writers(to: "/dev/null") {
            let r = bk(args)
            XCTAssertEqual(r.status, args.first == "import" ? 65 : 0, "\(args): \(r)")
            var status = stat()
            XCTAssertEqual(lstat("/dev/null", &status), 0)
            XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device after \(args)")
        }
    }

    func testDevStdoutAndStderrAreTheStreamsTheShellGave() throws {
        let out = bk(["export", "Tag", "/dev/stdout"])
        XCTAssertEqual(out.status, 0, "\(out)")
        XCTAssertTrue(out.stdout.hasPrefix("name\n"), out.stdout)
        let err = bk(["report", "customers", "--format", "csv", "--output", "/dev/stderr"])
        XCTAssertEqual(err.status, 0, "\(err)")
        XCTAssertTrue(err.stderr.hasPrefix("Customer,Code,"), err.stderr)
        XCTAssertEqual(filesIn(dir.path).filter { !$0.hasSuffix("-wal") && !$0.hasSuffix("-shm") }, ["books.sqlite"])
    }

    func testDevFullIsAnIOError() throws {
        for args in [["export", "Tag", "/dev/full"], ["report", "customers", "--format", "csv", "--output", "/dev/full"],
                     ["report", "sales-by-month", "--format", "xlsx", "--output", "/dev/full"], ["backup", "/dev/full"]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 74, "\(args): \(r)")
            XCTAssertEqual(r.stderr.split(separator: "\n").count, 1, "\(args): one line: \(r.stderr)")
            XCTAssertTrue(r.stderr.contains("No space left on device"), r.stderr)
        }
    }

    func testANamedPipeWithAReaderGetsTheExport() throws {
        let fifo = dir.file("pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let received = LockedBytes()
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var buffer = [UInt8](repeating: 0, count: 4096)
            while fd >= 0 {
                let n = Glibc.read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                received.append(buffer[..<n])
            }
            if fd >= 0 { close(fd) }
            received.finish()
        }
        reader.start()
        let r = bk(["export", "Tag", "pipe"])
        XCTAssertEqual(r.status, 0, "\(r)")
        received.wait()
        XCTAssertTrue(received.text.hasPrefix("name\n"), received.text)
        var status = stat()
        XCTAssertEqual(lstat(fifo, &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFIFO, "the FIFO is still a FIFO")
    }

    func testSpecialFilesAsAPlainUser() throws {
        try OtherUser.skipUnlessAvailable()
        // The plain user's own store, in a folder of theirs.
        let shared = (folder: dir.file("plain"), store: dir.file("plain/books.sqlite"))
        try FileManager.default.createDirectory(atPath: shared.folder, withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: store, toPath: shared.store)
        XCTAssertEqual(chmod(dir.path, 0o755), 0)
        for path in [shared.folder, shared.store] { XCTAssertEqual(chown(path, 65534, 65534), 0) }
        for args in [["export", "Tag", "/dev/stdout"], ["export", "Tag", "/dev/null"],
                     ["report", "customers", "--format", "csv", "--output", "/dev/stdout"],
                     ["report", "sales-by-month", "--format", "xlsx", "--output", "/dev/null"]] {
            let r = OtherUser.run(["--store", shared.store] + args, in: shared.folder, environment: Self.environment)
            XCTAssertEqual(r.status, 0, "\(args): \(r)")
            if args.last == "/dev/stdout" { XCTAssertFalse(r.stdout.isEmpty, "\(args)") }
        }
        let full = OtherUser.run(["--store", shared.store, "export", "Tag", "/dev/full"], in: shared.folder)
        XCTAssertEqual(full.status, 74, "\(full)")
        var status = stat()
        XCTAssertEqual(lstat("/dev/null", &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR)
    }

    // MARK: Symlinks are followed deliberately

    func testASymlinkedOutputStaysASymlink() throws {
        try FileManager.default.createDirectory(atPath: dir.file("archive"), withIntermediateDirectories: false)
        dir.write("archive/tags.csv", "old\n")
        try FileManager.default.createSymbolicLink(atPath: dir.file("latest.csv"), withDestinationPath: "archive/tags.csv")
        let r = bk(["export", "Tag", "latest.csv"])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("latest.csv")), "archive/tags.csv")
        XCTAssertTrue(try String(contentsOfFile: dir.file("archive/tags.csv"), encoding: .utf8).hasPrefix("name\n"))
        XCTAssertEqual(filesIn(dir.file("archive")), ["tags.csv"])
    }

    func testADanglingOrLoopingLinkIsAOneLineError() throws {
        try FileManager.default.createSymbolicLink(atPath: dir.file("dangling.csv"), withDestinationPath: "nowhere/x.csv")
        try FileManager.default.createSymbolicLink(atPath: dir.file("a.csv"), withDestinationPath: "b.csv")
        try FileManager.default.createSymbolicLink(atPath: dir.file("b.csv"), withDestinationPath: "a.csv")
        for (path, reason) in [("dangling.csv", "a symbolic link to nothing"), ("a.csv", "a loop of symbolic links")] {
            for args in [["export", "Tag", path], ["report", "customers", "--output", path], ["backup", path]] {
                let r = bk(args)
                XCTAssertEqual(r.status, 73, "\(args): \(r)")
                XCTAssertEqual(r.stderr, "bookkeeper: \(path): cannot create (\(reason))\n", "\(args)")
            }
        }
    }

    // MARK: The busy note beside the store

    func testABusyNoteNamedLikeADirectoryOrSymlinkIsLeftAlone() throws {
        let victim = dir.write("victim.txt", "precious\n")
        dir.write("tags.csv", "name\nfrom-import\n")
        // A directory of the note's name: the import works and the directory survives.
        try FileManager.default.createDirectory(atPath: dir.file("books.sqlite-activity/inside"), withIntermediateDirectories: true)
        XCTAssertEqual(bk(["import", "Tag", "tags.csv"]).status, 0)
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.file("books.sqlite-activity/inside")))
        try FileManager.default.removeItem(atPath: dir.file("books.sqlite-activity"))
        // A symlink of the note's name: nothing is written through it, and it is not removed.
        try FileManager.default.createSymbolicLink(atPath: dir.file("books.sqlite-activity"), withDestinationPath: victim)
        XCTAssertEqual(bk(["add", "Tag", "name=by-add"]).status, 0)
        XCTAssertEqual(try String(contentsOfFile: victim, encoding: .utf8), "precious\n")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("books.sqlite-activity")), victim)
    }

    func testAStaleBusyNoteIsNotNamedAsTheHolder() throws {
        // Left by a process that is gone: a writer replaces it, and no one is told it holds the store.
        dir.write("books.sqlite-activity", "999999999 1\nimport of old.csv by pid 999999999 since 01:00:00\n")
        dir.write("tags.csv", "name\nafter-crash\n")
        let r = bk(["import", "Tag", "tags.csv"])
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(filesIn(dir.path).filter { $0.hasSuffix("-activity") }, [], "the stale note is gone with the import's own")
    }

    // MARK: Found by a hostile tester who knew only the README

    /// `report … --output /dev/stdout` and `backup /dev/stdout` put their "wrote …" confirmation into the result.
    func testAConfirmationNeverJoinsAResultOnStandardOutput() throws {
        let report = bk(["report", "customers", "--format", "csv", "--output", "/dev/stdout"])
        XCTAssertEqual(report.status, 0, "\(report)")
        XCTAssertFalse(report.stdout.contains("wrote"), report.stdout)
        let backup = bk(["backup", "/dev/stdout"])
        XCTAssertEqual(backup.status, 0)
        XCTAssertFalse(backup.stdout.hasSuffix("\n"), "the copy ends with the store's last page, not a message")
    }

    /// `list Tag >> books.sqlite` (or `1<>books.sqlite`) wrote into the store and exited 0.
    func testStandardOutputOpenedOntoTheStoreIsRefusedBeforeAnyWork() throws {
        let before = try storeFingerprint(store)
        for command in ["list Tag >> books.sqlite", "add Tag name=x 1<>books.sqlite", "check 2>>books.sqlite >/dev/null"] {
            let r = runProgram("/bin/sh", ["-c", "\(bookkeeperBinary) --store books.sqlite \(command)"], in: dir.path)
            XCTAssertEqual(r.status, 73, "\(command): \(r)")
        }
        XCTAssertEqual(try storeFingerprint(store), before)
        XCTAssertEqual(bk(["check"]).status, 0)
    }

    /// `add Tag name=x 2>/dev/full` died with SIGILL (FileHandle traps on a failed write).
    func testAStandardErrorThatCannotBeWrittenIsNoCrash() throws {
        let r = runProgram("/bin/sh", ["-c", "\(bookkeeperBinary) --store books.sqlite add Tag name=vip 2>/dev/full"], in: dir.path)
        XCTAssertEqual(r.status, 65, "a failed validation, reported where it could be: \(r)")
        let ok = runProgram("/bin/sh", ["-c", "\(bookkeeperBinary) --store books.sqlite list Tag >/dev/full 2>/dev/full"], in: dir.path)
        XCTAssertEqual(ok.status, 74, "\(ok)")
    }

    /// A clean import with a symlinked --rejects deleted the link's target; the next one refused the dangling link.
    /// (Since attack 26, finding 6, the target is removed as a plain path's file is, and the next run that rejects a
    /// line makes it again through the link.)
    func testASymlinkedRejectsFileSurvivesACleanImport() throws {
        dir.write("target.csv", "name,reason\nold,x\n")
        try FileManager.default.createSymbolicLink(atPath: dir.file("rejects.csv"), withDestinationPath: "target.csv")
        dir.write("good.csv", "name\ngood1\n")
        XCTAssertEqual(bk(["import", "Tag", "good.csv", "--on-error", "skip", "--rejects", "rejects.csv"]).status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("target.csv")))
        dir.write("bad.csv", "name\nx2\nbad,x\n")
        XCTAssertEqual(bk(["import", "Tag", "bad.csv", "--on-error", "skip", "--rejects", "rejects.csv"]).status, 65)
        XCTAssertTrue(try String(contentsOfFile: dir.file("target.csv"), encoding: .utf8).contains("bad,x"))
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("rejects.csv")), "target.csv")
    }

    /// `export Customer model.yaml` was refused, but only after the store had been migrated to the model file.
    func testARefusedOutputDoesNoWorkFirst() throws {
        let model = dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n")
        let before = try storeFingerprint(store)
        let r = runCLI(["--store", store, "--model", model, "export", "Customer", "model.yaml"], in: dir.path)
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(try storeFingerprint(store), before, "not migrated")
        XCTAssertFalse(filesIn(dir.path).contains { $0.contains("before-migration") })
        // A report's output over its own definition is refused too.
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("Reports/customers.yaml").path, toPath: dir.file("mine.yaml"))
        let own = bk(["report", "mine.yaml", "--format", "csv", "--output", "mine.yaml"])
        XCTAssertEqual(own.status, 73, "\(own)")
        XCTAssertTrue(own.stderr.contains("it is a report definition"), own.stderr)
    }
}

final class LockedBytes: @unchecked Sendable {
    private let condition = NSCondition()
    private var bytes: [UInt8] = []
    private var done = false
    func append(_ more: ArraySlice<UInt8>) { condition.lock(); bytes += more; condition.unlock() }
    func finish() { condition.lock(); done = true; condition.broadcast(); condition.unlock() }
    func wait() { condition.lock(); while !done { condition.wait() }; condition.unlock() }
    var text: String { condition.lock(); defer { condition.unlock() }; return String(decoding: bytes, as: UTF8.self) }
}
