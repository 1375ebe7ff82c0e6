
// What differs between SQL databases, in one place: the compiler asks the dialect for every spelling that is not
// standard SQL or whose meaning differs between engines — placeholders, quoted names, column types, upsert,
// RETURNING, text folding and collations, pattern matching, long IN lists, exact sums and numbers beyond an Int64,
// savepoints, locking, statistics — and for the functions the SQL relies on (SQLite's are registered by the store,
// SQL/SQLite/StoreFunctions.swift and ExactSum.swift; PostgreSQL's are made in the books' schema,
// SQL/PostgreSQL/PostgreSQLFunctions.swift and PostgreSQLSchema.swift). `SQLDialectFeature` says per point what
// SQLite writes and what PostgreSQL writes, and DialectConformanceTests runs every feature against both
// implementations (PostgreSQL's row in the postgresql tier), so another store is a new conformance plus a new row.
package protocol SQLDialect: Sendable {
    // MARK: Placeholders and names (SQLDialectFeature.placeholders, .identifierQuoting, .identifierCase)

    /// The placeholder of the `position`th bound argument (1-based); a position may be named more than once.
    func placeholder(_ position: Int) -> String
    /// `identifier` quoted, whatever characters it holds (quotes, spaces).
    func quote(_ identifier: String) -> String
    /// The form under which the engine compares names of tables, indexes and columns: two names with one folded
    /// form are one name to it.
    func foldName(_ name: String) -> String

    // MARK: Types (SQLDialectFeature.exactDecimals, .dates, .dateTimes, .booleans, .blobs)

    /// The column type that stores an attribute's values (as Value+Stored binds and reads them).
    func columnType(_ type: AttributeType) -> String
    /// A stored Boolean column as the decoder reads it (StoredValue.decoded: nonzero is yes), 1, 0 or NULL, so
    /// that predicates, sort keys and group keys give the value `fetch` and `show` print: a 2 that another tool
    /// stored is yes to each (`check` names it).
    func storedBoolean(_ column: String) -> String

    // MARK: Writes (SQLDialectFeature.upsert, .returning)

    /// `INSERT INTO table (columns) VALUES (values)` that, when a row with the same `conflict` columns exists,
    /// sets its `update` columns to the new values instead — or, with no `update` columns, keeps the row as it is.
    /// Names are unquoted; values are SQL (placeholders).
    func upsert(into table: String, columns: [String], values: [String], conflict: [String], update: [String]) -> String
    /// The clause after an INSERT, UPDATE or DELETE that gives back `columns` of each row written (leading space).
    func returning(_ columns: [String]) -> String

    // MARK: Temporary tables (SQLDialectFeature.temporaryTables)

    /// `name` (unquoted) as a table of the connection's own temporary schema.
    func temporary(_ name: String) -> String
    /// Makes the temporary table `name` (unquoted) when the connection has none: `columns` is SQL, `primaryKey`
    /// (unquoted names) a key over several columns, or nil.
    func temporaryTable(_ name: String, columns: String, primaryKey: [String]?) -> String
    /// `INSERT INTO table (columns) select` that skips each row whose key the table already holds. `table` is
    /// SQL (quoted), `columns` unquoted names.
    func insertIgnoringDuplicates(into table: String, columns: [String], select: String) -> String

    // MARK: Text (SQLDialectFeature.codePointOrder, .nocaseCollation, .naturalCollation, .textFolding, …)

    /// The collation comparing text case-insensitively by Unicode case folding (TextCollation.nocaseCompare).
    var nocaseCollation: String { get }
    /// The collation comparing text as Finder does (TextCollation.naturalCompare).
    var naturalCollation: String { get }
    /// `term` ordered by `comparison`: by code point (stored bytes), nocase or natural.
    func collate(_ term: String, _ comparison: SortKey.Comparison) -> String
    /// `text` folded as `[c]`/`[d]` fold it (TextFolding.fold), for comparisons on both sides.
    func fold(_ text: String, _ options: PredicateStringOptions) -> String
    /// 1 when `text` matches `pattern` by `op` (BEGINSWITH, ENDSWITH, CONTAINS, LIKE or MATCHES, with `[c]`/`[d]`
    /// as StringOperators.apply decides), else 0. `options` is SQL (a bound or literal flag number).
    func stringMatch(_ op: PredicateOperator, _ text: String, _ pattern: String, options: String) -> String
    /// 1 when `value` is text whose bytes are not UTF-8, else 0 (`check`).
    func invalidUTF8(_ value: String) -> String

    // MARK: Dates (SQLDialectFeature.localDate)

    /// The local date (`YYYY-MM-DD`) in the process's zone of a stored date-time; NULL for anything else.
    func localDay(_ dateTime: String) -> String

    // MARK: Numbers (SQLDialectFeature.exactSum, .wideNumbers, .finiteNumbers, .conversion)

    /// The exact SUM of integer `value`s (stored Int64 units) as one SQL value; NULL over no rows. A sum that
    /// fits an Int64 is an integer; `beyond` says what a wider one is.
    func exactSum(_ value: String, beyond: WideForm) -> String
    /// The exact SUM of `value`s that may themselves be wide (a group's sum of per-object sums).
    func wideSum(_ value: String) -> String
    /// MIN (or MAX) of `value`s that may be wide.
    func wideExtreme(_ minimum: Bool, _ value: String) -> String
    /// SQL comparing two numbers of which one may be wide, as `cmp(a, b) op 0` would.
    func wideComparison(_ a: String, _ op: String, _ b: String) -> String
    /// `value × 10^power` exactly.
    func wideScaled(_ value: String, by power: Int) -> String
    /// A possibly wide number as a REAL.
    func wideReal(_ value: String) -> String
    /// A sort key ordering possibly wide numbers by value.
    func wideOrderKey(_ value: String) -> String
    /// A wide number in its comparable form (WideForm.comparable).
    func wideComparable(_ value: String) -> String
    /// The value that stands for a number beyond an Int64 when bound (see WideInteger.swift).
    func wideValue(_ value: Int128) -> StoredValue
    /// `value`, or an error naming the object (`entity`, `attribute`, the id SQL `id`) when it is a stored
    /// non-finite double. `entity` and `attribute` are names, written as SQL literals here.
    func finite(_ value: String, entity: String, attribute: String, id: String) -> String
    /// `value`, stored as `from`, converted exactly to `to` (Value.converted); NULL when it cannot be.
    func convert(_ value: String, from: AttributeType, to: AttributeType) -> String
    /// The stored values of `value` (stored as `type`) over a group, in order, NULLs left out, in one text
    /// (`StoredValue.listText`); NULL when there are none.
    func valueList(_ value: String, _ type: AttributeType) -> String

    // MARK: Lists (SQLDialectFeature.longInList)

    /// `lhs IN (values)` with the values bound through `bind`: a few as placeholders, many as one bound array,
    /// so a list of 100,000 values is one parameter, not 100,000.
    func inList(_ lhs: String, _ values: [StoredValue], bind: (StoredValue) -> String) -> String

    // MARK: Transactions (SQLDialectFeature.savepoints, .locking, .statistics)

    /// Starts a savepoint named `name` (unquoted).
    func savepoint(_ name: String) -> String
    /// Undoes everything since the savepoint `name`, which stays open.
    func rollbackToSavepoint(_ name: String) -> String
    /// Ends the savepoint `name`, keeping its changes.
    func releaseSavepoint(_ name: String) -> String
    /// Starts a transaction that holds the store's write lock from its first statement: a second writer waits
    /// (or is refused) at once instead of failing at its first write.
    var beginWriteTransaction: String { get }
    /// Gathers the statistics the planner reads.
    var analyze: String { get }

    // MARK: Bulk loads (SQLDialectFeature.bulkInsert, .parallelSort, .foreignKeyEnforcement)

    /// One statement inserting `rows` rows of `columns` (unquoted names), all placeholders in row order.
    func insertRows(into table: String, columns: [String], rows: Int) -> String
    /// Lets the sorts that build indexes use `count` helper threads (0: none).
    func sortHelpers(_ count: Int) -> String
    /// A statement answering one row: whether references are checked on this connection (1 or 0).
    var foreignKeysEnabled: String { get }
    /// Switches the checks of references on or off for the connection (outside a transaction).
    func foreignKeys(on: Bool) -> String
    /// A statement whose rows are the broken references: the table (column 0), the row ID (column 1).
    var foreignKeyCheck: String { get }
    /// Whether a batch may drop an index at the start of a load into an empty table and make it again at the end
    /// (one sort instead of an insert per row): only where a DROP INDEX in a write transaction leaves readers of the
    /// table reading their snapshot; where it makes them wait for the commit, a batch keeps its indexes up.
    var dropsIndexesDuringLoads: Bool { get }

    // MARK: Tables of the store's own (SQLDialectFeature.ownTables)

    /// The column type of a table's key that the engine numbers by itself (1, 2, …) when an INSERT gives none.
    var generatedKey: String { get }
    /// What follows the column list of a CREATE TABLE whose columns take only values of their types (leading space).
    var typedTable: String { get }

    // MARK: Catalog (SQLDialectFeature.catalog)

    /// Rows (name, definition, unique 1/0) of the indexes of the table bound as parameter 1, by name.
    var indexesOfTable: String { get }
    /// Rows (column name, or NULL for an expression; 1 when the key orders by bytes) of the key columns of the
    /// index bound as parameter 1, in key order.
    var keyColumnsOfIndex: String { get }
    /// A row when the index named by parameter 1 exists.
    var indexExists: String { get }
    /// Rows (name) of the columns of the table bound as parameter 1.
    var columnsOfTable: String { get }
    /// One row, 1 when a table named as parameter 1 exists (names compared as `foldName` compares them), else 0.
    var tableExists: String { get }
    /// One row: a number that changes whenever the store's schema changes.
    var schemaVersion: String { get }

    // MARK: Connections and integrity (SQLDialectFeature.transactions, .integrityCheck)

    /// What a new connection runs first, after the functions (`prepare`): durability and checks of what it reads.
    func connectionSettings(readOnly: Bool) -> [String]
    /// Begins a transaction that only reads, its snapshot taken at its first read.
    var beginRead: String { get }
    var commit: String { get }
    var rollback: String { get }
    /// A statement that reads the store's schema: it takes a read transaction's snapshot, and makes SQLite roll
    /// back what a killed writer left.
    var readSchema: String { get }
    /// Rows of text: exactly one, `ok`, when the store is sound (a quick check: at most one problem named).
    var quickCheck: String { get }
    /// Rows of text: `ok`, or each problem of the whole store.
    var integrityCheck: String { get }
    /// Checks each page as it is read (on), or leaves a damaged page to the integrity check to describe (off).
    func checkPagesOnRead(_ on: Bool) -> String

    // MARK: Inserts that keep what is there (SQLDialectFeature.upsert)

    /// Inserts the rows `select` gives into `columns` of `table`, but none whose `conflict` key is there already.
    func insertMissing(into table: String, columns: [String], select: String, conflict: [String]) -> String
    /// The greater of two numbers (the scalar, not the aggregate).
    func greater(_ a: String, _ b: String) -> String
    /// `term` is a stored number that is not finite: an infinity, or on PostgreSQL a NaN (SQLite stores a NaN as
    /// NULL) (SQLDialectFeature.finiteNumbers).
    func isNonFinite(_ term: String) -> String

    // MARK: What is stored (SQLDialectFeature.storageClasses, .stringAggregate, .fileJournal)

    /// `term` is stored as `kind`.
    func isStored(_ term: String, as kind: StoredKind) -> String
    /// `term` is stored, but as another kind than `kind` (written by another tool, in a column that allows it).
    func isStoredOtherwise(_ term: String, than kind: StoredKind) -> String
    /// The bytes of `term` as stored (text as its encoded bytes, a NUL included).
    func storedBytes(_ term: String) -> String
    /// The bytes `bytes` (a `storedBytes` term) hold a NUL.
    func containsNUL(_ bytes: String) -> String
    /// The aggregate joining the texts of `term` with commas.
    func joinedWithCommas(_ term: String) -> String
    /// A file's journal: none (a copy being assembled, thrown away whole when it fails), the rollback journal a
    /// copy keeps, or the write-ahead log of a store (which lets readers read while a writer writes; a no-op, no
    /// write, when the store is in that mode already).
    func fileJournal(_ kind: FileJournal) -> String

    // MARK: Conditions and queries (SQLDialectFeature.conditions, .ordering)

    /// A condition that always holds (`true`) or never does.
    func constant(_ truth: Bool) -> String
    /// `condition` does not hold: false or NULL.
    func isNotTrue(_ condition: String) -> String
    /// `a` equals `b`, none being equal to none (two SQL terms).
    func isNotDistinct(_ a: String, _ b: String) -> String
    /// `term` as a 64-bit integer.
    func castInteger(_ term: String) -> String
    /// `term` as a double.
    func castReal(_ term: String) -> String
    /// The period `unit` of a date (`YYYY-MM-DD` text, the local date of a date-time): `YYYY-MM`, the year as an
    /// integer, `YYYY-Qn`, or the ISO week `YYYY-Www`.
    func period(_ unit: PeriodUnit, ofDay day: String) -> String
    /// A sort term, ascending or descending, none first when ascending (SQLite's order, which the evaluator keeps).
    func orderTerm(_ term: String, ascending: Bool) -> String
    /// A column as a sort term that does not make the planner read the table through the column's index.
    func withoutIndex(_ term: String) -> String
    /// What ends a derived table so that the planner computes it as written (not flattened into its query).
    var derivedTableFence: String { get }
    /// The bound LIMIT that takes every row (with an OFFSET).
    var noLimit: StoredValue { get }
    /// Whether the planner estimates how much of a table a range covers by itself (PostgreSQL's statistics);
    /// else the compiler leaves an index alone for a range that covers most of its table (Store.rangeCoverage).
    var plansRangesItself: Bool { get }
    /// The sum in a shared aggregate's column, in the comparable form (WideForm.comparable).
    func comparableSum(_ column: String) -> String

    // MARK: Comparisons (SQLDialectFeature.nullSafeComparison, .nonASCIIText)

    /// `a` differs from `b`, none being equal to none (two SQL terms).
    func isDistinct(_ a: String, _ b: String) -> String
    /// The term `column` is text with a character beyond ASCII.
    func hasNonASCIIText(_ column: String) -> String
}

extension Store {
    /// The dialect of the store's SQL.
    package var dialect: any SQLDialect { books == nil ? SQLiteDialect() : PostgreSQLDialect() }
    /// The dialect of a store file, the default kind (`--explain` of a report before any store is open).
    package static var fileDialect: any SQLDialect { SQLiteDialect() }
}

/// What a number beyond an Int64 is in SQL.
package enum WideForm: Sendable {
    /// Exact: the 16-byte form of WideInteger.swift (for columns, sort keys, `bk_wide_cmp`).
    case exact
    /// A REAL strictly outside the Int64 range: SQLite compares REAL with INTEGER exactly, so comparisons
    /// with any number that fits an Int64 stay right with SQLite's own operators (and its indexes).
    case comparable
    /// The nearest REAL (for averages).
    case real
}

extension SQLDialect {
    package func collate(_ term: String, _ comparison: SortKey.Comparison) -> String {
        switch comparison {
        case .binary: term
        case .nocase: "\(term) COLLATE \(nocaseCollation)"
        case .natural: "\(term) COLLATE \(naturalCollation)"
        }
    }
}

/// Every point where SQL engines differ that the engine's SQL meets, each with what SQLite writes and what
/// PostgreSQL writes (PostgreSQLDialect). DialectConformanceTests runs every case against every dialect, and fails
/// for a case it has no check for.
package enum SQLDialectFeature: String, CaseIterable, Sendable {
    /// Bound arguments by number. SQLite: `?1`, `?2` (a number may repeat). PostgreSQL: `$1`, `$2`.
    case placeholders
    /// Quoted names, whatever they hold. SQLite: `"a ""b"" c"`. PostgreSQL: the same.
    case identifierQuoting
    /// Which names are one name. SQLite: quoted or not, names compare without regard to ASCII case (`NAME` is
    /// `name`; `É` is not `é`). PostgreSQL: quoted names compare exactly (a different `foldName`).
    case identifierCase
    /// Exact decimals. SQLite: `INTEGER` units at the attribute's scale (557.50 at scale 2 is 55750).
    /// PostgreSQL: `bigint` units the same way.
    case exactDecimals
    /// Dates. SQLite: `TEXT` `YYYY-MM-DD`, ordered as text. PostgreSQL: the same text, `text COLLATE "C"`.
    case dates
    /// Date-times. SQLite: `TEXT` ISO 8601 in UTC, ordered as text. PostgreSQL: the same text, `text COLLATE "C"`.
    case dateTimes
    /// Booleans. SQLite: `INTEGER` 0/1, true in a WHERE. PostgreSQL: `bigint` 0/1, not a condition by itself: the
    /// compiler reads it as `storedBoolean` gives it, `((v <> 0)::integer)`.
    case booleans
    /// Binary values. SQLite: `BLOB`, ordered by bytes. PostgreSQL: `bytea`.
    case blobs
    /// Insert-or-update. SQLite: `INSERT … ON CONFLICT ("k") DO UPDATE SET "v" = excluded."v"` (`DO NOTHING`).
    /// PostgreSQL: the same (`EXCLUDED`); a column of the row there is named with its table (`"t"."v"`) in the
    /// update's expressions, where PostgreSQL finds a bare `"v"` ambiguous.
    case upsert
    /// The written rows' columns back from a write. SQLite (3.35+): `RETURNING "id"`. PostgreSQL: the same.
    case returning
    /// Text in code-point order. SQLite: BINARY (UTF-8 bytes, which order as code points). PostgreSQL:
    /// `COLLATE "C"` on a UTF-8 database (the columns' own collation too).
    case codePointOrder
    /// Case-insensitive order by Unicode case folding. SQLite: `COLLATE bk_nocase` (registered; its own NOCASE
    /// folds only ASCII). PostgreSQL: `bk_nocase_key(x)`, a bytea sort key of ours (bytea orders bytewise).
    case nocaseCollation
    /// Finder-like order (`Item 2` before `Item 10`). SQLite: `COLLATE bk_natural` (registered). PostgreSQL:
    /// `bk_natural_key(x)`, a bytea sort key of ours.
    case naturalCollation
    /// `[c]`/`[d]` folding of both sides. SQLite: `bk_fold(x, flags)`. PostgreSQL: `bk_fold(x, flags)`, a function
    /// of ours with the same Unicode tables (PostgreSQLUnicodeTables).
    case textFolding
    /// BEGINSWITH/ENDSWITH/CONTAINS with `[c]`/`[d]`. SQLite: `bk_beginswith(x, p, flags)`, … PostgreSQL:
    /// `bk_beginswith(x, p, (flags)::integer) = 1`, …, functions of ours: `starts_with`/`strpos` over folded sides.
    case substringMatching
    /// NSPredicate's LIKE (`*`, `?`, whole string). SQLite: `bk_like(x, p, flags)` (its own LIKE is
    /// ASCII-case-insensitive with `%`/`_`). PostgreSQL: `bk_like(x, p, flags) = 1`, ours: `LIKE` with the pattern
    /// translated and escaped, over folded sides.
    case like
    /// MATCHES (ICU regular expression, whole string). SQLite: `bk_matches(x, p, flags)`. PostgreSQL:
    /// `bk_matches(x, p, flags) = 1`, ours: a subset of ICU's syntax translated to PostgreSQL's own regular
    /// expressions, any other pattern refused (PostgreSQLRegex.swift). Known difference: under `[c]` ICU matches
    /// a literal `ß` with `ss` (`"ßSS" MATCHES[c] "ß+"`), PostgreSQL's translation does not.
    case matches
    /// Text whose bytes are not UTF-8 (`check`). SQLite: `bk_invalid_utf8(x)`. PostgreSQL: none can be stored (a
    /// UTF8 database refuses them), so `0`.
    case invalidText
    /// A date-time's local date in the process's zone (periods such as `month(at)`). SQLite: `bk_localday(x)`.
    /// PostgreSQL: `bk_localday(x)`, ours, in the session's TimeZone (the store sets the process's zone).
    case localDate
    /// Long `IN` lists as one bound parameter. SQLite: `x IN (SELECT value FROM json_each(?1))`. PostgreSQL:
    /// `x = ANY($1)` with an array literal bound as text (more than 64 values; fewer are placeholders).
    case longInList
    /// The exact SUM of Int64 units beyond an Int64. SQLite: `bk_sum(x)` (128-bit; a wider result is a 16-byte
    /// BLOB), `bk_sum_comparable`, `bk_sum_real`. PostgreSQL: `SUM(x)` (numeric, which reads back beyond an Int64
    /// in the engine's wide form), `SUM(x)::double precision` for the real form.
    case exactSum
    /// Arithmetic and order on numbers beyond an Int64. SQLite: `bk_wide_cmp`, `bk_wide_order`, `bk_wide_scale`,
    /// `bk_wide_real`, `bk_wide_min`/`max`, `bk_wide_total`. PostgreSQL: numeric's own operators, a wide value
    /// bound as its digits and compared as `::numeric`.
    case wideNumbers
    /// A stored infinity fails a sum, naming the object. SQLite: `bk_finite(x, 'E', 'a', id)`. PostgreSQL:
    /// `bk_finite(x, 'E', 'a', id)`, ours, raising the same message.
    case finiteNumbers
    /// A column's values converted exactly by a migration. SQLite: `bk_convert(x, 'decimal:2', 'integer')`.
    /// PostgreSQL: `bk_convert(x, 'decimal:2', 'integer')` is written, but no such function is made: a migration of
    /// books on PostgreSQL converts each value in the process, by `Value.converted` as SQLite's bk_convert does
    /// (`MigrationPlan.Conversion`, PostgreSQLMigrationPlanner), so the conformance row stays pending.
    case conversion
    /// A to-many column's stored values in one text (`StoredValue.listText`). SQLite: `bk_list(x, 'decimal:2')`.
    /// PostgreSQL: `string_agg` of each value written as a list item (PostgreSQLSchema.listItem), joined by U+001F.
    case valueList
    /// Tables of one connection that other connections never see and that leave the store's file as it is.
    /// SQLite: `CREATE TEMP TABLE IF NOT EXISTS "t" (…)`, named `temp."t"`; `INSERT OR IGNORE`. PostgreSQL:
    /// `CREATE TEMP TABLE IF NOT EXISTS` (`pg_temp."t"`), `INSERT … ON CONFLICT DO NOTHING`.
    case temporaryTables
    /// Nested undo points. SQLite: `SAVEPOINT "s"`, `ROLLBACK TO "s"`, `RELEASE "s"`. PostgreSQL: the same
    /// (`ROLLBACK TO SAVEPOINT`, `RELEASE SAVEPOINT`), inside a transaction only.
    case savepoints
    /// A write transaction that holds the write lock from its start. SQLite: `BEGIN IMMEDIATE`. PostgreSQL: the
    /// connection's `.immediate` transaction, `BEGIN` then `SELECT pg_advisory_xact_lock(key)` (the books' key,
    /// which the connection knows and the dialect does not: `beginWriteTransaction` alone is `BEGIN`), refused as
    /// busy after the connection's `lock_timeout`.
    case locking
    /// Statistics for the planner. SQLite: `ANALYZE` (sqlite_stat1). PostgreSQL: `ANALYZE`.
    case statistics
    /// Many rows in one statement, whose failure the batch undoes by its savepoint or transaction. SQLite:
    /// `INSERT OR FAIL INTO t (…) VALUES (?, …), (…)` (OR FAIL: no statement journal — a copy of every page the
    /// statement changes — which the batch never needs). PostgreSQL: `INSERT INTO t (…) VALUES ($1, …), (…)`.
    case bulkInsert
    /// Helper threads for the sort that builds an index. SQLite: `PRAGMA threads = n`. PostgreSQL:
    /// `SET max_parallel_maintenance_workers = n`.
    case parallelSort
    /// Reference checks off for a batch that keeps references intact, and the first broken one found afterwards.
    /// SQLite: `PRAGMA foreign_keys`, `PRAGMA foreign_keys = OFF`, `PRAGMA foreign_key_check` (table, row).
    /// PostgreSQL: keys are always checked (`foreignKeysEnabled` is 1): the books' keys are `DEFERRABLE`, and
    /// `SET CONSTRAINTS ALL DEFERRED` (inside a transaction) puts their check off to the commit, which refuses a
    /// broken reference; `foreignKeyCheck` finds none.
    case foreignKeyEnforcement
    /// Indexes dropped for a bulk load into an empty table and made again at its end. SQLite: yes (a reader keeps
    /// reading its snapshot, index and all). PostgreSQL: no — DROP INDEX takes an ACCESS EXCLUSIVE lock, so every
    /// reader of the table would wait for the load's commit; the indexes are kept up row by row.
    case indexDeferral
    /// A table of the store's own (the import history): a key the engine numbers on INSERT, columns that take only
    /// their type's values. SQLite: `"id" INTEGER PRIMARY KEY`, `CREATE TABLE … (…) STRICT`. PostgreSQL: `"id" bigint
    /// GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY`; a column's type decides by itself.
    case ownTables
    /// A table's indexes (name, definition, unique), an index's key columns in order (a name, none for an
    /// expression; whether it orders by bytes), whether an index exists, a table's columns. SQLite:
    /// `pragma_index_list`, `pragma_index_xinfo`, `sqlite_master`, `pragma_table_info`. PostgreSQL: `pg_indexes`
    /// (not those a constraint owns, as SQLite lists no automatic index), `pg_index` with `pg_attribute`,
    /// `information_schema.columns`.
    case catalog
    /// Different, none being equal to none. SQLite: `a IS NOT b`. PostgreSQL: `a IS DISTINCT FROM b`.
    case nullSafeComparison
    /// Text with a character beyond ASCII (keys that may have another normal form). SQLite: `typeof(x) = 'text'
    /// AND length(CAST(x AS BLOB)) <> length(x)`. PostgreSQL: `octet_length(x) <> char_length(x)`.
    case nonASCIIText
    /// Read transactions, commit and rollback, a read of the schema. SQLite: `BEGIN DEFERRED`, `COMMIT`,
    /// `ROLLBACK`, `SELECT count(*) FROM sqlite_master`. PostgreSQL: `BEGIN ISOLATION LEVEL REPEATABLE READ READ
    /// ONLY`, `COMMIT`, `ROLLBACK`, a read of `pg_class`.
    case transactions
    /// A sound store says so; a damaged one is found. SQLite: `PRAGMA quick_check(1)`, `PRAGMA integrity_check`,
    /// `PRAGMA cell_size_check`, `PRAGMA synchronous = NORMAL` (WAL: durable at checkpoints, never damaged).
    /// PostgreSQL: the server checks its own pages (data checksums, when the cluster has them), so both checks
    /// answer `ok`; a damaged page fails the statement reading it (SQLSTATE XX001, XX002: `damaged`).
    case integrityCheck
    /// What kind of value a column holds, which a column's type does not decide everywhere. SQLite: `typeof(x)`
    /// ('integer', 'real', 'text', 'blob', 'null'), `CAST(x AS BLOB)`, `instr(b, x'00')`. PostgreSQL: the
    /// column's type decides (`pg_typeof`: a value is stored as its column's kind, never otherwise), text holds no
    /// NUL, `convert_to(x::text, 'UTF8')`, `position('\x00' in b)`.
    case storageClasses
    /// Texts joined in a group. SQLite: `group_concat(x, ',')`. PostgreSQL: `string_agg(x::text, ',')`.
    case stringAggregate
    /// A file's rollback journal. SQLite: `PRAGMA journal_mode = OFF` for a copy being assembled, `= DELETE`
    /// before it is kept. PostgreSQL: none, a no-op (the server keeps its own write-ahead log; a backup is `pg_dump`).
    case fileJournal
}

/// A file's journal (SQLDialectFeature.fileJournal).
package enum FileJournal: Sendable {
    case none, rollback, writeAheadLog
}

/// How a value is stored (SQLDialectFeature.storageClasses): SQLite's storage classes.
package enum StoredKind: String, Sendable {
    case integer, real, text, blob
}
