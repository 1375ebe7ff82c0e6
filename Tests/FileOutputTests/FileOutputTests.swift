// The one module that writes files: what a target resolves to, what is refused, and that devices, pipes,
// sockets and symlinks are written as a shell user expects. The end-to-end tests of every command that writes
// (OutputGuardTests in BookkeeperCLITests) run the built binary on the same classes.

import Foundation
import TestSupport
import XCTest
@testable import FileOutput
#if canImport(Glibc)
import Glibc
#endif

final class FileOutputTests: XCTestCase {
    var folder = ""

    override func setUpWithError() throws {
        let made = NSTemporaryDirectory() + "/file-output-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: true)
        // Canonical, as the module names what it resolves.
        let real = try XCTUnwrap(realpath(made, nil))
        defer { free(real) }
        folder = String(cString: real)
        ProtectedFiles.reset()
    }

    override func tearDownWithError() throws {
        ProtectedFiles.reset()
        try? FileManager.default.removeItem(atPath: folder)
    }

    func file(_ name: String) -> String { folder + "/" + name }
    func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: folder).sorted() }
    func write(_ text: String, to path: String) throws { try Data(text.utf8).write(to: URL(fileURLWithPath: path)) }
    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    func refusal(_ path: String) -> FileOutputError? {
        do {
            _ = try OutputTarget.resolve(path)
            return nil
        } catch let error as FileOutputError {
            return error
        } catch {
            XCTFail("\(error)")
            return nil
        }
    }

    // MARK: Regular files

    func testARegularFileAppearsWholeAtCommitAndNotBefore() throws {
        let output = try OutputFile(path: file("a.txt"))
        XCTAssertTrue(output.temporaryPath!.hasPrefix(file(".a.txt.")), output.temporaryPath!)
        try output.write(Array("hello".utf8))
        XCTAssertFalse(FileManager.default.fileExists(atPath: file("a.txt")), "nothing at the target before commit")
        try output.commit()
        XCTAssertEqual(try read(file("a.txt")), "hello")
        XCTAssertEqual(try contents(), ["a.txt"])
        do { _ = try OutputFile(path: file("b.txt")) }
        XCTAssertEqual(try contents(), ["a.txt"], "deinit without commit removes the temporary file")
    }

    func testADiscardedOutputLeavesTheOlderFileAsItWas() throws {
        try write("yesterday", to: file("r.csv"))
        let output = try OutputFile(path: file("r.csv"))
        try output.write(Array("half".utf8))
        output.discard()
        XCTAssertEqual(try read(file("r.csv")), "yesterday")
        XCTAssertEqual(try contents(), ["r.csv"])
    }

    // MARK: Protected files

    func testTheStoreAndItsCompanionsAreRefusedHoweverSpelt() throws {
        let store = file("books.sqlite")
        try write("store", to: store)
        try write("log", to: store + "-wal")
        try FileManager.default.createDirectory(atPath: file("sub"), withIntermediateDirectories: false)
        ProtectedFiles.protectStore(store)
        try FileManager.default.createSymbolicLink(atPath: file("link.csv"), withDestinationPath: store)
        XCTAssertEqual(link(store, file("hard.csv")), 0)
        let spellings = [store, file("sub/../books.sqlite"), file("./books.sqlite"), file("link.csv"), file("hard.csv")]
        for path in spellings {
            XCTAssertEqual(refusal(path)?.description, "\(path): refusing to write: it is the store (\(store))", path)
            XCTAssertEqual(refusal(path)?.kind, .cannotCreate)
        }
        XCTAssertEqual(refusal(store + "-wal")?.description, "\(store)-wal: refusing to write: it is the store's write-ahead log (\(store)-wal)")
        // Companions that do not exist yet are refused by name.
        XCTAssertEqual(refusal(file("sub/../books.sqlite-journal"))?.message, "refusing to write: it is the store's rollback journal (\(store)-journal)")
        XCTAssertEqual(refusal(store + "-shm")?.message, "refusing to write: it is the store's shared-memory index (\(store)-shm)")
        XCTAssertNil(refusal(file("other.csv")))
        XCTAssertEqual(try read(store), "store")
    }

    func testTheInputIsRefusedThroughAHardLink() throws {
        try write("name\na\n", to: file("in.csv"))
        ProtectedFiles.protect(file("in.csv"), as: "the input being imported")
        XCTAssertEqual(link(file("in.csv"), file("alias.csv")), 0)
        XCTAssertEqual(refusal(file("alias.csv"))?.message, "refusing to write: it is the input being imported (\(file("in.csv")))")
    }

    func testStandardOutputRedirectedIntoTheStoreIsRefused() throws {
        let store = file("books.sqlite")
        try write("store", to: store)
        ProtectedFiles.protectStore(store)
        let fd = open(store, O_WRONLY | O_APPEND)
        XCTAssertGreaterThanOrEqual(fd, 0)
        defer { close(fd) }
        XCTAssertEqual(refusal("/dev/fd/\(fd)")?.message, "refusing to write: it is the store (\(store))")
    }

    /// A folder of report definitions is protected whole: every definition in it (through any spelling, a hard
    /// link outside it too), and any new name that would be read as one; other names and hidden ones are not.
    func testAFolderOfDefinitionsIsProtectedWholeHoweverSpelt() throws {
        try FileManager.default.createDirectory(atPath: file("defs/sub"), withIntermediateDirectories: true)
        for name in ["a.yaml", "b.yml", "notes.csv", ".hidden.yaml", "sub/deeper.yaml"] { try write(name, to: file("defs/" + name)) }
        ProtectedFiles.protectFolder(file("defs"), suffixes: [".yaml", ".yml"], as: "a report definition", folderRole: "the report folder")
        try FileManager.default.createSymbolicLink(atPath: file("link.txt"), withDestinationPath: "defs/a.yaml")
        XCTAssertEqual(link(file("defs/b.yml"), file("hard.txt")), 0)
        for (path, registered) in [(file("defs/a.yaml"), "defs/a.yaml"), (file("defs/sub/../a.yaml"), "defs/a.yaml"),
                                   (file("link.txt"), "defs/a.yaml"), (file("hard.txt"), "defs/b.yml"), (file("./defs/b.yml"), "defs/b.yml")] {
            XCTAssertEqual(refusal(path)?.message, "refusing to write: it is a report definition (\(file(registered)))", path)
        }
        for path in [file("defs/new.yaml"), file("defs/sub/../new.yml")] {
            XCTAssertEqual(refusal(path)?.message, "refusing to write: it would be read as a report definition (in the report folder \(file("defs")))", path)
        }
        for path in [file("defs/notes.csv"), file("defs/new.csv"), file("defs/.hidden.yaml"), file("defs/sub/deeper.yaml"), file("a.yaml")] {
            XCTAssertNil(refusal(path), path)
        }
        XCTAssertEqual(try read(file("defs/a.yaml")), "a.yaml")
    }

    /// Matching an output against a folder of definitions costs the same however many there are: registering n
    /// files and resolving n outputs grows linearly (a scan of every file for every output was quadratic).
    func testProtectingAFolderGrowsLinearlyWithItsFiles() throws {
        var folders: [Int: String] = [:]
        func folder(_ n: Int) -> String {
            if let made = folders[n] { return made }
            let made = file("defs-\(n)")
            try? FileManager.default.createDirectory(atPath: made, withIntermediateDirectories: false)
            for i in 0..<n { _ = FileManager.default.createFile(atPath: made + "/r\(i).yaml", contents: Data()) }
            folders[n] = made
            return made
        }
        _ = folder(1000); _ = folder(2000)
        let (ratio, small, large) = doublingRatio(size: 1000, repeats: 3) { n in
            ProtectedFiles.reset()
            ProtectedFiles.protectFolder(folder(n), suffixes: [".yaml"], as: "a report definition", folderRole: "the report folder")
            for i in 0..<n { _ = refusal(file("out-\(i).csv")) }
        }
        XCTAssertLessThan(ratio, 3, "doubling the folder took \(ratio)× as long (\(small)s, \(large)s)")
    }

    // MARK: Symlinks

    func testASymlinkStaysASymlinkAndItsTargetIsReplaced() throws {
        try FileManager.default.createDirectory(atPath: file("real"), withIntermediateDirectories: false)
        try write("old", to: file("real/report.csv"))
        try FileManager.default.createSymbolicLink(atPath: file("latest.csv"), withDestinationPath: "real/report.csv")
        let output = try OutputFile(path: file("latest.csv"))
        XCTAssertTrue(output.temporaryPath!.hasPrefix(file("real/.report.csv.")), "the temporary file is beside the target")
        try output.write(Array("new".utf8))
        try output.commit()
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: file("latest.csv")), "real/report.csv")
        XCTAssertEqual(try read(file("real/report.csv")), "new")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: file("real")), ["report.csv"])
    }

    func testDanglingAndLoopingLinksAreRefused() throws {
        try FileManager.default.createSymbolicLink(atPath: file("dangling"), withDestinationPath: file("nowhere/x"))
        try FileManager.default.createSymbolicLink(atPath: file("loop1"), withDestinationPath: file("loop2"))
        try FileManager.default.createSymbolicLink(atPath: file("loop2"), withDestinationPath: file("loop1"))
        XCTAssertEqual(refusal(file("dangling"))?.message, "cannot create (a symbolic link to nothing)")
        XCTAssertEqual(refusal(file("loop1"))?.message, "cannot create (a loop of symbolic links)")
        XCTAssertEqual(try contents(), ["dangling", "loop1", "loop2"])
    }

    func testFoldersAndMissingFoldersAreRefused() throws {
        XCTAssertEqual(refusal(folder)?.message, "cannot create (Is a directory)")
        XCTAssertEqual(refusal(file("no/such/x.csv"))?.message, "cannot create (No such file or directory)")
        try write("", to: file("plain"))
        XCTAssertEqual(refusal(file("plain/x.csv"))?.message, "cannot create (Not a directory)")
        XCTAssertEqual(refusal("")?.message, "cannot create (the path is empty)")
    }

    // MARK: Devices, pipes, sockets, descriptors

    func testDevNullIsWrittenNotReplaced() throws {
        XCTAssertEqual(try OutputTarget.resolve("/dev/null"), .special(path: "/dev/null", isSocket: false))
        for assembled in [false, true] {
            let output = try OutputFile(path: "/dev/null", assembledAtPath: assembled)
            try output.write(Array("x".utf8))
            try output.commit()
        }
        var status = stat()
        XCTAssertEqual(lstat("/dev/null", &status), 0)
        XCTAssertEqual(status.st_mode & S_IFMT, S_IFCHR, "/dev/null is still a device")
    }

    func testDevFullIsAnIOError() throws {
        let output = try OutputFile(path: "/dev/full")
        XCTAssertThrowsError(try output.write(Array("x".utf8))) { error in
            XCTAssertEqual("\(error)", "/dev/full: cannot write (No space left on device)")
            XCTAssertEqual((error as? FileOutputError)?.kind, .io)
        }
        let assembled = try OutputFile(path: "/dev/full", assembledAtPath: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: assembled.assemblyPath!))
        XCTAssertThrowsError(try assembled.commit()) { XCTAssertEqual("\($0)", "/dev/full: cannot write (No space left on device)") }
        XCTAssertFalse(FileManager.default.fileExists(atPath: assembled.assemblyPath!), "the scratch file is removed")
    }

    func testDevFdIsTheDescriptorItselfAndStaysOpen() throws {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&fds), 0)
        defer { close(fds[0]) }
        XCTAssertEqual(try OutputTarget.resolve("/dev/fd/\(fds[1])"), .descriptor(fds[1]))
        XCTAssertEqual(try OutputTarget.resolve("/proc/self/fd/\(fds[1])"), .descriptor(fds[1]))
        let output = try OutputFile(path: "/dev/fd/\(fds[1])", assembledAtPath: true)
        try Data("workbook".utf8).write(to: URL(fileURLWithPath: output.assemblyPath!))
        try output.commit()
        XCTAssertGreaterThanOrEqual(fcntl(fds[1], F_GETFD), 0, "an inherited descriptor is not closed")
        close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(fds[0], &buffer, 64)
        XCTAssertEqual(String(decoding: buffer[..<max(n, 0)], as: UTF8.self), "workbook")
        XCTAssertEqual(try OutputTarget.resolve("-"), .descriptor(STDOUT_FILENO))
    }

    func testANamedPipeWithAReaderGetsTheBytes() throws {
        let fifo = file("pipe")
        XCTAssertEqual(mkfifo(fifo, 0o600), 0)
        let received = LockedText()
        let reader = Thread {
            let fd = open(fifo, O_RDONLY)
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 256)
            while fd >= 0 {
                let n = Glibc.read(fd, &buffer, buffer.count)
                if n <= 0 { break }
                bytes += buffer[..<n]
            }
            if fd >= 0 { close(fd) }
            received.set(String(decoding: bytes, as: UTF8.self))
        }
        reader.start()
        let output = try OutputFile(path: fifo)
        try output.write(Array("through the pipe".utf8))
        try output.commit()
        while received.get() == nil { usleep(1000) }
        XCTAssertEqual(received.get(), "through the pipe")
        XCTAssertEqual(try contents(), ["pipe"], "the FIFO is still there, and nothing beside it")
    }

    func testASocketGetsTheBytes() throws {
        let path = file("sock")
        let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(server) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (i, b) in path.utf8.enumerated() { raw[i] = b }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        XCTAssertEqual(bound, 0)
        XCTAssertEqual(listen(server, 1), 0)
        guard case .special(_, true) = try OutputTarget.resolve(path) else { return XCTFail("a socket") }
        let output = try OutputFile(path: path)
        try output.write(Array("hello socket".utf8))
        try output.commit()
        let connection = accept(server, nil, nil)
        defer { close(connection) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let n = Glibc.read(connection, &buffer, 64)
        XCTAssertEqual(String(decoding: buffer[..<max(n, 0)], as: UTF8.self), "hello socket")
    }

    // MARK: Side files

    func testASideFileIsNotWrittenThroughASymlink() throws {
        try write("precious", to: file("victim"))
        try FileManager.default.createSymbolicLink(atPath: file("books.sqlite-activity"), withDestinationPath: file("victim"))
        XCTAssertNil(SideFile.createNote(at: file("books.sqlite-activity"), text: "import"))
        XCTAssertEqual(try read(file("victim")), "precious")
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: file("books.sqlite-activity")), file("victim"))
    }

    func testASideFileNeverRemovesADirectoryOfItsName() throws {
        try FileManager.default.createDirectory(atPath: file("books.sqlite-activity/inside"), withIntermediateDirectories: true)
        let note = SideFile.createNote(at: file("books.sqlite-activity"), text: "import")
        XCTAssertNil(note)
        note?.remove()
        XCTAssertTrue(FileManager.default.fileExists(atPath: file("books.sqlite-activity/inside")))
    }

    func testASideFileRemovesOnlyTheFileItCreated() throws {
        let note = try XCTUnwrap(SideFile.createNote(at: file("n"), text: "import of a.csv"))
        XCTAssertEqual(SideFile.liveNote(at: file("n")), "import of a.csv")
        // Someone replaced it meanwhile: theirs stays.
        XCTAssertEqual(unlink(file("n")), 0)
        try write("someone else's", to: file("n"))
        note.remove()
        XCTAssertEqual(try read(file("n")), "someone else's")
    }

    func testAStaleNoteIsNeverNamedAsTheHolderAndIsReplaced() throws {
        // A pid that is gone, and our own pid with another start time (a reused pid).
        let me = try XCTUnwrap(ProcessIdentity.current)
        for stale in ["999999999 1\nimport by a dead process\n", "\(me.pid) \(me.startTime + 1)\nimport by a reused pid\n"] {
            try write(stale, to: file("n"))
            XCTAssertNil(SideFile.liveNote(at: file("n")), stale)
            let note = try XCTUnwrap(SideFile.createNote(at: file("n"), text: "import now"))
            XCTAssertEqual(SideFile.liveNote(at: file("n")), "import now")
            note.remove()
            XCTAssertEqual(try contents(), [])
        }
        // Something that is not a note of ours is left alone.
        try write("not a note", to: file("n"))
        XCTAssertNil(SideFile.createNote(at: file("n"), text: "import"))
        XCTAssertEqual(try read(file("n")), "not a note")
    }
}

final class LockedText: @unchecked Sendable {
    private let lock = NSLock()
    private var text: String?
    func set(_ value: String) { lock.lock(); text = value; lock.unlock() }
    func get() -> String? { lock.lock(); defer { lock.unlock() }; return text }
}

/// Attack 27, finding 13: `show` and `list` passed U+200F and U+061C raw, bidirectional controls like the U+202E and
/// U+2066–2069 they coded: the list had been written by example. It is checked here against Unicode's.
final class VisibleTextTests: XCTestCase {
    /// Unicode's Bidi_Control property, as PropList.txt lists it (unchanged from Unicode 6.3 to 16.0):
    /// `061C`, `200E..200F`, `202A..202E`, `2066..2069`.
    static let bidiControls: Set<UInt32> = Set([0x061C, 0x200E, 0x200F] + Array(0x202A...0x202E) + Array(0x2066...0x2069))

    /// Over every scalar: coded exactly when it is a C0 or C1 control, DEL, the line or paragraph separator, or a
    /// bidirectional control (by PropList.txt's list and by the standard library's property, which must agree).
    func testEveryBidiControlAndNothingElseButControlsAndSeparatorsIsCoded() {
        var coded = 0
        for value in UInt32(0)...0x10FFFF {
            guard let scalar = Unicode.Scalar(value) else { continue }
            XCTAssertEqual(Self.bidiControls.contains(value), scalar.properties.isBidiControl, String(format: "U+%04X", value))
            let expected = value < 0x20 || (0x7F..<0xA0).contains(value) || value == 0x2028 || value == 0x2029 || Self.bidiControls.contains(value)
            if VisibleText.needsEscape(scalar) != expected { XCTFail(String(format: "U+%04X: coded %@", value, "\(!expected)")) }
            if expected {
                coded += 1
                let text = "a" + String(Character(scalar)) + "b"
                XCTAssertEqual(VisibleText.escaped(text), "a" + VisibleText.code(scalar) + "b")
            }
        }
        XCTAssertEqual(coded, 32 + 33 + 2 + 12)
    }

    /// `codeLength` finds exactly the codes `code(_:)` writes.
    func testACodeIsFoundWhereItStartsAndNowhereElse() {
        XCTAssertEqual(VisibleText.codeLength(at: "<U+001B>x".startIndex, in: "<U+001B>x"), 8)
        XCTAssertEqual(VisibleText.codeLength(at: "<U+10FFFF>".startIndex, in: "<U+10FFFF>"), 10)
        for text in ["<U+01B>", "<U+001b>", "<U+001B", "U+001B>", "<U+1234567>", "<u+001B>", "x<U+001B>"] {
            XCTAssertNil(VisibleText.codeLength(at: text.startIndex, in: text), text)
        }
    }
}
