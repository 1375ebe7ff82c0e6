// Where each relationship lives in SQLite. Computed from the model alone, so the schema builder, the
// context and the query compiler agree without storing anything.

/// How a relationship is represented in the store.
package enum RelationshipStorage: Sendable, Hashable {
    /// A foreign-key column on this entity's table (a to-one whose inverse is to-many, or the owning side of a one-to-one).
    case foreignKey(column: String)
    /// The foreign key is a column on the destination's table pointing back here.
    case inverseForeignKey(table: String, column: String)
    /// A join table: `ownColumn` holds this entity's id, `otherColumn` the destination's.
    case joinTable(table: String, ownColumn: String, otherColumn: String)
}

extension ObjectModel {
    package func storage(of relationship: EntityRelationship, in entity: Entity) -> RelationshipStorage {
        let inverse = self.inverse(of: relationship)
        switch (relationship.isToMany, inverse.isToMany) {
        case (false, true):
            return .foreignKey(column: relationship.name + "_id")
        case (true, false):
            return .inverseForeignKey(table: relationship.destination, column: inverse.name + "_id")
        case (false, false):
            // One-to-one: the side whose (entity, name) sorts first owns the column.
            if (entity.name, relationship.name) <= (relationship.destination, inverse.name) {
                return .foreignKey(column: relationship.name + "_id")
            }
            return .inverseForeignKey(table: relationship.destination, column: inverse.name + "_id")
        case (true, true):
            let owns = (entity.name, relationship.name) <= (relationship.destination, inverse.name)
            let table = owns ? "\(entity.name)_\(relationship.name)" : "\(relationship.destination)_\(inverse.name)"
            return .joinTable(table: table, ownColumn: entity.name + "_id", otherColumn: relationship.destination + "_id")
        }
    }
}
