// MATCHES on PostgreSQL: the subset of ICU's regular expressions that PostgreSQL stores answer exactly as SQLite
// stores (NSRegularExpression, ICU) do, and the located refusal of everything else.
//
// PostgreSQL's regular expressions (AREs) are not ICU's: `.` matches a line break there, `$` only the very end,
// `[c]` would fold case by the collation, `\w` by the locale. A pattern of the subset below is translated by
// `bk_regex` (PostgreSQLFunctions.swift) into an ARE that gives ICU's answer; any other pattern is refused, here
// for a pattern known when the query is compiled and by `bk_matches` in SQL for one only the database sees, with
// the same reason at the same place.
//
// The subset, over Unicode scalars (PostgreSQL's characters):
//
//     pattern    = [ "(?i)" ] alternatives ;              (* (?i) only first: as [c] *)
//     alternatives = branch { "|" branch } ;              (* an empty branch matches the empty text *)
//     branch     = { piece } ;
//     piece      = atom [ quantifier ] | "^" | "$" ;      (* anchors take no quantifier *)
//     quantifier = "*" | "+" | "?" | "{" n "}" | "{" n ",}" | "{" n "," m "}" ;  (* n ≤ m ≤ 255; greedy only *)
//     atom       = literal | "." | escape | class | "(" alternatives ")" | "(?:" alternatives ")" ;
//     escape     = "\d" | "\D" | "\s" | "\S" | "\w" | "\W" | "\n" | "\t" | "\r" | "\" ascii-punctuation ;
//     class      = "[" [ "^" ] member { member } "]" ;
//     member     = char [ "-" char ] | "\d" | "\s" | "\w" ;  (* ends in order *)
//     char       = any scalar but "\" "[" "]" "-" | "\n" | "\t" | "\r" | "\" ascii-punctuation ;
//     literal    = any scalar but "\" "[" "]" "(" ")" "{" "}" "|" "*" "+" "?" "." "^" "$" ;
//
// Meanings are ICU's: `.` any scalar but a line terminator (U+000A–U+000D, U+0085, U+2028, U+2029); `^` the start;
// `$` the end or before a line terminator (or CR LF) that ends the text; `\d` Nd, `\s` White_Space, `\w`
// Alphabetic, marks, Nd, Pc, ZWNJ and ZWJ (Unicode-aware, from this process's tables); `[c]` and `(?i)` ICU's
// simple case folding (the Kelvin sign matches k, ß does not match ss). Left out, each refused where it starts:
// Unicode properties `\p{…}`, back references, word boundaries `\b`, other escapes (`\x`, `\u`, `\Q`, `\A`, `\z`
// …), look-around, named and option groups, `(?i)` elsewhere than first, lazy and possessive quantifiers, counts
// above 255 (PostgreSQL's limit), nested sets, set operations and POSIX classes in brackets, a bare `-` in brackets
// (write `\-`), a range from an unescaped `&` (ICU refuses it), a `:` first in brackets (ICU's `[:alpha:]`), an
// unescaped `]` or `}` outside them.
package enum PostgreSQLRegex {
    /// Where `pattern` leaves the subset (the offset, in Unicode scalars, of the construct) and why; nil when it is
    /// in the subset. `bk_regex` refuses the same patterns with the same reasons.
    ///
    /// Give the comparison's options: under `[d]` the pattern is checked as it is matched, its combining marks
    /// removed (`[\u0300-\u036F]` becomes `[-]`, which is refused).
    package static func check(_ pattern: String, options: PredicateStringOptions = []) -> (offset: Int, reason: String)? {
        let folded = options.contains(.diacriticInsensitive)
            ? TextFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
        let s = Array(folded.unicodeScalars)
        var i = 0
        if s.count >= 4, s[0] == "(", s[1] == "?", s[2] == "i", s[3] == ")" { i = 4 }
        var canQuantify = false
        var opens: [Int] = []
        while i < s.count {
            let c = s[i]
            switch c {
            case "\\":
                guard i + 1 < s.count else { return (i, "a \\ at the end" + outside) }
                let e = s[i + 1]
                if "dDsSwWntr".unicodeScalars.contains(e) || isPunctuation(e) {
                    i += 2
                    canQuantify = true
                } else {
                    return (i, escapeReason(e))
                }
            case "[":
                switch bracket(s, from: i) {
                case .success(let end):
                    i = end
                    canQuantify = true
                case .failure(let refusal):
                    return (refusal.offset, refusal.reason)
                }
            case "(":
                if i + 1 < s.count, s[i + 1] == "?" {
                    if i + 2 < s.count, s[i + 2] == ":" {
                        opens.append(i)
                        i += 3
                        canQuantify = false
                    } else {
                        return (i, groupReason(Array(s[(i + 2)...].prefix(2))))
                    }
                } else {
                    opens.append(i)
                    i += 1
                    canQuantify = false
                }
            case ")":
                guard opens.popLast() != nil else { return (i, "a ) without its (" + outside) }
                i += 1
                canQuantify = true
            case "|", "^", "$":
                i += 1
                canQuantify = false
            case "*", "+", "?", "{":
                guard canQuantify else { return (i, "a quantifier with nothing to repeat" + outside) }
                var end = i + 1
                if c == "{" {
                    switch counts(s, from: i) {
                    case .success(let e): end = e
                    case .failure(let refusal): return (refusal.offset, refusal.reason)
                    }
                }
                if end < s.count, "*+?{".unicodeScalars.contains(s[end]) {
                    return (end, "a lazy or possessive quantifier (or a quantifier repeated)" + outside)
                }
                i = end
                canQuantify = false
            case "]", "}":
                return (i, "an unescaped \(c) (write \\\(c) for the character)" + outside)
            default:
                i += 1
                canQuantify = true
            }
        }
        if let open = opens.last { return (open, "a ( without its )" + outside) }
        return nil
    }

    /// The error `bk_matches` raises for a pattern outside the subset: TextRegexError's, so that both stores
    /// report it alike (`invalid regular expression "\\p{L}": \p (a Unicode property) is not in … (at character 1)`).
    package static func error(for pattern: String, options: PredicateStringOptions = []) -> TextRegexError? {
        guard let (offset, reason) = check(pattern, options: options) else { return nil }
        let folded = options.contains(.diacriticInsensitive)
            ? TextFolding.fold(pattern, caseInsensitive: false, diacriticInsensitive: true) : pattern
        return TextRegexError(pattern: folded, reason: "\(reason) (at character \(offset + 1))")
    }

    /// The end of every reason.
    package static let outside = " is not in the MATCHES subset PostgreSQL stores answer identically"

    static func isPunctuation(_ e: Unicode.Scalar) -> Bool {
        e.value > 0x20 && e.value < 0x7F && !(e.properties.isAlphabetic || ("0"..."9").contains(e))
    }

    static func escapeReason(_ e: Unicode.Scalar) -> String {
        switch e {
        case "p", "P": return "\\\(e) (a Unicode property)" + outside
        case "1"..."9": return "\\\(e) (a back reference)" + outside
        case "b", "B": return "\\\(e) (a word boundary)" + outside
        case "A", "z", "Z", "G": return "\\\(e) (an anchor other than ^ and $)" + outside
        case "Q", "E": return "\\\(e) (quoting)" + outside
        default: return "the escape \\\(e)" + outside
        }
    }

    static func groupReason(_ next: [Unicode.Scalar]) -> String {
        let first = next.first ?? " ", second = next.count > 1 ? next[1] : " "
        switch first {
        case "=", "!": return "(?\(first) (a look-ahead)" + outside
        case "<" where second == "=" || second == "!": return "(?<\(second) (a look-behind)" + outside
        case "<", "P", "'": return "a named group" + outside
        case "#": return "(?# (a comment)" + outside
        case ">": return "(?> (an atomic group)" + outside
        default: return "(? with options (only a leading (?i) and (?: are)" + outside
        }
    }

    struct Refusal: Error {
        let offset: Int
        let reason: String
    }

    /// `{n}`, `{n,}`, `{n,m}` from `start` (at the brace): the index after it.
    static func counts(_ s: [Unicode.Scalar], from start: Int) -> Result<Int, Refusal> {
        let notQuantifier = Refusal(offset: start, reason: "a { that is not a quantifier {n}, {n,} or {n,m} (write \\{ for the character)" + outside)
        var i = start + 1
        func number() -> Int? {
            var value: Int?
            while i < s.count, ("0"..."9").contains(s[i]) {
                value = min((value ?? 0) * 10 + Int(s[i].value - 0x30), 100_000)
                i += 1
            }
            return value
        }
        guard let low = number() else { return .failure(notQuantifier) }
        var high: Int? = low
        if i < s.count, s[i] == "," {
            i += 1
            high = number()
        }
        guard i < s.count, s[i] == "}" else { return .failure(notQuantifier) }
        if max(low, high ?? 0) > 255 { return .failure(Refusal(offset: start, reason: "a count above 255" + outside)) }
        if let high, high < low { return .failure(Refusal(offset: start, reason: "a quantifier {n,m} with m < n" + outside)) }
        return .success(i + 1)
    }

    /// A bracket expression from `start` (at the `[`): the index after its `]`.
    static func bracket(_ s: [Unicode.Scalar], from start: Int) -> Result<Int, Refusal> {
        var i = start + 1
        if i < s.count, s[i] == "^" { i += 1 }
        // (ICU reads `[:alpha:]` as a Unicode property, and `[:x:]` as an unknown one: never a set of characters.)
        if i < s.count, s[i] == ":" {
            return .failure(Refusal(offset: i, reason: "a : first in brackets (ICU reads [:name:] as a Unicode property; write \\: for the character)" + outside))
        }
        var members = 0
        /// One member at i: true for a class (`\d`), false for a character; i moves past it.
        func member() -> Result<Bool, Refusal> {
            let c = s[i]
            switch c {
            case "[":
                return .failure(Refusal(offset: i, reason: "a [ inside brackets (a nested set or a POSIX class; write \\[ for the character)" + outside))
            case "-":
                return .failure(Refusal(offset: i, reason: "a - in brackets that is not a range (write \\- for the character)" + outside))
            case "&" where i + 1 < s.count && s[i + 1] == "&":
                return .failure(Refusal(offset: i, reason: "&& (a set intersection)" + outside))
            case "\\":
                guard i + 1 < s.count else { return .failure(Refusal(offset: start, reason: "a [ without its ]" + outside)) }
                let e = s[i + 1]
                if "dsw".unicodeScalars.contains(e) {
                    i += 2
                    return .success(true)
                }
                if "DSW".unicodeScalars.contains(e) {
                    return .failure(Refusal(offset: i, reason: "\\\(e) inside brackets" + outside))
                }
                guard "ntr".unicodeScalars.contains(e) || isPunctuation(e) else { return .failure(Refusal(offset: i, reason: escapeReason(e))) }
                i += 2
                return .success(false)
            default:
                i += 1
                return .success(false)
            }
        }
        func value(at k: Int) -> UInt32 {
            guard s[k] == "\\" else { return s[k].value }
            switch s[k + 1] {
            case "n": return 0x0A
            case "t": return 0x09
            case "r": return 0x0D
            default: return s[k + 1].value
            }
        }
        while true {
            guard i < s.count else { return .failure(Refusal(offset: start, reason: "a [ without its ]" + outside)) }
            if s[i] == "]" {
                if members == 0 {
                    return .failure(Refusal(offset: i, reason: "an empty [] (write \\] for the character)" + outside))
                }
                return .success(i + 1)
            }
            let first = i
            switch member() {
            case .failure(let refusal): return .failure(refusal)
            case .success(let isClass):
                if i < s.count, s[i] == "-" {
                    let dash = i
                    guard i + 1 < s.count, s[i + 1] != "]", !isClass else {
                        return .failure(Refusal(offset: dash, reason: "a - in brackets that is not a range (write \\- for the character)" + outside))
                    }
                    // (ICU reads an unescaped & as the start of &&, never of a range: `[&-.]` is an error there.)
                    if s[first] == "&" {
                        return .failure(Refusal(offset: first, reason: "a range from an unescaped & (write \\& for the character)" + outside))
                    }
                    i += 1
                    let second = i
                    switch member() {
                    case .failure(let refusal): return .failure(refusal)
                    case .success(let endIsClass):
                        if endIsClass {
                            return .failure(Refusal(offset: dash, reason: "a - in brackets that is not a range (write \\- for the character)" + outside))
                        }
                        if value(at: first) > value(at: second) {
                            return .failure(Refusal(offset: first, reason: "a range whose ends are out of order" + outside))
                        }
                    }
                }
            }
            members += 1
        }
    }
}
