/// A predicate that reads well but does not fit the model: an unknown key, a wrong type, an unquantified
/// to-many key path. Rendered like a syntax error: `where:1:1: unknown key "nmae" on Customer — did you mean "name"?`
package struct PredicateBindingError: Error, Hashable, Sendable, PredicateSourceError {
    package private(set) var message: String
    package private(set) var hint: String?
    package let position: SourcePosition
    package let source: PredicateSourceText
    /// The `$NAME` whose value (from `--param`, a report's parameter) is wrong, when that is what is wrong: the
    /// predicate is then as its author meant it, and the value is the mistake.
    package internal(set) var variable: String?
    /// What the message and hint are about when a front end words them (it names its own options): nil for the others.
    package internal(set) var fact: Fact?

    /// The mistakes whose remedy is the caller's to give, not the predicate's author's.
    package enum Fact: Equatable, Hashable, Sendable {
        /// `$name` has no value.
        case unknownVariable(name: String)
        /// Placeholder `number` (1-based) has no argument.
        case missingArgument(number: Int)
        /// Arguments were given, but no predicate has a placeholder.
        case argumentsWithoutPlaceholders
    }

    package init(_ message: String, hint: String? = nil, at position: SourcePosition, in source: PredicateSourceText) {
        self.message = message
        self.hint = hint
        self.position = position
        self.source = source
    }

    /// The error with its message and hint in a front end's words (the place and source stay).
    package func worded(message: String? = nil, hint: String?) -> PredicateBindingError {
        var worded = self
        worded.message = message ?? self.message
        worded.hint = hint
        return worded
    }

}

extension PredicateBindingError: CategorizedError {
    package var category: ErrorCategory { .usage }
}

extension PredicateSyntaxError: CategorizedError {
    package var category: ErrorCategory { .usage }
}
