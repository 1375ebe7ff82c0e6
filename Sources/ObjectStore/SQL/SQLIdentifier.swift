/// Quotes an identifier as the store's dialect does (SQLiteDialect.quote, kept concrete: it is called for every
/// name of every statement). Identifiers come only from the model (checked to be plain names);
/// every value goes to SQLite as a bound argument, never through here.
@inline(__always)
func quoted(_ identifier: String) -> String {
    SQLiteDialect().quote(identifier)
}
