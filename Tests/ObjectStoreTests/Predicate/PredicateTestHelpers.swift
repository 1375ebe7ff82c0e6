import XCTest
@testable import ObjectStore

/// The tree of `text` as a structure dump, `(OR (== a 1) (== b 2))`; a parse error fails the test.
func predicateStructure(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
    do {
        return PredicatePrinter.structure(of: try PredicateSyntax(parsing: text).root)
    } catch {
        XCTFail("unexpected error:\n\(error.diagnostic)", file: file, line: line)
        return ""
    }
}

/// The tree of `text`; a parse error fails the test.
func parsePredicate(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> PredicateNode? {
    do {
        return try PredicateSyntax(parsing: text).root
    } catch {
        XCTFail("unexpected error:\n\(error.diagnostic)", file: file, line: line)
        return nil
    }
}

/// The comparison `text` parses to; anything else fails the test.
func parsedComparison(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> PredicateComparison? {
    guard let node = parsePredicate(text, file: file, line: line) else { return nil }
    guard case .comparison(let comparison) = node else {
        XCTFail("not a comparison: \(node)", file: file, line: line)
        return nil
    }
    return comparison
}

/// The error `text` fails with; success fails the test.
func predicateSyntaxError(
    _ text: String, origin: PredicateSourceOrigin = PredicateSourceOrigin(name: "where"),
    file: StaticString = #filePath, line: UInt = #line
) -> PredicateSyntaxError? {
    do {
        let syntax = try PredicateSyntax(parsing: text, origin: origin)
        XCTFail("expected an error, parsed \(syntax)", file: file, line: line)
        return nil
    } catch {
        return error
    }
}

/// Asserts the whole multi-line rendering of the error `text` fails with.
func assertPredicateDiagnostic(
    _ text: String, origin: PredicateSourceOrigin = PredicateSourceOrigin(name: "where"), _ expected: String,
    file: StaticString = #filePath, line: UInt = #line
) {
    guard let error = predicateSyntaxError(text, origin: origin, file: file, line: line) else { return }
    XCTAssertEqual(error.diagnostic, expected, file: file, line: line)
}
