// Errors of the lexer, the parser and argument binding: a message that says
// what was expected and what was found, the place, and where possible a
// remedy ("did you mean BEGINSWITH?").

/// A predicate that cannot be read.
///
/// `description` is the one-line form,
///
///     where:1:6: expected a value after "==", found end of input
///
/// and `diagnostic` adds the predicate's line with a caret under the place,
/// then the hint if there is one:
///
///     where:1:6: expected a value after "==", found end of input
///       name ==
///            ^
///
/// An error found at end of input points at the last token, the one that
/// wanted something after it; an unterminated string points at its opening quote.
package struct PredicateSyntaxError: Error, Hashable, Sendable, PredicateSourceError {
    /// What was expected and what was found, without the place.
    package let message: String
    /// A remedy, e.g. `did you mean BEGINSWITH?`; nil when there is none to offer.
    package let hint: String?
    /// The place in the predicate text.
    package let position: SourcePosition
    /// The predicate text and where it comes from.
    package let source: PredicateSourceText

    package init(_ message: String, hint: String? = nil, at position: SourcePosition, in source: PredicateSourceText) {
        self.message = message
        self.hint = hint
        self.position = position
        self.source = source
    }

}

/// What the errors about a predicate's text share (`PredicateSyntaxError`, `PredicateBindingError`): a message,
/// perhaps a remedy, and the place, rendered in one line or with the predicate's line and a caret.
package protocol PredicateSourceError: CustomStringConvertible {
    var message: String { get }
    var hint: String? { get }
    var position: SourcePosition { get }
    var source: PredicateSourceText { get }
}

extension PredicateSourceError {
    /// The source name given by the caller: `where`, `Reports/x.yaml`.
    package var sourceName: String { source.origin.name }
    /// The 1-based line in the named source.
    package var line: Int { source.location(of: position).line }
    /// The 1-based column in the named source.
    package var column: Int { source.location(of: position).column }

    /// `where:1:6: message; hint`
    package var description: String {
        source.renderOneLine(message: message, hint: hint, at: position)
    }

    /// The one-line form without the hint, the predicate line with a caret, then the hint.
    package var diagnostic: String {
        source.renderWithSource(message: message, hint: hint, at: position)
    }
}

/// Near-miss suggestions for words the parser did not expect.
package enum PredicateSuggestions {
    /// Words people bring from SQL and other languages, with what to write here.
    private static let aliases: [String: String] = [
        "STARTSWITH": "BEGINSWITH", "HASPREFIX": "BEGINSWITH", "PREFIX": "BEGINSWITH",
        "HASSUFFIX": "ENDSWITH", "SUFFIX": "ENDSWITH",
        "INCLUDES": "CONTAINS", "HAS": "CONTAINS",
        "ILIKE": "LIKE[c]",
        "REGEX": "MATCHES", "REGEXP": "MATCHES", "RLIKE": "MATCHES",
        "IS": "==", "EQ": "==", "EQUALS": "==", "NE": "!=", "NEQ": "!=",
        "LT": "<", "LE": "<=", "LTE": "<=", "GT": ">", "GE": ">=", "GTE": ">=",
    ]

    /// `did you mean X?` for `word` among `candidates`, by the alias table or by
    /// edit distance (case-insensitive; at most 1 edit for words up to 4
    /// letters, 2 for longer ones); nil when nothing is close.
    /// `limit` overrides the number of edits allowed.
    package static func didYouMean(_ word: String, among candidates: [String], limit: Int? = nil) -> String? {
        guard let match = closest(to: word, among: candidates, limit: limit) else { return nil }
        return "did you mean \(match)?"
    }

    package static func closest(to word: String, among candidates: [String], limit: Int? = nil) -> String? {
        let upper = word.uppercased()
        if let alias = aliases[upper], candidates.contains(where: { alias.hasPrefix($0) }) { return alias }
        let limit = limit ?? (upper.count <= 4 ? 1 : 2)
        var best: (candidate: String, distance: Int)?
        // Symbols ("<", "==") are reached through aliases only: any one-letter
        // word is one edit away from "<".
        for candidate in candidates where candidate.first?.isLetter == true || candidate.first == "@" {
            let distance = editDistance(upper, candidate.uppercased())
            if distance <= limit, distance < (best?.distance ?? .max) {
                best = (candidate, distance)
            }
        }
        return best?.candidate
    }

    /// Optimal string alignment distance (`Suggestions.distance`, shared with the model's did-you-means).
    package static func editDistance(_ a: String, _ b: String) -> Int {
        Suggestions.distance(a, b)
    }
}
