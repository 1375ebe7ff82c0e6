// A batch update: the same new values for every object a predicate finds, validated as a save validates, in a few
// set-based statements — the matching objects' IDs into a temporary table, the checks of the new values (once
// each: they are the same for every object), the unique values, one UPDATE, then the model's rules on the changed
// objects and on every object whose rules read them. Any problem rolls everything back.

import ValueText

extension ObjectContext {
    /// Runs a batch update (see `BatchUpdateRequest`). Every problem is reported together as a `ValidationError`
    /// (65) or an `InputError`, naming the objects (the first five and how many more); nothing is written then, nor
    /// in a dry run. The context must have no unsaved changes; it forgets its objects afterwards.
    package func execute(_ request: BatchUpdateRequest) throws -> BatchUpdateResult {
        guard !hasChanges else {
            throw InputError("a batch update needs a context without unsaved changes: save or roll them back first", category: .usage)
        }
        let entity = try model.entity(request.fetch.entity)
        try Assignment.checkNoConflicts(request.assignments)
        let plan = try BatchChange.plan(request.fetch, model)
        let assigned = try newValues(request.assignments, in: entity)
        defer { rollback() }
        do {
            return try store.write { db in
                let result = try update(entity, plan, assigned, dryRun: request.dryRun, db)
                if request.dryRun { throw DryRunRollback(result: result) }
                return result
            }
        } catch let rolledBack as DryRunRollback<BatchUpdateResult> {
            return rolledBack.result
        }
    }

    /// A column the update writes: the attribute or to-one relationship, and its new value as stored.
    struct AssignedColumn {
        let key: String
        let column: String
        let stored: StoredValue
        let value: Value
        let attribute: EntityAttribute?
        let relationship: EntityRelationship?
    }

    /// The new values, read as `set` reads them (the same converters and messages, `key=` clearing), by applying
    /// the assignments to a new object that is never saved.
    private func newValues(_ assignments: [Assignment], in entity: Entity) throws -> [AssignedColumn] {
        var problems: [any CategorizedError] = []
        for a in assignments {
            let name = String(a.key.prefix { $0 != "." })
            guard case .relationship(let r)? = try? entity.requireProperty(name) else { continue }
            if r.isToMany {
                problems.append(InputError("\(entity.name).\(r.name) is to-many: a batch update changes attributes and to-one relationships only — ", category: .usage, then: .changeOneByOne(eachObject: true)))
            } else if !model.inverse(of: r).isToMany {
                problems.append(InputError("\(entity.name).\(r.name) is one-to-one: a batch update cannot give one object to many — ", category: .usage, then: .changeOneByOne(eachObject: false)))
            }
        }
        if problems.count == 1 { throw problems[0] }
        if !problems.isEmpty { throw AssignmentErrors(problems: problems) }
        let probe = try insert(entity.name)
        defer { rollback() }
        try apply(assignments, to: probe)
        var columns: [AssignedColumn] = []
        for a in assignments {
            let name = String(a.key.prefix { $0 != "." })
            switch try entity.requireProperty(name) {
            case .attribute(let attribute):
                let value = probe[attribute.name]
                // (A value that does not fit is reported with the objects it would go to.)
                columns.append(AssignedColumn(key: attribute.name, column: attribute.name,
                                              stored: value.fits(attribute.type) ? value.storedValue(for: attribute.type) : .null,
                                              value: value, attribute: attribute, relationship: nil))
            case .relationship(let r):
                guard case .foreignKey(let column) = model.storage(of: r, in: entity) else { continue }
                let target = try probe.currentTarget(r)
                columns.append(AssignedColumn(key: r.name, column: column, stored: target?.rowID.map(StoredValue.integer) ?? .null,
                                              value: target.map { .string($0.displayID) } ?? .null, attribute: nil, relationship: r))
            }
        }
        return columns
    }

    private func update(_ entity: Entity, _ plan: FetchPlan, _ assigned: [AssignedColumn], dryRun: Bool,
                        _ db: any StorageConnection) throws -> BatchUpdateResult {
        let sql = BatchChangeSQL(model: model, dialect: db.dialect)
        let (selection, arguments) = plan.sql(.objects, in: db)
        var result = BatchUpdateResult(entity: entity.name, updated: 0, changes: [], dryRun: dryRun)
        // One statement when nothing needs the set of changed objects afterwards: no rule reads them, no value is
        // unique, no behaviour in code, no dry run, and every new value fits (else the objects are named).
        let behaviour = model.behaviours[entity.name].map { $0.willSave != nil || $0.validate != nil } ?? false
        let readByRules = !entity.rules.isEmpty || !(model.ruleDependencies[entity.name] ?? []).isEmpty
        if !dryRun && !behaviour && !readByRules && !assigned.contains(where: { isUnique($0, entity) })
            && valueProblems(entity, assigned, objects: "").isEmpty {
            if let direct = plan.directUpdate(columns: assigned.map(\.column), in: db) {
                try db.execute(direct.sql, direct.arguments + assigned.map(\.stored))
                result.updated = db.changes
                return result
            }
            try db.execute(sql.updateMatching(table: entity.name, selection: selection, argumentCount: arguments.count,
                                              columns: assigned.map(\.column)),
                           arguments + assigned.map(\.stored))
            result.updated = db.changes
            return result
        }

        let change = try BatchChange(model: model, db: db)
        try db.execute(sql.fillMatched(selection: selection, argumentCount: arguments.count, columns: assigned.map(\.column)),
                       arguments + assigned.map(\.stored))
        let count = try db.int(sql.matchedCount) ?? 0
        result.updated = count
        guard count > 0 else { return result }
        let first = try db.rows(sql.firstMatched, [.integer(5)]).map { ObjectID(entity: entity.name, rowID: $0.int64(0) ?? 0) }
        let objects = BatchChange.listed(first, count: count)

        // The new values, each checked once, as a save checks them; then unique values.
        var issues = valueProblems(entity, assigned, objects: objects)
        for c in assigned where isUnique(c, entity) && !c.value.isNull && c.value.fits(c.attribute!.type) {
            let name = "\(entity.name).\(c.key)"
            if count > 1 {
                issues.append(BatchChange.issue("\(name) \"\(c.value)\" would be given to \(PlainText.groupedDigits(count)) objects (\(objects)): it must be unique"))
            } else if let holder = try uniqueHolder(entity, c.attribute!, c, db) {
                issues.append(BatchChange.issue("\(name) \"\(c.value)\" already exists (\(holder)), so \(first[0]) cannot have it"))
            }
        }
        if !issues.isEmpty { throw BatchChange.failure(issues) }

        if dryRun {
            let types = assigned.map { $0.attribute?.type }
            let rows = try db.rows(sql.matchedValues(table: entity.name, columns: assigned.map(\.column)))
            result.changes = rows.map { row in
                let id = row.int64(0) ?? 0
                var values: [(key: String, old: String, new: String)] = []
                for (k, c) in assigned.enumerated() {
                    let stored = row[k + 1]
                    guard stored != c.stored else { continue }
                    let old: String
                    if let type = types[k] {
                        old = stored == .null ? "" : Value(stored: stored, as: type).text(in: .process)
                    } else {
                        old = stored == .null ? "" : "\(c.relationship!.destination)/\(stored)"
                    }
                    values.append((c.key, old, c.value.isNull ? "" : c.value.text(in: .process)))
                }
                return ObjectChange(object: ObjectID(entity: entity.name, rowID: id), values: values)
            }
        }

        // The objects whose rules read the changed ones, through what their relationships hold before the update
        // (a former customer) and after it (the new one).
        try change.touchWithDependents(of: entity, ids: sql.matchedIDs, arguments: [])
        try db.execute(sql.update(table: entity.name, columns: assigned.map(\.column)), assigned.map(\.stored))
        try change.touchWithDependents(of: entity, ids: sql.matchedIDs, arguments: [])
        let (behaviourIssues, derived) = try behaviourProblems(entity, sql, db)
        issues += BatchChange.issues(behaviourIssues)
        let broken = try change.brokenRules()
        if !issues.isEmpty || derived != nil || !broken.isEmpty {
            throw ValidationFailure(issues: issues + [derived].compactMap { $0 } + BatchChange.issues(broken))
        }
        for statement in sql.clearTables { try db.execute(statement) }
        return result
    }

    private func isUnique(_ c: AssignedColumn, _ entity: Entity) -> Bool {
        guard let a = c.attribute else { return false }
        return a.isUnique || a.name == entity.naturalKey
    }

    /// What is wrong with the new values themselves, as a save words it, each line ending with `objects` (the
    /// objects it would go to): a required value cleared, a value its attribute cannot hold.
    private func valueProblems(_ entity: Entity, _ assigned: [AssignedColumn], objects: String) -> [ValidationIssue] {
        var issues: [ValidationIssue] = []
        for c in assigned {
            let name = "\(entity.name).\(c.key)"
            if let a = c.attribute {
                if c.value.isNull {
                    // (`set` would let the domain's code derive it, as a row's sum from quantity × price.)
                    let derives = model.behaviours[entity.name]?.willSave != nil
                    if a.isRequired {
                        let step = NextStep.changeOneByOne(eachObject: true)
                        issues.append(derives
                            ? BatchChange.issue("\(name) is required (\(objects)) — a batch update runs none of the model's derivations: give a value, or \(step)", step)
                            : BatchChange.issue("\(name) is required (\(objects))"))
                    }
                } else if !c.value.fits(a.type) {
                    if case .decimal(let d) = c.value, case .decimal(let scale) = a.type {
                        issues.append(BatchChange.issue("\(name) \(Value.decimalMisfit(d, scale: scale)) (\(objects))"))
                    } else {
                        issues.append(BatchChange.issue(c.value.unstorableReason(in: a.type).map { "\(name) \($0) (\(objects))" }
                                      ?? "\(name) \"\(c.value)\" is not a \(a.type) (\(objects))"))
                    }
                }
            } else if let r = c.relationship, c.value.isNull, r.isRequired {
                issues.append(BatchChange.issue("\(name) is required (\(objects))"))
            }
        }
        return issues
    }

    /// The object of `entity` outside the update that holds `c`'s unique value already (`Customer/4`, or the same
    /// text in another Unicode normal form), if any.
    private func uniqueHolder(_ entity: Entity, _ a: EntityAttribute, _ c: AssignedColumn, _ db: any StorageConnection) throws -> String? {
        let sql = BatchChangeSQL(model: model, dialect: db.dialect)
        if let id = try db.int64(sql.holders(table: entity.name, column: a.name), [c.stored]) {
            return "\(entity.name)/\(id)"
        }
        guard case .string(let text) = c.value, !TextFolding.isASCII(text) else { return nil }
        let rows = try db.rows(sql.otherValues(table: entity.name, column: a.name))
        for row in rows {
            guard case .text(let stored) = row[1], TextNormalForm.equivalent(stored, text) else { continue }
            let id = row.int64(0) ?? 0
            return "\(entity.name)/\(id), as \"\(stored)\", the same text in another Unicode normal form"
        }
        return nil
    }

    /// What the domain's behaviours in code say of the updated objects: its `validate` messages, and a refusal
    /// where its `willSave` would derive a value (a batch update writes the values it is given, and derives none).
    /// `derived`: the values its `willSave` would derive, with the next step (give them with the update).
    private func behaviourProblems(_ entity: Entity, _ sql: BatchChangeSQL, _ db: any StorageConnection) throws
        -> (problems: [String], derived: ValidationIssue?) {
        guard let behaviour = model.behaviours[entity.name], behaviour.willSave != nil || behaviour.validate != nil else { return ([], nil) }
        var problems: [String] = []
        var derived: [ObjectID] = [], derivedKeys: Set<String> = [], derivedCount = 0
        var rows = try db.cursor(sql.matchedRows(table: entity.name))
        while let row = try rows.next() {
            let id = ObjectID(entity: entity.name, rowID: row["id"]?.int64 ?? 0)
            var values: [String: Value] = [:]
            for a in entity.attributes { values[a.name] = Value(stored: row[a.name] ?? .null, as: a.type) }
            let object = RowValues(entity: entity, values: values)
            if let willSave = behaviour.willSave {
                willSave(object)
                let changed = entity.attributes.filter { object.values[$0.name] != values[$0.name] }.map(\.name)
                if !changed.isEmpty {
                    derivedCount += 1
                    if derived.count < 5 { derived.append(id) }
                    derivedKeys.formUnion(changed)
                }
            }
            for message in behaviour.validate?(object) ?? [] where problems.count < 20 { problems.append("\(id): \(message)") }
        }
        guard derivedCount > 0 else { return (problems, nil) }
        let keys = derivedKeys.sorted().map { "\(entity.name).\($0)" }.joined(separator: ", ")
        let step = NextStep.giveUpdatedValues(count: derivedKeys.count)
        return (problems, ValidationIssue(object: nil, objectLabel: "", key: nil,
                                          message: "\(keys) would be derived by the model for \(BatchChange.listed(derived, count: derivedCount)): "
                                              + "a batch update derives no values — \(step)", nextStep: step))
    }
}

extension BatchChange {
    /// The problems of a batch change as one error (65), one line each.
    static func failure(_ messages: [String]) -> ValidationFailure {
        ValidationFailure(issues: issues(messages))
    }

    static func issues(_ messages: [String]) -> [ValidationIssue] {
        messages.map { issue($0) }
    }

    /// One problem of a batch change; `step` when the message ends with it.
    static func issue(_ message: String, _ step: NextStep? = nil) -> ValidationIssue {
        ValidationIssue(object: nil, objectLabel: "", key: nil, message: message, nextStep: step)
    }

    static func failure(_ issues: [ValidationIssue]) -> ValidationFailure {
        ValidationFailure(issues: issues)
    }
}
