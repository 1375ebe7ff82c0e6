import ArgumentParser
import Bookkeeping
import CSV
import FileOutput
import Foundation
import ObjectStore

/// The `bookkeeper` command: subcommands over one store.
public struct Bookkeeper: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "bookkeeper",
        abstract: "Keep a small business's books in an SQLite store: directories, orders, imports and reports.",
        discussion: """
            The store is --store PATH, else $BOOKKEEPER_STORE, else ./bookkeeper.sqlite.
            Objects are named by object ID (Customer/17) or natural key (a directory's name, a document's number).

            \(ExitStatus.helpText)
            """,
        version: "0.1.0",
        subcommands: [Init.self, ModelCommand.self, Add.self, SetCommand.self, Show.self, List.self, Delete.self, Fetch.self, Migrate.self, Backup.self, Check.self,
                      Import.self, Imports.self, Export.self,
                      ReportsCommand.self, ReportCommand.self]
    )

    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Parses the arguments, runs the command, and exits with a documented status. Errors are one line each on
    /// stderr, `bookkeeper: ` first; argument errors are argument-parser's own (status 64).
    public static func runAndExit(_ arguments: [String]? = nil) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            Interruption.install()
            // A store read without locks (another user's, see Store+SteadyRead) must have stayed one state for
            // an output file to replace the old one, and for the command to succeed.
            OutputFile.confirmBeforeCommit = { try Store.confirmSteadyReads() }
            if let storeCommand = command as? any StoreCommand {
                let options = storeCommand.options
                Log.quiet = options.quiet
                Log.verbose = options.verbose
                Log.format = options.logFormat ?? .text
                // The model (built-in, or extended by a model file) is settled before any store is touched.
                try ModelLocator.prepare(options)
            }
            try command.run()
            try Store.confirmSteadyReads()
            try StandardOutput.flushPrinted()
            Foundation.exit(ExitStatus.success)
        } catch let error as CategorizedError {
            for line in error.description.split(separator: "\n", omittingEmptySubsequences: false) {
                Log.error(String(line))
            }
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
            exit(withError: error)
        }
    }
}

/// A write that failed after the command committed its change (stdout is /dev/full, a closed pipe) must not
/// read as if nothing happened: say that the change is in the store and only the output was lost.
private func sayWhatWasCommitted(outputFailed: Bool) {
    guard outputFailed, CommitProgress.hasCommitted else { return }
    Log.error("the change was committed before this failure: it is in the store; only this output was lost")
}

/// A subcommand that works on the store.
protocol StoreCommand: ParsableCommand {
    var root: Bookkeeper { get }
    var local: GlobalOptions { get }
}

extension StoreCommand {
    var options: GlobalOptions { local.merged(with: root.global) }

    /// The built-in bookkeeping model, extended by the model file if there is one.
    var model: Model { ModelLocator.current }

    /// Opens the store (it must exist), migrating additive model changes and saying so on stderr.
    func openStore(readOnly: Bool = false, activity: String? = nil) throws -> Store {
        let store = try Store.open(at: options.storePath, model: model, readOnly: readOnly, busyTimeout: options.waitSeconds)
        store.activity = activity ?? Self._commandName
        if let migration = store.migration {
            Log.notice("\(store.path): migrated to the current model: \(migration.plan.changes.joined(separator: "; "))"
                       + (migration.backupPath.map { " (backup: \($0))" } ?? ""))
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
    nonisolated(unsafe) private(set) static var current: Model = BookkeepingModel.model
    nonisolated(unsafe) private(set) static var file: String?

    static func prepare(_ options: GlobalOptions) throws {
        guard let (path, explicit) = options.modelFile else { return }
        if !explicit && !FileManager.default.fileExists(atPath: path) { return }
        ProtectedFiles.protect(path, as: "the model file")
        current = try ModelFile.load(path: path, extending: BookkeepingModel.model)
        file = path
    }
}
