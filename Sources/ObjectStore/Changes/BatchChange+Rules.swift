// What batch updates and deletes share: the objects whose model rules a change reaches, found as a save finds
// them (`Model.ruleDependencies`: each rule's key paths followed backwards from a changed object, at any depth)
// but for a whole set of objects in one statement per way back; the rules checked on those objects only, in SQL
// (`NOT (rule)` restricted to them), worded as `check` and every import word a broken rule; and objects named in
// messages, at most five and a count of the rest.

import ValueText

/// A batch change in progress inside one write transaction.
struct BatchChange {
    let model: ObjectModel
    let db: any StorageConnection
    let sql: BatchChangeSQL

    init(model: ObjectModel, db: any StorageConnection) throws {
        self.model = model
        self.db = db
        sql = BatchChangeSQL(model: model, dialect: db.dialect)
        for statement in sql.prepareTables { try db.execute(statement) }
    }

    var hasRules: Bool { model.entities.contains { !$0.rules.isEmpty } }

    /// The fetch plan's statement for the objects a request finds (no sort but the IDs).
    static func plan(_ request: ObjectFetchRequest, _ model: ObjectModel) throws -> FetchPlan {
        var fetch = request
        fetch.sortDescriptors = []
        fetch.sortIsDefault = false
        fetch.limit = nil
        fetch.offset = nil
        return try FetchPlan(fetch, model: model, columns: [])
    }

    /// Adds to `touched` the objects of `entity` that `ids` selects (one column `v`) when their entity has rules,
    /// and every object whose rules read them through relationships. `arguments` are those of `ids`; the
    /// statements bind the destination's name after them.
    func touchWithDependents(of entity: Entity, ids: String, arguments: [StoredValue]) throws {
        guard hasRules else { return }
        let n = arguments.count + 1
        if !entity.rules.isEmpty {
            try db.execute(sql.touch(ids, entityArgument: n), arguments + [.text(entity.name)])
        }
        for back in model.ruleDependencies[entity.name] ?? [] {
            var selection = ids
            var at = entity
            for r in back {
                selection = sql.follow(r, of: at, from: selection)
                at = model.entity(named: r.destination)!
            }
            try db.execute(sql.touch(selection, entityArgument: n), arguments + [.text(at.name)])
        }
    }

    /// The rules the touched objects break, `Entity/ID "key": message` each (at most five per rule, then `… and N
    /// more: message`), as `check` words them. Deleted objects are taken out first.
    func brokenRules() throws -> [String] {
        guard hasRules else { return [] }
        try db.execute(sql.untouchDeleted)
        var problems: [String] = []
        let entities = Set(try db.column(sql.touchedEntities).compactMap(\.string))
        for entity in model.entities where entities.contains(entity.name) {
            for rule in entity.rules {
                let plan = try FetchPlan(ObjectFetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))"), model: model, columns: [])
                let (breakers, arguments) = plan.sql(.objects, in: db)
                let key = entity.naturalKey.flatMap(entity.attribute(named:))
                let rows = try db.rows(sql.brokenRule(ruleBreakers: breakers, argumentCount: arguments.count, naturalKey: key?.name),
                                       arguments + [.text(entity.name), .integer(5)])
                for row in rows {
                    let id = row.int64(0) ?? 0
                    let stored = row[1]
                    let keyText = stored == .null ? "" : key.map { " \"\(Value(stored: stored, as: $0.type).text(in: .process))\"" } ?? ""
                    problems.append("\(entity.name)/\(id)\(keyText): \(rule.message)")
                }
                if rows.count == 5 {
                    let total = try db.int(sql.brokenRuleCount(ruleBreakers: breakers, argumentCount: arguments.count),
                                           arguments + [.text(entity.name)]) ?? 0
                    if total > 5 { problems.append("\(entity.name): … and \(total - 5) more: \(rule.message)") }
                }
            }
        }
        return problems
    }

    /// `Order/1, Order/2, Order/3, Order/4, Order/5 and 1,229 more`: the first five of `count` objects.
    static func listed(_ first: [ObjectID], count: Int) -> String {
        let shown = first.prefix(5).map(\.description).joined(separator: ", ")
        return count > 5 ? "\(shown) and \(PlainText.groupedDigits(count - 5)) more" : shown
    }
}

/// Thrown inside the write transaction of a dry run, so that it rolls back; carries the result out.
struct DryRunRollback<Result: Sendable>: Error {
    let result: Result
}

/// One row's values, for a domain's behaviour in code (`willSave`, `validate`), which reads objects.
final class RowValues: ObjectValues {
    let entity: Entity
    var values: [String: Value]

    init(entity: Entity, values: [String: Value]) {
        self.entity = entity
        self.values = values
    }

    subscript(_ key: String) -> Value {
        get { values[key] ?? .null }
        set { values[key] = newValue }
    }
}
