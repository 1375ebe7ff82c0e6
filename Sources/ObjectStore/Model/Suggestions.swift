/// Did-you-mean: the candidate closest to a misspelt name, if it is close enough to be a likely typo.
package enum Suggestions {
    package static func closest(to name: String, in candidates: [String]) -> String? {
        let lowered = name.lowercased()
        var best: (String, Int)?
        for c in candidates {
            let d = distance(lowered, c.lowercased())
            if best == nil || d < best!.1 { best = (c, d) }
        }
        guard let (candidate, d) = best else { return nil }
        // Allow about one edit per three characters, at least one.
        return d <= max(1, min(name.count, candidate.count) / 3) ? candidate : nil
    }

    /// Damerau-Levenshtein (optimal string alignment) distance over characters.
    package static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a), b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var previous2 = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], previous2[j - 2] + 1)
                }
            }
            (previous2, previous, current) = (previous, current, previous2)
        }
        return previous[b.count]
    }

    /// ` — did you mean "name"?` or the empty string.
    package static func didYouMean(_ suggestion: String?) -> String {
        suggestion.map { " — did you mean \"\($0)\"?" } ?? ""
    }
}

extension ObjectModel {
    /// For an object ID whose entity the model has not, but has one spelt close to it (`customer/2`, `Custmer/2`):
    /// `there is no entity "customer" in the object ID customer/2 — did you mean "Customer/2"?`. Nil when the
    /// entity exists or nothing is close. One wording for predicates, `show`, `set` and `delete`.
    package func misspeltEntity(in id: ObjectID) -> String? {
        guard entity(named: id.entity) == nil, let close = Suggestions.closest(to: id.entity, in: entities.map(\.name)) else { return nil }
        return "there is no entity \"\(id.entity)\" in the object ID \(id)"
            + Suggestions.didYouMean(ObjectID(entity: close, rowID: id.rowID).description)
    }
}
