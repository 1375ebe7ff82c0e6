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
    /// a `- …` line per change, the same lines; a control character inside a value (a --default argument in the
    /// dry run's SQL, a stored value a blocker names) is still escaped, within its one line.
    func testARealMigratePrintsItsPlanALinePerChange() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      g: { type: string }\n")
        ok("init")
        let stored = "a\u{1B}]0;title\u{7}\nbookkeeper: forged"
        ok("add", "Customer", "name=Acme", "g=\(stored)")
        ok("add", "Customer", "name=Bolt", "g=\(stored)")
        let attributes = "entities:\n  Customer:\n    attributes:\n      d: { type: string }\n      e: { type: string }\n"
            + "      f: { type: string, required: true }\n"
        let given = "x\u{1B}[2J\nbookkeeper: forged"
        func forged(_ output: String) -> Bool {
            output.contains("\u{1B}") || output.contains("\u{7}") || output.split(separator: "\n").contains { $0.hasPrefix("bookkeeper: forged") }
        }

        // A stored value in a blocker, on the dry run's stdout: escaped, on its line.
        dir.write("model.yaml", attributes + "      g: { type: string, unique: true }\n")
        let blocked = bk("migrate", "--dry-run", "--default", "Customer.f=\(given)")
        XCTAssertEqual(blocked.status, 65, "\(blocked)")
        XCTAssertFalse(forged(blocked.stdout), blocked.stdout)
        XCTAssertTrue(blocked.stdout.contains(#"- blocked: Customer.g becomes unique, but 2 objects share "a\u{1B}]0;title\u{07}\nbookkeeper: forged""#),
                      blocked.stdout)

        dir.write("model.yaml", attributes + "      g: { type: string }\n")
        let dry = bk("migrate", "--dry-run", "--default", "Customer.f=\(given)")
        XCTAssertEqual(dry.status, 0, "\(dry)")
        let real = bk("migrate", "--default", "Customer.f=\(given)")
        XCTAssertEqual(real.status, 0, "\(real)")
        let lines = real.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.dropLast(), ["- add attribute Customer.d", "- add attribute Customer.e", "- add attribute Customer.f"], real.stdout)
        XCTAssertTrue(lines.last!.hasPrefix("migrated \(store) (backup: "), real.stdout)
        XCTAssertEqual(Array(dry.stdout.split(separator: "\n").prefix(3).map(String.init)), Array(lines.dropLast()),
                       "the dry run's lines are the real run's")
        for output in [dry.stdout, real.stdout] {
            XCTAssertFalse(forged(output), output)
            XCTAssertFalse(output.contains("<U+000A>- "), output)
        }
        XCTAssertEqual(dry.stdout.split(separator: "\n").filter { $0.contains("x<U+001B>[2J<U+000A>bookkeeper: forged") }.count, 1, dry.stdout)
        XCTAssertEqual(try queryStore(store, "SELECT DISTINCT f FROM Customer"), [given])
    }
}
