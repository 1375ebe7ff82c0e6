import GRDB

// How people name objects: by object ID (`Customer/17`), by natural key (`Acme Ltd`, `A-1`),
// or by any other unique attribute (`code=C042` on the command line, `customer.code` in a mapping).

extension ObjectContext {
    /// The object named by `reference` in `entityName`: an object ID, or the value of `keyAttribute`
    /// (the entity's natural key when nil), which must be a unique attribute.
    public func resolve(_ reference: String, in entityName: String, by keyAttribute: String? = nil) throws -> ManagedObject {
        let entity = try model.entity(entityName)
        if keyAttribute == nil, let id = ObjectID(reference) {
            guard id.entity == entity.name else {
                if model.entity(named: id.entity) != nil { throw ContextError.wrongEntity(id, expected: entity.name) }
                throw ContextError.objectNotFound(id)
            }
            let object = try object(with: id)
            if object.isDeleted { throw ContextError.objectNotFound(id) }
            return object
        }
        let key: Attribute
        do {
            key = try entity.identifyingKey(keyAttribute)
        } catch KeyError.noNaturalKey {
            throw ContextError.noNaturalKey(entity: entity.name, reference: reference)
        }
        let value: Value
        do {
            value = try Value.parse(reference, as: key.type)
        } catch {
            throw InputError("\(entity.name).\(key.name): \(error.message)")
        }
        if let found = try object(of: entity.name, where: key.name, equals: value) { return found }
        throw ContextError.keyNotFound(entity: entity.name, key: key.name, value: reference,
                                       suggestion: try nearbyKey(reference, entity: entity, key: key))
    }

    /// A stored key close to a misspelt one, when the directory is small enough to look through.
    private func nearbyKey(_ text: String, entity: Entity, key: Attribute) throws -> String? {
        guard key.type == .string else { return nil }
        let candidates = try store.read { db -> [String]? in
            let count = try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM \(quoted(entity.name))") ?? 0
            guard count <= 10_000 else { return nil }
            return try String.fetchAll(db, sql: "SELECT \(quoted(key.name)) FROM \(quoted(entity.name)) WHERE \(quoted(key.name)) IS NOT NULL")
        }
        return candidates.flatMap { Suggestions.closest(to: text, in: $0) }
    }
}
