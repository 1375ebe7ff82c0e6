/// A predicate that reads well but does not fit the model: an unknown key, a wrong type, an unquantified
/// to-many key path. Rendered like a syntax error: `where:1:1: unknown key "nmae" on Customer — did you mean "name"?`
package struct PredicateBindingError: Error, Hashable, Sendable, PredicateSourceError {
    package let message: String
    package let hint: String?
    package let position: SourcePosition
    package let source: PredicateSourceText
    /// The `$NAME` whose value (from `--param`, a report's parameter) is wrong, when that is what is wrong: the
    /// predicate is then as its author meant it, and the value is the mistake.
    package internal(set) var variable: String?

    package init(_ message: String, hint: String? = nil, at position: SourcePosition, in source: PredicateSourceText) {
        self.message = message
        self.hint = hint
        self.position = position
        self.source = source
    }

}

extension PredicateBindingError: CategorizedError {
    package var category: ErrorCategory { .usage }
}

extension PredicateSyntaxError: CategorizedError {
    package var category: ErrorCategory { .usage }
}
