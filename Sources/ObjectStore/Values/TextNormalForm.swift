// Keys compared in one Unicode normal form (NFC), while the text is stored as given.
//
// Why: "Café" typed on macOS arrives decomposed (e + U+0301) and looks exactly like the precomposed one, but
// SQLite's indexes and the batch's byte-keyed caches compare bytes, so a second, visually identical customer was
// made. Swift's String `==` already compares canonically equivalent strings as equal; bytes do not, so every
// key look-up that goes by bytes asks this type for the NFC form on a miss.

package enum TextNormalForm {
    /// `text` in NFC (canonical composition). Text that is surely NFC already (see `isSurelyNFC`) is returned as
    /// it is, without a copy.
    ///
    /// The composition is the standard library's, the one String's `==` and hashing use, so "equal after NFC"
    /// here agrees with `==` everywhere else (a `Value` compared, a key of a Dictionary). Foundation's
    /// `precomposedStringWithCanonicalMapping` was measured instead and left out: on Linux it leaves a Hangul
    /// syllable followed by a trailing consonant jamo (U+AC00 U+11A8) uncomposed, where `==` and Unicode give
    /// U+AC01 (TextNormalFormTests), takes time quadratic in the length (0.35 s for 160 KB), and cost about 6 ×
    /// as much per short key (2.6 µs against 0.4 µs for 200,000 Cyrillic names). `_nfcCodeUnits` is package but
    /// underscored: were it ever taken away, the build fails here, never the comparison silently.
    package static func nfc(_ text: String) -> String {
        isSurelyNFC(text) ? text : composed(text)
    }

    /// `text` in NFC, always by the full composition.
    static func composed(_ text: String) -> String {
        String(decoding: text._nfcCodeUnits, as: UTF8.self)
    }

    /// Unicode's Stream-Safe Text Format (UAX #15): at most 30 non-starters (combining marks) in a row.
    package static let longestMarkRun = 30

    /// Where `text` first has more than `longestMarkRun` non-starters in a row: the run's length and the character
    /// (1-based, in Unicode scalars) it starts at; nil when it has none. The standard library's normalization, which
    /// String's `==`, hashing and `nfc` use, reorders such a run in time quadratic in its length: one value of
    /// `Z` and 80,000 alternating accents (classes 230 and 220) took seconds to import or list, and a predicate
    /// holding it minutes (found by the attack on 0.6.0 before it landed). Real text never needs such a run.
    package static func overlongMarkRun(_ text: String) -> (length: Int, at: Int)? {
        if isSurelyNFC(text) { return nil }
        var run = 0, start = 0, index = 0
        for scalar in text.unicodeScalars {
            index += 1
            if scalar.properties.canonicalCombiningClass.rawValue == 0 {
                if run > longestMarkRun { return (run, start) }
                run = 0
            } else {
                if run == 0 { start = index }
                run += 1
            }
        }
        return run > longestMarkRun ? (run, start) : nil
    }

    /// The reason a text with such a run is refused, for messages.
    package static func overlongMarkRunReason(_ run: (length: Int, at: Int)) -> String {
        "holds \(run.length) combining marks in a row at character \(run.at); at most \(longestMarkRun) are taken (Unicode's "
            + "Stream-Safe Text Format), as longer runs take time quadratic in their length to compare"
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
    /// combining mark, a Hangul jamo) sends the text to the full composition.
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
}

extension Value {
    /// The value with its text in NFC, for comparing keys by bytes (other values as they are).
    var normalizedForKeys: Value {
        if case .string(let text) = self { return .string(TextNormalForm.nfc(text)) }
        return self
    }
}
