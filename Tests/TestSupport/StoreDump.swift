import Foundation
import GRDB

/// Every table of an SQLite file, rows in id order, as text: two dumps are equal exactly when the contents are.
public func dumpStore(_ path: String) throws -> String {
    var config = Configuration()
    config.readonly = true
    let queue = try DatabaseQueue(path: path, configuration: config)
    return try queue.read { db in
        var out = ""
        let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        for table in tables {
            out += "## \(table)\n"
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \"\(table)\" ORDER BY 1, 2") {
                out += row.description + "\n"
            }
        }
        return out
    }
}

/// Runs one query on a store file and returns its rows' first column as text (nil for NULL).
public func queryStore(_ path: String, _ sql: String) throws -> [String?] {
    var config = Configuration()
    config.readonly = true
    // A command that has just exited may still hold the lock its last close takes (the checkpoint that removes the
    // -wal): wait for it, as bookkeeper's own readers do (ConcurrentMigrationTests failed now and then with
    // "database is locked").
    config.busyMode = .timeout(30)
    let queue = try DatabaseQueue(path: path, configuration: config)
    return try queue.read { db in
        try Row.fetchAll(db, sql: sql).map { row in
            let v: DatabaseValue = row[0]
            switch v.storage {
            case .null: return nil
            case .int64(let i): return String(i)
            case .double(let d): return String(d)
            case .string(let s): return s
            case .blob(let data): return data.map { String(format: "%02x", $0) }.joined()
            }
        }
    }
}

/// Runs statements on an SQLite file (creating it if needed), outside bookkeeper: to tamper with a store in tests.
public func executeSQL(_ path: String, _ sql: String) throws {
    let queue = try DatabaseQueue(path: path)
    try queue.write { db in try db.execute(sql: sql) }
}

/// Runs one query on a store file and returns every row as text ("NULL" for NULL), for comparing with results.
public func queryRows(_ path: String, _ sql: String) throws -> [[String]] {
    var config = Configuration()
    config.readonly = true
    let queue = try DatabaseQueue(path: path, configuration: config)
    return try queue.read { db in
        try Row.fetchAll(db, sql: sql).map { row in
            (0..<row.count).map { i in
                let v: DatabaseValue = row[i]
                switch v.storage {
                case .null: return "NULL"
                case .int64(let n): return String(n)
                case .double(let d): return String(d)
                case .string(let s): return s
                case .blob(let data): return data.map { String(format: "%02x", $0) }.joined()
                }
            }
        }
    }
}

/// A fingerprint of every table's contents and the schema: equal exactly when `dumpStore` would be, but cheap
/// enough for big stores.
public func storeFingerprint(_ path: String) throws -> String {
    var config = Configuration()
    config.readonly = true
    let queue = try DatabaseQueue(path: path, configuration: config)
    return try queue.read { db in
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix<S: Sequence>(_ bytes: S) where S.Element == UInt8 {
            for b in bytes { hash = (hash ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        }
        var rows = 0
        for sql in try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name") { mix(sql.utf8) }
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") {
            mix(table.utf8)
            let cursor = try Row.fetchCursor(db, sql: "SELECT * FROM \"\(table)\" ORDER BY 1, 2")
            while let row = try cursor.next() {
                rows += 1
                for i in 0..<row.count {
                    let v: DatabaseValue = row[i]
                    switch v.storage {
                    case .null: mix([0])
                    case .int64(let n): mix([1]); withUnsafeBytes(of: n) { mix($0) }
                    case .double(let d): mix([2]); withUnsafeBytes(of: d) { mix($0) }
                    case .string(let s): mix([3]); mix(s.utf8); mix([0])
                    case .blob(let data): mix([4]); mix(data); mix([0])
                    }
                }
            }
        }
        return "\(rows) rows, \(String(hash, radix: 16))"
    }
}
