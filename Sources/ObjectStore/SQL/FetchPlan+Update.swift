// A fetch plan as the WHERE of an UPDATE: for a batch update (Changes/ObjectContext+BatchUpdate.swift) whose
// predicate reads its entity's table alone, the statement a user would write by hand —
// `UPDATE "Order" AS t0 SET "paid" = ?5 WHERE (…the plan's conditions…) AND (t0."paid" IS NOT ?5)` — instead of
// `… WHERE "id" IN (SELECT …)`, which builds the set of IDs first.

extension FetchPlan {
    /// The UPDATE that gives `columns` of every object the plan finds the values bound after the statement's own
    /// arguments (in `columns`' order), where one differs; nil when the plan's statement needs a join (a to-one key
    /// path), which an UPDATE cannot hold. `db` tells which ranges are better read without their index, as for a
    /// fetch.
    package func directUpdate(columns: [String], in db: any StorageConnection) -> (sql: String, arguments: [StoredValue])? {
        let compiler = SQLCompiler(model: model, scopes: scopes, dialect: db.dialect, coverage: Store.rangeCoverage(db))
        let q = compiler.rootQuery()
        if let predicate { q.conditions.append(compiler.compile(predicate, negated: false, in: q)) }
        guard q.joins.isEmpty, request.limit == nil, request.offset == nil else { return nil }
        let d = compiler.dialect
        let n = compiler.arguments.count
        let sets = columns.enumerated().map { k, c in "\(d.quote(c)) = \(d.placeholder(n + k + 1))" }.joined(separator: ", ")
        let differs = columns.enumerated().map { k, c in d.isDistinct("t0.\(d.quote(c))", d.placeholder(n + k + 1)) }.joined(separator: " OR ")
        let conditions = q.conditions.map { "(\($0))" } + ["(\(differs))"]
        return ("UPDATE \(d.quote(entity.name)) AS t0 SET \(sets) WHERE \(conditions.joined(separator: " AND "))", compiler.arguments)
    }
}
