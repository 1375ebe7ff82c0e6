import Foundation

// The model as plain JSON: recorded in every store's metadata (so a store says which model wrote it)
// and printed by `bookkeeper model --format json` for tools. The shape is a contract: add keys, never rename.

extension ObjectModel {
    /// A JSON-compatible description, with stable key order when serialised with `.sortedKeys`.
    package var jsonObject: [String: Any] {
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

    /// The canonical JSON text of the model: what `JSONSerialization.data(withJSONObject: jsonObject, options:
    /// [.sortedKeys])` writes (ModelTests compare them on generated models), written directly. Every command that
    /// opens a store hashes it, and JSONSerialization's dynamic casts took 4 ms of a 25 ms report (issue 27).
    package var canonicalJSON: String {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        func raw(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount)) }
        // Strings as JSONSerialization escapes them: quote, backslash and slash with a backslash, the usual
        // short escapes, other controls as \u00xx (lowercase hex), everything else as it is.
        func string(_ text: String) {
            out.append(UInt8(ascii: "\""))
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "/"): raw("\\/")
                case 0x08: raw("\\b")
                case 0x0C: raw("\\f")
                case 0x0A: raw("\\n")
                case 0x0D: raw("\\r")
                case 0x09: raw("\\t")
                case 0x00..<0x20:
                    raw("\\u00")
                    out.append(UInt8(ascii: byte < 0x10 ? "0" : "1"))
                    out.append(Array("0123456789abcdef".utf8)[Int(byte & 0x0F)])
                default: out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }
        func bool(_ value: Bool) { if value { raw("true") } else { raw("false") } }
        // Keys in the order `.sortedKeys` gives them (case-insensitive).
        raw("{\"entities\":[")
        for (n, e) in entities.enumerated() {
            if n > 0 { raw(",") }
            raw("{\"attributes\":[")
            for (k, a) in e.attributes.enumerated() {
                if k > 0 { raw(",") }
                raw("{")
                if let def = a.defaultValue {
                    raw("\"default\":")
                    string(def.text)
                    raw(",")
                }
                raw("\"indexed\":"); bool(a.isIndexed)
                raw(",\"name\":"); string(a.name)
                raw(",\"required\":"); bool(a.isRequired)
                if case .decimal(let scale) = a.type {
                    raw(",\"scale\":")
                    out.append(contentsOf: String(scale).utf8)
                }
                raw(",\"type\":"); string(a.type.name)
                raw(",\"unique\":"); bool(a.isUnique)
                raw("}")
            }
            raw("],\"kind\":"); string(e.kind.rawValue)
            raw(",\"name\":"); string(e.name)
            if let key = e.naturalKey {
                raw(",\"naturalKey\":")
                string(key)
            }
            raw(",\"relationships\":[")
            for (k, r) in e.relationships.enumerated() {
                if k > 0 { raw(",") }
                raw("{\"deleteRule\":"); string(r.deleteRule.rawValue)
                raw(",\"destination\":"); string(r.destination)
                raw(",\"inverse\":"); string(r.inverse)
                raw(",\"name\":"); string(r.name)
                raw(",\"required\":"); bool(r.isRequired)
                raw(",\"toMany\":"); bool(r.isToMany)
                raw("}")
            }
            raw("]")
            if !e.rules.isEmpty {
                raw(",\"rules\":[")
                for (k, rule) in e.rules.enumerated() {
                    if k > 0 { raw(",") }
                    raw("{\"message\":"); string(rule.message)
                    raw(",\"where\":"); string(rule.predicate)
                    raw("}")
                }
                raw("]")
            }
            if let sort = e.defaultSort {
                raw(",\"sort\":")
                string(sort)
            }
            raw("}")
        }
        raw("]}")
        return String(decoding: out, as: UTF8.self)
    }

    /// The canonical JSON text as JSONSerialization writes it (what `canonicalJSON` must equal).
    package var canonicalJSONThroughSerialization: String {
        let data = try! JSONSerialization.data(withJSONObject: jsonObject, options: [.sortedKeys])
        return String(decoding: data, as: UTF8.self)
    }

    /// A short fingerprint of the canonical JSON (FNV-1a, 64 bits): equal models have equal hashes.
    package var versionHash: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonicalJSON.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension ObjectModel {
    /// The model a store recorded (`jsonObject`'s shape), read back for comparing with the current one.
    /// Behaviours are not recorded; they come from the current model by entity name.
    package init(jsonObject: Any, behaviours: [String: EntityBehaviour] = [:]) throws(ModelError) {
        func fail(_ what: String) -> ModelError { .invalidModel("the recorded model is unreadable: \(what)") }
        guard let root = jsonObject as? [String: Any], let list = root["entities"] as? [[String: Any]] else {
            throw fail("no entities")
        }
        var entities: [Entity] = []
        for e in list {
            guard let name = e["name"] as? String, let kindText = e["kind"] as? String,
                  let kind = EntityKind(rawValue: kindText) else { throw fail("an entity without name or kind") }
            var attributes: [EntityAttribute] = []
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
                attributes.append(EntityAttribute(aName, type, required: a["required"] as? Bool ?? false, default: defaultValue,
                                            unique: a["unique"] as? Bool ?? false, indexed: a["indexed"] as? Bool ?? false))
            }
            var relationships: [EntityRelationship] = []
            for r in e["relationships"] as? [[String: Any]] ?? [] {
                guard let rName = r["name"] as? String, let destination = r["destination"] as? String,
                      let inverse = r["inverse"] as? String, let ruleText = r["deleteRule"] as? String,
                      let rule = DeleteRule(rawValue: ruleText) else { throw fail("a relationship of \(name)") }
                relationships.append(EntityRelationship(rName, to: destination, inverse: inverse, toMany: r["toMany"] as? Bool ?? false,
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
    package init?(name: String, scale: Int = 0) {
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

    package static let names = ["string", "integer", "decimal", "double", "boolean", "date", "datetime", "binary"]
}
