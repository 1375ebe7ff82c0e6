import Foundation
import LocalTime
import Yams

// Model files: YAML that extends a built-in model with attributes on existing entities, new directories,
// documents and row tables, relationships with inverses and delete rules, validation rules written as
// predicates, and a default sort per entity. Every mistake is reported as `model.yaml:LINE:COLUMN: …`,
// before any store is touched.
//
//   entities:
//     Bank:
//       kind: directory                 # directory | document | rows
//       key: cert                       # natural key (default: name for directories, number for documents)
//       attributes:
//         name:     { type: string, required: true }
//         cert:     { type: integer, unique: true, required: true }
//         deposits: { type: decimal, scale: 2, default: 0 }
//       rules:
//         - { where: "deposits == nil OR deposits >= 0", message: "deposits cannot be negative" }
//       sort: closed desc, name
//     Customer:
//       attributes:
//         vat: { type: string, unique: true }
//       relationships:
//         bank: { to: Bank, inverse: customers, delete: nullify }   # the inverse to-many is created on Bank
//
// Attribute keys: type (string, integer, decimal, double, boolean, date, datetime, binary), scale (decimals,
// default 2), required, unique, indexed, default (a value, or today/now). Relationship keys: to, inverse,
// many (this side is to-many; default no), delete (this side's rule: nullify, cascade, deny, no action;
// default nullify), required (to-one), inverse-many (default: yes when this side is to-one),
// inverse-delete (default nullify). A natural key is made required and unique.

/// A mistake in a model file, with its place.
package struct ModelFileError: CategorizedError, Equatable {
    package let file: String
    package let line: Int
    package let column: Int
    package let message: String

    package var category: ErrorCategory { .configuration }
    package var description: String { "\(file):\(line):\(column): \(message)" }
}

extension ObjectModel {
    /// A model read from a model file (YAML: entities with their attributes, relationships, rules and default sort;
    /// docs/model.md), its entities added to those of `base` (none by default).
    ///
    /// Throws `ModelError`: `.unreadableFile` when the file cannot be read, `.modelFile` at the line and column of a
    /// mistake in it, or another case when the model it makes does not hold together.
    public init(contentsOfFile path: String, extending base: ObjectModel? = nil) throws(ModelError) {
        do {
            self = try ModelFile.load(path: path, extending: base ?? ObjectModel(entities: []))
        } catch let error as ModelError {
            throw error
        } catch let error as ModelFileError {
            throw .modelFile(file: error.file, line: error.line, column: error.column, message: error.message)
        } catch let error as InputError where error.category == .configuration {
            // A mistake the reader placed itself (`model.yaml:7:12: …`).
            throw .invalidModel(error.message, located: true)
        } catch let error as InputError {
            let prefix = path + ": "
            throw .unreadableFile(path: path, reason: error.message.hasPrefix(prefix) ? String(error.message.dropFirst(prefix.count)) : error.message)
        } catch {
            throw .invalidModel("\(error)", located: true)
        }
    }
}

package enum ModelFile {
    /// Reads the model file at `path` and returns `base` extended by it.
    package static func load(path: String, extending base: ObjectModel, displayName: String? = nil) throws -> ObjectModel {
        let name = displayName ?? path
        guard let data = FileManager.default.contents(atPath: path) else {
            var isDirectory: ObjCBool = false
            let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
            throw InputError("\(name): \(exists ? (isDirectory.boolValue ? "is a directory, not a model file" : "cannot be read") : "no such model file")",
                             category: exists ? .io : .missingInput)
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw ModelFileError(file: name, line: 1, column: 1, message: "the model file is not UTF-8 text")
        }
        return try parse(text, name: name, extending: base)
    }

    /// Parses model-file text (named `name` in errors) and returns `base` extended by it.
    package static func parse(_ text: String, name: String, extending base: ObjectModel) throws -> ObjectModel {
        var reader = Reader(file: name)
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw reader.yamlError(error)
        }
        guard let root else { return base }
        return try reader.extend(base, with: root)
    }
}

private struct Reader {
    let file: String

    func fail(_ node: Node?, _ message: String) -> ModelFileError {
        ModelFileError(file: file, line: node?.mark?.line ?? 1, column: node?.mark?.column ?? 1, message: message)
    }

    func yamlError(_ error: YamlError) -> ModelFileError {
        if let located = error.located {
            return ModelFileError(file: file, line: located.line, column: located.scalarColumn, message: "not valid YAML: \(located.problem)")
        }
        // Yams' description of the rest may span lines; messages are one line each.
        return ModelFileError(file: file, line: 1, column: 1,
                              message: "not valid YAML: \(String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " "))")
    }

    /// The pairs of a mapping, checking the keys against what is allowed there.
    func mapping(_ node: Node, _ what: String, allowed: [String]? = nil) throws(ModelFileError) -> [(key: Node, text: String, value: Node)] {
        guard case .mapping(let m) = node else { throw fail(node, "\(what) must be a mapping of keys to values") }
        var result: [(Node, String, Node)] = []
        for (k, v) in m {
            guard case .scalar(let s) = k else { throw fail(k, "keys must be plain names") }
            if let allowed, !allowed.contains(s.string) {
                throw fail(k, "unknown key \"\(s.string)\" in \(what)\(Suggestions.didYouMean(Suggestions.closest(to: s.string, in: allowed))) (allowed: \(allowed.joined(separator: ", ")))")
            }
            result.append((k, s.string, v))
        }
        return result
    }

    func string(_ node: Node, _ what: String) throws(ModelFileError) -> String {
        guard case .scalar(let s) = node else { throw fail(node, "\(what) must be a single value") }
        return s.string
    }

    func bool(_ node: Node, _ what: String) throws(ModelFileError) -> Bool {
        let text = try string(node, what)
        guard let b = Value.parseBoolean(text) else { throw fail(node, "\(what) must be yes or no, not \"\(text)\"") }
        return b
    }

    func rule(_ node: Node, _ what: String) throws(ModelFileError) -> DeleteRule {
        let text = try string(node, what).lowercased().replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "_", with: "")
        let names = ["nullify": DeleteRule.nullify, "cascade": .cascade, "deny": .deny, "noaction": .noAction]
        guard let r = names[text] else {
            throw fail(node, "\(what) must be nullify, cascade, deny or no action, not \"\(try string(node, what))\"\(Suggestions.didYouMean(Suggestions.closest(to: text, in: Array(names.keys))))")
        }
        return r
    }

    /// Where a scalar's text starts (inside its quotes), for predicates written in the file.
    func origin(of node: Node) -> PredicateSourceOrigin {
        var column = node.mark?.column ?? 1
        if case .scalar(let s) = node, s.style == .singleQuoted || s.style == .doubleQuoted { column += 1 }
        return PredicateSourceOrigin(name: file, line: node.mark?.line ?? 1, column: column)
    }

    mutating func extend(_ base: ObjectModel, with root: Node) throws -> ObjectModel {
        var entities = base.entities
        var marks: [String: Node] = [:]          // entity name → its key node, for errors found later
        var propertyMarks: [String: Node] = [:]  // `Entity.property` → its key node (an inverse made here: its owner's)
        var sortOrigins: [String: PredicateSourceOrigin] = [:]
        var pendingInverses: [(owner: String, relationship: EntityRelationship, inverseMany: Bool, inverseDelete: DeleteRule,
                               toNode: Node, inverseNode: Node)] = []
        let top = try mapping(root, "the model file", allowed: ["entities"])
        guard let entitiesNode = top.first?.value else { return base }
        let declared = try mapping(entitiesNode, "entities")
        // Every entity a relationship may point to: the built-in ones and those of this file, declared before or after.
        let entityNames = base.entities.map(\.name) + declared.map(\.text).filter { n in !base.entities.contains { $0.name == n } }
        for (keyNode, name, body) in declared {
            guard ObjectModel.isIdentifier(name), !name.hasPrefix("_") else {
                throw fail(keyNode, "\"\(name)\" is not a valid entity name (letters, digits and _, starting with a letter)")
            }
            marks[name] = keyNode
            let fields = try mapping(body, "entity \(name)", allowed: ["kind", "key", "attributes", "relationships", "rules", "sort"])
            let existing = entities.firstIndex { $0.name == name }
            var entity: Entity
            if let existing {
                entity = entities[existing]
                for (k, field, _) in fields where field == "kind" || field == "key" {
                    throw fail(k, "\(name) is already in the model; its \(field) cannot be changed here")
                }
            } else {
                guard let kindNode = fields.first(where: { $0.text == "kind" })?.value else {
                    throw fail(keyNode, "new entity \(name) needs a kind: directory, document or rows")
                }
                let kindText = try string(kindNode, "kind")
                guard let kind = EntityKind(rawValue: kindText.lowercased()) else {
                    throw fail(kindNode, "kind must be directory, document or rows, not \"\(kindText)\"\(Suggestions.didYouMean(Suggestions.closest(to: kindText, in: EntityKind.allCases.map(\.rawValue))))")
                }
                entity = Entity(name, kind: kind, attributes: [])
            }
            for (k, field, value) in fields {
                switch field {
                case "attributes":
                    for (aKey, aName, aBody) in try mapping(value, "\(name).attributes") {
                        if entity.attribute(named: aName) != nil || entity.relationship(named: aName) != nil {
                            throw fail(aKey, "\(name).\(aName) is already in the model")
                        }
                        entity.attributes.append(try attribute(aName, of: name, aKey, aBody))
                        propertyMarks["\(name).\(aName)"] = aKey
                    }
                case "relationships":
                    for (rKey, rName, rBody) in try mapping(value, "\(name).relationships") {
                        if entity.attribute(named: rName) != nil || entity.relationship(named: rName) != nil {
                            throw fail(rKey, "\(name).\(rName) is already in the model")
                        }
                        let spec = try mapping(rBody, "relationship \(name).\(rName)",
                                               allowed: ["to", "inverse", "many", "delete", "required", "inverse-many", "inverse-delete"])
                        func get(_ key: String) -> Node? { spec.first { $0.text == key }?.value }
                        guard let toNode = get("to") else { throw fail(rKey, "relationship \(name).\(rName) needs to: (its destination entity)") }
                        // An unknown destination is named first, at its value (`to: Nope` was told it needs inverse:).
                        let destination = try string(toNode, "to")
                        guard entityNames.contains(destination) else { throw unknownEntity(name, rName, destination, toNode, entityNames) }
                        guard let inverseNode = get("inverse") else {
                            throw fail(rKey, "relationship \(name).\(rName) needs inverse: (the relationship's name on \(try string(toNode, "to")))")
                        }
                        let many = try get("many").map { n throws(ModelFileError) in try bool(n, "many") } ?? false
                        let r = EntityRelationship(rName, to: try string(toNode, "to"), inverse: try string(inverseNode, "inverse"), toMany: many,
                                             required: try get("required").map { n throws(ModelFileError) in try bool(n, "required") } ?? false,
                                             deleteRule: try get("delete").map { n throws(ModelFileError) in try rule(n, "delete") } ?? .nullify)
                        if r.isToMany && r.isRequired { throw fail(get("required"), "a to-many relationship cannot be required") }
                        entity.relationships.append(r)
                        propertyMarks["\(name).\(rName)"] = rKey
                        pendingInverses.append((name, r,
                                                try get("inverse-many").map { n throws(ModelFileError) in try bool(n, "inverse-many") } ?? !many,
                                                try get("inverse-delete").map { n throws(ModelFileError) in try rule(n, "inverse-delete") } ?? .nullify,
                                                toNode, inverseNode))
                    }
                case "rules":
                    guard case .sequence(let items) = value else { throw fail(value, "rules must be a list of { where: …, message: … }") }
                    for item in items {
                        let spec = try mapping(item, "a rule", allowed: ["where", "message"])
                        guard let whereNode = spec.first(where: { $0.text == "where" })?.value else { throw fail(item, "a rule needs where: (a predicate)") }
                        let message = try spec.first(where: { $0.text == "message" }).map { p throws(ModelFileError) in try string(p.value, "message") }
                            ?? "breaks the rule \(try string(whereNode, "where"))"
                        entity.rules.append(ModelRule(try string(whereNode, "where"), message: message, origin: origin(of: whereNode)))
                    }
                case "sort":
                    entity.defaultSort = try string(value, "sort")
                    sortOrigins[name] = origin(of: value)
                case "kind":
                    break
                case "key":
                    entity.naturalKey = try string(value, "key")
                    if entity.attribute(named: entity.naturalKey!) == nil {
                        let declared = try fields.first { $0.text == "attributes" }.map { f throws(ModelFileError) in try mapping(f.value, "attributes").map(\.text) } ?? []
                        if !declared.contains(entity.naturalKey!) {
                            throw fail(value, "the key \(entity.naturalKey!) is not an attribute of \(name)\(Suggestions.didYouMean(Suggestions.closest(to: entity.naturalKey!, in: declared)))")
                        }
                    }
                default:
                    _ = k
                }
            }
            if existing == nil && entity.naturalKey == nil {
                let conventional = entity.kind == .directory ? "name" : (entity.kind == .document ? "number" : nil)
                if let conventional, entity.attribute(named: conventional) != nil { entity.naturalKey = conventional }
            }
            // A natural key names one object: it is required and unique.
            if let key = entity.naturalKey, let i = entity.attributes.firstIndex(where: { $0.name == key }) {
                entity.attributes[i].isRequired = true
                entity.attributes[i].isUnique = true
            }
            if let existing { entities[existing] = entity } else { entities.append(entity) }
        }
        // Inverses: create the other side when it is not declared, or check it when it is.
        // A wrong inverse is named at its `inverse:` value (it was named at `to:`).
        for (owner, r, inverseMany, inverseDelete, toNode, node) in pendingInverses {
            guard let d = entities.firstIndex(where: { $0.name == r.destination }) else {
                throw unknownEntity(owner, r.name, r.destination, toNode, entities.map(\.name))
            }
            if let declared = entities[d].relationship(named: r.inverse) {
                guard declared.destination == owner, declared.inverse == r.name else {
                    throw fail(node, "the inverse of \(owner).\(r.name) is \(r.destination).\(r.inverse), which points to \(declared.destination).\(declared.inverse) instead")
                }
                continue
            }
            if entities[d].attribute(named: r.inverse) != nil {
                throw fail(node, "\(r.destination).\(r.inverse) is an attribute, so it cannot be the inverse of \(owner).\(r.name)")
            }
            entities[d].relationships.append(EntityRelationship(r.inverse, to: owner, inverse: r.name, toMany: inverseMany, deleteRule: inverseDelete))
            propertyMarks["\(r.destination).\(r.inverse)"] = propertyMarks["\(owner).\(r.name)"]
        }
        do {
            return try ObjectModel(entities: entities, behaviours: base.behaviours, sortOrigins: sortOrigins)
        } catch {
            // Rules and sorts name their own place; names SQLite cannot hold apart name the line of the one written
            // last (the other may be built in); a property's problem names the property's line (it named the entity's:
            // `Customer.my attr` on line 4 was reported at line 2); other checks name the entity's line.
            if case .invalidModel(let message, true, _) = error { throw InputError(message, category: .configuration) }
            if case .invalidModel(let message, false, let subject?) = error, let node = propertyMarks[subject] {
                throw fail(node, message)
            }
            if case .nameClash(let message, let subjects) = error {
                let node = subjects.compactMap { propertyMarks[$0] ?? marks[$0] }
                    .max { ($0.mark?.line ?? 0, $0.mark?.column ?? 0) < ($1.mark?.line ?? 0, $1.mark?.column ?? 0) }
                throw fail(node, message)
            }
            let entityName = entities.first { e in "\(error)".contains(e.name) && marks[e.name] != nil }?.name
            let message = "\(error)".replacingOccurrences(of: "invalid model: ", with: "")
            throw fail(entityName.flatMap { marks[$0] }, message)
        }
    }

    /// `Customer.bank points to unknown entity Bnk — did you mean "Bank"?`, at the `to:` value.
    func unknownEntity(_ owner: String, _ relationship: String, _ destination: String, _ node: Node, _ names: [String]) -> ModelFileError {
        fail(node, "\(owner).\(relationship) points to unknown entity \(destination)\(Suggestions.didYouMean(Suggestions.closest(to: destination, in: names)))")
    }

    func attribute(_ name: String, of entity: String, _ keyNode: Node, _ body: Node) throws(ModelFileError) -> EntityAttribute {
        let spec = try mapping(body, "attribute \(entity).\(name)", allowed: ["type", "scale", "required", "unique", "indexed", "default"])
        func get(_ key: String) -> Node? { spec.first { $0.text == key }?.value }
        guard let typeNode = get("type") else {
            throw fail(keyNode, "attribute \(entity).\(name) needs a type: \(AttributeType.names.joined(separator: ", "))")
        }
        let typeName = try string(typeNode, "type")
        var scale = 2
        if let scaleNode = get("scale") {
            guard let s = Int(try string(scaleNode, "scale")), (0...DecimalNumber.maxScale).contains(s) else {
                throw fail(scaleNode, "scale must be a whole number from 0 to \(DecimalNumber.maxScale)")
            }
            scale = s
        }
        guard let type = AttributeType(name: typeName, scale: scale) else {
            throw fail(typeNode, "unknown type \"\(typeName)\"\(Suggestions.didYouMean(Suggestions.closest(to: typeName, in: AttributeType.names))) (types: \(AttributeType.names.joined(separator: ", ")))")
        }
        if get("scale") != nil, case .decimal = type {} else if let scaleNode = get("scale") {
            throw fail(scaleNode, "scale applies to decimals, but \(entity).\(name) is \(type)")
        }
        var defaultValue: DefaultValue?
        if let d = get("default") {
            let text = try string(d, "default")
            if text == "today" && type == .date { defaultValue = .today }
            else if text == "now" && type == .dateTime { defaultValue = .now }
            else {
                // A date-time default without an offset is a local time in $TZ: read only in a zone that is one (init,
                // backup and imports, which read no other local time, do not check TZ before they start).
                if type == .dateTime, case .parts(_, nil) = Timestamp.scan(text.trimmingCharacters(in: .whitespaces)) {
                    do { _ = try Zone.current() } catch {
                        throw fail(d, "default for \(entity).\(name): \"\(text)\" is a local time, but \(error)")
                    }
                }
                do {
                    defaultValue = .value(try Value.parse(text, as: type))
                } catch {
                    throw fail(d, "default for \(entity).\(name): \(error.message)")
                }
            }
        }
        func flag(_ key: String) throws(ModelFileError) -> Bool { try get(key).map { n throws(ModelFileError) in try bool(n, key) } ?? false }
        return EntityAttribute(name, type, required: try flag("required"), default: defaultValue, unique: try flag("unique"), indexed: try flag("indexed"))
    }
}
