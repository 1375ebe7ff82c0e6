// Key paths: what a CSV column fills, named from the imported entity. `name` is an attribute;
// `customer` a to-one relationship by the target's natural key, `customer.code` by another unique
// attribute; `tags` a many-to-many relationship as a list of natural keys; `rows.quantity` and
// `rows.service.code` the same inside a document's row table.

import ObjectStore

/// What one column fills.
package enum ColumnTarget: Sendable, Equatable {
    /// An attribute of the imported entity (or, with `inRows`, of its row table).
    case attribute(name: String, type: AttributeType, inRows: Bool)
    /// A to-one relationship, looked up by `key` of the destination (its natural key when nil).
    case reference(relationship: String, destination: String, key: String?, keyType: AttributeType, inRows: Bool)
    /// A many-to-many relationship: a list of keys.
    case links(relationship: String, destination: String, key: String?, keyType: AttributeType, inRows: Bool)

    package var inRows: Bool {
        switch self {
        case .attribute(_, _, let r), .reference(_, _, _, _, let r), .links(_, _, _, _, let r): r
        }
    }

    /// The property the column fills (attribute or relationship name, without `rows.`).
    package var property: String {
        switch self {
        case .attribute(let n, _, _), .reference(let n, _, _, _, _), .links(let n, _, _, _, _): n
        }
    }
}

/// Resolves key paths against the model for one imported entity.
package struct KeyPathResolver: Sendable {
    package let model: ObjectModel
    package let entity: Entity
    /// The document's row relationship (`rows`), when the entity is a document with a row table.
    package let rowsRelationship: EntityRelationship?
    package let rowsEntity: Entity?

    package init(model: ObjectModel, entity: Entity) {
        self.model = model
        self.entity = entity
        var rows: EntityRelationship?
        if entity.kind == .document {
            rows = entity.relationships.first { r in
                r.isToMany && !model.inverse(of: r).isToMany && model.entity(named: r.destination)?.kind == .rows
            }
        }
        rowsRelationship = rows
        rowsEntity = rows.flatMap { model.entity(named: $0.destination) }
    }

    /// Every key path a header may name directly (for matching and suggestions).
    package var candidates: [String] {
        var paths = properties(of: entity, excluding: nil)
        if let rr = rowsRelationship, let re = rowsEntity {
            paths += properties(of: re, excluding: model.inverse(of: rr).name).map { "\(rr.name).\($0)" }
        }
        return paths
    }

    private func properties(of e: Entity, excluding: String?) -> [String] {
        e.attributes.map(\.name) + e.relationships.filter { r in
            r.name != excluding && (!r.isToMany || model.inverse(of: r).isToMany)
        }.map(\.name)
    }

    package struct ResolutionError: Error, Equatable {
        package let message: String
    }

    /// The target of `path`, or an error saying why it names nothing importable.
    package func resolve(_ path: String) throws(ResolutionError) -> ColumnTarget {
        let parts = path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if let rr = rowsRelationship, let re = rowsEntity, parts.count > 1, parts[0] == rr.name {
            return try resolve(Array(parts.dropFirst()), in: re, inRows: true, whole: path,
                               parent: model.inverse(of: rr).name)
        }
        return try resolve(parts, in: entity, inRows: false, whole: path, parent: nil)
    }

    private func resolve(_ parts: [String], in e: Entity, inRows: Bool, whole: String,
                         parent: String?) throws(ResolutionError) -> ColumnTarget {
        func fail(_ m: String) -> ResolutionError { ResolutionError(message: m) }
        guard let first = parts.first, !first.isEmpty, parts.allSatisfy({ !$0.isEmpty }) else {
            throw fail("\"\(whole)\" is not a key path")
        }
        if let a = e.attribute(named: first) {
            guard parts.count == 1 else { throw fail("\(e.name).\(first) is an attribute; \"\(whole)\" looks into it") }
            return .attribute(name: a.name, type: a.type, inRows: inRows)
        }
        guard let r = e.relationship(named: first) else {
            throw fail("\"\(whole)\" names nothing on \(entity.name)\(Suggestions.didYouMean(Suggestions.closest(to: whole, in: candidates)))")
        }
        if r.name == parent {
            throw fail("\"\(whole)\": each row belongs to the document on its line; \(e.name).\(r.name) is not a column")
        }
        let inverse = model.inverse(of: r)
        if r.isToMany && !inverse.isToMany {
            if inRows || r.name != rowsRelationship?.name {
                throw fail("\(e.name).\(r.name) is set from the other side: import \(r.destination) with a column for \(r.destination).\(inverse.name)")
            }
            throw fail("\"\(whole)\": name a column of the rows, such as \(r.name).\(rowsEntity?.attributes.first?.name ?? "…")")
        }
        guard let d = model.entity(named: r.destination) else { throw fail("\"\(whole)\" names nothing") }
        var key: String?
        var keyType: AttributeType
        if parts.count == 1 {
            guard let nk = d.naturalKey, let a = d.attribute(named: nk) else {
                // Only a unique attribute that exists is suggested (`row.code` was, for an OrderRow that has none).
                if let unique = d.attributes.first(where: \.isUnique) {
                    throw fail("\(d.name) has no natural key: name a unique attribute, as in \(whole).\(unique.name)")
                }
                throw fail("\(e.name).\(r.name) cannot be set from a column: \(d.name) has no natural key or unique attribute to name one by")
            }
            keyType = a.type
        } else {
            guard parts.count == 2 else { throw fail("\"\(whole)\" goes too deep: a reference is relationship.attribute") }
            guard let a = d.attribute(named: parts[1]) else {
                throw fail("\"\(whole)\": \(d.name) has no attribute \"\(parts[1])\"\(Suggestions.didYouMean(Suggestions.closest(to: parts[1], in: d.attributes.map(\.name))))")
            }
            guard a.isUnique || a.name == d.naturalKey else {
                throw fail("\"\(whole)\": \(d.name).\(a.name) is not unique, so it cannot name one \(d.name)")
            }
            key = a.name == d.naturalKey ? nil : a.name
            keyType = a.type
        }
        if r.isToMany {
            return .links(relationship: r.name, destination: d.name, key: key, keyType: keyType, inRows: inRows)
        }
        return .reference(relationship: r.name, destination: d.name, key: key, keyType: keyType, inRows: inRows)
    }
}
