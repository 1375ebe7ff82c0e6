// Trees back to text: the canonical predicate text (for `--explain`, and a
// round trip parse → print → parse that gives the same tree), and a
// parenthesised structure dump that shows grouping (for tests and debugging).

/// Renders syntax trees as text.
///
/// The canonical text uses one spelling per construct: `==`, `!=`, `<=`, `>=`,
/// `AND`, `OR`, `NOT`, `ANY` (for `SOME` too), `TRUE`, `FALSE`, `NULL`, keywords
/// in capitals, double-quoted strings, numbers exactly as written, `#` before
/// a first key spelled like a reserved word. Parentheses appear only where the
/// tree needs them (`a AND (b OR c)`, `a OR (b OR c)`), plus around a
/// comparison under `NOT`, which reads better: `NOT (a == 1)`.
///
/// A bound command-line value prints as the string it is (`"2024-03-01"`), so
/// a bound tree's text parses to a string literal there, not to the value node.
package enum PredicatePrinter {
    package static func text(of node: PredicateNode) -> String {
        var output = ""
        write(node, minimumLevel: .or, to: &output)
        return output
    }

    package static func text(of operand: PredicateOperand) -> String {
        var output = ""
        write(operand, to: &output)
        return output
    }

    package static func text(of path: PredicateKeyPath) -> String {
        var output = ""
        write(path, to: &output)
        return output
    }

    // MARK: - Predicates

    /// Binding strength, weakest first: an operand printed where a stronger
    /// level is required gets parentheses.
    private enum Level: Int, Comparable {
        case or, and, not, primary
        static func < (lhs: Level, rhs: Level) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    private static func level(of node: PredicateNode) -> Level {
        switch node {
        case .or: return .or
        case .and: return .and
        case .not: return .not
        case .constant, .comparison: return .primary
        }
    }

    private static func write(_ node: PredicateNode, minimumLevel: Level, to output: inout String) {
        if level(of: node) < minimumLevel {
            output += "("
            write(node, minimumLevel: .or, to: &output)
            output += ")"
            return
        }
        switch node {
        case .constant(let value, _):
            output += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let operand, _):
            output += "NOT "
            if case .comparison = operand {
                output += "("
                write(operand, minimumLevel: .or, to: &output)
                output += ")"
            } else {
                write(operand, minimumLevel: .not, to: &output)
            }
        case .and(let left, let right, _):
            writeChain(node, left, right, .and, to: &output)
        case .or(let left, let right, _):
            writeChain(node, left, right, .or, to: &output)
        case .comparison(let comparison):
            if let quantifier = comparison.quantifier { output += quantifier.rawValue + " " }
            write(comparison.left, to: &output)
            output += " " + comparison.operator.spelling + comparison.options.spelling + " "
            write(comparison.right, to: &output)
        }
    }

    /// A chain of ANDs (or ORs). The parser builds `a AND b AND c …` as one balanced tree
    /// (`PredicateNode.chain`), so a tree of exactly that shape is written without parentheses and parses back
    /// to itself; in any other shape, a child joined by the same word keeps its parentheses.
    private static func writeChain(_ node: PredicateNode, _ left: PredicateNode, _ right: PredicateNode,
                                   _ connective: PredicateNode.Connective, to output: inout String) {
        let word = connective == .and ? " AND " : " OR "
        let termLevel: Level = connective == .and ? .not : .and
        let terms = chainTerms(node, connective)
        if hasChainShape(node, terms: terms.count, connective) {
            for (offset, term) in terms.enumerated() {
                if offset > 0 { output += word }
                write(term, minimumLevel: termLevel, to: &output)
            }
            return
        }
        for (offset, child) in [left, right].enumerated() {
            if offset > 0 { output += word }
            if isConnective(child, connective) {
                output += "("
                write(child, minimumLevel: .or, to: &output)
                output += ")"
            } else {
                write(child, minimumLevel: termLevel, to: &output)
            }
        }
    }

    private static func isConnective(_ node: PredicateNode, _ connective: PredicateNode.Connective) -> Bool {
        switch node {
        case .and: connective == .and
        case .or: connective == .or
        default: false
        }
    }

    /// The terms of the chain at `node`, left to right, found without recursion (a tree built elsewhere may
    /// be one long left-leaning chain).
    private static func chainTerms(_ node: PredicateNode, _ connective: PredicateNode.Connective) -> [PredicateNode] {
        var terms: [PredicateNode] = []
        var stack = [node]
        while let next = stack.popLast() {
            switch (next, connective) {
            case (.and(let l, let r, _), .and), (.or(let l, let r, _), .or):
                stack.append(r)
                stack.append(l)
            default:
                terms.append(next)
            }
        }
        return terms
    }

    /// Whether `node` is what `PredicateNode.chain` builds from `terms` terms.
    private static func hasChainShape(_ node: PredicateNode, terms: Int, _ connective: PredicateNode.Connective) -> Bool {
        guard terms > 1 else { return !isConnective(node, connective) }
        switch (node, connective) {
        case (.and(let l, let r, _), .and), (.or(let l, let r, _), .or):
            return hasChainShape(l, terms: (terms + 1) / 2, connective) && hasChainShape(r, terms: terms / 2, connective)
        default:
            return false
        }
    }

    // MARK: - Operands

    private static func write(_ operand: PredicateOperand, to output: inout String) {
        switch operand {
        case .keyPath(let path):
            write(path, to: &output)
        case .string(let value, _), .commandLineValue(let value, _, _):
            output += quote(value)
        case .argumentValue(let value, _, _):
            // As a literal of its own: numbers and booleans bare, everything else (dates included) quoted.
            switch value {
            case .null: output += "NULL"
            case .boolean(let b): output += b ? "TRUE" : "FALSE"
            case .integer, .decimal, .double: output += value.description
            default: output += quote(value.description)
            }
        case .number(let number, _):
            output += number.text
        case .boolean(let value, _):
            output += value ? "TRUE" : "FALSE"
        case .null:
            output += "NULL"
        case .aggregate(let elements, _):
            output += "{"
            for (offset, element) in elements.enumerated() {
                if offset > 0 { output += ", " }
                write(element, to: &output)
            }
            output += "}"
        case .valuePlaceholder:
            output += "%@"
        case .keyPathPlaceholder:
            output += "%K"
        }
    }

    private static func write(_ path: PredicateKeyPath, to output: inout String) {
        var needsDot = true
        switch path.root {
        case .object:
            needsDot = false
        case .variable(let name, _):
            output += "$" + name
        case .subquery(let subquery):
            output += "SUBQUERY("
            write(subquery.collection, to: &output)
            output += ", $" + subquery.variable + ", "
            write(subquery.predicate, minimumLevel: .or, to: &output)
            output += ")"
        }
        for component in path.components {
            if needsDot { output += "." }
            switch component.kind {
            case .key(let name):
                // Only a first key can be mistaken for a reserved word.
                if !needsDot, PredicateKeyword.isReserved(name) { output += "#" }
                output += name
            case .collectionOperator(let op):
                output += op.spelling
            }
            needsDot = true
        }
    }

    /// `value` as a double-quoted string literal that the lexer reads back as
    /// `value`: `"`, `\` and control characters are escaped, as is a combining
    /// mark at the very start (it would otherwise sit on the quote).
    package static func quote(_ value: String) -> String {
        var output = "\""
        for (offset, scalar) in value.unicodeScalars.enumerated() {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\t": output += "\\t"
            case "\r": output += "\\r"
            case "\0": output += "\\0"
            default:
                let category = scalar.properties.generalCategory
                let invisible = category == .control || category == .lineSeparator || category == .paragraphSeparator
                let leadingMark = offset == 0 && scalar.properties.isGraphemeExtend
                if invisible || leadingMark {
                    let digits = String(scalar.value, radix: 16, uppercase: true)
                    output += "\\u" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        return output + "\""
    }

    // MARK: - Structure

    /// A parenthesised dump that shows the tree's shape:
    /// `(OR (AND (== a 1) (== b 2)) (NOT (ANY > rows.sum 10)))`.
    /// Placeholders show their ordinal (`%@1`, `%K2`), command-line values
    /// their ordinal and text (`(arg1 "2024-03-01")`).
    package static func structure(of node: PredicateNode) -> String {
        switch node {
        case .constant(let value, _):
            return value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .not(let operand, _):
            return "(NOT \(structure(of: operand)))"
        case .and(let left, let right, _):
            return "(AND \(structure(of: left)) \(structure(of: right)))"
        case .or(let left, let right, _):
            return "(OR \(structure(of: left)) \(structure(of: right)))"
        case .comparison(let comparison):
            let quantifier = comparison.quantifier.map { $0.rawValue + " " } ?? ""
            let op = comparison.operator.spelling + comparison.options.spelling
            return "(\(quantifier)\(op) \(structure(of: comparison.left)) \(structure(of: comparison.right)))"
        }
    }

    package static func structure(of operand: PredicateOperand) -> String {
        switch operand {
        case .keyPath(let path):
            var text = ""
            switch path.root {
            case .object:
                break
            case .variable(let name, _):
                text = "$" + name
            case .subquery(let subquery):
                text = "(SUBQUERY \(structure(of: subquery.collection)) $\(subquery.variable) \(structure(of: subquery.predicate)))"
            }
            for component in path.components {
                if !text.isEmpty { text += "." }
                switch component.kind {
                case .key(let name): text += name
                case .collectionOperator(let op): text += op.spelling
                }
            }
            return text
        case .aggregate(let elements, _):
            return "{" + elements.map { structure(of: $0) }.joined(separator: " ") + "}"
        case .valuePlaceholder(let ordinal, _):
            return "%@\(ordinal)"
        case .keyPathPlaceholder(let ordinal, _):
            return "%K\(ordinal)"
        case .commandLineValue(let value, let ordinal, _):
            return "(arg\(ordinal) \(quote(value)))"
        case .argumentValue(let value, let ordinal, _):
            return "(arg\(ordinal) \(text(of: operand)) \(value.kindPhrase))"
        case .string, .number, .boolean, .null:
            return text(of: operand)
        }
    }
}

extension PredicateNode: CustomStringConvertible {
    /// The canonical predicate text.
    package var description: String { PredicatePrinter.text(of: self) }
}

extension PredicateOperand: CustomStringConvertible {
    package var description: String { PredicatePrinter.text(of: self) }
}
