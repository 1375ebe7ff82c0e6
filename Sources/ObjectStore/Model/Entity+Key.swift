/// Why an attribute cannot name one object of an entity.
package enum KeyError: CategorizedError, Equatable {
    case noNaturalKey(entity: String)
    case unknown(entity: String, key: String, suggestion: String?)
    case notUnique(entity: String, key: String)

    package var category: ErrorCategory { .usage }

    package var description: String {
        switch self {
        case .noNaturalKey(let entity): "\(entity) has no natural key: name a unique attribute"
        case .unknown(let entity, let key, let suggestion): "unknown key \"\(key)\" on \(entity)\(Suggestions.didYouMean(suggestion))"
        case .notUnique(let entity, let key): "\(entity).\(key) is not unique, so it cannot name one object"
        }
    }
}

extension Entity {
    /// The one look-up of the attribute that names one object — an import's `--key`, a reference by key, an
    /// upsert: `name` when given, else the natural key; it must be unique (a natural key is).
    package func identifyingKey(_ name: String? = nil) throws(KeyError) -> EntityAttribute {
        guard let name = name ?? naturalKey else { throw .noNaturalKey(entity: self.name) }
        guard let a = attribute(named: name) else {
            throw .unknown(entity: self.name, key: name, suggestion: Suggestions.closest(to: name, in: attributes.map(\.name)))
        }
        guard a.isUnique || a.name == naturalKey else { throw .notUnique(entity: self.name, key: name) }
        return a
    }
}
