import ArgumentParser
import Bookkeeping
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
        subcommands: [Init.self, ModelCommand.self, Add.self, SetCommand.self, Show.self, List.self, Delete.self, Fetch.self,
                      ReportsCommand.self, ReportCommand.self]
    )

    @OptionGroup var global: GlobalOptions

    public init() {}

    /// Parses the arguments, runs the command, and exits with a documented status. Errors are one line each on
    /// stderr, `bookkeeper: ` first; argument errors are argument-parser's own (status 64).
    public static func runAndExit(_ arguments: [String]? = nil) -> Never {
        do {
            var command = try parseAsRoot(arguments)
            try command.run()
            Foundation.exit(ExitStatus.success)
        } catch let error as CategorizedError {
            for line in error.description.split(separator: "\n", omittingEmptySubsequences: false) {
                printError("bookkeeper: \(line)")
            }
            Foundation.exit(ExitStatus.code(for: error.category))
        } catch {
            exit(withError: error)
        }
    }
}

/// A subcommand that works on the store.
protocol StoreCommand: ParsableCommand {
    var root: Bookkeeper { get }
    var local: GlobalOptions { get }
}

extension StoreCommand {
    var options: GlobalOptions { local.merged(with: root.global) }

    var model: Model { BookkeepingModel.model }

    /// Opens the store (it must exist) and returns a fresh context over it.
    func openContext(readOnly: Bool = false) throws -> ObjectContext {
        let store = try Store.open(at: options.storePath, model: model, readOnly: readOnly)
        return ObjectContext(store: store)
    }
}
