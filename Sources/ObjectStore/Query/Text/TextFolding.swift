// Case and diacritic folding for the `[c]`, `[d]` and `[cd]` comparison
// options. Pure, deterministic, total: fit to back SQLite functions.
import Foundation

/// Folds strings so that comparing folded strings for equality (or with
/// BEGINSWITH, CONTAINS, LIKE…) ignores case, diacritics, or both.
///
/// What each option does, in order:
///
/// 1. Canonical decomposition (NFD): "é" becomes "e" + U+0301, "Å" (U+212B)
///    becomes "A" + U+030A. Both sides of a comparison end up in one form, so
///    folded strings can be compared byte for byte (in SQL too).
/// 2. `[d]` drops every combining mark that takes no space of its own
///    (general categories Mn and Me): "Müller" → "Muller", "café" → "cafe",
///    "が" → "か" (the voicing mark is a combining mark). Letters that are not
///    composed of a base and a mark stay: "Ø", "Ł", "ß", "Æ", "đ" are letters
///    of their own, as in Apple's diacritic-insensitive comparison. Spacing
///    marks (Mc, such as Indic vowel signs) stay: they are vowels, not accents.
/// 3. `[c]` applies full Unicode case folding (CaseFolding.txt, statuses C and
///    F): "Straße" and "STRASSE" both fold to "strasse", "ẞ" to "ss", "ǅ" and
///    "Ǆ" to "ǆ", final "ς" and "Σ" to "σ", "ﬁ" to "fi", the Kelvin sign to "k".
///    It is not locale-specific: "I" folds to "i", never to dotless "ı".
///
/// Strings made only of ASCII take a fast path (`[c]` lowercases A–Z, `[d]`
/// changes nothing), with the same result the full path gives.
///
/// The case mapping comes from the Swift standard library's Unicode data (the
/// toolchain's Unicode version); decomposition from Foundation, which on Linux
/// matches Unicode's NormalizationTest.txt. The derivation was checked against
/// CaseFolding.txt 15.0 for every code point: identical on NFD input.
package enum TextFolding {
    /// `text` folded by the given options; the text unchanged when both are false.
    /// Any other result is in NFD (or is ASCII).
    package static func fold(_ text: String, caseInsensitive: Bool, diacriticInsensitive: Bool) -> String {
        guard caseInsensitive || diacriticInsensitive else { return text }
        if isASCII(text) {
            return caseInsensitive ? asciiLowercased(text) : text
        }
        var result = String.UnicodeScalarView()
        for piece in decomposedPieces(text) {
            for scalar in piece.unicodeScalars {
                if diacriticInsensitive, isCombiningMark(scalar) { continue }
                guard caseInsensitive else {
                    result.append(scalar)
                    continue
                }
                if scalar.value < 0x80 {
                    result.append(asciiLowercased(scalar))
                } else if let folded = caseFolded(scalar) {
                    for piece in folded where !(diacriticInsensitive && isCombiningMark(piece)) {
                        result.append(piece)
                    }
                } else {
                    result.append(scalar)
                }
            }
        }
        return String(result)
    }

    /// The canonical decomposition (NFD) of `text`, in pieces of about `pieceBytes` bytes. Foundation's
    /// `decomposedStringWithCanonicalMapping` takes time quadratic in the length on Linux (0.8 s for 1 MB, 4 × per
    /// doubling; a doubling test found it), so the text is cut at grapheme-cluster boundaries and each piece is
    /// decomposed alone. That gives the same scalars: decomposition maps each scalar by itself, and the canonical
    /// reordering of combining marks never crosses a cluster boundary, since a mark always extends its cluster.
    package static func decomposedPieces(_ text: String, pieceBytes: Int = 1024) -> [String] {
        // Most values are one piece: no walk over the clusters for them (folding runs on every row compared).
        if text.utf8.count <= pieceBytes { return [text.decomposedStringWithCanonicalMapping] }
        var pieces: [String] = []
        var start = text.startIndex, index = text.startIndex, size = 0
        while index < text.endIndex {
            let next = text.index(after: index)
            size += text.utf8.distance(from: index, to: next)
            index = next
            if size >= pieceBytes {
                pieces.append(String(text[start..<index]).decomposedStringWithCanonicalMapping)
                (start, size) = (index, 0)
            }
        }
        if start < text.endIndex { pieces.append(String(text[start...]).decomposedStringWithCanonicalMapping) }
        return pieces
    }

    /// Whether every byte of `text` is ASCII.
    package static func isASCII(_ text: String) -> Bool {
        if let answer = text.utf8.withContiguousStorageIfAvailable({ bytes in bytes.allSatisfy { $0 < 0x80 } }) {
            return answer
        }
        return text.utf8.allSatisfy { $0 < 0x80 }
    }

    /// A combining mark that takes no space: general category Mn or Me.
    package static func isCombiningMark(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x300 { return false }
        let category = scalar.properties.generalCategory
        return category == .nonspacingMark || category == .enclosingMark
    }

    // MARK: - Case folding

    /// The full case folding of `scalar` (taken to be in NFD), or nil when it folds to itself.
    static func caseFolded(_ scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
        if scalar.value < foldingTableLimit { return foldings[scalar.value] }
        return computeFolding(scalar)
    }

    /// Every scalar that changes under case folding lies below U+20000 (the
    /// last cased block, Adlam, is at U+1E900); higher ones are computed on demand.
    private static let foldingTableLimit: UInt32 = 0x20000

    /// Built once, on first use (about 1,600 entries).
    private static let foldings: [UInt32: [Unicode.Scalar]] = {
        var table: [UInt32: [Unicode.Scalar]] = [:]
        for value in 0x80..<foldingTableLimit {
            guard let scalar = Unicode.Scalar(value), let folded = computeFolding(scalar) else { continue }
            table[value] = folded
        }
        return table
    }()

    /// Full case folding derived from the standard library's case mappings:
    /// the lowercase of the uppercase, repeated until it is stable (ẞ → ß →
    /// ss), except for Cherokee, whose lowercase letters fold to uppercase.
    private static func computeFolding(_ scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
        let properties = scalar.properties
        guard properties.changesWhenCaseFolded else { return nil }
        var folded = Array(properties.uppercaseMapping.lowercased().unicodeScalars)
        if folded == [scalar] {
            folded = Array(properties.uppercaseMapping.unicodeScalars)
        }
        if folded == [scalar] { return nil }
        var result: [Unicode.Scalar] = []
        for piece in folded {
            if piece != scalar, let again = computeFolding(piece) {
                result.append(contentsOf: again)
            } else {
                result.append(piece)
            }
        }
        return result
    }

    // MARK: - ASCII

    static func asciiLowercased(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
        scalar.value >= 0x41 && scalar.value <= 0x5A ? Unicode.Scalar(scalar.value + 0x20)! : scalar
    }

    static func asciiLowercased(_ byte: UInt8) -> UInt8 {
        byte >= 0x41 && byte <= 0x5A ? byte + 0x20 : byte
    }

    /// `text`, known to be ASCII, with A–Z lowercased.
    static func asciiLowercased(_ text: String) -> String {
        let utf8 = text.utf8
        guard utf8.contains(where: { $0 >= 0x41 && $0 <= 0x5A }) else { return text }
        return String(unsafeUninitializedCapacity: utf8.count) { buffer in
            var count = 0
            for byte in utf8 {
                buffer[count] = asciiLowercased(byte)
                count += 1
            }
            return count
        }
    }
}
