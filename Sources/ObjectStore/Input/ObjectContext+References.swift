
// How people name objects: by object ID (`Customer/17`), by natural key (`Acme Ltd`, `A-1`),
// or by any other unique attribute (`code=C042` on the command line, `customer.code` in a mapping).

extension ObjectContext {
    /// The object named by `reference` in `entityName`: an object ID, or the value of `keyAttribute`
    /// (the entity's natural key when nil), which must be a unique attribute.
    ///
    /// A text spelt like an object ID is first a natural key, as import and export take it: `show Customer
    /// Customer/1` shows the customer named "Customer/1" when there is one, else object 1. When it names one object
    /// by key and another by ID, it is refused as ambiguous, naming both.
    package func resolve(_ reference: String, in entityName: String, by keyAttribute: String? = nil) throws -> ManagedObject {
        let entity = try model.entity(entityName)
        if keyAttribute == nil, let id = ObjectID(reference) { return try resolve(reference, speltLike: id, in: entity) }
        let key: EntityAttribute
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

    /// `resolve` for a text spelt like an object ID: the natural key first (see there).
    private func resolve(_ reference: String, speltLike id: ObjectID, in entity: Entity) throws -> ManagedObject {
        let byKey = try objectSpeltLikeAnID(reference, in: entity)
        let byID = id.entity == entity.name ? try liveObject(with: id) : nil
        if let byKey {
            if let byID, byID !== byKey {
                throw ContextError.ambiguousReference(reference, byID: id, idObjectKey: byID.naturalKeyText,
                                                      byKey: byKey.displayID, key: entity.naturalKey ?? "key")
            }
            return byKey
        }
        if let byID { return byID }
        if let misspelt = model.misspeltEntity(in: id) { throw ContextError.misspeltEntity(id, message: misspelt) }
        if id.entity != entity.name, model.entity(named: id.entity) != nil {
            throw ContextError.wrongEntity(id, expected: entity.name)
        }
        throw ContextError.objectNotFound(id)
    }

    /// The object `id` names, unless there is none or it is deleted.
    private func liveObject(with id: ObjectID) throws -> ManagedObject? {
        let o: ManagedObject
        do {
            o = try object(with: id)
        } catch ContextError.objectNotFound {
            return nil
        }
        return o.isDeleted ? nil : o
    }

    /// The object whose natural key is `reference` (a text spelt like an object ID), if the entity has a natural
    /// key that such a text can be.
    private func objectSpeltLikeAnID(_ reference: String, in entity: Entity) throws -> ManagedObject? {
        guard let name = entity.naturalKey, let key = entity.attribute(named: name),
              let value = try? Value.parse(reference, as: key.type) else { return nil }
        return try object(of: entity.name, where: key.name, equals: value)
    }

    /// A stored key close to a misspelt one, when the directory is small enough to look through.
    private func nearbyKey(_ text: String, entity: Entity, key: EntityAttribute) throws -> String? {
        guard key.type == .string else { return nil }
        let candidates = try store.read { db -> [String]? in
            let count = try db.int(ContextSQL(db.dialect).count(in: entity.name)) ?? 0
            guard count <= 10_000 else { return nil }
            return try db.column(ContextSQL(db.dialect).values(key.name, in: entity.name)).compactMap(\.string)
        }
        return candidates.flatMap { Suggestions.closest(to: text, in: $0) }
    }
}
