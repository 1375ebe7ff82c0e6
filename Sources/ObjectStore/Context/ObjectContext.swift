
/// A unit of work over a store: objects are fetched into it, inserted, changed and deleted in memory,
/// then `save()` validates everything and writes it in one transaction — or writes nothing and reports
/// every problem. `rollback()` forgets all unsaved changes.
///
/// Not `Sendable`: a context and its objects belong to one task (or thread) at a time. Tasks that work on the same
/// store each make their own context over the shared `Store`, and pass `ObjectID`s, not objects, between them.
public final class ObjectContext {
    /// The store the context reads from and saves to.
    public let store: Store
    /// The store's model.
    public var model: ObjectModel { store.model }

    var registered: [ObjectID: ManagedObject] = [:]
    var insertedObjects: [ManagedObject] = []
    var deletedObjects: [ManagedObject] = []
    var changedObjects: [ObjectIdentifier: ManagedObject] = [:]
    var linkChanges: [LinkKey: LinkChange] = [:]
    private var serialCounter = 0

    /// An empty context over `store`.
    public init(store: Store) {
        self.store = store
    }

    func nextSerial() -> Int {
        serialCounter += 1
        return serialCounter
    }

    /// Whether anything was inserted, changed or deleted since the last save.
    public var hasChanges: Bool {
        !insertedObjects.isEmpty || !deletedObjects.isEmpty || !changedObjects.isEmpty || !linkChanges.isEmpty
    }

    // MARK: Inserting and deleting

    /// A new object of `entityName`, with the model's defaults applied (`today` for a date defaulting to today).
    public func insert(_ entityName: String) throws(ModelError) -> ManagedObject {
        let entity = try model.entity(entityName)
        var values: [String: Value] = [:]
        for a in entity.attributes {
            switch a.defaultValue {
            case .value(let v)?:
                if case .decimal(let d) = v, case .decimal(let scale) = a.type {
                    values[a.name] = .decimal(d.exactly(atScale: scale) ?? d)
                } else {
                    values[a.name] = v
                }
            case .today?: values[a.name] = .date(Day.current())
            case .now?: values[a.name] = .dateTime(RunMoment.now)
            case nil: break
            }
        }
        let object = ManagedObject(entity: entity, context: self, rowID: nil, values: values, storedToOne: [:])
        object.committedValues = [:]
        object.isInserted = true
        insertedObjects.append(object)
        return object
    }

    /// Marks an object for deletion. Delete rules are applied when the context is saved.
    /// Throws `ContextError.otherContext` for an object of another context.
    public func delete(_ object: ManagedObject) throws(ContextError) {
        guard object.lives(in: self) else { throw ContextError.otherContext(object.label) }
        guard !object.isDeleted else { return }
        object.isDeleted = true
        if object.isInserted {
            insertedObjects.removeAll { $0 === object }
        } else {
            deletedObjects.append(object)
        }
    }

    /// Forgets every unsaved change. Objects obtained before are invalid afterwards; fetch them again.
    /// Using such an object throws `ContextError.forgotten` (its edits went nowhere: found by the attack on the
    /// library).
    public func rollback() {
        for object in registered.values { object.forget() }
        for object in insertedObjects { object.forget() }
        registered = [:]
        insertedObjects = []
        deletedObjects = []
        changedObjects = [:]
        linkChanges = [:]
    }

    func didChange(_ object: ManagedObject) {
        if !object.isInserted { changedObjects[ObjectIdentifier(object)] = object }
    }

    // MARK: Fetching

    /// The object with this ID.
    public func object(with id: ObjectID) throws -> ManagedObject {
        let entity = try model.entity(id.entity)
        return try existingObject(entity: entity.name, rowID: id.rowID)
    }

    func existingObject(entity entityName: String, rowID: Int64) throws -> ManagedObject {
        let id = ObjectID(entity: entityName, rowID: rowID)
        if let o = registered[id] { return o }
        let entity = model.entity(named: entityName)!
        let row = try store.read { db in
            try db.cachedRows(ContextSQL(db.dialect).object(in: entity.name), [.integer(rowID)]).first
        }
        guard let row else { throw ContextError.objectNotFound(id) }
        return try materialize(row, entity)
    }

    /// Every stored object of an entity (plus unsaved new ones), in object ID order.
    public func objects(of entityName: String) throws -> [ManagedObject] {
        let entity = try model.entity(entityName)
        let rows = try store.read { db in
            try db.rows(ContextSQL(db.dialect).objects(in: entity.name))
        }
        let stored = try rows.map { try materialize($0, entity) }.filter { !$0.isDeleted }
        return stored + insertedObjects.filter { $0.entity.name == entity.name }
    }

    /// The number of stored objects of an entity.
    public func count(of entityName: String) throws -> Int {
        let entity = try model.entity(entityName)
        return try store.read { db in
            try db.int(ContextSQL(db.dialect).count(in: entity.name)) ?? 0
        }
    }

    /// The object whose attribute `key` equals `value` (meant for unique attributes), looking at unsaved changes first.
    public func object(of entityName: String, where key: String, equals value: Value) throws -> ManagedObject? {
        let entity = try model.entity(entityName)
        let attribute = try entity.requireAttribute(key)
        if let pending = insertedObjects.first(where: { $0.entity.name == entity.name && $0.values[key] == value }) {
            return pending
        }
        if let changed = changedObjects.values.first(where: {
            $0.entity.name == entity.name && !$0.isDeleted && $0.values[key] == value
        }) {
            return changed
        }
        let rows = try store.read { db in
            try db.cachedRows(ContextSQL(db.dialect).objects(in: entity.name, where: key), [value.storedValue(for: attribute.type)])
        }
        for row in rows {
            let o = try materialize(row, entity)
            if !o.isDeleted && o.values[key] == value { return o }
        }
        if case .string(let text) = value, !TextFolding.isASCII(text) {
            // SQLite compared bytes: the same text in another normal form is found by NFC.
            for o in try storedObjects(of: entity, nonASCIIIn: attribute) where !o.isDeleted {
                if case .string(let stored)? = o.values[key], TextNormalForm.equivalent(stored, text) { return o }
            }
        }
        return nil
    }

    /// The stored objects whose text attribute `a` has a byte ≥ 0x80 (its length in bytes and in characters
    /// differ), in object ID order: the candidates for a key equal after NFC, by one scan.
    func storedObjects(of entity: Entity, nonASCIIIn a: EntityAttribute) throws -> [ManagedObject] {
        let sql = ContextSQL(store.dialect).objects(in: entity.name, nonASCIIIn: a.name)
        let rows = try store.read { db in try db.rows(sql) }
        return try rows.map { try materialize($0, entity) }
    }

    /// The registered object for a row, or a new one made from it. A model column missing from the row (another tool
    /// renamed or dropped it) is refused as a statement naming it is: it was read as no value (attack 17).
    func materialize(_ row: StorageRow, _ entity: Entity) throws -> ManagedObject {
        let rowID = row["id"]!.int64!
        let id = ObjectID(entity: entity.name, rowID: rowID)
        if let o = registered[id] { return o }
        var values: [String: Value] = [:]
        for a in entity.attributes {
            guard let stored = row[a.name] else { throw StoreError.missingColumn(path: store.path, column: "\(entity.name).\(a.name)") }
            values[a.name] = Value(stored: stored, as: a.type)
        }
        var storedToOne: [String: Int64] = [:]
        for r in entity.relationships where !r.isToMany {
            if case .foreignKey(let column) = model.storage(of: r, in: entity) {
                guard let stored = row[column] else {
                    throw StoreError.missingColumn(path: store.path, column: "\(entity.name).\(r.name)")
                }
                if let fk = stored.int64 { storedToOne[r.name] = fk }
            }
        }
        let o = ManagedObject(entity: entity, context: self, rowID: rowID, values: values, storedToOne: storedToOne)
        registered[id] = o
        return o
    }

    /// The stored objects related to `object` through `r` (without unsaved changes).
    func loadRelated(_ object: ManagedObject, _ r: EntityRelationship) throws -> [ManagedObject] {
        guard let rowID = object.rowID, let destination = model.entity(named: r.destination) else { return [] }
        let sql: String
        switch model.storage(of: r, in: object.entity) {
        case .foreignKey:
            return try object.storedToOne[r.name].map { [try existingObject(entity: r.destination, rowID: $0)] } ?? []
        case .inverseForeignKey(let table, let column):
            sql = ContextSQL(store.dialect).objects(in: table, where: column)
        case .joinTable(let table, let own, let other):
            sql = ContextSQL(store.dialect).linked(destination.name, through: table, own: own, other: other)
        }
        let rows = try store.read { db in try db.cachedRows(sql, [.integer(rowID)]) }
        return try rows.map { try materialize($0, destination) }
    }

    // MARK: Relationship maintenance

    func setToOne(_ object: ManagedObject, _ r: EntityRelationship, _ target: ManagedObject?) throws {
        if let target {
            guard target.lives(in: self) else { throw ContextError.otherContext(target.label) }
            guard target.entity.name == r.destination else {
                throw ContextError.wrongDestination(relationship: "\(object.entity.name).\(r.name)",
                                                    expected: r.destination, got: target.entity.name)
            }
        }
        let old = try object.currentTarget(r)
        if old === target { return }
        let inverse = model.inverse(of: r)
        if inverse.isToMany {
            old?.noteMembership(inverse, object, present: false)
            target?.noteMembership(inverse, object, present: true)
        } else {
            if let old {
                old.toOne[inverse.name] = .some(nil)
                old.touched.insert(inverse.name)
                didChange(old)
            }
            if let target {
                if let previous = try target.currentTarget(inverse), previous !== object {
                    previous.toOne[r.name] = .some(nil)
                    previous.touched.insert(r.name)
                    didChange(previous)
                }
                target.toOne[inverse.name] = .some(object)
                target.touched.insert(inverse.name)
                didChange(target)
            }
        }
        object.toOne[r.name] = .some(target)
        object.touched.insert(r.name)
        didChange(object)
    }

    func addToMany(_ object: ManagedObject, _ r: EntityRelationship, _ target: ManagedObject) throws {
        guard target.lives(in: self) else { throw ContextError.otherContext(target.label) }
        guard target.entity.name == r.destination else {
            throw ContextError.wrongDestination(relationship: "\(object.entity.name).\(r.name)",
                                                expected: r.destination, got: target.entity.name)
        }
        let inverse = model.inverse(of: r)
        if !inverse.isToMany {
            try setToOne(target, inverse, object)
            return
        }
        if try object.members(r).contains(where: { $0 === target }) { return }
        object.noteMembership(r, target, present: true)
        target.noteMembership(inverse, object, present: true)
        recordLink(object, r, target, present: true)
    }

    func removeFromMany(_ object: ManagedObject, _ r: EntityRelationship, _ target: ManagedObject) throws {
        guard target.lives(in: self) else { throw ContextError.otherContext(target.label) }
        let inverse = model.inverse(of: r)
        if !inverse.isToMany {
            if try target.currentTarget(inverse) === object { try setToOne(target, inverse, nil) }
            return
        }
        object.noteMembership(r, target, present: false)
        target.noteMembership(inverse, object, present: false)
        recordLink(object, r, target, present: false)
    }

    private func recordLink(_ object: ManagedObject, _ r: EntityRelationship, _ target: ManagedObject, present: Bool) {
        guard case .joinTable(let table, let own, let other) = model.storage(of: r, in: object.entity) else { return }
        // Normalise so that both directions of one link share a key.
        let (c1, o1, c2, o2) = own < other ? (own, object, other, target) : (other, target, own, object)
        let key = LinkKey(table: table, first: ObjectIdentifier(o1), second: ObjectIdentifier(o2))
        linkChanges[key] = LinkChange(table: table, firstColumn: c1, first: o1, secondColumn: c2, second: o2, present: present)
        didChange(object)
        didChange(target)
    }
}

struct LinkKey: Hashable {
    let table: String
    let first: ObjectIdentifier
    let second: ObjectIdentifier
}

struct LinkChange {
    let table: String
    let firstColumn: String
    let first: ManagedObject
    let secondColumn: String
    let second: ManagedObject
    let present: Bool
}
