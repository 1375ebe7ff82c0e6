// The library's public API is recorded (docs/api/ObjectStore.api, issue 29) so that every change to it is deliberate:
// scripts/api-record.py reads ObjectStore's symbol graph out of the module this build made (swift
// symbolgraph-extract, about 2 s) and these tests compare its digest with the record, keep clashing names and GRDB's
// types out of it, and check that the example package's compile test names every public type.

import Foundation
import TestSupport
import XCTest

final class PublicAPITests: XCTestCase {
    struct Digest: Decodable {
        var lines: [String]
        var types: [String]
        var undocumented: [String]
    }

    /// Names a public type must not have: they clash with Foundation, SwiftData, Core Data's Swift overlay and
    /// argument-parser, which a program using the library imports beside it.
    static let clashing: Set<String> = [
        "Model", "Schema", "Attribute", "Relationship", "FetchRequest", "Predicate", "SortDescriptor", "ModelContext",
        "ModelContainer", "Query", "PersistentIdentifier", "ValidationError",
    ]

    /// The symbol graph's digest, made once for the class.
    nonisolated(unsafe) static var cached: Digest?

    /// The build folder that holds ObjectStore's module: the test binary's own (`.build/debug` or another scratch path).
    static var buildDirectory: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            if FileManager.default.fileExists(atPath: dir.appendingPathComponent("Modules/ObjectStore.swiftmodule").path) {
                return dir
            }
            dir = dir.deletingLastPathComponent()
        }
        return packageRoot.appendingPathComponent(".build/debug")
    }

    func digest() throws -> Digest {
        if let cached = Self.cached { return cached }
        let result = try runTool(["/usr/bin/env", "python3", packageRoot.appendingPathComponent("scripts/api-record.py").path,
                                  "--json", "--build-dir", Self.buildDirectory.path])
        XCTAssertEqual(result.status, 0, result.error)
        let digest = try JSONDecoder().decode(Digest.self, from: result.output)
        Self.cached = digest
        return digest
    }

    func recorded() throws -> [String] {
        let text = try String(contentsOf: packageRoot.appendingPathComponent("docs/api/ObjectStore.api"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }

    func testThePublicAPIIsTheRecordedOne() throws {
        let lines = try digest().lines
        let record = try recorded()
        let added = Set(lines).subtracting(record).sorted()
        let removed = Set(record).subtracting(lines).sorted()
        XCTAssertTrue(added.isEmpty && removed.isEmpty, """
            ObjectStore's public API differs from docs/api/ObjectStore.api (run make api-record if the change is meant):
            \((added.map { "+ " + $0 } + removed.map { "- " + $0 }).joined(separator: "\n"))
            """)
        XCTAssertTrue(record == record.sorted(), "docs/api/ObjectStore.api is not sorted: run make api-record")
    }

    func testNoPublicTypeHasAClashingName() throws {
        let digest = try digest()
        XCTAssertFalse(digest.types.isEmpty, "no public type was found")
        let clashes = digest.types.filter(Self.clashing.contains)
        XCTAssertEqual(clashes, [], "public types named like Foundation's, SwiftData's or argument-parser's")
        // Nested types too: `ObjectStore.Store.Query` would clash as soon as it is named unqualified inside an extension.
        let nested = digest.lines.compactMap { line -> String? in
            let words = line.split(separator: " ", maxSplits: 2)
            guard words.count > 1, ["struct", "class", "enum", "protocol", "typealias", "actor"].contains(String(words[0])) else { return nil }
            let name = words[1].hasSuffix(":") ? words[1].dropLast() : words[1]
            return Self.clashing.contains(String(name.split(separator: ".").last ?? "")) ? String(name) : nil
        }
        XCTAssertEqual(nested, [], "public nested types with a clashing name")
    }

    func testNoGRDBOrSQLiteTypeIsInThePublicAPI() throws {
        let digest = try digest()
        let foreign = digest.lines.filter { line in
            line.range(of: #"\bGRDB"#, options: .regularExpression) != nil || line.hasPrefix("references C.")
                || line.range(of: #"\bsqlite3"#, options: [.regularExpression, .caseInsensitive]) != nil
        }
        XCTAssertEqual(foreign, [], "GRDB's or SQLite's types in ObjectStore's public API")
    }

    /// The compile test (Examples/Ledger/Sources/CompileTest) imports Foundation and ObjectStore and names every
    /// public type unqualified; `make test-examples` compiles it. Here: that it names each one, so that a new public
    /// type cannot go untested for a clash.
    func testTheCompileTestNamesEveryPublicType() throws {
        let folder = packageRoot.appendingPathComponent("Examples/Ledger/Sources/CompileTest")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".swift") }
        var source = ""
        for file in files.sorted() {
            source += try String(contentsOf: folder.appendingPathComponent(file), encoding: .utf8)
        }
        // Only code counts: comments removed line by line.
        let code = source.split(separator: "\n").map { line in
            line.range(of: "//").map { String(line[..<$0.lowerBound]) } ?? String(line)
        }.joined(separator: "\n")
        XCTAssertTrue(code.contains("import Foundation") && code.contains("import ObjectStore"),
                      "the compile test must import Foundation and ObjectStore")
        let missing = try digest().types.filter { type in
            code.range(of: #"(?<![\w.])"# + type + #"\b"#, options: .regularExpression) == nil
        }
        XCTAssertEqual(missing, [], "public types the compile test does not name unqualified (Examples/Ledger/Sources/CompileTest)")
        XCTAssertNil(code.range(of: #"\bObjectStore\.[A-Z]"#, options: .regularExpression),
                     "the compile test names a type qualified (ObjectStore.X): it must use every public type unqualified")
    }
}
