import XCTest
import TestSupport
@testable import ObjectStore

/// MATCHES on PostgreSQL answers for a documented subset of ICU's patterns and refuses the rest where it starts
/// (PostgreSQLRegex.swift). These need no server: what the subset holds, where a refusal points, and that the
/// subset lies inside what ICU itself accepts (a pattern of the subset is never an error on SQLite).
final class PostgreSQLRegexCheckTests: XCTestCase {
    /// Every MATCHES pattern of docs/queries.md and of the tests, and the constructs the brief names.
    static let subset = [
        "[A-Z][0-9]+", ".*[0-9]+.*", "item.*", "(?i)item.*", "[A-Z].*", ".*[0-9]", "o.e", ".*", "Item [0-9]+", "Item",
        "[a-z]+", "(a|b)*", "[ab]*", "Acme.*", "",
        "a{2}", "a{2,}", "a{2,5}", "a{0,255}", "(?:ab)+c?", "^a$", "^(a|bc)$", "\\.", "\\*\\+\\?\\(\\)\\[\\]\\{\\}\\|\\\\\\^\\$",
        "[^a-z]", "[\\-\\]\\[]", "\\d+", "\\w\\s\\D\\S\\W", "[\\d\\s\\w_]", "a|", "|", "()", "\\n\\t\\r", "[\\n\\t]",
        "é+", "Straße", "[à-ÿ]", "🇫🇷.", "#a b", "[$.*+?(){}|^]", "a/b", "\\/", "\\-", "[\\&-.]", "[%-&]", "[&a]", "[\\:a:]", "[a:]",
    ]

    func testThePatternsOfTheDocsAndTestsAndTheNamedConstructsAreInTheSubset() throws {
        for pattern in Self.subset {
            XCTAssertNil(PostgreSQLRegex.check(pattern), pattern)
            XCTAssertNoThrow(try TextRegex.validate(pattern), "ICU accepts \(pattern)")
        }
    }

    /// Each refusal names the construct and points at its first character (in Unicode scalars).
    func testOutsideTheSubsetARefusalNamesTheConstructWhereItStarts() {
        let cases: [(String, Int, String)] = [
            ("\\p{L}", 0, "\\p (a Unicode property)"),
            ("ab\\P{Lu}", 2, "\\P (a Unicode property)"),
            ("(a)\\1", 3, "\\1 (a back reference)"),
            ("x\\bx", 1, "\\b (a word boundary)"),
            ("\\Aa\\z", 0, "\\A (an anchor other than ^ and $)"),
            ("\\Qa.b\\E", 0, "\\Q (quoting)"),
            ("\\x41", 0, "the escape \\x"),
            ("\\u0041", 0, "the escape \\u"),
            ("a(?=b)", 1, "(?= (a look-ahead)"),
            ("a(?!b)", 1, "(?! (a look-ahead)"),
            ("(?<=a)b", 0, "(?<= (a look-behind)"),
            ("(?<x>a)", 0, "a named group"),
            ("(?#c)a", 0, "(?# (a comment)"),
            ("(?>a)", 0, "(?> (an atomic group)"),
            ("x(?i)y", 1, "(? with options (only a leading (?i) and (?: are)"),
            ("(?x) a", 0, "(? with options (only a leading (?i) and (?: are)"),
            ("a*?", 2, "a lazy or possessive quantifier (or a quantifier repeated)"),
            ("a++", 2, "a lazy or possessive quantifier (or a quantifier repeated)"),
            ("a{2}?", 4, "a lazy or possessive quantifier (or a quantifier repeated)"),
            ("a{256}", 1, "a count above 255"),
            ("a{2,1}", 1, "a quantifier {n,m} with m < n"),
            ("a{x}", 1, "a { that is not a quantifier {n}, {n,} or {n,m} (write \\{ for the character)"),
            ("a{,2}", 1, "a { that is not a quantifier {n}, {n,} or {n,m} (write \\{ for the character)"),
            ("*a", 0, "a quantifier with nothing to repeat"),
            ("(+)", 1, "a quantifier with nothing to repeat"),
            ("^*", 1, "a quantifier with nothing to repeat"),
            ("a|?", 2, "a quantifier with nothing to repeat"),
            ("(?i)*", 4, "a quantifier with nothing to repeat"),
            ("a]", 1, "an unescaped ] (write \\] for the character)"),
            ("a}", 1, "an unescaped } (write \\} for the character)"),
            ("[[:alpha:]]", 1, "a [ inside brackets (a nested set or a POSIX class; write \\[ for the character)"),
            ("x[a-]", 3, "a - in brackets that is not a range (write \\- for the character)"),
            ("[-a]", 1, "a - in brackets that is not a range (write \\- for the character)"),
            ("[\\d-z]", 3, "a - in brackets that is not a range (write \\- for the character)"),
            ("[a-\\d]", 2, "a - in brackets that is not a range (write \\- for the character)"),
            ("[z-a]", 1, "a range whose ends are out of order"),
            // ICU refuses a range from an unescaped & (make stress's seed 1795820784: "[&-..2]"); `[\&-.]` is one.
            ("[&-..2]", 1, "a range from an unescaped & (write \\& for the character)"),
            ("x[a&-z]", 3, "a range from an unescaped & (write \\& for the character)"),
            ("(?i)[&-&]", 5, "a range from an unescaped & (write \\& for the character)"),
            // ICU reads [:alpha:] as a property (seed 3 of the stress count: "9[:&:]"); a set of : a l p h here.
            ("9[:&:]", 2, "a : first in brackets (ICU reads [:name:] as a Unicode property; write \\: for the character)"),
            ("[:alpha:]", 1, "a : first in brackets (ICU reads [:name:] as a Unicode property; write \\: for the character)"),
            ("[^:alpha:]", 2, "a : first in brackets (ICU reads [:name:] as a Unicode property; write \\: for the character)"),
            ("[a&&b]", 2, "&& (a set intersection)"),
            ("[\\D]", 1, "\\D inside brackets"),
            ("[\\p{L}]", 1, "\\p (a Unicode property)"),
            ("[]a]", 1, "an empty [] (write \\] for the character)"),
            ("ab[cd", 2, "a [ without its ]"),
            ("(ab", 0, "a ( without its )"),
            ("((a)", 0, "a ( without its )"),
            ("ab)", 2, "a ) without its ("),
            ("ab\\", 2, "a \\ at the end"),
            ("é\\p{L}", 1, "\\p (a Unicode property)"),
            ("🇫🇷\\p{L}", 2, "\\p (a Unicode property)"),
        ]
        for (pattern, offset, construct) in cases {
            guard let refusal = PostgreSQLRegex.check(pattern) else {
                XCTFail("\(pattern) should be refused")
                continue
            }
            XCTAssertEqual(refusal.offset, offset, pattern)
            XCTAssertEqual(refusal.reason, construct + " is not in the MATCHES subset PostgreSQL stores answer identically", pattern)
        }
        XCTAssertEqual(PostgreSQLRegex.error(for: "\\p{L}")?.description,
                       #"invalid regular expression "\\p{L}": \p (a Unicode property) is not in the MATCHES subset PostgreSQL stores answer identically (at character 1)"#)
        XCTAssertTrue(TextRegexError.isDescription(PostgreSQLRegex.error(for: "(?=a)")!.description))
        XCTAssertNil(PostgreSQLRegex.error(for: "[A-Z][0-9]+"))
    }

    /// The subset lies inside ICU's syntax: patterns drawn from the subset's grammar are all accepted by the check
    /// and by NSRegularExpression; random soups of metacharacters that the check accepts, ICU accepts too.
    func testEveryPatternOfTheSubsetIsARegularExpressionForICU() throws {
        let seed = Trials.seed(fixed: 3030)
        var random = SeededGenerator(seed: seed)
        let count = Trials.count("PGREGEX_CHECK_TRIALS", quick: 2_000, stress: 40_000)
        var accepted = 0
        for _ in 0..<count {
            let pattern = PostgreSQLRegexGenerator.pattern(&random)
            XCTAssertNil(PostgreSQLRegex.check(pattern), pattern)
            XCTAssertNoThrow(try TextRegex.validate(pattern), pattern)
            let soup = String((0..<random.next(upTo: 8)).map { _ in random.pick(Array("ab\\[]-^$.*+?(){}|,0129dpPkK:=!<#&")) })
            if PostgreSQLRegex.check(soup) == nil {
                accepted += 1
                XCTAssertNoThrow(try TextRegex.validate(soup), "the check accepts \(soup.debugDescription), ICU does not")
            }
        }
        reportTrials("PostgreSQL regex subset", "seed \(seed), \(count) generated patterns, \(accepted) of \(count) random soups accepted")
    }
}

/// Patterns drawn from the subset's grammar (PostgreSQLRegex.swift), over pieces that bite: letters with case
/// classes (k and the Kelvin sign, s and ſ), ß, accents, line terminators, astral scalars.
enum PostgreSQLRegexGenerator {
    static let literals: [String] = ["a", "b", "k", "s", "A", "K", "S", "0", "1", "ß", "é", "e", "\u{301}", "ſ", "\u{212A}",
                                     " ", "-", "#", "İ", "ı", "σ", "ς", "Σ", "😀", "ǅ", "\u{1E9E}", ",", "/", "ᏸ", "Ᏸ", "ﬁ", "f", "i", "ss", "SS", "ǰ", "ſt", "ﬅ"]
    static let escapes = ["\\d", "\\D", "\\s", "\\S", "\\w", "\\W", "\\n", "\\t", "\\r", "\\.", "\\*", "\\\\", "\\-", "\\[", "\\$"]

    static func pattern(_ random: inout SeededGenerator) -> String {
        (random.next(upTo: 3) == 0 ? "(?i)" : "") + alternatives(&random, depth: 0)
    }

    static func alternatives(_ random: inout SeededGenerator, depth: Int) -> String {
        (0...random.next(upTo: depth == 0 ? 3 : 2)).map { _ in branch(&random, depth: depth) }.joined(separator: "|")
    }

    static func branch(_ random: inout SeededGenerator, depth: Int) -> String {
        var text = ""
        for _ in 0..<random.next(upTo: 5) {
            switch random.next(upTo: 12) {
            case 0: text += "^"
            case 1: text += "$"
            default: text += atom(&random, depth: depth) + quantifier(&random)
            }
        }
        return text
    }

    static func quantifier(_ random: inout SeededGenerator) -> String {
        random.pick(["", "", "", "*", "+", "?", "{2}", "{0,}", "{1,3}", "{0,1}"])
    }

    static func atom(_ random: inout SeededGenerator, depth: Int) -> String {
        switch random.next(upTo: depth < 2 ? 10 : 8) {
        case 0, 1, 2: return random.pick(literals)
        case 3: return "."
        case 4: return random.pick(escapes)
        case 5, 6, 7: return bracket(&random)
        case 8: return "(" + alternatives(&random, depth: depth + 1) + ")"
        default: return "(?:" + alternatives(&random, depth: depth + 1) + ")"
        }
    }

    static func bracket(_ random: inout SeededGenerator) -> String {
        var text = random.next(upTo: 3) == 0 ? "[^" : "["
        for _ in 0...random.next(upTo: 3) {
            switch random.next(upTo: 6) {
            case 0: text += random.pick(["a-z", "A-Z", "0-9", "a-k", "r-t", "à-ÿ", "\u{300}-\u{36F}", "Α-Ω"])
            case 1: text += random.pick(["\\d", "\\s", "\\w", "\\-", "\\]", "\\n", "."])
            default: text += random.pick(literals.filter { $0 != "-" })
            }
        }
        return text + "]"
    }
}
