// LIKE: whole-string wildcard matching.

/// `text LIKE pattern`.
///
/// - `*` matches any run of characters, the empty run included;
/// - `?` matches exactly one character — one extended grapheme cluster, what a
///   reader counts as one character: "é" (one scalar or two), "🇫🇷" and
///   "👩‍👩‍👧" are each one `?`; "\r\n" is one `?` too;
/// - everything else matches itself (characters compare by canonical
///   equivalence, as Swift strings do). There is no escape: a literal `*` or
///   `?` cannot be matched by itself, only by a wildcard;
/// - the pattern must match the whole text: `"abc" LIKE "b"` is false, `"abc" LIKE "*b*"` is true.
///
/// The empty pattern matches only the empty text; `*` matches every text.
/// Options are applied by folding text and pattern first; folding can change
/// the number of characters (`ß` folds to `ss`), and `?` counts folded characters.
///
/// Runs in O(text × pattern) at worst, with no recursion and no allocation for ASCII.
package enum TextLikePattern {
    package static func likeMatch(_ text: String, pattern: String) -> Bool {
        // ASCII without "\r" (which forms one character with a following "\n")
        // has one character per byte.
        if isSimpleASCII(text), isSimpleASCII(pattern) {
            let star = UInt8(ascii: "*"), one = UInt8(ascii: "?")
            let answer = text.utf8.withContiguousStorageIfAvailable { textBytes in
                pattern.utf8.withContiguousStorageIfAvailable { patternBytes in
                    match(textBytes, patternBytes, star: star, one: one)
                }
            }
            if let answer = answer ?? nil { return answer }
            return match(Array(text.utf8), Array(pattern.utf8), star: star, one: one)
        }
        return match(Array(text), Array(pattern), star: "*", one: "?")
    }

    /// `likeMatch` after folding both sides for `[c]`, `[d]`, `[cd]`.
    package static func likeMatch(
        _ text: String, pattern: String, caseInsensitive: Bool, diacriticInsensitive: Bool
    ) -> Bool {
        likeMatch(
            TextFolding.fold(text, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive),
            pattern: TextFolding.fold(pattern, caseInsensitive: caseInsensitive, diacriticInsensitive: diacriticInsensitive))
    }

    private static func isSimpleASCII(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 < 0x80 && $0 != 0x0D }
    }

    /// Greedy matching that backtracks to the last `*` only: a later `*` can
    /// stand for anything an earlier one would have had to, so earlier ones
    /// never need revisiting. (Package-visible so that a test can count its reads of `text` and `pattern`.)
    package static func match<C: RandomAccessCollection>(
        _ text: C, _ pattern: C, star: C.Element, one: C.Element
    ) -> Bool where C.Element: Equatable, C.Index == Int {
        let text0 = text.startIndex, pattern0 = pattern.startIndex
        var t = 0, p = 0
        var lastStar = -1, textAtStar = 0
        while t < text.count {
            if p < pattern.count, pattern[pattern0 + p] == star {
                lastStar = p
                textAtStar = t
                p += 1
            } else if p < pattern.count, pattern[pattern0 + p] == one || pattern[pattern0 + p] == text[text0 + t] {
                t += 1
                p += 1
            } else if lastStar >= 0 {
                p = lastStar + 1
                textAtStar += 1
                t = textAtStar
            } else {
                return false
            }
        }
        while p < pattern.count, pattern[pattern0 + p] == star { p += 1 }
        return p == pattern.count
    }
}
