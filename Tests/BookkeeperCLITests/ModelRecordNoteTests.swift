// A model change no table shows (a new rule the data keeps, a sort, a default, a removed rule) is written to the
// store by the first command that opens it: the model it records. Attack 27, finding 11: the owner's reading
// commands wrote it without a word, where every other migration opening a store says so on stderr (docs/model.md).

import Foundation
import TestSupport
import XCTest

final class ModelRecordNoteTests: XCTestCase {
    static let environment = ["BOOKKEEPER_TODAY": "2026-11-21", "TZ": "UTC", "BOOKKEEPER_REPORTS": ""]

    func testEveryCommandThatRecordsAChangeNoTableShowsSaysSoOnce() throws {
        let dir = TemporaryDirectory()
        dir.write("base.yaml", ReadOnlyMigrationTests.tablelessBase)
        let base = dir.file("base.sqlite")
        SampleStore.copy(to: base)
        let migrated = runCLI(["--store", base, "--model", "base.yaml", "migrate", "--quiet"], in: dir.path)
        XCTAssertEqual(migrated.status, 0, "\(migrated)")
        dir.write("tags.csv", "name\nfresh\n")
        let commands: [[String]] = [
            ["list", "Customer"], ["show", "Customer", "Acme Ltd"], ["fetch", "Customer", "--format", "csv"],
            ["export", "Customer", "/dev/stdout"], ["report", "customers", "--format", "csv", "--output", "/dev/stdout"], ["imports"],
            ["check"], ["add", "Tag", "name=new"], ["import", "Tag", "tags.csv"], ["init"],
        ]
        // (A rule the data breaks is refused, 65, by every command that would record it: not recorded, nothing to say.)
        let kinds = ReadOnlyMigrationTests.tablelessChanges.filter { $0.kind != "a new rule the data breaks" }
        // Every (kind, command) pair in a stress run; a quick one takes those the printed seed draws.
        let seed = Trials.seed(fixed: 2027_04_11)
        var g = SeededGenerator(seed: seed)
        let all = kinds.flatMap { kind in commands.map { (kind: kind.kind, yaml: kind.yaml, command: $0) } }
        let pairs = all.shuffled(using: &g).prefix(Trials.count("BOOKKEEPER_MODEL_RECORD_TRIALS", quick: 8, stress: all.count))
        for (kind, yaml, command) in pairs {
            dir.write("changed.yaml", yaml)
            do {
                let store = dir.file("s.sqlite")
                for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: store + suffix) }
                try FileManager.default.copyItem(atPath: base, toPath: store)
                let first = runCLI(["--store", "s.sqlite", "--model", "changed.yaml"] + command, in: dir.path, environment: Self.environment)
                XCTAssertEqual(first.status, 0, "seed \(seed) \(kind) \(command): \(first)")
                let said = first.stderr.split(separator: "\n").filter { $0.contains("migrated to the current model: ") }
                XCTAssertEqual(said.count, 1, "seed \(seed) \(kind) \(command): the write is said once: \(first)")
                let expected = kind.contains("new rule") ? "add rule to Customer: codes"
                    : "record the changed model — no table changes: defaults, sorts or rules only"
                XCTAssertTrue(said.first?.hasSuffix(expected) == true, "seed \(seed) \(kind) \(command): \(first)")
                let again = runCLI(["--store", "s.sqlite", "--model", "changed.yaml", "list", "Tag"], in: dir.path, environment: Self.environment)
                XCTAssertEqual(again.status, 0, "\(again)")
                XCTAssertFalse(again.stderr.contains("migrated"), "seed \(seed) \(kind) \(command): recorded once, said once: \(again)")
            }
        }
        reportTrials("model record notes", "seed \(seed), \(pairs.count) of \(all.count) (change kind, command) pairs: " + pairs.map { "\($0.kind): \($0.command[0])" }.joined(separator: ", "))
    }

    /// The dry run says what the real run would record first, and records nothing.
    func testADryRunSaysARealRunWouldRecordAChangeNoTableShows() throws {
        let dir = TemporaryDirectory()
        let store = dir.file("s.sqlite")
        SampleStore.copy(to: store)
        dir.write("sort.yaml", "entities:\n  Customer:\n    sort: code desc\n")
        dir.write("tags.csv", "name\nfresh\n")
        let before = FileManager.default.contents(atPath: store)
        let r = runCLI(["--store", "s.sqlite", "--model", "sort.yaml", "import", "Tag", "tags.csv", "--dry-run"], in: dir.path,
                       environment: Self.environment)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(r.stderr.contains("a real run would first migrate the store to the current model: record the changed model"), "\(r)")
        XCTAssertEqual(FileManager.default.contents(atPath: store), before, "the dry run recorded nothing")
        let real = runCLI(["--store", "s.sqlite", "--model", "sort.yaml", "import", "Tag", "tags.csv"], in: dir.path,
                          environment: Self.environment)
        XCTAssertEqual(real.status, 0, "\(real)")
        XCTAssertTrue(real.stderr.contains("migrated to the current model: record the changed model"), "\(real)")
    }
}
