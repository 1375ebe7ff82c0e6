import Foundation
import TestSupport
import XCTest

/// "No SQL outside the layer", as a ratchet (issue 28): SQL text is built in `Sources/ObjectStore/SQL/` only. The
/// files elsewhere that still build it are listed here — the list only shrinks (a listed file that no longer builds
/// SQL fails the test until it is taken off) and stays true (a file not listed that builds SQL fails it). Outside
/// `Sources/ObjectStore` no file may build SQL at all. docs/design/storage-layer.md keeps the plan for the rest.
final class SQLBoundaryTests: XCTestCase {
    /// The layer: every file under it may build SQL.
    static let layer = "Sources/ObjectStore/SQL/"

    /// Files outside the layer that still build SQL text, by the tranche that moves them (storage-layer.md).
    static let stillBuildingSQL: Set<String> = []

    func testNoFileOutsideTheSQLLayerBuildsSQLButTheListedOnes() throws {
        let building = try Self.filesBuildingSQL()
        let outside = building.filter { !$0.key.hasPrefix(Self.layer) }
        for (file, example) in outside.sorted(by: { $0.key < $1.key }) where !Self.stillBuildingSQL.contains(file) {
            XCTFail("\(file) builds SQL outside \(Self.layer) (\(example)): build it in the layer, through the dialect")
        }
        for file in Self.stillBuildingSQL.sorted() where outside[file] == nil {
            XCTFail("\(file) no longer builds SQL: take it off SQLBoundaryTests.stillBuildingSQL (and storage-layer.md)")
        }
        XCTAssertTrue(building.keys.contains { $0.hasPrefix(Self.layer) }, "the scan finds the layer's own SQL")
    }

    func testOnlyTheEngineMayBuildSQL() throws {
        for file in Self.stillBuildingSQL { XCTAssertTrue(file.hasPrefix("Sources/ObjectStore/"), "\(file) is outside the engine") }
        for (file, example) in try Self.filesBuildingSQL() where !file.hasPrefix("Sources/ObjectStore/") {
            XCTFail("\(file) builds SQL (\(example)); only the engine's SQL layer may")
        }
    }

    /// The SQLite implementation of the storage protocol: where SQLite (through GRDB or its C API) may be named.
    static let sqliteImplementation = ["Sources/ObjectStore/SQL/SQLite/", "Sources/ObjectStore/Storage/SQLite/"]

    /// "One storage protocol" (issue 28): the engine talks to the database through `StorageConnection`
    /// (Storage/Connection/); only the SQLite implementation imports GRDB or calls SQLite's C API, so no engine
    /// signature can take GRDB's `Database`, `Row` or `DatabaseValue`, and a second store is a second
    /// implementation beside it.
    func testOnlyTheSQLiteImplementationTalksToSQLite() throws {
        let pattern = try NSRegularExpression(pattern: #"^\s*(@testable\s+)?import\s+(GRDB|GRDBSQLite|CSQLiteConfig)\b|\bsqlite3_[a-z0-9_]+\s*\("#,
                                              options: .anchorsMatchLines)
        let sources = packageRoot.appendingPathComponent("Sources")
        var talking: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = "Sources/" + url.path.dropFirst(sources.path.count + 1)
            let text = try String(contentsOf: url, encoding: .utf8)
            guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { continue }
            let line = text[..<Range(match.range, in: text)!.lowerBound].filter { $0 == "\n" }.count + 1
            if Self.sqliteImplementation.contains(where: relative.hasPrefix) { talking.append(relative); continue }
            XCTFail("\(relative):\(line) talks to SQLite (\(text[Range(match.range, in: text)!].trimmingCharacters(in: .whitespaces))): "
                    + "go through the storage protocol (StorageConnection), or move it into the SQLite implementation")
        }
        XCTAssertTrue(talking.contains("Sources/ObjectStore/SQL/SQLite/SQLiteConnection.swift"), "the scan finds the implementation: \(talking)")
    }

    /// The PostgreSQL implementation of the storage protocol: where libpq may be imported and called.
    static let postgresqlImplementation = ["Sources/ObjectStore/SQL/PostgreSQL/"]

    /// As for SQLite: only the PostgreSQL implementation imports CLibPQ or calls libpq (`PQ…(`, `lo_…(`), so the
    /// engine reaches PostgreSQL through `StorageConnection` too.
    func testOnlyThePostgreSQLImplementationTalksToLibpq() throws {
        let pattern = try NSRegularExpression(pattern: #"^\s*(@testable\s+)?import\s+CLibPQ\b|\b(PQ[a-zA-Z]+|lo_[a-z_]+)\s*\("#,
                                              options: .anchorsMatchLines)
        let sources = packageRoot.appendingPathComponent("Sources")
        var talking: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = "Sources/" + url.path.dropFirst(sources.path.count + 1)
            let text = try String(contentsOf: url, encoding: .utf8)
            guard let match = pattern.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) else { continue }
            let line = text[..<Range(match.range, in: text)!.lowerBound].filter { $0 == "\n" }.count + 1
            if Self.postgresqlImplementation.contains(where: relative.hasPrefix) { talking.append(relative); continue }
            XCTFail("\(relative):\(line) talks to libpq (\(text[Range(match.range, in: text)!].trimmingCharacters(in: .whitespaces))): "
                    + "go through the storage protocol (StorageConnection), or move it into the PostgreSQL implementation")
        }
        XCTAssertTrue(talking.contains("Sources/ObjectStore/SQL/PostgreSQL/PostgreSQLConnection.swift"), "the scan finds the implementation: \(talking)")
    }

    /// The scan itself: which literals it takes for SQL, and which it does not.
    func testTheScanFindsSQLInLiteralsOnly() {
        func sql(_ source: String) -> [String] { Self.sqlLiterals(in: source).map(\.text) }
        XCTAssertEqual(sql(#"let s = "SELECT * FROM t""#), ["SELECT * FROM t"])
        XCTAssertEqual(sql(#"let s = "DELETE FROM \(table) WHERE x""#), ["DELETE FROM \u{1} WHERE x"])
        XCTAssertEqual(sql(#"let s = "x\(f("UPDATE t SET a = 1"))y""#), ["UPDATE t SET a = 1"], "a literal inside an interpolation")
        XCTAssertEqual(sql("let s = \"\"\"\n    INSERT INTO t\n    VALUES (1)\n    \"\"\""), ["\n    INSERT INTO t\n    VALUES (1)\n    "])
        XCTAssertEqual(sql(##"let s = #"PRAGMA "quoted" \(x)"#"##), [#"PRAGMA "quoted" \(x)"#], "a raw string")
        XCTAssertEqual(sql("let s = \"bk_convert(x)\""), ["bk_convert(x)"], "a function of the dialect")
        XCTAssertEqual(sql("// SELECT in a comment\n/* DROP TABLE */ let s = \"select a column\""), [], "comments and English")
        XCTAssertEqual(sql(#"let s = "SELECTED, UPDATES, BEGINS""#), [], "whole words only")
    }

    // MARK: The scan

    /// Whole upper-case SQL keywords, or a call of one of the store's SQL functions.
    static let sqlPattern = try! NSRegularExpression(pattern:
        #"\b(SELECT|INSERT|UPDATE|DELETE|CREATE|DROP|ALTER|PRAGMA|BEGIN|COMMIT|ROLLBACK|SAVEPOINT|RELEASE|ANALYZE|VACUUM|REINDEX|ATTACH|DETACH|EXPLAIN|COLLATE)\b|\bbk_[a-z0-9_]+\("#)

    /// Every Swift file under Sources/ that has a string literal holding SQL, with the first such literal.
    static func filesBuildingSQL() throws -> [String: String] {
        let sources = packageRoot.appendingPathComponent("Sources")
        var result: [String: String] = [:]
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = "Sources/" + url.path.dropFirst(sources.path.count + 1)
            let found = sqlLiterals(in: try String(contentsOf: url, encoding: .utf8))
            if let first = found.first { result[relative] = "line \(first.line): \(first.text.prefix(60).debugDescription)" }
        }
        return result
    }

    static func sqlLiterals(in source: String) -> [(line: Int, text: String)] {
        var lexer = LiteralLexer(Array(source.unicodeScalars))
        lexer.code(untilParenthesis: false)
        return lexer.literals.filter { sqlPattern.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil }
    }
}

/// Swift's string literals (plain, multi-line and raw), without comments; an interpolation's code is read for
/// literals of its own and stands as U+0001 in its literal's text.
struct LiteralLexer {
    let s: [Unicode.Scalar]
    var i = 0
    var line = 1
    var literals: [(line: Int, text: String)] = []

    init(_ scalars: [Unicode.Scalar]) { s = scalars }

    func at(_ j: Int) -> Unicode.Scalar? { j < s.count ? s[j] : nil }

    mutating func code(untilParenthesis: Bool) {
        var depth = 0
        while i < s.count {
            let c = s[i]
            switch c {
            case "\n":
                line += 1
                i += 1
            case "/" where at(i + 1) == "/":
                while i < s.count && s[i] != "\n" { i += 1 }
            case "/" where at(i + 1) == "*":
                var nesting = 0
                repeat {
                    if s[i] == "/" && at(i + 1) == "*" { nesting += 1; i += 2; continue }
                    if s[i] == "*" && at(i + 1) == "/" { nesting -= 1; i += 2; continue }
                    if s[i] == "\n" { line += 1 }
                    i += 1
                } while i < s.count && nesting > 0
            case "(":
                depth += 1
                i += 1
            case ")":
                i += 1
                if depth == 0 && untilParenthesis { return }
                depth -= 1
            case "#":
                var j = i
                while at(j) == "#" { j += 1 }
                if at(j) == "\"" { string(hashes: j - i) } else { i = j }
            case "\"":
                string(hashes: 0)
            default:
                i += 1
            }
        }
    }

    /// At `hashes` #s and the opening quote(s).
    mutating func string(hashes: Int) {
        i += hashes
        let multiLine = at(i + 1) == "\"" && at(i + 2) == "\""
        i += multiLine ? 3 : 1
        let start = line
        var text = String.UnicodeScalarView()
        func hashesFollow(_ j: Int) -> Bool { (0..<hashes).allSatisfy { at(j + $0) == "#" } }
        while i < s.count {
            let c = s[i]
            if c == "\\" && hashesFollow(i + 1) {
                let j = i + 1 + hashes
                if at(j) == "(" {
                    i = j + 1
                    text.append("\u{1}")
                    code(untilParenthesis: true)
                    continue
                }
                text.append(c)
                if let next = at(j) { text.append(next) }
                if at(j) == "\n" { line += 1 }
                i = j + 1
                continue
            }
            if c == "\"" && (!multiLine || (at(i + 1) == "\"" && at(i + 2) == "\"")) && hashesFollow(i + (multiLine ? 3 : 1)) {
                i += (multiLine ? 3 : 1) + hashes
                literals.append((start, String(text)))
                return
            }
            if c == "\n" { line += 1 }
            text.append(c)
            i += 1
        }
    }
}
