// The books' schema on PostgreSQL: the tables `init` makes for a model, and the functions of ours the dialect's
// SQL calls beyond the text ones (PostgreSQLFunctions.swift). The tables mirror SchemaBuilder's (one per entity,
// foreign keys whose ON DELETE mirrors the delete rules, a join table per many-to-many relationship, the same
// indexes) in PostgreSQL's terms: each foreign key is added once every table exists (PostgreSQL, unlike SQLite,
// refuses a reference to a table not made yet), and a Boolean column holds only 0 and 1.

package enum PostgreSQLSchema {
    // The names of our functions (the dialect's SQL calls them; `init` makes them in the books' schema).
    static let fold = "bk_fold"
    static let nocaseKey = "bk_nocase_key"
    static let naturalKey = "bk_natural_key"
    static let stringOperators: [(String, PredicateOperator)] = [
        ("bk_beginswith", .beginsWith), ("bk_endswith", .endsWith), ("bk_contains", .contains),
        ("bk_like", .like), ("bk_matches", .matches),
    ]
    static let localDay = "bk_localday"
    static let finite = "bk_finite"
    static let convert = "bk_convert"
    static let list = "bk_list"

    private static let d = PostgreSQLDialect()
    private static func q(_ name: String) -> String { d.quote(name) }

    /// The statements that make the tables and indexes of `model` in the current schema, in order.
    package static func tables(for model: ObjectModel) -> [String] {
        let layout = self.layout(for: model)
        return layout.creates.map(\.sql) + layout.keys.map(\.sql) + layout.indexes.map(\.sql)
    }

    /// The statements of `tables(for:)`, each with what it makes (a migration compares two models' layouts).
    struct Layout {
        /// Entity tables first (model order), then join tables.
        var creates: [(table: String, sql: String)] = []
        /// The foreign keys (`ALTER TABLE … ADD CONSTRAINT`), made once every table exists.
        var keys: [(name: String, table: String, sql: String)] = []
        var indexes: [(name: String, table: String, sql: String)] = []
    }

    static func layout(for model: ObjectModel) -> Layout {
        var entityCreates: [(table: String, sql: String)] = [], joinCreates: [(table: String, sql: String)] = []
        var keys: [(name: String, table: String, sql: String)] = [], indexes: [(name: String, table: String, sql: String)] = []
        var joinTables: Set<String> = []
        for entity in model.entities {
            let table = q(entity.name)
            var columns = ["\(q("id")) bigint PRIMARY KEY"]
            for a in entity.attributes {
                var column = "\(q(a.name)) \(d.columnType(a.type))\(a.isRequired ? " NOT NULL" : "")"
                if a.type == .boolean { column += " CHECK (\(q(a.name)) IN (0, 1))" }
                columns.append(column)
                if a.isUnique || a.name == entity.naturalKey {
                    indexes.append(("\(entity.name)_\(a.name)_unique", entity.name,
                                    "CREATE UNIQUE INDEX \(q("\(entity.name)_\(a.name)_unique")) ON \(table) (\(q(a.name)))"))
                } else if a.isIndexed {
                    indexes.append(("\(entity.name)_\(a.name)_index", entity.name,
                                    "CREATE INDEX \(q("\(entity.name)_\(a.name)_index")) ON \(table) (\(q(a.name)))"))
                }
            }
            for r in entity.relationships {
                switch model.storage(of: r, in: entity) {
                case .foreignKey(let column):
                    let inverse = model.inverse(of: r)
                    columns.append("\(q(column)) bigint\(r.isRequired ? " NOT NULL" : "")")
                    if let action = inverse.deleteRule.foreignKeyAction {
                        keys.append(("\(entity.name)_\(column)_fkey", entity.name,
                                     "ALTER TABLE \(table) ADD CONSTRAINT \(q("\(entity.name)_\(column)_fkey")) FOREIGN KEY (\(q(column))) "
                                     + "REFERENCES \(q(r.destination)) (\(q("id"))) ON DELETE \(action) DEFERRABLE INITIALLY IMMEDIATE"))
                    }
                    indexes.append(("\(entity.name)_\(column)", entity.name,
                                    "CREATE \(inverse.isToMany ? "" : "UNIQUE ")INDEX \(q("\(entity.name)_\(column)")) ON \(table) (\(q(column)))"))
                case .joinTable(let name, let own, let other):
                    guard joinTables.insert(name).inserted else { continue }
                    joinCreates.append((name, "CREATE TABLE \(q(name)) (\(q(own)) bigint NOT NULL, \(q(other)) bigint NOT NULL, "
                                        + "PRIMARY KEY (\(q(own)), \(q(other))))"))
                    for (column, target) in [(own, entity.name), (other, r.destination)] {
                        keys.append(("\(name)_\(column)_fkey", name,
                                     "ALTER TABLE \(q(name)) ADD CONSTRAINT \(q("\(name)_\(column)_fkey")) FOREIGN KEY (\(q(column))) "
                                     + "REFERENCES \(q(target)) (\(q("id"))) ON DELETE CASCADE DEFERRABLE INITIALLY IMMEDIATE"))
                    }
                    indexes.append(("\(name)_\(other)", name, "CREATE INDEX \(q("\(name)_\(other)")) ON \(q(name)) (\(q(other)), \(q(own)))"))
                case .inverseForeignKey:
                    break
                }
            }
            entityCreates.append((entity.name, "CREATE TABLE \(table) (\(columns.joined(separator: ", ")))"))
        }
        // Entity tables first (model order), then join tables, then the keys between them, then the indexes.
        return Layout(creates: entityCreates + joinCreates, keys: keys, indexes: indexes)
    }

    // MARK: Opening and making books

    /// One row: the number of schemas named parameter 1 (0 or 1).
    static let schemaExists = "SELECT count(*) FROM pg_namespace WHERE nspname = $1"
    /// One row: the number of tables, views and foreign tables in the schema named parameter 1.
    static let tablesInSchema = "SELECT count(*) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE n.nspname = $1 AND c.relkind IN ('r', 'v', 'm', 'p', 'f')"
    // MARK: Another tool's hands on the books (attack 19): what would change answers or writes

    /// Rows (table, column, type, collation) of every column of the schema named by parameter 1.
    static let columnsOfSchema = "SELECT table_name::text, column_name::text, data_type::text, collation_name::text "
        + "FROM information_schema.columns WHERE table_schema = $1"
    /// Rows (what, table, name) of the triggers, rules and row-level security of the schema named by parameter 1.
    static let foreignBehaviour = """
        SELECT 'trigger', c.relname::text, t.tgname::text FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND NOT t.tgisinternal
        UNION ALL SELECT 'rule', tablename::text, rulename::text FROM pg_rules WHERE schemaname = $1
        UNION ALL SELECT 'row-level security', c.relname::text, '' FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relrowsecurity
        ORDER BY 1, 2, 3
        """

    /// The type and collation `information_schema.columns` gives a column of `type` in books of ours.
    static func expectedColumn(_ type: AttributeType) -> (type: String, collation: String?) {
        switch type {
        case .string, .date, .dateTime: ("text", "C")
        case .integer, .decimal, .boolean: ("bigint", nil)
        case .double: ("double precision", nil)
        case .binary: ("bytea", nil)
        }
    }

    /// A column's type as SQL writes it: `text COLLATE "C"`.
    static func spelling(_ column: (type: String, collation: String?)) -> String {
        column.type + (column.collation.map { " COLLATE \(d.quote($0))" } ?? "")
    }

    /// One row: 1 when this role may use the schema named by parameter 1.
    static let mayUseSchema = "SELECT has_schema_privilege($1, 'USAGE')::integer"
    /// One row: 1 when this role may update the table named (qualified, quoted) by parameter 1.
    static let mayUpdate = "SELECT has_table_privilege($1, 'UPDATE')::integer"
    static func createSchema(_ schema: String) -> String { "CREATE SCHEMA \(q(schema))" }
    /// The books' schema first, then PostgreSQL's own (pg_catalog is searched first unless named).
    static func searchPath(_ schema: String, local: Bool) -> String { "SET \(local ? "LOCAL " : "")search_path = \(q(schema))" }
    /// For the transaction only (SET LOCAL), as every setting of books on PostgreSQL (PostgreSQLConnection.swift).
    static func lockTimeout(milliseconds: Int) -> String { "SET LOCAL lock_timeout = \(milliseconds)" }
    static func timeZone(_ name: String) -> String { "SET LOCAL TimeZone = '\(name.replacingOccurrences(of: "'", with: "''"))'" }

    /// The metadata table (format, model, object ID marks), as StoreSQL's on SQLite.
    package static var metaTable: String {
        "CREATE TABLE \(q(Store.metaTable)) (\(q("key")) text COLLATE \"C\" PRIMARY KEY, \(q("value")) text NOT NULL)"
    }

    /// Our functions other than the text ones, made in schema `schema` (each pins its search path).
    package static func functions(schema: String) -> [String] {
        let pinned = "SET search_path = pg_catalog, pg_temp"
        return [
            // A date-time's local date in the session's zone (the store sets TimeZone to the process's zone); NULL
            // for text that is not a date-time, as SQLite's bk_localday.
            """
            CREATE OR REPLACE FUNCTION \(q(schema)).\(localDay)(x text) RETURNS text LANGUAGE plpgsql STABLE STRICT PARALLEL SAFE \(pinned) AS $f$
            BEGIN
              RETURN to_char(x::timestamptz, 'YYYY-MM-DD');
            EXCEPTION WHEN others THEN
              RETURN NULL;
            END
            $f$
            """,
            // x, or an error naming the object when x is not finite (NonFiniteStoredNumber.fromSQL reads it).
            """
            CREATE OR REPLACE FUNCTION \(q(schema)).\(finite)(x double precision, e text, a text, id bigint) RETURNS double precision
            LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE \(pinned) AS $f$
            BEGIN
              IF x IS NOT NULL AND (x = 'Infinity'::double precision OR x = '-Infinity'::double precision OR x = 'NaN'::double precision) THEN
                RAISE EXCEPTION '%', concat_ws(chr(31), 'bk_finite', e, id::text, a,
                  CASE WHEN x = 'NaN'::double precision THEN 'nan' WHEN x < 0 THEN '-inf' ELSE 'inf' END);
              END IF;
              RETURN x;
            END
            $f$
            """,
        ]
    }

    /// The list item of stored value `v` of an attribute of `type` (StoredValue.listText's item), NULL for none:
    /// `string_agg` of these joined by U+001F is the list text SQLite's bk_list gives.
    static func listItem(_ v: String, _ type: AttributeType) -> String {
        switch type {
        case .integer, .decimal, .boolean: return "('i' || \(v)::text)"
        // Swift writes an integral double with ".0"; the shortest digits otherwise, as PostgreSQL does.
        case .double: return "('r' || CASE WHEN \(v)::text ~ '^-?[0-9]+$' THEN \(v)::text || '.0' ELSE \(v)::text END)"
        case .string, .date, .dateTime: return "('t' || replace(replace(\(v), '\\', '\\\\'), chr(31), '\\u'))"
        case .binary: return "('x' || encode(\(v), 'hex'))"
        }
    }
}
