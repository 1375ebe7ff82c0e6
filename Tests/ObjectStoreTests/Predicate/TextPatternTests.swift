import Foundation
import XCTest
@testable import ObjectStore

final class TextLikePatternTests: XCTestCase {
    /// A needle of combining marks only folds to nothing under [d]: it begins, ends and is contained in every
    /// text (CONTAINS read the first byte of the empty needle, and the process trapped).
    func testANeedleThatFoldsToNothingIsInEveryText() throws {
        for op in [PredicateOperator.beginsWith, .endsWith, .contains] {
            for text in ["", "abc", "e\u{301}"] {
                XCTAssertTrue(try StringOperators.apply(op, text, "\u{301}", [.diacriticInsensitive]), "\(op) \(text.debugDescription)")
            }
            XCTAssertFalse(try StringOperators.apply(op, "abc", "\u{301}", []), "\(op)")
        }
    }

    /// The compiled-pattern cache tells apart patterns that are canonically equivalent but not the same scalars:
    /// ICU matches scalars, so the Kelvin sign's pattern does not match "K" and "K"'s does.
    func testCanonicallyEquivalentPatternsAreDifferentPatterns() throws {
        for (first, second) in [("\u{212A}", "K"), ("e\u{301}", "é"), ("\u{212B}", "Å")] {
            XCTAssertTrue(try TextRegex.matches(first, pattern: first))
            XCTAssertFalse(try TextRegex.matches(second, pattern: first))
            XCTAssertTrue(try TextRegex.matches(second, pattern: second), "\(second.debugDescription) after \(first.debugDescription)")
            XCTAssertFalse(try TextRegex.matches(first, pattern: second))
        }
    }

    func testLikeCases() {
        let cases: [(text: String, pattern: String, matches: Bool)] = [
            ("", "", true), ("", "*", true), ("", "**", true), ("", "?", false), ("a", "", false),
            ("abc", "abc", true), ("abc", "ab", false), ("ab", "abc", false), ("abc", "b", false),
            ("abc", "*b*", true), ("abc", "a*", true), ("abc", "*c", true), ("abc", "*", true),
            ("abc", "a?c", true), ("ac", "a?c", false), ("abc", "???", true), ("abc", "????", false),
            ("abbbc", "a*c", true), ("abcbc", "a*bc", true), ("abcbd", "a*bc", false),
            ("mississippi", "m*iss*ppi", true), ("mississippi", "m*issip*i", true), ("mississippi", "m*x*i", false),
            ("aaa", "a*a*a*a", false), ("aaaa", "a*a*a*a", true),
            ("x*y", "x*y", true), ("x?y", "x?y", true), ("xzy", "x*y", true),   // no escapes: * and ? are wildcards
            ("Abc", "abc", false),                                             // case matters without [c]
            ("é", "e\u{301}", true), ("e\u{301}", "é", true),                 // canonical equivalence
            ("é", "?", true), ("e\u{301}", "?", true),                         // ? is one character
            ("👩‍👩‍👧", "?", true), ("🇫🇷🇩🇪", "??", true), ("🇫🇷🇩🇪", "?", false),
            ("a\r\nb", "a?b", true), ("a\nb", "a?b", true), ("a\0b", "a?b", true), ("a\0b", "a*", true),
            ("café", "caf?", true), ("cafe", "café", false), ("café", "cafe", false),
        ]
        for (text, pattern, expected) in cases {
            XCTAssertEqual(TextLikePattern.likeMatch(text, pattern: pattern), expected,
                           "\(text.debugDescription) LIKE \(pattern.debugDescription)")
        }
    }

    func testLikeWithOptionsFoldsBothSides() {
        XCTAssertTrue(TextLikePattern.likeMatch("Müller", pattern: "m*LLER", caseInsensitive: true, diacriticInsensitive: true))
        XCTAssertFalse(TextLikePattern.likeMatch("Müller", pattern: "mu*", caseInsensitive: true, diacriticInsensitive: false))
        XCTAssertTrue(TextLikePattern.likeMatch("Müller", pattern: "Mu*", caseInsensitive: false, diacriticInsensitive: true))
        XCTAssertTrue(TextLikePattern.likeMatch("STRASSE", pattern: "straße", caseInsensitive: true, diacriticInsensitive: false))
        // ß folds to two characters, and ? counts folded characters.
        XCTAssertFalse(TextLikePattern.likeMatch("Straße", pattern: "stra?e", caseInsensitive: true, diacriticInsensitive: false))
        XCTAssertTrue(TextLikePattern.likeMatch("Straße", pattern: "stra??e", caseInsensitive: true, diacriticInsensitive: false))
    }

    /// A pattern of many stars against a long text that almost matches: backtracking to every star would take
    /// exponential time; the matcher backtracks to the last star only, so it reads each (text, pattern) position at
    /// most a few times. Counted in reads of the characters, not in seconds, so no machine is too slow for it.
    func testPathologicalPatternsStayFast() {
        let text = String(repeating: "a", count: 5_000)
        let pattern = String(repeating: "*a", count: 50) + "b"
        XCTAssertFalse(TextLikePattern.likeMatch(text, pattern: pattern))
        XCTAssertFalse(TextLikePattern.likeMatch(text + "é", pattern: pattern + "é"))
        for (t, p) in [(text, pattern), (text + "é", pattern + "é")] {
            let reads = ReadCounter()
            XCTAssertFalse(TextLikePattern.match(CountedCharacters(Array(t), reads), CountedCharacters(Array(p), reads),
                                                 star: "*", one: "?"))
            print("LIKE matcher: \(reads.count) reads for \(t.count) × \(p.count) characters")
            XCTAssertLessThanOrEqual(reads.count, 3 * (t.count + 1) * (p.count + 1), "\(t.count) × \(p.count)")
            XCTAssertGreaterThan(reads.count, t.count, "every character was read")
        }
        // Doubling the text doubles the reads (at most 2.2 ×): linear in the text for a fixed pattern.
        func reads(_ n: Int) -> Int {
            let counter = ReadCounter()
            _ = TextLikePattern.match(CountedCharacters(Array(String(repeating: "a", count: n)), counter),
                                      CountedCharacters(Array(pattern), counter), star: "*", one: "?")
            return counter.count
        }
        let (small, large) = (reads(2_000), reads(4_000))
        print("LIKE matcher: \(small) reads for 2,000 characters, \(large) for 4,000")
        XCTAssertLessThanOrEqual(Double(large) / Double(small), 2.2, "\(small) reads, then \(large) for twice the text")
    }
}

/// Counts every read of the characters it wraps (shared by the text and the pattern of one match).
final class ReadCounter { var count = 0 }

struct CountedCharacters: RandomAccessCollection {
    let base: [Character]
    let counter: ReadCounter
    init(_ base: [Character], _ counter: ReadCounter) { (self.base, self.counter) = (base, counter) }
    var startIndex: Int { 0 }
    var endIndex: Int { base.count }
    subscript(position: Int) -> Character {
        counter.count += 1
        return base[position]
    }
}

final class TextRegexTests: XCTestCase {
    private func matches(_ text: String, _ pattern: String, c: Bool = false, d: Bool = false,
                         file: StaticString = #filePath, line: UInt = #line) -> Bool {
        do {
            return try TextRegex.matches(text, pattern: pattern, caseInsensitive: c, diacriticInsensitive: d)
        } catch {
            XCTFail("\(error)", file: file, line: line)
            return false
        }
    }

    func testTheWholeTextMustMatch() {
        XCTAssertTrue(matches("abc", ".*b.*"))
        XCTAssertFalse(matches("abc", "b"))
        XCTAssertFalse(matches("abc", "ab"))
        XCTAssertTrue(matches("ab", "a|ab"))          // not just the leftmost alternative
        XCTAssertFalse(matches("x\n", "x"))            // no trailing line break allowed
        XCTAssertFalse(matches("a\nb", "a$"))
        XCTAssertTrue(matches("", ""))
        XCTAssertTrue(matches("", "a*"))
        XCTAssertFalse(matches("x", ""))
        XCTAssertTrue(matches("INV-2024-001", "INV-\\d{4}-\\d{3}"))
    }

    func testOptions() {
        XCTAssertTrue(matches("ABC", "abc", c: true))
        XCTAssertFalse(matches("ABC", "abc"))
        XCTAssertTrue(matches("Müller", "Muller", d: true))
        XCTAssertTrue(matches("Müller", "m[u]ller", c: true, d: true))
        XCTAssertFalse(matches("Müller", "Muller"))
    }

    func testUnusualText() {
        XCTAssertTrue(matches("a\0b", "a.b"))
        XCTAssertTrue(matches("👍", "."))               // . is one scalar
        XCTAssertFalse(matches("👩‍👩‍👧", "."))
        XCTAssertTrue(matches("👩‍👩‍👧", ".+"))
        XCTAssertTrue(matches("\u{301}", "\\p{Mn}"))
    }

    func testPatternsThatEndInsideAQuoteOrAComment() {
        XCTAssertTrue(matches("a.b", "\\Qa.b"))
        XCTAssertFalse(matches("axb", "\\Qa.b"))
        XCTAssertTrue(matches("ab", "(?x) a b # two letters"))
        XCTAssertFalse(matches("abc", "(?x) a b # two letters"))
    }

    func testInvalidPatternsAreErrorsNotCrashes() {
        let cases: [(String, String)] = [
            ("(", #"invalid regular expression "(": expected ')'"#),
            ("a)(b", #"invalid regular expression "a)(b": closing ')' does not balance any groups openings"#),
            ("*", #"invalid regular expression "*": quantifier '*' must appear after expression"#),
            ("[z-a]", #"invalid regular expression "[z-a]": character 'z' must compare less than or equal to 'a'"#),
        ]
        for (pattern, message) in cases {
            for _ in 0..<2 {   // the second time comes from the cache
                do {
                    _ = try TextRegex.matches("x", pattern: pattern)
                    XCTFail("\(pattern) matched")
                } catch {
                    XCTAssertEqual(error.description, message)
                    XCTAssertEqual(error.pattern, pattern)
                }
            }
        }
        XCTAssertThrowsError(try TextRegex.validate("(?<n>a)\\k<m>"))
        XCTAssertNoThrow(try TextRegex.validate("[a-z]+"))
    }

    func testManyPatternsAndManyThreads() {
        for index in 0..<200 {
            XCTAssertTrue(matches("item\(index)", "item\(index)"))
        }
        DispatchQueue.concurrentPerform(iterations: 64) { index in
            let pattern = "row-\(index % 8)-\\d+"
            let result = try? TextRegex.matches("row-\(index % 8)-\(index)", pattern: pattern)
            XCTAssertEqual(result, true)
        }
    }

    /// Issue 15: `(a|b)*` over a long value ran out of ICU's backtracking stack, and firstMatch's nil read as
    /// "no match". It is an error naming the limit; a pattern without the alternation still matches.
    func testTheEnginesBacktrackingLimitIsAnErrorNotNoMatch() {
        let text = String(repeating: "ab", count: 500_000)
        XCTAssertThrowsError(try TextRegex.matches(text, pattern: "(a|b)*")) { error in
            XCTAssertEqual("\(error)", #"MATCHES "(a|b)*" could not finish on a value of 1000000 characters: the regular expression engine reached its backtracking limit (ICU, 8 MB) — simplify the pattern, e.g. [ab]* rather than (a|b)*"#)
        }
        XCTAssertEqual(try TextRegex.matches(text, pattern: "[ab]*"), true)
        XCTAssertEqual(try TextRegex.matches(text + "c", pattern: "[ab]*"), false)
        XCTAssertEqual(try TextRegex.matches("abab", pattern: "(a|b)*"), true)
    }

    func testAPatternFromTheDataThatIsNotARegexThrowsInTheSharedOperators() {
        XCTAssertThrowsError(try StringOperators.apply(.matches, "x", "(", []))
        XCTAssertEqual(try StringOperators.apply(.matches, "x", "x|y", []), true)
    }
}
