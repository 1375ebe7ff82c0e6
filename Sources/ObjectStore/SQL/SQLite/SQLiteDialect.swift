import GRDB

/// SQLite: the functions and collations of StoreFunctions.swift, sums through ExactSum.swift, wide numbers
/// through WideInteger.swift, long lists through `json_each`.
package struct SQLiteDialect: SQLDialect {
    /// Lists up to this long are written as placeholders (readable in `--explain`, planned as SQLite plans a
    /// literal list); longer ones are bound as one JSON array.
    static let placeholderListLimit = 64

    package init() {}

    /// Makes a fresh connection able to run the dialect's SQL: registers the functions and collations it names.
    func prepare(_ db: Database) { StoreFunctions.register(in: db) }

    package func placeholder(_ position: Int) -> String { "?\(position)" }

    package func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// SQLite compares names folding ASCII letters only (Model+SQLNames.swift).
    package func foldName(_ name: String) -> String { ObjectModel.sqlFold(name) }

    /// STRICT column types. Decimals are scaled integers; dates and date-times are ISO text; booleans 0/1.
    package func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .date, .dateTime: "TEXT"
        case .integer, .decimal, .boolean: "INTEGER"
        case .double: "REAL"
        case .binary: "BLOB"
        }
    }

    package func storedBoolean(_ column: String) -> String { "(\(column) <> 0)" }

    package func upsert(into table: String, columns: [String], values: [String], conflict: [String], update: [String]) -> String {
        let insert = "INSERT INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        let target = "ON CONFLICT (\(conflict.map(quote).joined(separator: ", ")))"
        if update.isEmpty { return "\(insert) \(target) DO NOTHING" }
        return "\(insert) \(target) DO UPDATE SET " + update.map { "\(quote($0)) = excluded.\(quote($0))" }.joined(separator: ", ")
    }

    package func returning(_ columns: [String]) -> String { " RETURNING " + columns.map(quote).joined(separator: ", ") }

    package var nocaseCollation: String { StoreFunctions.nocase }
    package var naturalCollation: String { StoreFunctions.natural }

    package func fold(_ text: String, _ options: PredicateStringOptions) -> String {
        "\(StoreFunctions.fold)(\(text), \(options.rawValue))"
    }

    package func stringMatch(_ op: PredicateOperator, _ text: String, _ pattern: String, options: String) -> String {
        guard let function = StoreFunctions.stringOperators.first(where: { $0.1 == op })?.0 else {
            preconditionFailure("\(op.rawValue) is not a string operator")
        }
        return "\(function)(\(text), \(pattern), \(options))"
    }

    package func invalidUTF8(_ value: String) -> String { "\(StoreFunctions.invalidUTF8)(\(value))" }

    package func localDay(_ dateTime: String) -> String { "\(StoreFunctions.localDay)(\(dateTime))" }

    package func wideComparable(_ value: String) -> String { "\(WideInteger.comparableFunction)(\(value))" }

    package func finite(_ value: String, entity: String, attribute: String, id: String) -> String {
        func literal(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
        return "\(StoreFunctions.finite)(\(value), \(literal(entity)), \(literal(attribute)), \(id))"
    }

    package func convert(_ value: String, from: AttributeType, to: AttributeType) -> String {
        "\(StoreFunctions.convert)(\(value), '\(from.spec)', '\(to.spec)')"
    }

    package func valueList(_ value: String, _ type: AttributeType) -> String { "\(StoreFunctions.list)(\(value), '\(type.spec)')" }

    package func temporary(_ name: String) -> String { "temp.\(quote(name))" }
    package func temporaryTable(_ name: String, columns: String, primaryKey: [String]?) -> String {
        let key = primaryKey.map { ", PRIMARY KEY (\($0.map(quote).joined(separator: ", ")))" } ?? ""
        return "CREATE TEMP TABLE IF NOT EXISTS \(quote(name)) (\(columns)\(key))\(primaryKey == nil ? "" : " WITHOUT ROWID")"
    }
    package func insertIgnoringDuplicates(into table: String, columns: [String], select: String) -> String {
        "INSERT OR IGNORE INTO \(table) (\(columns.map(quote).joined(separator: ", "))) \(select)"
    }

    package func savepoint(_ name: String) -> String { "SAVEPOINT \(quote(name))" }
    package func rollbackToSavepoint(_ name: String) -> String { "ROLLBACK TO \(quote(name))" }
    package func releaseSavepoint(_ name: String) -> String { "RELEASE \(quote(name))" }
    package var beginWriteTransaction: String { "BEGIN IMMEDIATE" }
    package var analyze: String { "ANALYZE" }

    package func insertRows(into table: String, columns: [String], rows: Int) -> String {
        let one = "(" + Array(repeating: "?", count: columns.count).joined(separator: ", ") + ")"
        // OR FAIL, not the default ABORT: an ABORT statement inside a transaction keeps a statement journal
        // (a copy of every page it changes, to undo itself alone), which on the 1M-line bench was 103,000
        // writes to a temporary file. The batch never needs that undo: a failed insert fails the whole
        // transaction, or rolls back to the savepoint of the record (`--on-error skip`).
        return "INSERT OR FAIL INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) VALUES "
            + Array(repeating: one, count: rows).joined(separator: ", ")
    }

    package func sortHelpers(_ count: Int) -> String { "PRAGMA threads = \(count)" }
    package var foreignKeysEnabled: String { "PRAGMA foreign_keys" }
    package func foreignKeys(on: Bool) -> String { "PRAGMA foreign_keys = \(on ? "ON" : "OFF")" }
    package var foreignKeyCheck: String { "PRAGMA foreign_key_check" }
    /// A reader reads its snapshot, which still has the index.
    package var dropsIndexesDuringLoads: Bool { true }
    package var generatedKey: String { "INTEGER PRIMARY KEY" }
    package var typedTable: String { " STRICT" }

    package var indexesOfTable: String {
        """
        SELECT "name", "sql", "unique" FROM pragma_index_list(?) JOIN sqlite_master USING ("name")
        WHERE "type" = 'index' AND "sql" IS NOT NULL ORDER BY "name"
        """
    }

    /// An expression's key column (cid -2) has no name; BINARY is SQLite's bytewise order.
    package var keyColumnsOfIndex: String {
        #"SELECT CASE WHEN "cid" = -2 THEN NULL ELSE "name" END, "coll" = 'BINARY' FROM pragma_index_xinfo(?) WHERE "key" = 1 ORDER BY "seqno""#
    }

    package var indexExists: String { #"SELECT 1 FROM sqlite_master WHERE "type" = 'index' AND "name" = ?"# }
    package var columnsOfTable: String { #"SELECT "name" FROM pragma_table_info(?)"# }
    /// (Not GRDB's `tableExists`: GRDB would cache the schema, and a batch changes it through its own handle.)
    package var tableExists: String {
        #"SELECT count(*) > 0 FROM sqlite_master WHERE "type" = 'table' AND lower("name") = lower(?)"#
    }
    package var schemaVersion: String { "PRAGMA schema_version" }

    package func connectionSettings(readOnly: Bool) -> [String] {
        // A damaged page's cells are checked as they are read: without it, a join that seeks a damaged table
        // page by rowid found no row there and dropped the rows that needed it, with no error (order-details
        // lost 102 of 5,124 rows and exited 0). No measurable cost on the bench's million rows.
        (readOnly ? [] : ["PRAGMA synchronous = NORMAL"]) + [checkPagesOnRead(true)]
    }

    package var beginRead: String { "BEGIN DEFERRED" }
    package var commit: String { "COMMIT" }
    package var rollback: String { "ROLLBACK" }
    package var readSchema: String { "SELECT count(*) FROM sqlite_master" }
    package var quickCheck: String { "PRAGMA quick_check(1)" }
    package var integrityCheck: String { "PRAGMA integrity_check" }
    package func checkPagesOnRead(_ on: Bool) -> String { "PRAGMA cell_size_check = \(on ? "ON" : "OFF")" }

    package func insertMissing(into table: String, columns: [String], select: String, conflict: [String]) -> String {
        // (Not `INSERT … SELECT … ON CONFLICT`: SQLite reads the ON of a SELECT without WHERE as a join's.)
        "INSERT OR IGNORE INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) \(select)"
    }

    package func greater(_ a: String, _ b: String) -> String { "max(\(a), \(b))" }
    /// 9e999 is +∞ to SQLite; a NaN is never stored (SQLite stores NULL).
    package func isNonFinite(_ term: String) -> String { "\(term) IN (9e999, -9e999)" }

    package func isStored(_ term: String, as kind: StoredKind) -> String { "typeof(\(term)) = '\(kind.rawValue)'" }
    package func isStoredOtherwise(_ term: String, than kind: StoredKind) -> String {
        "typeof(\(term)) NOT IN ('null', '\(kind.rawValue)')"
    }
    package func storedBytes(_ term: String) -> String { "CAST(\(term) AS BLOB)" }
    package func containsNUL(_ bytes: String) -> String { "instr(\(bytes), x'00') > 0" }
    package func joinedWithCommas(_ term: String) -> String { "group_concat(\(term), ',')" }
    package func fileJournal(_ kind: FileJournal) -> String {
        switch kind {
        case .none: "PRAGMA journal_mode = OFF"
        case .rollback: "PRAGMA journal_mode = DELETE"
        case .writeAheadLog: "PRAGMA journal_mode = WAL"
        }
    }

    package func isDistinct(_ a: String, _ b: String) -> String { "\(a) IS NOT \(b)" }
    package func isNotDistinct(_ a: String, _ b: String) -> String { "\(a) IS \(b)" }

    package func constant(_ truth: Bool) -> String { truth ? "1" : "0" }
    package func isNotTrue(_ condition: String) -> String { "(\(condition)) IS NOT 1" }
    package func castInteger(_ term: String) -> String { "CAST(\(term) AS INTEGER)" }
    package func castReal(_ term: String) -> String { "CAST(\(term) AS REAL)" }

    package func period(_ unit: PeriodUnit, ofDay value: String) -> String {
        switch unit {
        case .month: return "substr(\(value), 1, 7)"
        case .year: return "CAST(substr(\(value), 1, 4) AS INTEGER)"
        case .quarter:
            return "(substr(\(value), 1, 4) || '-Q' || ((CAST(substr(\(value), 6, 2) AS INTEGER) + 2) / 3))"
        case .week:
            // ISO 8601: a week belongs to the year of its Thursday, and is numbered from that year's first
            // Thursday. SQLite 3.40 (Debian 12) has no %V or %G, so the Thursday is found with 'weekday 4'
            // (the next Thursday, counting the day itself) from three days before.
            let thursday = "date(substr(\(value), 1, 10), '-3 days', 'weekday 4')"
            return "(strftime('%Y', \(thursday)) || '-W' || printf('%02d', (CAST(strftime('%j', \(thursday)) AS INTEGER) - 1) / 7 + 1))"
        }
    }

    /// SQLite orders none first when ascending, last when descending.
    package func orderTerm(_ term: String, ascending: Bool) -> String { term + (ascending ? " ASC" : " DESC") }
    /// A unary `+` keeps the column (and its collation) but not its index.
    package func withoutIndex(_ term: String) -> String { "+" + term }
    package var derivedTableFence: String { "LIMIT -1 OFFSET 0" }
    package var noLimit: StoredValue { .integer(-1) }
    /// Debian's SQLite has no STAT4: Store.rangeCoverage estimates ranges from the index's bounds.
    package var plansRangesItself: Bool { false }
    package func comparableSum(_ column: String) -> String {
        "(CASE WHEN typeof(\(column)) = 'blob' THEN \(wideComparable(column)) ELSE \(column) END)"
    }

    /// A text's length in bytes and in characters differ exactly when it has a byte ≥ 0x80.
    package func hasNonASCIIText(_ column: String) -> String {
        "typeof(\(column)) = 'text' AND length(CAST(\(column) AS BLOB)) <> length(\(column))"
    }

    package func exactSum(_ value: String, beyond: WideForm) -> String {
        // Aggregates adding in 128 bits (ExactSum.swift), one per form of a wider result.
        switch beyond {
        case .exact: return "\(ExactSum.exact)(\(value))"
        case .comparable: return "\(ExactSum.comparable)(\(value))"
        case .real: return "\(ExactSum.real)(\(value))"
        }
    }

    package func wideSum(_ value: String) -> String { "\(ExactSum.wideTotal)(\(value))" }

    package func wideExtreme(_ minimum: Bool, _ value: String) -> String {
        "\(minimum ? WideInteger.minimumFunction : WideInteger.maximumFunction)(\(value))"
    }

    package func wideComparison(_ a: String, _ op: String, _ b: String) -> String {
        let compare = "\(WideInteger.compareFunction)(\(a), \(b))"
        switch op {
        case "IS": return "\(compare) IS 0"
        case "IS NOT": return "\(compare) IS NOT 0"
        default: return "\(compare) \(op) 0"
        }
    }

    package func wideScaled(_ value: String, by power: Int) -> String { "\(WideInteger.scaleFunction)(\(value), \(power))" }

    package func wideReal(_ value: String) -> String { "\(WideInteger.realFunction)(\(value))" }

    package func wideOrderKey(_ value: String) -> String { "\(WideInteger.orderFunction)(\(value))" }

    package func wideValue(_ value: Int128) -> StoredValue { WideInteger.encode(value) }

    package func inList(_ lhs: String, _ values: [StoredValue], bind: (StoredValue) -> String) -> String {
        if values.count <= SQLiteDialect.placeholderListLimit {
            return "\(lhs) IN (\(values.map(bind).joined(separator: ", ")))"
        }
        // json_each gives INTEGER, REAL and TEXT back as they were; a BLOB (binary, or a wide number) has no
        // JSON form, so those few stay placeholders beside the array.
        var json = "["
        json.reserveCapacity(values.count * 8)
        var others: [StoredValue] = []
        var first = true
        for value in values {
            let item: String
            switch value {
            case .integer(let i): item = String(i)
            case .real(let d) where d.isFinite: item = "\(d)"
            case .text(let s): item = SQLiteDialect.jsonString(s)
            default: others.append(value); continue
            }
            if !first { json += "," }
            json += item
            first = false
        }
        json += "]"
        var sql = "\(lhs) IN (SELECT value FROM json_each(\(bind(.text(json)))))"
        if !others.isEmpty { sql = "(\(sql) OR \(lhs) IN (\(others.map(bind).joined(separator: ", "))))" }
        return sql
    }

    /// A JSON string literal (RFC 8259: quote, backslash and control characters escaped).
    static func jsonString(_ s: String) -> String {
        var out = "\""
        out.unicodeScalars.reserveCapacity(s.unicodeScalars.count + 2)
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
