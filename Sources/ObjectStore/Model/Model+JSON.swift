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
