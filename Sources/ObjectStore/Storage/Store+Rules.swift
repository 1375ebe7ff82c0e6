import Foundation

// The model's rules checked in the store: by `check`, and by every batch and batch change before it commits.

extension Store {
    /// The objects that break the model's rules, `Entity/ID: message` each, at most `limit` per rule; used by
    /// `check` and by every batch before it commits.
    /// With `counting`, a rule broken more than `limit` times ends with `… and N more`.
    func ruleViolations(_ db: any StorageConnection, limit: Int, entities: [Entity]? = nil, counting: Bool = false) throws -> [String] {
        var problems: [String] = []
        for entity in entities ?? model.entities {
            for rule in entity.rules {
                let plan = try FetchPlan(ObjectFetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))", limit: limit),
                                         model: model, columns: [])
                let (sql, arguments) = plan.sql(.objects, dialect: db.dialect)
                // Named by ID and natural key, as the context names objects (`Order/3 "B-2"`): inside a batch the
                // ID may be one that is rolled back, the key is what the user wrote.
                let rows = try db.rows(CheckSQL(db.dialect).objects(of: sql, key: entity.naturalKey), arguments)
                for row in rows {
                    // (Any storage class: in a table another tool rebuilt, "id" may be other than the row ID.)
                    let id = row[0]
                    let stored = row[1]
                    let keyText = stored == .null ? "" : entity.naturalKey.flatMap(entity.attribute(named:))
                        .map { " \"\(Value(stored: stored, as: $0.type).text(in: .process))\"" } ?? ""
                    problems.append("\(entity.name)/\(id)\(keyText): \(rule.message)")
                }
                if counting && rows.count == limit {
                    let all = try FetchPlan(ObjectFetchRequest(entity: entity.name, predicate: "NOT (\(rule.predicate))"), model: model, columns: [])
                    let (sql, arguments) = all.sql(.objects, dialect: db.dialect)
                    let total = try db.int(CheckSQL(db.dialect).count(of: sql), arguments) ?? 0
                    if total > limit { problems.append("\(entity.name): … and \(total - limit) more: \(rule.message)") }
                }
            }
        }
        return problems
    }
}
