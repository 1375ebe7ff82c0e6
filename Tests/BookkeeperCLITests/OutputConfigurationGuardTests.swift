// Issue 26, part 4: outputs spare configuration and make restorable backups. Every command that writes a file
// must refuse a target that is any file bookkeeper reads (model files, import profiles, report definitions in
// every folder searched, the store and its companions), however spelt; and a backup must open, where it is put,
// as the store it copies.

import Foundation
import TestSupport
import XCTest
#if canImport(Glibc)
import Glibc
#endif

final class OutputConfigurationGuardTests: SampleStoreTestCase {
    static let tagsReport = "title: Tags\nentity: Tag\ncolumns:\n  - key: name\n"
    static let emptyModel = "entities: {}\n"

    /// The report folders and configuration files the tests protect, beside the store.
    func makeConfiguration() throws {
        for folder in ["defs", "env-reports", "sub", "links"] {
            try FileManager.default.createDirectory(atPath: dir.file(folder), withIntermediateDirectories: false)
        }
        let customers = try String(contentsOf: packageRoot.appendingPathComponent("Reports/customers.yaml"), encoding: .utf8)
        dir.write("defs/customers.yaml", customers)
        dir.write("defs/tags.yaml", Self.tagsReport)
        dir.write("env-reports/env-tags.yaml", Self.tagsReport)
        dir.write("mine.yaml", customers)
        dir.write("model.yaml", Self.emptyModel)
        dir.write("explicit-model.yaml", Self.emptyModel)
        dir.write("env-model.yaml", Self.emptyModel)
        dir.write("profile.yaml", "entity: Tag\n")
        dir.write("accepted.csv", "name,reason\n")
        dir.write("tags.csv", "name\nvip\n\"\"\n")
    }

    var configurationEnvironment: [String: String] {
        ["BOOKKEEPER_REPORTS": dir.file("env-reports"), "BOOKKEEPER_MODEL": dir.file("env-model.yaml")]
    }

    /// Every file under the test's folder with its bytes, but the store's -wal and -shm, which SQLite makes and
    /// removes as it opens and closes the store, and the links a case makes.
    func snapshot() -> [String: Data] {
        var files: [String: Data] = [:]
        let enumerator = FileManager.default.enumerator(atPath: dir.path)
        while let name = enumerator?.nextObject() as? String {
            guard !name.hasPrefix("links/"), name != "books.sqlite-wal", name != "books.sqlite-shm" else { continue }
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: dir.file(name), isDirectory: &isDirectory)
            files[name] = isDirectory.boolValue ? Data("<folder>".utf8) : fileBytes(dir.file(name))
        }
        return files
    }

    // MARK: The findings

    /// `report tags --reports defs --output defs/customers.yaml` replaced another report's definition (only the
    /// one being run was protected) and exited 0.
    func testAReportOverAnotherReportsDefinitionIsRefused() throws {
        try makeConfiguration()
        let before = fileBytes(dir.file("defs/customers.yaml"))
        let r = bk(["report", "tags", "--reports", "defs", "--output", "defs/customers.yaml"])
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: defs/customers.yaml: refusing to write: it is a report definition (defs/customers.yaml)\n")
        XCTAssertEqual(fileBytes(dir.file("defs/customers.yaml")), before)
        XCTAssertEqual(filesIn(dir.file("defs")), ["customers.yaml", "tags.yaml"], "no temporary file left")
    }

    /// A new NAME.yaml in a report folder would be read as a definition by the next `report --all`.
    func testAnOutputNamedAsANewDefinitionInAReportFolderIsRefused() throws {
        try makeConfiguration()
        let r = bk(["export", "Tag", "env-reports/tags-export.yml"], environment: configurationEnvironment)
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: env-reports/tags-export.yml: refusing to write: it would be read as a report definition "
                       + "(in the report folder \(dir.file("env-reports")))\n")
        XCTAssertEqual(filesIn(dir.file("env-reports")), ["env-tags.yaml"])
        // Other outputs in a report folder, and hidden names (which no reader takes for a definition), are written.
        XCTAssertEqual(bk(["export", "Tag", "env-reports/tags.csv"], environment: configurationEnvironment).status, 0)
        XCTAssertEqual(bk(["report", "tags", "--reports", "defs", "--format", "csv", "--output-dir", "defs"]).status, 0)
        XCTAssertEqual(filesIn(dir.file("defs")), ["customers.yaml", "tags.csv", "tags.yaml"])
    }

    /// `report … >> defs/customers.yaml`: standard output opened onto a definition is refused before any work.
    func testStandardOutputAppendedToADefinitionIsRefused() throws {
        try makeConfiguration()
        let before = snapshot()
        for command in ["report tags --reports defs >> defs/customers.yaml", "list Tag >> model.yaml",
                        "import Tag tags.csv --profile profile.yaml >> profile.yaml"] {
            let r = runProgram("/bin/sh", ["-c", "\(bookkeeperBinary) --store books.sqlite \(command)"], in: dir.path,
                               environment: Self.environment)
            XCTAssertEqual(r.status, 73, "\(command): \(r)")
        }
        XCTAssertEqual(snapshot(), before)
    }

    /// `backup weekly.sqlite` where a killed job had left `weekly.sqlite-wal`: "backed up", exit 0, and the copy
    /// opened as another database (SQLite replayed the stale log onto it).
    func testABackupBesideAStaleWriteAheadLogIsRefusedNamingIt() throws {
        try writeStaleWriteAheadLog(to: dir.file("weekly.sqlite-wal"))
        let log = fileBytes(dir.file("weekly.sqlite-wal"))
        let r = bk(["backup", "weekly.sqlite"])
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: weekly.sqlite: refusing to write: weekly.sqlite-wal is beside it, and SQLite would "
                       + "take it for the copy's own; it is left alone (a process may be using it): move it away if none is\n")
        XCTAssertEqual(fileBytes(dir.file("weekly.sqlite-wal")), log, "the log is never touched: it may be live")
        XCTAssertFalse(filesIn(dir.path).contains { $0.hasPrefix("weekly.sqlite") && $0 != "weekly.sqlite-wal" || $0.hasSuffix(".tmp") })
        // Once the log is moved away, the backup is made, and opens as the store.
        XCTAssertEqual(rename(dir.file("weekly.sqlite-wal"), dir.file("stale-wal")), 0)
        XCTAssertEqual(bk(["backup", "weekly.sqlite"]).status, 0)
        try assertRestorable(dir.file("weekly.sqlite"))
    }

    // MARK: Backups

    /// Each stale companion, beside the target as spelt or beside the file a symlinked target leads to, is refused
    /// by name and left as it was; so is yesterday's backup.
    func testABackupBesideAnyStaleCompanionIsRefusedAndTheCompanionKept() throws {
        try FileManager.default.createDirectory(atPath: dir.file("archive"), withIntermediateDirectories: false)
        XCTAssertEqual(bk(["backup", "archive/weekly.sqlite"]).status, 0)
        let yesterday = fileBytes(dir.file("archive/weekly.sqlite"))
        try FileManager.default.createSymbolicLink(atPath: dir.file("latest.sqlite"), withDestinationPath: "archive/weekly.sqlite")
        let real = try XCTUnwrap(realpath(dir.file("archive/weekly.sqlite"), nil).map { p in defer { free(p) }; return String(cString: p) })
        for suffix in ["-wal", "-shm", "-journal"] {
            let companion = dir.write("archive/weekly.sqlite" + suffix, "stale \(suffix)\n")
            for (target, named) in [("archive/weekly.sqlite", "archive/weekly.sqlite" + suffix), ("latest.sqlite", real + suffix),
                                    (dir.file("archive/weekly.sqlite"), dir.file("archive/weekly.sqlite") + suffix)] {
                let r = bk(["backup", target])
                XCTAssertEqual(r.status, 73, "\(target) \(suffix): \(r)")
                XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: \(target): refusing to write: \(named) is beside it"), r.stderr)
                XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, r.stderr)
                XCTAssertEqual(try String(contentsOfFile: companion, encoding: .utf8), "stale \(suffix)\n")
                XCTAssertEqual(fileBytes(dir.file("archive/weekly.sqlite")), yesterday, "yesterday's backup is kept")
                XCTAssertEqual(filesIn(dir.file("archive")), ["weekly.sqlite", "weekly.sqlite" + suffix], "no temporary file left")
            }
            XCTAssertEqual(unlink(companion), 0)
        }
        // A dangling symlink of a companion's name counts too: SQLite would follow it.
        try FileManager.default.createSymbolicLink(atPath: dir.file("archive/weekly.sqlite-journal"), withDestinationPath: "nowhere")
        XCTAssertEqual(bk(["backup", "archive/weekly.sqlite"]).status, 73)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: dir.file("archive/weekly.sqlite-journal")), "nowhere")
    }

    /// A backup that succeeded opens where it is as the store: SQLite's integrity check and `bookkeeper check`
    /// find nothing, it holds what the store holds, and nothing is left beside it.
    func testASuccessfulBackupReopensClean() throws {
        try FileManager.default.createSymbolicLink(atPath: dir.file("latest.sqlite"), withDestinationPath: "weekly.sqlite")
        for target in ["weekly.sqlite", "latest.sqlite", dir.file("monthly.sqlite")] {
            let r = bk(["backup", target])
            XCTAssertEqual(r.status, 0, "\(target): \(r)")
            try assertRestorable(target.hasPrefix("/") ? target : dir.file(target))
        }
        XCTAssertEqual(filesIn(dir.path).filter { $0.hasPrefix("weekly") || $0.hasPrefix("monthly") || $0.hasSuffix(".tmp") },
                       ["monthly.sqlite", "weekly.sqlite"])
    }

    /// `init` where a store was deleted but its `-wal` left: SQLite would take the log for the new store's.
    func testInitBesideAStaleWriteAheadLogIsRefusedNamingIt() throws {
        try writeStaleWriteAheadLog(to: dir.file("new.sqlite-wal"))
        let log = fileBytes(dir.file("new.sqlite-wal"))
        let r = runCLI(["--store", "new.sqlite", "init"], in: dir.path)
        XCTAssertEqual(r.status, 73, "\(r)")
        XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: new.sqlite: refusing to write: new.sqlite-wal is beside it"), r.stderr)
        XCTAssertEqual(fileBytes(dir.file("new.sqlite-wal")), log)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("new.sqlite")))
    }

    func assertRestorable(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try queryStore(path, "PRAGMA integrity_check"), ["ok"], path, file: file, line: line)
        XCTAssertEqual(try storeFingerprint(path), try storeFingerprint(store), path, file: file, line: line)
        let check = runCLI(["--store", path, "check"], in: dir.path, environment: Self.environment)
        XCTAssertEqual(check.status, 0, "\(path): \(check)", file: file, line: line)
        let companions = ["-wal", "-shm", "-journal"].filter { FileManager.default.fileExists(atPath: path + $0) }
        XCTAssertEqual(companions, [], "\(path): nothing beside the copy", file: file, line: line)
    }

    /// Attack 27, finding 1: `export Customer model.yaml` (a report, a backup, an import's rejects) made the model
    /// file beside the store, exit 0, and every later command failed with 78 reading it. `model.yaml` beside the
    /// store is the model file of any run without --model or $BOOKKEEPER_MODEL whether it exists or not: every
    /// writer refuses to make it (73, one line, nothing made), spelt in each way, beside `books.sqlite` and beside
    /// `--store sub/s.sqlite`; `init` refuses a store named so. A `model.yaml` elsewhere is written.
    func testNoOutputCreatesTheModelFileBesideTheStore() throws {
        try makeConfiguration()
        try FileManager.default.removeItem(atPath: dir.file("model.yaml"))
        try FileManager.default.copyItem(atPath: store, toPath: dir.file("sub/s.sqlite"))
        var ran = 0
        for (storePath, folder) in [(store, ""), ("sub/s.sqlite", "sub/")] {
            let model = folder + "model.yaml"
            // Each writer once per store, the spellings taken in turn (every one by several writers).
            for (n, writer) in Self.writers.enumerated() {
                let spellings = [model, "./" + model, "sub/../" + model, dir.file(model)]
                for target in [spellings[(n + folder.count) % spellings.count]] {
                    if writer.isInit && storePath != store { continue }
                    let before = snapshot()
                    let arguments = writer.isInit ? writer.arguments(target) : ["--store", storePath] + writer.arguments(target)
                    let r = runCLI(["--model", "explicit-model.yaml"] + arguments, in: dir.path, environment: Self.environment)
                    let what = "\(writer.name) → \(target) (store \(storePath))"
                    let shownStore = writer.isInit ? target : storePath
                    XCTAssertEqual(r.status, 73, "\(what): \(r)")
                    XCTAssertEqual(r.stderr, "bookkeeper: \(target): refusing to write: it would be read as the model file "
                                   + "(beside the store \(shownStore))\n", what)
                    XCTAssertEqual(snapshot(), before, "\(what): nothing written")
                    XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file(model)), "\(what): not created")
                    ran += 1
                }
            }
        }
        // Not beside the store: an ordinary output.
        XCTAssertEqual(bk(["export", "Customer", "sub/model.yaml"]).status, 0)
        XCTAssertEqual(bk(["list", "Tag"]).status, 0, "the store's own model file was not made")
        XCTAssertEqual(ran, 2 * Self.writers.count - 1)
    }

    // MARK: Every writer × every protected file × every spelling

    /// A command that writes a file, with the target in its place.
    struct Writer {
        let name: String
        let arguments: (String) -> [String]
        var readsReportsFolder = false
        var isInit = false
        var isImport = false
        var reportByPath = false
    }

    static var writers: [Writer] { [
        Writer(name: "report csv", arguments: { ["report", "customers", "--reports", "defs", "--format", "csv", "--output", $0] },
               readsReportsFolder: true),
        Writer(name: "report xlsx", arguments: { ["report", "sales-by-month", "--reports", "defs", "--format", "xlsx", "--output", $0] },
               readsReportsFolder: true),
        Writer(name: "report --all", arguments: { ["report", "--all", "--reports", "defs", "--format", "xlsx", "--output", $0] },
               readsReportsFolder: true),
        Writer(name: "report by path", arguments: { ["report", "mine.yaml", "--format", "json", "--output", $0] }, reportByPath: true),
        Writer(name: "export", arguments: { ["export", "Customer", $0] }),
        Writer(name: "backup", arguments: { ["backup", $0] }),
        Writer(name: "import --rejects", arguments: {
            ["import", "Tag", "tags.csv", "--profile", "profile.yaml", "--on-error", "skip", "--accept-rejects", "accepted.csv", "--rejects", $0]
        }, isImport: true),
        Writer(name: "init", arguments: { ["--store", $0, "init"] }, isInit: true),
    ] }

    /// A protected file: its path under the test's folder, what messages call it, and which writers read it.
    struct Kind {
        let file: String
        let role: String
        let appliesTo: (Writer) -> Bool
    }

    static var kinds: [Kind] { [
        Kind(file: "books.sqlite", role: "it is the store", appliesTo: { !$0.isInit }),
        Kind(file: "books.sqlite-wal", role: "it is the store's write-ahead log", appliesTo: { !$0.isInit }),
        Kind(file: "books.sqlite-shm", role: "it is the store's shared-memory index", appliesTo: { !$0.isInit }),
        Kind(file: "books.sqlite-journal", role: "it is the store's rollback journal", appliesTo: { !$0.isInit }),
        Kind(file: "books.sqlite-activity", role: "it is the store's busy note", appliesTo: { !$0.isInit }),
        Kind(file: "model.yaml", role: "it is the model file", appliesTo: { _ in true }),
        Kind(file: "explicit-model.yaml", role: "it is the model file", appliesTo: { _ in true }),
        Kind(file: "env-model.yaml", role: "it is the model file", appliesTo: { _ in true }),
        Kind(file: "env-reports/env-tags.yaml", role: "it is a report definition", appliesTo: { _ in true }),
        Kind(file: "env-reports/new.yaml", role: "it would be read as a report definition", appliesTo: { _ in true }),
        Kind(file: "defs/customers.yaml", role: "it is a report definition", appliesTo: { $0.readsReportsFolder }),
        Kind(file: "defs/tags.yaml", role: "it is a report definition", appliesTo: { $0.readsReportsFolder }),
        Kind(file: "defs/new.yml", role: "it would be read as a report definition", appliesTo: { $0.readsReportsFolder }),
        Kind(file: "mine.yaml", role: "it is a report definition", appliesTo: { $0.reportByPath }),
        Kind(file: "profile.yaml", role: "it is the import profile", appliesTo: { $0.isImport }),
        Kind(file: "tags.csv", role: "it is the input being imported", appliesTo: { $0.isImport }),
        Kind(file: "accepted.csv", role: "it is the accepted rejects file", appliesTo: { $0.isImport }),
    ] }

    enum Spelling: CaseIterable { case relative, dotSlash, upAndBack, absolute, symlink, hardLink }

    func testEveryWriterRefusesEveryProtectedFileHoweverSpelt() throws {
        try makeConfiguration()
        var cases: [(Writer, Kind, Spelling)] = []
        for writer in Self.writers {
            for kind in Self.kinds where kind.appliesTo(writer) {
                for spelling in Spelling.allCases { cases.append((writer, kind, spelling)) }
            }
        }
        let seed = Trials.seed("BOOKKEEPER_OUTPUT_GUARD_SEED", fixed: 26)
        var generator = SeededGenerator(seed: seed)
        for i in stride(from: cases.count - 1, to: 0, by: -1) { cases.swapAt(i, generator.next(upTo: i + 1)) }
        let count = min(cases.count, Trials.count("BOOKKEEPER_OUTPUT_GUARD_TRIALS", quick: 24, stress: cases.count))
        var ran = 0
        for (n, (writer, kind, spelling)) in cases.prefix(count).enumerated() {
            let path = dir.file(kind.file)
            var status = stat()
            let exists = lstat(path, &status) == 0
            let target: String
            switch spelling {
            case .relative: target = kind.file
            case .dotSlash: target = "./" + kind.file
            case .upAndBack: target = "sub/../" + kind.file
            case .absolute: target = path
            case .symlink, .hardLink:
                // A link needs a file to lead to (a link to nothing is refused as such, not as what it names). A new
                // store at links/N has its own model.yaml beside it (links/model.yaml), not the one it leads to.
                guard exists, !(writer.isInit && kind.file == "model.yaml") else { continue }
                target = "links/\(n)"
                if spelling == .symlink {
                    try FileManager.default.createSymbolicLink(atPath: dir.file(target), withDestinationPath: path)
                } else {
                    XCTAssertEqual(link(path, dir.file(target)), 0, "\(target) → \(path)")
                }
            }
            defer { if target.hasPrefix("links/") { _ = unlink(dir.file(target)) } }
            let before = snapshot()
            let arguments = writer.isInit ? ["--model", "explicit-model.yaml"] + writer.arguments(target)
                : ["--store", store, "--model", "explicit-model.yaml"] + writer.arguments(target)
            let r = runCLI(arguments, in: dir.path, environment: Self.environment.merging(configurationEnvironment) { $1 })
            let what = "\(writer.name) → \(kind.file) as \(spelling) (\(target)), seed \(seed)"
            XCTAssertEqual(r.status, 73, "\(what): \(r)")
            XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: \(target): refusing to write: \(kind.role)"), "\(what): \(r.stderr)")
            XCTAssertEqual(r.stderr.filter { $0 == "\n" }.count, 1, "\(what): one line: \(r.stderr)")
            XCTAssertEqual(snapshot(), before, "\(what): nothing written, nothing left")
            if !exists { XCTAssertFalse(FileManager.default.fileExists(atPath: path), "\(what): not created") }
            ran += 1
        }
        XCTAssertGreaterThan(ran, 0)
        reportTrials("output guard", "\(ran) of \(cases.count) writer × protected file × spelling cases, seed \(seed)")
    }
}
