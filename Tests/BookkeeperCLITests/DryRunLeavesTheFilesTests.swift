import Foundation
import TestSupport
import XCTest

/// Issue 26, attack findings 4, 5 and 9: a dry run leaves the store's files as it found them — the store's bytes, a
/// `-wal` holding committed frames, the set of files beside it, a damaged store too — and a real `migrate` prints its
/// plan a line per change.
final class DryRunLeavesTheFilesTests: StoreCommandTestCase {
    /// The files a dry run must leave as they were: the folder's listing, the store's bytes and its -wal's (the -shm
    /// is SQLite's index of the log, which every reader updates: `list` changes it too).
    struct Files: Equatable, CustomStringConvertible {
        let listing: [String]
        let store: Data
        let log: Data?
        var description: String { "\(listing); store \(store.count) bytes, -wal \(log.map { "\($0.count) bytes" } ?? "none")" }
    }

    func files() throws -> Files {
        Files(listing: try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted(),
              store: try Data(contentsOf: URL(fileURLWithPath: store)),
              log: FileManager.default.contents(atPath: store + "-wal"))
    }

    static let dryRuns: [[String]] = [
        ["import", "Tag", "tags.csv", "--dry-run"],
        ["import", "Customer", "customers.csv", "--dry-run", "--on-error", "skip", "--rejects", "rejects.csv"],
        ["migrate", "--dry-run"],
        ["migrate", "--dry-run", "--allow-data-loss"],
    ]
    static let models = [
        "unchanged": "",
        "an added attribute": "entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n",
        "an added entity": "entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: string }\n",
    ]

    /// Seen: `migrate --dry-run` and `import --dry-run`, with the model unchanged or changed, checkpointed a -wal
    /// holding committed frames into the store file (its bytes changed) and removed the -wal and -shm; `list` leaves
    /// them. Every dry run, over every model, leaves the store's bytes, the log's and the folder's listing as they
    /// were, and reads the change the log holds.
    func testADryRunNeverCheckpointsALogWithCommittedFramesNorRemovesIt() throws {
        ok("init")
        ok("add", "Customer", "name=Acme", "info=in the file")
        ok("add", "Tag", "name=old")
        dir.write("tags.csv", "name\nnew tag\n")
        dir.write("customers.csv", "name,info\nAcme,imported\nBolt,new\n")
        for (name, model) in Self.models.sorted(by: { $0.key < $1.key }) {
            try? FileManager.default.removeItem(atPath: dir.file("model.yaml"))
            if !model.isEmpty { dir.write("model.yaml", model) }
            for args in Self.dryRuns {
                try leaveCommittedFramesInTheLog(of: store, "UPDATE Customer SET info = 'changed in the log' WHERE name = 'Acme'")
                let before = try files()
                XCTAssertNotNil(before.log, "\(name): \(args): the log is there")
                XCTAssertTrue(before.listing.contains("books.sqlite-shm"), "\(name): \(args): \(before)")
                let r = bk(args)
                XCTAssertEqual(r.status, 0, "\(name): \(args): \(r)")
                XCTAssertEqual(try files(), before, "\(name): \(args): \(r)")
            }
        }
        // The change in the log is the store's: a dry run saw it, and a reader does.
        XCTAssertTrue(bk("show", "Customer", "Acme").stdout.contains("changed in the log"))
        // A reader leaves the files as they are too (the behaviour the dry runs now share).
        try leaveCommittedFramesInTheLog(of: store, "UPDATE Customer SET info = 'again' WHERE name = 'Acme'")
        let before = try files()
        ok("list", "Tag")
        XCTAssertEqual(try files(), before)
    }

    /// Seen: a dry run of a damaged (truncated) store said so (74) and left a new -wal and -shm beside it, on a store
    /// the user will want to restore. Every dry run kind leaves the folder as it found it.
    func testADryRunOfADamagedStoreLeavesNoFileBesideIt() throws {
        SampleStore.copy(to: dir.file("whole.sqlite"))
        let whole = try Data(contentsOf: URL(fileURLWithPath: dir.file("whole.sqlite")))
        XCTAssertGreaterThan(whole.count, 20_000)
        try FileManager.default.removeItem(atPath: dir.file("whole.sqlite"))
        try whole.prefix(10_000).write(to: URL(fileURLWithPath: store))
        dir.write("tags.csv", "name\nnew tag\n")
        dir.write("customers.csv", "name,info\nAcme,imported\n")
        for (name, model) in Self.models.sorted(by: { $0.key < $1.key }) {
            try? FileManager.default.removeItem(atPath: dir.file("model.yaml"))
            if !model.isEmpty { dir.write("model.yaml", model) }
            for args in Self.dryRuns {
                let before = try files()
                let r = bk(args)
                XCTAssertEqual(r.status, 74, "\(name): \(args): \(r)")
                XCTAssertTrue(r.stderr.contains("the store is damaged"), "\(name): \(args): \(r.stderr)")
                XCTAssertEqual(try files(), before, "\(name): \(args): \(r)")
            }
        }
    }

    /// Seen: a real `migrate` printed its plan as one line joined by the text `<U+000A>` (the escaping meant for
    /// stored values applied to the tool's own line breaks), where the dry run printed a line per change. Both print
    /// a `- …` line per change, the same lines, and a control character inside a name or value is still escaped.
    func testARealMigratePrintsItsPlanALinePerChange() throws {
        ok("init")
        ok("add", "Customer", "name=Acme")
        ok("add", "Customer", "name=Bolt")
        dir.write("model.yaml", """
            entities:
              Customer:
                attributes:
                  d: { type: string }
                  e: { type: string }
                  f: { type: string, required: true }
            """)
        let escape = "x\u{1B}[2J\nbookkeeper: forged"
        let dry = bk("migrate", "--dry-run", "--default", "Customer.f=\(escape)")
        XCTAssertEqual(dry.status, 0, "\(dry)")
        let real = bk("migrate", "--default", "Customer.f=\(escape)")
        XCTAssertEqual(real.status, 0, "\(real)")
        let changes = real.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast(2).map(String.init)
        XCTAssertEqual(changes.count, 3, real.stdout)
        XCTAssertEqual(Array(changes.prefix(2)), ["- add attribute Customer.d", "- add attribute Customer.e"], real.stdout)
        XCTAssertTrue(real.stdout.split(separator: "\n").last!.hasPrefix("migrated \(store) (backup: "), real.stdout)
        XCTAssertEqual(dry.stdout.split(separator: "\n").prefix(3).map(String.init), changes, "the dry run's lines are the real run's")
        for output in [dry.stdout, real.stdout] {
            XCTAssertFalse(output.contains("\u{1B}"), output)
            XCTAssertFalse(output.contains("\nbookkeeper: forged"), output)
            XCTAssertFalse(output.contains("<U+000A>- "), output)
        }
        XCTAssertTrue(changes[2].contains("x<U+001B>[2J<U+000A>bookkeeper: forged"), changes[2])
        XCTAssertEqual(try queryStore(store, "SELECT DISTINCT f FROM Customer"), [escape])
    }
}
