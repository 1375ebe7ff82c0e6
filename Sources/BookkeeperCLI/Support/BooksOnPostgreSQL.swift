import Bookkeeping
import Foundation
import ObjectStore

/// Books on PostgreSQL (`--store postgresql://…`): which commands work there yet (issue 30: part 1), the warning for a
/// password written into the URI, and the model the books record, which every command but `init` uses.
enum BooksOnPostgreSQL {
    /// The books this process works on, when they are on PostgreSQL.
    nonisolated(unsafe) private(set) static var location: PostgreSQLLocation?

    /// The commands that work on PostgreSQL books so far; the others refuse in one line.
    static let supported: Set<String> = ["init", "add", "set", "delete", "show", "list", "fetch", "update", "export", "report", "model", "import", "imports", "check", "migrate"]
    /// The supported commands that write the books (and so may bring books of an earlier format up to date).
    static let writers: Set<String> = ["init", "add", "set", "delete", "update", "import", "migrate"]

    /// Says on stderr that books of an earlier format were brought up to date.
    static func noteUpgrade(_ upgrade: (from: Int, to: Int), _ location: PostgreSQLLocation) {
        Log.notice("\(location.displayName): brought from format \(upgrade.from) to \(upgrade.to): its SQL functions replaced by this version's")
    }

    /// A command that does not work on PostgreSQL books yet: a usage error (64), not an unavailable server (69),
    /// which a wrapper would retry.
    struct Unsupported: CategorizedError {
        let command: String
        let what: String
        var category: ErrorCategory { .usage }
        var description: String {
            if command == "backup" {
                // (Part 3 of the PostgreSQL work brings `copy`, which writes books on PostgreSQL to a SQLite file.)
                return "\(what): `backup` copies SQLite stores; books on PostgreSQL get `copy` (to a SQLite file) in a later "
                    + "version — until then, pg_dump their schema"
            }
            return "\(what): `\(command)` does not work on books on PostgreSQL yet (\(BooksOnPostgreSQL.supportedInOrder) do)"
        }
    }

    /// The supported commands in the order `--help` lists them: "init, add, … and fetch".
    static var supportedInOrder: String {
        let names = Bookkeeper.configuration.subcommands.map { $0._commandName }.filter(supported.contains)
        return names.dropLast().joined(separator: ", ") + (names.count > 1 ? " and " : "") + (names.last ?? "")
    }

    /// A `--store` URI bookkeeper cannot use.
    struct MalformedURI: CategorizedError {
        let reason: String
        var category: ErrorCategory { .usage }
        var description: String { "--store: \(reason)" }
    }

    static func prepare(_ command: any StoreCommand, _ options: GlobalOptions) throws {
        let parsed: PostgreSQLLocation
        do {
            parsed = try PostgreSQLLocation(uri: options.storePath, schema: options.schema)
        } catch {
            throw MalformedURI(reason: error.reason)
        }
        let name = type(of: command)._commandName
        guard supported.contains(name) else { throw Unsupported(command: name, what: parsed.displayName) }
        if parsed.hasPassword {
            Log.warning("\(parsed.displayName): the password in --store is visible to other users in `ps`; keep it in ~/.pgpass "
                        + "(or PGPASSWORD) instead")
        }
        if let ignored = parsed.ignoredPasswordFile {
            // (libpq would say so on stderr in its own form; it is told to read no file instead.)
            Log.warning("\(parsed.displayName): the password file \(ignored.path) is not read: it \(ignored.reason)")
        }
        location = parsed
        if name == "init" {
            try ModelLocator.prepareExplicit(options)
        } else {
            // `migrate --model FILE` reads the model file it brings the books to (the only command but init that does).
            if name == "migrate" { try ModelLocator.prepareExplicit(options) }
            if options.modelFile != nil && name != "migrate" {
                Log.notice("\(parsed.displayName): the model file is not read: books on PostgreSQL keep their model "
                           + "(`init --model` records it)")
            }
            // A command that writes brings books of an earlier format up to date here, before anything else; its dry
            // run changes nothing, so it reads as any read does (and books of an earlier format are refused it).
            let writes = writers.contains(name) && !((command as? MayDryRun)?.dryRun ?? false)
            let store = try Store.open(books: parsed, behaviours: BookkeepingModel.model, readOnly: !writes,
                                       busyTimeout: options.waitSeconds, checking: name == "check")
            if let upgrade = store.upgradedFormat { noteUpgrade(upgrade, parsed) }
            if name != "migrate" { ModelLocator.adopt(store.model) }
            store.closeConnection()
        }
    }
}

/// A command with `--dry-run`, which changes nothing when it is given.
protocol MayDryRun {
    var dryRun: Bool { get }
}

extension Update: MayDryRun {}
extension Delete: MayDryRun {}
extension Import: MayDryRun {}
extension Migrate: MayDryRun {}
