import GRDB

// What differs between SQL databases, in one place: the compiler asks the dialect for exact sums, for
// comparisons and sort keys that may meet numbers beyond an Int64, and for long IN lists. Only SQLite exists
// today; the comments say what PostgreSQL would write, which is why these are not spread over the compiler.
package protocol SQLDialect: Sendable {
    /// The exact SUM of integer `value`s (stored Int64 units) as one SQL value; NULL over no rows. A sum that
    /// fits an Int64 is an integer; `beyond` says what a wider one is. (PostgreSQL: `SUM(value)`, `numeric`.)
    func exactSum(_ value: String, beyond: WideForm) -> String
    /// The exact SUM of `value`s that may themselves be wide (a group's sum of per-object sums).
    /// (PostgreSQL: `SUM(value)`.)
    func wideSum(_ value: String) -> String
    /// MIN (or MAX) of `value`s that may be wide. (PostgreSQL: `MIN(value)`.)
    func wideExtreme(_ minimum: Bool, _ value: String) -> String
    /// SQL comparing two numbers of which one may be wide, as `cmp(a, b) op 0` would. (PostgreSQL: `a op b`.)
    func wideComparison(_ a: String, _ op: String, _ b: String) -> String
    /// `value × 10^power` exactly. (PostgreSQL: `value * 10^power::numeric`.)
    func wideScaled(_ value: String, by power: Int) -> String
    /// A possibly wide number as a REAL. (PostgreSQL: `value::double precision`.)
    func wideReal(_ value: String) -> String
    /// A sort key ordering possibly wide numbers by value. (PostgreSQL: `value`.)
    func wideOrderKey(_ value: String) -> String
    /// `lhs IN (values)` with the values bound through `bind`: a few as placeholders, many as one bound array,
    /// so a list of 100,000 values is one parameter, not 100,000. (PostgreSQL: `lhs = ANY($1)`.)
    func inList(_ lhs: String, _ values: [DatabaseValue], bind: (DatabaseValue) -> String) -> String
    /// The value that stands for a number beyond an Int64 when bound (see WideInteger.swift).
    func wideValue(_ value: Int128) -> DatabaseValue
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

