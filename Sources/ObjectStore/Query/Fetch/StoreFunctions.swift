import Foundation
import GRDB

/// SQL functions and collations the store registers on every connection. SQLite's own NOCASE and LIKE are
/// ASCII-only; these use the same Unicode-aware code as the in-memory evaluator, so both agree.
enum StoreFunctions {
    static func register(in db: Database) {
        WideInteger.register(in: db)
        db.add(collation: DatabaseCollation("bk_nocase") { a, b in TextCollation.nocaseCompare(a, b) })
        db.add(collation: DatabaseCollation("bk_natural") { a, b in TextCollation.naturalCompare(a, b) })
        db.add(function: DatabaseFunction("bk_fold", argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]) else { return nil }
            let flags = Int.fromDatabaseValue(values[1]) ?? 0
            return TextFolding.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
        })
        // Migrations convert a column's values exactly (see Value.converted); NULL when a value cannot be.
        db.add(function: DatabaseFunction("bk_convert", argumentCount: 3, pure: true) { values in
            guard let from = String.fromDatabaseValue(values[1]).flatMap(AttributeType.init(spec:)),
                  let to = String.fromDatabaseValue(values[2]).flatMap(AttributeType.init(spec:)) else { return nil }
            return Value(databaseValue: values[0], as: from).converted(to: to)?.databaseValue(for: to)
        })
        let operators: [(String, PredicateOperator)] = [
            ("bk_beginswith", .beginsWith), ("bk_endswith", .endsWith), ("bk_contains", .contains),
            ("bk_like", .like), ("bk_matches", .matches),
        ]
        for (name, op) in operators {
            db.add(function: DatabaseFunction(name, argumentCount: 3, pure: true) { values in
                guard let text = String.fromDatabaseValue(values[0]), let needle = String.fromDatabaseValue(values[1]) else {
                    return 0
                }
                let options = PredicateStringOptions(rawValue: UInt8(Int.fromDatabaseValue(values[2]) ?? 0))
                // A thrown error fails the statement with its text (GRDB), which Store.mapErrors recognises.
                return try StringOperators.apply(op, text, needle, options) ? 1 : 0
            })
        }
    }
}

extension AttributeType {
    /// Reads `decimal:2`, `integer`, … as written by the migration planner.
    init?(spec: String) {
        let parts = spec.split(separator: ":")
        self.init(name: String(parts[0]), scale: parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
    }
}
