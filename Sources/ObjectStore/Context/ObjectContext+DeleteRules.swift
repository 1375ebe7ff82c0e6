// Delete rules, applied by the engine when a context is saved: Cascade deletes dependants recursively,
// Nullify clears their references to the deleted object, Deny refuses while related objects remain,
// No Action leaves everything as it is.

struct DeletionPlan {
    /// Every object to delete, the requested ones first, then what cascades from them.
    var objects: [ManagedObject] = []
    var members: Set<ObjectIdentifier> = []
    /// To-one references to clear on surviving objects: (object, relationship on that object).
    var nullifications: [(ManagedObject, EntityRelationship)] = []
    var issues: [ValidationIssue] = []
    /// References that No Action leaves to deleted objects: (deleted object, its relationship, the objects whose
    /// stored reference keeps its ID).
    var keptReferences: [(ManagedObject, EntityRelationship, [ManagedObject])] = []
}

extension ObjectContext {
    func planDeletions() throws -> DeletionPlan {
        var plan = DeletionPlan()
        var denials: [(ManagedObject, EntityRelationship, [ManagedObject])] = []

        func visit(_ object: ManagedObject) throws {
            guard plan.members.insert(ObjectIdentifier(object)).inserted else { return }
            plan.objects.append(object)
            for r in object.entity.relationships {
                let related: [ManagedObject] = r.isToMany ? try object.members(r) : (try object.currentTarget(r)).map { [$0] } ?? []
                switch r.deleteRule {
                case .cascade:
                    for target in related {
                        if !target.isDeleted { target.isDeleted = true }
                        try visit(target)
                    }
                case .deny:
                    if !related.isEmpty { denials.append((object, r, related)) }
                case .nullify:
                    let inverse = model.inverse(of: r)
                    if !inverse.isToMany {
                        for target in related { plan.nullifications.append((target, inverse)) }
                    }
                case .noAction:
                    // Only a to-one reference stored on the other side keeps the ID (a join table's links go).
                    let inverse = model.inverse(of: r)
                    if !inverse.isToMany, let d = model.entity(named: r.destination),
                       case .foreignKey = model.storage(of: inverse, in: d), !related.isEmpty {
                        plan.keptReferences.append((object, r, related))
                    }
                }
            }
        }

        for object in deletedObjects { try visit(object) }

        for (object, r, related) in denials {
            let blocking = related.filter { !plan.members.contains(ObjectIdentifier($0)) }
            guard !blocking.isEmpty else { continue }
            let shown = blocking.prefix(5).map(\.label).joined(separator: ", ")
            let more = blocking.count > 5 ? ", …" : ""
            let noun = blocking.count == 1 ? "\(r.destination) object refers" : "\(r.destination) objects refer"
            plan.issues.append(ValidationIssue(
                object: ObjectIdentifier(object), objectLabel: object.displayID, key: "\(object.entity.name).\(r.name)",
                message: "\(object.label) cannot be deleted: \(blocking.count) \(noun) to it (\(shown)\(more)) — \(object.entity.name).\(r.name) has delete rule Deny"))
        }
        let deleting = plan.members
        plan.keptReferences = plan.keptReferences.compactMap { object, r, related in
            let kept = related.filter { !deleting.contains(ObjectIdentifier($0)) }
            return kept.isEmpty ? nil : (object, r, kept)
        }
        plan.nullifications.removeAll { deleting.contains(ObjectIdentifier($0.0)) }
        for (target, r) in plan.nullifications where r.isRequired {
            plan.issues.append(ValidationIssue(
                object: ObjectIdentifier(target), objectLabel: target.displayID, key: "\(target.entity.name).\(r.name)",
                message: "\(target.entity.name).\(r.name) is required, but the deletion would clear it on \(target.label)"))
        }
        return plan
    }

    /// Undoes the in-memory marks a cascade made when a save fails, so the context is as before the save.
    func unmarkCascaded(_ plan: DeletionPlan) {
        let requested = Set(deletedObjects.map(ObjectIdentifier.init))
        for o in plan.objects where !requested.contains(ObjectIdentifier(o)) { o.isDeleted = false }
    }
}
