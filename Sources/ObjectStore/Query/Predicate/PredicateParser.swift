// Stage 2: tokens → untyped syntax tree (`PredicateNode`).
//
// The grammar, in EBNF. `{ x }` is zero or more, `[ x ]` optional. Keywords
// are case-insensitive. The parser is recursive descent with one token of
// lookahead; each rule below is one method. Parentheses, NOT, SUBQUERY and
// {…} nest at most `maximumDepth` levels together.
//
//   predicate         = or-predicate ;
//   or-predicate      = and-predicate { ( "OR" | "||" ) and-predicate } ;      (* a balanced tree *)
//   and-predicate     = not-predicate { ( "AND" | "&&" ) not-predicate } ;     (* a balanced tree *)
//   not-predicate     = ( "NOT" | "!" ) not-predicate | primary-predicate ;   (* NOT binds tightest *)
//   primary-predicate = "(" predicate ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | comparison ;
//
//   comparison        = [ quantifier ] operand operator [ options ] operand ;
//   quantifier        = "ANY" | "SOME" | "ALL" | "NONE" ;
//   operator          = "=" | "==" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
//                     | "BETWEEN" | "IN" | "BEGINSWITH" | "ENDSWITH" | "CONTAINS" | "LIKE" | "MATCHES" ;
//   options           = "[" ( "c" | "d" | "cd" | "dc" ) "]" ;
//                       (* only after ==, !=, IN, BEGINSWITH, ENDSWITH, CONTAINS, LIKE, MATCHES *)
//                       (* after BETWEEN the right side is "{" operand "," operand "}", a variable or "%@" *)
//
//   operand           = string | number | "TRUE" | "YES" | "FALSE" | "NO" | "NULL" | "NIL"
//                     | aggregate | "%@" | "%K" | key-path ;
//   aggregate         = "{" [ operand { "," operand } ] "}" ;
//   key-path          = ( key | variable | subquery ) { "." component } ;
//   component         = key | reserved-word | collection-operator ;   (* after "." a reserved word is a key *)
//   subquery          = "SUBQUERY" "(" operand "," variable "," predicate ")" ;
//   key               = identifier | "#" identifier ;                  (* "#" lets a key be a reserved word *)
//   variable          = "$" identifier ;
//   collection-operator = "@count" | "@sum" | "@avg" | "@min" | "@max" ;
//
// Lexical rules (PredicateLexer):
//
//   identifier        = ( letter | "_" ) { letter | digit | "_" | mark } ;   (* Unicode XID_Start, XID_Continue *)
//   number            = [ "-" ] digit { digit } [ "." digit { digit } ] ;   (* kept as written *)
//   string            = '"' { character | escape } '"' | "'" { character | escape } "'" ;
//   escape            = "\" ( '"' | "'" | "\" | "n" | "t" | "r" | "0" | "u" hex hex hex hex ) ;
//                       (* two \u escapes may form a surrogate pair *)
//   placeholders      = "%@" (a value) | "%K" (a key path), numbered 1, 2, … in source order ;
//   reserved-word     = AND OR NOT BETWEEN IN BEGINSWITH ENDSWITH CONTAINS LIKE MATCHES ANY SOME ALL NONE
//                       TRUEPREDICATE FALSEPREDICATE TRUE YES FALSE NO NULL NIL SUBQUERY ;

package struct PredicateParser {
    private let source: PredicateSourceText
    private let tokens: [PredicateToken]
    private var index = 0
    private var placeholderCount = 0
    /// How many parentheses, NOTs, SUBQUERYs and `{…}` enclose the token at hand.
    private var depth = 0

    /// The deepest nesting of parentheses, `NOT`/`!`, `SUBQUERY(…)` and `{…}` taken together. The parser and
    /// every later pass (binder, SQL compiler, evaluator, printer) recurse once per level; a limit checked here,
    /// with a position, keeps all of them off the stack's end. It is this low because of SQLite: its parser
    /// stack (100 entries) overflows at about 28 levels of alternating AND/OR groups with an EXISTS inside,
    /// and 24 levels compile.
    package static let maximumDepth = 24

    private init(_ source: PredicateSourceText) {
        self.source = source
        self.tokens = PredicateLexer.tokenize(source)
    }

    /// Parses a whole predicate.
    package static func parse(_ source: PredicateSourceText) throws(PredicateSyntaxError) -> PredicateNode {
        var parser = PredicateParser(source)
        let node = try parser.predicate(after: nil)
        try parser.expectEnd()
        return node
    }

    /// Parses text that must be exactly one key path (`customer.name`,
    /// `rows.@sum.sum`, `$r.sum`): for `%K` arguments and sort keys.
    package static func parseKeyPath(_ source: PredicateSourceText) throws(PredicateSyntaxError) -> PredicateKeyPath {
        var parser = PredicateParser(source)
        let first = try parser.current()
        let operand = try parser.operand(expected: "a key path", after: nil)
        guard case .keyPath(let path) = operand else {
            throw parser.error("expected a key path, found \(first.quotedDescription)",
                               hint: "a key path is keys joined by dots, as in customer.name", at: first)
        }
        let next = try parser.current()
        guard case .endOfInput = next.kind else {
            throw parser.error("expected end of key path after \"\(parser.text(of: path.range))\", found \(next.quotedDescription)",
                               hint: "a key path is keys joined by dots, as in customer.name", at: next)
        }
        return path
    }

    // MARK: - Predicates

    /// `or-predicate`; `after` names what came before, for "expected a predicate after …".
    ///
    /// A chain `a OR b OR c …` is read in a loop and built as a balanced tree (`PredicateNode.chain`), so
    /// thousands of terms nest only about log2(n) deep for every later recursive pass.
    private mutating func predicate(after: String?) throws(PredicateSyntaxError) -> PredicateNode {
        var terms = [try andPredicate(after: after)]
        while true {
            let token = try current()
            switch token.kind {
            case .keyword(.or), .doubleBar:
                advance()
                terms.append(try andPredicate(after: token.text))
            default:
                return PredicateNode.chain(terms, .or)
            }
        }
    }

    private mutating func andPredicate(after: String?) throws(PredicateSyntaxError) -> PredicateNode {
        var terms = [try notPredicate(after: after)]
        while true {
            let token = try current()
            switch token.kind {
            case .keyword(.and), .doubleAmpersand:
                advance()
                terms.append(try notPredicate(after: token.text))
            default:
                return PredicateNode.chain(terms, .and)
            }
        }
    }

    private mutating func notPredicate(after: String?, underNot: Bool = false) throws(PredicateSyntaxError) -> PredicateNode {
        let token = try current()
        switch token.kind {
        case .keyword(.not), .exclamation:
            advance()
            try enterNesting(at: token)
            let operand = try notPredicate(after: token.text, underNot: true)
            depth -= 1
            return .not(operand, token.range.through(operand.range))
        default:
            return try primaryPredicate(after: after, underNot: underNot)
        }
    }

    /// `underNot`: right after NOT, whose level a "(" shares (`NOT (a == 1)` is one level, as the printer
    /// writes a negated comparison), so that printed text never nests deeper than what was parsed.
    private mutating func primaryPredicate(after: String?, underNot: Bool = false) throws(PredicateSyntaxError) -> PredicateNode {
        let token = try current()
        switch token.kind {
        case .leftParenthesis:
            advance()
            if !underNot { try enterNesting(at: token) }
            let inner = try predicate(after: "(")
            if !underNot { depth -= 1 }
            try expectClosingParenthesis(opening: token, what: "\"(\"")
            return inner
        case .keyword(.truePredicate):
            advance()
            return .constant(true, token.range)
        case .keyword(.falsePredicate):
            advance()
            return .constant(false, token.range)
        default:
            return .comparison(try comparison(after: after))
        }
    }

    private mutating func comparison(after: String?) throws(PredicateSyntaxError) -> PredicateComparison {
        let first = try current()
        var quantifier: PredicateQuantifier?
        let left: PredicateOperand
        if case .keyword(let keyword) = first.kind, let q = keyword.quantifier {
            advance()
            quantifier = q
            left = try operand(expected: "a key path", after: first.text)
        } else {
            left = try operand(expected: "a predicate", after: after)
        }

        let operatorToken = try current()
        guard let op = Self.comparisonOperator(operatorToken.kind) else {
            throw operatorExpected(after: left, found: operatorToken)
        }
        advance()
        let options = try comparisonOptions(for: op, operatorToken: operatorToken)
        let operatorRange = SourceRange(start: operatorToken.range.start, end: previousToken.range.end)
        let operatorText = String(text(of: operatorRange))

        let rightStart = try current()
        let right = try operand(expected: "a value", after: operatorText)
        if op == .between { try checkBetweenOperand(right, firstToken: rightStart) }

        return PredicateComparison(
            quantifier: quantifier, left: left, operator: op, options: options, right: right,
            operatorRange: operatorRange, range: first.range.through(right.range))
    }

    private static func comparisonOperator(_ kind: PredicateToken.Kind) -> PredicateOperator? {
        switch kind {
        case .equal: return .equal
        case .notEqual: return .notEqual
        case .less: return .lessThan
        case .lessOrEqual: return .lessThanOrEqual
        case .greater: return .greaterThan
        case .greaterOrEqual: return .greaterThanOrEqual
        case .keyword(let keyword): return keyword.comparisonOperator
        default: return nil
        }
    }

    /// `[c]`, `[d]`, `[cd]`, `[dc]` after an operator that takes them.
    private mutating func comparisonOptions(
        for op: PredicateOperator, operatorToken: PredicateToken
    ) throws(PredicateSyntaxError) -> PredicateStringOptions {
        let open = try current()
        guard case .leftBracket = open.kind else { return [] }
        advance()
        let letters = try current()
        let usage = "use [c] (case-insensitive), [d] (diacritic-insensitive) or [cd] (both)"
        guard case .identifier(let word) = letters.kind else {
            throw error("expected comparison options after \"[\", found \(letters.quotedDescription)", hint: usage, at: letters)
        }
        advance()
        var options: PredicateStringOptions = []
        for letter in word {
            let option: PredicateStringOptions
            switch letter {
            case "c", "C": option = .caseInsensitive
            case "d", "D": option = .diacriticInsensitive
            default:
                throw error("unknown comparison option \"\(letter)\" in \"[\(word)]\"", hint: usage, at: letters)
            }
            if options.contains(option) {
                throw error("comparison option \"\(letter)\" repeated in \"[\(word)]\"", hint: usage, at: letters)
            }
            options.insert(option)
        }
        let close = try current()
        guard case .rightBracket = close.kind else {
            throw error("expected \"]\" after comparison options \"[\(word)\", found \(close.quotedDescription)",
                        hint: usage, at: close)
        }
        advance()
        return options
    }

    /// BETWEEN takes `{low, high}`, a variable or `%@`.
    private func checkBetweenOperand(_ operand: PredicateOperand, firstToken: PredicateToken) throws(PredicateSyntaxError) {
        let usage = "BETWEEN takes a pair {low, high}, a $variable or %@"
        switch operand {
        case .aggregate(let elements, _):
            guard elements.count == 2 else {
                let found = elements.count == 1 ? "1 value" : "\(elements.count) values"
                throw error("expected two values {low, high} after \"BETWEEN\", found \(found)", hint: usage, at: firstToken)
            }
        case .valuePlaceholder:
            return
        case .keyPath(let path) where path.bareVariable != nil:
            return
        default:
            throw error("expected {low, high} after \"BETWEEN\", found \(firstToken.quotedDescription)", hint: usage, at: firstToken)
        }
    }

    // MARK: - Operands

    /// An operand; `expected` and `after` word the error when none starts here.
    private mutating func operand(expected: String, after: String?) throws(PredicateSyntaxError) -> PredicateOperand {
        let token = try current()
        switch token.kind {
        case .string(let value):
            advance()
            return .string(value, token.range)
        case .number(let text):
            advance()
            return .number(PredicateNumberLiteral(text), token.range)
        case .keyword(.true), .keyword(.yes):
            advance()
            return .boolean(true, token.range)
        case .keyword(.false), .keyword(.no):
            advance()
            return .boolean(false, token.range)
        case .keyword(.null), .keyword(.nil):
            advance()
            return .null(token.range)
        case .leftBrace:
            try enterNesting(at: token)
            let aggregate = try aggregate()
            depth -= 1
            return aggregate
        case .valuePlaceholder:
            advance()
            placeholderCount += 1
            return .valuePlaceholder(ordinal: placeholderCount, token.range)
        case .keyPathPlaceholder:
            advance()
            placeholderCount += 1
            return .keyPathPlaceholder(ordinal: placeholderCount, token.range)
        case .identifier(let name), .escapedIdentifier(let name):
            advance()
            return .keyPath(try keyPathComponents(root: .object, first: [.key(name, range: token.range)], start: token))
        case .variable(let name):
            advance()
            return .keyPath(try keyPathComponents(root: .variable(name, token.range), first: [], start: token))
        case .keyword(.subquery):
            try enterNesting(at: token)
            let subquery = try subquery()
            depth -= 1
            return .keyPath(try keyPathComponents(root: .subquery(subquery), first: [], start: token))
        case .keyword:
            let hint = "\(token.text) is a reserved word; write #\(token.text) to use it as a key"
            throw expectedError(expected, after: after, found: token, hint: hint)
        default:
            throw expectedError(expected, after: after, found: token, hint: nil)
        }
    }

    /// `{a, b, c}`
    private mutating func aggregate() throws(PredicateSyntaxError) -> PredicateOperand {
        let open = advance()
        var elements: [PredicateOperand] = []
        if case .rightBrace = try current().kind {
            let close = advance()
            return .aggregate([], open.range.through(close.range))
        }
        while true {
            elements.append(try operand(expected: "a value", after: previousToken.text))
            let token = try current()
            switch token.kind {
            case .comma:
                advance()
            case .rightBrace:
                advance()
                return .aggregate(elements, open.range.through(token.range))
            default:
                throw expectedError("\",\" or \"}\" to close the \"{\" at \(place(of: open))", after: nil, found: token, hint: nil)
            }
        }
    }

    /// The `.key`, `.#key`, `.@count` steps after a key path's root.
    private mutating func keyPathComponents(
        root: PredicateKeyPath.Root, first: [PredicateKeyPathComponent], start: PredicateToken
    ) throws(PredicateSyntaxError) -> PredicateKeyPath {
        var components = first
        while case .dot = try current().kind {
            advance()
            let token = try current()
            switch token.kind {
            case .identifier(let name), .escapedIdentifier(let name):
                components.append(.key(name, range: token.range))
            case .keyword:
                components.append(.key(token.text, range: token.range))
            case .collectionOperator(let op):
                components.append(.collectionOperator(op, range: token.range))
            default:
                throw expectedError("a key or a collection operator", after: ".", found: token,
                                    hint: "a key path is keys joined by dots, as in customer.name or rows.@sum.sum")
            }
            advance()
        }
        return PredicateKeyPath(root: root, components: components, range: start.range.through(previousToken.range))
    }

    /// `SUBQUERY(collection, $x, predicate)`
    private mutating func subquery() throws(PredicateSyntaxError) -> PredicateSubquery {
        let keyword = advance()
        let usage = "write SUBQUERY(collection, $x, predicate), as in SUBQUERY(rows, $r, $r.sum > 100).@count"
        let open = try current()
        guard case .leftParenthesis = open.kind else {
            throw expectedError("\"(\"", after: keyword.text, found: open, hint: usage)
        }
        advance()
        let collection = try operand(expected: "a collection", after: "SUBQUERY(")
        guard case .comma = try current().kind else {
            throw expectedError("\",\" after the SUBQUERY collection", after: nil, found: try current(), hint: usage)
        }
        advance()
        let variableToken = try current()
        guard case .variable(let variable) = variableToken.kind else {
            var hint = usage
            if case .identifier(let name) = variableToken.kind { hint = "variables start with $: did you mean $\(name)?" }
            throw expectedError("a variable such as $x", after: ",", found: variableToken, hint: hint)
        }
        advance()
        guard case .comma = try current().kind else {
            throw expectedError("\",\" after the SUBQUERY variable", after: nil, found: try current(), hint: usage)
        }
        advance()
        let predicate = try self.predicate(after: ",")
        let close = try current()
        try expectClosingParenthesis(opening: keyword, what: "\"SUBQUERY(\"")
        return PredicateSubquery(
            collection: collection, variable: variable, predicate: predicate,
            variableRange: variableToken.range, range: keyword.range.through(close.range))
    }

    // MARK: - Ends and errors

    /// One level deeper, at `token`; past `maximumDepth` a located error rather than a stack overflow.
    private mutating func enterNesting(at token: PredicateToken) throws(PredicateSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw error("nested more than \(Self.maximumDepth) levels deep at \(token.quotedDescription)",
                        hint: "parentheses, NOT, SUBQUERY and {…} nest at most \(Self.maximumDepth) levels; "
                            + "a chain such as a AND b AND c needs none", at: token)
        }
    }

    private mutating func expectClosingParenthesis(opening: PredicateToken, what: String) throws(PredicateSyntaxError) {
        let token = try current()
        guard case .rightParenthesis = token.kind else {
            throw expectedError("AND, OR or \")\" to close the \(what) at \(place(of: opening))",
                                after: nil, found: token, hint: andOrSuggestion(token))
        }
        advance()
    }

    private mutating func expectEnd() throws(PredicateSyntaxError) {
        let token = try current()
        switch token.kind {
        case .endOfInput:
            return
        case .rightParenthesis:
            throw error("found \")\" without a matching \"(\"", hint: "remove it, or add the \"(\" it closes", at: token)
        default:
            throw expectedError("AND, OR or end of input", after: nil, found: token, hint: andOrSuggestion(token))
        }
    }

    private func andOrSuggestion(_ token: PredicateToken) -> String? {
        switch token.kind {
        case .identifier(let word):
            return PredicateSuggestions.didYouMean(word, among: ["AND", "OR"])
        case .keyword(let keyword) where keyword.comparisonOperator != nil:
            return "a comparison has one operator; combine comparisons with AND or OR"
        default:
            return nil
        }
    }

    private static let operatorSpellings =
        ["BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "MATCHES", "IN", "BETWEEN", "==", "!=", "<", "<=", ">", ">="]

    /// The error for a left side with no operator after it, with the likeliest remedy.
    private func operatorExpected(after left: PredicateOperand, found token: PredicateToken) -> PredicateSyntaxError {
        let leftText = shortened(text(of: left.range))
        var hint: String?
        switch token.kind {
        case .identifier(let word):
            hint = PredicateSuggestions.didYouMean(word, among: Self.operatorSpellings)
        case .keyword(.not), .exclamation:
            hint = "put NOT before the whole comparison, as in NOT (\(leftText) IN {…})"
        case .endOfInput, .rightParenthesis, .keyword(.and), .keyword(.or), .doubleAmpersand, .doubleBar:
            if case .keyPath(let path) = left, case .object = path.root {
                hint = "to test a Boolean attribute, write \(leftText) == YES"
            } else if case .boolean(let value, _) = left {
                hint = "a predicate that is always \(value ? "true" : "false") is written \(value ? "TRUEPREDICATE" : "FALSEPREDICATE")"
            }
        default:
            break
        }
        // `ANYY rows.x == 1`: the "key" was meant as a keyword, since another key path follows it.
        var followedByPath = false
        switch token.kind {
        case .identifier, .escapedIdentifier, .variable, .leftParenthesis: followedByPath = true
        default: break
        }
        if hint == nil, followedByPath, case .keyPath(let path) = left, case .object = path.root, path.components.count == 1,
           case .key(let name) = path.components[0].kind {
            hint = PredicateSuggestions.didYouMean(
                name, among: ["ANY", "SOME", "ALL", "NONE", "NOT", "SUBQUERY", "TRUEPREDICATE", "FALSEPREDICATE"])
        }
        return expectedError("a comparison operator", after: leftText, found: token, hint: hint)
    }

    /// `expected <what> [after "<after>"], found <token>`, placed at the token,
    /// or at the token before it when the input has ended.
    private func expectedError(_ what: String, after: String?, found token: PredicateToken, hint: String?) -> PredicateSyntaxError {
        var message = "expected \(what)"
        if let after { message += " after \"\(after)\"" }
        message += ", found \(token.quotedDescription)"
        return error(message, hint: hint, at: token)
    }

    private func error(_ message: String, hint: String?, at token: PredicateToken) -> PredicateSyntaxError {
        var position = token.range.start
        if case .endOfInput = token.kind {
            position = index > 0 ? tokens[index - 1].range.start : .start
        }
        return PredicateSyntaxError(message, hint: hint, at: position, in: source)
    }

    /// `1:7` in the named source, for messages that refer to another place.
    private func place(of token: PredicateToken) -> String {
        let (line, column) = source.location(of: token.range.start)
        return "\(line):\(column)"
    }

    private func text(of range: SourceRange) -> Substring {
        source.text(in: range)
    }

    private func shortened(_ text: Substring) -> String {
        text.count > 40 ? String(text.prefix(39)) + "…" : String(text)
    }

    // MARK: - Tokens

    /// The token at hand; throws the lexer's error if the text could not be read there.
    private func current() throws(PredicateSyntaxError) -> PredicateToken {
        let token = tokens[index]
        if case .invalid(let error) = token.kind { throw error }
        return token
    }

    @discardableResult
    private mutating func advance() -> PredicateToken {
        let token = tokens[index]
        if index < tokens.count - 1 { index += 1 }
        return token
    }

    private var previousToken: PredicateToken {
        tokens[max(0, index - 1)]
    }
}
