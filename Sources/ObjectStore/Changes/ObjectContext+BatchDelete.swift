// A batch delete: every object a predicate finds, with the model's delete rules applied as a save applies them —
// Cascade (to any depth: one statement per relationship and round, until a round finds nothing new), Deny (the
// whole batch refused, naming the objects and what refers to them), Nullify (one UPDATE per relationship; a
// required reference refused), No Action (references kept, and counted) — then the model's rules on every object
// whose rules read a deleted or cleared one. Any problem rolls everything back.

import ValueText

extension ObjectContext {
    /// Runs a batch delete (see `BatchDeleteRequest`). Every problem is reported together as a `ValidationError`
    /// (65); nothing is written then, nor in a dry run. The context must have no unsaved changes; it forgets its
    /// objects afterwards.
    package func execute(_ request: BatchDeleteRequest) throws -> BatchDeleteResult {
        guard !hasChanges else {
            throw InputError("a batch delete needs a context without unsaved changes: save or roll them back first", category: .usage)
        }
        let entity = try model.entity(request.fetch.entity)
        let plan = try BatchChange.plan(request.fetch, model)
        defer { rollback() }
        do {
            return try store.write { db in
                let result = try delete(entity, plan, dryRun: request.dryRun, db)
                if request.dryRun { throw DryRunRollback(result: result) }
                return result
            }
        } catch let rolledBack as DryRunRollback<BatchDeleteResult> {
            return rolledBack.result
        }
    }

    private func delete(_ entity: Entity, _ plan: FetchPlan, dryRun: Bool, _ db: any StorageConnection) throws -> BatchDeleteResult {
        let change = try BatchChange(model: model, db: db)
        let sql = change.sql
        let (selection, arguments) = plan.sql(.objects, in: db)
        try db.execute(sql.seedDeleted(selection: selection, argumentCount: arguments.count), arguments + [.text(entity.name)])
        // Cascade, round by round.
        var round = 1
        while true {
            var added = 0
            for e in model.entities {
                for r in e.relationships where r.deleteRule == .cascade {
                    try db.execute(sql.cascade(r, of: e), [.text(r.destination), .text(e.name), .integer(Int64(round))])
                    added += db.changes
                }
            }
            if added == 0 { break }
            round += 1
        }
        var requested: [ObjectID] = [], cascaded: [ObjectID] = []
        for row in try db.rows(sql.deletedObjects) {
            let id = ObjectID(entity: row.string(0) ?? "", rowID: row.int64(1) ?? 0)
            if id.entity == entity.name && row.int(2) == 0 { requested.append(id) } else { cascaded.append(id) }
        }
        var result = BatchDeleteResult(entity: entity.name, requested: requested, cascaded: cascaded, nullified: [],
                                       keptReferences: [], dryRun: dryRun)
        guard !requested.isEmpty else { return result }

        var issues: [String] = []
        var nullifications: [(table: String, column: String, from: String)] = []
        var cleared: [(Entity, String, [StoredValue])] = []
        for e in model.entities {
            for r in e.relationships {
                let inverse = model.inverse(of: r)
                switch r.deleteRule {
                case .deny:
                    let pairs = try referring(r, of: e, db, sql)
                    issues += try denials(pairs, r, of: e, db, sql)
                case .nullify where !inverse.isToMany:
                    let pairs = try referring(r, of: e, db, sql)
                    guard !pairs.isEmpty else { continue }
                    let d = model.entity(named: r.destination)!
                    for (deleted, referrer) in pairs {
                        result.nullified.append(ClearedReference(object: ObjectID(entity: d.name, rowID: referrer), relationship: inverse.name,
                                                                 referred: ObjectID(entity: e.name, rowID: deleted)))
                    }
                    if inverse.isRequired {
                        let objects = Array(Set(pairs.map(\.1))).sorted()
                        let labels = try self.labels(objects.prefix(5).map { $0 }, of: d, db, sql)
                        let more = objects.count > 5 ? " and \(PlainText.groupedDigits(objects.count - 5)) more" : ""
                        issues.append("\(d.name).\(inverse.name) is required, but the deletion would clear it on \(labels.joined(separator: ", "))\(more)")
                    }
                    // Their own rules, and those that read them, are checked after the change (found now, while
                    // the references are there).
                    cleared.append((d, sql.surviving(r, of: e), [.text(e.name), .text(d.name)]))
                    if case .foreignKey(let column) = model.storage(of: inverse, in: d) {
                        nullifications.append((d.name, column, e.name))
                    }
                case .noAction where !inverse.isToMany:
                    let d = model.entity(named: r.destination)!
                    guard case .foreignKey = model.storage(of: inverse, in: d) else { continue }
                    let pairs = try referring(r, of: e, db, sql)
                    guard !pairs.isEmpty else { continue }
                    let deleted = Array(Set(pairs.map(\.0))).sorted().map { ObjectID(entity: e.name, rowID: $0) }
                    result.keptReferences.append(KeptReferences(relationship: "\(d.name).\(inverse.name)", rule: "\(e.name).\(r.name)",
                                                                referring: pairs.count, deleted: deleted))
                default:
                    continue
                }
            }
        }
        if !issues.isEmpty { throw BatchChange.failure(issues) }
        result.nullified.sort { ($0.object, $0.relationship) < ($1.object, $1.relationship) }

        // Whose rules read what goes: found before the deletion, while the links are there.
        let byEntity = try db.rows(sql.deletedByEntity).map { (entity: $0.string(0) ?? "", highest: $0.int64(2) ?? 0, round: $0.int(3) ?? 0) }
        for (name, _, _) in byEntity {
            try change.touchWithDependents(of: model.entity(named: name)!, ids: sql.deletedIDs(1), arguments: [.text(name)])
        }
        for (d, ids, arguments) in cleared { try change.touchWithDependents(of: d, ids: ids, arguments: arguments) }
        for (table, column, from) in nullifications {
            try db.execute(sql.nullify(table: table, column: column), [.text(from), .text(table)])
        }
        // Dependants first (the latest round), so that no foreign key ever points at a deleted row.
        for (name, highest, _) in byEntity.sorted(by: { ($0.round, $0.entity) > ($1.round, $1.entity) }) {
            try db.execute(sql.delete(model.entity(named: name)!), [.text(name)])
            // An ID is never handed out again (Store+ObjectIDs).
            try Store.raiseIDMark(db, entity: name, to: highest)
        }
        issues += try change.brokenRules()
        if !issues.isEmpty { throw BatchChange.failure(issues) }
        for statement in sql.clearTables { try db.execute(statement) }
        return result
    }

    /// (deleted object of `e`, object of `r.destination` that it reaches through `r` and that stays).
    private func referring(_ r: EntityRelationship, of e: Entity, _ db: any StorageConnection, _ sql: BatchChangeSQL) throws -> [(Int64, Int64)] {
        try db.rows(sql.pairs(r, of: e, from: sql.deletedIDs(1), excluding: sql.deletedIDs(2)),
                    [.text(e.name), .text(r.destination)]).map { ($0.int64(0) ?? 0, $0.int64(1) ?? 0) }
    }

    /// Deny: one line per deleted object that others still refer to, worded as `delete` words one (at most five
    /// objects, then how many more).
    private func denials(_ pairs: [(Int64, Int64)], _ r: EntityRelationship, of e: Entity, _ db: any StorageConnection,
                         _ sql: BatchChangeSQL) throws -> [String] {
        guard !pairs.isEmpty else { return [] }
        var blocking: [Int64: [Int64]] = [:]
        for (deleted, referrer) in pairs { blocking[deleted, default: []].append(referrer) }
        let blocked = blocking.keys.sorted()
        let labels = try self.labels(Array(blocked.prefix(5)), of: e, db, sql)
        var lines: [String] = []
        let d = model.entity(named: r.destination)!
        for (k, id) in blocked.prefix(5).enumerated() {
            let referrers = blocking[id]!
            let shown = try self.labels(Array(referrers.prefix(5)), of: d, db, sql).joined(separator: ", ")
            let more = referrers.count > 5 ? ", …" : ""
            let noun = referrers.count == 1 ? "\(r.destination) object refers" : "\(r.destination) objects refer"
            lines.append("\(labels[k]) cannot be deleted: \(referrers.count) \(noun) to it (\(shown)\(more)) — \(e.name).\(r.name) has delete rule Deny")
        }
        if blocked.count > 5 {
            lines.append("… and \(PlainText.groupedDigits(blocked.count - 5)) more \(e.name) objects cannot be deleted — \(e.name).\(r.name) has delete rule Deny")
        }
        return lines
    }

    /// `Customer/1 "Acme Ltd"` (or `OrderRow/3`) for each ID, as messages name objects.
    private func labels(_ ids: [Int64], of e: Entity, _ db: any StorageConnection, _ sql: BatchChangeSQL) throws -> [String] {
        guard !ids.isEmpty, let key = e.naturalKey.flatMap(e.attribute(named:)), let statement = sql.keys(of: e, count: ids.count) else {
            return ids.map { "\(e.name)/\($0)" }
        }
        var keys: [Int64: String] = [:]
        for row in try db.rows(statement, ids.map(StoredValue.integer)) {
            let stored = row[1]
            if stored != .null, let id = row.int64(0) { keys[id] = Value(stored: stored, as: key.type).text(in: .process) }
        }
        return ids.map { id in keys[id].map { "\(e.name)/\(id) \"\($0)\"" } ?? "\(e.name)/\(id)" }
    }
}
