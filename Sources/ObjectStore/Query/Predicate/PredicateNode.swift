// The untyped syntax tree of a predicate: what the parser produces and the
// binder consumes. It keeps what was written (key names, the exact text of
// numbers, placeholders) and where it was written (a `SourceRange` on every
// node); it knows nothing of the model or of types.

/// A predicate: something true or false of each object.
package indirect enum PredicateNode: Hashable, Sendable {
    /// `TRUEPREDICATE` (true) or `FALSEPREDICATE` (false).
    case constant(Bool, SourceRange)
    /// `NOT p`, `!p`
    case not(PredicateNode, SourceRange)
    /// `p AND q`, `p && q`. The parser builds a chain as a balanced tree (see `chain`): `a AND b AND c` is
    /// `and(and(a, b), c)`, `a AND b AND c AND d` is `and(and(a, b), and(c, d))`. AND is associative, so
    /// the grouping changes no result, and a chain of n terms nests only about log2(n) deep.
    case and(PredicateNode, PredicateNode, SourceRange)
    /// `p OR q`, `p || q`; a chain is balanced like `and`.
    case or(PredicateNode, PredicateNode, SourceRange)
    /// `[ANY|ALL|NONE] left op[options] right`
    case comparison(PredicateComparison)

    /// Which chain `chain(_:_:)` builds.
    package enum Connective: Sendable { case and, or }

    /// The terms joined by `connective`, as a balanced tree: the first half (rounded up) on the left, the rest
    /// on the right, recursively; one term is itself. The printer relies on this exact shape to write such a
    /// tree back without parentheses.
    package static func chain(_ terms: [PredicateNode], _ connective: Connective) -> PredicateNode {
        precondition(!terms.isEmpty, "a chain has at least one term")
        func build(_ slice: ArraySlice<PredicateNode>) -> PredicateNode {
            if slice.count == 1 { return slice.first! }
            let middle = slice.startIndex + (slice.count + 1) / 2
            let left = build(slice[..<middle]), right = build(slice[middle...])
            let range = left.range.through(right.range)
            return connective == .and ? .and(left, right, range) : .or(left, right, range)
        }
        return build(terms[...])
    }

    package var range: SourceRange {
        switch self {
        case .constant(_, let range), .not(_, let range), .and(_, _, let range), .or(_, _, let range):
            return range
        case .comparison(let comparison):
            return comparison.range
        }
    }
}

/// `ANY rows.sum > 10`: a comparison, with its quantifier and string options.
package struct PredicateComparison: Hashable, Sendable {
    /// `ANY`/`SOME`, `ALL`, `NONE` written before the comparison; nil if none.
    package var quantifier: PredicateQuantifier?
    package var left: PredicateOperand
    package var `operator`: PredicateOperator
    /// `[c]`, `[d]`, `[cd]` written after the operator; empty if none.
    package var options: PredicateStringOptions
    package var right: PredicateOperand
    /// The operator with its options as written, e.g. `==[c]`.
    package var operatorRange: SourceRange
    /// From the quantifier (or the left side) to the end of the right side.
    package var range: SourceRange

    package init(
        quantifier: PredicateQuantifier? = nil,
        left: PredicateOperand,
        operator: PredicateOperator,
        options: PredicateStringOptions = [],
        right: PredicateOperand,
        operatorRange: SourceRange = .synthetic,
        range: SourceRange = .synthetic
    ) {
        self.quantifier = quantifier
        self.left = left
        self.operator = `operator`
        self.options = options
        self.right = right
        self.operatorRange = operatorRange
        self.range = range
    }
}

/// The quantifier in front of a comparison whose left side is a to-many key path.
package enum PredicateQuantifier: String, Hashable, Sendable, CaseIterable {
    /// `ANY` or its synonym `SOME`: at least one element matches.
    case any = "ANY"
    /// `ALL`: every element matches (true for no elements).
    case all = "ALL"
    /// `NONE`: no element matches, the same as `NOT (ANY …)`. (Not named
    /// `none`, which `Optional<PredicateQuantifier>` would shadow.)
    case noneOf = "NONE"
}

/// Comparison operators. Each has one canonical spelling, which the printer writes.
package enum PredicateOperator: String, Hashable, Sendable, CaseIterable {
    case equal = "=="                  // =, ==
    case notEqual = "!="               // !=, <>
    case lessThan = "<"
    case lessThanOrEqual = "<="        // <=, =<
    case greaterThan = ">"
    case greaterThanOrEqual = ">="     // >=, =>
    case between = "BETWEEN"           // x BETWEEN {low, high}
    case `in` = "IN"                   // x IN {a, b}, x IN $list, x IN %@
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"                 // * any run, ? one character
    case matches = "MATCHES"           // whole-string regular expression

    /// The canonical spelling: `==`, `BEGINSWITH`.
    package var spelling: String { rawValue }
}

/// The string comparison options `[c]`, `[d]`, `[cd]`.
package struct PredicateStringOptions: OptionSet, Hashable, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// `c`: full Unicode case folding (`TextFolding`).
    package static let caseInsensitive = PredicateStringOptions(rawValue: 1 << 0)
    /// `d`: canonical decomposition, then combining marks dropped (`TextFolding`).
    package static let diacriticInsensitive = PredicateStringOptions(rawValue: 1 << 1)

    /// `[c]`, `[d]`, `[cd]`, or "" when empty.
    package var spelling: String {
        var letters = ""
        if contains(.caseInsensitive) { letters += "c" }
        if contains(.diacriticInsensitive) { letters += "d" }
        return letters.isEmpty ? "" : "[\(letters)]"
    }
}

/// A value: either side of a comparison, an element of `{…}`, a SUBQUERY collection.
package indirect enum PredicateOperand: Hashable, Sendable {
    /// `name`, `customer.name`, `rows.@sum.sum`, `$r.sum`, `$min`, `SUBQUERY(…).@count`.
    case keyPath(PredicateKeyPath)
    /// `"text"` or `'text'`, escapes resolved.
    case string(String, SourceRange)
    /// `12`, `-1.25`, `007`: the exact source text, never converted to a
    /// floating-point value, so decimals can be compared exactly later.
    case number(PredicateNumberLiteral, SourceRange)
    /// `TRUE`/`YES`, `FALSE`/`NO`
    case boolean(Bool, SourceRange)
    /// `NULL`/`NIL`
    case null(SourceRange)
    /// `{a, b, c}`
    case aggregate([PredicateOperand], SourceRange)
    /// `%@`: the `ordinal`-th placeholder (1-based, counting `%@` and `%K` together
    /// in source order), a value to be supplied by `bind(arguments:)`.
    case valuePlaceholder(ordinal: Int, SourceRange)
    /// `%K`: the `ordinal`-th placeholder, a key path to be supplied by `bind(arguments:)`.
    case keyPathPlaceholder(ordinal: Int, SourceRange)
    /// What `bind(arguments:)` put in place of a `%@`: a string from the command
    /// line whose type the binder decides from the other side of the comparison
    /// (`2024-03-01` is a date against a Date attribute, a string against a
    /// String one). Its range is the placeholder's.
    case commandLineValue(String, ordinal: Int, SourceRange)
    /// What `binding(arguments:)` put in place of a `%@` given a typed value (a library caller's argument): the
    /// binder checks it has the type of the other side. Its range is the placeholder's.
    case argumentValue(Value, ordinal: Int, SourceRange)

    package var range: SourceRange {
        switch self {
        case .keyPath(let path): return path.range
        case .string(_, let range), .number(_, let range), .boolean(_, let range), .null(let range),
             .aggregate(_, let range), .valuePlaceholder(_, let range), .keyPathPlaceholder(_, let range),
             .commandLineValue(_, _, let range), .argumentValue(_, _, let range):
            return range
        }
    }
}

/// The exact text of a number literal: `-?digits(.digits)?`.
package struct PredicateNumberLiteral: Hashable, Sendable, CustomStringConvertible {
    /// As written, sign included: `-1.250`.
    package let text: String

    package init(_ text: String) { self.text = text }

    package var isNegative: Bool { text.hasPrefix("-") }
    /// True when there is no decimal point.
    package var isInteger: Bool { !text.contains(".") }
    package var description: String { text }
}

/// A path through the object graph: a root, then keys and collection operators.
///
/// A variable alone (`$min`) is a key path with a variable root and no components;
/// a bare `SUBQUERY(…)` is one with a subquery root and no components. A path
/// rooted at the evaluated object always has at least one component.
package struct PredicateKeyPath: Hashable, Sendable {
    package indirect enum Root: Hashable, Sendable {
        /// The object the predicate is evaluated on: `name` is `object` + `name`.
        case object
        /// `$name`: a SUBQUERY iteration variable or a variable bound later.
        case variable(String, SourceRange)
        /// `SUBQUERY(collection, $x, predicate)`: the matching elements.
        case subquery(PredicateSubquery)
    }

    package var root: Root
    package var components: [PredicateKeyPathComponent]
    package var range: SourceRange

    package init(root: Root = .object, components: [PredicateKeyPathComponent], range: SourceRange = .synthetic) {
        self.root = root
        self.components = components
        self.range = range
    }

    /// The variable name if this is a variable alone: `$min` gives "min".
    package var bareVariable: String? {
        if case .variable(let name, _) = root, components.isEmpty { return name }
        return nil
    }
}

/// One step of a key path.
package struct PredicateKeyPathComponent: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        /// `name`, or `#name` for a key spelled like a reserved word.
        case key(String)
        /// `@count`, `@sum`, …
        case collectionOperator(PredicateCollectionOperator)
    }

    package var kind: Kind
    package var range: SourceRange

    package init(_ kind: Kind, range: SourceRange = .synthetic) {
        self.kind = kind
        self.range = range
    }

    package static func key(_ name: String, range: SourceRange = .synthetic) -> Self {
        Self(.key(name), range: range)
    }

    package static func collectionOperator(_ op: PredicateCollectionOperator, range: SourceRange = .synthetic) -> Self {
        Self(.collectionOperator(op), range: range)
    }
}

/// Collection operators in key paths: `tags.@count`, `rows.@sum.sum`.
package enum PredicateCollectionOperator: String, Hashable, Sendable, CaseIterable {
    case count
    case sum
    case avg
    case min
    case max

    /// `@count`
    package var spelling: String { "@" + rawValue }
}

/// `SUBQUERY(rows, $r, $r.sum > 100)`: the elements of `collection` for which
/// `predicate` holds, with `$variable` standing for each element.
package struct PredicateSubquery: Hashable, Sendable {
    package var collection: PredicateOperand
    /// The iteration variable's name without `$`.
    package var variable: String
    package var variableRange: SourceRange
    package var predicate: PredicateNode
    /// From `SUBQUERY` to its closing parenthesis.
    package var range: SourceRange

    package init(
        collection: PredicateOperand, variable: String, predicate: PredicateNode,
        variableRange: SourceRange = .synthetic, range: SourceRange = .synthetic
    ) {
        self.collection = collection
        self.variable = variable
        self.variableRange = variableRange
        self.predicate = predicate
        self.range = range
    }
}
