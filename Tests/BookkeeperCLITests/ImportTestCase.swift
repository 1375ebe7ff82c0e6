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

    /// The store's contents without the import history (which every import adds to).
    func contents() throws -> String {
        let dump = try dumpStore(store)
        var out: [Substring] = []
        var skipping = false
        for line in dump.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { skipping = line == "## _bookkeeper_imports" }
            if !skipping { out.append(line) }
        }
        return out.joined(separator: "\n")
    }

    func query(_ sql: String) throws -> [String] {
        try queryStore(store, sql).map { $0 ?? "NULL" }
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
