import XCTest
import GRDB
import TestSupport
@testable import ObjectStore

/// Giving the write-ahead log's pages back while the commit's checkpoint copies them: what it reads from
/// SQLite's files, and that a commit with it leaves the same store as one without.
final class CheckpointCacheReleaseTests: XCTestCase {
    func testReadsThePageSizeFromALogHeader() {
        func header(_ magic: UInt8, _ size: [UInt8]) -> [UInt8] {
            var h = [UInt8](repeating: 0, count: 32)
            h.replaceSubrange(0..<4, with: [0x37, 0x7F, 0x06, magic])
            h.replaceSubrange(8..<12, with: size)
            return h
        }
        XCTAssertEqual(CheckpointCacheRelease.pageSize(fromLogHeader: header(0x82, [0, 0, 0x10, 0])), 4096)
        XCTAssertEqual(CheckpointCacheRelease.pageSize(fromLogHeader: header(0x83, [0, 0, 0x02, 0])), 512)
        XCTAssertEqual(CheckpointCacheRelease.pageSize(fromLogHeader: header(0x83, [0, 1, 0, 0])), 65536)
        XCTAssertNil(CheckpointCacheRelease.pageSize(fromLogHeader: header(0x84, [0, 0, 0x10, 0])), "not a WAL")
        XCTAssertNil(CheckpointCacheRelease.pageSize(fromLogHeader: header(0x82, [0, 0, 0x03, 0xE8])), "1000 is no page size")
        XCTAssertNil(CheckpointCacheRelease.pageSize(fromLogHeader: [0x37, 0x7F]))
    }

    func testChunksCoverEveryFrameInTheOrderTheCheckpointFreesThem() {
        let chunks = CheckpointCacheRelease.chunks(framePages: [5, 1, 9, 2, 3], pageSize: 4096, framesPerChunk: 2)
        let frame: Int64 = 24 + 4096
        XCTAssertEqual(chunks.map(\.largestPage), [3, 5, 9])
        XCTAssertEqual(chunks.map(\.offset), [32 + 4 * frame, 32, 32 + 2 * frame])
        XCTAssertEqual(chunks.map(\.length), [frame, 2 * frame, 2 * frame])
    }

    /// A transaction bigger than SQLite's cache spills its pages into the log before the commit; the commit
    /// then checkpoints them (over 1,000 frames) into a store that grows.
    func testACommitGivesCopiedPagesBackAndKeepsEveryRow() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("log.sqlite")
        let queue = try Self.storeInWALMode(path)
        var release: CheckpointCacheRelease?
        try queue.inTransaction { db in
            for i in 0..<8000 {
                try db.execute(sql: "INSERT INTO t (id, body) VALUES (?, randomblob(1000))", arguments: [i])
            }
            // The page numbers read block by block are those of the frames' own headers, one by one.
            let logFrames = try Self.pageNumbersInFrameHeaders(of: path + "-wal")
            XCTAssertGreaterThan(logFrames.count, 1000, "the transaction spilled into the log")
            let fd = open(path + "-wal", O_RDONLY)
            defer { close(fd) }
            let read = try XCTUnwrap(CheckpointCacheRelease.framePages(log: fd, size: Int64(logFrames.count) * 4120 + 32))
            XCTAssertEqual(read.pageSize, 4096)
            let firstDifference = zip(read.pages, logFrames).enumerated().first { $0.element.0 != $0.element.1 }
            XCTAssertEqual(read.pages.count, logFrames.count)
            XCTAssertNil(firstDifference.map { "frame \($0.offset + 1): \($0.element.0) read, \($0.element.1) in the log" })
            XCTAssertNil(CheckpointCacheRelease(storePath: path), "a log under the minimum is left alone")
            release = try XCTUnwrap(CheckpointCacheRelease(storePath: path, minimumLogBytes: 0))
            release?.start()
            return .commit
        }
        release?.stop()
        XCTAssertGreaterThan(release?.chunksReleased ?? 0, 0, "the checkpoint grew the store, so copied chunks were given back")
        try queue.read { db in
            XCTAssertEqual(try String.fetchOne(db, sql: "PRAGMA integrity_check"), "ok")
            XCTAssertEqual(try Int.fetchOne(db, sql: "SELECT count(*) FROM t WHERE length(body) = 1000"), 8000)
        }
    }

    /// SQLite's locks are POSIX record locks, which a process loses on a file when it closes any descriptor of
    /// it. Reading the log's map and watching the store must leave them all in place: another process still
    /// cannot start writing while this one holds the store.
    func testAnotherProcessStillCannotWriteMeanwhile() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3") else {
            throw XCTSkip("no /usr/bin/sqlite3 to play the other process (make deps installs it)")
        }
        let dir = TemporaryDirectory()
        let path = dir.file("locks.sqlite")
        let queue = try Self.storeInWALMode(path)
        try queue.inTransaction { db in
            for i in 0..<3000 {
                try db.execute(sql: "INSERT INTO t (id, body) VALUES (?, randomblob(1000))", arguments: [i])
            }
            let release = try XCTUnwrap(CheckpointCacheRelease(storePath: path, minimumLogBytes: 0))
            release.start()
            usleep(30_000)   // a few passes of the watching thread
            let other = try runTool(["/usr/bin/sqlite3", path, "PRAGMA busy_timeout = 0; BEGIN IMMEDIATE; INSERT INTO t (id, body) VALUES (-1, x'00'); COMMIT;"])
            XCTAssertNotEqual(other.status, 0, "the other process wrote while this one held the store")
            XCTAssertTrue(other.error.contains("locked"), other.error)
            release.stop()
            return .commit
        }
        let other = try runTool(["/usr/bin/sqlite3", path, "SELECT count(*) FROM t"])
        XCTAssertEqual(String(decoding: other.output, as: UTF8.self), "3000\n")
    }

    func testNoLogMeansNothingToDo() throws {
        let dir = TemporaryDirectory()
        XCTAssertNil(CheckpointCacheRelease(storePath: dir.file("none.sqlite"), minimumLogBytes: 0))
    }

    static func storeInWALMode(_ path: String) throws -> DatabaseQueue {
        let queue = try DatabaseQueue(path: path)
        try queue.writeWithoutTransaction { db in
            try db.execute(sql: "PRAGMA journal_mode = WAL")
            try db.execute(sql: "PRAGMA cache_size = 100")
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
        }
        return queue
    }

    /// Each frame's page number as its header gives it: a 32-byte log header, then frames of a 24-byte
    /// header (page number first, big-endian) and a page.
    static func pageNumbersInFrameHeaders(of logPath: String) throws -> [UInt32] {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: logPath)))
        let pageSize = Int(bytes[8..<12].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        var pages: [UInt32] = []
        var at = 32
        while at + 24 + pageSize <= bytes.count {
            pages.append(bytes[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            at += 24 + pageSize
        }
        return pages
    }
}
