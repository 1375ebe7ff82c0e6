// Walking and rewriting syntax trees: used by argument binding, by range
// erasure (to compare trees by shape), and available to later stages.

extension PredicateNode {
    /// Calls `visit` on every operand of the tree, outer before inner,
    /// left to right in source order (the order placeholders are numbered in).
    package func forEachOperand(_ visit: (PredicateOperand) -> Void) {
        switch self {
        case .constant:
            break
        case .not(let operand, _):
            operand.forEachOperand(visit)
        case .and(let left, let right, _), .or(let left, let right, _):
            left.forEachOperand(visit)
            right.forEachOperand(visit)
        case .comparison(let comparison):
            comparison.left.forEachOperand(visit)
            comparison.right.forEachOperand(visit)
        }
    }

    /// The tree with every operand replaced by `transform`'s answer; where it
    /// answers nil, the operand is kept and its parts are rewritten in turn.
    package func rewritingOperands<E: Error>(
        _ transform: (PredicateOperand) throws(E) -> PredicateOperand?
    ) throws(E) -> PredicateNode {
        switch self {
        case .constant:
            return self
        case .not(let operand, let range):
            return .not(try operand.rewritingOperands(transform), range)
        case .and(let left, let right, let range):
            return .and(try left.rewritingOperands(transform), try right.rewritingOperands(transform), range)
        case .or(let left, let right, let range):
            return .or(try left.rewritingOperands(transform), try right.rewritingOperands(transform), range)
        case .comparison(var comparison):
            comparison.left = try comparison.left.rewritingOperands(transform)
            comparison.right = try comparison.right.rewritingOperands(transform)
            return .comparison(comparison)
        }
    }

    /// The tree with every range replaced by `transform(range)`.
    package func mappingRanges(_ transform: (SourceRange) -> SourceRange) -> PredicateNode {
        switch self {
        case .constant(let value, let range):
            return .constant(value, transform(range))
        case .not(let operand, let range):
            return .not(operand.mappingRanges(transform), transform(range))
        case .and(let left, let right, let range):
            return .and(left.mappingRanges(transform), right.mappingRanges(transform), transform(range))
        case .or(let left, let right, let range):
            return .or(left.mappingRanges(transform), right.mappingRanges(transform), transform(range))
        case .comparison(var comparison):
            comparison.left = comparison.left.mappingRanges(transform)
            comparison.right = comparison.right.mappingRanges(transform)
            comparison.operatorRange = transform(comparison.operatorRange)
            comparison.range = transform(comparison.range)
            return .comparison(comparison)
        }
    }

    /// The same tree with every range `.synthetic`: two trees that differ only
    /// in where they were written compare equal after this.
    package func erasingRanges() -> PredicateNode {
        mappingRanges { _ in .synthetic }
    }
}

extension PredicateOperand {
    /// See `PredicateNode.forEachOperand(_:)`.
    package func forEachOperand(_ visit: (PredicateOperand) -> Void) {
        visit(self)
        switch self {
        case .keyPath(let path):
            if case .subquery(let subquery) = path.root {
                subquery.collection.forEachOperand(visit)
                subquery.predicate.forEachOperand(visit)
            }
        case .aggregate(let elements, _):
            for element in elements { element.forEachOperand(visit) }
        case .string, .number, .boolean, .null, .valuePlaceholder, .keyPathPlaceholder, .commandLineValue, .argumentValue:
            break
        }
    }

    /// See `PredicateNode.rewritingOperands(_:)`.
    package func rewritingOperands<E: Error>(
        _ transform: (PredicateOperand) throws(E) -> PredicateOperand?
    ) throws(E) -> PredicateOperand {
        if let replacement = try transform(self) { return replacement }
        switch self {
        case .keyPath(var path):
            if case .subquery(var subquery) = path.root {
                subquery.collection = try subquery.collection.rewritingOperands(transform)
                subquery.predicate = try subquery.predicate.rewritingOperands(transform)
                path.root = .subquery(subquery)
            }
            return .keyPath(path)
        case .aggregate(let elements, let range):
            var rewritten: [PredicateOperand] = []
            for element in elements { rewritten.append(try element.rewritingOperands(transform)) }
            return .aggregate(rewritten, range)
        case .string, .number, .boolean, .null, .valuePlaceholder, .keyPathPlaceholder, .commandLineValue, .argumentValue:
            return self
        }
    }

    /// See `PredicateNode.mappingRanges(_:)`.
    package func mappingRanges(_ transform: (SourceRange) -> SourceRange) -> PredicateOperand {
        switch self {
        case .keyPath(let path):
            return .keyPath(path.mappingRanges(transform))
        case .string(let value, let range):
            return .string(value, transform(range))
        case .number(let value, let range):
            return .number(value, transform(range))
        case .boolean(let value, let range):
            return .boolean(value, transform(range))
        case .null(let range):
            return .null(transform(range))
        case .aggregate(let elements, let range):
            return .aggregate(elements.map { $0.mappingRanges(transform) }, transform(range))
        case .valuePlaceholder(let ordinal, let range):
            return .valuePlaceholder(ordinal: ordinal, transform(range))
        case .keyPathPlaceholder(let ordinal, let range):
            return .keyPathPlaceholder(ordinal: ordinal, transform(range))
        case .commandLineValue(let value, let ordinal, let range):
            return .commandLineValue(value, ordinal: ordinal, transform(range))
        case .argumentValue(let value, let ordinal, let range):
            return .argumentValue(value, ordinal: ordinal, transform(range))
        }
    }

    /// See `PredicateNode.erasingRanges()`.
    package func erasingRanges() -> PredicateOperand {
        mappingRanges { _ in .synthetic }
    }
}

extension PredicateKeyPath {
    package func mappingRanges(_ transform: (SourceRange) -> SourceRange) -> PredicateKeyPath {
        var path = self
        switch root {
        case .object:
            break
        case .variable(let name, let range):
            path.root = .variable(name, transform(range))
        case .subquery(var subquery):
            subquery.collection = subquery.collection.mappingRanges(transform)
            subquery.predicate = subquery.predicate.mappingRanges(transform)
            subquery.variableRange = transform(subquery.variableRange)
            subquery.range = transform(subquery.range)
            path.root = .subquery(subquery)
        }
        path.components = components.map { PredicateKeyPathComponent($0.kind, range: transform($0.range)) }
        path.range = transform(range)
        return path
    }
}
