import Foundation
import XCTest
import TestSupport
@testable import ObjectStore

final class TextFoldingTests: XCTestCase {
    private func c(_ text: String) -> String { TextFolding.fold(text, caseInsensitive: true, diacriticInsensitive: false) }
    private func d(_ text: String) -> String { TextFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true) }
    private func cd(_ text: String) -> String { TextFolding.fold(text, caseInsensitive: true, diacriticInsensitive: true) }

    /// Scalars, so that canonically equivalent but different results do not pass as equal.
    private func scalars(_ text: String) -> [UInt32] { text.unicodeScalars.map(\.value) }
    private func nfd(_ text: String) -> [UInt32] { scalars(text.decomposedStringWithCanonicalMapping) }

    func testFoldingTable() {
        // input, [c], [d], [cd]; expected values are compared in NFD.
        let table: [(String, String, String, String)] = [
            ("", "", "", ""),
            ("ABC xyz 123", "abc xyz 123", "ABC xyz 123", "abc xyz 123"),
            ("Straße", "strasse", "Straße", "strasse"),
            ("STRASSE", "strasse", "STRASSE", "strasse"),
            ("ẞ", "ss", "ẞ", "ss"),
            ("ǅ", "ǆ", "ǅ", "ǆ"),
            ("Ǆ", "ǆ", "Ǆ", "ǆ"),
            ("ΣΊΣΥΦΟΣ", "σίσυφοσ", "ΣΙΣΥΦΟΣ", "σισυφοσ"),
            ("σίσυφος", "σίσυφοσ", "σισυφος", "σισυφοσ"),
            ("Müller", "müller", "Muller", "muller"),
            ("café", "café", "cafe", "cafe"),
            ("cafe\u{301}", "café", "cafe", "cafe"),
            ("Ørsted", "ørsted", "Ørsted", "ørsted"),
            ("Łódź", "łódź", "Łodz", "łodz"),
            ("İstanbul", "i\u{307}stanbul", "Istanbul", "istanbul"),
            ("ı", "ı", "ı", "ı"),
            ("ﬁne", "fine", "ﬁne", "fine"),
            ("\u{212A}", "k", "K", "k"),              // Kelvin sign
            ("\u{212B}", "å", "A", "a"),              // Angstrom sign
            ("が", "が", "か", "か"),
            ("ᾳ", "αι", "α", "α"),
            ("\u{13A0}", "\u{13A0}", "\u{13A0}", "\u{13A0}"),  // Cherokee folds to capitals
            ("\u{AB70}", "\u{13A0}", "\u{AB70}", "\u{13A0}"),
            ("\u{301}", "\u{301}", "", ""),           // a lone combining mark
            ("a\0B", "a\0b", "a\0B", "a\0b"),
            ("👩‍👩‍👧 🇫🇷", "👩‍👩‍👧 🇫🇷", "👩‍👩‍👧 🇫🇷", "👩‍👩‍👧 🇫🇷"),
            ("ÆØÅ", "æøå", "ÆØA", "æøa"),
            // Hindi: the virama (U+094D) is Mn and goes; the vowel signs ि and ी are Mc and stay.
            ("\u{939}\u{93F}\u{928}\u{94D}\u{926}\u{940}", "\u{939}\u{93F}\u{928}\u{94D}\u{926}\u{940}",
             "\u{939}\u{93F}\u{928}\u{926}\u{940}", "\u{939}\u{93F}\u{928}\u{926}\u{940}"),
        ]
        for (input, caseFolded, diacriticFolded, both) in table {
            XCTAssertEqual(scalars(c(input)), nfd(caseFolded), "[c] \(input)")
            XCTAssertEqual(scalars(d(input)), nfd(diacriticFolded), "[d] \(input)")
            XCTAssertEqual(scalars(cd(input)), nfd(both), "[cd] \(input)")
        }
    }

    func testNoOptionsLeavesTheTextAlone() {
        let text = "Cafe\u{301} ẞ"
        XCTAssertEqual(scalars(TextFolding.fold(text, caseInsensitive: false, diacriticInsensitive: false)), scalars(text))
    }

    func testComparisonsTheSpecNames() {
        XCTAssertEqual(c("Straße"), c("STRASSE"))
        XCTAssertEqual(c("ǅ"), c("ǆ"))
        XCTAssertEqual(c("ΌΣΟΣ"), c("όσος"))
        XCTAssertTrue(cd("Müller").contains(cd("muller")))
        XCTAssertNotEqual(cd("Ørsted"), cd("Orsted"))
        XCTAssertNotEqual(c("café"), c("cafe"))
        XCTAssertEqual(c("é"), c("e\u{301}"))
    }

    func testFoldedTextIsDecomposed() {
        for text in ["Åström", "Ὀδυσσεύς", "Ǆemal", "ḱṓ", "\u{1E9B}\u{323}", "한국어"] {
            for folded in [c(text), d(text), cd(text)] {
                XCTAssertEqual(scalars(folded), nfd(folded), text)
            }
        }
    }

    /// The text is decomposed in pieces (Foundation's NFD is quadratic in the length on Linux): generated texts of
    /// starters, combining marks in every order, Hangul, emoji with modifiers and CR LF, cut into pieces of every small
    /// size, decompose to exactly the scalars of the whole text decomposed at once.
    func testDecomposingInPiecesGivesTheWholeTextsDecomposition() {
        let parts = ["a", "e\u{301}", "\u{1E9B}\u{323}", "q\u{307}\u{323}", "\u{323}", "Å", "ǆ", "한", "\u{1100}\u{1161}", "👩🏽‍💻",
                     "\r\n", "\u{F73}", "\u{344}", "ß", " ", "ḱṓ", "\u{301}\u{301}\u{316}"]
        var random = SeededGenerator(seed: 20261126)
        for round in 0..<300 {
            let text = (0..<Int.random(in: 0...40, using: &random)).map { _ in parts.randomElement(using: &random)! }.joined()
            let whole = Array(text.decomposedStringWithCanonicalMapping.unicodeScalars)
            for size in [1, 2, 3, 5, 8, 1024] {
                XCTAssertEqual(Array(TextFolding.decomposedPieces(text, pieceBytes: size).joined().unicodeScalars), whole,
                               "round \(round), pieces of \(size) bytes: \(text.debugDescription)")
            }
        }
    }

    /// Over every cased scalar: folding is idempotent, and a scalar, its
    /// uppercase and its lowercase all fold alike.
    func testCaseFoldingInvariantsOverAllCasedScalars() {
        var checked = 0
        for value in 0..<0x20000 {
            guard let scalar = Unicode.Scalar(value), scalar.properties.changesWhenCaseMapped else { continue }
            // Dotless ı uppercases to I, but folds to itself (only Turkic tailoring folds I to ı).
            if value == 0x131 { continue }
            let text = String(scalar)
            let folded = c(text)
            XCTAssertEqual(c(folded), folded, "idempotent U+\(String(value, radix: 16))")
            XCTAssertEqual(scalars(c(scalar.properties.uppercaseMapping)), scalars(folded), "upper U+\(String(value, radix: 16))")
            XCTAssertEqual(scalars(c(scalar.properties.lowercaseMapping)), scalars(folded), "lower U+\(String(value, radix: 16))")
            checked += 1
        }
        XCTAssertGreaterThan(checked, 2500)
    }

    func testASCIIFastPathAgreesWithTheFullPath() {
        // A non-ASCII character forces the full path for the whole string.
        let ascii = (0..<128).map { String(UnicodeScalar(UInt8($0))) }.joined()
        XCTAssertEqual(c(ascii + "é"), c(ascii) + c("é"))
        XCTAssertEqual(d(ascii + "é"), d(ascii) + d("é"))
        XCTAssertEqual(cd(ascii + "é"), cd(ascii) + "e")
    }

    /// Folding runs on every row a [c] or [d] comparison meets, so its cost must grow with the text and no faster:
    /// twice the text (of mixed ASCII, accents and ß) takes at most 2.4 × the time (a doubling ratio, not a limit
    /// in seconds, which a slow machine could fail). It found Foundation's NFD quadratic on Linux: 2.7 × here, and
    /// 0.8 s for a 1 MB text.
    func testFoldingIsLinearInTheText() {
        let unit = "Invoice 12 — Müller GmbH, Straße 97; "
        var total = 0
        let doubling = doublingRatio(size: 4_000) { n in
            let text = String(repeating: unit, count: n)
            for _ in 0..<4 { total &+= cd(text).utf8.count }
        }
        XCTAssertGreaterThan(total, 0)
        print("folding: \(doubling.small) s, then \(doubling.large) s for twice the text: ratio \(doubling.ratio)")
        XCTAssertLessThanOrEqual(doubling.ratio, 2.4,
                                 "folding \(4_000 * unit.count) characters took \(doubling.small) s, twice as many \(doubling.large) s")
    }
}
