// Where books on PostgreSQL live: a libpq connection URI (`postgresql://` or `postgres://`) and a schema. libpq reads
// the URI itself — its host (a Unix-socket folder too), port, user, database and parameters such as `sslmode`, and
// beside it PGHOST, PGPORT, PGUSER, PGPASSWORD, ~/.pgpass, PGSSLMODE and PGAPPNAME —; the one parameter that is ours,
// `schema`, is taken out before libpq sees it (libpq refuses a parameter it does not know).

/// The books' server and schema, as `--store postgresql://…` names them.
package struct PostgreSQLLocation: Sendable, Equatable {
    /// The URI libpq connects with: as given, without `schema`.
    package let conninfo: String
    /// The schema that holds the books.
    package let schema: String
    /// Whether the URI holds a password (visible in `ps`; `.pgpass` is the place for it).
    package let hasPassword: Bool
    /// The URI without its password, and the schema: how messages name the books.
    package let displayName: String

    /// The schema books live in unless the URI or `--schema` names another: PostgreSQL 15 gives ordinary roles
    /// no CREATE on `public`.
    package static let defaultSchema = "bookkeeper"

    /// Whether `store` names books on PostgreSQL rather than a file.
    package static func isURI(_ store: String) -> Bool {
        store.hasPrefix("postgresql://") || store.hasPrefix("postgres://")
    }

    /// Why a URI cannot be used.
    package struct Malformed: Error, Sendable, Equatable {
        package let reason: String
    }

    /// The location `uri` names; `schema` (from `--schema`) wins over the URI's `schema` parameter.
    package init(uri: String, schema: String? = nil) throws(Malformed) {
        guard Self.isURI(uri) else { throw Malformed(reason: "not a postgresql:// URI") }
        let schemeEnd = uri.range(of: "://")!.upperBound
        var base = String(uri[..<(uri.firstIndex(of: "?") ?? uri.endIndex)])
        var kept: [String] = []
        var fromURI: String?
        if let question = uri.firstIndex(of: "?") {
            for pair in uri[uri.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts[0] == "schema" {
                    let value = parts.count > 1 ? String(parts[1]) : ""
                    guard let decoded = value.removingPercentEncoding, !decoded.isEmpty else {
                        throw Malformed(reason: "its schema parameter is empty or not percent-encoded text")
                    }
                    fromURI = decoded
                } else {
                    kept.append(String(pair))
                }
            }
        }
        let chosen = schema ?? fromURI ?? Self.defaultSchema
        guard !chosen.isEmpty, !chosen.unicodeScalars.contains(where: { $0.value == 0 }), chosen.utf8.count <= 63 else {
            throw Malformed(reason: "the schema name \"\(chosen)\" is empty, holds a NUL or is longer than PostgreSQL's 63 bytes")
        }
        self.schema = chosen
        conninfo = base + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        // The user part ends at the last `@` before the path: a password may hold `@` only percent-encoded.
        let authorityEnd = base[schemeEnd...].firstIndex(of: "/") ?? base.endIndex
        var password = false
        if let at = base[schemeEnd..<authorityEnd].lastIndex(of: "@"),
           let colon = base[schemeEnd..<at].firstIndex(of: ":") {
            password = true
            base.removeSubrange(colon..<at)
        }
        if kept.contains(where: { $0.lowercased().hasPrefix("password=") }) { password = true }
        hasPassword = password
        let shownParameters = kept.filter { !$0.lowercased().hasPrefix("password=") }
        let shown = base + (shownParameters.isEmpty ? "" : "?" + shownParameters.joined(separator: "&"))
        displayName = "\(shown) (schema \(chosen))"
    }
}
