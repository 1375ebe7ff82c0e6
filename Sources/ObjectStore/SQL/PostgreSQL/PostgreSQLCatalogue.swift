// The books' catalog on PostgreSQL compared with what the model says it should be (issue 31: `check`'s tamper
// catalogue in PostgreSQL's terms). SQLite's `check` reads SQLite's own account of a store (SchemaComparison); this
// reads pg_catalog for the books' schema and compares it with what `init` makes for the model (PostgreSQLSchema.tables,
// the metadata table, our functions), written down here from the same model rather than made in a scratch schema: a
// read-only role, which runs `check`, may create nothing.
//
// What is compared, each difference one line naming the object:
// - tables: missing, extra (a table, view, materialized view or foreign table of the schema that is not the model's
//   nor the books' own), row-level security turned on;
// - columns: missing, extra, another type or collation, NOT NULL added or dropped, generated or identity;
// - constraints: the primary keys, the foreign keys (their columns, target, ON DELETE, DEFERRABLE, validated, their
//   triggers enabled) and the CHECK of each Boolean column — missing or changed; any other constraint is extra;
// - indexes: the model's (by name) missing or changed (unique, columns, partial, expressions, collation, operator
//   class, order, method, valid); any other index is extra;
// - triggers and rules on the books' tables (the model makes none);
// - our functions (bk_*): missing, another body or language, or a function of the schema that is not ours (an
//   overload of one of ours would take its calls) — by `check` alone (opening does not compare them: see
//   `differences`), so these lines refuse no command.
//
// Not compared: column order, defaults, names of constraints (PostgreSQL names the implicit ones), storage
// parameters, statistics targets, privileges, ownership, comments.

/// One way the books' catalog differs from the model's.
package struct PostgreSQLCatalogueDifference: Equatable, Sendable {
    /// What a difference means for the other commands, as on SQLite for the same class.
    package enum Effect: Sendable, Equatable {
        /// Reported; no command refuses the books for it (a statement that needs what is missing fails loudly).
        case reported
        /// Every command that writes refuses the books (65) until it is undone: a write would store, match or delete
        /// something else without a word (a unique index, a primary key, a foreign key missing or changed).
        case blocksWrites
        /// Every command but `check` refuses the books (65) until it is undone (a column of another type, a trigger,
        /// a rule, row-level security: they change reads as well as writes; see Store.open).
        case refusesBooks
    }
    package let text: String
    package let effect: Effect
}

enum PostgreSQLCatalogue {
    private static let d = PostgreSQLDialect()
    private static func q(_ name: String) -> String { d.quote(name) }

    // MARK: The books' catalog (parameter 1: the schema's name)

    /// Rows (name, kind, row-level security, forced) of the schema's tables, views, materialized views and foreign tables.
    static let relations = """
        SELECT c.relname::text, c.relkind::text, c.relrowsecurity::integer, c.relforcerowsecurity::integer
        FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p', 'v', 'm', 'f') ORDER BY 1
        """

    /// Rows (table, column, type, collation or NULL, NOT NULL, generated or identity) of the schema's tables' columns.
    static let columns = """
        SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod), co.collname::text,
               a.attnotnull::integer, (a.attgenerated <> '' OR a.attidentity <> '')::integer
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_collation co ON co.oid = a.attcollation AND a.attcollation <> 0
        WHERE n.nspname = $1 AND c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY 1, a.attnum
        """

    /// Rows (table, name, type p/u/f/c/x, columns joined by commas, referenced table, referenced columns, ON DELETE
    /// code, deferrable, deferred, validated, the model's Boolean CHECK on its one column, its triggers disabled,
    /// its definition) of the constraints on the schema's tables.
    static let constraints = """
        SELECT c.relname::text, k.conname::text, k.contype::text,
               array_to_string(ARRAY(SELECT a.attname FROM unnest(k.conkey) WITH ORDINALITY AS u(n, i)
                   JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.i), ','),
               coalesce(f.relname::text, ''),
               array_to_string(ARRAY(SELECT a.attname FROM unnest(k.confkey) WITH ORDINALITY AS u(n, i)
                   JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.i), ','),
               k.confdeltype::text, k.condeferrable::integer, k.condeferred::integer, k.convalidated::integer,
               (k.contype = 'c' AND cardinality(k.conkey) = 1 AND pg_get_constraintdef(k.oid) =
                   format('CHECK ((%I = ANY (ARRAY[(0)::bigint, (1)::bigint])))',
                          (SELECT a.attname FROM pg_attribute a WHERE a.attrelid = k.conrelid AND a.attnum = k.conkey[1])))::integer,
               EXISTS (SELECT 1 FROM pg_trigger t WHERE t.tgconstraint = k.oid AND t.tgenabled = 'D')::integer,
               pg_get_constraintdef(k.oid)
        FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        LEFT JOIN pg_class f ON f.oid = k.confrelid
        WHERE n.nspname = $1 ORDER BY 1, 2
        """

    /// Rows (table, name, unique, columns joined by commas, plain, owned by a constraint, definition) of the indexes
    /// on the schema's tables. Plain: a valid btree index of columns, not partial, with their own collations, the
    /// default operator classes and order, and no INCLUDE columns — as `CREATE INDEX name ON table (columns)` makes.
    static let indexes = """
        SELECT t.relname::text, i.relname::text, x.indisunique::integer,
               array_to_string(ARRAY(SELECT coalesce(a.attname::text, '(expression)') FROM unnest(x.indkey::int2[]) WITH ORDINALITY AS u(n, o)
                   LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = u.n ORDER BY u.o), ','),
               (x.indisvalid AND x.indpred IS NULL AND x.indexprs IS NULL AND x.indnatts = x.indnkeyatts AND am.amname = 'btree'
                AND NOT EXISTS (SELECT 1 FROM unnest(x.indkey::int2[], x.indcollation::oid[], x.indclass::oid[], x.indoption::int2[]) AS k(n, coll, cls, opt)
                    LEFT JOIN pg_attribute a ON a.attrelid = x.indrelid AND a.attnum = k.n
                    LEFT JOIN pg_opclass oc ON oc.oid = k.cls
                    WHERE k.opt <> 0 OR a.attnum IS NULL OR (k.coll <> 0 AND k.coll <> a.attcollation) OR NOT coalesce(oc.opcdefault, false)))::integer,
               EXISTS (SELECT 1 FROM pg_constraint k WHERE k.conindid = x.indexrelid AND k.conrelid = x.indrelid)::integer,
               pg_get_indexdef(x.indexrelid)
        FROM pg_index x JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid
        JOIN pg_namespace n ON n.oid = t.relnamespace JOIN pg_am am ON am.oid = i.relam
        WHERE n.nspname = $1 ORDER BY 1, 2
        """

    /// Rows (name, identity arguments, body text, language) of the schema's functions and procedures.
    static let functions = """
        SELECT p.proname::text, pg_get_function_identity_arguments(p.oid), p.prosrc, l.lanname::text
        FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang
        WHERE n.nspname = $1 ORDER BY 1, 2
        """

    /// The objects of `table` whose double `column` is not finite (ID, `inf`, `-inf` or `nan` as the store's words
    /// spell it). PostgreSQL keeps NaN (equal to itself, above every number), which SQLite stores as NULL.
    static func nonFinite(_ table: String, column: String) -> String {
        let c = q(column)
        return "SELECT \(q("id")), CASE WHEN \(c) = 'NaN'::double precision THEN 'nan' WHEN \(c) > 0 THEN 'inf' ELSE '-inf' END "
            + "FROM \(q(table)) WHERE \(c) IN ('Infinity'::double precision, '-Infinity'::double precision, 'NaN'::double precision)"
    }

    // MARK: What the model makes

    struct Column: Equatable {
        let name: String
        let type: String
        let collation: String?
        let notNull: Bool
    }
    struct ForeignKey: Equatable {
        /// The relationship's name, `OrderRow.order` (a join table's column, `Customer_tags.Customer_id`).
        let label: String
        let column: String
        let target: String
        /// pg_constraint.confdeltype: r RESTRICT, c CASCADE, n SET NULL.
        let onDelete: String
    }
    struct Index: Equatable {
        let name: String
        let table: String
        let unique: Bool
        let columns: [String]
    }
    struct Table {
        let name: String
        var columns: [Column]
        var primaryKey: [String]
        var foreignKeys: [ForeignKey] = []
        /// The Boolean columns, each with its CHECK (x IN (0, 1)).
        var booleans: [String] = []
    }
    struct Function: Equatable {
        let name: String
        let arguments: String
        /// The text between `$f$`s, or nil for a standard SQL body (`RETURN …`, which PostgreSQL keeps parsed).
        let body: String?
        let language: String
    }

    /// PostgreSQL's name for an identifier longer than 63 bytes (NAMEDATALEN): cut at a character's start.
    static func truncated(_ name: String) -> String {
        guard name.utf8.count > 63 else { return name }
        var out = ""
        for c in name.unicodeScalars {
            if out.utf8.count + String(c).utf8.count > 63 { break }
            out.unicodeScalars.append(c)
        }
        return out
    }

    /// The tables and indexes `PostgreSQLSchema.tables(for:)` makes for `model`, and the metadata table.
    static func expected(for model: ObjectModel) -> (tables: [Table], indexes: [Index]) {
        var tables: [Table] = [Table(name: Store.metaTable, columns: [
            Column(name: "key", type: "text", collation: "C", notNull: true),
            Column(name: "value", type: "text", collation: "default", notNull: true),
        ], primaryKey: ["key"])]
        var indexes: [Index] = []
        var joinNames: Set<String> = []
        var joins: [Table] = []
        for entity in model.entities {
            var table = Table(name: entity.name, columns: [Column(name: "id", type: "bigint", collation: nil, notNull: true)], primaryKey: ["id"])
            for a in entity.attributes {
                let column = PostgreSQLSchema.expectedColumn(a.type)
                table.columns.append(Column(name: a.name, type: column.type, collation: column.collation, notNull: a.isRequired))
                if a.type == .boolean { table.booleans.append(a.name) }
                if a.isUnique || a.name == entity.naturalKey {
                    indexes.append(Index(name: truncated("\(entity.name)_\(a.name)_unique"), table: entity.name, unique: true, columns: [a.name]))
                } else if a.isIndexed {
                    indexes.append(Index(name: truncated("\(entity.name)_\(a.name)_index"), table: entity.name, unique: false, columns: [a.name]))
                }
            }
            for r in entity.relationships {
                switch model.storage(of: r, in: entity) {
                case .foreignKey(let column):
                    let inverse = model.inverse(of: r)
                    table.columns.append(Column(name: column, type: "bigint", collation: nil, notNull: r.isRequired))
                    if let action = inverse.deleteRule.foreignKeyAction {
                        table.foreignKeys.append(ForeignKey(label: "\(entity.name).\(r.name)", column: column, target: r.destination, onDelete: Self.code(action)))
                    }
                    indexes.append(Index(name: truncated("\(entity.name)_\(column)"), table: entity.name, unique: !inverse.isToMany, columns: [column]))
                case .joinTable(let name, let own, let other):
                    guard joinNames.insert(name).inserted else { continue }
                    joins.append(Table(name: name, columns: [
                        Column(name: own, type: "bigint", collation: nil, notNull: true),
                        Column(name: other, type: "bigint", collation: nil, notNull: true),
                    ], primaryKey: [own, other], foreignKeys: [
                        ForeignKey(label: "\(name).\(own)", column: own, target: entity.name, onDelete: "c"),
                        ForeignKey(label: "\(name).\(other)", column: other, target: r.destination, onDelete: "c"),
                    ]))
                    indexes.append(Index(name: truncated("\(name)_\(other)"), table: name, unique: false, columns: [other, own]))
                case .inverseForeignKey:
                    break
                }
            }
            tables.append(table)
        }
        return (tables + joins, indexes)
    }

    /// pg_constraint.confdeltype of an ON DELETE action.
    static func code(_ action: String) -> String {
        switch action {
        case "CASCADE": "c"
        case "SET NULL": "n"
        case "RESTRICT": "r"
        case "SET DEFAULT": "d"
        default: "a"
        }
    }

    /// An ON DELETE action by its pg_constraint code.
    static func action(_ code: String) -> String {
        switch code {
        case "c": "CASCADE"
        case "n": "SET NULL"
        case "r": "RESTRICT"
        case "d": "SET DEFAULT"
        default: "NO ACTION"
        }
    }

    /// Our functions as `init` makes them in `schema` (from the statements themselves).
    static func expectedFunctions(schema: String) -> [Function] {
        let prefix = "CREATE OR REPLACE FUNCTION \(q(schema))."
        return Store.functionStatements(schema: schema).compactMap { statement in
            guard let start = statement.range(of: prefix), let open = statement[start.upperBound...].firstIndex(of: "(") else { return nil }
            // The arguments: up to the parenthesis that closes the first.
            var depth = 0, close = open
            for i in statement[open...].indices {
                if statement[i] == "(" { depth += 1 } else if statement[i] == ")" { depth -= 1 }
                if depth == 0 { close = i; break }
            }
            let name = String(statement[start.upperBound..<open])
            let arguments = statement[statement.index(after: open)..<close].split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
            let language = statement.range(of: "LANGUAGE ").map { String(statement[$0.upperBound...].prefix { !$0.isWhitespace }) } ?? ""
            // A body in dollar quotes (`AS $bk$ … $bk$`) is kept as written; a standard SQL one (`RETURN …`) parsed.
            var body: String?
            if let as_ = statement.range(of: "AS $", range: close..<statement.endIndex) {
                let tagEnd = statement[as_.upperBound...].firstIndex(of: "$") ?? as_.upperBound
                let tag = "$" + statement[as_.upperBound..<tagEnd] + "$"
                if let first = statement.range(of: tag, range: statement.index(before: as_.upperBound)..<statement.endIndex),
                   let last = statement.range(of: tag, options: .backwards), first != last {
                    body = String(statement[first.upperBound..<last.lowerBound])
                }
            }
            return Function(name: name, arguments: arguments, body: body, language: language)
        }
    }

    // MARK: The comparison

    /// How the catalog of the books in `schema` differs from what `model` makes, one line each, in a stable order:
    /// tables, columns, constraints, indexes, triggers and rules, functions. `ownTables`: the books' own tables
    /// besides the metadata table (the import history), never differences. `functions`: our functions compared too —
    /// `check` does; opening does not, since the text they are compared with takes about a second of CPU to make in
    /// a debug build (the Unicode tables), on every command.
    static func differences(_ db: any StorageConnection, schema: String, model: ObjectModel,
                            ownTables: Set<String>, functions compareFunctions: Bool = true) throws -> [PostgreSQLCatalogueDifference] {
        let (tables, indexes) = expected(for: model)
        var out: [PostgreSQLCatalogueDifference] = []
        func add(_ text: String, _ effect: PostgreSQLCatalogueDifference.Effect) { out.append(.init(text: text, effect: effect)) }
        let arguments: [StoredValue] = [.text(schema)]
        let wanted = Dictionary(tables.map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })

        // Tables.
        var present: Set<String> = []
        for row in try db.rows(relations, arguments) {
            let name = row.string(0) ?? "", kind = row.string(1) ?? ""
            present.insert(name)
            if row.int(2) == 1 {
                add("row-level security is on for table \(q(name))\(row.int(3) == 1 ? " (forced)" : ""): it hides rows from "
                    + "bookkeeper's reads and refuses its writes (turn it off: ALTER TABLE \(q(name)) DISABLE ROW LEVEL SECURITY)", .refusesBooks)
            }
            guard wanted[name] == nil, !ownTables.contains(name) else { continue }
            let what = switch kind {
            case "v": "view"
            case "m": "materialized view"
            case "f": "foreign table"
            default: "table"
            }
            add("\(what) \(q(name)) is not the model's", .reported)
        }
        for table in tables where !present.contains(table.name) {
            add("table \(q(table.name)) of the model is missing", .reported)
        }

        // Columns.
        var found: [String: [String: (type: String, collation: String?, notNull: Bool, generated: Bool)]] = [:]
        var order: [String: [String]] = [:]
        for row in try db.rows(columns, arguments) {
            let table = row.string(0) ?? "", column = row.string(1) ?? ""
            found[table, default: [:]][column] = (row.string(2) ?? "", row.string(3), row.int(4) == 1, row.int(5) == 1)
            order[table, default: []].append(column)
        }
        func spelling(_ type: String, _ collation: String?, _ notNull: Bool) -> String {
            type + (collation.map { " COLLATE \(q($0))" } ?? "") + (notNull ? " NOT NULL" : "")
        }
        for table in tables where present.contains(table.name) {
            let have = found[table.name] ?? [:]
            for column in table.columns {
                let name = "\(table.name).\(column.name)"
                guard let c = have[column.name] else {
                    add("column \(name) of the model is missing", .refusesBooks)
                    continue
                }
                let theirs = spelling(c.type, c.collation, c.notNull), ours = spelling(column.type, column.collation, column.notNull)
                if c.type != column.type || c.collation != column.collation {
                    add("column \(name) is \(theirs) where the model's is \(ours) (another tool changed it)", .refusesBooks)
                } else if c.notNull != column.notNull {
                    add("column \(name) is \(theirs) where the model's is \(ours)", .reported)
                }
                if c.generated { add("column \(name) is generated or an identity column, which the model's is not", .blocksWrites) }
            }
            for column in order[table.name] ?? [] where !table.columns.contains(where: { $0.name == column }) {
                let c = have[column]!
                add("column \(table.name).\(column) is not the model's (\(spelling(c.type, c.collation, c.notNull)))", c.notNull ? .blocksWrites : .reported)
            }
        }

        // Constraints.
        struct Found {
            let table, name, type: String
            let columns: [String]
            let target: String
            let targetColumns: [String]
            let onDelete: String
            let deferrable, deferred, validated, booleanCheck, disabled: Bool
            let definition: String
        }
        var constraints: [Found] = []
        for row in try db.rows(Self.constraints, arguments) {
            func list(_ i: Int) -> [String] { (row.string(i) ?? "").split(separator: ",").map(String.init) }
            constraints.append(Found(table: row.string(0) ?? "", name: row.string(1) ?? "", type: row.string(2) ?? "",
                                     columns: list(3), target: row.string(4) ?? "", targetColumns: list(5),
                                     onDelete: row.string(6) ?? "", deferrable: row.int(7) == 1, deferred: row.int(8) == 1,
                                     validated: row.int(9) == 1, booleanCheck: row.int(10) == 1, disabled: row.int(11) == 1,
                                     definition: row.string(12) ?? ""))
        }
        var matched: Set<String> = []
        func key(_ c: Found) -> String { "\(c.table)\u{1F}\(c.name)" }
        for table in tables where present.contains(table.name) {
            let mine = constraints.filter { $0.table == table.name }
            if let pk = mine.first(where: { $0.type == "p" }) {
                matched.insert(key(pk))
                if pk.columns != table.primaryKey {
                    add("the primary key of \(q(table.name)) is \(pk.definition) where the model's is PRIMARY KEY (\(table.primaryKey.joined(separator: ", ")))", .blocksWrites)
                }
            } else {
                add("the primary key of \(q(table.name)) (\(table.primaryKey.joined(separator: ", "))) is missing: nothing keeps \(table.primaryKey.count > 1 ? "its links from being kept twice" : "two rows from having one ID")", .blocksWrites)
            }
            for fk in table.foreignKeys {
                let onDelete = action(fk.onDelete)
                let what = "the foreign key of \(fk.label) (\(q(fk.column)) REFERENCES \(q(fk.target)) ON DELETE \(onDelete))"
                let candidates = mine.filter { $0.type == "f" && $0.columns == [fk.column] }
                guard let c = candidates.first(where: { $0.target == fk.target && $0.targetColumns == ["id"] && $0.onDelete == fk.onDelete }) ?? candidates.first else {
                    add("\(what) is missing: bookkeeper relies on it to remove or keep linked rows on a delete", .blocksWrites)
                    continue
                }
                matched.insert(key(c))
                if c.target != fk.target || c.targetColumns != ["id"] || c.onDelete != fk.onDelete {
                    add("\(what) is \(c.definition): bookkeeper relies on the model's to remove or keep linked rows on a delete", .blocksWrites)
                } else if c.disabled {
                    add("\(what) is not enforced: its triggers are disabled (ALTER TABLE … ENABLE TRIGGER ALL on \(q(table.name)) and \(q(fk.target)))", .blocksWrites)
                } else if !c.validated {
                    add("\(what) is NOT VALID: rows written before it was added are not checked against it", .reported)
                } else if !c.deferrable || c.deferred {
                    add("\(what) is \(c.deferrable ? "INITIALLY DEFERRED" : "not DEFERRABLE") where the model's is DEFERRABLE INITIALLY IMMEDIATE", .blocksWrites)
                }
            }
            for column in table.booleans {
                if let c = mine.first(where: { $0.type == "c" && $0.booleanCheck && $0.columns == [column] }) {
                    matched.insert(key(c))
                } else {
                    add("the CHECK (\(column) IN (0, 1)) of \(table.name).\(column) is missing: it may hold other numbers", .reported)
                }
            }
        }
        for c in constraints where !matched.contains(key(c)) && (wanted[c.table] != nil || !ownTables.contains(c.table)) {
            guard wanted[c.table] != nil else { continue }   // (an extra table's own constraints: the table is named)
            let kind = switch c.type {
            case "p": "primary key"
            case "u": "UNIQUE constraint"
            case "f": "foreign key"
            case "c": "CHECK constraint"
            case "x": "exclusion constraint"
            default: "constraint"
            }
            let acts = c.type == "f" && ["c", "n", "d"].contains(c.onDelete)
            add("\(kind) \(q(c.name)) on \(q(c.table)) is not the model's (\(c.definition))", acts ? .blocksWrites : .reported)
        }

        // Indexes.
        var seen: Set<String> = []
        for row in try db.rows(Self.indexes, arguments) {
            let table = row.string(0) ?? "", name = row.string(1) ?? "", unique = row.int(2) == 1
            let keys = (row.string(3) ?? "").split(separator: ",").map(String.init)
            let plain = row.int(4) == 1, owned = row.int(5) == 1, definition = row.string(6) ?? ""
            guard wanted[table] != nil, !owned else { continue }
            seen.insert(name)
            if let index = indexes.first(where: { $0.name == name && $0.table == table }) {
                if index.unique != unique || index.columns != keys || !plain {
                    add("index \(q(name)) is not the model's: it is \(definition) where the model's is "
                        + "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(q(name)) ON \(q(index.table)) (\(index.columns.map(q).joined(separator: ", ")))",
                        index.unique ? .blocksWrites : .reported)
                }
            } else {
                add("index \(q(name)) is not the model's (\(definition))", unique ? .blocksWrites : .reported)
            }
        }
        for index in indexes where present.contains(index.table) && !seen.contains(index.name) {
            add("index \(q(index.name)) of the model is missing (CREATE \(index.unique ? "UNIQUE " : "")INDEX \(q(index.name)) ON \(q(index.table)) "
                + "(\(index.columns.map(q).joined(separator: ", "))))" + (index.unique ? ": nothing keeps \(index.table).\(index.columns[0]) unique" : ""),
                index.unique ? .blocksWrites : .reported)
        }

        // Triggers, rules (the model makes none; row-level security is above).
        for row in try db.rows(PostgreSQLSchema.foreignBehaviour, arguments) where row.string(0) != "row-level security" {
            let what = row.string(0) ?? "", table = row.string(1) ?? "", name = row.string(2) ?? ""
            let drop = what == "trigger" ? "DROP TRIGGER \(q(name)) ON \(q(table))" : "DROP RULE \(q(name)) ON \(q(table))"
            add("\(what) \(q(name)) on \(q(table)) is not the model's: it would act on bookkeeper's reads or writes (drop it: \(drop))", .refusesBooks)
        }

        // Our functions.
        guard compareFunctions else { return out }
        let ours = expectedFunctions(schema: schema)
        var functionsSeen: Set<String> = []
        for row in try db.rows(functions, arguments) {
            let name = row.string(0) ?? "", args = row.string(1) ?? "", source = row.string(2) ?? "", language = row.string(3) ?? ""
            guard let function = ours.first(where: { $0.name == name && $0.arguments == args }) else {
                add("function \(name)(\(args)) is not bookkeeper's: "
                    + (ours.contains { $0.name == name } ? "beside ours of that name it could take their calls" : "the books' schema holds only bookkeeper's functions"),
                    .reported)
                continue
            }
            functionsSeen.insert("\(name)(\(args))")
            let sameBody = function.body.map { $0 == source } ?? source.isEmpty
            if !sameBody || function.language != language {
                add("function \(name)(\(args)) is not bookkeeper's: another tool replaced it, and every query that calls it may answer otherwise", .reported)
            }
        }
        for function in ours where !functionsSeen.contains("\(function.name)(\(function.arguments))") {
            add("function \(function.name)(\(function.arguments)) is missing (another tool dropped it): every query that calls it fails", .reported)
        }
        return out
    }
}
