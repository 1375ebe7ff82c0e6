// Stage 1: text → tokens with source ranges.
//
// The lexer reads Unicode scalars, so a quote followed by a combining mark
// still opens a string, and reports positions in characters (see
// `SourcePosition`). It never throws: text it cannot read becomes an
// `.invalid` token carrying the error, and the token list ends there. The
// parser throws that error when it reaches it, so a syntax error earlier in
// the text is reported first.

package struct PredicateLexer {
    private let source: PredicateSourceText
    private let scalars: [Unicode.Scalar]
    /// The position of every scalar, plus one for the end of the text.
    private let positions: [SourcePosition]
    private var index = 0

    package init(_ source: PredicateSourceText) {
        self.source = source
        self.scalars = Array(source.text.unicodeScalars)
        var positions: [SourcePosition] = []
        positions.reserveCapacity(scalars.count + 1)
        var offset = 0, line = 1, column = 1
        for character in source.text {
            for scalar in character.unicodeScalars {
                positions.append(SourcePosition(offset: offset, line: line, column: column))
                offset += UTF8.width(scalar)
            }
            if character == "\n" || character == "\r\n" || character == "\r" {
                line += 1
                column = 1
            } else {
                column += 1
            }
        }
        positions.append(SourcePosition(offset: offset, line: line, column: column))
        self.positions = positions
    }

    /// All tokens of `source`, ending with `.endOfInput` or with an `.invalid` token.
    package static func tokenize(_ source: PredicateSourceText) -> [PredicateToken] {
        var lexer = PredicateLexer(source)
        var tokens: [PredicateToken] = []
        while true {
            let token = lexer.nextToken()
            tokens.append(token)
            switch token.kind {
            case .endOfInput, .invalid: return tokens
            default: continue
            }
        }
    }

    package mutating func nextToken() -> PredicateToken {
        while index < scalars.count, scalars[index].properties.isWhitespace { index += 1 }
        let start = index
        guard index < scalars.count else { return token(.endOfInput, from: start) }
        let scalar = scalars[index]
        index += 1
        switch scalar {
        case "(": return token(.leftParenthesis, from: start)
        case ")": return token(.rightParenthesis, from: start)
        case "{": return token(.leftBrace, from: start)
        case "}": return token(.rightBrace, from: start)
        case "[": return token(.leftBracket, from: start)
        case "]": return token(.rightBracket, from: start)
        case ",": return token(.comma, from: start)
        case ".": return token(.dot, from: start)
        case "=":
            if take("=") { return token(.equal, from: start) }
            if take("<") { return token(.lessOrEqual, from: start) }
            if take(">") { return token(.greaterOrEqual, from: start) }
            return token(.equal, from: start)
        case "!":
            return token(take("=") ? .notEqual : .exclamation, from: start)
        case "<":
            if take("=") { return token(.lessOrEqual, from: start) }
            if take(">") { return token(.notEqual, from: start) }
            return token(.less, from: start)
        case ">":
            return token(take("=") ? .greaterOrEqual : .greater, from: start)
        case "&":
            if take("&") { return token(.doubleAmpersand, from: start) }
            return invalid("\"&\" is not an operator", hint: "did you mean \"&&\" (AND)?", at: start)
        case "|":
            if take("|") { return token(.doubleBar, from: start) }
            return invalid("\"|\" is not an operator", hint: "did you mean \"||\" (OR)?", at: start)
        case "\"", "'":
            return string(quote: scalar, from: start)
        case "$":
            guard let name = identifierText() else {
                return invalid("expected a variable name after \"$\"", hint: "variables are written $name", at: start)
            }
            return token(.variable(name), from: start)
        case "#":
            guard let name = identifierText() else {
                return invalid(
                    "expected a key after \"#\"",
                    hint: "\"#\" escapes a key spelled like a reserved word, as in #order or #IN", at: start)
            }
            return token(.escapedIdentifier(name), from: start)
        case "@":
            return collectionOperator(from: start)
        case "%":
            return placeholder(from: start)
        case "-":
            guard index < scalars.count, Self.isDigit(scalars[index]) else {
                return invalid(
                    "expected a digit after \"-\"",
                    hint: "negative numbers are written without a space, as in -5 or -1.25", at: start)
            }
            return number(from: start)
        default:
            if Self.isDigit(scalar) { return number(from: start) }
            if Self.isIdentifierStart(scalar) {
                index = start
                let name = identifierText()!
                if let keyword = PredicateKeyword(spelling: name) { return token(.keyword(keyword), from: start) }
                return token(.identifier(name), from: start)
            }
            return invalid("unexpected character \(Self.describe(scalar))", hint: Self.hint(for: scalar), at: start)
        }
    }

    // MARK: - Token kinds that take more than a glance

    private mutating func string(quote: Unicode.Scalar, from start: Int) -> PredicateToken {
        var value = String.UnicodeScalarView()
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == quote {
                index += 1
                return token(.string(String(value)), from: start)
            }
            guard scalar == "\\" else {
                value.append(scalar)
                index += 1
                continue
            }
            let escapeStart = index
            index += 1
            guard index < scalars.count else { break }
            let escaped = scalars[index]
            index += 1
            switch escaped {
            case "\"", "'", "\\": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "0": value.append("\0")
            case "u":
                guard let unit = hexQuad() else {
                    return invalid(
                        "expected four hexadecimal digits after \"\\u\"",
                        hint: "write \\u00E9 for é, or a surrogate pair such as \\uD83D\\uDE00 above U+FFFF",
                        at: escapeStart)
                }
                if let decoded = Unicode.Scalar(unit) {
                    value.append(decoded)
                } else if (0xD800...0xDBFF).contains(unit), let low = lowSurrogate() {
                    value.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                } else {
                    return invalid(
                        "lone surrogate \\u\(Self.hex(unit)) in string",
                        hint: "a surrogate needs its pair, as in \\uD83D\\uDE00; or write the character itself",
                        at: escapeStart)
                }
            default:
                return invalid(
                    "unknown escape \"\\\(escaped)\" in string",
                    hint: "escapes are \\\", \\', \\\\, \\n, \\t, \\r, \\0 and \\uXXXX; write \\\\ for a backslash",
                    at: escapeStart)
            }
        }
        let quoteText = quote == "\"" ? "\"" : "'"
        return invalid("unterminated string", hint: "add a closing \(quoteText) at the end of the string", at: start)
    }

    /// Four hex digits after `\u`, or nil.
    private mutating func hexQuad() -> UInt32? {
        guard index + 4 <= scalars.count else { return nil }
        var unit: UInt32 = 0
        for scalar in scalars[index..<index + 4] {
            guard let digit = Self.hexValue(scalar) else { return nil }
            unit = unit << 4 | digit
        }
        index += 4
        return unit
    }

    /// A `\uDC00`…`\uDFFF` escape right after a high surrogate, consumed; nil if not there.
    private mutating func lowSurrogate() -> UInt32? {
        let saved = index
        if index + 2 <= scalars.count, scalars[index] == "\\", scalars[index + 1] == "u" {
            index += 2
            if let unit = hexQuad(), (0xDC00...0xDFFF).contains(unit) { return unit }
        }
        index = saved
        return nil
    }

    private mutating func number(from start: Int) -> PredicateToken {
        while index < scalars.count, Self.isDigit(scalars[index]) { index += 1 }
        if index < scalars.count, scalars[index] == "." {
            guard index + 1 < scalars.count, Self.isDigit(scalars[index + 1]) else {
                index += 1
                return invalid(
                    "expected a digit after the decimal point in \"\(text(from: start))\"",
                    hint: "write decimals as 1.5 or 1.0", at: start)
            }
            index += 1
            while index < scalars.count, Self.isDigit(scalars[index]) { index += 1 }
        }
        if index < scalars.count, Self.isIdentifierContinue(scalars[index]) {
            while index < scalars.count, Self.isIdentifierContinue(scalars[index]) || scalars[index] == "." {
                index += 1
            }
            return invalid(
                "malformed number \"\(text(from: start))\"",
                hint: "numbers are written like 12, -3 or 4.25, without exponents; keys cannot start with a digit",
                at: start)
        }
        return token(.number(text(from: start)), from: start)
    }

    private mutating func collectionOperator(from start: Int) -> PredicateToken {
        let names = PredicateCollectionOperator.allCases.map(\.spelling)
        let list = "collection operators are @count, @sum, @avg, @min and @max"
        guard let name = identifierText() else {
            return invalid("expected a collection operator after \"@\"", hint: list, at: start)
        }
        if let op = PredicateCollectionOperator.allCases.first(where: { PredicateKeyword.asciiEqualIgnoringCase($0.rawValue, name) }) {
            return token(.collectionOperator(op), from: start)
        }
        // Few and unlike one another: two edits ("@cnt", "@summ") still point at one.
        let hint = PredicateSuggestions.didYouMean("@" + name, among: names, limit: 2) ?? list
        return invalid("unknown collection operator \"@\(name)\"", hint: hint, at: start)
    }

    private mutating func placeholder(from start: Int) -> PredicateToken {
        guard index < scalars.count, !scalars[index].properties.isWhitespace else {
            return invalid(
                "expected \"@\" or \"K\" after \"%\"",
                hint: "use %@ for a value or %K for a key path", at: start)
        }
        let specifier = scalars[index]
        index += 1
        switch specifier {
        case "@": return token(.valuePlaceholder, from: start)
        case "K": return token(.keyPathPlaceholder, from: start)
        case "k":
            return invalid("unsupported format specifier \"%k\"", hint: "did you mean %K?", at: start)
        default:
            return invalid(
                "unsupported format specifier \"%\(specifier)\"",
                hint: "use %@ for a value or %K for a key path", at: start)
        }
    }

    // MARK: - Helpers

    /// An identifier at `index`, consumed; nil (and nothing consumed) if none starts there.
    private mutating func identifierText() -> String? {
        guard index < scalars.count, Self.isIdentifierStart(scalars[index]) else { return nil }
        let start = index
        index += 1
        while index < scalars.count, Self.isIdentifierContinue(scalars[index]) { index += 1 }
        return text(from: start)
    }

    private mutating func take(_ scalar: Unicode.Scalar) -> Bool {
        guard index < scalars.count, scalars[index] == scalar else { return false }
        index += 1
        return true
    }

    private func text(from start: Int) -> String {
        String(String.UnicodeScalarView(scalars[start..<index]))
    }

    private func token(_ kind: PredicateToken.Kind, from start: Int) -> PredicateToken {
        PredicateToken(kind, range: SourceRange(start: positions[start], end: positions[index]), text: text(from: start))
    }

    private mutating func invalid(_ message: String, hint: String?, at start: Int) -> PredicateToken {
        let error = PredicateSyntaxError(message, hint: hint, at: positions[start], in: source)
        return PredicateToken(.invalid(error), range: SourceRange(start: positions[start], end: positions[index]), text: text(from: start))
    }

    package static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x30 && scalar.value <= 0x39
    }

    /// `_` or a letter of any script (Unicode XID_Start).
    package static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isXIDStart
    }

    /// Letters, digits, `_` and combining marks (Unicode XID_Continue).
    package static func isIdentifierContinue(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.isXIDContinue
    }

    private static func hexValue(_ scalar: Unicode.Scalar) -> UInt32? {
        switch scalar.value {
        case 0x30...0x39: return scalar.value - 0x30
        case 0x41...0x46: return scalar.value - 0x41 + 10
        case 0x61...0x66: return scalar.value - 0x61 + 10
        default: return nil
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func hint(for scalar: Unicode.Scalar) -> String? {
        switch scalar {
        case "\u{201C}", "\u{201D}", "\u{201E}", "\u{2018}", "\u{2019}", "\u{201A}", "\u{00AB}", "\u{00BB}":
            return "quote strings with straight quotes \" or '"
        case "`":
            return "quote strings with \" or '; escape a key spelled like a reserved word with #, as in #order"
        case ";":
            return "combine conditions with AND or OR"
        default:
            return nil
        }
    }

    /// `"^"` for a visible character, `U+0007` for one that would not show.
    private static func describe(_ scalar: Unicode.Scalar) -> String {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator,
             .nonspacingMark, .enclosingMark, .spacingMark:
            return "U+" + hex(scalar.value)
        default:
            return "\"\(scalar)\""
        }
    }
}

extension PredicateKeyword {
    /// Equality ignoring the case of ASCII letters only.
    package static func asciiEqualIgnoringCase(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        let a = a.utf8, b = b.utf8
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { x, y in
            x == y || ((x | 0x20) == (y | 0x20) && (x | 0x20) >= 0x61 && (x | 0x20) <= 0x7A)
        }
    }
}
