import XCTest
@testable import ObjectStore

/// One test per shape of error, comparing the whole rendered text.
final class PredicateErrorTests: XCTestCase {
    // MARK: - Rendering

    func testOneLineAndMultiLineForms() {
        guard let error = predicateSyntaxError("name ==") else { return }
        XCTAssertEqual(error.description, #"where:1:6: expected a value after "==", found end of input"#)
        XCTAssertEqual(error.diagnostic, """
            where:1:6: expected a value after "==", found end of input
              name ==
                   ^
            """)
        XCTAssertEqual(error.message, #"expected a value after "==", found end of input"#)
        XCTAssertNil(error.hint)
        XCTAssertEqual(error.sourceName, "where")
        XCTAssertEqual(error.line, 1)
        XCTAssertEqual(error.column, 6)
    }

    func testTheOneLineFormEndsWithTheHint() {
        guard let error = predicateSyntaxError("name BEGINSWTH 'A'") else { return }
        XCTAssertEqual(error.description,
                       #"where:1:6: expected a comparison operator after "name", found "BEGINSWTH"; did you mean BEGINSWITH?"#)
        XCTAssertEqual(error.hint, "did you mean BEGINSWITH?")
    }

    func testAnOriginInAFileShiftsTheFirstLineByItsColumn() {
        let origin = PredicateSourceOrigin(name: "Reports/x.yaml", line: 5, column: 8)
        guard let error = predicateSyntaxError("name ==", origin: origin) else { return }
        XCTAssertEqual(error.description, #"Reports/x.yaml:5:13: expected a value after "==", found end of input"#)
        XCTAssertEqual(error.diagnostic, """
            Reports/x.yaml:5:13: expected a value after "==", found end of input
              name ==
                   ^
            """)
        XCTAssertEqual(error.line, 5)
        XCTAssertEqual(error.column, 13)
    }

    func testLaterLinesOfAPredicateInAFileKeepTheirOwnColumn() {
        let origin = PredicateSourceOrigin(name: "Reports/x.yaml", line: 5, column: 8)
        assertPredicateDiagnostic("a == 1 AND\n  b === 2", origin: origin, """
            Reports/x.yaml:6:7: expected a value after "==", found "="
                b === 2
                    ^
            """)
    }

    func testTheCaretLinesUpAfterTabsAndCombiningMarks() {
        assertPredicateDiagnostic("\tcafe\u{301} ==", "where:1:7: expected a value after \"==\", found end of input\n  \tcafe\u{301} ==\n  \t     ^")
    }

    func testControlCharactersAreNotPrintedRaw() {
        assertPredicateDiagnostic("a == \u{7}", """
            where:1:6: unexpected character U+0007
              a == \u{FFFD}
                   ^
            """)
    }

    // MARK: - Missing or unexpected input

    func testEmptyPredicate() {
        assertPredicateDiagnostic("", """
            where:1:1: expected a predicate, found end of input
              
              ^
            """)
    }

    func testMissingValueAfterOperator() {
        assertPredicateDiagnostic("name == )", """
            where:1:9: expected a value after "==", found ")"
              name == )
                      ^
            """)
    }

    func testMissingPredicateAfterAndOrNot() {
        assertPredicateDiagnostic("a == 1 AND", """
            where:1:8: expected a predicate after "AND", found end of input
              a == 1 AND
                     ^
            """)
        assertPredicateDiagnostic("a == 1 || ", """
            where:1:8: expected a predicate after "||", found end of input
              a == 1 || 
                     ^
            """)
        assertPredicateDiagnostic("NOT", """
            where:1:1: expected a predicate after "NOT", found end of input
              NOT
              ^
            """)
    }

    func testMisspelledOperatorSuggestsTheClosest() {
        assertPredicateDiagnostic("name BEGINSWTH 'A'", """
            where:1:6: expected a comparison operator after "name", found "BEGINSWTH"
              name BEGINSWTH 'A'
                   ^
              hint: did you mean BEGINSWITH?
            """)
        assertPredicateDiagnostic("a CONTAIN 'x'", """
            where:1:3: expected a comparison operator after "a", found "CONTAIN"
              a CONTAIN 'x'
                ^
              hint: did you mean CONTAINS?
            """)
    }

    func testOperatorsFromOtherLanguagesSuggestOurs() {
        assertPredicateDiagnostic("a STARTSWITH 'x'", """
            where:1:3: expected a comparison operator after "a", found "STARTSWITH"
              a STARTSWITH 'x'
                ^
              hint: did you mean BEGINSWITH?
            """)
        assertPredicateDiagnostic("a ILIKE 'x'", """
            where:1:3: expected a comparison operator after "a", found "ILIKE"
              a ILIKE 'x'
                ^
              hint: did you mean LIKE[c]?
            """)
        assertPredicateDiagnostic("a IS NULL", """
            where:1:3: expected a comparison operator after "a", found "IS"
              a IS NULL
                ^
              hint: did you mean ==?
            """)
    }

    func testABareKeyPathSuggestsComparingWithYes() {
        assertPredicateDiagnostic("isPaid AND total > 0", """
            where:1:8: expected a comparison operator after "isPaid", found "AND"
              isPaid AND total > 0
                     ^
              hint: to test a Boolean attribute, write isPaid == YES
            """)
    }

    func testABareBooleanSuggestsTruePredicate() {
        assertPredicateDiagnostic("TRUE OR a == 1", """
            where:1:6: expected a comparison operator after "TRUE", found "OR"
              TRUE OR a == 1
                   ^
              hint: a predicate that is always true is written TRUEPREDICATE
            """)
    }

    func testNotInTheMiddleSuggestsNotInFront() {
        assertPredicateDiagnostic("status NOT IN {1}", """
            where:1:8: expected a comparison operator after "status", found "NOT"
              status NOT IN {1}
                     ^
              hint: put NOT before the whole comparison, as in NOT (status IN {…})
            """)
    }

    func testMisspelledLeadingKeywordIsSuggested() {
        assertPredicateDiagnostic("ANYY rows.sum > 1", """
            where:1:6: expected a comparison operator after "ANYY", found "rows"
              ANYY rows.sum > 1
                   ^
              hint: did you mean ANY?
            """)
    }

    func testMisspelledConjunctionIsSuggested() {
        assertPredicateDiagnostic("a == 1 ADN b == 2", """
            where:1:8: expected AND, OR or end of input, found "ADN"
              a == 1 ADN b == 2
                     ^
              hint: did you mean AND?
            """)
    }

    func testASecondOperatorInOneComparison() {
        assertPredicateDiagnostic("a == 'x' LIKE 'y'", """
            where:1:10: expected AND, OR or end of input, found "LIKE"
              a == 'x' LIKE 'y'
                       ^
              hint: a comparison has one operator; combine comparisons with AND or OR
            """)
    }

    func testUnbalancedParentheses() {
        assertPredicateDiagnostic("(a == 1 OR b == 2", """
            where:1:17: expected AND, OR or ")" to close the "(" at 1:1, found end of input
              (a == 1 OR b == 2
                              ^
            """)
        assertPredicateDiagnostic("a == 1 )", """
            where:1:8: found ")" without a matching "("
              a == 1 )
                     ^
              hint: remove it, or add the "(" it closes
            """)
        assertPredicateDiagnostic("()", """
            where:1:2: expected a predicate after "(", found ")"
              ()
               ^
            """)
    }

    func testReservedWordWhereAKeyWasMeant() {
        assertPredicateDiagnostic("in == 1", """
            where:1:1: expected a predicate, found "in"
              in == 1
              ^
              hint: in is a reserved word; write #in to use it as a key
            """)
        assertPredicateDiagnostic("a == Order.number OR b == and", """
            where:1:27: expected a value after "==", found "and"
              a == Order.number OR b == and
                                        ^
              hint: and is a reserved word; write #and to use it as a key
            """)
    }

    // MARK: - Options

    /// NSPredicate takes `[c]`, `[d]` and `[cd]` on the ordering operators and BETWEEN too; they were refused
    /// ("cannot be used with <").
    func testOptionsOnOrderingOperatorsAndBetweenAreTaken() {
        for (text, op) in [("a <[c] 'd'", PredicateOperator.lessThan), ("a <=[d] 'd'", .lessThanOrEqual), ("a >[cd] 'd'", .greaterThan),
                           ("a >=[c] 'd'", .greaterThanOrEqual), ("a BETWEEN[cd] {'b', 'd'}", .between)] {
            let c = parsedComparison(text)
            XCTAssertEqual(c?.operator, op, text)
            XCTAssertFalse(c?.options.isEmpty ?? true, text)
        }
    }

    func testUnknownRepeatedMissingAndUnclosedOptions() {
        assertPredicateDiagnostic("a ==[x] 1", """
            where:1:6: unknown comparison option "x" in "[x]"
              a ==[x] 1
                   ^
              hint: use [c] (case-insensitive), [d] (diacritic-insensitive) or [cd] (both)
            """)
        assertPredicateDiagnostic("a ==[cc] 1", """
            where:1:6: comparison option "c" repeated in "[cc]"
              a ==[cc] 1
                   ^
              hint: use [c] (case-insensitive), [d] (diacritic-insensitive) or [cd] (both)
            """)
        assertPredicateDiagnostic("a ==[] 1", """
            where:1:6: expected comparison options after "[", found "]"
              a ==[] 1
                   ^
              hint: use [c] (case-insensitive), [d] (diacritic-insensitive) or [cd] (both)
            """)
        assertPredicateDiagnostic("a ==[c 1", """
            where:1:8: expected "]" after comparison options "[c", found number 1
              a ==[c 1
                     ^
              hint: use [c] (case-insensitive), [d] (diacritic-insensitive) or [cd] (both)
            """)
    }

    // MARK: - Strings

    func testUnterminatedStringPointsAtItsOpeningQuote() {
        assertPredicateDiagnostic("a == 'abc", """
            where:1:6: unterminated string
              a == 'abc
                   ^
              hint: add a closing ' at the end of the string
            """)
        assertPredicateDiagnostic("a == \"x\\", """
            where:1:6: unterminated string
              a == "x\\
                   ^
              hint: add a closing " at the end of the string
            """)
    }

    func testUnknownEscape() {
        assertPredicateDiagnostic(#"a == 'a\q'"#, #"""
            where:1:8: unknown escape "\q" in string
              a == 'a\q'
                     ^
              hint: escapes are \", \', \\, \n, \t, \r, \0 and \uXXXX; write \\ for a backslash
            """#)
    }

    func testShortUnicodeEscape() {
        assertPredicateDiagnostic(#"a == '\u12'"#, #"""
            where:1:7: expected four hexadecimal digits after "\u"
              a == '\u12'
                    ^
              hint: write \u00E9 for é, or a surrogate pair such as \uD83D\uDE00 above U+FFFF
            """#)
    }

    func testLoneSurrogate() {
        assertPredicateDiagnostic(#"a == '\uD83D'"#, #"""
            where:1:7: lone surrogate \uD83D in string
              a == '\uD83D'
                    ^
              hint: a surrogate needs its pair, as in \uD83D\uDE00; or write the character itself
            """#)
        assertPredicateDiagnostic(#"a == '\uDE00x'"#, #"""
            where:1:7: lone surrogate \uDE00 in string
              a == '\uDE00x'
                    ^
              hint: a surrogate needs its pair, as in \uD83D\uDE00; or write the character itself
            """#)
    }

    // MARK: - Numbers

    func testMalformedNumbers() {
        assertPredicateDiagnostic("a == 1e5", """
            where:1:6: malformed number "1e5"
              a == 1e5
                   ^
              hint: numbers are written like 12, -3 or 4.25, without exponents; keys cannot start with a digit
            """)
        assertPredicateDiagnostic("a == 1.", """
            where:1:6: expected a digit after the decimal point in "1."
              a == 1.
                   ^
              hint: write decimals as 1.5 or 1.0
            """)
        assertPredicateDiagnostic("a == - 5", """
            where:1:6: expected a digit after "-"
              a == - 5
                   ^
              hint: negative numbers are written without a space, as in -5 or -1.25
            """)
    }

    // MARK: - Key paths, variables, placeholders

    func testUnknownCollectionOperator() {
        assertPredicateDiagnostic("tags.@cnt == 1", """
            where:1:6: unknown collection operator "@cnt"
              tags.@cnt == 1
                   ^
              hint: did you mean @count?
            """)
        assertPredicateDiagnostic("tags.@distinctUnionOfObjects == 1", """
            where:1:6: unknown collection operator "@distinctUnionOfObjects"
              tags.@distinctUnionOfObjects == 1
                   ^
              hint: collection operators are @count, @sum, @avg, @min and @max
            """)
        assertPredicateDiagnostic("tags.@ == 1", """
            where:1:6: expected a collection operator after "@"
              tags.@ == 1
                   ^
              hint: collection operators are @count, @sum, @avg, @min and @max
            """)
    }

    func testNothingAfterADot() {
        assertPredicateDiagnostic("customer. == 1", """
            where:1:11: expected a key or a collection operator after ".", found "=="
              customer. == 1
                        ^
              hint: a key path is keys joined by dots, as in customer.name or rows.@sum.sum
            """)
    }

    func testEmptyVariableAndEscape() {
        assertPredicateDiagnostic("a == $", """
            where:1:6: expected a variable name after "$"
              a == $
                   ^
              hint: variables are written $name
            """)
        assertPredicateDiagnostic("# == 1", """
            where:1:1: expected a key after "#"
              # == 1
              ^
              hint: "#" escapes a key spelled like a reserved word, as in #order or #IN
            """)
    }

    func testQuantifierWithoutKeyPath() {
        assertPredicateDiagnostic("ANY == 1", """
            where:1:5: expected a key path after "ANY", found "=="
              ANY == 1
                  ^
            """)
    }

    func testUnsupportedFormatSpecifiers() {
        assertPredicateDiagnostic("a == %d", """
            where:1:6: unsupported format specifier "%d"
              a == %d
                   ^
              hint: use %@ for a value or %K for a key path
            """)
        assertPredicateDiagnostic("%k == 1", """
            where:1:1: unsupported format specifier "%k"
              %k == 1
              ^
              hint: did you mean %K?
            """)
    }

    func testSingleAmpersandAndBar() {
        assertPredicateDiagnostic("a == 1 & b == 2", """
            where:1:8: "&" is not an operator
              a == 1 & b == 2
                     ^
              hint: did you mean "&&" (AND)?
            """)
        assertPredicateDiagnostic("a == 1 | b == 2", """
            where:1:8: "|" is not an operator
              a == 1 | b == 2
                     ^
              hint: did you mean "||" (OR)?
            """)
    }

    func testUnexpectedCharacters() {
        assertPredicateDiagnostic("a == ^", """
            where:1:6: unexpected character "^"
              a == ^
                   ^
            """)
        assertPredicateDiagnostic("a == “x”", """
            where:1:6: unexpected character "“"
              a == “x”
                   ^
              hint: quote strings with straight quotes " or '
            """)
        assertPredicateDiagnostic("a == 1; b == 2", """
            where:1:7: unexpected character ";"
              a == 1; b == 2
                    ^
              hint: combine conditions with AND or OR
            """)
    }

    // MARK: - Lists, BETWEEN, SUBQUERY

    func testUnclosedAndMalformedLists() {
        assertPredicateDiagnostic("a IN {1, 2", """
            where:1:10: expected "," or "}" to close the "{" at 1:6, found end of input
              a IN {1, 2
                       ^
            """)
        assertPredicateDiagnostic("a IN {1 2}", """
            where:1:9: expected "," or "}" to close the "{" at 1:6, found number 2
              a IN {1 2}
                      ^
            """)
        assertPredicateDiagnostic("a IN {1,}", """
            where:1:9: expected a value after ",", found "}"
              a IN {1,}
                      ^
            """)
    }

    func testBetweenWithoutAPair() {
        assertPredicateDiagnostic("a BETWEEN 5", """
            where:1:11: expected {low, high} after "BETWEEN", found number 5
              a BETWEEN 5
                        ^
              hint: BETWEEN takes a pair {low, high}, a $variable or %@
            """)
        assertPredicateDiagnostic("a BETWEEN {1, 2, 3}", """
            where:1:11: expected two values {low, high} after "BETWEEN", found 3 values
              a BETWEEN {1, 2, 3}
                        ^
              hint: BETWEEN takes a pair {low, high}, a $variable or %@
            """)
        assertPredicateDiagnostic("a BETWEEN {1}", """
            where:1:11: expected two values {low, high} after "BETWEEN", found 1 value
              a BETWEEN {1}
                        ^
              hint: BETWEEN takes a pair {low, high}, a $variable or %@
            """)
    }

    func testMalformedSubqueries() {
        assertPredicateDiagnostic("SUBQUERY rows", """
            where:1:10: expected "(" after "SUBQUERY", found "rows"
              SUBQUERY rows
                       ^
              hint: write SUBQUERY(collection, $x, predicate), as in SUBQUERY(rows, $r, $r.sum > 100).@count
            """)
        assertPredicateDiagnostic("SUBQUERY(rows $r)", """
            where:1:15: expected "," after the SUBQUERY collection, found "$r"
              SUBQUERY(rows $r)
                            ^
              hint: write SUBQUERY(collection, $x, predicate), as in SUBQUERY(rows, $r, $r.sum > 100).@count
            """)
        assertPredicateDiagnostic("SUBQUERY(rows, r, r.sum > 1).@count > 0", """
            where:1:16: expected a variable such as $x after ",", found "r"
              SUBQUERY(rows, r, r.sum > 1).@count > 0
                             ^
              hint: variables start with $: did you mean $r?
            """)
        assertPredicateDiagnostic("SUBQUERY(rows, $r $r.sum > 1)", """
            where:1:19: expected "," after the SUBQUERY variable, found "$r"
              SUBQUERY(rows, $r $r.sum > 1)
                                ^
              hint: write SUBQUERY(collection, $x, predicate), as in SUBQUERY(rows, $r, $r.sum > 100).@count
            """)
        assertPredicateDiagnostic("SUBQUERY(rows, $r, $r.sum > 1", """
            where:1:29: expected AND, OR or ")" to close the "SUBQUERY(" at 1:1, found end of input
              SUBQUERY(rows, $r, $r.sum > 1
                                          ^
            """)
    }

    // MARK: - Order of reports

    func testTheFirstErrorInTheTextIsReported() {
        // A syntax error at column 3 comes before the bad escape at column 14.
        assertPredicateDiagnostic(#"a b == 1 OR c == '\q'"#, #"""
            where:1:3: expected a comparison operator after "a", found "b"
              a b == 1 OR c == '\q'
                ^
            """#)
    }

    // MARK: - Suggestions

    func testEditDistance() {
        XCTAssertEqual(PredicateSuggestions.editDistance("BEGINSWTH", "BEGINSWITH"), 1)
        XCTAssertEqual(PredicateSuggestions.editDistance("ADN", "AND"), 1)
        XCTAssertEqual(PredicateSuggestions.editDistance("", "ANY"), 3)
        XCTAssertEqual(PredicateSuggestions.editDistance("LIKE", "LIKE"), 0)
        XCTAssertEqual(PredicateSuggestions.editDistance("kitten", "sitting"), 3)
        XCTAssertNil(PredicateSuggestions.closest(to: "name", among: ["NONE", "AND", "OR"]))
        XCTAssertEqual(PredicateSuggestions.closest(to: "matchs", among: ["MATCHES", "LIKE"]), "MATCHES")
    }
}
