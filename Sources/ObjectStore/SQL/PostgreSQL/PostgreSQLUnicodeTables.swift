// The Unicode tables the PostgreSQL functions fold, sort and match by, made from this process's own Unicode data
// (the Swift standard library's and Foundation's), so that both stores fold by the same tables.

/// Character sets and mappings for PostgreSQLFunctions, computed once per process (about a second: every scalar
/// is looked at a few times).
package struct PostgreSQLUnicodeTables: Sendable {
    /// Full case folding (TextFolding.caseFolded) of every scalar that folds to one scalar: `from[i]` → `to[i]`.
    package let singleFrom: [Unicode.Scalar]
    package let singleTo: [Unicode.Scalar]
    /// Scalars whose full case folding is several scalars (ß → ss, ﬁ → fi, İ → i + U+0307).
    package let multi: [(Unicode.Scalar, [Unicode.Scalar])]
    /// TextFolding.isCombiningMark (Mn and Me).
    package let combiningMarks: [ClosedRange<UInt32>]
    /// ICU's case-insensitive classes for MATCHES[c] (simple case folding): each scalar of a class of two or more
    /// with all the members of its class.
    package let simpleCaseClasses: [(Unicode.Scalar, [Unicode.Scalar])]
    /// `\d` (Nd), `\s` (White_Space), `\w` (Alphabetic, marks, Nd, Pc, ZWNJ, ZWJ), as ICU defines them.
    package let digits: [ClosedRange<UInt32>]
    package let spaces: [ClosedRange<UInt32>]
    package let wordCharacters: [ClosedRange<UInt32>]
    /// Grapheme clusters (LIKE's `?`), as Swift's Character forms them: scalars that extend the character before
    /// them (Extend, ZWJ, SpacingMark), controls (a character of their own), and pictographs that a ZWJ joins.
    package let extending: [ClosedRange<UInt32>]
    package let controls: [ClosedRange<UInt32>]
    package let pictographs: [ClosedRange<UInt32>]

    package static let shared = PostgreSQLUnicodeTables(scanning: assignedSpans)

    /// The scalars worth looking at: planes 4 to 13 hold no assigned character, 15 and 16 only private use, and none
    /// of those folds, extends, joins or is a letter, digit, space or control — 70% of the scalars, skipped (`init`
    /// of books on PostgreSQL took 1.9 s of CPU in a debug build). A test compares the tables with a full scan's.
    package static let assignedSpans: [ClosedRange<UInt32>] = [0...0x3FFFF, 0xE0000...0xEFFFF]

    /// The tables made by looking at the scalars in `spans` (`[0...0x10FFFF]`: every scalar).
    package init(scanning spans: [ClosedRange<UInt32>]) {
        var singleFrom: [Unicode.Scalar] = [], singleTo: [Unicode.Scalar] = [], multi: [(Unicode.Scalar, [Unicode.Scalar])] = []
        var simpleFold: [UInt32: UInt32] = [:]
        for value in spans.joined() where value >= 0x80 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let folded = TextFolding.caseFolded(scalar)
            if let folded {
                if folded.count == 1 {
                    singleFrom.append(scalar)
                    singleTo.append(folded[0])
                } else {
                    multi.append((scalar, folded))
                }
            }
            if let simple = Self.simpleCaseFolding(scalar, full: folded) { simpleFold[value] = simple.value }
        }
        for value in 0x41...0x5A as ClosedRange<UInt32> { simpleFold[value] = value + 0x20 }
        self.singleFrom = singleFrom
        self.singleTo = singleTo
        self.multi = multi
        // Scalars that fold fully to the same text may share a simple folding ICU's data has and this process's
        // lacks (Unicode 15.1 gave ﬅ U+FB05 the simple folding ﬆ U+FB06): ICU, the reference MATCHES answers by,
        // is asked whether `(?i)[a]` matches b, and a yes puts them in one class.
        var byFolding: [[Unicode.Scalar]: [Unicode.Scalar]] = [:]
        for (scalar, folded) in multi { byFolding[folded, default: []].append(scalar) }
        for group in byFolding.values.map({ $0.sorted { $0.value < $1.value } }) where group.count > 1 {
            for (i, a) in group.enumerated() {
                for b in group[(i + 1)...] where simpleFold[a.value] == nil || simpleFold[a.value] != simpleFold[b.value] {
                    let pattern = "[" + String(Character(a)) + "]"
                    guard (try? TextRegex.matches(String(Character(b)), pattern: pattern, caseInsensitive: true,
                                                  diacriticInsensitive: false)) == true else { continue }
                    let target = simpleFold[a.value] ?? simpleFold[b.value] ?? a.value
                    for scalar in [a, b] where scalar.value != target { simpleFold[scalar.value] = target }
                }
            }
        }
        var classes: [UInt32: [UInt32]] = [:]
        for (value, target) in simpleFold { classes[target, default: [target]].append(value) }
        var members: [(Unicode.Scalar, [Unicode.Scalar])] = []
        for (_, group) in classes where group.count > 1 {
            let sorted = Set(group).sorted().map { Unicode.Scalar($0)! }
            for scalar in sorted { members.append((scalar, sorted)) }
        }
        simpleCaseClasses = members.sorted { $0.0.value < $1.0.value }
        func ranges(_ include: (Unicode.Scalar) -> Bool) -> [ClosedRange<UInt32>] { Self.ranges(in: spans, include) }
        combiningMarks = ranges { TextFolding.isCombiningMark($0) }
        digits = ranges { $0.properties.generalCategory == .decimalNumber }
        spaces = ranges { $0.properties.isWhitespace }
        wordCharacters = ranges { scalar in
            let p = scalar.properties
            switch p.generalCategory {
            case .nonspacingMark, .spacingMark, .enclosingMark, .decimalNumber, .connectorPunctuation: return true
            default: return p.isAlphabetic || scalar.value == 0x200C || scalar.value == 0x200D
            }
        }
        extending = ranges { scalar in
            var s = "a"
            s.unicodeScalars.append(scalar)
            return s.count == 1
        }
        controls = ranges { scalar in
            var s = String(Character(scalar))
            s.unicodeScalars.append("\u{301}")
            return s.count == 2
        }
        pictographs = ranges { scalar in
            var s = "\u{1F469}\u{200D}"
            s.unicodeScalars.append(scalar)
            var t = "a"
            t.unicodeScalars.append(scalar)
            return s.count == 1 && t.count == 2
        }
    }

    /// ICU's simple case folding, derived as TextFolding derives the full one: the full folding when it is one
    /// scalar, else the lowercase mapping when that is one other scalar (ẞ → ß, ᾈ → ᾀ), else none (ß, İ, ﬁ).
    private static func simpleCaseFolding(_ scalar: Unicode.Scalar, full: [Unicode.Scalar]?) -> Unicode.Scalar? {
        if let full, full.count == 1 { return full[0] }
        guard full != nil else { return nil }
        let lower = Array(scalar.properties.lowercaseMapping.unicodeScalars)
        return lower.count == 1 && lower[0] != scalar ? lower[0] : nil
    }

    /// The scalars of `spans` (surrogates excepted) for which `include` holds, as ranges.
    static func ranges(in spans: [ClosedRange<UInt32>], _ include: (Unicode.Scalar) -> Bool) -> [ClosedRange<UInt32>] {
        var result: [ClosedRange<UInt32>] = []
        var start: UInt32?
        var last: UInt32 = 0
        for value in spans.joined() {
            guard let scalar = Unicode.Scalar(value) else { continue }
            if include(scalar) {
                if start == nil || value != last + 1 {
                    if let s = start { result.append(s...last) }
                    start = value
                }
                last = value
            }
        }
        if let s = start { result.append(s...last) }
        return result
    }

    // MARK: - Spelling for PostgreSQL's regular expressions (AREs)

    /// A scalar as an ARE escape: `\u00e9`, `\U0001f469`.
    package static func escape(_ value: UInt32) -> String {
        let hex = String(value, radix: 16)
        return value <= 0xFFFF ? "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                               : "\\U" + String(repeating: "0", count: 8 - hex.count) + hex
    }

    /// The inside of a bracket expression holding the ranges: `\u0300-\u036f\u0483-\u0489…`.
    package static func bracketBody(_ ranges: [ClosedRange<UInt32>]) -> String {
        var body = ""
        for range in ranges {
            body += escape(range.lowerBound)
            if range.upperBound != range.lowerBound { body += "-" + escape(range.upperBound) }
        }
        return body
    }
}
