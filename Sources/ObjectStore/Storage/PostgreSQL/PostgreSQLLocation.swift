// Where books on PostgreSQL live: a libpq connection URI (`postgresql://` or `postgres://`) and a schema. libpq reads
// the URI itself — its host (a Unix-socket folder too), port, user, database and parameters such as `sslmode`, and
// beside it PGHOST, PGPORT, PGUSER, PGPASSWORD, ~/.pgpass, PGSSLMODE and PGAPPNAME —; the one parameter that is ours,
// `schema`, is taken out before libpq sees it (libpq refuses a parameter it does not know).
//
// The URI is split as libpq splits it (fe-connect.c, conninfo_uri_parse_options): the user part runs to the first
// `@` before any `/`, and may hold `?` (a password with one was shown whole: attack 19); parameter names are
// percent-decoded (`%70assword=` is `password=`). Every password the URI holds, as written and decoded, is a secret
// that no name of the books shows and that `hidingSecrets` masks in any message.

import Foundation

/// The books' server and schema, as `--store postgresql://…` names them.
package struct PostgreSQLLocation: Sendable, Equatable {
    /// The URI libpq connects with: as given, without `schema`.
    package let conninfo: String
    /// The schema that holds the books.
    package let schema: String
    /// Whether the URI holds a password (visible in `ps`; `.pgpass` is the place for it).
    package var hasPassword: Bool { !secrets.isEmpty }
    /// The URI without its password, and the schema: how messages name the books.
    package let displayName: String
    /// The passwords the URI holds, as written and percent-decoded.
    private let secrets: [String]

    /// The schema books live in unless the URI or `--schema` names another: PostgreSQL 15 gives ordinary roles
    /// no CREATE on `public`.
    package static let defaultSchema = "bookkeeper"

    /// Whether `store` names books on PostgreSQL rather than a file.
    package static func isURI(_ store: String) -> Bool {
        store.hasPrefix("postgresql://") || store.hasPrefix("postgres://")
    }

    /// Why a URI cannot be used (its words never hold a password).
    package struct Malformed: Error, Sendable, Equatable {
        package let reason: String
    }

    /// The location `uri` names; `schema` (from `--schema`) wins over the URI's `schema` parameter.
    package init(uri: String, schema: String? = nil) throws(Malformed) {
        guard Self.isURI(uri), let schemeEnd = uri.range(of: "://")?.upperBound else {
            throw Malformed(reason: "not a postgresql:// URI")
        }
        var secrets: [String] = []
        func secret(_ text: Substring) {
            guard !text.isEmpty else { return }
            secrets.append(String(text))
            if let decoded = text.removingPercentEncoding, decoded != text { secrets.append(decoded) }
        }
        // The user part, as libpq finds it: up to the first `@`, unless a `/` comes first.
        var afterUser = schemeEnd
        var shownUser = ""
        if let at = uri[schemeEnd...].firstIndex(where: { $0 == "@" || $0 == "/" }), uri[at] == "@" {
            let user = uri[schemeEnd..<at]
            if let colon = user.firstIndex(of: ":") {
                secret(user[user.index(after: colon)...])
                shownUser = String(user[..<colon]) + "@"
            } else {
                shownUser = String(user) + "@"
            }
            afterUser = uri.index(after: at)
        }
        let question = uri[afterUser...].firstIndex(of: "?")
        let base = String(uri[..<(question ?? uri.endIndex)])
        var kept: [String] = [], shownParameters: [String] = []
        var fromURI: String?
        if let question {
            for pair in uri[uri.index(after: question)...].split(separator: "&", omittingEmptySubsequences: true) {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let name = (parts[0].removingPercentEncoding ?? String(parts[0])).lowercased()
                let value = parts.count > 1 ? parts[1] : ""
                switch name {
                case "schema":
                    guard fromURI == nil else { throw Malformed(reason: "the schema is given twice in the URI") }
                    guard let decoded = value.removingPercentEncoding, !decoded.isEmpty else {
                        throw Malformed(reason: "its schema parameter is empty or not percent-encoded text")
                    }
                    fromURI = decoded
                case "password":
                    secret(value)
                    kept.append(String(pair))
                default:
                    kept.append(String(pair))
                    shownParameters.append(String(pair))
                }
            }
        }
        let chosen = schema ?? fromURI ?? Self.defaultSchema
        if let refusal = Self.schemaRefusal(chosen) { throw Malformed(reason: refusal) }
        self.schema = chosen
        self.secrets = secrets
        conninfo = base + (kept.isEmpty ? "" : "?" + kept.joined(separator: "&"))
        let shownBase = uri[..<schemeEnd] + shownUser + uri[afterUser..<(question ?? uri.endIndex)]
        displayName = "\(shownBase)\(shownParameters.isEmpty ? "" : "?" + shownParameters.joined(separator: "&")) (schema \(chosen))"
    }

    /// The password file libpq would read, and why libpq would ignore it, printing a line of its own on stderr
    /// (fe-connect.c, passwordFromFile: `WARNING: password file "…" has group or world access; …`, or `… is not a
    /// plain file`) — nil when libpq reads no password file (a password is given, in the URI or PGPASSWORD), there is
    /// none, or it is fine. libpq's file: the URI's `passfile`, else PGPASSFILE, else ~/.pgpass (HOME, else the
    /// user's home folder).
    package var ignoredPasswordFile: (path: String, reason: String)? {
        let environment = ProcessInfo.processInfo.environment
        if hasPassword || !(environment["PGPASSWORD"] ?? "").isEmpty { return nil }
        var path: String?
        if let question = conninfo.firstIndex(of: "?") {
            for pair in conninfo[conninfo.index(after: question)...].split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                if parts.count == 2, (parts[0].removingPercentEncoding ?? String(parts[0])).lowercased() == "passfile" {
                    path = parts[1].removingPercentEncoding ?? String(parts[1])
                }
            }
        }
        if path == nil, let file = environment["PGPASSFILE"], !file.isEmpty { path = file }
        if path == nil {
            var home = environment["HOME"] ?? ""
            if home.isEmpty, let entry = getpwuid(geteuid()), let dir = entry.pointee.pw_dir { home = String(cString: dir) }
            guard !home.isEmpty else { return nil }
            path = home + "/.pgpass"
        }
        guard let path, !path.isEmpty else { return nil }
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT != S_IFREG { return (path, "is not a plain file") }
        if info.st_mode & 0o077 != 0 {
            return (path, "has group or world access (mode \(String(info.st_mode & 0o777, radix: 8))) — libpq reads it only when it is "
                    + "u=rw (0600) or less: chmod 600 it")
        }
        return nil
    }

    /// The conninfo to connect with: `conninfo`, with a password file libpq would ignore (`ignoredPasswordFile`)
    /// replaced by none, so that libpq ignores it without a line of its own on stderr (the command warns in its own
    /// words).
    package var connectionString: String {
        guard ignoredPasswordFile != nil else { return conninfo }
        return conninfo + (conninfo.contains("?") ? "&" : "?") + "passfile=%2Fdev%2Fnull%2Fno-password-file"
    }

    /// Why `schema` cannot hold books: empty, a NUL, longer than PostgreSQL's names, or one of PostgreSQL's own.
    static func schemaRefusal(_ schema: String) -> String? {
        if schema.isEmpty || schema.unicodeScalars.contains(where: { $0.value == 0 }) || schema.utf8.count > 63 {
            return "the schema name \"\(schema)\" is empty, holds a NUL or is longer than PostgreSQL's 63 bytes"
        }
        if schema.lowercased().hasPrefix("pg_") || schema.lowercased() == "information_schema" {
            return "the schema name \"\(schema)\" is PostgreSQL's own (pg_…, information_schema): books need a schema of their own"
        }
        return nil
    }

    /// `text` with every password of the URI masked (one or two characters are left: they would mask innocent
    /// letters, and no message quotes them but a URI, which libpq quotes only when it cannot read it).
    package func hidingSecrets(_ text: String) -> String {
        var text = text
        for secret in secrets.sorted(by: { $0.count > $1.count }) where secret.count >= 3 {
            text = text.replacingOccurrences(of: secret, with: "***")
        }
        return text
    }
}
