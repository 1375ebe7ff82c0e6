// PostgreSQL's dialect (issue 30). The store keeps SQLite's representations — exact Int64 units for integers,
// decimals and 0/1 Booleans, ISO text for dates and date-times, double precision, bytes — in columns of PostgreSQL's
// own types (bigint, double precision, text COLLATE "C", bytea), so every statement the compiler writes means the
// same on both stores: the order of text is by code point ("C"), sums of bigint are numeric (exact past 64 bits by
// themselves), and what NSPredicate's text options need that PostgreSQL lacks — Unicode case folding, the nocase and
// natural orders, LIKE and MATCHES as the evaluator decides them — are functions `init` makes in the books' schema
// (PostgreSQLSchema.swift), not collations or extensions.

/// PostgreSQL 15 and later, with the functions of PostgreSQLFunctions and PostgreSQLSchema in the search path.
package struct PostgreSQLDialect: SQLDialect {
    /// Lists up to this long are written as placeholders; longer ones are bound as one array
    /// (PostgreSQL takes at most 65,535 parameters).
    static let placeholderListLimit = 64

    package init() {}

    package func placeholder(_ position: Int) -> String { "$\(position)" }

    package func quote(_ identifier: String) -> String {
        "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    /// Quoted names compare exactly.
    package func foldName(_ name: String) -> String { name }

    package func columnType(_ type: AttributeType) -> String {
        switch type {
        case .string, .date, .dateTime: "text COLLATE \"C\""
        case .integer, .decimal, .boolean: "bigint"
        case .double: "double precision"
        case .binary: "bytea"
        }
    }

    /// 1, 0 or NULL, an integer as SQLite's comparison gives it.
    package func storedBoolean(_ column: String) -> String { "((\(column) <> 0)::integer)" }

    package func upsert(into table: String, columns: [String], values: [String], conflict: [String], update: [String]) -> String {
        let insert = "INSERT INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))"
        let target = "ON CONFLICT (\(conflict.map(quote).joined(separator: ", ")))"
        if update.isEmpty { return "\(insert) \(target) DO NOTHING" }
        return "\(insert) \(target) DO UPDATE SET " + update.map { "\(quote($0)) = EXCLUDED.\(quote($0))" }.joined(separator: ", ")
    }

    package func returning(_ columns: [String]) -> String { " RETURNING " + columns.map(quote).joined(separator: ", ") }

    package func temporary(_ name: String) -> String { "pg_temp.\(quote(name))" }
    package func temporaryTable(_ name: String, columns: String, primaryKey: [String]?) -> String {
        let key = primaryKey.map { ", PRIMARY KEY (\($0.map(quote).joined(separator: ", ")))" } ?? ""
        return "CREATE TEMP TABLE IF NOT EXISTS \(quote(name)) (\(columns)\(key))"
    }
    package func insertIgnoringDuplicates(into table: String, columns: [String], select: String) -> String {
        "INSERT INTO \(table) (\(columns.map(quote).joined(separator: ", "))) \(select) ON CONFLICT DO NOTHING"
    }

    // MARK: Text

    package var nocaseCollation: String { PostgreSQLSchema.nocaseKey }
    package var naturalCollation: String { PostgreSQLSchema.naturalKey }

    /// Sort keys whose bytes order as the collations compare (bytea compares bytewise), and code-point order.
    package func collate(_ term: String, _ comparison: SortKey.Comparison) -> String {
        switch comparison {
        case .binary: "(\(term) COLLATE \"C\")"
        case .nocase: "\(PostgreSQLSchema.nocaseKey)(\(term))"
        case .natural: "\(PostgreSQLSchema.naturalKey)(\(term))"
        }
    }

    package func fold(_ text: String, _ options: PredicateStringOptions) -> String {
        "\(PostgreSQLSchema.fold)(\(text), \(options.rawValue))"
    }

    /// A condition: the functions answer 1 or 0 (NULL for none), as SQLite's do. The flags are cast to the
    /// functions' integer: a bound flag number arrives as a bigint, for which no function exists.
    package func stringMatch(_ op: PredicateOperator, _ text: String, _ pattern: String, options: String) -> String {
        guard let function = PostgreSQLSchema.stringOperators.first(where: { $0.1 == op })?.0 else {
            preconditionFailure("\(op.rawValue) is not a string operator")
        }
        return "(\(function)(\(text), \(pattern), (\(options))::integer) = 1)"
    }

    /// A text column of a UTF8 database holds only UTF-8.
    package func invalidUTF8(_ value: String) -> String { "0" }

    package func localDay(_ dateTime: String) -> String { "\(PostgreSQLSchema.localDay)(\(dateTime))" }

    // MARK: Numbers: a bigint sum is numeric, exact at any size; the wide forms are numeric's own.

    /// numeric's own sum, exact at any size; the nearest double for `.real` (a numeric beyond an Int64 reads back
    /// in the engine's wide form, not as a REAL).
    package func exactSum(_ value: String, beyond: WideForm) -> String {
        beyond == .real ? "(SUM(\(value)))::double precision" : "SUM(\(value))"
    }
    package func wideSum(_ value: String) -> String { "SUM(\(value))" }
    package func wideExtreme(_ minimum: Bool, _ value: String) -> String { "\(minimum ? "MIN" : "MAX")(\(value))" }
    /// Both sides as numeric: a wide value is bound as its digits (`wideValue`), which PostgreSQL would otherwise
    /// read as the other side's type — a bigint column, or another bound value — and refuse as out of range.
    package func wideComparison(_ a: String, _ op: String, _ b: String) -> String {
        let a = "(\(a))::numeric", b = "(\(b))::numeric"
        return switch op {
        case "IS": "\(a) IS NOT DISTINCT FROM \(b)"
        case "IS NOT": "\(a) IS DISTINCT FROM \(b)"
        default: "\(a) \(op) \(b)"
        }
    }
    /// `value × 10^power` in numeric, whose scale stays 0 (the factor is written as an integer).
    package func wideScaled(_ value: String, by power: Int) -> String {
        "(\(value)::numeric * \("1" + String(repeating: "0", count: power))::numeric)"
    }
    package func wideReal(_ value: String) -> String { "(\(value))::double precision" }
    package func wideOrderKey(_ value: String) -> String { value }
    /// numeric: a wide value bound as its digits is otherwise read as the type of what it is compared with.
    package func wideComparable(_ value: String) -> String { "(\(value))::numeric" }
    /// Beyond an Int64, the digits, which PostgreSQL reads as the numeric the context wants.
    package func wideValue(_ value: Int128) -> StoredValue {
        Int64(exactly: value).map(StoredValue.integer) ?? .text(String(value))
    }

    package func finite(_ value: String, entity: String, attribute: String, id: String) -> String {
        func literal(_ s: String) -> String { "'" + s.replacingOccurrences(of: "'", with: "''") + "'" }
        return "\(PostgreSQLSchema.finite)(\(value), \(literal(entity)), \(literal(attribute)), \(id))"
    }

    package func convert(_ value: String, from: AttributeType, to: AttributeType) -> String {
        "\(PostgreSQLSchema.convert)(\(value), '\(from.spec)', '\(to.spec)')"
    }

    /// Each item written as StoredValue.listText writes it, joined in the rows' order.
    package func valueList(_ value: String, _ type: AttributeType) -> String {
        "string_agg(\(PostgreSQLSchema.listItem(value, type)), chr(31))"
    }

    // MARK: Lists

    /// Many values as one bound array, `= ANY($n)`: PostgreSQL infers the array's type from the left side.
    package func inList(_ lhs: String, _ values: [StoredValue], bind: (StoredValue) -> String) -> String {
        if values.count <= Self.placeholderListLimit {
            return "\(lhs) IN (\(values.map(bind).joined(separator: ", ")))"
        }
        var items: [String] = []
        var others: [StoredValue] = []
        items.reserveCapacity(values.count)
        for value in values {
            switch value {
            case .integer(let i): items.append(String(i))
            case .real(let d) where d.isFinite: items.append("\(d)")
            case .text(let s): items.append(Self.arrayItem(s))
            default: others.append(value)
            }
        }
        var sql = "\(lhs) = ANY(\(bind(.text("{" + items.joined(separator: ",") + "}"))))"
        if !others.isEmpty { sql = "(\(sql) OR \(lhs) IN (\(others.map(bind).joined(separator: ", "))))" }
        return sql
    }

    /// A text as an item of an array literal: quoted, its quotes and backslashes escaped.
    static func arrayItem(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    // MARK: Transactions

    package func savepoint(_ name: String) -> String { "SAVEPOINT \(quote(name))" }
    package func rollbackToSavepoint(_ name: String) -> String { "ROLLBACK TO SAVEPOINT \(quote(name))" }
    package func releaseSavepoint(_ name: String) -> String { "RELEASE SAVEPOINT \(quote(name))" }
    /// The write lock is the books' advisory lock, which the connection takes after BEGIN.
    package var beginWriteTransaction: String { "BEGIN" }
    package func analyze(_ table: String) -> String { "ANALYZE \(quote(table))" }

    // MARK: Bulk loads

    package func insertRows(into table: String, columns: [String], rows: Int) -> String {
        var n = 0
        let values = (0..<rows).map { _ in
            "(" + columns.map { _ in n += 1; return "$\(n)" }.joined(separator: ", ") + ")"
        }
        return "INSERT INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) VALUES " + values.joined(separator: ", ")
    }

    /// For the batch's transaction only (SET LOCAL: a pooler in transaction mode lends the session to others after).
    package func sortHelpers(_ count: Int) -> String { "SET LOCAL max_parallel_maintenance_workers = \(count)" }
    /// Keys are always checked, at the end of each statement or, deferred, at commit.
    package var foreignKeysEnabled: String { "SELECT 1" }
    package func foreignKeys(on: Bool) -> String { "SET CONSTRAINTS ALL \(on ? "IMMEDIATE" : "DEFERRED")" }
    /// A key PostgreSQL checks cannot be broken: no rows.
    package var foreignKeyCheck: String { "SELECT NULL::text, NULL::bigint WHERE FALSE" }
    /// DROP INDEX locks the table (ACCESS EXCLUSIVE) until the commit: every reader would wait for the load.
    package var dropsIndexesDuringLoads: Bool { false }
    package var generatedKey: String { "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY" }
    /// A column's type decides what it holds.
    package var typedTable: String { "" }

    // MARK: Catalog (the books' schema is the first of the search path)

    /// The indexes made by CREATE INDEX: not those a constraint (a primary key, UNIQUE) makes and owns, which
    /// DROP INDEX refuses — as SQLite's list leaves out its automatic indexes.
    package var indexesOfTable: String {
        """
        SELECT indexname, indexdef, (indexdef LIKE 'CREATE UNIQUE%')::integer FROM pg_indexes
        WHERE schemaname = current_schema() AND tablename = $1
        AND NOT EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = format('%I.%I', schemaname, indexname)::regclass)
        ORDER BY indexname
        """
    }
    package var keyColumnsOfIndex: String {
        """
        SELECT a.attname, (coalesce(co.collname, 'C') = 'C')::integer
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
        CROSS JOIN LATERAL unnest(i.indkey, i.indcollation) WITH ORDINALITY AS k(attnum, coll, n)
        LEFT JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.attnum AND k.attnum > 0
        LEFT JOIN pg_collation co ON co.oid = k.coll
        WHERE c.relname = $1 AND c.relnamespace = current_schema()::regnamespace AND k.n <= i.indnkeyatts ORDER BY k.n
        """
    }
    package var indexExists: String { "SELECT 1 FROM pg_indexes WHERE schemaname = current_schema() AND indexname = $1" }
    package var columnsOfTable: String {
        "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
    }
    package var tableExists: String {
        "SELECT (count(*) > 0)::integer FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1"
    }
    /// Any change of a table of the schema rewrites its pg_class row, whose xmin then changes.
    package var schemaVersion: String {
        "SELECT coalesce(sum(xmin::text::bigint), 0)::bigint + count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace"
    }

    // MARK: Connections and integrity

    /// The connection's own settings (PostgreSQLConnection) are all it needs.
    package func connectionSettings(readOnly: Bool) -> [String] { [] }
    package var beginRead: String { "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" }
    package var commit: String { "COMMIT" }
    package var rollback: String { "ROLLBACK" }
    package var readSchema: String { "SELECT count(*) FROM pg_class WHERE relnamespace = current_schema()::regnamespace" }
    /// The server checks its own pages (data checksums, when the cluster has them).
    package var quickCheck: String { "SELECT 'ok'" }
    package var integrityCheck: String { "SELECT 'ok'" }
    package func checkPagesOnRead(_ on: Bool) -> String { "SELECT 1" }

    package func insertMissing(into table: String, columns: [String], select: String, conflict: [String]) -> String {
        "INSERT INTO \(quote(table)) (\(columns.map(quote).joined(separator: ", "))) \(select) ON CONFLICT (\(conflict.map(quote).joined(separator: ", "))) DO NOTHING"
    }

    package func greater(_ a: String, _ b: String) -> String { "GREATEST(\(a), \(b))" }
    package func isNonFinite(_ term: String) -> String {
        // (PostgreSQL's NaN equals itself, unlike IEEE's.)
        "\(term) IN ('Infinity'::double precision, '-Infinity'::double precision, 'NaN'::double precision)"
    }

    // MARK: What is stored: a column's type decides.

    package func isStored(_ term: String, as kind: StoredKind) -> String {
        "(\(term) IS NOT NULL AND pg_typeof(\(term)) IN (\(Self.types(kind))))"
    }
    package func isStoredOtherwise(_ term: String, than kind: StoredKind) -> String {
        "(\(term) IS NOT NULL AND pg_typeof(\(term)) NOT IN (\(Self.types(kind))))"
    }
    private static func types(_ kind: StoredKind) -> String {
        switch kind {
        case .integer: "'bigint'::regtype, 'integer'::regtype, 'smallint'::regtype"
        case .real: "'double precision'::regtype, 'real'::regtype"
        case .text: "'text'::regtype"
        case .blob: "'bytea'::regtype"
        }
    }
    package func storedBytes(_ term: String) -> String { "convert_to((\(term))::text, 'UTF8')" }
    package func containsNUL(_ bytes: String) -> String { "position('\\x00'::bytea in \(bytes)) > 0" }
    package func joinedWithCommas(_ term: String) -> String { "string_agg((\(term))::text, ',')" }
    /// A server keeps its own write-ahead log.
    package func fileJournal(_ kind: FileJournal) -> String { "SELECT 1" }

    // MARK: Conditions and queries

    package func constant(_ truth: Bool) -> String { truth ? "TRUE" : "FALSE" }
    package func isNotTrue(_ condition: String) -> String { "(\(condition)) IS NOT TRUE" }
    package func isDistinct(_ a: String, _ b: String) -> String { "\(a) IS DISTINCT FROM \(b)" }
    package func isNotDistinct(_ a: String, _ b: String) -> String { "\(a) IS NOT DISTINCT FROM \(b)" }
    package func castInteger(_ term: String) -> String { "CAST(\(term) AS bigint)" }
    package func castReal(_ term: String) -> String { "CAST(\(term) AS double precision)" }

    package func period(_ unit: PeriodUnit, ofDay value: String) -> String {
        switch unit {
        case .month: return "substr(\(value), 1, 7)"
        case .year: return "CAST(substr(\(value), 1, 4) AS bigint)"
        case .quarter: return "(substr(\(value), 1, 4) || '-Q' || ((CAST(substr(\(value), 6, 2) AS bigint) + 2) / 3))"
        // ISO 8601's year of the week and its number, two digits.
        case .week: return "to_char(CAST(substr(\(value), 1, 10) AS date), 'IYYY-\"W\"IW')"
        }
    }

    /// SQLite's order of none: first when ascending, last when descending (PostgreSQL's default is the reverse).
    package func orderTerm(_ term: String, ascending: Bool) -> String {
        term + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
    }
    package func withoutIndex(_ term: String) -> String { term }
    package var derivedTableFence: String { "OFFSET 0" }
    package var noLimit: StoredValue { .null }
    package var plansRangesItself: Bool { true }
    package func comparableSum(_ column: String) -> String { column }

    package func hasNonASCIIText(_ column: String) -> String {
        "(\(column) IS NOT NULL AND octet_length(\(column)) <> char_length(\(column)))"
    }
}
