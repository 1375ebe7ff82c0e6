// MATCHES: whole-string regular expression matching with Foundation's
// NSRegularExpression (ICU syntax, on Linux as on Apple platforms), with a
// small cache of compiled patterns.
import Foundation

/// A pattern that is not a regular expression.
package struct TextRegexError: Error, Hashable, Sendable, CustomStringConvertible {
    package let pattern: String
    /// Why, when it can be told: `expected ')'`.
    package let reason: String
    /// Set when the pattern is sound but the engine gave up on a value of this many characters.
    package var textLength: Int? = nil

    package var description: String {
        if let textLength {
            return "MATCHES \(pattern.debugDescription) could not finish on a value of \(textLength) characters: \(reason)"
        }
        return "invalid regular expression \(pattern.debugDescription): \(reason)"
    }

    /// The prefix of every description, for recognising the error in SQLite's message for a failed statement.
    package static func isDescription(_ message: String) -> Bool {
        message.hasPrefix("MATCHES \"") || message.hasPrefix("invalid regular expression \"")
    }
}

package enum TextRegex {
    /// Whether the whole of `text` matches `pattern` (like ICU's `matches()`
    /// and NSPredicate's MATCHES): `"abc" MATCHES "b"` is false, `"abc" MATCHES ".*b.*"`
    /// is true, `"ab" MATCHES "a|ab"` is true.
    ///
    /// - `caseInsensitive` (`[c]`) compiles the pattern case-insensitively: ICU
    ///   matches a run of literal characters by full case folding ("ß" matches
    ///   "SS", "ﬁ" matches "fi", both ways), but a bracket class or a quantified
    ///   character of a single folding by simple case folding (`[ß]` does not
    ///   match "ss", `s*` does not match "ß").
    /// - `diacriticInsensitive` (`[d]`) removes combining marks from text and
    ///   pattern alike before matching (see `TextFolding`); metacharacters are
    ///   ASCII and unaffected.
    ///
    /// `.` matches one Unicode scalar (ICU), not one grapheme cluster.
    /// An invalid pattern throws `TextRegexError`, never traps.
    package static func matches(
        _ text: String, pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) throws(TextRegexError) -> Bool {
        let text = diacriticInsensitive ? TextFolding.fold(text, caseInsensitive: false, diacriticInsensitive: true) : text
        let pattern = diacriticInsensitive ? TextFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
        let regex = try cache.regex(for: pattern, caseInsensitive: caseInsensitive)
        // firstMatch answers nil both for "no match" and for an engine failure (ICU's backtracking stack, 8 MB,
        // runs out on patterns such as (a|b)* over long text); the completion flags tell them apart.
        var matched = false
        var failed = false
        regex.enumerateMatches(in: text, options: [.reportCompletion], range: NSRange(text.startIndex..., in: text)) { match, flags, stop in
            if match != nil {
                matched = true
                stop.pointee = true
            }
            if flags.contains(.internalError) { failed = true }
        }
        if failed && !matched {
            throw TextRegexError(pattern: pattern, reason: "the regular expression engine reached its backtracking limit (ICU, 8 MB) "
                                 + "— simplify the pattern, e.g. [ab]* rather than (a|b)*", textLength: text.count)
        }
        return matched
    }

    /// Checks a pattern without matching anything: for the binder, to report a
    /// bad literal pattern before the query runs.
    package static func validate(_ pattern: String, caseInsensitive: Bool = false) throws(TextRegexError) {
        _ = try cache.regex(for: pattern, caseInsensitive: caseInsensitive)
    }

    private static let cache = RegexCache(capacity: 64)

    /// Compiles `pattern` as written (so it is checked as given), then anchored
    /// to the whole text as `\A(?:pattern)\z`. When that wrapping does not
    /// compile although the pattern did, the pattern ended inside a `\Q…`
    /// quote or an `(?x)` `#` comment, which ate the wrapping's end: it is
    /// closed with `\E`, or with a line break (white space in `(?x)` mode).
    fileprivate static func compile(_ pattern: String, caseInsensitive: Bool) -> Result<NSRegularExpression, TextRegexError> {
        let options: NSRegularExpression.Options = caseInsensitive ? [.caseInsensitive] : []
        // NSRegularExpression rejects the empty pattern, which matches the empty text.
        if !pattern.isEmpty {
            do {
                _ = try NSRegularExpression(pattern: pattern, options: options)
            } catch {
                return .failure(TextRegexError(pattern: pattern, reason: reason(for: pattern)))
            }
        }
        for closing in ["", "\\E", "\n"] {
            if let regex = try? NSRegularExpression(pattern: "\\A(?:" + pattern + closing + ")\\z", options: options) {
                return .success(regex)
            }
        }
        return .failure(TextRegexError(pattern: pattern, reason: "cannot be anchored to the whole text"))
    }

    /// NSRegularExpression does not say what is wrong; Swift's own regex
    /// parser, whose syntax is close to ICU's, usually can.
    private static func reason(for pattern: String) -> String {
        do {
            _ = try Regex(pattern)
        } catch {
            return String(describing: error)
        }
        return "not accepted by the regular expression engine (ICU syntax)"
    }
}

/// Compiled patterns by (pattern, options), failures included, so a bad
/// pattern costs one compilation per query rather than one per row. When
/// full, it is emptied: patterns in one query are few.
private final class RegexCache: @unchecked Sendable {
    /// By the pattern's UTF-8, not the String: Swift's String equality is canonical equivalence, under which the
    /// Kelvin sign equals "K" and "é" its decomposed form, and the cache handed one's regex out for the other
    /// (`"K" MATCHES "K"` was false after a MATCHES with the Kelvin sign).
    private struct Key: Hashable {
        let pattern: [UInt8]
        let caseInsensitive: Bool
    }

    private let lock = NSLock()
    private var entries: [Key: Result<NSRegularExpression, TextRegexError>] = [:]
    private let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func regex(for pattern: String, caseInsensitive: Bool) throws(TextRegexError) -> NSRegularExpression {
        let key = Key(pattern: Array(pattern.utf8), caseInsensitive: caseInsensitive)
        lock.lock()
        let cached = entries[key]
        lock.unlock()
        let result = cached ?? TextRegex.compile(pattern, caseInsensitive: caseInsensitive)
        if cached == nil {
            lock.lock()
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = result
            lock.unlock()
        }
        return try result.get()
    }
}
