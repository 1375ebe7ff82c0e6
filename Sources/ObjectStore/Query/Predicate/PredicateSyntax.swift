// The package face of the syntax stage: parse predicate text, fill its
// placeholders from the command line, print it back.

/// A parsed predicate: its syntax tree and the text it was read from.
///
///     let where = try PredicateSyntax(parsing: "total > %@ AND customer.name BEGINSWITH[c] 'a'",
///                                     origin: PredicateSourceOrigin(name: "where"))
///     let bound = try where.binding(arguments: ["100"])
///     print(bound)   // total > "100" AND customer.name BEGINSWITH[c] "a"
///
/// The tree (`root`) is untyped: key paths are not yet checked against a
/// model. The binder resolves them and reports its errors against `source`.
package struct PredicateSyntax: Sendable, CustomStringConvertible {
    package var root: PredicateNode
    /// The text and origin the tree was parsed from; its ranges point into it.
    package let source: PredicateSourceText

    /// Parses `text`; errors name `origin` (`where:1:6: …`).
    package init(parsing text: String, origin: PredicateSourceOrigin = PredicateSourceOrigin(name: "predicate"))
        throws(PredicateSyntaxError)
    {
        let source = PredicateSourceText(text, origin: origin)
        self.root = try PredicateParser.parse(source)
        self.source = source
    }

    package init(root: PredicateNode, source: PredicateSourceText) {
        self.root = root
        self.source = source
    }

    /// The number of `%@` and `%K` placeholders, which is the number of
    /// arguments `bind(arguments:)` takes.
    package var placeholderCount: Int { placeholders.count }

    /// The `%@` and `%K` placeholders in ordinal order.
    package var placeholders: [PredicateOperand] {
        var found: [PredicateOperand] = []
        root.forEachOperand { operand in
            switch operand {
            case .valuePlaceholder, .keyPathPlaceholder: found.append(operand)
            default: break
            }
        }
        return found.sorted { Self.ordinal(of: $0) < Self.ordinal(of: $1) }
    }

    private static func ordinal(of placeholder: PredicateOperand) -> Int {
        switch placeholder {
        case .valuePlaceholder(let ordinal, _), .keyPathPlaceholder(let ordinal, _): return ordinal
        default: return 0
        }
    }

    /// The canonical text of the predicate (see `PredicatePrinter`).
    package var description: String { PredicatePrinter.text(of: root) }
}
