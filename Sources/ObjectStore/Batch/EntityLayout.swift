// How one entity's objects map to SQL in a batch: attribute and foreign-key column order, the
// join tables of its many-to-many relationships, and the statements built from them. Built once per
// entity per batch; every identifier in the SQL text comes from the model and is quoted.

final class EntityLayout {
    struct ToOne {
        let relationship: EntityRelationship
        let column: String
    }

    struct ManyToMany {
        let relationship: EntityRelationship
        let table: String
        let ownColumn: String
        let otherColumn: String
    }

    let entity: Entity
    let attributeIndex: [String: Int]
    /// To-one relationships whose foreign key is a column of this entity's table.
    let toOne: [ToOne]
    let toOneIndex: [String: Int]
    let manyToMany: [ManyToMany]
    let manyToManyIndex: [String: Int]
    /// `"id", attributes..., foreign keys...`: the columns `selectSQL` returns, in that order.
    let selectList: String
    /// The defaults an inserted object starts with (nil: none).
    let defaults: [DefaultValue?]
    /// Constant defaults, ready to use (nil for none, `today` and `now`).
    let constantDefaults: [Value?]
    let hasDynamicDefaults: Bool
    /// Whether attribute k must be checked for uniqueness.
    let checksUniqueness: [Bool]
    /// For a row table: the index of its unique attribute, whose value identifies a line across imports.
    let lineKey: Int?
    let willSave: (@Sendable (any ObjectValues) -> Void)?
    let validateRule: (@Sendable (any ObjectValues) -> [String])?
    let rangeCheckedByBehaviour: Set<String>

    /// Attribute names, for the record's subscript (a linear search beats hashing for a handful).
    let names: [String]
    /// Attribute types and required flags, by index: the hot loops read these rather than copy `Attribute`
    /// values (each copy retains the name and the default).
    let types: [AttributeType]
    let required: [Bool]

    // State of this entity in one batch. The properties read for every row are `@exclusivity(unchecked)`: only the
    // importer's thread touches them (the inserting thread gets its rows moved out of `pending`), and the runtime's
    // access checks on them were 9% of that thread's time on the 1M-line bench (docs/design/import-speed.md).
    /// The row ID the next insert gets, and the rows buffered for a multi-row INSERT (row ID first).
    @exclusivity(unchecked) var nextID: Int64 = 1
    @exclusivity(unchecked) var pending: [StoredValue] = []
    @exclusivity(unchecked) var pendingRows = 0
    /// Rows per multi-row INSERT: up to 256, within SQLite's limit of bound values per statement.
    lazy var chunkRows: Int = max(1, min(256, 30_000 / (1 + entity.attributes.count + toOne.count)))
    /// The largest row ID when the batch began (0: the table was empty).
    var maxIDAtStart: Int64 = 0
    /// The row ID the batch's first insert gets: above `maxIDAtStart` and above every ID a delete removed.
    var firstNewID: Int64 = 1
    /// Whether the batch deleted rows of this entity (their IDs are then never handed out again).
    var deletedRows = false
    @exclusivity(unchecked) var counts = BatchCounts()
    /// Key caches by attribute index.
    @exclusivity(unchecked) var caches: [Int: KeyCache] = [:]
    /// For a row table: its to-one relationship to its document (nil inside: not a row table).
    @exclusivity(unchecked) var parent: ParentLink??
    /// The key caches as a list, for inserts (which must update every one).
    @exclusivity(unchecked) var cacheList: [KeyCache] = []
    /// Indexes dropped for the batch (the table was empty), with the SQL that makes them again; nil until
    /// the first insert (see BatchWriter+Indexes).
    @exclusivity(unchecked) var deferredIndexes: [(name: String, sql: String)]?
    /// Indexes of a table that was empty, kept up while their keys arrive in order.
    @exclusivity(unchecked) var liveIndexes: [LiveIndex] = []

    init(entity: Entity, model: ObjectModel) {
        self.entity = entity
        var index: [String: Int] = [:]
        for (i, a) in entity.attributes.enumerated() { index[a.name] = i }
        attributeIndex = index
        var toOne: [ToOne] = []
        var manyToMany: [ManyToMany] = []
        for r in entity.relationships {
            switch model.storage(of: r, in: entity) {
            case .foreignKey(let column): toOne.append(ToOne(relationship: r, column: column))
            case .joinTable(let table, let own, let other):
                manyToMany.append(ManyToMany(relationship: r, table: table, ownColumn: own, otherColumn: other))
            case .inverseForeignKey: break
            }
        }
        self.toOne = toOne
        self.manyToMany = manyToMany
        toOneIndex = Dictionary(uniqueKeysWithValues: toOne.enumerated().map { ($1.relationship.name, $0) })
        manyToManyIndex = Dictionary(uniqueKeysWithValues: manyToMany.enumerated().map { ($1.relationship.name, $0) })
        let columns = entity.attributes.map { quoted($0.name) } + toOne.map { quoted($0.column) }
        selectList = (["\"id\""] + columns).joined(separator: ", ")
        defaults = entity.attributes.map(\.defaultValue)
        names = entity.attributes.map(\.name)
        types = entity.attributes.map(\.type)
        required = entity.attributes.map(\.isRequired)
        constantDefaults = entity.attributes.map { a in
            guard case .value(let v)? = a.defaultValue else { return nil }
            if case .decimal(let d) = v, case .decimal(let scale) = a.type { return .decimal(d.exactly(atScale: scale) ?? d) }
            return v
        }
        hasDynamicDefaults = entity.attributes.contains { $0.defaultValue == .today || $0.defaultValue == .now }
        checksUniqueness = entity.attributes.map { $0.isUnique || $0.name == entity.naturalKey }
        // A row table's own unique attribute (a line ID) matches its rows by key instead of by position.
        lineKey = entity.kind == .rows ? entity.attributes.firstIndex { $0.isUnique } : nil
        willSave = model.behaviours[entity.name]?.willSave
        validateRule = model.behaviours[entity.name]?.validate
        rangeCheckedByBehaviour = model.behaviours[entity.name]?.rangeCheckedByBehaviour ?? []
    }

    /// The multi-row insert of `rows` rows ("id", the attributes, the foreign keys).
    /// The columns of a new row, in the order the batch buffers its values: the ID, attributes, foreign keys.
    var insertColumns: [String] { ["id"] + entity.attributes.map(\.name) + toOne.map(\.column) }

    @inline(__always)
    func index(of name: String) -> Int? {
        for i in 0..<names.count where names[i] == name { return i }
        return nil
    }

    func selectSQL(_ sql: BatchSQL, where column: String) -> String { sql.row(selectList, from: entity.name, where: column) }

    func selectSQL(_ sql: BatchSQL, whereID: Void = ()) -> String { sql.row(selectList, from: entity.name, where: "id") }
}

/// A row table's link to its document: the foreign key's index in `toOne`, the relationship, the document's layout.
final class ParentLink {
    let index: Int
    let relationship: EntityRelationship
    let layout: EntityLayout

    init(index: Int, relationship: EntityRelationship, layout: EntityLayout) {
        self.index = index
        self.relationship = relationship
        self.layout = layout
    }
}
