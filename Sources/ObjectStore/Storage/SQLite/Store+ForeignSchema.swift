import Foundation
import GRDB

// A UNIQUE index or CHECK constraint another tool added to the store refuses a write: one line naming the store and
// the constraint as not the model's (found by attack 17: SQLite's own text with exit 74, and import's line without the
// store's name quoting the statement's SQL).

extension Store {
    /// The refusal `message` (SQLite's text, perhaps followed by ` — while executing …`) in the store's words when
    /// the constraint that refused the write is not the model's; nil for the model's own (its keys), and any other.
    /// Called once the write transaction is over (its schema is read).
    func foreignConstraint(_ message: String?) -> StoreError? {
        guard let message else { return nil }
        let text = message.components(separatedBy: " — while executing").first ?? message
        let checkPrefix = "CHECK constraint failed: ", uniquePrefix = "UNIQUE constraint failed: "
        if text.hasPrefix(checkPrefix) {
            // The model's schema has no CHECK constraint (SchemaBuilder): every one is another tool's.
            return .foreignConstraint(path: path, constraint: "CHECK constraint \(text.dropFirst(checkPrefix.count))")
        }
        guard text.hasPrefix(uniquePrefix) else { return nil }
        let named = text.dropFirst(uniquePrefix.count).components(separatedBy: ", ")
        guard let table = named.first?.split(separator: ".", maxSplits: 1).first.map(String.init) else { return nil }
        let columns = named.compactMap { $0.split(separator: ".", maxSplits: 1).last.map { quoted(String($0)).lowercased() } }
        guard let shapes = try? queue.inDatabase({ db in (try SchemaShape.read(db), try SchemaShape.expected(for: model)) })
        else { return nil }
        let (stored, expected) = shapes
        func sameKeys(_ keys: [String]) -> Bool { keys.map { $0.lowercased() } == columns }
        // The model's own index or constraint on these columns: its refusal is worded where it is met, not here.
        if expected.indexes.contains(where: { $0.unique && $0.table.lowercased() == table.lowercased() && sameKeys($0.keys) }) {
            return nil
        }
        let constraint = "UNIQUE (\(columns.joined(separator: ", ")))"
        if expected.table(named: table)?.constraints.contains(where: { $0.lowercased() == constraint }) == true { return nil }
        let columnList = named.compactMap { $0.split(separator: ".", maxSplits: 1).last }.joined(separator: ", ")
        if let index = stored.indexes.first(where: { $0.unique && !$0.partial && $0.table.lowercased() == table.lowercased() && sameKeys($0.keys) })
            ?? stored.indexes.first(where: { $0.unique && $0.table.lowercased() == table.lowercased() && sameKeys($0.keys) }) {
            return .foreignConstraint(path: path, constraint: "unique index \(quoted(index.name)) on \(table)(\(columnList))")
        }
        if stored.table(named: table)?.constraints.contains(where: { $0.lowercased() == constraint }) == true {
            return .foreignConstraint(path: path, constraint: "UNIQUE constraint on \(table)(\(columnList))")
        }
        return nil
    }
}

// A model column another tool renamed or dropped: every command names it as the model does and points at `check`
// (attack 17, finding 3: `show` and `list` printed it empty with exit 0, the others SQLite's `no such column: t0.info`
// with exit 74).

extension Store {
    /// SQLite's `no such column: t0.info` or `table X has no column named info` in the store's words, when a column
    /// of the model by that name is missing from the store; nil otherwise. Called once the statement's transaction is
    /// over (its schema is read).
    func missingColumn(_ message: String?) -> StoreError? {
        guard let message else { return nil }
        let text = message.components(separatedBy: " — while executing").first ?? message
        let named: Substring
        if text.hasPrefix("no such column: ") {
            named = text.dropFirst("no such column: ".count).split(separator: ".").last ?? ""
        } else if let range = text.range(of: " has no column named ") {
            named = text[range.upperBound...]
        } else {
            return nil
        }
        guard let shapes = try? queue.inDatabase({ db in (try SchemaShape.read(db), try SchemaShape.expected(for: model)) })
        else { return nil }
        let (stored, expected) = shapes
        for wanted in expected.tables {
            guard let table = stored.table(named: wanted.name) else { continue }
            for column in wanted.columns where column.name.lowercased() == named.lowercased() && table.column(named: column.name) == nil {
                return .missingColumn(path: path, column: modelName(table: wanted.name, column: column.name))
            }
        }
        return nil
    }

    /// A stored column as the model names it: `Customer.info` for an attribute, `Order.customer` for the foreign key
    /// of a to-one relationship, else `table.column` (a join table's).
    func modelName(table: String, column: String) -> String {
        guard let entity = model.entity(named: table) else { return "\(table).\(column)" }
        if let attribute = entity.attributes.first(where: { $0.name.lowercased() == column.lowercased() }) {
            return "\(entity.name).\(attribute.name)"
        }
        for r in entity.relationships where !r.isToMany {
            if case .foreignKey(let key) = model.storage(of: r, in: entity), key.lowercased() == column.lowercased() {
                return "\(entity.name).\(r.name)"
            }
        }
        return "\(entity.name).\(column)"
    }
}
