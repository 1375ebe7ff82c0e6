/// Quotes an identifier for SQLite. Identifiers come only from the model (checked to be plain names);
/// every value goes to SQLite as a bound argument, never through here.
@inline(__always)
func quoted(_ identifier: String) -> String {
    SQLiteDialect().quote(identifier)
}
