import Foundation
import XCTest
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

    func testFoldingIsFastEnoughForEveryRow() {
        let rows = (0..<20_000).map { "Invoice \($0) — Müller GmbH, Straße \($0 % 97)" }
        let start = Date()
        var total = 0
        for row in rows { total &+= cd(row).utf8.count }
        XCTAssertGreaterThan(total, 0)
        XCTAssertLessThan(Date().timeIntervalSince(start), 5, "20,000 folds")
    }
}
