/// One sort key: a key path (to-one chain or aggregate), a direction and a comparison.
public struct SortKey: Sendable, Hashable, CustomStringConvertible {
    /// How a key's values are compared.
    public enum Comparison: String, Sendable, Hashable, CaseIterable {
        /// By stored value: numbers by value, text by UTF-8 bytes.
        case binary
        /// Unicode case-folded, then binary.
        case nocase
        /// Finder-like: case-insensitive and numeric-aware (`Item 2` before `Item 10`).
        case natural
    }

    /// What is sorted by: an attribute, a to-one chain or an aggregate (`customer.name`, `rows.@sum.amount`).
    public var keyPath: String
    /// Smallest first, else largest first; no value (NULL) comes first ascending and last descending, as in SQLite.
    public var ascending: Bool
    /// How text is compared.
    public var comparison: Comparison
    /// Where the key path was written, for error positions; nil for keys made in code.
    package var origin: PredicateSourceOrigin?

    /// A key on `keyPath` (`date`, `customer.name`, `rows.@sum.amount`).
    public init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .binary) {
        self.init(keyPath, ascending: ascending, comparison: comparison, origin: nil)
    }

    package init(_ keyPath: String, ascending: Bool = true, comparison: Comparison = .binary,
                origin: PredicateSourceOrigin?) {
        self.keyPath = keyPath
        self.ascending = ascending
        self.comparison = comparison
        self.origin = origin
    }

    public var description: String {
        var text = keyPath
        if !ascending { text += " desc" }
        if comparison != .binary { text += " \(comparison.rawValue)" }
        return text
    }

    /// Parses `date, customer.name desc natural` (each key: a key path, then `asc`/`desc` and
    /// `binary`/`nocase`/`natural` in any order). Errors name the source and column: `sort:1:15: …`.
    package static func parseList(_ text: String, origin: String = "sort") throws(SortError) -> [SortKey] {
        try parseList(text, origin: PredicateSourceOrigin(name: origin))
    }

    /// Parses a list written at `origin` (a report file's line and column): errors, and the keys' own
    /// errors later, point there.
    package static func parseList(_ text: String, origin place: PredicateSourceOrigin) throws(SortError) -> [SortKey] {
        let origin = place.name
        func column(_ i: String.Index) -> Int { place.column + text.distance(from: text.startIndex, to: i) }
        func at(_ i: String.Index) -> String {
            let (line, column) = place.place(line: place.line, column: column(i))
            return "\(origin):\(line):\(column)"
        }
        var result: [SortKey] = []
        if text.allSatisfy(\.isWhitespace) { return [] }
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let words = item.split(separator: " ", omittingEmptySubsequences: true)
            guard let key = words.first else {
                throw SortError(message: "\(at(item.startIndex)): expected a key path")
            }
            var descriptor = SortKey(String(key), origin: place.at(column: column(key.startIndex)))
            for word in words.dropFirst() {
                switch word.lowercased() {
                case "asc", "ascending": descriptor.ascending = true
                case "desc", "descending": descriptor.ascending = false
                default:
                    guard let c = Comparison(rawValue: word.lowercased()) else {
                        let options = ["asc", "desc", "binary", "nocase", "natural"]
                        let suggestion = Suggestions.closest(to: String(word), in: options)
                        throw SortError(message: "\(at(word.startIndex)): unknown sort option \"\(word)\"\(Suggestions.didYouMean(suggestion)) (write asc or desc, and binary, nocase or natural)")
                    }
                    descriptor.comparison = c
                }
            }
            result.append(descriptor)
        }
        return result
    }
}

package struct SortError: CategorizedError, Equatable {
    package let message: String
    package var category: ErrorCategory { .usage }
    package var description: String { message }
}
