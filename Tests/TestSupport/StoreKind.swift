import Foundation
import XCTest

/// The kind of store an end-to-end suite runs its commands on (issue 30: one suite, both stores). A suite is written
/// once against `storeKind`; its class runs on a store file, and a subclass `…OnPostgreSQL` that overrides the kind
/// runs every inherited test on books in a fresh PostgreSQL schema (the postgresql tier lists it).
package enum StoreKind: String, Sendable, CustomStringConvertible {
    case file
    case postgresql

    package var description: String { rawValue }

    /// A place for new books (not made: `init` makes them) for `test`: a file in `directory`, or a fresh schema on
    /// the test server (dropped after the test; a skip saying how to get a server when none is configured).
    package func freshStore(for test: XCTestCase, in directory: TemporaryDirectory, name: String = "books.sqlite") throws -> FreshStore {
        switch self {
        case .file:
            let path = directory.file(name)
            return FreshStore(argument: path, displayName: path)
        case .postgresql:
            let books = try PostgreSQLTestDatabase.freshBooks(test)
            return FreshStore(argument: books.uri, displayName: books.location.displayName)
        }
    }

    /// A place for new books that outlive one test (a class's books, made once): as `freshStore`, but the caller
    /// removes them with `remove(_:)`.
    package func lastingStore(in directory: TemporaryDirectory, name: String = "books.sqlite") throws -> FreshStore {
        switch self {
        case .file:
            let path = directory.file(name)
            return FreshStore(argument: path, displayName: path)
        case .postgresql:
            let books = try PostgreSQLTestDatabase.freshBooks()
            return FreshStore(argument: books.uri, displayName: books.location.displayName, schema: books.location.schema)
        }
    }

    /// Removes books of `lastingStore` (a file goes with its folder).
    package func remove(_ store: FreshStore) {
        if let schema = store.schema { PostgreSQLTestDatabase.dropBooks(schema: schema) }
    }
}

/// A store as a test gives it to `--store`, and the name messages show it by.
package struct FreshStore: Sendable, Equatable {
    package let argument: String
    package let displayName: String
    /// The books' schema on PostgreSQL.
    package var schema: String? = nil
}

/// Everything in the books, read through the built binary (`fetch … --format json` of every entity, every attribute
/// and relationship as a column, in object-ID order), so that two states of the same books compare equal exactly
/// when what the commands show of them does — on either kind of store. `entities` maps each entity to its columns.
package func dumpThroughCommands(_ store: String, entities: [(String, [String])], in directory: String? = nil,
                                 file: StaticString = #filePath, line: UInt = #line) -> String {
    var out = ""
    for (entity, columns) in entities {
        let r = runCLI(["--store", store, "fetch", entity, "--columns", (["SELF"] + columns).joined(separator: ", "),
                        "--sort", "SELF", "--format", "json"], in: directory)
        XCTAssertEqual(r.status, 0, "dump of \(entity): \(r)", file: file, line: line)
        out += "## \(entity)\n" + r.stdout
    }
    return out
}
