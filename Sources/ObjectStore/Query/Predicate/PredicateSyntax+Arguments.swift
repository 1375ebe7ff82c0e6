// Filling `%@` and `%K` placeholders with command-line arguments (`--arg VALUE`),
// in order: the first argument fills placeholder 1, and so on.

/// A `%@` or `%K` argument: text typed by what it is compared with (a command line's), or a typed value.
package enum PredicateArgument: Sendable, Hashable {
    case text(String)
    case value(Value)
}

extension PredicateSyntax {
    /// Replaces the placeholders with `arguments`, in order.
    ///
    /// - `%K`: the argument is parsed as a key path (`customer.name`,
    ///   `rows.@sum.sum`); an argument that is not one is an error at the `%K`.
    /// - `%@`: the argument becomes `.commandLineValue`, a string whose type the
    ///   binder decides from the other side of the comparison.
    ///
    /// Bound nodes take the placeholder's source range. Too few or too many
    /// arguments is an error that names both counts.
    package mutating func bind(arguments: [String]) throws(PredicateSyntaxError) {
        self = try binding(arguments: arguments.map { .text($0) })
    }

    /// The predicate with its placeholders replaced by text arguments; see `bind(arguments:)`.
    package func binding(arguments: [String]) throws(PredicateSyntaxError) -> PredicateSyntax {
        try binding(arguments: arguments.map { .text($0) })
    }

    /// The predicate with its placeholders replaced; see `bind(arguments:)`. A typed `%@` argument becomes
    /// `.argumentValue`, which the binder checks against the other side's type; a `%K` one must be a string.
    package func binding(arguments: [PredicateArgument]) throws(PredicateSyntaxError) -> PredicateSyntax {
        let placeholders = self.placeholders
        try checkCount(placeholders: placeholders, arguments: arguments.count)
        let source = self.source
        let bound = try root.rewritingOperands { (operand) throws(PredicateSyntaxError) -> PredicateOperand? in
            switch operand {
            case .valuePlaceholder(let ordinal, let range):
                switch arguments[ordinal - 1] {
                case .text(let text): return .commandLineValue(text, ordinal: ordinal, range)
                case .value(let value): return .argumentValue(value, ordinal: ordinal, range)
                }
            case .keyPathPlaceholder(let ordinal, let range):
                let text: String
                switch arguments[ordinal - 1] {
                case .text(let t), .value(.string(let t)): text = t
                case .value(let value):
                    throw PredicateSyntaxError(
                        "argument \(ordinal) for %K is not a key path: it is \(value.kindPhrase)",
                        hint: "a %K argument is a key path given as a string, as in .string(\"customer.name\")",
                        at: range.start, in: source)
                }
                let path = try Self.keyPath(argument: text, ordinal: ordinal, at: range, in: source)
                return .keyPath(path)
            default:
                return nil
            }
        }
        return PredicateSyntax(root: bound, source: source)
    }

    private func checkCount(placeholders: [PredicateOperand], arguments: Int) throws(PredicateSyntaxError) {
        let count = placeholders.count
        guard arguments != count else { return }
        let has = count == 1 ? "1 placeholder" : "\(count) placeholders"
        let given = switch arguments {
        case 0: "no arguments were given"
        case 1: "1 argument was given"
        default: "\(arguments) arguments were given"
        }
        let message = "the predicate has \(has) (%@ or %K) but \(given)"
        if arguments < count {
            // Point at the first placeholder left without an argument.
            throw PredicateSyntaxError(
                message, hint: "give one argument per placeholder, in order",
                at: placeholders[arguments].range.start, in: source)
        }
        let hint = count == 0
            ? "remove the arguments, or put %@ (a value) or %K (a key path) where they belong"
            : "give one argument per placeholder, in order"
        let position = placeholders.last?.range.start ?? .start
        throw PredicateSyntaxError(message, hint: hint, at: position, in: source)
    }

    private static func keyPath(
        argument: String, ordinal: Int, at range: SourceRange, in source: PredicateSourceText
    ) throws(PredicateSyntaxError) -> PredicateKeyPath {
        let argumentSource = PredicateSourceText(argument, origin: PredicateSourceOrigin(name: "argument \(ordinal)"))
        let path: PredicateKeyPath
        do {
            path = try PredicateParser.parseKeyPath(argumentSource)
        } catch {
            throw PredicateSyntaxError(
                "argument \(ordinal) for %K is not a key path: \(quoted(argument))",
                hint: error.message, at: range.start, in: source)
        }
        if case .subquery = path.root {
            throw PredicateSyntaxError(
                "argument \(ordinal) for %K is not a key path: \(quoted(argument))",
                hint: "a %K argument is keys and collection operators joined by dots, as in customer.name",
                at: range.start, in: source)
        }
        // The argument's own positions mean nothing in the predicate: use the placeholder's.
        return path.mappingRanges { _ in range }
    }

    private static func quoted(_ argument: String) -> String {
        PredicatePrinter.quote(argument)
    }
}
