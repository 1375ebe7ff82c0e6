/// One object's values on its way into the store through a `BatchWriter`: attribute values, to-one
/// references as row IDs, and many-to-many links as lists of row IDs. Domain rules see it through
/// `ObjectValues`, exactly as they see a `ManagedObject`.
///
/// Only what is *given* is written: an update leaves the attributes and references the record does not
/// give as they are stored, and an insert gives them their defaults. A record is meant to be reused
/// (`reset()`), so a million-row import allocates a handful of them, not a million. (Its storage is
/// raw memory allocated once: array properties of a class cost an exclusivity check and a uniqueness
/// check on every write, which showed up in the bench profile.)
package final class BatchRecord: ObjectValues {
    package let entity: Entity
    let layout: EntityLayout
    let count: Int
    let referenceCount: Int
    let linkCount: Int
    let values: UnsafeMutablePointer<Value>
    let given: UnsafeMutablePointer<Bool>
    let references: UnsafeMutablePointer<Int64?>
    let referenceGiven: UnsafeMutablePointer<Bool>
    let links: UnsafeMutablePointer<[Int64]?>

    init(layout: EntityLayout) {
        self.layout = layout
        entity = layout.entity
        count = layout.entity.attributes.count
        referenceCount = layout.toOne.count
        linkCount = layout.manyToMany.count
        values = .allocate(capacity: max(count, 1))
        values.initialize(repeating: .null, count: count)
        given = .allocate(capacity: max(count, 1))
        given.initialize(repeating: false, count: count)
        references = .allocate(capacity: max(referenceCount, 1))
        references.initialize(repeating: nil, count: referenceCount)
        referenceGiven = .allocate(capacity: max(referenceCount, 1))
        referenceGiven.initialize(repeating: false, count: referenceCount)
        links = .allocate(capacity: max(linkCount, 1))
        links.initialize(repeating: nil, count: linkCount)
    }

    deinit {
        values.deinitialize(count: count)
        values.deallocate()
        given.deallocate()
        references.deallocate()
        referenceGiven.deallocate()
        links.deinitialize(count: linkCount)
        links.deallocate()
    }

    /// Forgets every value, reference and link.
    package func reset() {
        for i in 0..<count {
            values[i] = .null
            given[i] = false
        }
        for i in 0..<referenceCount {
            references[i] = nil
            referenceGiven[i] = false
        }
        for i in 0..<linkCount { links[i] = nil }
    }

    /// The position of an attribute, for `set(_:at:)`; nil when the entity has no such attribute.
    package func index(ofAttribute name: String) -> Int? { layout.attributeIndex[name] }

    package subscript(_ key: String) -> Value {
        get {
            guard let i = layout.index(of: key) else { preconditionFailure("\(entity.name) has no attribute \(key)") }
            return values[i]
        }
        set {
            guard let i = layout.index(of: key) else { preconditionFailure("\(entity.name) has no attribute \(key)") }
            values[i] = newValue
            given[i] = true
        }
    }

    /// Gives attribute number `index` (see `index(ofAttribute:)`) a value.
    @inline(__always)
    package func set(_ value: Value, at index: Int) {
        values[index] = value
        given[index] = true
    }

    /// Gives a to-one relationship its target's row ID (nil: none).
    package func setReference(_ relationship: String, to rowID: Int64?) {
        guard let i = layout.toOneIndex[relationship] else {
            preconditionFailure("\(entity.name).\(relationship) is not a to-one relationship stored on \(entity.name)")
        }
        setReference(at: i, to: rowID)
    }

    /// Gives a many-to-many relationship exactly these targets (row IDs).
    package func setLinks(_ relationship: String, to rowIDs: [Int64]) {
        guard let i = layout.manyToManyIndex[relationship] else {
            preconditionFailure("\(entity.name).\(relationship) is not a many-to-many relationship")
        }
        links[i] = rowIDs
    }

    /// The position of a to-one relationship stored on this entity, for `setReference(at:to:)`.
    package func index(ofReference name: String) -> Int? { layout.toOneIndex[name] }

    /// The position of a many-to-many relationship, for `setLinks(at:to:)`.
    package func index(ofLinks name: String) -> Int? { layout.manyToManyIndex[name] }

    @inline(__always)
    package func setReference(at index: Int, to rowID: Int64?) {
        references[index] = rowID
        referenceGiven[index] = true
    }

    @inline(__always)
    package func setLinks(at index: Int, to rowIDs: [Int64]) {
        links[index] = rowIDs
    }

    /// The row ID a to-one relationship was given (nil: none, or not given).
    package func reference(_ relationship: String) -> Int64? {
        layout.toOneIndex[relationship].flatMap { references[$0] }
    }

    /// Whether the record gives attribute `name` a value.
    package func gives(_ name: String) -> Bool {
        layout.attributeIndex[name].map { given[$0] } ?? false
    }
}
