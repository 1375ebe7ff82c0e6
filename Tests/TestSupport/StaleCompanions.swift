import Foundation
import GRDB

/// Writes at `path` the write-ahead log a killed job would leave: valid frames of another database (a table of
/// 200 rows), which SQLite replays onto whatever database file it finds of that name but for the `-wal`.
public func writeStaleWriteAheadLog(to path: String) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("stale-wal-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let other = folder.appendingPathComponent("other.sqlite").path
    var configuration = Configuration()
    configuration.journalMode = .wal
    let queue = try DatabaseQueue(path: other, configuration: configuration)
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql: "CREATE TABLE t(x)")
        for _ in 0..<200 { try db.execute(sql: "INSERT INTO t VALUES (?)", arguments: [String(repeating: "x", count: 500)]) }
    }
    // Copied while the connection is open: closing it would checkpoint the log and empty it.
    try FileManager.default.copyItem(atPath: other + "-wal", toPath: path)
    try queue.close()
}

/// Puts beside the store at `path` what a writer killed after its commit leaves (or a tool that does not checkpoint):
/// a -wal holding the committed change `sql` makes, which is not in the store file yet, and its -shm. Made on a copy
/// whose connection is still open (closing it would checkpoint the log into the file), then copied into place.
public func leaveCommittedFramesInTheLog(of path: String, _ sql: String) throws {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("committed-wal-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    let copy = folder.appendingPathComponent("copy.sqlite").path
    try FileManager.default.copyItem(atPath: path, toPath: copy)
    var configuration = Configuration()
    configuration.journalMode = .wal
    let queue = try DatabaseQueue(path: copy, configuration: configuration)
    try queue.writeWithoutTransaction { db in
        try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
        try db.execute(sql: sql)
    }
    for suffix in ["", "-wal", "-shm"] {
        try? FileManager.default.removeItem(atPath: path + suffix)
        try FileManager.default.copyItem(atPath: copy + suffix, toPath: path + suffix)
    }
    try queue.close()
}
