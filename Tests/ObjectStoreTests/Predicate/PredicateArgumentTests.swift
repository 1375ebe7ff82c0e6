import XCTest
@testable import ObjectStore

final class PredicateArgumentTests: XCTestCase {
    private let origin = PredicateSourceOrigin(name: "where")

    private func bound(_ text: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> PredicateSyntax? {
        do {
            return try PredicateSyntax(parsing: text, origin: origin).binding(arguments: arguments)
        } catch {
            XCTFail("unexpected error:\n\(error.diagnostic)", file: file, line: line)
            return nil
        }
    }

    private func bindingError(_ text: String, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line) -> PredicateSyntaxError? {
        do {
            let syntax = try PredicateSyntax(parsing: text, origin: origin)
            let result = try syntax.binding(arguments: arguments)
            XCTFail("expected an error, got \(result)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    func testValuesBecomeCommandLineValuesAndKeysBecomeKeyPaths() {
        guard let syntax = bound("%K == %@", ["customer.name", "Ann"]) else { return }
        XCTAssertEqual(PredicatePrinter.structure(of: syntax.root), "(== customer.name (arg2 \"Ann\"))")
        XCTAssertEqual(syntax.description, "customer.name == \"Ann\"")
        XCTAssertEqual(syntax.placeholderCount, 0)
    }

    func testTheBinderDecidesWhatAValueIs() {
        // A date-looking argument stays text: the binder decides by the attribute it meets.
        guard let syntax = bound("date >= %@ AND note == %@", ["2024-03-01", "2024-03-01"]) else { return }
        XCTAssertEqual(PredicatePrinter.structure(of: syntax.root),
                       "(AND (>= date (arg1 \"2024-03-01\")) (== note (arg2 \"2024-03-01\")))")
    }

    func testPlaceholdersAnywhereAreFilledInOrder() {
        guard let syntax = bound(
            "a IN {%@, %@} AND b BETWEEN {%@, %@} AND SUBQUERY(%K, $r, $r.sum == %@).@count > 0 OR c == %@",
            ["1", "2", "3", "4", "rows", "5", "6"])
        else { return }
        XCTAssertEqual(
            PredicatePrinter.structure(of: syntax.root),
            "(OR (AND (AND (IN a {(arg1 \"1\") (arg2 \"2\")}) (BETWEEN b {(arg3 \"3\") (arg4 \"4\")})) (> (SUBQUERY rows $r (== $r.sum (arg6 \"5\"))).@count 0)) (== c (arg7 \"6\")))"
        )
    }

    func testKeyPathArgumentsMayUseEverythingKeyPathsMay() {
        guard let syntax = bound("%K > 0 AND %K == 1 AND %K < 2", ["orders.rows.@sum.sum", "#order.number", "customer.in"]) else { return }
        XCTAssertEqual(PredicatePrinter.structure(of: syntax.root),
                       "(AND (AND (> orders.rows.@sum.sum 0) (== order.number 1)) (< customer.in 2))")
    }

    func testBoundNodesTakeThePlaceholdersRange() {
        guard let syntax = bound("name == 'x' AND %K == %@", ["customer.name", "Ann"]),
              case .and(_, .comparison(let comparison), _) = syntax.root,
              case .keyPath(let path) = comparison.left else { return XCTFail() }
        XCTAssertEqual(path.range.start.column, 17)
        XCTAssertEqual(path.components.map(\.range.start.column), [17, 17])
        XCTAssertEqual(comparison.right.range.start.column, 23)
    }

    func testMutatingBind() throws {
        var syntax = try PredicateSyntax(parsing: "total > %@")
        try syntax.bind(arguments: ["100.50"])
        XCTAssertEqual(syntax.description, "total > \"100.50\"")
    }

    func testNoPlaceholdersAndNoArguments() {
        XCTAssertEqual(bound("a == 1", [])?.description, "a == 1")
    }

    // MARK: - Errors

    func testTooFewArgumentsPointsAtTheFirstUnfilledPlaceholder() {
        guard let error = bindingError("a == %@ AND b == %@", ["1"]) else { return }
        XCTAssertEqual(error.diagnostic, """
            where:1:18: the predicate has 2 placeholders (%@ or %K) but 1 argument was given
              a == %@ AND b == %@
                               ^
              hint: give one argument per placeholder, in order
            """)
        guard let none = bindingError("a == %@", []) else { return }
        XCTAssertEqual(none.description,
                       "where:1:6: the predicate has 1 placeholder (%@ or %K) but no arguments were given; give one argument per placeholder, in order")
    }

    func testTooManyArguments() {
        guard let error = bindingError("a == %@", ["1", "2"]) else { return }
        XCTAssertEqual(error.diagnostic, """
            where:1:6: the predicate has 1 placeholder (%@ or %K) but 2 arguments were given
              a == %@
                   ^
              hint: give one argument per placeholder, in order
            """)
        guard let none = bindingError("a == 1", ["x"]) else { return }
        XCTAssertEqual(none.diagnostic, """
            where:1:1: the predicate has 0 placeholders (%@ or %K) but 1 argument was given
              a == 1
              ^
              hint: remove the arguments, or put %@ (a value) or %K (a key path) where they belong
            """)
    }

    func testAKeyArgumentThatIsNotAKeyPath() {
        guard let error = bindingError("%K == 1", ["total amount"]) else { return }
        XCTAssertEqual(error.diagnostic, """
            where:1:1: argument 1 for %K is not a key path: "total amount"
              %K == 1
              ^
              hint: expected end of key path after "total", found "amount"
            """)
        XCTAssertEqual(bindingError("a == %@ AND %K == 1", ["x", "1abc"])?.description,
                       #"where:1:13: argument 2 for %K is not a key path: "1abc"; malformed number "1abc""#)
        XCTAssertEqual(bindingError("%K == 1", [""])?.description,
                       #"where:1:1: argument 1 for %K is not a key path: ""; expected a key path, found end of input"#)
        XCTAssertEqual(bindingError("%K == 1", ["'name'"])?.description,
                       #"where:1:1: argument 1 for %K is not a key path: "'name'"; expected a key path, found string 'name'"#)
        XCTAssertEqual(bindingError("%K == 1", ["SUBQUERY(rows, $r, TRUEPREDICATE).@count"])?.description,
                       #"where:1:1: argument 1 for %K is not a key path: "SUBQUERY(rows, $r, TRUEPREDICATE).@count"; a %K argument is keys and collection operators joined by dots, as in customer.name"#)
    }
}
