import ArgumentParser
import Bookkeeping
import CSV
import FileOutput
import Foundation
import LocalTime
import ObjectStore

/// The `bookkeeper` command: subcommands over one store.
package struct Bookkeeper: ParsableCommand {
    package static let configuration = CommandConfiguration(
        commandName: "bookkeeper",
        abstract: "Keep a small business's books in an SQLite store: directories, orders, imports and reports.",
        discussion: """
            The store is --store PATH, else $BOOKKEEPER_STORE, else ./bookkeeper.sqlite.
            Objects are named by object ID (Customer/17) or natural key (a directory's name, a document's number).

            \(ExitStatus.helpText)
            """,
        version: bookkeeperVersion,
        subcommands: [Init.self, ModelCommand.self, Add.self, SetCommand.self, Show.self, List.self, Delete.self, Update.self, Fetch.self, Migrate.self, Backup.self, Check.self,
                      Import.self, Imports.self, Export.self,
                      ReportsCommand.self, ReportCommand.self]
    )

    @OptionGroup var global: GlobalOptions

    package init() {}

    /// Parses the arguments, runs the command, and exits with a documented status. Errors are one line each on
    /// stderr, `bookkeeper: ` first; argument errors too (status 64), with where to find help.
    package static func runAndExit(_ arguments: [String]? = nil) -> Never {
        var command: any ParsableCommand
        do {
            let given = arguments ?? Array(CommandLine.arguments.dropFirst())
            let subcommand = try checkSubcommand(given)
            let (rest, repeated) = RepeatedOptions.extract(given, subcommand: subcommand)
            command = try parseAsRoot(rest)
            try refuseRepeatedOptions(rest)
            if var taking = command as? any TakesRepeatedOptions, !repeated.isEmpty {
                taking.take(repeated)
                do {
                    try taking.validate()
                } catch let error as ArgumentParser.ValidationError {
                    // argument-parser's own wording for a failed validate(), which it could not run on these values.
                    throw CommandLineError("\(error.message); see 'bookkeeper \(type(of: taking)._commandName) --help'")
                }
                command = taking
            }
        } catch {
            exitAfterParsing(error)
        }
        run(command)
    }

    /// An option given twice that does not repeat (`--output a --output b`, `--format csv --format json`):
    /// argument-parser keeps the last, so a cron line edited by appending would silently change meaning.
    /// The repeatable options (`--param`, `--where`, …) were taken out before this.
    static func refuseRepeatedOptions(_ words: [String]) throws {
        var seen: Set<Substring> = []
        for word in words {
            if word == "--" { break }
            guard word.hasPrefix("--"), word.count > 2 else { continue }
            let name = word.prefix { $0 != "=" }
            if !seen.insert(name).inserted {
                throw CommandLineError("\(name) is given twice; give it once")
            }
        }
    }

    /// argument-parser's message, as one `bookkeeper: ` line (its own `Error: …` and usage block stood out from
    /// every other message); help and version requests are printed as they are.
    private static func exitAfterParsing(_ error: Error) -> Never {
        if let error = error as? CategorizedError {
            Log.error(EngineWording.description(of: error))
            Foundation.exit(ExitStatus.code(for: error.category))
        }
        let code = exitCode(for: error)
        guard code != .success else { printHelpOrVersion(error) }
        var parts = message(for: error).split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let help = fullMessage(for: error).split(separator: "\n").map({ $0.trimmingCharacters(in: .whitespaces) })
            .first(where: { $0.hasPrefix("See '") }) {
            parts.append(help.prefix(1).lowercased() + help.dropFirst().replacingOccurrences(of: " for more information.", with: ""))
        }
        Log.error(parts.joined(separator: "; "))
        Foundation.exit(code.rawValue)
    }

    /// Global options that take a value, so the word after them is not the subcommand.
    private static let valueOptions: Set<String> = ["--store", "--schema", "--model", "--wait", "--log-format", "--generate-completion-script"]

    /// A first word that names no subcommand gets a did-you-mean (`fetc` → `fetch`), which argument-parser's
    /// "Unexpected argument" does not give.
    /// Returns the subcommand's name and place in `arguments`, if one is given.
    @discardableResult
    static func checkSubcommand(_ arguments: [String]) throws -> (name: String, index: Int)? {
        var i = 0
        while i < arguments.count {
            let word = arguments[i]
            if word == "--" { return nil }
            if word.hasPrefix("-") {
                i += valueOptions.contains(word) ? 2 : 1
                continue
            }
            var names = configuration.subcommands.map { $0._commandName }
            names.append("help")
            if names.contains(word) { return (word, i) }
            let suggestion = Suggestions.closest(to: word, in: names)
            throw UnknownCommand(word: word, suggestion: suggestion, names: names.filter { $0 != "help" })
        }
        return nil
    }

    private static func run(_ parsed: any ParsableCommand) -> Never {
        var command = parsed
        do {
            // Before any work of a command (help asks for none of this, and must print under any limit): the
            // descriptors it may need are free (OpenFiles.swift), the limits on memory leave it the address space it
            // needs (AddressSpace.swift) and the limit on processes lets it start its threads (ProcessLimit.swift):
            // all three checked, and every one too low named.
            if command is any StoreCommand { try CommandLimits.require() }
            // No thread asks for a stack as large as a big `ulimit -s` (AddressSpace.swift).
            AddressSpace.capThreadStacks()
            Interruption.install()
            if let storeCommand = command as? any StoreCommand {
                let options = storeCommand.options
                Log.quiet = options.quiet
                Log.verbose = options.verbose
                Log.format = options.logFormat ?? .text
                // A TZ that names no zone is refused before any work by every command that reads or shows a
                // date-time or today (LocalTime's Zone); the others (init, backup, imports) never do — but for a model
                // file's date-time default without an offset, which ModelFile reads only in a zone that is one.
                if !(storeCommand is any ZoneFreeCommand) { _ = try Zone.current() }
                // A BOOKKEEPER_TODAY that is no date is refused the same way, by every command that may count from
                // today (check too: a rule may use $TODAY), rather than replaced by the clock.
                if !(storeCommand is any TodayFreeCommand) { try RunMoment.checkProcess() }
                // Books on PostgreSQL: only the commands that work there yet, and their model is the one the books
                // record (a model file is read by `init --model` alone).
                if PostgreSQLLocation.isURI(options.storePath) {
                    try BooksOnPostgreSQL.prepare(storeCommand, options)
                } else {
                    // The model (built-in, or extended by a model file) is settled before any store is touched.
                    try ModelLocator.prepare(options)
                }
                // No output, standard output and error included, may go into the store or a configuration file:
                // known before any work.
                ConfigurationFiles.protect(options, command: command)
                ProtectedFiles.protectStore(options.storePath)
                try OutputTarget.refuseStandardStreamsIntoProtectedFiles()
            }
            try command.run()
            try Store.confirmSteadyReads()
            try StandardOutput.flushPrinted()
            Foundation.exit(ExitStatus.success)
        } catch var error as CategorizedError {
            // An open that failed for the limit on open files (a descriptor taken by a library after the check):
            // the limit's one line, not the file's.
            if let failed = error as? FileOutputError, failed.errno == EMFILE || failed.errno == ENFILE {
                error = OpenFiles.exhausted(needing: OpenFiles.needed) ?? TooManyOpenFiles(free: 0)
            }
            for message in EngineWording.messages(for: error) { Log.error(message) }
            sayWhatWasCommitted(outputFailed: error.category == .io)
            Foundation.exit(ExitStatus.code(for: error.category))
        } catch let error as CSVError {
            // CSV written to standard output (fetch --format csv): a failed write is an I/O error.
            Log.error(error.description)
            if case .io = error.kind {
                sayWhatWasCommitted(outputFailed: true)
                Foundation.exit(ExitStatus.ioError)
            }
            Foundation.exit(ExitStatus.dataError)
        } catch {
            // `help COMMAND` ends its run with argument-parser's clean exit, which prints the help.
            if exitCode(for: error) == .success { printHelpOrVersion(error) }
            exit(withError: error)
        }
    }

    /// Help or the version, printed as argument-parser prints them but through write(2), so that output that cannot
    /// be written (`> /dev/full`, a closed standard output) is a failure (74), as for every other result: they
    /// exited 0 (found by the attack on 0.6.0).
    private static func printHelpOrVersion(_ error: Error) -> Never {
        var out = StandardOutput()
        do {
            try out.write(fullMessage(for: error) + "\n")
            try out.flush()
        } catch {
            Log.error("\(error)")
            Foundation.exit(ExitStatus.ioError)
        }
        Foundation.exit(ExitStatus.success)
    }
}

/// A write that failed after the command committed its change (stdout is /dev/full, a closed pipe) must not
/// read as if nothing happened: say that the change is in the store and only the output was lost.
private func sayWhatWasCommitted(outputFailed: Bool) {
    guard outputFailed, CommitProgress.hasCommitted else { return }
    Log.error("the change was committed before this failure: it is in the store; only this output was lost")
}

/// Options given many times (`--where`, `--param`, `--arg`, `--map`, …). argument-parser 1.x copies an array option's whole
/// array for every occurrence, so n of them took O(n²) time (8,000 `--where` took two minutes); they are taken
/// out of the arguments in one pass before parsing, and handed to the command after.
enum RepeatedOptions {
    static let bySubcommand: [String: Set<String>] = [
        "fetch": ["--where", "--param", "--arg"],
        "update": ["--where", "--set", "--param", "--arg"],
        "delete": ["--where", "--param", "--arg"],
        "report": ["--param", "--reports"],
        "reports": ["--reports"],
        "import": ["--map", "--null"],
        "migrate": ["--rename", "--default"],
    ]

    static func extract(_ arguments: [String], subcommand: (name: String, index: Int)?) -> (rest: [String], values: [String: [String]]) {
        guard let subcommand, let names = bySubcommand[subcommand.name] else { return (arguments, [:]) }
        var rest = Array(arguments[...subcommand.index])
        var values: [String: [String]] = [:]
        var i = subcommand.index + 1
        while i < arguments.count {
            let word = arguments[i]
            if word == "--" {
                rest += arguments[i...]
                break
            }
            if names.contains(word), i + 1 < arguments.count {
                values[word, default: []].append(arguments[i + 1])
                i += 2
                continue
            }
            if let eq = word.firstIndex(of: "="), names.contains(String(word[..<eq])) {
                values[String(word[..<eq]), default: []].append(String(word[word.index(after: eq)...]))
            } else {
                rest.append(word)
            }
            i += 1
        }
        return (rest, values)
    }
}

/// A command that takes the options `RepeatedOptions` took out, by name (`--where`), in the order given.
protocol TakesRepeatedOptions: ParsableCommand {
    mutating func take(_ values: [String: [String]])
}

/// A command-line mistake found after argument-parser has parsed.
struct CommandLineError: CategorizedError {
    let description: String
    init(_ description: String) { self.description = description }
    var category: ErrorCategory { .usage }
}

/// A first word that is not a command.
struct UnknownCommand: CategorizedError {
    let word: String
    let suggestion: String?
    let names: [String]
    var category: ErrorCategory { .usage }
    var description: String {
        if let suggestion { return "unknown command '\(word)' — did you mean '\(suggestion)'?" }
        return "unknown command '\(word)' (the commands are \(names.joined(separator: ", ")); see 'bookkeeper --help')"
    }
}

/// A command that neither reads nor shows a local time or today, so runs whatever TZ says.
protocol ZoneFreeCommand {}

/// A command that never counts from today (no defaults, predicates or rules), so runs whatever BOOKKEEPER_TODAY says.
protocol TodayFreeCommand {}

/// A subcommand that works on the store.
protocol StoreCommand: ParsableCommand {
    var root: Bookkeeper { get }
    var local: GlobalOptions { get }
}

extension StoreCommand {
    var options: GlobalOptions { local.merged(with: root.global) }

    /// The built-in bookkeeping model, extended by the model file if there is one.
    var model: ObjectModel { ModelLocator.current }

    /// Opens the store (it must exist), migrating additive model changes and saying so on stderr. A dry run
    /// migrates nothing: it says what a real run would migrate first (see `Store.open`).
    func openStore(readOnly: Bool = false, activity: String? = nil, dryRun: Bool = false) throws -> Store {
        if let location = BooksOnPostgreSQL.location {
            let store = try Store.open(books: location, behaviours: BookkeepingModel.model, readOnly: readOnly,
                                       busyTimeout: options.waitSeconds)
            store.activity = activity ?? Self._commandName
            return store
        }
        let store = try Store.open(at: options.storePath, model: model, readOnly: readOnly, busyTimeout: options.waitSeconds,
                                   dryRun: dryRun)
        store.activity = (activity ?? Self._commandName) + (dryRun ? " (dry run)" : "")
        if let migration = store.migration {
            Log.notice("\(store.path): migrated to the current model: \(migration.plan.summary)"
                       + (migration.backupPath.map { " (backup: \($0))" } ?? ""))
        }
        if let pending = store.pendingMigration {
            Log.notice("\(store.path): a real run would first migrate the store to the current model: \(pending.summary)"
                       + " (dry run: not migrated; `bookkeeper migrate --dry-run` shows the SQL)")
            // Planned against the store as it is; the real run, which this user cannot make, is refused, and so
            // is its dry run, with the same code and line (as `migrate --dry-run` is).
            if store.isReadOnly {
                store.closeConnection()
                throw StoreError.needsMigratingReadOnly(path: store.path)
            }
        }
        if let unmigrated = store.readAsItIs {
            Log.notice("\(store.path): note: the store was written with another model and needs migrating "
                       + "(\(unmigrated.summary)); this user cannot write it, so it was read as it is")
        }
        if let file = ModelLocator.file { Log.debug("model file: \(file)") }
        Log.debug("store: \(store.path)\(store.isReadOnly ? " (read-only)" : "")")
        return store
    }

    /// Opens the store and returns a fresh context over it.
    func openContext(readOnly: Bool = false) throws -> ObjectContext {
        ObjectContext(store: try openStore(readOnly: readOnly))
    }
}

/// The model this run uses, loaded once before the command runs.
enum ModelLocator {
    nonisolated(unsafe) private(set) static var current: ObjectModel = BookkeepingModel.model
    nonisolated(unsafe) private(set) static var file: String?

    static func prepare(_ options: GlobalOptions) throws {
        guard let (path, explicit) = options.modelFile else { return }
        if !explicit && !FileManager.default.fileExists(atPath: path) { return }
        ProtectedFiles.protect(path, as: "the model file")
        current = try ModelFile.load(path: path, extending: BookkeepingModel.model)
        file = path
    }

    /// The model of books on PostgreSQL, as they record it.
    static func adopt(_ model: ObjectModel) { current = model }

    /// An explicit model file (`--model`, $BOOKKEEPER_MODEL) for `init` on PostgreSQL; never one beside the store.
    static func prepareExplicit(_ options: GlobalOptions) throws {
        guard let (path, explicit) = options.modelFile, explicit else { return }
        ProtectedFiles.protect(path, as: "the model file")
        current = try ModelFile.load(path: path, extending: BookkeepingModel.model)
        file = path
    }
}
