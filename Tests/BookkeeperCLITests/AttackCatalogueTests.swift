// docs/attacks.md lists the attack classes with the tests that cover them; a listed test that does not exist
// (renamed, removed, misspelt) fails here, so the catalogue cannot promise coverage that is gone.

import Foundation
import TestSupport
import XCTest

final class AttackCatalogueTests: XCTestCase {
    func testEveryTestTheCatalogueNamesExists() throws {
        let catalogue = try String(contentsOf: packageRoot.appendingPathComponent("docs/attacks.md"), encoding: .utf8)
        let named = try NSRegularExpression(pattern: "`([A-Z][A-Za-z0-9]*Tests)\\.(test[A-Za-z0-9_]+)`")
        let matches = named.matches(in: catalogue, range: NSRange(catalogue.startIndex..., in: catalogue))
        XCTAssertGreaterThan(matches.count, 40, "the catalogue names its tests")
        // Every test function in Tests/, by class.
        var defined: [String: Set<String>] = [:]
        let tests = packageRoot.appendingPathComponent("Tests")
        let files = FileManager.default.enumerator(at: tests, includingPropertiesForKeys: nil)!
        let classPattern = try NSRegularExpression(pattern: "(?:class|extension) ([A-Z][A-Za-z0-9]*Tests)\\b")
        let funcPattern = try NSRegularExpression(pattern: "func (test[A-Za-z0-9_]+)\\(")
        for case let url as URL in files where url.pathExtension == "swift" {
            let text = try String(contentsOf: url, encoding: .utf8)
            var current: String?
            for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                let range = NSRange(line.startIndex..., in: line)
                if let m = classPattern.firstMatch(in: line, range: range) { current = String(line[Range(m.range(at: 1), in: line)!]) }
                if let m = funcPattern.firstMatch(in: line, range: range), let current {
                    defined[current, default: []].insert(String(line[Range(m.range(at: 1), in: line)!]))
                }
            }
        }
        for m in matches {
            let type = String(catalogue[Range(m.range(at: 1), in: catalogue)!])
            let test = String(catalogue[Range(m.range(at: 2), in: catalogue)!])
            XCTAssertTrue(defined[type]?.contains(test) ?? false, "docs/attacks.md names \(type).\(test), which does not exist")
        }
    }
}
