// Tokens: what the lexer cuts predicate text into, each with its range and
// its text as written (for error messages).

package struct PredicateToken: Hashable, Sendable {
    package enum Kind: Hashable, Sendable {
        /// A key: letters, digits, `_`, not starting with a digit; any script.
        case identifier(String)
        /// `#name`: a key that may be spelled like a reserved word.
        case escapedIdentifier(String)
        /// A reserved word, matched case-insensitively.
        case keyword(PredicateKeyword)
        /// `$name`, without the `$`.
        case variable(String)
        /// `@count`, `@sum`, …
        case collectionOperator(PredicateCollectionOperator)
        /// A quoted string, escapes resolved.
        case string(String)
        /// A number's exact text, sign included.
        case number(String)
        /// `%@`
        case valuePlaceholder
        /// `%K`
        case keyPathPlaceholder
        case leftParenthesis, rightParenthesis, leftBrace, rightBrace, leftBracket, rightBracket
        case comma, dot
        /// `=`, `==`
        case equal
        /// `!=`, `<>`
        case notEqual
        case less
        /// `<=`, `=<`
        case lessOrEqual
        case greater
        /// `>=`, `=>`
        case greaterOrEqual
        /// `&&`
        case doubleAmpersand
        /// `||`
        case doubleBar
        /// `!`
        case exclamation
        case endOfInput
        /// Text the lexer could not read; the parser throws this error when it gets there,
        /// so errors are reported in source order.
        case invalid(PredicateSyntaxError)
    }

    package var kind: Kind
    package var range: SourceRange
    /// The token as written, e.g. `==`, `contains`, `'it\'s'`. Empty at end of input.
    package var text: String

    package init(_ kind: Kind, range: SourceRange, text: String) {
        self.kind = kind
        self.range = range
        self.text = text
    }

    /// How an error message names this token: `end of input`, `string "abc"`,
    /// `number 12`, or the text in quotes: `"BEGINSWTH"`.
    package var quotedDescription: String {
        switch kind {
        case .endOfInput: return "end of input"
        case .string: return "string \(Self.shortened(text))"
        case .number: return "number \(text)"
        default: return "\"\(Self.shortened(text))\""
        }
    }

    private static func shortened(_ text: String) -> String {
        text.count > 40 ? String(text.prefix(39)) + "…" : text
    }
}

/// Reserved words. They are case-insensitive (`and`, `And`, `AND`); a key
/// spelled like one is written with `#`: `#order`, `#IN`. After a `.` a
/// reserved word is read as a key (`customer.in`), since only a key can follow.
package enum PredicateKeyword: String, Hashable, Sendable, CaseIterable {
    case and = "AND"
    case or = "OR"
    case not = "NOT"
    case between = "BETWEEN"
    case `in` = "IN"
    case beginsWith = "BEGINSWITH"
    case endsWith = "ENDSWITH"
    case contains = "CONTAINS"
    case like = "LIKE"
    case matches = "MATCHES"
    case any = "ANY"
    case some = "SOME"
    case all = "ALL"
    case none = "NONE"
    case truePredicate = "TRUEPREDICATE"
    case falsePredicate = "FALSEPREDICATE"
    case `true` = "TRUE"
    case yes = "YES"
    case `false` = "FALSE"
    case no = "NO"
    case null = "NULL"
    case `nil` = "NIL"
    case subquery = "SUBQUERY"

    private static let byUppercasedName: [String: PredicateKeyword] =
        Dictionary(uniqueKeysWithValues: allCases.map { ($0.rawValue, $0) })

    /// The keyword spelled `word` in any ASCII case. Only ASCII letters are
    /// folded, so a Turkish dotless `ın` is a key, not `IN`.
    package init?(spelling word: some StringProtocol) {
        guard word.utf8.count <= 16, word.utf8.allSatisfy({ $0 < 0x80 }) else { return nil }
        let upper = String(decoding: word.utf8.map { $0 >= 0x61 && $0 <= 0x7A ? $0 - 0x20 : $0 }, as: UTF8.self)
        guard let keyword = Self.byUppercasedName[upper] else { return nil }
        self = keyword
    }

    /// Whether `name`, as a key, must be written `#name`.
    package static func isReserved(_ name: some StringProtocol) -> Bool {
        PredicateKeyword(spelling: name) != nil
    }

    /// The comparison operator this keyword spells, if any.
    package var comparisonOperator: PredicateOperator? {
        switch self {
        case .between: return .between
        case .in: return .in
        case .beginsWith: return .beginsWith
        case .endsWith: return .endsWith
        case .contains: return .contains
        case .like: return .like
        case .matches: return .matches
        default: return nil
        }
    }

    /// The quantifier this keyword spells, if any (`SOME` is `ANY`).
    package var quantifier: PredicateQuantifier? {
        switch self {
        case .any, .some: return .any
        case .all: return .all
        case .none: return .noneOf
        default: return nil
        }
    }
}
