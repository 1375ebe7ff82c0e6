import XCTest
import TestSupport
@testable import ObjectStore

final class PredicatePrinterTests: XCTestCase {
    private func canonical(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> String {
        parsePredicate(text, file: file, line: line).map(PredicatePrinter.text(of:)) ?? ""
    }

    // MARK: - Canonical text

    func testOneSpellingPerConstruct() {
        XCTAssertEqual(canonical("a = 1 && b <> 2 || !c =< 3 or d => 4"),
                       "a == 1 AND b != 2 OR NOT (c <= 3) OR d >= 4")
        XCTAssertEqual(canonical("some tags.name ==[dc] 'x' and x == yes and y == nil and z == NO"),
                       "ANY tags.name ==[cd] \"x\" AND x == TRUE AND y == NULL AND z == FALSE")
        XCTAssertEqual(canonical("a beginswith 'x' AND b like[c] 'y*' AND subquery(r, $x, truepredicate).@COUNT > 0"),
                       "a BEGINSWITH \"x\" AND b LIKE[c] \"y*\" AND SUBQUERY(r, $x, TRUEPREDICATE).@count > 0")
    }

    func testParenthesesOnlyWhereTheTreeNeedsThem() {
        XCTAssertEqual(canonical("(a == 1 AND b == 2) OR c == 3"), "a == 1 AND b == 2 OR c == 3")
        XCTAssertEqual(canonical("a == 1 AND (b == 2 OR c == 3)"), "a == 1 AND (b == 2 OR c == 3)")
        XCTAssertEqual(canonical("(a == 1 OR b == 2) AND c == 3"), "(a == 1 OR b == 2) AND c == 3")
        XCTAssertEqual(canonical("(a == 1 OR b == 2) OR c == 3"), "a == 1 OR b == 2 OR c == 3")
        XCTAssertEqual(canonical("a == 1 OR (b == 2 OR c == 3)"), "a == 1 OR (b == 2 OR c == 3)")
        XCTAssertEqual(canonical("a == 1 AND (b == 2 AND c == 3)"), "a == 1 AND (b == 2 AND c == 3)")
        XCTAssertEqual(canonical("NOT (a == 1 AND b == 2)"), "NOT (a == 1 AND b == 2)")
        XCTAssertEqual(canonical("NOT NOT a == 1"), "NOT NOT (a == 1)")
        XCTAssertEqual(canonical("NOT TRUEPREDICATE"), "NOT TRUEPREDICATE")
    }

    func testKeysSpelledLikeReservedWordsAreEscapedWhereNeeded() {
        XCTAssertEqual(canonical("#in == 1 AND #Order.number == 2 AND a.in == 3 AND $in.and == 4"),
                       "#in == 1 AND Order.number == 2 AND a.in == 3 AND $in.and == 4")
        XCTAssertEqual(canonical("#SUBQUERY.x == 1"), "#SUBQUERY.x == 1")
    }

    func testStringsAreDoubleQuotedAndEscaped() {
        XCTAssertEqual(canonical(#"a == 'it\'s "so"'"#), #"a == "it's \"so\"""#)
        XCTAssertEqual(canonical("a == \"tab\\t nl\\n cr\\r nul\\0 bs\\\\ bel\\u0007 ls\\u2028\""),
                       #"a == "tab\t nl\n cr\r nul\0 bs\\ bel\u0007 ls\u2028""#)
        XCTAssertEqual(canonical("a == 'é 👩‍👩‍👧 名'"), "a == \"é 👩‍👩‍👧 名\"")
        // A combining mark at the start would sit on the quote: it is escaped.
        XCTAssertEqual(canonical("a == '\u{301}e'"), #"a == "\u0301e""#)
    }

    func testNumbersPrintAsWritten() {
        XCTAssertEqual(canonical("a IN {007, -1.250, 0}"), "a IN {007, -1.250, 0}")
    }

    func testPlaceholdersAndVariables() {
        XCTAssertEqual(canonical("%K BETWEEN {$low, %@}"), "%K BETWEEN {$low, %@}")
    }

    func testSyntaxDescriptionIsTheCanonicalText() throws {
        XCTAssertEqual(try PredicateSyntax(parsing: "x=1").description, "x == 1")
    }

    // MARK: - Round trip

    func testHandWrittenPredicatesRoundTrip() {
        let texts = [
            "ANY rows.service.name == \"Delivery\"", "ALL rows.sum > 10", "NONE tags.name == 'x'",
            "SUBQUERY(rows, $r, $r.sum > 100).@count > 0", "#order.number IN {1, 2}", "name BEGINSWITH[cd] 'm'",
            "orders.rows.@sum.sum >= -1.25", "5 < rows.@count", "$min <= total", "%K == %@",
            "NOT (a == 1 OR b == 2) AND (c == 3 OR d == 4)", "a == 1 OR (b == 2 OR c == 3)", "(a == 1)",
        ]
        for text in texts {
            guard let first = parsePredicate(text) else { continue }
            let printed = PredicatePrinter.text(of: first)
            guard let second = parsePredicate(printed) else { continue }
            XCTAssertEqual(second.erasingRanges(), first.erasingRanges(), text)
            XCTAssertEqual(PredicatePrinter.text(of: second), printed, text)
        }
    }

    /// parsePredicate(print(tree)) == tree for thousands of generated trees, with
    /// hostile strings, keys spelled like reserved words, every operator,
    /// option, quantifier, literal, placeholder and subquery.
    func testGeneratedTreesRoundTrip() {
        var generator = PredicateTreeGenerator(seed: 0x5EED_B00C)
        for index in 0..<3000 {
            let tree = generator.renumberingPlaceholders(generator.node(depth: 4))
            let text = PredicatePrinter.text(of: tree)
            let reparsed: PredicateNode
            do {
                reparsed = try PredicateSyntax(parsing: text).root
            } catch {
                XCTFail("tree \(index) printed as text that does not parse:\n\(error.diagnostic)")
                return
            }
            if reparsed.erasingRanges() != tree {
                XCTFail("tree \(index) changed in the round trip:\n\(text)\n\(PredicatePrinter.structure(of: tree))\n\(PredicatePrinter.structure(of: reparsed))")
                return
            }
            XCTAssertEqual(PredicatePrinter.text(of: reparsed), text)
        }
    }

    func testTheGeneratorIsDeterministic() {
        var a = PredicateTreeGenerator(seed: 42), b = PredicateTreeGenerator(seed: 42)
        for _ in 0..<20 {
            XCTAssertEqual(a.node(depth: 3), b.node(depth: 3))
        }
    }
}

/// Random syntax trees from a seed (SplitMix64), with synthetic ranges.
struct PredicateTreeGenerator {
    private var random: SeededGenerator

    init(seed: UInt64) { random = SeededGenerator(seed: seed) }

    /// 0..<n
    private mutating func below(_ n: Int) -> Int { random.next(upTo: n) }
    private mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    private mutating func pick<T>(_ items: [T]) -> T { random.pick(items) }

    private static let keys = [
        "name", "total", "customer", "rows", "sum", "_x1", "größe", "名前", "cafe\u{301}", "Ωmega",
        "in", "AND", "Any", "order", "null", "yes", "subquery", "truepredicate", "between", "k9",
    ]
    private static let variables = ["r", "min", "in", "x_1", "é"]
    private static let fragments = [
        "a", "Z", " ", "\"", "'", "\\", "\n", "\r\n", "\t", "\0", "\u{7}", "\u{7F}", "é", "e\u{301}", "\u{301}",
        "👩‍👩‍👧", "🇫🇷", "名", "*", "?", "%@", "$x", "#", "{", "}", "(", ")", "\u{2028}", "\u{200D}", "ß", "\\u0041",
    ]

    mutating func node(depth: Int) -> PredicateNode {
        let choice = depth == 0 ? below(2) : below(6)
        switch choice {
        case 0: return .comparison(comparison(depth: depth))
        case 1: return chance(80) ? .comparison(comparison(depth: depth)) : .constant(chance(50), .synthetic)
        case 2: return .not(node(depth: depth - 1), .synthetic)
        case 3: return .and(node(depth: depth - 1), node(depth: depth - 1), .synthetic)
        case 4: return .or(node(depth: depth - 1), node(depth: depth - 1), .synthetic)
        default: return .comparison(comparison(depth: depth))
        }
    }

    private mutating func comparison(depth: Int) -> PredicateComparison {
        let op = pick(PredicateOperator.allCases)
        var options: PredicateStringOptions = []
        // Every operator takes them, as NSPredicate's do (the ordering ones compare the folded text).
        options = pick([[], .caseInsensitive, .diacriticInsensitive, [.caseInsensitive, .diacriticInsensitive]])
        _ = op
        let quantifier: PredicateQuantifier? = chance(25) ? pick(PredicateQuantifier.allCases) : nil
        let left = chance(75) ? .keyPath(keyPath(depth: depth)) : operand(depth: depth)
        let right: PredicateOperand
        if op == .between {
            switch below(3) {
            case 0: right = .aggregate([operand(depth: 0), operand(depth: 0)], .synthetic)
            case 1: right = .keyPath(PredicateKeyPath(root: .variable(pick(Self.variables), .synthetic), components: []))
            default: right = .valuePlaceholder(ordinal: 0, .synthetic)
            }
        } else {
            right = operand(depth: depth)
        }
        return PredicateComparison(quantifier: quantifier, left: left, operator: op, options: options, right: right)
    }

    private mutating func operand(depth: Int) -> PredicateOperand {
        switch below(depth > 0 ? 9 : 8) {
        case 0: return .string(string(), .synthetic)
        case 1: return .number(PredicateNumberLiteral(number()), .synthetic)
        case 2: return .boolean(chance(50), .synthetic)
        case 3: return .null(.synthetic)
        case 4: return .valuePlaceholder(ordinal: 0, .synthetic)
        case 5: return .keyPathPlaceholder(ordinal: 0, .synthetic)
        case 6, 7: return .keyPath(keyPath(depth: depth))
        default: return .aggregate((0..<below(4)).map { _ in operand(depth: depth - 1) }, .synthetic)
        }
    }

    private mutating func keyPath(depth: Int) -> PredicateKeyPath {
        var root: PredicateKeyPath.Root = .object
        var components: [PredicateKeyPathComponent] = []
        switch below(depth > 0 ? 10 : 8) {
        case 0, 1:
            root = .variable(pick(Self.variables), .synthetic)
        case 8, 9:
            let collection: PredicateOperand = chance(80)
                ? .keyPath(keyPath(depth: 0)) : .keyPathPlaceholder(ordinal: 0, .synthetic)
            root = .subquery(PredicateSubquery(
                collection: collection, variable: pick(Self.variables), predicate: node(depth: min(depth - 1, 2))))
        default:
            components.append(.key(pick(Self.keys)))
        }
        for _ in 0..<below(3) {
            components.append(chance(25) ? .collectionOperator(pick(PredicateCollectionOperator.allCases)) : .key(pick(Self.keys)))
        }
        return PredicateKeyPath(root: root, components: components)
    }

    private mutating func string() -> String {
        (0..<below(6)).map { _ in pick(Self.fragments) }.joined()
    }

    private mutating func number() -> String {
        var text = chance(30) ? "-" : ""
        text += String(repeating: "0", count: below(3) == 0 ? 1 : 0)
        text += String(below(100_000))
        if chance(40) { text += "." + String(repeating: "0", count: below(2)) + String(below(1000)) }
        return text
    }

    /// Placeholders numbered 1, 2, … in source order, as the parser numbers them.
    func renumberingPlaceholders(_ node: PredicateNode) -> PredicateNode {
        var count = 0
        return node.rewritingOperands { (operand) -> PredicateOperand? in
            switch operand {
            case .valuePlaceholder(_, let range):
                count += 1
                return .valuePlaceholder(ordinal: count, range)
            case .keyPathPlaceholder(_, let range):
                count += 1
                return .keyPathPlaceholder(ordinal: count, range)
            default:
                return nil
            }
        }
    }
}
