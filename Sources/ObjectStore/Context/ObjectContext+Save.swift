import Foundation

/// What a save did: the IDs it inserted, updated and deleted (cascaded deletions included).
public struct SaveResult: Sendable, Equatable {
    /// The objects the save inserted.
    public var inserted: [ObjectID] = []
    /// The objects the save changed.
    public var updated: [ObjectID] = []
    /// The objects the save deleted, cascaded deletions included.
    public var deleted: [ObjectID] = []
    /// References a No Action delete rule kept to the deleted objects, one entry per relationship that keeps them.
    package var keptReferences: [KeptReferences] = []

    /// Whether the save wrote nothing.
    public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
}

extension ObjectContext {
    /// Validates every change and writes them all in one transaction. On any problem nothing is written,
    /// a `ValidationError` lists every problem, and the context keeps its changes so they can be corrected.
    @discardableResult
    public func save() throws -> SaveResult {
        let plan = try planDeletions()
        do {
            for o in insertedObjects + Array(changedObjects.values) where !o.isDeleted {
                model.behaviours[o.entity.name]?.willSave?(o)
            }
            let survivors = saveCandidates(excluding: plan)
            var issues = plan.issues
            issues += try validate(survivors + (try neighboursWithRules(of: survivors, plan)), deletions: plan)
            if !issues.isEmpty { throw ValidationFailure(issues: issues) }
            var result: SaveResult
            do {
                result = try write(survivors, plan)
            } catch StoreError.uniqueRefused(let path, let detail) {
                // Another writer stored a unique value of this save between its validation and its write (which
                // was rolled back): validated again, the save fails as it would have had it started later.
                let now = try validate(survivors + (try neighboursWithRules(of: survivors, plan)), deletions: plan)
                if !now.isEmpty { throw ValidationFailure(issues: plan.issues + now) }
                throw StoreError.uniqueRefused(path: path, detail: detail)
            }
            result.keptReferences = keptReferences(plan)
            didSave(plan)
            return result
        } catch {
            unmarkCascaded(plan)
            throw error
        }
    }

    /// The plan's kept references, by relationship (in model order).
    private func keptReferences(_ plan: DeletionPlan) -> [KeptReferences] {
        var found: [KeptReferences] = []
        for (object, r, referring) in plan.keptReferences {
            guard let id = object.objectID else { continue }
            let inverse = model.inverse(of: r)
            let name = "\(r.destination).\(inverse.name)"
            if let k = found.firstIndex(where: { $0.relationship == name }) {
                found[k].referring += referring.count
                found[k].deleted.append(id)
            } else {
                found.append(KeptReferences(relationship: name, rule: "\(object.entity.name).\(r.name)",
                                            referring: referring.count, deleted: [id]))
            }
        }
        return found.map { var k = $0; k.deleted.sort(); return k }
    }

    /// Objects this save does not change whose model rules look through relationships, at any depth, at one it
    /// changes, inserts or deletes: a document whose rule sums its rows when a row is set, added or deleted; a customer
    /// whose rule sums its orders' rows (`orders.rows.@sum.sum`) when a row is, or an order moves to another customer;
    /// every row of a customer's orders whose rule reads `order.customer.code` when the code changes. Their rules are
    /// checked too, so that `check` never finds what a successful save created.
    ///
    /// From each changed object the rule's key path is followed backwards (`Model.ruleDependencies`), through what
    /// each relationship holds now and, for a to-one, what it held: a link this save made or broke is found from the
    /// object whose relationship changed, whichever side that is, and the path from there to the rule's object is one
    /// the save left as it was. The search reads only the changed objects and the objects on such paths from them.
    private func neighboursWithRules(of survivors: [ManagedObject], _ plan: DeletionPlan) throws -> [ManagedObject] {
        var seen = Set(survivors.map(ObjectIdentifier.init))
        var found: [ManagedObject] = []
        // (Each object is followed along each way back once, however many changed objects lead to it.)
        var walked: Set<WalkStep> = []
        for o in survivors + plan.objects {
            for (way, back) in (model.ruleDependencies[o.entity.name] ?? []).enumerated() {
                var frontier = [o]
                for (step, r) in back.enumerated() {
                    var next: [ManagedObject] = []
                    for x in frontier
                    where walked.insert(WalkStep(object: ObjectIdentifier(x), from: o.entity.name, way: way, step: step)).inserted {
                        next += try relatedNowAndBefore(x, r)
                    }
                    frontier = next
                }
                for t in frontier where !t.isDeleted && !plan.members.contains(ObjectIdentifier(t)) {
                    if seen.insert(ObjectIdentifier(t)).inserted { found.append(t) }
                }
            }
        }
        return found.sorted(by: ManagedObject.idOrder)
    }

    /// What `r` of `o` holds now, and for a to-one also the object it held when stored (a relinked order's former
    /// customer); members a to-many lost before they were loaded too.
    private func relatedNowAndBefore(_ o: ManagedObject, _ r: EntityRelationship) throws -> [ManagedObject] {
        if r.isToMany {
            var related = try o.members(r)
            if case .some(let set) = o.toMany[r.name] { related += set.removed.values }
            return related
        }
        var related: [ManagedObject] = []
        let now = try o.currentTarget(r)
        if let now { related.append(now) }
        if let stored = o.storedToOne[r.name], stored != now?.rowID,
           let before = try? existingObject(entity: r.destination, rowID: stored) {
            related.append(before)
        }
        return related
    }

    /// Inserted objects, then changed ones (including those a deletion nullifies), none being deleted.
    private func saveCandidates(excluding plan: DeletionPlan) -> [ManagedObject] {
        for (o, r) in plan.nullifications {
            o.toOne[r.name] = .some(nil)
            o.touched.insert(r.name)
            didChange(o)
        }
        let changed = changedObjects.values.filter { !plan.members.contains(ObjectIdentifier($0)) && !$0.isDeleted }
        return insertedObjects + changed.sorted(by: ManagedObject.idOrder)
    }

    private func write(_ objects: [ManagedObject], _ plan: DeletionPlan) throws -> SaveResult {
        var result = SaveResult()
        let inserts = insertionOrder(objects.filter(\.isInserted))
        let updates = objects.filter { !$0.isInserted }
        var assigned: [(ManagedObject, Int64)] = []
        do {
            try store.write(rerunnable: true) { db in
                // (Run again from here after a rollback: nothing of a failed run is kept.)
                result = SaveResult()
                for (o, _) in assigned { o.rowID = nil }
                assigned = []
                // A one-to-one key that moves is cleared first: its column is unique, and the object it moves to may be
                // written before the one it leaves.
                for o in updates { try clearMovingOneToOneKeys(o, db) }
                // Likewise unique values that move between objects of this save (a swap, a chain, a value taken from
                // an object deleted later in the save): SQLite checks each statement, so they are parked first.
                try parkMovingUniqueValues(updates, plan, db)
                // Clear references first, so no foreign key ever points at a deleted row.
                for o in updates { try update(o, db) { result.updated.append($0) } }
                // The highest ID this save deleted or inserted, per entity: its mark is raised to it once, at the
                // end (an ID is never handed out twice: see Store+ObjectIDs).
                var handedOutUpTo: [String: Int64] = [:]
                for o in plan.objects.reversed() {
                    guard let rowID = o.rowID else { continue }
                    try db.execute(cached: ContextSQL(db.dialect).delete(from: o.entity.name), [.integer(rowID)])
                    result.deleted.append(ObjectID(entity: o.entity.name, rowID: rowID))
                    handedOutUpTo[o.entity.name] = max(handedOutUpTo[o.entity.name] ?? 0, rowID)
                }
                var nextIDs: [String: Int64] = [:]
                for entity in Set(inserts.map(\.entity.name)).sorted() { try store.confirmIDMarkReadable(db, entity: entity) }
                for o in inserts {
                    let entity = o.entity.name
                    let next = try nextIDs[entity]
                        ?? store.nextObjectID(after: max(Store.highestHandedOutID(db, entity: entity), handedOutUpTo[entity] ?? 0), entity: entity)
                    let rowID = try insert(o, id: next, db)
                    nextIDs[entity] = next < Int64.max ? next + 1 : nil
                    handedOutUpTo[entity] = max(handedOutUpTo[entity] ?? 0, rowID)
                    o.rowID = rowID
                    assigned.append((o, rowID))
                    result.inserted.append(ObjectID(entity: entity, rowID: rowID))
                }
                for (entity, id) in handedOutUpTo { try Store.raiseIDMark(db, entity: entity, to: id) }
                // Foreign keys to objects inserted in this save — from new objects (cycles) and from stored ones
                // (`add Customer name=C orders=A-1` moves a stored order to the new customer) — are set once
                // every new object has its row ID.
                for o in inserts { try update(o, db) { _ in } }
                for o in updates where pointsToInserted(o) {
                    try update(o, db, deferredOnly: true) { id in
                        if !result.updated.contains(id) { result.updated.append(id) }
                    }
                }
                try writeLinks(db, plan)
            }
        } catch {
            for (o, _) in assigned { o.rowID = nil }
            throw error
        }
        result.updated.sort()
        return result
    }

    /// Inserted objects ordered so that an object's to-one targets are inserted before it.
    private func insertionOrder(_ objects: [ManagedObject]) -> [ManagedObject] {
        var ordered: [ManagedObject] = []
        var state: [ObjectIdentifier: Bool] = [:] // false = visiting, true = done
        let inserting = Set(objects.map(ObjectIdentifier.init))
        func visit(_ o: ManagedObject) {
            let key = ObjectIdentifier(o)
            if state[key] != nil { return }
            state[key] = false
            for r in o.entity.relationships where !r.isToMany {
                if case .some(.some(let t)) = o.toOne[r.name], inserting.contains(ObjectIdentifier(t)) { visit(t) }
            }
            state[key] = true
            ordered.append(o)
        }
        objects.forEach(visit)
        return ordered
    }

    private func foreignKeyColumns(_ o: ManagedObject) -> [(String, EntityRelationship)] {
        o.entity.relationships.compactMap { r in
            guard !r.isToMany, case .foreignKey(let column) = model.storage(of: r, in: o.entity) else { return nil }
            return (column, r)
        }
    }

    private func insert(_ o: ManagedObject, id: Int64, _ db: any StorageConnection) throws -> Int64 {
        var columns: [String] = []
        var arguments: [StoredValue] = [.integer(id)]
        for a in o.entity.attributes {
            columns.append(a.name)
            arguments.append((o.values[a.name] ?? .null).storedValue(for: a.type))
        }
        for (column, r) in foreignKeyColumns(o) {
            columns.append(column)
            // A target not stored yet gets its key in the second pass.
            if case .some(.some(let t)) = o.toOne[r.name] { arguments.append(t.rowID.map(StoredValue.integer) ?? .null) } else { arguments.append(.null) }
        }
        try db.execute(cached: ContextSQL(db.dialect).insert(into: o.entity.name, columns: columns), arguments)
        // The ID given is the row's (PostgreSQL has no row ID of its own to report).
        return id
    }

    /// Before the updates, parks the unique values that this save moves between objects of one entity: for each
    /// unique attribute that two or more of its stored objects change or give up (by deletion), each of those
    /// objects' value is set to one no other row holds — NULL where the column allows it, else a value beside the
    /// column's range — so that the updates may write the final values in any order. (A swap of two authors'
    /// names failed with SQLite's "UNIQUE constraint failed"; found by DeepRuleTests' stress form.)
    private func parkMovingUniqueValues(_ updates: [ManagedObject], _ plan: DeletionPlan, _ db: any StorageConnection) throws {
        let deleted = plan.objects.filter { $0.rowID != nil }
        for entity in model.entities {
            for a in entity.attributes where a.isUnique || a.name == entity.naturalKey {
                let movers = updates.filter { $0.entity.name == entity.name && $0.rowID != nil
                    && $0.touched.contains(a.name) && $0.attributeChanged(a.name) }
                guard !movers.isEmpty else { continue }
                let leaving = deleted.filter { $0.entity.name == entity.name }
                guard movers.count + leaving.count >= 2 else { continue }
                let table = entity.name, column = a.name
                for (k, o) in (movers + leaving).enumerated() {
                    let parked: StoredValue
                    if !a.isRequired {
                        parked = .null
                    } else {
                        switch a.type.columnType {
                        case "TEXT": parked = .text("\u{7F}bookkeeper-moving-\(UUID().uuidString)")
                        case "INTEGER":
                            let low = try db.int64(ContextSQL(db.dialect).extreme(column, in: table, largest: false)) ?? 0
                            let high = try db.int64(ContextSQL(db.dialect).extreme(column, in: table, largest: true)) ?? 0
                            if low > Int64.min + 1_000_000 { parked = .integer(low - 1 - Int64(k)) }
                            else if high < Int64.max - 1_000_000 { parked = .integer(high + 1 + Int64(k)) }
                            else { continue }   // a column spanning Int64: left to SQLite's check
                        case "REAL":
                            let low = try db.double(ContextSQL(db.dialect).extreme(column, in: table, largest: false)) ?? 0
                            var next = low
                            for _ in 0...k { next = next.nextDown }
                            guard next.isFinite else { continue }
                            parked = .real(next)
                        default:
                            parked = .blob(Data(UUID().uuidString.utf8))
                        }
                    }
                    try db.execute(cached: ContextSQL(db.dialect).update(table, setting: [column]), [parked, o.rowID.map(StoredValue.integer) ?? .null])
                }
            }
        }
    }

    /// Sets to NULL each stored one-to-one key of `o` that this save changes (`update` then writes the new one).
    private func clearMovingOneToOneKeys(_ o: ManagedObject, _ db: any StorageConnection) throws {
        guard let rowID = o.rowID else { return }
        for (column, r) in foreignKeyColumns(o) where o.touched.contains(r.name) && !model.inverse(of: r).isToMany {
            guard let stored = o.storedToOne[r.name], case .some(let target) = o.toOne[r.name], target?.rowID != stored else { continue }
            try db.execute(cached: ContextSQL(db.dialect).clear(o.entity.name, column: column), [.integer(rowID)])
        }
    }

    /// Whether a stored object's to-one relationship was set to an object this save inserts.
    private func pointsToInserted(_ o: ManagedObject) -> Bool {
        foreignKeyColumns(o).contains { _, r in
            if o.touched.contains(r.name), case .some(.some(let t)) = o.toOne[r.name], t.isInserted { return true }
            return false
        }
    }

    /// Writes an object's changed columns; calls `didUpdate` when a stored object really changed. A foreign key
    /// to an object not inserted yet is left for the pass after the inserts (`deferredOnly` writes just those).
    private func update(_ o: ManagedObject, _ db: any StorageConnection, deferredOnly: Bool = false, didUpdate: (ObjectID) -> Void) throws {
        guard let rowID = o.rowID else { return }
        var assignments: [String] = []
        var arguments: [StoredValue] = []
        for a in o.entity.attributes where !deferredOnly && !o.isInserted && o.touched.contains(a.name) {
            guard try o.attributeChanged(a.name) || storedDiffers(o, a, rowID, db) else { continue }
            assignments.append(a.name)
            arguments.append((o.values[a.name] ?? .null).storedValue(for: a.type))
        }
        for (column, r) in foreignKeyColumns(o) where o.touched.contains(r.name) {
            guard case .some(let target) = o.toOne[r.name] else { continue }
            let newKey = target?.rowID
            let waitsForInsert = target.map { $0.isInserted && $0.rowID == nil } ?? false
            if deferredOnly && !(target?.isInserted ?? false) { continue }
            if waitsForInsert || (o.isInserted && newKey == nil) { continue }
            if !o.isInserted && !deferredOnly && newKey == o.storedToOne[r.name] { continue }
            assignments.append(column)
            arguments.append(newKey.map(StoredValue.integer) ?? .null)
        }
        if assignments.isEmpty {
            if !o.isInserted && linksChanged(o) { didUpdate(ObjectID(entity: o.entity.name, rowID: rowID)) }
            return
        }
        arguments.append(.integer(rowID))
        try db.execute(cached: ContextSQL(db.dialect).update(o.entity.name, setting: assignments), arguments)
        // Another context or process deleted the row since it was read: the save fails rather than report an
        // update that wrote nothing (found by the attack on the library: SaveResult listed it as updated).
        if db.changes == 0 { throw ContextError.objectNotFound(ObjectID(entity: o.entity.name, rowID: rowID)) }
        if !o.isInserted { didUpdate(ObjectID(entity: o.entity.name, rowID: rowID)) }
    }

    /// Whether the stored value of `a` is not what the value set, equal to the one read, stores: text another tool
    /// wrote with a NUL or bytes that are not UTF-8 reads as the text before the NUL or repaired, a Boolean stored
    /// as 2 reads as yes (`check` names each). Setting the value it reads as writes it, and the object changed.
    private func storedDiffers(_ o: ManagedObject, _ a: EntityAttribute, _ rowID: Int64, _ db: any StorageConnection) throws -> Bool {
        let value = (o.values[a.name] ?? .null).storedValue(for: a.type)
        let same = try db.cachedRows(ContextSQL(db.dialect).stored(o.entity.name, column: a.name), [value, .integer(rowID)]).first?[0].bool
        return same == false
    }

    /// Whether a many-to-many relationship of the object gained or lost a link.
    private func linksChanged(_ o: ManagedObject) -> Bool {
        linkChanges.values.contains { ($0.first === o || $0.second === o) }
    }

    private func writeLinks(_ db: any StorageConnection, _ plan: DeletionPlan) throws {
        for change in linkChanges.values {
            guard let a = change.first.rowID, let b = change.second.rowID,
                  !plan.members.contains(ObjectIdentifier(change.first)),
                  !plan.members.contains(ObjectIdentifier(change.second)) else { continue }
            let sql = change.present
                ? ContextSQL(db.dialect).addLink(change.table, own: change.firstColumn, other: change.secondColumn)
                : ContextSQL(db.dialect).removeLink(change.table, own: change.firstColumn, other: change.secondColumn)
            try db.execute(cached: sql, [.integer(a), .integer(b)])
        }
    }

    /// After a successful save: new objects become stored ones, deleted ones are forgotten, changes are cleared.
    private func didSave(_ plan: DeletionPlan) {
        for o in insertedObjects {
            o.isInserted = false
            registered[o.objectID!] = o
        }
        for o in plan.objects {
            if let id = o.objectID { registered[id] = nil }
            o.rowID = nil
        }
        for o in insertedObjects + Array(changedObjects.values) + Array(registered.values) {
            o.committedValues = o.values
            o.touched = []
            for (name, target) in o.toOne {
                o.storedToOne[name] = target?.rowID
            }
        }
        insertedObjects = []
        deletedObjects = []
        changedObjects = [:]
        linkChanges = [:]
    }
}

/// The references one relationship keeps to objects a save deleted (its inverse has delete rule No Action): they
/// read as none, `show` prints the ID as missing, and `check` notes them.
package struct KeptReferences: Sendable, Equatable {
    /// `Note.customer`: the relationship that holds the references.
    package var relationship: String
    /// `Customer.notes`: the relationship whose delete rule is No Action.
    package var rule: String
    /// How many objects still refer to a deleted one.
    package var referring: Int
    /// The deleted objects they refer to.
    package var deleted: [ObjectID]
}

/// An object reached at one step of one way back from a change to a rule's object (see `neighboursWithRules`).
/// (`way` indexes the ways back from entity `from`.)
private struct WalkStep: Hashable {
    let object: ObjectIdentifier
    let from: String
    let way: Int
    let step: Int
}
