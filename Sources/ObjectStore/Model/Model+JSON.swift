import Foundation

// The model as plain JSON: recorded in every store's metadata (so a store says which model wrote it)
// and printed by `bookkeeper model --format json` for tools. The shape is a contract: add keys, never rename.

extension Model {
    /// A JSON-compatible description, with stable key order when serialised with `.sortedKeys`.
    public var jsonObject: [String: Any] {
        ["entities": entities.map { e -> [String: Any] in
            var entity: [String: Any] = [
                "name": e.name,
                "kind": e.kind.rawValue,
                "attributes": e.attributes.map { a -> [String: Any] in
                    var d: [String: Any] = [
                        "name": a.name, "type": a.type.name,
                        "required": a.isRequired, "unique": a.isUnique, "indexed": a.isIndexed,
                    ]
                    if case .decimal(let scale) = a.type { d["scale"] = scale }
                    if let def = a.defaultValue { d["default"] = def.text }
                    return d
                },
                "relationships": e.relationships.map { r -> [String: Any] in
                    ["name": r.name, "destination": r.destination, "inverse": r.inverse,
                     "toMany": r.isToMany, "required": r.isRequired, "deleteRule": r.deleteRule.rawValue]
                },
            ]
            if let key = e.naturalKey { entity["naturalKey"] = key }
            // Absent rather than empty, so that adding these keys did not change older models' hashes.
            if let sort = e.defaultSort { entity["sort"] = sort }
            if !e.rules.isEmpty { entity["rules"] = e.rules.map { ["where": $0.predicate, "message": $0.message] } }
            return entity
        }]
    }

    /// The canonical JSON text of the model.
    public var canonicalJSON: String {
        let data = try! JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A short fingerprint of the canonical JSON (FNV-1a, 64 bits): equal models have equal hashes.
    public var versionHash: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalJSON.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Model {
    /// The model a store recorded (`jsonObject`'s shape), read back for comparing with the current one.
    /// Behaviours are not recorded; they come from the current model by entity name.
    public init(jsonObject: Any, behaviours: [String: EntityBehaviour] = [:]) throws(ModelError) {
        func fail(_ what: String) -> ModelError { .invalidModel("the recorded model is unreadable: \(what)") }
        guard let root = jsonObject as? [String: Any], let list = root["entities"] as? [[String: Any]] else {
            throw fail("no entities")
        }
        var entities: [Entity] = []
        for e in list {
            guard let name = e["name"] as? String, let kindText = e["kind"] as? String,
                  let kind = EntityKind(rawValue: kindText) else { throw fail("an entity without name or kind") }
            var attributes: [Attribute] = []
            for a in e["attributes"] as? [[String: Any]] ?? [] {
                guard let aName = a["name"] as? String, let typeName = a["type"] as? String,
                      let type = AttributeType(name: typeName, scale: a["scale"] as? Int ?? 0) else {
                    throw fail("an attribute of \(name)")
                }
                var defaultValue: DefaultValue?
                if let text = a["default"] as? String {
                    switch text {
                    case "today" where type == .date: defaultValue = .today
                    case "now" where type == .dateTime: defaultValue = .now
                    default:
                        guard let v = try? Value.parse(text, as: type) else { throw fail("the default of \(name).\(aName)") }
                        defaultValue = .value(v)
                    }
                }
                attributes.append(Attribute(aName, type, required: a["required"] as? Bool ?? false, default: defaultValue,
                                            unique: a["unique"] as? Bool ?? false, indexed: a["indexed"] as? Bool ?? false))
            }
            var relationships: [Relationship] = []
            for r in e["relationships"] as? [[String: Any]] ?? [] {
                guard let rName = r["name"] as? String, let destination = r["destination"] as? String,
                      let inverse = r["inverse"] as? String, let ruleText = r["deleteRule"] as? String,
                      let rule = DeleteRule(rawValue: ruleText) else { throw fail("a relationship of \(name)") }
                relationships.append(Relationship(rName, to: destination, inverse: inverse, toMany: r["toMany"] as? Bool ?? false,
                                                  required: r["required"] as? Bool ?? false, deleteRule: rule))
            }
            let rules = (e["rules"] as? [[String: String]] ?? []).compactMap { d in
                d["where"].map { ModelRule($0, message: d["message"] ?? "") }
            }
            entities.append(Entity(name, kind: kind, naturalKey: e["naturalKey"] as? String, attributes: attributes,
                                   relationships: relationships, defaultSort: e["sort"] as? String, rules: rules))
        }
        try self.init(entities: entities, behaviours: behaviours)
    }
}

extension AttributeType {
    /// The type named in model files and recorded models (`decimal` with its scale).
    public init?(name: String, scale: Int = 0) {
        switch name.lowercased() {
        case "string": self = .string
        case "integer": self = .integer
        case "decimal": self = .decimal(scale: scale)
        case "double": self = .double
        case "boolean": self = .boolean
        case "date": self = .date
        case "datetime": self = .dateTime
        case "binary": self = .binary
        default: return nil
        }
    }

    public static let names = ["string", "integer", "decimal", "double", "boolean", "date", "datetime", "binary"]
}
