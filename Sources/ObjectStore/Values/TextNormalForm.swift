// Keys compared in one Unicode normal form (NFC), while the text is stored as given.
//
// Why: "Café" typed on macOS arrives decomposed (e + U+0301) and looks exactly like the precomposed one, but
// SQLite's indexes and the batch's byte-keyed caches compare bytes, so a second, visually identical customer was
// made. Swift's String `==` already compares canonically equivalent strings as equal; bytes do not, so every
// key look-up that goes by bytes asks this type for the NFC form on a miss.
import Foundation

package enum TextNormalForm {
    /// `text` in NFC (canonical composition). Text that is surely NFC already (see `isSurelyNFC`) is returned as
    /// it is, without asking Foundation (about 2.5 µs a short key on Linux).
    package static func nfc(_ text: String) -> String {
        if isSurelyNFC(text) { return text }
        return composedPieces(text)
    }

    /// Whether `a` and `b` are the same text after NFC.
    package static func equivalent(_ a: String, _ b: String) -> Bool {
        nfc(a).utf8.elementsEqual(nfc(b).utf8)
    }

    /// Whether `a` and `b` have the same bytes (String's `==` compares canonical equivalence instead).
    package static func sameBytes(_ a: String, _ b: String) -> Bool {
        a.utf8.elementsEqual(b.utf8)
    }

    /// Whether `text` is in NFC because every scalar is a starter that nothing composes with: below U+0300
    /// (ASCII, Latin-1, Latin Extended-A and -B, IPA, spacing modifiers), Cyrillic letters (U+0400–U+0482,
    /// U+048A–U+052F), CJK unified ideographs (U+4E00–U+9FFF) and Hangul syllables (U+AC00–U+D7A3).
    /// DerivedNormalizationProps.txt gives none of them NFC_Quick_Check No or Maybe, and all have combining class
    /// 0, so no reordering or composition can touch them (TextNormalFormTests checks each). Any other scalar (a
    /// combining mark, a Hangul jamo) sends the text to Foundation.
    package static func isSurelyNFC(_ text: String) -> Bool {
        if TextFolding.isASCII(text) { return true }
        for s in text.unicodeScalars {
            let v = s.value
            if v < 0x300 || (0x400...0x482).contains(v) || (0x48A...0x52F).contains(v) || (0x4E00...0x9FFF).contains(v)
                || (0xAC00...0xD7A3).contains(v) {
                continue
            }
            return false
        }
        return true
    }

    /// The NFC form, composed in pieces cut at grapheme-cluster boundaries: Foundation's
    /// `precomposedStringWithCanonicalMapping` takes time quadratic in the length on Linux (0.35 s for 160 KB of
    /// "é" decomposed, 4 × per doubling), as its decomposition does (see `TextFolding.decomposedPieces`).
    /// Composition never crosses a cluster boundary: a mark, a vowel sign that composes (Other_Grapheme_Extend)
    /// and a Hangul vowel or trailing jamo all extend the cluster before them.
    static func composedPieces(_ text: String, pieceBytes: Int = 1024) -> String {
        if text.utf8.count <= pieceBytes { return text.precomposedStringWithCanonicalMapping }
        var result = ""
        var start = text.startIndex, index = text.startIndex, size = 0
        while index < text.endIndex {
            let next = text.index(after: index)
            size += text.utf8.distance(from: index, to: next)
            index = next
            if size >= pieceBytes {
                result += String(text[start..<index]).precomposedStringWithCanonicalMapping
                (start, size) = (index, 0)
            }
        }
        if start < text.endIndex { result += String(text[start...]).precomposedStringWithCanonicalMapping }
        return result
    }
}
