// The compile test (issue 29): Foundation and the library imported together, and every public type of ObjectStore
// named unqualified, so that none clashes with a Foundation type of the same name (nor with SwiftData's or
// argument-parser's, whose names PublicAPITests keeps out of the API). Compiling it is the test: `make
// test-examples` builds this target; PublicAPITests checks that it names each public type of docs/api/ObjectStore.api.

import Foundation
import ObjectStore

// A declaration per public type; none of these is run.
enum EveryPublicType {
    typealias ModelTypes = (ObjectModel, Entity, EntityKind, EntityAttribute, AttributeType, DefaultValue,
                       EntityRelationship, DeleteRule, ModelRule)
    typealias StoreTypes = (Store, ObjectContext, ManagedObject, ObjectID, SaveResult)
    typealias ValueTypes = (Value, DecimalNumber, Day, Timestamp)
    typealias FetchTypes = (ObjectFetchRequest, SortKey)
    typealias ErrorTypes = (ModelError, StoreError, MigrationError, ContextError, ValidationFailure, ValidationIssue, FetchError)
    // Foundation's types beside them, unqualified too.
    typealias FoundationTypes = (URL, Date, Data, Decimal, UUID, Predicate<Int>)
}
