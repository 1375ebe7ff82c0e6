import Foundation
import XCTest
import TestSupport
@testable import ObjectStore

final class TextCollationTests: XCTestCase {
    /// A deterministic shuffle (SplitMix64 + Fisher–Yates).
    private func shuffled<T>(_ items: [T], seed: UInt64) -> [T] {
        var random = SeededGenerator(seed: seed)
        var result = items
        for i in stride(from: result.count - 1, to: 0, by: -1) {
            result.swapAt(i, random.next(upTo: i + 1))
        }
        return result
    }

    private let naturalOrder = [
        "", "2", "002", "10", "a", "a b", "ab", "Emile", "emile", "émile", "Eric",
        "file9", "file09", "File10", "file10", "file010", "file12345678901234567890",
        "Item 1", "Item 2", "item 2", "Item 10", "X", "x", "z", "zoe", "Zoë",
    ]

    func testNaturalOrderOfAShuffledList() {
        for seed in [1, 2, 3, 42, 2024] as [UInt64] {
            let sorted = shuffled(naturalOrder, seed: seed).sorted { TextCollation.naturalCompare($0, $1) == .orderedAscending }
            XCTAssertEqual(sorted, naturalOrder, "seed \(seed)")
        }
    }

    func testNaturalOrderBasics() {
        XCTAssertEqual(TextCollation.naturalCompare("Item 2", "Item 10"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("file9", "file10"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("file10", "file9"), .orderedDescending)
        XCTAssertEqual(TextCollation.naturalCompare("a1", "a01"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("x", "x"), .orderedSame)
        XCTAssertEqual(TextCollation.naturalCompare("é", "e\u{301}"), .orderedSame)
        XCTAssertEqual(TextCollation.naturalCompare("0", "00"), .orderedAscending)
    }

    func testTheASCIIShortcutAgreesWithFoldingTheWhole() {
        // Under [cd] the mark goes, and the digits on both sides of it make one number: 12 < 13.
        XCTAssertEqual(TextCollation.naturalCompare("a1\u{301}2", "a13"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("a1\u{301}2", "a9"), .orderedDescending)
        XCTAssertEqual(TextCollation.naturalCompare("a1\u{301}2", "a012"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("abc", "abcé"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("ab", "aé"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("ae", "aé"), .orderedAscending)
        XCTAssertEqual(TextCollation.naturalCompare("af", "aé"), .orderedDescending)
        XCTAssertEqual(TextCollation.nocaseCompare("STRASSE1", "straße2"), .orderedAscending)
        XCTAssertEqual(TextCollation.nocaseCompare("strasse", "STRAẞE"), .orderedDescending)   // same fold: "STRAẞE" < "strasse"
        XCTAssertEqual(TextCollation.nocaseCompare("ab", "aé"), .orderedAscending)
    }

    func testNocaseOrder() {
        let expected = ["A", "a", "ä", "B", "b", "STRASSE", "Straße", "straße", "z", "Ǆ", "ǅ", "ǆ"]
        for seed in [7, 8, 9] as [UInt64] {
            let sorted = shuffled(expected, seed: seed).sorted { TextCollation.nocaseCompare($0, $1) == .orderedAscending }
            XCTAssertEqual(sorted, expected, "seed \(seed)")
        }
        XCTAssertEqual(TextCollation.nocaseCompare("abc", "ABD"), .orderedAscending)
        XCTAssertEqual(TextCollation.nocaseCompare("é", "e\u{301}"), .orderedSame)
    }

    /// Both orders must be total and agree with string equality to back SQLite collations.
    func testBothAreTotalOrdersConsistentWithEquality() {
        let samples = naturalOrder + [
            "É", "e\u{301}", "é", "ß", "SS", "ss", "ẞ", "0", "00", "a0", "a00", "a 1", "a1", "\0", "a\0", "\u{301}",
            "👩‍👩‍👧", "🇫🇷", "名前", "Ω", "ω", "ı", "I", "i", "İ", "9999999999999999999999", "1e5", "-1", "-2",
            "a1\u{301}2", "a12", "a012", "a13", "x\u{301}", "xé", "XÉ", "straße2", "STRASSE1",
        ]
        for compare in [TextCollation.naturalCompare, TextCollation.nocaseCompare] {
            for a in samples {
                for b in samples {
                    let ab = compare(a, b), ba = compare(b, a)
                    XCTAssertEqual(ab == .orderedSame, a == b, "\(a.debugDescription) vs \(b.debugDescription)")
                    XCTAssertEqual(ab.rawValue, -ba.rawValue, "antisymmetry \(a.debugDescription) \(b.debugDescription)")
                }
            }
            for a in samples {
                for b in samples where compare(a, b) != .orderedDescending {
                    for c in samples where compare(b, c) != .orderedDescending {
                        XCTAssertNotEqual(compare(a, c), .orderedDescending,
                                          "transitivity \(a.debugDescription) \(b.debugDescription) \(c.debugDescription)")
                    }
                }
            }
        }
    }

    /// `naturalCompare` reads the bytes (and SQLite's `bk_natural` collation calls it on the stored bytes); the order it
    /// gives must be the one of `naturalCompareByFolding`, the level-by-level implementation it falls back on: random
    /// strings of digit runs (leading zeros, long numbers), ASCII letters in both cases, spaces and punctuation, and
    /// non-ASCII text (accents precomposed and decomposed, a mark alone, ß, dotless i, emoji), pairs sharing
    /// beginnings so that the later levels are reached, and invalid UTF-8 through the byte entry point.
    func testNaturalCompareFromBytesAgreesWithFoldingOnGeneratedStrings() {
        let seed = Trials.seed(fixed: 27_270)   // STRESS_SEED replays one
        let count = Trials.count("BOOKKEEPER_NATURAL_TRIALS", quick: 20_000, stress: 200_000)
        Trials.report("natural order from bytes against folding", "seed \(seed), \(count) pairs")
        var random = SeededGenerator(seed: seed)
        let pieces = ["0", "00", "1", "7", "9", "10", "0042", "123456789012345678901234567890", "a", "A", "b", "Z", "z",
                      "e", "E", " ", "-", "_", ".", "~", "\u{7F}", "\0", "é", "É", "e\u{301}", "\u{301}", "\u{308}",
                      "ß", "SS", "ẞ", "ı", "İ", "Ω", "名", "👩‍👩‍👧", "١", "٢", "１"]
        func piece() -> String {
            switch random.next(upTo: 4) {
            case 0: return String(repeating: "0", count: random.next(upTo: 3)) + String(random.next(upTo: 1000))
            default: return random.pick(pieces)
            }
        }
        func string() -> String { (0..<random.next(upTo: 6)).map { _ in piece() }.joined() }
        func check(_ a: String, _ b: String, _ line: UInt = #line) {
            let expected = TextCollation.naturalCompareByFolding(a, b)
            XCTAssertEqual(TextCollation.naturalCompare(a, b), expected, "\(a.debugDescription) vs \(b.debugDescription), seed \(seed)", line: line)
            let fromBytes = Array(a.utf8).withUnsafeBufferPointer { x in
                Array(b.utf8).withUnsafeBufferPointer { y in TextCollation.naturalCompare(utf8: x, y) }
            }
            XCTAssertEqual(fromBytes, expected, "bytes of \(a.debugDescription) vs \(b.debugDescription), seed \(seed)", line: line)
        }
        for _ in 0..<count {
            let a = string()
            // Half the time b shares a's beginning, so that numbers, leading zeros and case decide.
            let b = random.next(upTo: 2) == 0 ? string() : String(a.prefix(random.next(upTo: a.count + 1))) + string()
            check(a, b)
            check(b, a)
            check(a, a.uppercased())
        }
        // Invalid UTF-8: the byte entry point decodes as GRDB did (bad bytes replaced) before falling back.
        for _ in 0..<2_000 {
            var x = Array(string().utf8), y = Array(string().utf8)
            if random.next(upTo: 2) == 0 { x.insert(random.pick([0x80, 0xC3, 0xFF] as [UInt8]), at: random.next(upTo: x.count + 1)) }
            if random.next(upTo: 2) == 0 { y.insert(random.pick([0x80, 0xE2, 0xFE] as [UInt8]), at: random.next(upTo: y.count + 1)) }
            let expected = TextCollation.naturalCompareByFolding(String(decoding: x, as: UTF8.self), String(decoding: y, as: UTF8.self))
            let got = x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in TextCollation.naturalCompare(utf8: p, q) } }
            XCTAssertEqual(got, expected, "bytes \(x) vs \(y), seed \(seed)")
        }
    }
}
