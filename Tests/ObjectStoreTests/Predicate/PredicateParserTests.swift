import XCTest
@testable import ObjectStore

final class PredicateParserTests: XCTestCase {
    // MARK: - Operators

    func testComparisonOperatorsInEverySpelling() {
        let cases: [(String, String)] = [
            ("a = 1", "(== a 1)"), ("a == 1", "(== a 1)"),
            ("a != 1", "(!= a 1)"), ("a <> 1", "(!= a 1)"),
            ("a < 1", "(< a 1)"),
            ("a <= 1", "(<= a 1)"), ("a =< 1", "(<= a 1)"),
            ("a > 1", "(> a 1)"),
            ("a >= 1", "(>= a 1)"), ("a => 1", "(>= a 1)"),
            ("a BETWEEN {1, 2}", "(BETWEEN a {1 2})"),
            ("a IN {1, 2, 3}", "(IN a {1 2 3})"),
            ("a BEGINSWITH 'x'", "(BEGINSWITH a \"x\")"),
            ("a ENDSWITH 'x'", "(ENDSWITH a \"x\")"),
            ("a CONTAINS 'x'", "(CONTAINS a \"x\")"),
            ("a LIKE 'x*'", "(LIKE a \"x*\")"),
            ("a MATCHES '[a-z]+'", "(MATCHES a \"[a-z]+\")"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(predicateStructure(text), expected, text)
        }
    }

    func testOperatorsNeedNoSpaces() {
        XCTAssertEqual(predicateStructure("a==1&&b!=2||!c<3"), "(OR (AND (== a 1) (!= b 2)) (NOT (< c 3)))")
        XCTAssertEqual(predicateStructure("a=<1&&b=>2"), "(AND (<= a 1) (>= b 2))")
        XCTAssertEqual(predicateStructure("a<>'x'"), "(!= a \"x\")")
    }

    func testStringOptionsOnEveryOperatorThatTakesThem() {
        let operators = ["==", "!=", "IN", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES"]
        let options: [(String, PredicateStringOptions)] = [
            ("", []), ("[c]", .caseInsensitive), ("[d]", .diacriticInsensitive),
            ("[cd]", [.caseInsensitive, .diacriticInsensitive]), ("[dc]", [.caseInsensitive, .diacriticInsensitive]),
        ]
        for op in operators {
            for (written, expected) in options {
                let text = "name \(op)\(written) 'x'"
                guard let comparison = parsedComparison(text) else { continue }
                XCTAssertEqual(comparison.options, expected, text)
                XCTAssertEqual(comparison.operator.spelling, op, text)
            }
        }
    }

    func testOptionsAreRecordedPerComparison() {
        XCTAssertEqual(
            predicateStructure("a ==[c] 'x' AND b CONTAINS[cd] 'y' AND c LIKE 'z' AND d IN[d] {'p'}"),
            "(AND (AND (==[c] a \"x\") (CONTAINS[cd] b \"y\")) (AND (LIKE c \"z\") (IN[d] d {\"p\"})))")
        // Spaces around the brackets are allowed; the option letters may be capitals.
        XCTAssertEqual(predicateStructure("a BEGINSWITH [ CD ] 'x'"), "(BEGINSWITH[cd] a \"x\")")
    }

    func testOperatorRangeCoversTheOptions() {
        guard let comparison = parsedComparison("name ==[cd] 'x'") else { return }
        XCTAssertEqual(comparison.operatorRange.start.offset, 5)
        XCTAssertEqual(comparison.operatorRange.end.offset, 11)
    }

    func testKeywordsAreCaseInsensitive() {
        XCTAssertEqual(
            predicateStructure("a beginswith 'x' and not b Contains[c] 'y' or c like 'z' AnD d between {1, 2}"),
            "(OR (AND (BEGINSWITH a \"x\") (NOT (CONTAINS[c] b \"y\"))) (AND (LIKE c \"z\") (BETWEEN d {1 2})))")
        XCTAssertEqual(predicateStructure("any tags.name == 'x'"), "(ANY == tags.name \"x\")")
        XCTAssertEqual(predicateStructure("truepredicate or FalsePredicate"), "(OR TRUEPREDICATE FALSEPREDICATE)")
        XCTAssertEqual(predicateStructure("a == yes and b == nil and c == True"), "(AND (AND (== a TRUE) (== b NULL)) (== c TRUE))")
    }

    func testInTakesAListAVariableAPlaceholderOrAKeyPath() {
        XCTAssertEqual(predicateStructure("status IN {'open', 'paid'}"), "(IN status {\"open\" \"paid\"})")
        XCTAssertEqual(predicateStructure("status IN {}"), "(IN status {})")
        XCTAssertEqual(predicateStructure("status IN $statuses"), "(IN status $statuses)")
        XCTAssertEqual(predicateStructure("status IN %@"), "(IN status %@1)")
        XCTAssertEqual(predicateStructure("'vip' IN tags.name"), "(IN \"vip\" tags.name)")
    }

    func testBetweenTakesAPairAVariableOrAPlaceholder() {
        XCTAssertEqual(predicateStructure("total BETWEEN {10, 20.5}"), "(BETWEEN total {10 20.5})")
        XCTAssertEqual(predicateStructure("total BETWEEN {$low, %@}"), "(BETWEEN total {$low %@1})")
        XCTAssertEqual(predicateStructure("total BETWEEN $range"), "(BETWEEN total $range)")
        XCTAssertEqual(predicateStructure("total BETWEEN %@"), "(BETWEEN total %@1)")
    }

    // MARK: - Literals

    func testStringsInEitherQuoteWithEveryEscape() {
        guard let comparison = parsedComparison(#"a == "q\"s\'b\\n\nt\tr\r0\0u\u00e9""#) else { return }
        XCTAssertEqual(comparison.right, .string("q\"s'b\\n\nt\tr\r0\0ué", comparison.right.range))
        guard let single = parsedComparison(#"a == 'it\'s "quoted"'"#) else { return }
        XCTAssertEqual(single.right, .string("it's \"quoted\"", single.right.range))
    }

    func testUnicodeEscapesIncludingSurrogatePairs() {
        guard let comparison = parsedComparison(#"a == '\u00C5\uD83D\uDE00\u0000x'"#) else { return }
        XCTAssertEqual(comparison.right, .string("Å😀\0x", comparison.right.range))
    }

    func testStringsKeepWhatTheyContain() {
        guard let comparison = parsedComparison("a == \"line\nbreak, tab\t, emoji 👩‍👩‍👧, e\u{301}, quote ' inside\"") else { return }
        XCTAssertEqual(comparison.right, .string("line\nbreak, tab\t, emoji 👩‍👩‍👧, e\u{301}, quote ' inside", comparison.right.range))
        // A quote followed by a combining mark still opens the string.
        guard let marked = parsedComparison("a == \"\u{301}x\"") else { return }
        XCTAssertEqual(marked.right, .string("\u{301}x", marked.right.range))
        XCTAssertEqual(predicateStructure("a == ''"), "(== a \"\")")
    }

    func testNumbersKeepTheirExactText() {
        let cases = ["0", "12", "007", "-5", "-1.25", "1.250", "0.1", "123456789012345678901234567890.000000000000000000001"]
        for text in cases {
            guard let comparison = parsedComparison("a == \(text)") else { continue }
            XCTAssertEqual(comparison.right, .number(PredicateNumberLiteral(text), comparison.right.range), text)
        }
        XCTAssertTrue(PredicateNumberLiteral("-1.25").isNegative)
        XCTAssertFalse(PredicateNumberLiteral("-1.25").isInteger)
        XCTAssertTrue(PredicateNumberLiteral("12").isInteger)
        XCTAssertEqual(predicateStructure("a BETWEEN {-10, -0.5}"), "(BETWEEN a {-10 -0.5})")
    }

    func testBooleansAndNull() {
        XCTAssertEqual(predicateStructure("a == TRUE"), "(== a TRUE)")
        XCTAssertEqual(predicateStructure("a == YES"), "(== a TRUE)")
        XCTAssertEqual(predicateStructure("a == FALSE"), "(== a FALSE)")
        XCTAssertEqual(predicateStructure("a == NO"), "(== a FALSE)")
        XCTAssertEqual(predicateStructure("a == NULL"), "(== a NULL)")
        XCTAssertEqual(predicateStructure("a != NIL"), "(!= a NULL)")
    }

    func testAggregates() {
        XCTAssertEqual(predicateStructure("a IN {1, 'two', TRUE, NULL, $x, %@, {3, 4}}"), "(IN a {1 \"two\" TRUE NULL $x %@1 {3 4}})")
    }

    // MARK: - Key paths

    func testKeyPaths() {
        XCTAssertEqual(predicateStructure("name == 'x'"), "(== name \"x\")")
        XCTAssertEqual(predicateStructure("customer.name == 'x'"), "(== customer.name \"x\")")
        XCTAssertEqual(predicateStructure("order.customer.name == 'x'"), "(== order.customer.name \"x\")")
        XCTAssertEqual(predicateStructure("_private1.value_2 == 1"), "(== _private1.value_2 1)")
    }

    func testKeysInAnyScript() {
        XCTAssertEqual(predicateStructure("Straße.größe == 1 AND имя == 'x' AND 名前 == 'y'"),
                       "(AND (AND (== Straße.größe 1) (== имя \"x\")) (== 名前 \"y\"))")
        // A key with a combining mark is one key.
        XCTAssertEqual(predicateStructure("cafe\u{301} == 1"), "(== cafe\u{301} 1)")
    }

    func testCollectionOperators() {
        XCTAssertEqual(predicateStructure("rows.@sum.sum > 10"), "(> rows.@sum.sum 10)")
        XCTAssertEqual(predicateStructure("tags.@count == 0"), "(== tags.@count 0)")
        XCTAssertEqual(predicateStructure("orders.rows.@sum.sum > 10"), "(> orders.rows.@sum.sum 10)")
        XCTAssertEqual(predicateStructure("rows.@avg.sum < rows.@max.sum"), "(< rows.@avg.sum rows.@max.sum)")
        XCTAssertEqual(predicateStructure("rows.@MIN.sum > 0"), "(> rows.@min.sum 0)")
    }

    func testKeyPathComponentsAndTheirRanges() {
        guard let comparison = parsedComparison("rows.@sum.sum > 10"),
              case .keyPath(let path) = comparison.left else { return XCTFail() }
        XCTAssertEqual(path.root, .object)
        XCTAssertEqual(path.components.map(\.kind), [.key("rows"), .collectionOperator(.sum), .key("sum")])
        XCTAssertEqual(path.components.map(\.range.start.column), [1, 6, 11])
        XCTAssertEqual(path.range.start.column, 1)
        XCTAssertEqual(path.range.end.column, 14)
    }

    func testHashEscapesAKeySpelledLikeAReservedWord() {
        XCTAssertEqual(predicateStructure("#order.number == 1"), "(== order.number 1)")
        XCTAssertEqual(predicateStructure("#IN == 1"), "(== IN 1)")
        XCTAssertEqual(predicateStructure("#in.#and == 1 AND #any == 2"), "(AND (== in.and 1) (== any 2))")
        guard let comparison = parsedComparison("#Between == 1"), case .keyPath(let path) = comparison.left else { return XCTFail() }
        XCTAssertEqual(path.components, [.key("Between", range: path.components[0].range)])
    }

    func testAReservedWordAfterADotIsAKey() {
        XCTAssertEqual(predicateStructure("customer.in == 1 AND a.contains.AND == 2"), "(AND (== customer.in 1) (== a.contains.AND 2))")
    }

    // MARK: - Quantifiers, subqueries, variables, placeholders

    func testQuantifiers() {
        XCTAssertEqual(predicateStructure("ANY rows.service.name == \"Delivery\""), "(ANY == rows.service.name \"Delivery\")")
        XCTAssertEqual(predicateStructure("SOME rows.sum > 10"), "(ANY > rows.sum 10)")
        XCTAssertEqual(predicateStructure("ALL rows.sum > 10"), "(ALL > rows.sum 10)")
        XCTAssertEqual(predicateStructure("NONE tags.name == 'x'"), "(NONE == tags.name \"x\")")
        XCTAssertEqual(predicateStructure("ANY tags.name IN[c] {'a', 'b'}"), "(ANY IN[c] tags.name {\"a\" \"b\"})")
        XCTAssertEqual(predicateStructure("NOT ANY tags.name == 'x'"), "(NOT (ANY == tags.name \"x\"))")
        guard let comparison = parsedComparison("ALL rows.sum > 10") else { return }
        XCTAssertEqual(comparison.quantifier, .all)
        XCTAssertEqual(comparison.range.start.offset, 0)
    }

    func testSubqueries() {
        XCTAssertEqual(predicateStructure("SUBQUERY(rows, $r, $r.sum > 100).@count > 0"),
                       "(> (SUBQUERY rows $r (> $r.sum 100)).@count 0)")
        XCTAssertEqual(predicateStructure("subquery(rows, $r, $r.service.name == 'x' AND $r.sum > 1).@count == 2"),
                       "(== (SUBQUERY rows $r (AND (== $r.service.name \"x\") (> $r.sum 1))).@count 2)")
        XCTAssertEqual(predicateStructure("SUBQUERY(orders, $o, SUBQUERY($o.rows, $r, $r.sum > 5).@count > 0).@count >= 1"),
                       "(>= (SUBQUERY orders $o (> (SUBQUERY $o.rows $r (> $r.sum 5)).@count 0)).@count 1)")
        guard let comparison = parsedComparison("SUBQUERY(rows, $r, TRUEPREDICATE).@count > 0"),
              case .keyPath(let path) = comparison.left,
              case .subquery(let subquery) = path.root else { return XCTFail() }
        XCTAssertEqual(subquery.variable, "r")
        XCTAssertEqual(subquery.variableRange.start.column, 16)
        XCTAssertEqual(subquery.range.start.column, 1)
        XCTAssertEqual(subquery.range.end.column, 34)
        XCTAssertEqual(path.components.map(\.kind), [.collectionOperator(.count)])
    }

    func testVariables() {
        XCTAssertEqual(predicateStructure("$min <= total"), "(<= $min total)")
        guard let comparison = parsedComparison("$min <= total"), case .keyPath(let path) = comparison.left else { return XCTFail() }
        XCTAssertEqual(path.bareVariable, "min")
        XCTAssertEqual(predicateStructure("$r.sum > 1"), "(> $r.sum 1)")
    }

    func testPlaceholdersAreNumberedInSourceOrder() {
        XCTAssertEqual(predicateStructure("%K == %@"), "(== %K1 %@2)")
        XCTAssertEqual(predicateStructure("a == %@ OR SUBQUERY(%K, $x, $x.b == %@).@count > %@"),
                       "(OR (== a %@1) (> (SUBQUERY %K2 $x (== $x.b %@3)).@count %@4))")
        XCTAssertEqual(try PredicateSyntax(parsing: "a IN {%@, %@} AND %K > 1").placeholderCount, 3)
    }

    func testEitherSideMayBeAnyExpression() {
        XCTAssertEqual(predicateStructure("5 < rows.@count"), "(< 5 rows.@count)")
        XCTAssertEqual(predicateStructure("'x' == name"), "(== \"x\" name)")
        XCTAssertEqual(predicateStructure("{1, 2} == a"), "(== {1 2} a)")
        XCTAssertEqual(predicateStructure("1 == 1"), "(== 1 1)")
        XCTAssertEqual(predicateStructure("NULL != a.b"), "(!= NULL a.b)")
    }

    // MARK: - AND, OR, NOT

    func testNotBindsTighterThanAndWhichBindsTighterThanOr() {
        XCTAssertEqual(predicateStructure("a == 1 OR b == 2 AND c == 3"), "(OR (== a 1) (AND (== b 2) (== c 3)))")
        XCTAssertEqual(predicateStructure("a == 1 AND b == 2 OR c == 3"), "(OR (AND (== a 1) (== b 2)) (== c 3))")
        XCTAssertEqual(predicateStructure("NOT a == 1 AND b == 2"), "(AND (NOT (== a 1)) (== b 2))")
        XCTAssertEqual(predicateStructure("NOT a == 1 OR b == 2"), "(OR (NOT (== a 1)) (== b 2))")
        XCTAssertEqual(predicateStructure("a == 1 OR NOT b == 2 AND c == 3"), "(OR (== a 1) (AND (NOT (== b 2)) (== c 3)))")
    }

    /// A chain is a balanced tree, the first half (rounded up) on the left: three terms group as
    /// left-associative, four as two pairs; AND and OR are associative, so no result changes.
    func testAndAndOrChainsAreBalanced() {
        XCTAssertEqual(predicateStructure("a == 1 AND b == 2 AND c == 3"), "(AND (AND (== a 1) (== b 2)) (== c 3))")
        XCTAssertEqual(predicateStructure("a == 1 OR b == 2 OR c == 3"), "(OR (OR (== a 1) (== b 2)) (== c 3))")
        XCTAssertEqual(predicateStructure("a == 1 && b == 2 || c == 3 || d == 4"),
                       "(OR (OR (AND (== a 1) (== b 2)) (== c 3)) (== d 4))")
        XCTAssertEqual(predicateStructure("a == 1 AND b == 2 AND c == 3 AND d == 4 AND e == 5"),
                       "(AND (AND (AND (== a 1) (== b 2)) (== c 3)) (AND (== d 4) (== e 5)))")
    }

    func testParenthesesGroup() {
        XCTAssertEqual(predicateStructure("a == 1 AND (b == 2 OR c == 3)"), "(AND (== a 1) (OR (== b 2) (== c 3)))")
        XCTAssertEqual(predicateStructure("a == 1 AND (b == 2 AND c == 3)"), "(AND (== a 1) (AND (== b 2) (== c 3)))")
        XCTAssertEqual(predicateStructure("NOT (a == 1 OR b == 2)"), "(NOT (OR (== a 1) (== b 2)))")
        XCTAssertEqual(predicateStructure("((((a == 1))))"), "(== a 1)")
        XCTAssertEqual(predicateStructure("!(a == 1) && !!(b == 2)"), "(AND (NOT (== a 1)) (NOT (NOT (== b 2))))")
    }

    func testTrueAndFalsePredicates() {
        XCTAssertEqual(predicateStructure("TRUEPREDICATE"), "TRUEPREDICATE")
        XCTAssertEqual(predicateStructure("NOT FALSEPREDICATE AND a == 1"), "(AND (NOT FALSEPREDICATE) (== a 1))")
    }

    // MARK: - Positions

    func testEveryNodeCarriesItsRange() {
        guard let node = parsePredicate("a == 1 AND NOT b != 'x'"), case .and(let left, let right, let range) = node else { return XCTFail() }
        XCTAssertEqual(range.start.offset, 0)
        XCTAssertEqual(range.end.offset, 23)
        XCTAssertEqual(left.range.end.offset, 6)
        guard case .not(let operand, let notRange) = right, case .comparison(let comparison) = operand else { return XCTFail() }
        XCTAssertEqual(notRange.start.column, 12)
        XCTAssertEqual(comparison.range.start.column, 16)
        XCTAssertEqual(comparison.operatorRange.start.column, 18)
        XCTAssertEqual(comparison.right.range.start.column, 21)
        XCTAssertEqual(comparison.right.range.end.column, 24)
    }

    func testPositionsCountLinesAndCharactersAndOffsetsCountBytes() {
        // "é" written as e + U+0301 is one column but three bytes.
        guard let node = parsePredicate("e\u{301} == 1 AND\n\tb == 2"), case .and(_, let right, _) = node else { return XCTFail() }
        XCTAssertEqual(right.range.start, SourcePosition(offset: 14, line: 2, column: 2))
        guard let crlf = parsePredicate("a == 1\r\nAND b == 2"), case .and(_, let second, _) = crlf else { return XCTFail() }
        XCTAssertEqual(second.range.start, SourcePosition(offset: 12, line: 2, column: 5))
    }

    func testWhitespaceOfAnyKindSeparatesTokens() {
        XCTAssertEqual(predicateStructure("\n\ta\u{00A0}==\r\n1 \u{2003}AND\tb == 2\n"), "(AND (== a 1) (== b 2))")
    }

    func testParsingAKeyPathAlone() throws {
        let path = try PredicateParser.parseKeyPath(PredicateSourceText("orders.rows.@sum.sum", origin: .init(name: "sort")))
        XCTAssertEqual(path.components.map(\.kind),
                       [.key("orders"), .key("rows"), .collectionOperator(.sum), .key("sum")])
    }
}
