// One object in a context: its attribute values and relationships, with the changes since it was fetched.
// Relationship changes keep the inverse side in step as they are made (Core Data's inverse maintenance).

/// An object of an entity, living in one `ObjectContext`: its attribute values by key, its relationships, its
/// `objectID` once saved. Changes are kept in the context until `save()` validates and writes them all. Not
/// `Sendable`: an object belongs to its context's task.
public final class ManagedObject: ObjectValues {
    /// The object's entity.
    public let entity: Entity
    /// The row id once the object is stored; nil while it is only inserted.
    package internal(set) var rowID: Int64?
    /// The context the object lives in. Weak, as the context holds its objects: an object kept past its context's
    /// life throws `ContextError.contextGone` where it would need it (it was `unowned`, and such a use trapped:
    /// found by the attack on the library).
    private weak var owner: ObjectContext?
    /// Whether the context's rollback forgot the object.
    private var forgotten = false
    /// The object's context, or `contextGone` when it no longer exists, `forgotten` after its rollback.
    var context: ObjectContext {
        get throws(ContextError) {
            if forgotten { throw ContextError.forgotten(label) }
            guard let owner else { throw ContextError.contextGone(label) }
            return owner
        }
    }

    /// A rollback forgot the object: it is no longer its context's, and says so when used.
    func forget() {
        forgotten = true
        isInserted = false
        owner = nil
    }

    /// Whether the object lives in `context`.
    func lives(in context: ObjectContext) -> Bool { !forgotten && owner === context }
    let serial: Int

    var values: [String: Value]
    var committedValues: [String: Value]
    /// Foreign keys as stored, for to-one relationships this entity's table holds.
    var storedToOne: [String: Int64]
    /// To-one targets set or resolved in this context; a nil entry means "set to none".
    var toOne: [String: ManagedObject?] = [:]
    var toMany: [String: ToManySet] = [:]
    /// Keys whose value was set since the last save (attributes and relationships).
    var touched: Set<String> = []
    /// Whether the object was inserted in its context and not yet saved.
    public internal(set) var isInserted = false
    /// Whether the object was deleted in its context and not yet saved.
    public internal(set) var isDeleted = false

    init(entity: Entity, context: ObjectContext, rowID: Int64?, values: [String: Value], storedToOne: [String: Int64]) {
        self.entity = entity
        self.owner = context
        self.rowID = rowID
        self.values = values
        self.committedValues = values
        self.storedToOne = storedToOne
        self.serial = context.nextSerial()
    }

    /// `Customer/17`, or `Customer/new` for an object not saved yet.
    public var objectID: ObjectID? { rowID.map { ObjectID(entity: entity.name, rowID: $0) } }

    /// The object ID, or a description of a new object for messages.
    package var displayID: String { rowID.map { "\(entity.name)/\($0)" } ?? "new \(entity.name)" }

    /// The natural key's value as text (`Acme Ltd`, `A-1`), if the entity has one and it is set: as `fetch` and `show`
    /// write it (`Value.text(in:)`, date-times in the run's zone).
    package var naturalKeyText: String? {
        guard let key = entity.naturalKey, let v = values[key], !v.isNull else { return nil }
        return v.text(in: .process)
    }

    /// `Customer/3 "Acme Ltd"`: the ID, and the natural key when there is one.
    package var label: String {
        if let key = naturalKeyText { return "\(displayID) \"\(key)\"" }
        return displayID
    }

    // MARK: Attributes

    /// An attribute's value (null when unset). The key must be an attribute of the entity (the engine's own
    /// callers know it is; a library's use `value(forKey:)`, which throws for any other name).
    package subscript(_ key: String) -> Value {
        get {
            precondition(entity.attribute(named: key) != nil, "\(entity.name) has no attribute \(key)")
            return values[key] ?? .null
        }
        set {
            precondition(entity.attribute(named: key) != nil, "\(entity.name) has no attribute \(key)")
            values[key] = newValue
            touched.insert(key)
            owner?.didChange(self)
        }
    }

    /// An attribute's value (`.null` when unset). Throws `ModelError.unknownProperty` for a name that is not an
    /// attribute of the entity (a relationship's included: see `object(for:)` and `objects(for:)`).
    public func value(forKey key: String) throws(ModelError) -> Value {
        _ = try entity.requireAttribute(key)
        return values[key] ?? .null
    }

    /// Sets an attribute by name, checking that the entity has it. The value's type is checked when the context
    /// is saved (a `ValidationFailure` names each value that does not fit its attribute).
    public func setValue(_ value: Value, forKey key: String) throws {
        _ = try entity.requireAttribute(key)
        _ = try context
        self[key] = value
    }

    /// Whether an attribute's value differs from the stored one.
    func attributeChanged(_ key: String) -> Bool {
        (values[key] ?? .null) != (committedValues[key] ?? .null)
    }

    // MARK: To-one relationships

    /// The object at the end of a to-one relationship, or nil.
    public func object(for relationshipName: String) throws -> ManagedObject? {
        let r = try toOneRelationship(relationshipName)
        return try currentTarget(r)
    }

    /// Sets a to-one relationship (nil clears it), keeping the inverse in step.
    public func setObject(_ target: ManagedObject?, for relationshipName: String) throws {
        let r = try toOneRelationship(relationshipName)
        try context.setToOne(self, r, target)
    }

    func toOneRelationship(_ name: String) throws -> EntityRelationship {
        guard let r = entity.relationship(named: name), !r.isToMany else {
            if entity.relationship(named: name) != nil {
                throw ModelError.invalidModel("\(entity.name).\(name) is to-many")
            }
            throw ModelError.unknownProperty(entity: entity.name, key: name,
                                             suggestion: Suggestions.closest(to: name, in: entity.propertyNames))
        }
        return r
    }

    /// The stored object ID a to-one relationship still holds although its object is gone (a No Action
    /// relationship whose target was deleted), or nil.
    package func danglingTarget(for relationshipName: String) throws -> ObjectID? {
        let r = try toOneRelationship(relationshipName)
        return try dangling(r)
    }

    func dangling(_ r: EntityRelationship) throws -> ObjectID? {
        guard !touched.contains(r.name), let rowID = storedToOne[r.name] else { return nil }
        do {
            _ = try context.existingObject(entity: r.destination, rowID: rowID)
            return nil
        } catch ContextError.objectNotFound(let id) {
            return id
        }
    }

    func currentTarget(_ r: EntityRelationship) throws -> ManagedObject? {
        if let set = toOne[r.name] { return set }
        if let rowID = storedToOne[r.name] {
            // A dangling key (No Action) has no object: the relationship reads as empty, and `danglingTarget`
            // names what is stored.
            guard let target = try? context.existingObject(entity: r.destination, rowID: rowID) else { return nil }
            toOne[r.name] = .some(target)
            return target
        }
        if rowID == nil { return nil }
        // The foreign key lives on the other side (one-to-one, not owner): ask the store.
        if case .inverseForeignKey = try context.model.storage(of: r, in: entity) {
            let found = try context.loadRelated(self, r).first
            toOne[r.name] = .some(found)
            return found
        }
        return nil
    }

    // MARK: To-many relationships

    /// The objects at the end of a to-many relationship, in object ID order (new objects last).
    public func objects(for relationshipName: String) throws -> [ManagedObject] {
        let r = try toManyRelationship(relationshipName)
        return try members(r)
    }

    /// Adds an object to a to-many relationship, keeping the inverse in step.
    public func add(_ target: ManagedObject, to relationshipName: String) throws {
        let r = try toManyRelationship(relationshipName)
        try context.addToMany(self, r, target)
    }

    /// Removes an object from a to-many relationship, keeping the inverse in step.
    public func remove(_ target: ManagedObject, from relationshipName: String) throws {
        let r = try toManyRelationship(relationshipName)
        try context.removeFromMany(self, r, target)
    }

    /// Makes a to-many relationship hold exactly `targets`.
    public func setObjects(_ targets: [ManagedObject], for relationshipName: String) throws {
        let r = try toManyRelationship(relationshipName)
        let wanted = Set(targets.map(ObjectIdentifier.init))
        for existing in try members(r) where !wanted.contains(ObjectIdentifier(existing)) {
            try context.removeFromMany(self, r, existing)
        }
        let present = Set(try members(r).map(ObjectIdentifier.init))
        for t in targets where !present.contains(ObjectIdentifier(t)) {
            try context.addToMany(self, r, t)
        }
    }

    func toManyRelationship(_ name: String) throws -> EntityRelationship {
        guard let r = entity.relationship(named: name), r.isToMany else {
            if entity.relationship(named: name) != nil {
                throw ModelError.invalidModel("\(entity.name).\(name) is to-one")
            }
            throw ModelError.unknownProperty(entity: entity.name, key: name,
                                             suggestion: Suggestions.closest(to: name, in: entity.propertyNames))
        }
        return r
    }

    func members(_ r: EntityRelationship) throws -> [ManagedObject] {
        var set = toMany[r.name] ?? ToManySet()
        if set.loaded == nil {
            var loaded: [ObjectIdentifier: ManagedObject] = [:]
            if rowID != nil {
                for o in try context.loadRelated(self, r) { loaded[ObjectIdentifier(o)] = o }
            }
            for (k, o) in set.added { loaded[k] = o }
            for k in set.removed.keys { loaded[k] = nil }
            set = ToManySet(loaded: loaded)
            toMany[r.name] = set
        }
        return set.loaded!.values.filter { !$0.isDeleted }.sorted(by: ManagedObject.idOrder)
    }

    /// Records that `target` joined or left this object's to-many `r`, without touching the store.
    func noteMembership(_ r: EntityRelationship, _ target: ManagedObject, present: Bool) {
        var set = toMany[r.name] ?? ToManySet()
        let key = ObjectIdentifier(target)
        if set.loaded != nil {
            set.loaded![key] = present ? target : nil
        } else if present {
            set.added[key] = target
            set.removed[key] = nil
        } else {
            set.removed[key] = target
            set.added[key] = nil
        }
        toMany[r.name] = set
    }

    static func idOrder(_ a: ManagedObject, _ b: ManagedObject) -> Bool {
        switch (a.rowID, b.rowID) {
        case let (x?, y?): x < y
        case (_?, nil): true
        case (nil, _?): false
        case (nil, nil): a.serial < b.serial
        }
    }
}

struct ToManySet {
    var loaded: [ObjectIdentifier: ManagedObject]?
    var added: [ObjectIdentifier: ManagedObject] = [:]
    var removed: [ObjectIdentifier: ManagedObject] = [:]
}
