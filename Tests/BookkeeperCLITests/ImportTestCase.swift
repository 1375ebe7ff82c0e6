import Foundation
import XCTest
import TestSupport

/// A temporary store and helpers for end-to-end import tests of the built binary.
class ImportTestCase: StoreCommandTestCase {
    var sampleData: URL { packageRoot.appendingPathComponent("SampleData") }

    /// Writes a CSV file into the test directory; returns its name (commands run in the directory).
    @discardableResult
    func csv(_ name: String, _ text: String) -> String {
        dir.write(name, text)
        return name
    }

    /// The store's contents without the import history (which every import adds to): every table and row (SQL), of
    /// the store file or the books' schema.
    func contents() throws -> String {
        if storeKind == .postgresql { return try PostgreSQLTestDatabase.dump(books: store, leavingOut: ["_bookkeeper_imports"]) }
        let dump = try dumpStore(store)
        var out: [Substring] = []
        var skipping = false
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { skipping = line == "## _bookkeeper_imports" }
            if !skipping { out.append(line) }
        }
        return out.joined(separator: "\n")
    }

    /// Everything in the store, the import history included: every table and row (SQL).
    func wholeStore() throws -> String {
        storeKind == .file ? try dumpStore(store) : try PostgreSQLTestDatabase.dump(books: store)
    }

    /// The first column of each row of `sql`, run on the store itself: the file, or the books' schema on PostgreSQL.
    /// The import suites look at what is stored (a decimal's units, an order's rows by ID), which the two kinds store
    /// alike by design; `sql` must mean the same on both (mixed-case table names quoted, no Boolean results).
    func query(_ sql: String) throws -> [String] {
        switch storeKind {
        case .file: try queryStore(store, sql).map { $0 ?? "NULL" }
        case .postgresql: try PostgreSQLTestDatabase.query(books: store, sql).map { $0 ?? "NULL" }
        }
    }

    /// The summary's line for one entity, e.g. `Order  0 inserted, 0 updated, 50 unchanged, 0 rejected`.
    func counts(_ stdout: String, _ entity: String) -> String? {
        for line in stdout.split(separator: "\n") {
            let t = line.trimmingCharacters(in: .whitespaces)
            if t.hasPrefix(entity + " ") {
                return t.dropFirst(entity.count).trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    /// Imports SampleData/ with the shipped profiles.
    func importSampleData() {
        ok("init")
        for (file, entity) in [("tags", "Tag"), ("services", "Service"), ("customers", "Customer"), ("orders", "Order")] {
            ok("import", entity, sampleData.appendingPathComponent("\(file).csv").path,
               "--profile", sampleData.appendingPathComponent("\(file).yaml").path, "--quiet")
        }
    }
}
