// The statements of a batch update and a batch delete by predicate (Changes/ObjectContext+BatchUpdate.swift,
// +BatchDelete.swift): set-based, over temporary tables that hold the objects a change reaches —
//
//   matched  (id)          the objects of the updated entity that the update changes;
//   deleted  (entity, id)  the objects a delete removes, cascades included;
//   touched  (entity, id)  the objects whose model rules are checked again: the changed ones and those whose rules
//                          read them through relationships (Model.ruleDependencies), at any depth.
//
// Each relationship is followed as one statement over a whole set of objects (`follow`); no statement is ever
// run once per object. The temporary tables live in the connection's temporary schema: not one byte of the store's
// file is written by them.

/// The SQL of batch changes, through the store's dialect.
package struct BatchChangeSQL {
    let model: ObjectModel
    let dialect: any SQLDialect

    package init(model: ObjectModel, dialect: any SQLDialect) {
        self.model = model
        self.dialect = dialect
    }

    static let matchedName = "bk_batch_matched"
    static let deletedName = "bk_batch_deleted"
    static let touchedName = "bk_batch_touched"

    var matched: String { dialect.temporary(Self.matchedName) }
    var deleted: String { dialect.temporary(Self.deletedName) }
    var touched: String { dialect.temporary(Self.touchedName) }

    private func q(_ name: String) -> String { dialect.quote(name) }
    private func p(_ n: Int) -> String { dialect.placeholder(n) }

    /// The statements that make the three temporary tables, empty.
    var prepareTables: [String] {
        [dialect.temporaryTable(Self.matchedName, columns: "\(q("id")) INTEGER PRIMARY KEY", primaryKey: nil),
         dialect.temporaryTable(Self.deletedName, columns: "\(q("entity")) TEXT NOT NULL, \(q("id")) INTEGER NOT NULL, \(q("round")) INTEGER NOT NULL",
                                primaryKey: ["entity", "id"]),
         dialect.temporaryTable(Self.touchedName, columns: "\(q("entity")) TEXT NOT NULL, \(q("id")) INTEGER NOT NULL",
                                primaryKey: ["entity", "id"]),
         "DELETE FROM \(matched)", "DELETE FROM \(deleted)", "DELETE FROM \(touched)"]
    }

    /// The statements that drop the temporary tables after a change (their rows would hold memory).
    var clearTables: [String] { [matched, deleted, touched].map { "DROP TABLE IF EXISTS \($0)" } }

    // MARK: Update

    /// Fills `matched` with the objects that `selection` (a fetch plan's object statement, `argumentCount`
    /// arguments) finds and that the assignments change: a column whose stored value differs from the new one,
    /// which is bound after the plan's arguments, in the order of `columns`.
    func fillMatched(selection: String, argumentCount: Int, columns: [String]) -> String {
        let differs = columns.enumerated().map { k, c in dialect.isDistinct("s.\(q(c))", p(argumentCount + k + 1)) }
        return "INSERT INTO \(matched) (\(q("id"))) SELECT s.\(q("id")) FROM (\(selection)) AS s"
            + (differs.isEmpty ? "" : " WHERE " + differs.joined(separator: " OR "))
    }

    /// The one statement of an update that needs no set of the changed objects afterwards (no rule reads them, no
    /// unique value, no dry run): the objects `selection` finds whose `columns` differ from the new values (bound
    /// after the plan's arguments) get them. The number of rows it changed is the number of objects updated.
    func updateMatching(table: String, selection: String, argumentCount: Int, columns: [String]) -> String {
        let sets = columns.enumerated().map { k, c in "\(q(c)) = \(p(argumentCount + k + 1))" }.joined(separator: ", ")
        let differs = columns.enumerated().map { k, c in dialect.isDistinct("s.\(q(c))", p(argumentCount + k + 1)) }.joined(separator: " OR ")
        return "UPDATE \(q(table)) SET \(sets) WHERE \(q("id")) IN (SELECT s.\(q("id")) FROM (\(selection)) AS s WHERE \(differs))"
    }

    /// How many objects `matched` holds.
    var matchedCount: String { "SELECT COUNT(*) FROM \(matched)" }

    /// The first `limit` matched objects' IDs (bound as argument 1), in ID order.
    var firstMatched: String { "SELECT \(q("id")) FROM \(matched) ORDER BY \(q("id")) LIMIT \(p(1))" }

    /// Every matched object's ID and stored `columns` of `table`, in ID order (a dry run's listing).
    func matchedValues(table: String, columns: [String]) -> String {
        let list = ([q("id")] + columns.map(q)).map { "t.\($0)" }.joined(separator: ", ")
        return "SELECT \(list) FROM \(q(table)) AS t WHERE t.\(q("id")) IN (SELECT \(q("id")) FROM \(matched)) ORDER BY t.\(q("id"))"
    }

    /// Up to two IDs of `table`'s objects outside `matched` whose `column` equals argument 1 (a unique value the
    /// update would give to an object that keeps it).
    func holders(table: String, column: String) -> String {
        "SELECT \(q("id")) FROM \(q(table)) WHERE \(q(column)) = \(p(1)) AND \(q("id")) NOT IN (SELECT \(q("id")) FROM \(matched)) LIMIT 2"
    }

    /// IDs and values of `table`'s objects outside `matched` with a `column` (the unique index compares bytes; one
    /// text in two Unicode normal forms is found by comparing in Swift, for a new value that is not ASCII).
    func otherValues(table: String, column: String) -> String {
        "SELECT \(q("id")), \(q(column)) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL"
            + " AND \(q("id")) NOT IN (SELECT \(q("id")) FROM \(matched))"
    }

    /// The one statement of the update: every matched object gets the new values of `columns` (bound as arguments
    /// 1…n in order).
    func update(table: String, columns: [String]) -> String {
        let sets = columns.enumerated().map { k, c in "\(q(c)) = \(p(k + 1))" }.joined(separator: ", ")
        return "UPDATE \(q(table)) SET \(sets) WHERE \(q("id")) IN (SELECT \(q("id")) FROM \(matched))"
    }

    /// Every matched object's whole row (for a domain's behaviour in code, which reads objects).
    func matchedRows(table: String) -> String {
        "SELECT t.* FROM \(q(table)) AS t WHERE t.\(q("id")) IN (SELECT \(q("id")) FROM \(matched)) ORDER BY t.\(q("id"))"
    }

    // MARK: Following relationships

    /// The IDs of the objects that `r` (of `entity`) reaches from the objects whose IDs `from` selects (one
    /// column): a foreign key read, a foreign key pointing back, or a join table — one statement for the set.
    func follow(_ r: EntityRelationship, of entity: Entity, from: String) -> String {
        switch model.storage(of: r, in: entity) {
        case .foreignKey(let column):
            return "SELECT \(q(column)) AS v FROM \(q(entity.name)) WHERE \(q("id")) IN (\(from)) AND \(q(column)) IS NOT NULL"
        case .inverseForeignKey(let table, let column):
            return "SELECT \(q("id")) AS v FROM \(q(table)) WHERE \(q(column)) IN (\(from))"
        case .joinTable(let table, let own, let other):
            return "SELECT \(q(other)) AS v FROM \(q(table)) WHERE \(q(own)) IN (\(from))"
        }
    }

    /// Pairs (object of `entity` in `from`, object of `r.destination` it reaches through `r`) whose destination
    /// object exists and is not in `excluding` (an ID selection): who refers to what, for Deny, Nullify and No
    /// Action.
    func pairs(_ r: EntityRelationship, of entity: Entity, from: String, excluding: String) -> String {
        let destination = q(r.destination)
        switch model.storage(of: r, in: entity) {
        case .foreignKey(let column):
            return "SELECT \(q("id")), \(q(column)) FROM \(q(entity.name)) WHERE \(q("id")) IN (\(from)) AND \(q(column)) IS NOT NULL"
                + " AND \(q(column)) IN (SELECT \(q("id")) FROM \(destination)) AND \(q(column)) NOT IN (\(excluding))"
                + " ORDER BY \(q("id")), \(q(column))"
        case .inverseForeignKey(let table, let column):
            return "SELECT \(q(column)), \(q("id")) FROM \(q(table)) WHERE \(q(column)) IN (\(from)) AND \(q("id")) NOT IN (\(excluding))"
                + " ORDER BY \(q(column)), \(q("id"))"
        case .joinTable(let table, let own, let other):
            return "SELECT \(q(own)), \(q(other)) FROM \(q(table)) WHERE \(q(own)) IN (\(from)) AND \(q(other)) NOT IN (\(excluding))"
                + " ORDER BY \(q(own)), \(q(other))"
        }
    }

    /// The IDs of `entity`'s objects in `touched` or `deleted` (the entity's name bound as argument `n`).
    func touchedIDs(_ n: Int) -> String { "SELECT \(q("id")) AS v FROM \(touched) WHERE \(q("entity")) = \(p(n))" }
    func deletedIDs(_ n: Int) -> String { "SELECT \(q("id")) AS v FROM \(deleted) WHERE \(q("entity")) = \(p(n))" }
    var matchedIDs: String { "SELECT \(q("id")) AS v FROM \(matched)" }

    /// Adds to `touched` the objects `ids` selects (one column named `v`, as `follow` names it), as objects of the entity bound as argument `n`.
    func touch(_ ids: String, entityArgument n: Int) -> String {
        dialect.insertIgnoringDuplicates(into: touched, columns: ["entity", "id"], select: "SELECT \(p(n)), x.v FROM (\(ids)) AS x")
    }

    /// Takes the deleted objects out of `touched`: their rules no longer apply.
    var untouchDeleted: String {
        "DELETE FROM \(touched) WHERE (\(q("entity")), \(q("id"))) IN (SELECT \(q("entity")), \(q("id")) FROM \(deleted))"
    }

    /// Which entities `touched` holds objects of.
    var touchedEntities: String { "SELECT DISTINCT \(q("entity")) FROM \(touched)" }

    // MARK: Rules

    /// The touched objects of an entity that break one rule: `ruleBreakers` is a fetch plan's object statement for
    /// `NOT (rule)` with `argumentCount` arguments; the entity's name is bound after them. ID and natural key (or
    /// NULL), at most `limit` (bound last).
    func brokenRule(ruleBreakers: String, argumentCount: Int, naturalKey: String?) -> String {
        let key = naturalKey.map { "s.\(q($0))" } ?? "NULL"
        return "SELECT s.\(q("id")), \(key) FROM (\(ruleBreakers)) AS s WHERE s.\(q("id")) IN (\(touchedIDs(argumentCount + 1)))"
            + " ORDER BY s.\(q("id")) LIMIT \(p(argumentCount + 2))"
    }

    /// How many touched objects of an entity break one rule (arguments as `brokenRule`, without the limit).
    func brokenRuleCount(ruleBreakers: String, argumentCount: Int) -> String {
        "SELECT COUNT(*) FROM (\(ruleBreakers)) AS s WHERE s.\(q("id")) IN (\(touchedIDs(argumentCount + 1)))"
    }

    // MARK: Delete

    /// Seeds `deleted` with the objects the plan's statement finds (round 0); the entity's name is bound after the
    /// plan's arguments.
    func seedDeleted(selection: String, argumentCount: Int) -> String {
        "INSERT INTO \(deleted) (\(q("entity")), \(q("id")), \(q("round"))) SELECT \(p(argumentCount + 1)), s.\(q("id")), 0 FROM (\(selection)) AS s"
    }

    /// Adds to `deleted` what `r` of `entity` reaches from its deleted objects (a Cascade): arguments 1 the
    /// destination's name, 2 the entity's, 3 the round.
    func cascade(_ r: EntityRelationship, of entity: Entity) -> String {
        dialect.insertIgnoringDuplicates(into: deleted, columns: ["entity", "id", "round"],
                                         select: "SELECT \(p(1)), x.v, \(p(3)) FROM (\(follow(r, of: entity, from: deletedIDs(2)))) AS x"
                                             + " WHERE x.v IN (SELECT \(q("id")) FROM \(q(r.destination)))")
    }

    /// Every deleted object (entity, ID, round), by entity and ID.
    var deletedObjects: String {
        "SELECT \(q("entity")), \(q("id")), \(q("round")) FROM \(deleted) ORDER BY \(q("entity")), \(q("id"))"
    }

    /// Each entity's deleted objects: how many, the highest ID and the latest round it was reached in.
    var deletedByEntity: String {
        "SELECT \(q("entity")), COUNT(*), MAX(\(q("id"))), MAX(\(q("round"))) FROM \(deleted) GROUP BY \(q("entity"))"
    }

    /// The natural keys of `count` objects of `entity` (for messages; their IDs bound as arguments 1…count): ID
    /// and key.
    func keys(of entity: Entity, count: Int) -> String? {
        guard let key = entity.naturalKey else { return nil }
        let ids = (1...count).map(p).joined(separator: ", ")
        return "SELECT \(q("id")), \(q(key)) FROM \(q(entity.name)) WHERE \(q("id")) IN (\(ids))"
    }

    /// The objects of `r.destination` that `r` reaches from the deleted objects of `entity` (its name bound as
    /// argument 1) and that are not deleted themselves (the destination's name, argument 2): those a Nullify
    /// clears.
    func surviving(_ r: EntityRelationship, of entity: Entity) -> String {
        "SELECT x.v AS v FROM (\(follow(r, of: entity, from: deletedIDs(1)))) AS x WHERE x.v NOT IN (\(deletedIDs(2)))"
    }

    /// Clears `column` of `table` on the objects that refer to a deleted object of the entity bound as argument 1
    /// and are not deleted themselves (argument 2: the table's entity).
    func nullify(table: String, column: String) -> String {
        "UPDATE \(q(table)) SET \(q(column)) = NULL WHERE \(q(column)) IN (\(deletedIDs(1))) AND \(q("id")) NOT IN (\(deletedIDs(2)))"
    }

    /// Deletes `entity`'s deleted objects (its name bound as argument 1).
    func delete(_ entity: Entity) -> String {
        "DELETE FROM \(q(entity.name)) WHERE \(q("id")) IN (\(deletedIDs(1)))"
    }
}
