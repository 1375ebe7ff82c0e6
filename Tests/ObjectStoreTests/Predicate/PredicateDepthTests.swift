import XCTest
@testable import ObjectStore

/// Deep and long predicates: a nesting limit reported with its place, and long flat chains that parse, print and
/// rewrite without deep recursion (issue 15: SIGSEGV from the parser and from `rewritingOperands`).
final class PredicateDepthTests: XCTestCase {
    /// The depth of a tree: what every recursive pass descends.
    private func depth(_ node: PredicateNode) -> Int {
        switch node {
        case .constant, .comparison: 1
        case .not(let operand, _): 1 + depth(operand)
        case .and(let l, let r, _), .or(let l, let r, _): 1 + max(depth(l), depth(r))
        }
    }

    private func chain(_ count: Int, _ word: String) -> String {
        (0..<count).map { "a\($0) == \($0)" }.joined(separator: " \(word) ")
    }

    func testFiveThousandAndsParseAsAShallowTree() throws {
        let syntax = try PredicateSyntax(parsing: chain(5_000, "AND"))
        XCTAssertLessThanOrEqual(depth(syntax.root), 14)
        var count = 0
        syntax.root.forEachOperand { if case .number = $0 { count += 1 } }
        XCTAssertEqual(count, 5_000)
    }

    func testLongChainsPrintWithoutParenthesesAndParseBackToTheSameTree() throws {
        for word in ["AND", "OR"] {
            let text = chain(5_000, word)
            let syntax = try PredicateSyntax(parsing: text)
            XCTAssertEqual(syntax.description, text)
            XCTAssertEqual(try PredicateSyntax(parsing: syntax.description).root.erasingRanges(), syntax.root.erasingRanges())
        }
    }

    func testRewritingOperandsOfALongChainWithPlaceholders() throws {
        let text = (0..<5_000).map { "a\($0) == %@" }.joined(separator: " AND ")
        let bound = try PredicateSyntax(parsing: text).binding(arguments: (0..<5_000).map(String.init))
        XCTAssertEqual(bound.placeholderCount, 0)
        XCTAssertTrue(bound.description.hasSuffix(#"a4999 == "4999""#))
    }

    func testAGroupedChainKeepsItsParenthesesInPrint() throws {
        for text in ["a == 1 AND (b == 2 AND c == 3)", "(a == 1 AND b == 2 AND c == 3) AND d == 4",
                     "a == 1 OR (b == 2 OR c == 3 OR d == 4) OR e == 5"] {
            let syntax = try PredicateSyntax(parsing: text)
            XCTAssertEqual(try PredicateSyntax(parsing: syntax.description).root.erasingRanges(), syntax.root.erasingRanges(), text)
        }
    }

    func testNestingUpToTheLimitParses() throws {
        let limit = PredicateParser.maximumDepth
        _ = try PredicateSyntax(parsing: String(repeating: "(", count: limit) + "a == 1" + String(repeating: ")", count: limit))
        _ = try PredicateSyntax(parsing: String(repeating: "NOT ", count: limit) + "a == 1")
        _ = try PredicateSyntax(parsing: String(repeating: "NOT (", count: limit / 2) + "a == 1" + String(repeating: ")", count: limit / 2))
    }

    /// The fuzzer's first finding: 24 NOTs printed as `NOT … NOT (paid == FALSE)`, one level more than parsed.
    /// A "(" right after NOT shares its level, so the printed text parses back.
    func testPrintedTextOfTheDeepestPredicateParsesBack() throws {
        let limit = PredicateParser.maximumDepth
        for text in [String(repeating: "NOT ", count: limit) + "paid == NO",
                     String(repeating: "NOT (", count: limit) + "paid == NO" + String(repeating: ")", count: limit)] {
            let syntax = try PredicateSyntax(parsing: text)
            XCTAssertEqual(try PredicateSyntax(parsing: syntax.description).root.erasingRanges(), syntax.root.erasingRanges())
        }
    }

    func testTwentyThousandParenthesesAreALocatedError() {
        let text = String(repeating: "(", count: 20_000) + "a == 1" + String(repeating: ")", count: 20_000)
        guard let error = predicateSyntaxError(text) else { return }
        XCTAssertEqual(error.description, #"where:1:25: nested more than 24 levels deep at "("; parentheses, NOT, SUBQUERY and {…} nest at most 24 levels; a chain such as a AND b AND c needs none"#)
    }

    func testThirtyThousandNotsAreALocatedError() {
        guard let error = predicateSyntaxError(String(repeating: "NOT ", count: 30_000) + "a == 1") else { return }
        XCTAssertEqual(error.line, 1)
        XCTAssertEqual(error.column, 97)
        XCTAssertTrue(error.message.hasPrefix(#"nested more than 24 levels deep at "NOT""#), error.message)
        guard let bang = predicateSyntaxError(String(repeating: "!", count: 30_000) + "a == 1") else { return }
        XCTAssertEqual(bang.column, 25)
    }

    func testDeeplyNestedBracesAreALocatedError() {
        guard let error = predicateSyntaxError("a IN " + String(repeating: "{", count: 20_000)) else { return }
        XCTAssertEqual(error.column, 30)
    }

    func testAMegabytePredicateParses() throws {
        let text = (0..<40_000).map { "name != \"value number \($0)\"" }.joined(separator: " AND ")
        XCTAssertGreaterThan(text.utf8.count, 1_000_000)
        let syntax = try PredicateSyntax(parsing: text)
        XCTAssertLessThanOrEqual(depth(syntax.root), 17)
    }
}
