// Batch changes by predicate: what to change (the requests) and what was changed (the results). The work is in
// ObjectContext+BatchUpdate.swift and ObjectContext+BatchDelete.swift, the SQL in SQL/BatchChangeSQL.swift.
//
// Core Data's NSBatchUpdateRequest and NSBatchDeleteRequest write straight to the store and skip validation and
// (for updates) delete rules, relationship inverses and the context. These requests keep the model's promises
// instead: every value is checked as `ObjectContext.save()` checks it, the model's rules are checked again on the
// changed objects and on every object whose rules read them through relationships, delete rules are applied, and
// a problem anywhere changes nothing. Like Core Data's, they bypass the context's objects: a context must have no
// unsaved changes, and forgets its objects afterwards (fetch them again).

/// Changes the same attributes and to-one relationships of every object a predicate finds, in one transaction:
/// `update Order --where 'made == YES AND paid == NO' --set paid=YES`.
package struct BatchUpdateRequest: Sendable {
    /// The entity and the predicate (with its `$NAME` variables, `%@` arguments and more predicates ANDed),
    /// as a fetch takes them; sort descriptors, limit and offset are not used.
    package var fetch: ObjectFetchRequest
    /// `key=value` as `set` takes them: an attribute, or a to-one relationship by natural key, object ID or
    /// another unique key (`customer.code=C042`); an empty value clears. To-many relationships are refused.
    package var assignments: [Assignment]
    /// Checks everything and reports what would change, then changes nothing.
    package var dryRun: Bool

    package init(fetch: ObjectFetchRequest, assignments: [Assignment], dryRun: Bool = false) {
        self.fetch = fetch
        self.assignments = assignments
        self.dryRun = dryRun
    }
}

/// What a batch update changed (or, in a dry run, would change).
package struct BatchUpdateResult: Sendable, Equatable {
    package var entity: String
    /// How many objects it changed: those the predicate found whose values differ from the new ones.
    package var updated: Int
    /// In a dry run, each changed object with its old and new values, in ID order; empty otherwise.
    package var changes: [ObjectChange]
    package var dryRun: Bool
}

/// One object's changed values, old and new, as text (`Order/3`, `paid`, `false`, `true`).
package struct ObjectChange: Sendable, Equatable {
    package var object: ObjectID
    package var values: [(key: String, old: String, new: String)]

    package static func == (a: ObjectChange, b: ObjectChange) -> Bool {
        a.object == b.object && a.values.elementsEqual(b.values) { $0.key == $1.key && $0.old == $1.old && $0.new == $1.new }
    }
}

/// Deletes every object a predicate finds, with the model's delete rules, in one transaction:
/// `delete Order --where 'date < "2020-01-01"'`.
package struct BatchDeleteRequest: Sendable {
    /// The entity and the predicate, as a fetch takes them (sort descriptors, limit and offset are not used).
    package var fetch: ObjectFetchRequest
    /// Checks everything and reports what would be deleted and cleared, then changes nothing.
    package var dryRun: Bool

    package init(fetch: ObjectFetchRequest, dryRun: Bool = false) {
        self.fetch = fetch
        self.dryRun = dryRun
    }
}

/// What a batch delete deleted (or, in a dry run, would delete).
package struct BatchDeleteResult: Sendable, Equatable {
    package var entity: String
    /// The objects the predicate found, in ID order.
    package var requested: [ObjectID]
    /// The objects deleted with them by Cascade delete rules, in entity and ID order.
    package var cascaded: [ObjectID]
    /// References a Nullify delete rule cleared: the referring object's relationship and what it referred to.
    package var nullified: [ClearedReference]
    /// References a No Action delete rule kept to deleted objects, one entry per relationship.
    package var keptReferences: [KeptReferences]
    package var dryRun: Bool
}

/// A to-one reference a deletion clears: `Order/4.customer`, which referred to `Customer/2`.
package struct ClearedReference: Sendable, Equatable {
    package var object: ObjectID
    package var relationship: String
    package var referred: ObjectID
}
