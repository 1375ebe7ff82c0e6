
// Validation before every save: required values, types and scales, uniqueness (against the store and
// within the save), and the rules the domain adds per entity. Every problem is collected; none is written.

extension ObjectContext {
    func validate(_ objects: [ManagedObject], deletions plan: DeletionPlan) throws -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        let nullified = Set(plan.nullifications.map { PropertyRef(object: ObjectIdentifier($0.0), name: $0.1.name) })

        func issue(_ o: ManagedObject, _ key: String?, _ message: String) {
            issues.append(ValidationIssue(object: ObjectIdentifier(o), objectLabel: o.displayID,
                                          key: key.map { "\(o.entity.name).\($0)" }, message: message))
        }

        var uniqueSeen: [String: ManagedObject] = [:]
        let evaluator = PredicateEvaluator(context: self)
        for o in objects {
            let e = o.entity
            for a in e.attributes {
                let value = o.values[a.name] ?? .null
                let name = "\(e.name).\(a.name)"
                if value.isNull {
                    if a.isRequired { issue(o, a.name, "\(name) is required") }
                    continue
                }
                if !value.fits(a.type) {
                    if case .decimal(let d) = value, case .decimal(let scale) = a.type {
                        if d.exactly(atScale: scale) != nil,
                           model.behaviours[e.name]?.rangeCheckedByBehaviour.contains(a.name) == true { continue }
                        issue(o, a.name, "\(name) \(Value.decimalMisfit(d, scale: scale))")
                    } else {
                        issue(o, a.name, value.unstorableReason(in: a.type).map { "\(name) \($0)" } ?? "\(name) \"\(value)\" is not a \(a.type)")
                    }
                    continue
                }
                if a.isUnique && (o.isInserted || o.attributeChanged(a.name)) {
                    // (By NFC: two objects given the same text in two normal forms are one value given twice.)
                    let key = "\(name)\u{0}\(value.normalizedForKeys.storedValue(for: a.type))"
                    if let other = uniqueSeen[key] {
                        issue(o, a.name, "\(name) \"\(value)\" is given to two objects (\(other.displayID) and \(o.displayID))")
                    } else {
                        uniqueSeen[key] = o
                        if let holder = try storedHolder(of: a, value: value, in: e, excluding: o, plan: plan) {
                            issue(o, a.name, "\(name) \"\(value)\" already exists (\(holder))")
                        }
                    }
                }
            }
            for r in e.relationships where !r.isToMany && r.isRequired {
                let cleared = nullified.contains(PropertyRef(object: ObjectIdentifier(o), name: r.name))
                if cleared { continue } // reported by the deletion plan
                if try o.currentTarget(r) == nil && o.dangling(r) == nil {
                    // A stored object emptied through the other side (`set Order A-1 rows=…`) is named.
                    issue(o, r.name, o.rowID == nil ? "\(e.name).\(r.name) is required" : "\(o.label): \(e.name).\(r.name) is required")
                } else if let t = try o.currentTarget(r), plan.members.contains(ObjectIdentifier(t)) {
                    issue(o, r.name, "\(e.name).\(r.name) refers to \(t.label), which is being deleted")
                }
            }
            if let rules = model.behaviours[e.name]?.validate {
                for message in rules(o) { issue(o, nil, message) }
            }
            for (rule, message) in model.boundRules[e.name] ?? [] where try !evaluator.evaluate(rule, on: o) {
                issue(o, nil, "\(o.label): \(message)")
            }
        }
        return issues
    }

    /// The label of a stored object (other than `object`) that holds `value` in unique attribute `a`,
    /// unless that object is being deleted or changes its value in this save.
    private func storedHolder(of a: EntityAttribute, value: Value, in e: Entity, excluding object: ManagedObject,
                              plan: DeletionPlan) throws -> String? {
        let ids = try store.read { db in
            try db.cachedRows(ContextSQL(db.dialect).ids(in: e.name, where: a.name), [value.storedValue(for: a.type)]).compactMap { $0.int64(0) }
        }
        for id in ids where id != object.rowID {
            if let other = registered[ObjectID(entity: e.name, rowID: id)] {
                if plan.members.contains(ObjectIdentifier(other)) || other.isDeleted { continue }
                if other.values[a.name] != value { continue }
            }
            return "\(e.name)/\(id)"
        }
        // The unique index compares bytes: the same text in another normal form is this check's to find, and the
        // message names the stored spelling, which looks the same.
        guard case .string(let text) = value, !TextFolding.isASCII(text) else { return nil }
        for other in try storedObjects(of: e, nonASCIIIn: a) where other !== object {
            if plan.members.contains(ObjectIdentifier(other)) || other.isDeleted { continue }
            guard case .string(let stored)? = other.values[a.name], TextNormalForm.equivalent(stored, text) else { continue }
            if TextNormalForm.sameBytes(stored, text) { return other.displayID }
            return "as \"\(stored)\", the same text in another Unicode normal form"
        }
        return nil
    }
}

/// One property of one object, as a set element.
struct PropertyRef: Hashable {
    let object: ObjectIdentifier
    let name: String
}
