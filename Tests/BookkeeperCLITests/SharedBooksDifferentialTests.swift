import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// Issue 31's proof: SampleData imported into a store file and into books on PostgreSQL gives every shipped report in
/// every format byte for byte the same (an XLSX part by part, its creation time aside, and cell by cell as openpyxl
/// reads it), `export` of every entity and `model` the same — and the read-only role gets the same reports and exports.
final class SharedBooksDifferentialTests: XCTestCase {
    static let entities = ["Tag", "Service", "Customer", "Order"]
    static let formats = ["text", "csv", "json", "xlsx"]
    let today = ["BOOKKEEPER_TODAY": "2026-11-21"]

    /// `make run`'s imports, in its order.
    func importSampleData(_ store: String) {
        let sample = packageRoot.appendingPathComponent("SampleData")
        for (entity, file) in [("Tag", "tags"), ("Service", "services"), ("Customer", "customers"), ("Order", "orders")] {
            let r = runCLI(["--store", store, "import", entity, sample.appendingPathComponent("\(file).csv").path,
                            "--profile", sample.appendingPathComponent("\(file).yaml").path], environment: today)
            XCTAssertEqual(r.status, 0, "import \(entity) into \(store): \(r)")
        }
    }

    /// Every output of `store` this test compares, written under `directory`: `export-ENTITY.csv`, `model.txt` and
    /// `reports-FORMAT/NAME.EXT`.
    func outputs(of store: String, into directory: String, model: Bool = true) {
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        for entity in Self.entities {
            let r = runCLI(["--store", store, "export", entity, "\(directory)/export-\(entity).csv"])
            XCTAssertEqual(r.status, 0, "export \(entity) of \(store): \(r)")
        }
        if model {
            let m = runCLI(["--store", store, "model"])
            XCTAssertEqual(m.status, 0, "\(m)")
            XCTAssertTrue(FileManager.default.createFile(atPath: "\(directory)/model.txt", contents: Data(m.stdout.utf8)))
        }
        let reports = packageRoot.appendingPathComponent("Reports").path
        for format in Self.formats {
            let r = runCLI(["--store", store, "report", "--all", "--reports", reports, "--format", format,
                            "--output-dir", "\(directory)/reports-\(format)"], environment: today)
            XCTAssertEqual(r.status, 0, "report --all --format \(format) of \(store): \(r)")
        }
    }

    /// The files under `a` and `b` are the same, name for name; XLSX workbooks part for part but for their creation
    /// time (docProps/core.xml), and cell by cell as openpyxl reads them.
    func assertSameFiles(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let fm = FileManager.default
        let namesA = try fm.subpathsOfDirectory(atPath: a).sorted(), namesB = try fm.subpathsOfDirectory(atPath: b).sorted()
        XCTAssertEqual(namesA, namesB, file: file, line: line)
        var compared = 0
        for name in namesA {
            var isDirectory: ObjCBool = false
            guard fm.fileExists(atPath: "\(a)/\(name)", isDirectory: &isDirectory), !isDirectory.boolValue else { continue }
            if name.hasSuffix(".xlsx") {
                XCTAssertEqual(try xlsxParts("\(a)/\(name)"), try xlsxParts("\(b)/\(name)"), name, file: file, line: line)
                var one = try OpenpyxlWorkbook(path: "\(a)/\(name)").json, other = try OpenpyxlWorkbook(path: "\(b)/\(name)").json
                one["properties"] = nil
                other["properties"] = nil
                XCTAssertEqual(NSDictionary(dictionary: one), NSDictionary(dictionary: other), "\(name), cell by cell", file: file, line: line)
            } else {
                XCTAssertEqual(fm.contents(atPath: "\(a)/\(name)"), fm.contents(atPath: "\(b)/\(name)"), name, file: file, line: line)
            }
            compared += 1
        }
        XCTAssertEqual(compared, Self.entities.count + 1 + 6 * Self.formats.count, "every export, the model and 6 reports × 4 formats",
                       file: file, line: line)
    }

    /// Every part of an XLSX workbook but docProps/core.xml (which holds its creation time), by name.
    func xlsxParts(_ path: String) throws -> [String: Data] {
        let script = """
            import sys, zipfile, json, base64
            z = zipfile.ZipFile(sys.argv[1])
            print(json.dumps({n: base64.b64encode(z.read(n)).decode() for n in z.namelist() if n != "docProps/core.xml"}))
            """
        let r = try runTool([OpenpyxlWorkbook.python, "-c", script, path])
        XCTAssertEqual(r.status, 0, r.error)
        let parts = try JSONSerialization.jsonObject(with: r.output) as? [String: String] ?? [:]
        XCTAssertGreaterThan(parts.count, 3, path)
        return parts.mapValues { Data(base64Encoded: $0) ?? Data() }
    }

    func testSampleDataGivesTheSameReportsExportsAndModelOnBothKindsOfStore() throws {
        let dir = TemporaryDirectory("shared-books-differential")
        let books = try PostgreSQLTestDatabase.freshBooks(self)
        let file = dir.file("books.sqlite")
        for store in [file, books.uri] {
            XCTAssertEqual(runCLI(["--store", store, "init"]).status, 0)
            importSampleData(store)
        }
        outputs(of: file, into: dir.file("file"))
        outputs(of: books.uri, into: dir.file("postgresql"))
        try assertSameFiles(dir.file("file"), dir.file("postgresql"))

        // The read-only role reads the same (it may use the schema, read its tables and run its functions).
        let owner = try PostgreSQLConnection(conninfo: try PostgreSQLTestDatabase.requireConninfo())
        defer { owner.close() }
        let schema = "\"\(books.location.schema)\""
        for grant in ["GRANT USAGE ON SCHEMA \(schema) TO bk_reader", "GRANT SELECT ON ALL TABLES IN SCHEMA \(schema) TO bk_reader",
                      "GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA \(schema) TO bk_reader"] {
            try owner.execute(grant)
        }
        let reader = books.uri.replacingOccurrences(of: "bk_owner@", with: "bk_reader@")
        outputs(of: reader, into: dir.file("reader"))
        try assertSameFiles(dir.file("file"), dir.file("reader"))
    }
}
