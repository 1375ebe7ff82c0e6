import Foundation
import XCTest
import TestSupport
@testable import ObjectStore

/// The functions a PostgreSQL store's schema holds (PostgreSQLFunctions) answer as the Swift code behind SQLite's
/// functions and the evaluator does: TextFolding.fold, TextCollation's two orders, StringOperators.apply and
/// TextRegex. Differential, over generated strings made of pieces that bite; each loop prints its seed.
final class PostgreSQLTextFunctionTests: XCTestCase {
    private var connection: PostgreSQLConnection!
    private var schema = ""

    override func setUpWithError() throws {
        let fresh = try PostgreSQLTestDatabase.freshSchema(self)
        (schema, connection) = (fresh.schema, fresh.connection)
        for statement in PostgreSQLFunctions.statements(schema: schema) { try connection.execute(statement, []) }
    }

    /// Pieces that bite: ASCII in both cases, digits with leading zeros, ß/ẞ, final sigma, ﬁ, the Kelvin sign,
    /// İ/ı, precomposed and decomposed accents, Hangul (syllables and jamo), Cherokee, astral scalars, emoji
    /// sequences, U+0001, line breaks, LIKE's and SQL's wildcards.
    static let pieces: [String] = [
        "a", "B", "z", "Z", "e", "E", "i", "I", "k", "K", "s", "S", "o", "x", "0", "1", "9", "00", "007", "10", "42",
        "ß", "ẞ", "ς", "Σ", "σ", "ﬁ", "ﬀ", "\u{212A}", "İ", "ı", "é", "e\u{301}", "É", "E\u{301}", "Å", "\u{212B}", "ö",
        "o\u{308}", "ø", "Ł", "ſ", "ǅ", "Ǆ", "ŉ", "ǰ", "ΐ", "\u{345}", "\u{300}", "ç", "한", "\u{1100}\u{1161}\u{11A8}",
        "Ꭰ", "ꭰ", "\u{10400}", "\u{10428}", "😀", "🇫🇷", "👩\u{200D}👩\u{200D}👧", "\u{1}", " ", "-", "\r\n", "\n", "\r",
        "\u{2028}", "*", "?", "%", "_", "\\", "１", "٣", "Straße", "STRASSE", "Item ", "Müller",
    ]

    static func string(_ random: inout SeededGenerator, pieces: [String] = pieces, most: Int = 6) -> String {
        (0..<random.next(upTo: most + 1)).map { _ in random.pick(pieces) }.joined()
    }

    /// A string with its non-ASCII scalars spelt out, for messages: "K" and the Kelvin sign look alike.
    static func scalars(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined() + "\""
    }

    // MARK: - Running a function over many values in one query

    private func json(_ values: [String]) -> StoredValue {
        .text(String(decoding: try! JSONSerialization.data(withJSONObject: values, options: [.fragmentsAllowed]), as: UTF8.self))
    }

    /// `expression` (over `a`, and `b` when pairs are given) for every value, in order.
    private func each(_ expression: String, _ a: [String], _ b: [String]? = nil) throws -> [StoredValue] {
        let sql: String
        if b != nil {
            sql = "SELECT \(expression) FROM jsonb_array_elements_text($1::text::jsonb) WITH ORDINALITY AS x(a, i) "
                + "JOIN jsonb_array_elements_text($2::text::jsonb) WITH ORDINALITY AS y(b, j) ON i = j ORDER BY i"
        } else {
            sql = "SELECT \(expression) FROM jsonb_array_elements_text($1::text::jsonb) WITH ORDINALITY AS x(a, i) ORDER BY i"
        }
        let rows = try connection.rows(sql, b.map { [json(a), json($0)] } ?? [json(a)])
        XCTAssertEqual(rows.count, a.count)
        return rows.map { $0.values[0] }
    }

    private func q(_ name: String) -> String { "\"\(schema)\".\(name)" }

    // MARK: - Folding

    /// Where PostgreSQL's canonical decomposition (its own Unicode tables) differs from Foundation's, over every
    /// scalar: the one part of folding not made from this process's tables. docs/queries.md lists them.
    static func decompositionDifferences(_ connection: PostgreSQLConnection) throws -> [UInt32] {
        let rows = try connection.rows("""
            SELECT c, normalize(chr(c), NFD) FROM generate_series(1, 1114111) AS c
            WHERE c NOT BETWEEN 55296 AND 57343 AND normalize(chr(c), NFD) <> chr(c) ORDER BY c
            """)
        var theirs: [UInt32: String] = [:]
        for row in rows { theirs[UInt32(row.values[0].int64!)] = row.values[1].string! }
        var differing: [UInt32] = []
        for value in 1...0x10FFFF as ClosedRange<UInt32> {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let text = String(Character(scalar))
            let ours = text.decomposedStringWithCanonicalMapping
            let pg = theirs[value] ?? text
            if Array(ours.unicodeScalars) != Array(pg.unicodeScalars) { differing.append(value) }
        }
        return differing
    }

    func testCanonicalDecompositionDiffersFromFoundationsOnlyWhereTheDocsSay() throws {
        let differing = try Self.decompositionDifferences(connection)
        let listed = differing.map { String($0, radix: 16, uppercase: true) }
        print("decomposition differs for \(differing.count) scalars: \(listed.joined(separator: " "))")
        XCTAssertEqual(listed, Self.documentedDecompositionDifferences, "update docs/queries.md, On PostgreSQL")
    }

    /// The scalars whose NFD PostgreSQL 15 computes otherwise than Foundation (docs/queries.md).
    static let documentedDecompositionDifferences: [String] = []

    func testFoldingAnswersAsTextFoldingForEveryFlagAndEveryScalarOfTheBMP() throws {
        let seed = Trials.seed(fixed: 3131)
        var random = SeededGenerator(seed: seed)
        let count = Trials.count("PGTEXT_TRIALS", quick: 2_000, stress: 20_000)
        let strings = (0..<count).map { _ in Self.string(&random) } + [""]
        let skipped = Set(try Self.decompositionDifferences(connection))
        var scalars: [String] = []
        for value in 1...0xFFFF as ClosedRange<UInt32> where !skipped.contains(value) {
            if let scalar = Unicode.Scalar(value) { scalars.append(String(Character(scalar))) }
        }
        for flags in 0...3 {
            let c = flags & 1 != 0, d = flags & 2 != 0
            for (name, values) in [("generated", strings), ("BMP", scalars)] {
                let folded = try each("\(q("bk_fold"))(a, \(flags))", values)
                var wrong = 0
                for (value, answer) in zip(values, folded) {
                    let expected = TextFolding.fold(value, caseInsensitive: c, diacriticInsensitive: d)
                    if answer.string.map({ Array($0.unicodeScalars) }) != Array(expected.unicodeScalars) {
                        wrong += 1
                        if wrong <= 10 { XCTFail("bk_fold(\(value.debugDescription), \(flags)) = \(answer), not \(expected.debugDescription)") }
                    }
                }
                XCTAssertEqual(wrong, 0, "\(name), flags \(flags)")
            }
        }
        XCTAssertEqual(try connection.rows("SELECT \(q("bk_fold"))(NULL, 1), \(q("bk_fold"))('ABC', NULL)")[0].values, [.null, .text("ABC")])
        reportTrials("PostgreSQL bk_fold", "seed \(seed), \(strings.count) strings and \(scalars.count) BMP scalars × 4 flags")
    }

    // MARK: - Sort keys

    func testSortKeysOrderAsNocaseAndNaturalCompare() throws {
        let seed = Trials.seed(fixed: 3232)
        var random = SeededGenerator(seed: seed)
        let lists = Trials.count("PGTEXT_SORT_TRIALS", quick: 20, stress: 400)
        let numbery = Self.pieces + ["0", "00", "1", "01", "2", "10", "010", "99", "100", "0001", "a1", "a01", "a"]
        var pairs = 0
        for _ in 0..<lists {
            let values = (0..<200).map { _ in Self.string(&random, pieces: numbery, most: 4) }
            for (key, compare) in [("bk_nocase_key", TextCollation.nocaseCompare), ("bk_natural_key", TextCollation.naturalCompare)] {
                let keys = try each("\(q(key))(a)", values).map { value -> Data in
                    guard case .blob(let data) = value else { XCTFail("\(key) gave \(value)"); return Data() }
                    return data
                }
                // Sorting by the keys and by the comparison give the same sequence (equal keys only for equal strings).
                let byKey = zip(values, keys).sorted { $0.1.lexicographicallyPrecedes($1.1) }.map { $0.0 }
                let bySwift = values.sorted { compare($0, $1) == .orderedAscending }
                XCTAssertEqual(byKey.map { Array($0.precomposedStringWithCanonicalMapping.unicodeScalars) },
                               bySwift.map { Array($0.precomposedStringWithCanonicalMapping.unicodeScalars) }, "\(key), seed \(seed)")
                // And pairwise, the sign of every comparison of neighbours and of a sample.
                for _ in 0..<200 {
                    let i = random.next(upTo: values.count), j = random.next(upTo: values.count)
                    let sign = keys[i] == keys[j] ? 0 : (keys[i].lexicographicallyPrecedes(keys[j]) ? -1 : 1)
                    XCTAssertEqual(sign, compare(values[i], values[j]).rawValue, "\(key) \(values[i].debugDescription) vs \(values[j].debugDescription)")
                    pairs += 1
                }
            }
        }
        // PostgreSQL's own bytea order is the order compared above.
        let ordered = try connection.rows("SELECT a FROM (VALUES ('a10'), ('a9'), ('A9'), ('a09'), ('b'), ('ä')) AS t(a) ORDER BY \(q("bk_natural_key"))(a)")
        XCTAssertEqual(ordered.map { $0.values[0].string! }, ["A9", "a9", "a09", "a10", "ä", "b"].sorted { TextCollation.naturalCompare($0, $1) == .orderedAscending })
        reportTrials("PostgreSQL sort keys", "seed \(seed), \(lists) lists of 200 sorted both ways, \(pairs) pairs")
    }

    // MARK: - String operators

    func testStringOperatorsAnswerAsStringOperatorsApply() throws {
        let seed = Trials.seed(fixed: 3333)
        var random = SeededGenerator(seed: seed)
        let count = Trials.count("PGTEXT_OPERATOR_TRIALS", quick: 2_000, stress: 10_000)
        var texts: [String] = [], needles: [String] = []
        for _ in 0..<count {
            let text = Self.string(&random)
            let scalars = Array(text.unicodeScalars)
            var needle: String
            switch random.next(upTo: 4) {
            case 0: needle = Self.string(&random, most: 2)
            default:
                // A piece of the text, cut at scalars (so sometimes inside a character).
                let from = random.next(upTo: scalars.count + 1), to = from + random.next(upTo: scalars.count - from + 1)
                var view = String.UnicodeScalarView()
                view.append(contentsOf: scalars[from..<to])
                needle = String(view)
                if random.next(upTo: 2) == 0 { needle = random.next(upTo: 2) == 0 ? needle.uppercased() : needle.lowercased() }
            }
            texts.append(text)
            needles.append(needle)
        }
        let likePatterns = texts.map { text -> String in
            // The text with some characters made wildcards, a * run, or pieces.
            var pattern = ""
            for character in text {
                switch random.next(upTo: 8) {
                case 0: pattern += "?"
                case 1: pattern += "*"
                case 2: continue
                default: pattern.append(character)
                }
            }
            return random.next(upTo: 5) == 0 ? Self.string(&random, pieces: Self.pieces + ["*", "?", "*"], most: 4) : pattern
        }
        for (name, op) in StoreFunctions.stringOperators where op != .matches {
            for flags in 0...3 {
                let patterns = op == .like ? likePatterns : needles
                let answers = try each("\(q(name))(a, b, \(flags))", texts, patterns)
                var wrong = 0
                for ((text, pattern), answer) in zip(zip(texts, patterns), answers) {
                    let expected = try StringOperators.apply(op, text, pattern, PredicateStringOptions(rawValue: UInt8(flags))) ? 1 : 0
                    if answer.int64 != Int64(expected) {
                        wrong += 1
                        if wrong <= 10 { XCTFail("\(name)(\(text.debugDescription), \(pattern.debugDescription), \(flags)) = \(answer), not \(expected)") }
                    }
                }
                XCTAssertEqual(wrong, 0, "\(name), flags \(flags), seed \(seed)")
            }
        }
        // NULLs give 0, as SQLite's functions do; a NULL flag is 0.
        for (name, _) in StoreFunctions.stringOperators {
            let row = try connection.rows("SELECT \(q(name))(NULL, 'a', 0), \(q(name))('a', NULL, 1), \(q(name))('a', 'a', NULL)")[0]
            XCTAssertEqual(row.values, [.integer(0), .integer(0), .integer(1)], name)
        }
        reportTrials("PostgreSQL string operators", "seed \(seed), \(count) pairs × 4 operators × 4 flags")
    }

    // MARK: - MATCHES

    func testMatchesOverTheSubsetAnswersAsICU() throws {
        let seed = Trials.seed(fixed: 3434)
        var random = SeededGenerator(seed: seed)
        let count = Trials.count("PGTEXT_TRIALS", quick: 2_000, stress: 20_000)
        let textPieces = PostgreSQLRegexGenerator.literals + ["\n", "\r\n", "\r", "\u{85}", "\u{2028}", "\u{B}", "\u{C}", "ab", "٣", "_", "\u{200D}",
                                                             "e\u{301}", "\t", "\u{A0}", "KK", "ss", "SS", "ß", "FI", "ﬁ", "i\u{307}", "st"]
        var texts: [String] = [], patterns: [String] = []
        for _ in 0..<count {
            texts.append(Self.string(&random, pieces: textPieces, most: 5))
            patterns.append(PostgreSQLRegexGenerator.pattern(&random))
        }
        // Patterns that match often: a text's own pieces, some made classes or dots.
        for k in 0..<(count / 2) {
            var pattern = ""
            for character in texts[k] {
                switch random.next(upTo: 6) {
                case 0: pattern += "."
                case 1: pattern += ".*"
                default: pattern += NSRegularExpression.escapedPattern(for: String(character))
                }
            }
            if PostgreSQLRegex.check(pattern) == nil { patterns[k] = pattern }
        }
        var matched = 0, tooComplex = 0
        for flags in 0...3 {
            // Under [d] a pattern is checked with its marks removed, and may leave the subset: refused, alone.
            let options = PredicateStringOptions(rawValue: UInt8(flags))
            let refused = patterns.filter { PostgreSQLRegex.check($0, options: options) != nil }
            for pattern in refused.prefix(20) {
                XCTAssertThrowsError(try connection.rows("SELECT \(q("bk_matches"))('x', $1, \(flags))", [.text(pattern)])) { error in
                    XCTAssertEqual((error as? StorageError)?.message, PostgreSQLRegex.error(for: pattern, options: options)?.description)
                }
            }
            let usable = patterns.map { PostgreSQLRegex.check($0, options: options) == nil ? $0 : "" }
            var answers: [StoredValue]
            do {
                answers = try each("\(q("bk_matches"))(a, b, \(flags))", texts, usable)
            } catch {
                // PostgreSQL refuses a pattern whose compiled form passes its limits ("too complex"), or gives up
                // matching one on a value: a refusal, never a wrong answer; each pair alone then, any other error a
                // failure naming its pattern.
                answers = []
                for (text, pattern) in zip(texts, usable) {
                    do {
                        answers.append(try connection.rows("SELECT \(q("bk_matches"))($1, $2, \(flags))", [.text(text), .text(pattern)])[0].values[0])
                    } catch where error.message.contains("too complex for PostgreSQL") || error.message.hasPrefix("regular expression failed: ") {
                        tooComplex += 1
                        if tooComplex <= 5 { print("PostgreSQL MATCHES: refused as too complex: \(Self.scalars(pattern)), flags \(flags)") }
                        answers.append(.null)
                    } catch {
                        XCTFail("bk_matches(\(Self.scalars(text)), \(Self.scalars(pattern)), \(flags)): \(error)")
                        throw error
                    }
                }
            }
            var wrong = 0
            for ((text, pattern), answer) in zip(zip(texts, patterns), answers) {
                if PostgreSQLRegex.check(pattern, options: options) != nil || answer == .null { continue }
                let expected = try TextRegex.matches(text, pattern: pattern, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0) ? 1 : 0
                matched += expected
                if answer.int64 != Int64(expected) {
                    wrong += 1
                    if wrong <= 10 {
                        XCTFail("bk_matches(\(Self.scalars(text)), \(Self.scalars(pattern)), \(flags)) = \(answer), not \(expected)")
                    }
                }
            }
            XCTAssertEqual(wrong, 0, "flags \(flags), seed \(seed)")
        }
        XCTAssertGreaterThan(matched, count / 2)
        XCTAssertLessThan(tooComplex, count / 200, "PostgreSQL refused too many patterns as too complex")
        reportTrials("PostgreSQL MATCHES", "seed \(seed), \(count) pairs × 4 flags, \(matched) matches, \(tooComplex) refused as too complex")
    }

    /// ICU compiles a set holding one character after its case closure as a literal character, which [c] folds
    /// fully and joins to the literal run around it: `[İ]` matches i + U+0307, `[ʼ]n` matches `ŉ`; a set whose
    /// closure has several (`[s]`: s S ſ, `[ß]`: ß ẞ) stays a set. Found by make stress's seed 1795812250.
    func testASetOfOneCharacterIsALiteralUnderCaseInsensitivityAndDollarIsNotBetweenCRAndLF() throws {
        let cases: [(text: String, pattern: String, icu: Bool?)] = [
            ("\u{212A}i\u{307}0\u{13F0}", "(?i).[\u{130}]((?:\\w+|$a.$){2}|\u{17F}t{1,3}[a-z\u{13F0}\\]])(| ?[\u{FB01}\\-]^\\${0,1})?|$", true),
            ("i\u{307}", "(?i)[\u{130}]", true), ("I\u{307}", "(?i)[\u{130}]", true), ("\u{130}", "(?i)[\u{130}]", true),
            ("i\u{307}", "(?i)[\u{130}\u{130}]", true), ("i\u{307}", "(?i)[\u{130}-\u{130}]", true),
            ("i\u{307}x", "(?i)[\u{130}]x", true), ("i\u{307}i\u{307}", "(?i)[\u{130}]{2}", true),
            ("FI", "(?i)[\u{FB01}]", true), ("\u{149}", "(?i)[\u{2BC}]n", true), ("\u{2BC}N", "(?i)[\u{149}]", true),
            ("\u{DF}", "(?i)s[s]", false), ("\u{DF}", "(?i)ss", true), ("ss", "(?i)[\u{DF}]", false),
            ("\u{DF}", "(?i)[\u{17F}]s", false), ("i", "(?i)[\u{130}]", false), ("i\u{307}", "(?i)[^\u{130}]", false),
            ("i\u{307}", "[\u{130}]", false), ("ssss", "(?i)\u{DF}+", true), ("k", "(?i)[\u{212A}]", true),
            // ICU's own data decides (Unicode 15.1 gave ﬅ the simple folding ﬆ; seed 9006).
            ("\u{17F}t", "(?i)$.{0,1}\\*?[^e\u{301}]{2}|(?:[\u{FB05}]|\u{13F8}*)", nil), ("\u{FB06}", "(?i)[\u{FB05}]", nil),
            ("st", "(?i)[\u{FB05}]", nil), ("\u{FB05}", "(?i)[\u{FB06}]", nil),
            // $ holds before a line terminator that ends the text, never between CR and LF (seed 9003).
            ("\r\n", "(?i)[\u{E9}ar-t]*(?:[A\u{FB01}\n][^\u{1F600}\u{13F8}a-z]{0,}|(?:[^\n]+)$1*)*|\u{FB05}\\.{0,}|", false),
            ("\r\n", "\r$\n", false), ("\r\n", ".*$\r\n", true), ("\n", "$\n", true), ("a\r\n", "a$\r$\n", false),
            // A range of ASCII punctuation may span letters, which [c] closes over (seed 9045: under [d] the marks of
            // [,\u0300-\u036F\]] go, leaving the range , to ]).
            ("abSS", "[,\u{300}-\u{36F}\\]].+|\\--*", nil), ("a", "(?i)[!-~]", true), ("\u{17F}", "(?i)[!-~]", true),
        ]
        for (text, pattern, icu) in cases {
            for flags in 0...3 {
                let options = PredicateStringOptions(rawValue: UInt8(flags))
                guard PostgreSQLRegex.check(pattern, options: options) == nil else { continue }
                let expected = try TextRegex.matches(text, pattern: pattern, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
                if flags == 0, let icu { XCTAssertEqual(expected, icu, "ICU on \(Self.scalars(text)) MATCHES \(Self.scalars(pattern))") }
                let answer = try connection.rows("SELECT \(q("bk_matches"))($1, $2, \(flags))", [.text(text), .text(pattern)])[0].values[0]
                XCTAssertEqual(answer, .integer(expected ? 1 : 0), "bk_matches(\(Self.scalars(text)), \(Self.scalars(pattern)), \(flags))")
            }
        }
    }

    /// A pattern outside the subset that only the database sees is refused by bk_matches with the message
    /// PostgreSQLRegex.error gives, which the store recognises as TextRegexError's; the subset is accepted.
    func testARefusedPatternIsRefusedInSQLWithTheChecksMessage() throws {
        let seed = Trials.seed(fixed: 3535)
        var random = SeededGenerator(seed: seed)
        var patterns = ["\\p{L}", "a(?=b)", "a*?", "a{256}", "[[:alpha:]]", "x[a-]", "(ab", "ab)", "[z-a]", "\\bx", "[]a]", "ab[cd",
                        "é\\p{L}", "🇫🇷\\p{L}", "x\"y'\\\\\n\\q", "(?i)*", "a{2,1}", "[&-..2]", "x[a&-z]", "(?i)[&-&]", "9[:&:]", "[:alpha:]", "[^:a:]"]
        for _ in 0..<300 {
            patterns.append(String((0..<random.next(upTo: 8)).map { _ in random.pick(Array("ab\\[]-^$.*+?(){}|,0129dpPkK:=!<#&")) }))
        }
        var refused = 0
        for pattern in patterns {
            for flags in [0, 1] {
                do {
                    _ = try connection.rows("SELECT \(q("bk_matches"))('x', $1, \(flags))", [.text(pattern)])
                    XCTAssertNil(PostgreSQLRegex.check(pattern), "SQL accepts \(pattern.debugDescription), the check does not")
                } catch {
                    refused += 1
                    XCTAssertEqual(error.message, PostgreSQLRegex.error(for: pattern)?.description, pattern.debugDescription)
                    XCTAssertTrue(TextRegexError.isDescription(error.message), error.message)
                }
            }
        }
        XCTAssertGreaterThan(refused, 30)
        // A pattern from the data: the first row whose pattern is refused fails the statement.
        XCTAssertThrowsError(try connection.rows("SELECT \(q("bk_matches"))('x', p, 0) FROM (VALUES ('x'), ('\\p{L}')) AS t(p)"))
        reportTrials("PostgreSQL MATCHES refusals", "seed \(seed), \(patterns.count) patterns, \(refused) refusals")
    }
}
