import Foundation
import ObjectStore
import Synchronization
import XCTest

/// The PostgreSQL server of the postgresql test tier (`make test-postgresql` starts it: scripts/postgresql-server.sh),
/// found through the variables that script exports: `BOOKKEEPER_TEST_POSTGRESQL` (a conninfo for the role bk_owner on
/// the database bk_test), `BOOKKEEPER_TEST_POSTGRESQL_HOST` (the socket folder) and `_PORT`. Each test works in a
/// schema of its own (`freshSchema`), dropped after it. Without the variable (a test of the tier run by hand) the
/// tests skip, saying so.
package enum PostgreSQLTestDatabase {
    /// The conninfo for bk_owner on bk_test; nil without the variable.
    package static var conninfo: String? { variable("BOOKKEEPER_TEST_POSTGRESQL") }
    /// The server's socket folder and port, for tests that build a conninfo of their own (another role, database).
    package static var host: String? { variable("BOOKKEEPER_TEST_POSTGRESQL_HOST") }
    package static var port: String? { variable("BOOKKEEPER_TEST_POSTGRESQL_PORT") }

    /// The password of the role bk_secret (the one role the server asks a password of: scripts/postgresql-server.sh).
    package static let secretPassword = "not-the-password-4f1c9e"

    private static func variable(_ name: String) -> String? {
        guard let value = ProcessInfo.processInfo.environment[name], !value.isEmpty else { return nil }
        return value
    }

    /// The conninfo, or a skip saying how to get a server.
    package static func requireConninfo() throws -> String {
        guard let conninfo else {
            throw XCTSkip("BOOKKEEPER_TEST_POSTGRESQL is not set: `make test-postgresql` starts a PostgreSQL server and runs this test")
        }
        return conninfo
    }

    /// A conninfo for `user` on `database` of the test server (socket folder and port from the variables).
    package static func conninfo(user: String, database: String = "bk_test", password: String? = nil) throws -> String {
        _ = try requireConninfo()
        guard let host, let port else { throw XCTSkip("BOOKKEEPER_TEST_POSTGRESQL_HOST and _PORT are not set") }
        return "host=\(host) port=\(port) user=\(user) dbname=\(database)" + (password.map { " password=\($0)" } ?? "")
    }

    private static let counter = Mutex(0)

    /// A new schema (a unique name, created by bk_owner) dropped with everything in it after `test`, and a connection
    /// whose search_path is that schema.
    package static func freshSchema(_ test: XCTestCase) throws -> (schema: String, connection: PostgreSQLConnection) {
        let conninfo = try requireConninfo()
        let n = counter.withLock { value in
            value += 1
            return value
        }
        let schema = "test_\(getpid())_\(n)_\(UInt32.random(in: 0...UInt32.max))"
        let connection = try PostgreSQLConnection(conninfo: conninfo)
        try connection.execute("CREATE SCHEMA \(schema)")
        try connection.execute("SET search_path TO \(schema)")
        test.addTeardownBlock {
            connection.close()
            guard let dropping = try? PostgreSQLConnection(conninfo: conninfo) else { return }
            try? dropping.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            dropping.close()
        }
        return (schema, connection)
    }

    /// Another connection to the schema of `freshSchema` (as bk_owner, or `user`), closed after `test`.
    package static func connect(_ test: XCTestCase, schema: String, user: String? = nil, writeLockKey: Int64? = nil) throws -> PostgreSQLConnection {
        let conninfo = try user.map { try self.conninfo(user: $0) } ?? requireConninfo()
        let connection = try PostgreSQLConnection(conninfo: conninfo, writeLockKey: writeLockKey)
        try connection.execute("SET search_path TO \(schema)")
        test.addTeardownBlock { connection.close() }
        return connection
    }

    /// A place for new books — a schema name no one uses, made by `Store.create(books:)` — as bk_owner (or `user`),
    /// as the URI `--store` takes; the schema is dropped after `test`.
    package static func freshBooks(_ test: XCTestCase, user: String = "bk_owner") throws -> (uri: String, location: PostgreSQLLocation) {
        let books = try freshBooks(user: user)
        test.addTeardownBlock { dropBooks(schema: books.location.schema) }
        return books
    }

    /// The first column of each row of `sql`, run as bk_owner in the schema of the books at `uri` (a `freshBooks`
    /// URI), as `queryStore` gives a store file's: text, a number's digits, nil for NULL.
    package static func query(books uri: String, _ sql: String) throws -> [String?] {
        let connection = try PostgreSQLConnection(conninfo: try requireConninfo())
        defer { connection.close() }
        try connection.execute("SET search_path TO \(try PostgreSQLLocation(uri: uri).schema)")
        return try connection.column(sql).map { value in
            switch value {
            case .null: nil
            case .integer(let i): String(i)
            case .real(let d): String(d)
            case .text(let t): t
            case .blob(let b): b.map { String(format: "%02x", $0) }.joined()
            }
        }
    }

    /// Every table of the books at `uri` but `leavingOut`, each row as PostgreSQL writes it as text, in one order
    /// (as `dumpStore` gives a store file's): two dumps are equal exactly when the tables hold the same rows.
    package static func dump(books uri: String, leavingOut: Set<String> = []) throws -> String {
        let connection = try PostgreSQLConnection(conninfo: try requireConninfo())
        defer { connection.close() }
        try connection.execute("SET search_path TO \(try PostgreSQLLocation(uri: uri).schema)")
        let tables = try connection.column("SELECT table_name::text FROM information_schema.tables WHERE table_schema = current_schema() "
                                           + "ORDER BY table_name COLLATE \"C\"").compactMap(\.string)
        var out = ""
        for table in tables where !leavingOut.contains(table) {
            out += "## \(table)\n"
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            for row in try connection.column("SELECT (r.*)::text FROM \(quoted) r ORDER BY (r.*)::text COLLATE \"C\"") { out += (row.string ?? "NULL") + "\n" }
        }
        return out
    }

    /// Drops the schema of books of `freshBooks(user:)`, with everything in it.
    package static func dropBooks(schema: String) {
        guard let conninfo, let dropping = try? PostgreSQLConnection(conninfo: conninfo) else { return }
        try? dropping.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        dropping.close()
    }

    /// A place for new books as `freshBooks(_:user:)` gives, which the caller drops (`dropBooks`): for books that
    /// outlive one test.
    package static func freshBooks(user: String = "bk_owner") throws -> (uri: String, location: PostgreSQLLocation) {
        _ = try requireConninfo()
        guard let host, let port else { throw XCTSkip("BOOKKEEPER_TEST_POSTGRESQL_HOST and _PORT are not set") }
        let n = counter.withLock { value in
            value += 1
            return value
        }
        let schema = "books_\(getpid())_\(n)_\(UInt32.random(in: 0...UInt32.max))"
        let encodedHost = host.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? host
        let uri = "postgresql://\(user)@\(encodedHost):\(port)/bk_test?schema=\(schema)"
        return (uri, try PostgreSQLLocation(uri: uri))
    }
}
