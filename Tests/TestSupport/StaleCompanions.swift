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
