// The model is data: entities with typed attributes and relationships. It is what the schema, validation,
// the context and (later) the predicate binder read; it never mentions a domain.

/// What a default value is: a constant, or the day/moment of insertion.
public enum DefaultValue: Sendable, Hashable {
    /// This value.
    case value(Value)
    /// The day the object is inserted, in the zone of the run (a `date` attribute).
    case today
    /// The moment the object is inserted (a `dateTime` attribute).
    case now

    /// The text used in model files: `today`, `now`, or the value's own text.
    public var text: String {
        switch self {
        case .value(let v): v.description
        case .today: "today"
        case .now: "now"
        }
    }
}

/// A typed attribute of an entity, as Core Data's attribute description: a name, an `AttributeType`, whether a
/// saved object must have a value, a default, and whether values are unique among the entity's objects or indexed.
public struct EntityAttribute: Sendable, Hashable {
    /// The attribute's name.
    public var name: String
    /// The type of its values.
    public var type: AttributeType
    /// Whether a saved object must have a value.
    public var isRequired: Bool
    /// The value a new object starts with.
    public var defaultValue: DefaultValue?
    /// Whether two objects of the entity may not have one value.
    public var isUnique: Bool
    /// Whether the store keeps an index on it.
    public var isIndexed: Bool

    /// An attribute `name` of `type`: `required` refuses a save without a value, `unique` two objects with one, `indexed` makes lookups on it fast.
    public init(_ name: String, _ type: AttributeType, required: Bool = false, default defaultValue: DefaultValue? = nil,
                unique: Bool = false, indexed: Bool = false) {
        self.name = name
        self.type = type
        self.isRequired = required
        // A decimal default is kept at the attribute's scale, so it prints and compares as stored.
        if case .value(.decimal(let d))? = defaultValue, case .decimal(let scale) = type, let scaled = d.exactly(atScale: scale) {
            self.defaultValue = .value(.decimal(scaled))
        } else {
            self.defaultValue = defaultValue
        }
        self.isUnique = unique
        self.isIndexed = indexed
    }
}

/// What happens to the objects at the other end of a relationship when an object is deleted.
public enum DeleteRule: String, Sendable, Hashable, CaseIterable {
    /// Clear the other objects' references to the deleted one (and many-to-many links).
    case nullify
    /// Delete the other objects too, applying their own rules in turn.
    case cascade
    /// Refuse to delete while any other object is related.
    case deny
    /// Do nothing: references are left as they are (the store keeps no foreign key for them).
    case noAction

    /// The rule's name as Core Data's model editor shows it: `Nullify`, `No Action`.
    public var displayName: String {
        switch self {
        case .nullify: "Nullify"
        case .cascade: "Cascade"
        case .deny: "Deny"
        case .noAction: "No Action"
        }
    }
}

/// One end of a relationship between two entities. Every relationship has an inverse on the destination
/// entity that points back (`customer` to-one on Invoice, `invoices` to-many on Customer); what a delete does to
/// the objects at this end is the `deleteRule`. Many-to-many pairs are kept in a link table.
public struct EntityRelationship: Sendable, Hashable {
    /// The relationship's name, a key of its entity.
    public var name: String
    /// The entity of the objects at the other end.
    public var destination: String
    /// The relationship of `destination` that points back.
    public var inverse: String
    /// Whether an object refers to any number of objects through it, rather than to at most one.
    public var isToMany: Bool
    /// For a to-one relationship: whether every object must have one.
    public var isRequired: Bool
    /// What deleting an object does to the objects it refers to through this relationship.
    public var deleteRule: DeleteRule

    /// A relationship `name` to objects of `destination`, whose relationship `inverse` points back.
    public init(_ name: String, to destination: String, inverse: String, toMany: Bool = false,
                required: Bool = false, deleteRule: DeleteRule = .nullify) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = toMany
        self.isRequired = required
        self.deleteRule = deleteRule
    }
}

/// The role of an entity: a directory (customers), a document (orders), or a document's row table.
public enum EntityKind: String, Sendable, Hashable, CaseIterable {
    /// Objects that are referred to and named (customers, services, tags).
    case directory
    /// Dated records with a number (orders, invoices).
    case document
    /// A document's row table: objects that belong to one document.
    case rows
}

/// An entity of the model: its attributes, its relationships, an optional natural key (the attribute that
/// names an object to people, unique), a default sort and validation rules. Each entity is one table.
public struct Entity: Sendable, Hashable {
    /// The entity's name: the table's, and what `ObjectID`s and key paths name.
    public var name: String
    /// The entity's role.
    public var kind: EntityKind
    /// The attribute that names an object to people and other systems (a directory's `name`, a document's `number`).
    public var naturalKey: String?
    /// The typed attributes.
    public var attributes: [EntityAttribute]
    /// The relationships, each with its inverse on its destination.
    public var relationships: [EntityRelationship]
    /// The order of a fetch that gives none: sort keys as text (`closed desc, name`).
    public var defaultSort: String?
    /// Validation rules written as predicates: every saved object must satisfy each one.
    public var rules: [ModelRule]

    /// An entity named `name` (a letter, then letters, digits and `_`); `naturalKey` names one of its attributes.
    public init(_ name: String, kind: EntityKind, naturalKey: String? = nil,
                attributes: [EntityAttribute], relationships: [EntityRelationship] = [],
                defaultSort: String? = nil, rules: [ModelRule] = []) {
        self.name = name
        self.kind = kind
        self.naturalKey = naturalKey
        self.attributes = attributes
        self.relationships = relationships
        self.defaultSort = defaultSort
        self.rules = rules
    }

    /// The attribute of this name, if the entity has one.
    public func attribute(named name: String) -> EntityAttribute? { attributes.first { $0.name == name } }
    /// The relationship of this name, if the entity has one.
    public func relationship(named name: String) -> EntityRelationship? { relationships.first { $0.name == name } }

    /// Every property name, attributes first, in declaration order.
    public var propertyNames: [String] { attributes.map(\.name) + relationships.map(\.name) }
}

/// Read and write access to one object's attribute values: what a domain rule sees, whether the object
/// is a `ManagedObject` in a context or a record in a bulk write.
package protocol ObjectValues: AnyObject {
    var entity: Entity { get }
    /// An attribute's value (null when unset). The key must be an attribute of the entity.
    subscript(_ key: String) -> Value { get set }
}

/// A validation rule written as a predicate (`deposits == nil OR deposits >= 0`) with the message shown when an
/// object breaks it.
public struct ModelRule: Sendable, Hashable {
    /// The rule in NSPredicate format syntax, evaluated against each saved object.
    public var predicate: String
    /// The validation issue's text when an object breaks the rule.
    public var message: String
    /// Where the predicate was written (a model file's line and column), for error positions. Not part of the model.
    package var origin: PredicateSourceOrigin?

    /// A rule every saved object of the entity must satisfy: `predicate` in NSPredicate format syntax, `message`
    /// the text of the validation issue when an object does not.
    public init(_ predicate: String, message: String) {
        self.init(predicate, message: message, origin: nil)
    }

    package init(_ predicate: String, message: String, origin: PredicateSourceOrigin?) {
        self.predicate = predicate
        self.message = message
        self.origin = origin
    }

    public static func == (a: ModelRule, b: ModelRule) -> Bool { a.predicate == b.predicate && a.message == b.message }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(predicate)
        hasher.combine(message)
    }
}

/// Per-entity behaviour a domain adds to the model: values derived before saving and extra validation rules.
/// Kept apart from the data so the model itself stays plain, comparable and serialisable.
package struct EntityBehaviour: Sendable {
    /// Called for every inserted or updated object before validation (e.g. derive a row's sum).
    package var willSave: (@Sendable (any ObjectValues) -> Void)?
    /// Returns problems as messages (`OrderRow.sum must not be negative`); empty when valid.
    package var validate: (@Sendable (any ObjectValues) -> [String])?
    /// Attributes whose values beyond the attribute's range `validate` reports itself, naming how they were
    /// derived (a row's sum as quantity × price), so the store does not report them a second time.
    package var rangeCheckedByBehaviour: Set<String>

    package init(willSave: (@Sendable (any ObjectValues) -> Void)? = nil,
                validate: (@Sendable (any ObjectValues) -> [String])? = nil,
                rangeCheckedByBehaviour: Set<String> = []) {
        self.willSave = willSave
        self.validate = validate
        self.rangeCheckedByBehaviour = rangeCheckedByBehaviour
    }
}

/// A checked, indexed set of entities.
public struct ObjectModel: Sendable {
    /// The entities, in the order they were given.
    public let entities: [Entity]
    package let behaviours: [String: EntityBehaviour]
    private let index: [String: Int]
    /// Each entity's rules, bound once: (predicate, message).
    package private(set) var boundRules: [String: [(BoundPredicate, String)]] = [:]
    /// For each entity, the ways back from one of its objects to the objects whose rules read it: each a chain of
    /// relationships to follow (the inverses of a rule's key path, from where the object sits on it back to the
    /// rule's entity). `orders.rows.@sum.sum` on Customer gives an OrderRow [order, customer] and an Order [customer].
    package private(set) var ruleDependencies: [String: [[EntityRelationship]]] = [:]

    /// Builds a model and checks it: names, natural keys, and that each relationship's inverse exists and points back.
    /// `sortOrigins` says where each entity's default sort was written (a model file), for error positions.
    public init(entities: [Entity]) throws(ModelError) {
        try self.init(entities: entities, behaviours: [:])
    }

    /// A model whose entities also have behaviours written in Swift (a hook before save, a validation).
    package init(entities: [Entity], behaviours: [String: EntityBehaviour],
                sortOrigins: [String: PredicateSourceOrigin] = [:]) throws(ModelError) {
        self.entities = entities
        self.behaviours = behaviours
        var index: [String: Int] = [:]
        for (i, e) in entities.enumerated() {
            if index[e.name] != nil { throw ModelError.invalidModel("entity \(e.name) is declared twice") }
            index[e.name] = i
        }
        self.index = index
        try check()
        try checkSQLNames()
        try bindRulesAndSorts(sortOrigins)
    }

    /// Checks every rule and default sort against the model, and keeps the bound rules for validation.
    private mutating func bindRulesAndSorts(_ sortOrigins: [String: PredicateSourceOrigin]) throws(ModelError) {
        var bound: [String: [(BoundPredicate, String)]] = [:]
        for e in entities {
            for rule in e.rules {
                let origin = rule.origin ?? PredicateSourceOrigin(name: "\(e.name) rule")
                do {
                    let plan = try FetchPlan(ObjectFetchRequest(entity: e.name, predicate: rule.predicate, predicateOrigin: origin),
                                             model: self, columns: [])
                    if let p = plan.predicate { bound[e.name, default: []].append((p, rule.message)) }
                } catch {
                    throw ModelError.invalidModel("\(error)", located: rule.origin != nil)
                }
            }
            if let sort = e.defaultSort {
                let origin = sortOrigins[e.name]
                do {
                    let keys = try SortKey.parseList(sort, origin: origin ?? PredicateSourceOrigin(name: "\(e.name) sort"))
                    _ = try FetchPlan(ObjectFetchRequest(entity: e.name, sortDescriptors: keys), model: self, columns: [])
                } catch {
                    throw ModelError.invalidModel("\(error)", located: origin != nil)
                }
            }
        }
        boundRules = bound
        var dependencies: [String: Set<[EntityRelationship]>] = [:]
        for (p, _) in bound.values.joined() {
            for chain in p.relationshipChains {
                // Every prefix: a row's change matters to the customer through [orders, rows], an order's through [orders].
                for end in 1...chain.count {
                    let back = chain[..<end].reversed().map { inverse(of: $0) }
                    dependencies[chain[end - 1].destination, default: []].insert(back)
                }
            }
        }
        ruleDependencies = dependencies.mapValues { $0.sorted { $0.map(\.name).lexicographicallyPrecedes($1.map(\.name)) } }
    }

    /// The entity of exactly this name, if the model has one.
    public func entity(named name: String) -> Entity? { index[name].map { entities[$0] } }

    /// The entity, or an error with a did-you-mean suggestion.
    public func entity(_ name: String) throws(ModelError) -> Entity {
        if let e = entity(named: name) { return e }
        // Accept a different case (`customer` for `Customer`) when it is unambiguous.
        let matches = entities.filter { $0.name.lowercased() == name.lowercased() }
        if matches.count == 1 { return matches[0] }
        throw ModelError.unknownEntity(name, suggestion: Suggestions.closest(to: name, in: entities.map(\.name)))
    }

    /// The inverse of a relationship (always present in a checked model).
    package func inverse(of relationship: EntityRelationship) -> EntityRelationship {
        entity(named: relationship.destination)!.relationship(named: relationship.inverse)!
    }

    private func check() throws(ModelError) {
        for e in entities {
            guard ObjectModel.isIdentifier(e.name), !e.name.hasPrefix("_") else {
                throw ModelError.invalidModel("\"\(e.name)\" is not a valid entity name (letters, digits and _; starting with a letter)")
            }
            var seen: Set<String> = []
            for p in e.propertyNames {
                guard ObjectModel.isIdentifier(p) else {
                    throw ModelError.invalidModel("\(e.name).\(p) is not a valid property name", subject: "\(e.name).\(p)")
                }
                guard p != "id" else { throw ModelError.invalidModel("\(e.name).id is reserved for object IDs", subject: "\(e.name).id") }
                guard seen.insert(p).inserted else { throw ModelError.invalidModel("\(e.name).\(p) is declared twice", subject: "\(e.name).\(p)") }
            }
            for a in e.attributes {
                if case .decimal(let s) = a.type, !(0...DecimalNumber.maxScale).contains(s) {
                    throw ModelError.invalidModel("\(e.name).\(a.name) has scale \(s); scales go from 0 to \(DecimalNumber.maxScale)", subject: "\(e.name).\(a.name)")
                }
                if case .value(let v)? = a.defaultValue, !v.fits(a.type) {
                    throw ModelError.invalidModel("\(e.name).\(a.name) has default \"\(v)\", which is not a \(a.type)", subject: "\(e.name).\(a.name)")
                }
                if a.defaultValue == .today && a.type != .date || a.defaultValue == .now && a.type != .dateTime {
                    throw ModelError.invalidModel("\(e.name).\(a.name): default \(a.defaultValue!.text) needs a \(a.defaultValue == .today ? "date" : "datetime") attribute", subject: "\(e.name).\(a.name)")
                }
            }
            if let key = e.naturalKey {
                guard let a = e.attribute(named: key) else {
                    throw ModelError.invalidModel("\(e.name)'s natural key \(key) is not one of its attributes")
                }
                guard a.isUnique, a.isRequired else {
                    throw ModelError.invalidModel("\(e.name)'s natural key \(key) must be required and unique")
                }
            }
            for r in e.relationships {
                guard let d = entity(named: r.destination) else {
                    throw ModelError.invalidModel("\(e.name).\(r.name) points to unknown entity \(r.destination)", subject: "\(e.name).\(r.name)")
                }
                guard let inv = d.relationship(named: r.inverse) else {
                    throw ModelError.invalidModel("\(e.name).\(r.name) names inverse \(r.destination).\(r.inverse), which does not exist", subject: "\(e.name).\(r.name)")
                }
                guard inv.destination == e.name, inv.inverse == r.name else {
                    throw ModelError.invalidModel("\(e.name).\(r.name) and \(r.destination).\(r.inverse) are not each other's inverse", subject: "\(e.name).\(r.name)")
                }
                if r.isToMany && r.isRequired {
                    throw ModelError.invalidModel("\(e.name).\(r.name) is to-many and cannot be required", subject: "\(e.name).\(r.name)")
                }
                if r.isToMany && inv.isToMany && d.name == e.name {
                    throw ModelError.invalidModel("\(e.name).\(r.name): many-to-many relationships from an entity to itself are not supported", subject: "\(e.name).\(r.name)")
                }
            }
        }
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return s.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }
}
