import XCTest
import TestSupport
@testable import ObjectStore

/// NFC for key comparisons: what it composes, agreement with String's `==`, the fast path, and long text in linear time.
final class TextNormalFormTests: XCTestCase {
    func scalars(_ s: String) -> [UInt32] { s.unicodeScalars.map(\.value) }

    func testComposesWhatMacOSDecomposes() {
        XCTAssertEqual(scalars(TextNormalForm.nfc("Cafe\u{301} Ole\u{301}")), scalars("Caf\u{E9} Ol\u{E9}"))
        // Vietnamese ệ, its two marks in either order (dot below sorts first: combining class 220 before 230).
        XCTAssertEqual(scalars(TextNormalForm.nfc("Vie\u{323}\u{302}t")), [0x56, 0x69, 0x1EC7, 0x74])
        XCTAssertEqual(scalars(TextNormalForm.nfc("Vie\u{302}\u{323}t")), [0x56, 0x69, 0x1EC7, 0x74])
        XCTAssertEqual(scalars(TextNormalForm.nfc("Vi\u{1EC7}t")), [0x56, 0x69, 0x1EC7, 0x74])
        // Hangul: leading consonant, vowel and trailing consonant jamo make one syllable.
        XCTAssertEqual(scalars(TextNormalForm.nfc("\u{1100}\u{1161}\u{11A8}")), [0xAC01])
        XCTAssertEqual(scalars(TextNormalForm.nfc("\u{AC00}\u{11A8}")), [0xAC01], "a syllable then a trailing jamo")
        // A composition exclusion stays decomposed; a singleton (the Ångström sign) becomes the letter.
        XCTAssertEqual(scalars(TextNormalForm.nfc("\u{0958}")), [0x915, 0x93C])
        XCTAssertEqual(scalars(TextNormalForm.nfc("\u{212B}")), [0xC5])
        XCTAssertTrue(TextNormalForm.equivalent("Cafe\u{301}", "Caf\u{E9}"))
        XCTAssertFalse(TextNormalForm.sameBytes("Cafe\u{301}", "Caf\u{E9}"))
        XCTAssertFalse(TextNormalForm.equivalent("Cafe", "Caf\u{E9}"))
    }

    /// Every scalar the fast path lets through is its own NFC, has combining class 0, and nothing composes with it
    /// after a letter or a Hangul syllable — so text made of them is NFC without composing it.
    func testTheFastPathOnlyPassesTextThatIsNFC() {
        let ranges: [ClosedRange<UInt32>] = [0x1...0x2FF, 0x400...0x482, 0x48A...0x52F, 0x4E00...0x9FFF, 0xAC00...0xD7A3]
        var checked = 0
        for range in ranges {
            for v in range {
                guard let s = Unicode.Scalar(v) else { continue }
                let text = String(Character(s))
                XCTAssertTrue(TextNormalForm.isSurelyNFC(text), "U+\(String(v, radix: 16))")
                XCTAssertEqual(s.properties.canonicalCombiningClass, .notReordered, "U+\(String(v, radix: 16))")
                for before in ["e", "\u{AC00}", "\u{1100}", "\u{0B47}", "\u{0915}"] {
                    let pair = before + text
                    XCTAssertEqual(scalars(TextNormalForm.composed(pair)), scalars(pair), "U+\(String(v, radix: 16))")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 30_000)
        for text in ["e\u{301}", "\u{1100}\u{1161}", "\u{AC00}\u{11A8}", "\u{212B}", "\u{0958}", "\u{0483}", "\u{0374}"] {
            XCTAssertFalse(TextNormalForm.isSurelyNFC(text), text)
        }
    }

    /// Equal after NFC exactly when String's `==` says equal (canonical equivalence), on random mixes of
    /// composed and decomposed letters, stacked marks in either order, and Hangul in syllables and in jamo.
    func testEqualAfterNFCIsStringEquality() {
        let atoms = [["\u{E9}", "e\u{301}"], ["\u{1EC7}", "e\u{323}\u{302}", "e\u{302}\u{323}", "\u{EA}\u{323}", "\u{1EB9}\u{302}"],
                     ["\u{AC01}", "\u{AC00}\u{11A8}", "\u{1100}\u{1161}\u{11A8}"], ["\u{C5}", "A\u{30A}", "\u{212B}"],
                     ["\u{F6}\u{301}", "o\u{308}\u{301}"], ["\u{0DDA}", "\u{0DD9}\u{0DCA}"], ["e"], ["a"], [" "], ["ц"]]
        var g = SeededGenerator(seed: Trials.seed(fixed: 24))
        let count = Trials.count("BOOKKEEPER_NFC_TRIALS", quick: 2_000, stress: 50_000)
        var equal = 0
        for _ in 0..<count {
            let picks = (0..<(1 + g.next(upTo: 6))).map { _ in g.next(upTo: atoms.count) }
            let a = picks.map { atoms[$0][g.next(upTo: atoms[$0].count)] }.joined()
            var b = picks.map { atoms[$0][g.next(upTo: atoms[$0].count)] }.joined()
            if g.next(upTo: 4) == 0 { b += g.pick(["e", "\u{301}", "\u{11A8}"]) }
            XCTAssertEqual(TextNormalForm.equivalent(a, b), a == b, "\(scalars(a)) \(scalars(b))")
            XCTAssertTrue(TextNormalForm.equivalent(a, TextNormalForm.nfc(a)))
            if a == b { equal += 1 }
        }
        reportTrials("TextNormalFormTests", "\(count) pairs, \(equal) equal (seed \(Trials.seed(fixed: 24)))")
    }

    /// Foundation's composition is quadratic on Linux; the standard library's keeps a hostile key of megabytes linear.
    func testLongTextComposesInLinearTime() {
        let (ratio, small, large) = doublingRatio(size: 100_000, repeats: 3) { n in
            _ = TextNormalForm.nfc(String(repeating: "e\u{301}", count: n))
        }
        XCTAssertLessThan(ratio, 3, "\(small) s, then \(large) s")
    }
}
