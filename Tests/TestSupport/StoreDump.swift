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
