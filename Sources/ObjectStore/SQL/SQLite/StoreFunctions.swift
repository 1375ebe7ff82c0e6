import Foundation
import GRDB
import GRDBSQLite
import LocalTime

/// SQL functions and collations the store registers on every connection. SQLite's own NOCASE and LIKE are
/// ASCII-only; these use the same Unicode-aware code as the in-memory evaluator, so both agree.
enum StoreFunctions {
    /// `bk_invalid_utf8(x)`: 1 when x is text whose bytes are not UTF-8, else 0 (`check`).
    static let invalidUTF8 = "bk_invalid_utf8"
    /// `bk_localday(x)`: the local date (`YYYY-MM-DD`) in the process's zone of a date-time's stored UTC text, for
    /// the periods of date-times (`month(at)`); NULL for NULL, other text, and a local date outside 1 to 9999.
    static let localDay = "bk_localday"
    /// `bk_finite(x, 'Entity', 'attribute', id)`: x, or an error naming the object when x is a non-finite double
    /// (Store+NonFinite.swift: a sum would add it in, and +∞ + −∞ is a NaN that SQLite turns into NULL).
    static let finite = "bk_finite"
    /// `bk_list(x, 'decimal:2')`: the stored values of a to-many column, in one text (StoredValue+List.swift).
    static let list = "bk_list"
    /// `COLLATE bk_nocase`: TextCollation.nocaseCompare (SQLite's own NOCASE folds only ASCII).
    static let nocase = "bk_nocase"
    /// `COLLATE bk_natural`: TextCollation.naturalCompare.
    static let natural = "bk_natural"
    /// `bk_fold(x, flags)`: TextFolding.fold, flags 1 case-insensitive, 2 diacritic-insensitive.
    static let fold = "bk_fold"
    /// `bk_convert(x, 'decimal:2', 'integer')`: a value converted exactly by a migration (Value.converted).
    static let convert = "bk_convert"
    /// `bk_beginswith(x, p, flags)`, …: the string operators as StringOperators.apply decides them.
    static let stringOperators: [(String, PredicateOperator)] = [
        ("bk_beginswith", .beginsWith), ("bk_endswith", .endsWith), ("bk_contains", .contains),
        ("bk_like", .like), ("bk_matches", .matches),
    ]

    static func register(in db: Database, zone: Zone = .process) {
        WideInteger.register(in: db)
        registerLocalDay(in: db, zone: zone)
        // Against SQLite's C API: a GRDB function receives text already decoded, the bad bytes replaced.
        let code = sqlite3_create_function_v2(db.sqliteConnection, invalidUTF8, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                              invalidUTF8Function, nil, nil, nil)
        precondition(code == SQLITE_OK, "registering \(invalidUTF8) failed: \(code)")
        // Against the C API too: it runs once a value summed, and GRDB's boxing of every argument would cost more
        // than the sum.
        let finiteCode = sqlite3_create_function_v2(db.sqliteConnection, finite, 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
                                                    finiteFunction, nil, nil, nil)
        precondition(finiteCode == SQLITE_OK, "registering \(finite) failed: \(finiteCode)")
        db.add(function: DatabaseFunction(list, argumentCount: 2, pure: true, aggregate: ListAggregate.self))
        db.add(collation: DatabaseCollation(nocase) { a, b in TextCollation.nocaseCompare(a, b) })
        // Against the C API: SQLite calls it for every pair a sort compares (order-details sorts a million rows by
        // `order.number natural`), and GRDB's collations make two Strings a call; this reads the bytes in place.
        let naturalCode = sqlite3_create_collation_v2(db.sqliteConnection, natural, SQLITE_UTF8, nil,
                                                      naturalCollation, nil)
        precondition(naturalCode == SQLITE_OK, "registering \(natural) failed: \(naturalCode)")
        db.add(function: DatabaseFunction(fold, argumentCount: 2, pure: true) { values in
            guard let text = String.fromDatabaseValue(values[0]) else { return nil }
            let flags = Int.fromDatabaseValue(values[1]) ?? 0
            return TextFolding.fold(text, caseInsensitive: flags & 1 != 0, diacriticInsensitive: flags & 2 != 0)
        })
        // Migrations convert a column's values exactly (see Value.converted); NULL when a value cannot be.
        db.add(function: DatabaseFunction(convert, argumentCount: 3, pure: true) { values in
            guard let from = String.fromDatabaseValue(values[1]).flatMap(AttributeType.init(spec:)),
                  let to = String.fromDatabaseValue(values[2]).flatMap(AttributeType.init(spec:)) else { return nil }
            return Value(databaseValue: values[0], as: from).converted(to: to)?.databaseValue(for: to)
        })
        for (name, op) in stringOperators {
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
    /// `decimal:2`, `integer`: how bk_convert and bk_list name a type.
    var spec: String {
        if case .decimal(let s) = self { return "decimal:\(s)" }
        return name
    }

    /// Reads `decimal:2`, `integer`, … as written by the migration planner.
    init?(spec: String) {
        let parts = spec.split(separator: ":")
        self.init(name: String(parts[0]), scale: parts.count > 1 ? Int(parts[1]) ?? 0 : 0)
    }
}

extension StoreFunctions {
    /// The zone is one per process (TZ is read once), so the function is deterministic on every connection there
    /// is, and SQLite may compute it once per row; but another process may read another zone, so it is never
    /// allowed into the schema (SQLITE_DIRECTONLY: no index, view, trigger or CHECK of a store can use it).
    static func registerLocalDay(in db: Database, zone: Zone) {
        let box = Unmanaged.passRetained(ZoneBox(zone)).toOpaque()
        let code = sqlite3_create_function_v2(db.sqliteConnection, localDay, 1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_DIRECTONLY,
                                              box, localDayFunction, nil, nil, { Unmanaged<ZoneBox>.fromOpaque($0!).release() })
        precondition(code == SQLITE_OK, "registering \(localDay) failed: \(code)")
    }

    final class ZoneBox {
        let zone: Zone
        init(_ zone: Zone) { self.zone = zone }
    }

    private static let localDayFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = arguments?[0], sqlite3_value_type(value) == SQLITE_TEXT, let text = sqlite3_value_text(value),
              let t = Timestamp(iso: String(cString: text)) else {
            sqlite3_result_null(context)
            return
        }
        let zone = Unmanaged<ZoneBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue().zone
        guard let day = t.day(in: zone) else {
            sqlite3_result_null(context)
            return
        }
        // SQLITE_TRANSIENT: SQLite copies the text before the Swift string goes.
        sqlite3_result_text(context, day.description, -1, unsafeBitCast(-1, to: sqlite3_destructor_type.self))
    }

    private static let invalidUTF8Function: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let value = arguments?[0], sqlite3_value_type(value) == SQLITE_TEXT else {
            sqlite3_result_int(context, 0)
            return
        }
        // The bytes as stored (sqlite3_value_blob converts nothing), then their length.
        let start = sqlite3_value_blob(value)
        let count = Int(sqlite3_value_bytes(value))
        guard let start, count > 0 else {
            sqlite3_result_int(context, 0)
            return
        }
        let bytes = UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: count)
        sqlite3_result_int(context, isUTF8(bytes) ? 0 : 1)
    }

    private static let naturalCollation: @convention(c) (UnsafeMutableRawPointer?, Int32, UnsafeRawPointer?, Int32, UnsafeRawPointer?) -> Int32 = { _, countA, a, countB, b in
        func bytes(_ start: UnsafeRawPointer?, _ count: Int32) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(start: start?.assumingMemoryBound(to: UInt8.self), count: start == nil ? 0 : Int(count))
        }
        return Int32(TextCollation.naturalCompare(utf8: bytes(a, countA), bytes(b, countB)).rawValue)
    }

    private static let finiteFunction: @convention(c) (OpaquePointer?, Int32, UnsafeMutablePointer<OpaquePointer?>?) -> Void = { context, _, arguments in
        guard let arguments, let value = arguments[0] else { return }
        if sqlite3_value_type(value) == SQLITE_FLOAT {
            let d = sqlite3_value_double(value)
            if !d.isFinite {
                func text(_ i: Int) -> String { arguments[i].flatMap(sqlite3_value_text).map { String(cString: $0) } ?? "" }
                let stored = NonFiniteStoredNumber(object: ObjectID(entity: text(1), rowID: sqlite3_value_int64(arguments[3]!)),
                                                   attribute: text(2), value: d)
                sqlite3_result_error(context, NonFiniteStoredNumber.sqlMessage(stored), -1)
                return
            }
        }
        sqlite3_result_value(context, value)
    }

    /// Whether the bytes are UTF-8 (no overlong forms, surrogates or code points past U+10FFFF), ASCII at once.
    static func isUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var i = 0
        while i < bytes.count && bytes[i] < 0x80 { i += 1 }
        if i == bytes.count { return true }
        let hadError = transcode(UnsafeBufferPointer(rebasing: bytes[i...]).makeIterator(), from: UTF8.self, to: UTF32.self,
                                 stoppingOnError: true) { _ in }
        return !hadError
    }
}

/// The items of a to-many column (`tags.name`, `rows.sum`): their stored values in order, NULLs left out, as
/// `StoredValue.listText` writes them, which each reader decodes by the attribute's type
/// (StoredValue+List.swift). The second argument names the type; the items need it no more.
struct ListAggregate: DatabaseAggregate {
    private var items: [StoredValue] = []

    init() {}

    mutating func step(_ values: [DatabaseValue]) throws {
        let value = StoredValue(values[0])
        if value != .null { items.append(value) }
    }

    func finalize() throws -> (any DatabaseValueConvertible)? {
        items.isEmpty ? nil : StoredValue.listText(items)
    }
}
