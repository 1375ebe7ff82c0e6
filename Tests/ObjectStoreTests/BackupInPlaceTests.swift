import XCTest
import TestSupport
@testable import ObjectStore

/// A copy put in place is checked as SQLite opens it there, companions included (Store+Backup): the check after the
/// rename catches a stale `-wal` that appeared beside the target after it was looked for.
final class BackupInPlaceTests: XCTestCase {
    func testACopyIsCheckedAsItOpensWhereItIsCompanionsIncluded() throws {
        let (store, dir) = try TestModel.makeStore()
        let copy = dir.file("copy.sqlite")
        try store.backup(to: copy)
        XCTAssertNoThrow(try Store.verifyCopyInPlace(copy))
        // A killed job's log appears beside it: the same file now opens as another database.
        try writeStaleWriteAheadLog(to: copy + "-wal")
        let log = fileBytes(copy + "-wal")
        XCTAssertThrowsError(try Store.verifyCopyInPlace(copy)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(copy): the copy was put in place, but it does not open there as the store ("), "\(error)")
            XCTAssertEqual((error as? StoreError)?.category, .io)
        }
        XCTAssertEqual(fileBytes(copy + "-wal"), log, "the check reads only: the log is left as it was")
        // Not a store at all.
        let other = dir.write("other.sqlite", "not a database, just text that is long enough to be read as one")
        XCTAssertThrowsError(try Store.verifyCopyInPlace(other))
    }

    func fileBytes(_ path: String) -> Data { FileManager.default.contents(atPath: path) ?? Data() }
}

/// The copy a migration keeps beside the store takes the next free name when a name has an SQLite companion beside
/// it, rather than being put where SQLite would read the companion with it.
final class MigrationCopyNameTests: XCTestCase {
    func testAMigrationCopySkipsANameWithAStaleCompanion() throws {
        let (store, dir) = try TestModel.makeStore()
        defer { withExtendedLifetime(dir) {} }
        // Stale logs for every name this second and the next few could give (the copy's name holds the time).
        let start = Timestamp.now().secondsSinceEpoch
        var stale: [String] = []
        for second in start..<(start + 5) {
            let stamp = Timestamp(secondsSinceEpoch: second).description
                .replacingOccurrences(of: "-", with: "").replacingOccurrences(of: ":", with: "")
            let name = "\(store.path).before-migration-\(stamp)"
            XCTAssertTrue(FileManager.default.createFile(atPath: name + "-wal", contents: Data("stale".utf8)))
            stale.append(name)
        }
        let copy = try store.makeBackup(suffix: "before-migration")
        XCTAssertFalse(stale.contains(copy), "\(copy) has a stale -wal beside it")
        XCTAssertTrue(copy.hasSuffix("-2"), copy)
        XCTAssertEqual(try queryStore(copy, "PRAGMA integrity_check"), ["ok"])
        for name in stale { XCTAssertEqual(FileManager.default.contents(atPath: name + "-wal"), Data("stale".utf8)) }
    }
}
