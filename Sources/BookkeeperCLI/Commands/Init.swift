import ArgumentParser
import Bookkeeping
import FileOutput
import Foundation
import ObjectStore

struct Init: StoreCommand, ZoneFreeCommand, TodayFreeCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create a new, empty store.",
        discussion: "Running it on an existing store of the same model does nothing and succeeds.")

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions

    func run() throws {
        if let books = BooksOnPostgreSQL.location { return try initialize(books) }
        let path = options.storePath
        // A new store is an output like any other: never a model file, a profile or a report definition.
        try OutputTarget.refuseProtectedOtherThanTheStore(path)
        try Store.refuseStaleCompanions(ofNewStore: path)
        if !FileManager.default.fileExists(atPath: path) {
            do {
                _ = try Store.create(at: path, model: model)
                confirm("created \(path)")
                return
            } catch StoreError.alreadyExists {
                // Another `init` made it meanwhile. A store appears at its path only whole (Store.create), so it is
                // opened as any existing one: init on a store succeeds.
            }
        }
        let store = try Store.open(at: path, model: model, readOnly: true)
        // A store this user cannot migrate: `init` brings an existing store to the model, which it cannot do here.
        if store.readAsItIs != nil {
            store.closeConnection()
            throw StoreError.needsMigratingReadOnly(path: path)
        }
        if let migration = store.migration {
            Log.notice("\(path): migrated to the current model: \(migration.plan.summary)"
                       + (migration.backupPath.map { " (backup: \($0))" } ?? ""))
        }
        Log.notice("\(path) is already a store; nothing to do")
    }

    /// Books on PostgreSQL: made in their schema with the model; on books that exist, nothing to do when they record
    /// the same model — another model is `migrate`'s to bring, never init's (one machine's model file must not change
    /// everyone's books).
    private func initialize(_ books: PostgreSQLLocation) throws {
        do {
            let store = try Store.create(books: books, model: model)
            store.closeConnection()
            confirm("created \(books.displayName)")
        } catch StoreError.alreadyExists {
            // (Opened to write: books of an earlier format are brought up to date, which is init's to do.)
            let store = try Store.open(books: books, behaviours: BookkeepingModel.model, readOnly: false,
                                       busyTimeout: options.waitSeconds)
            defer { store.closeConnection() }
            guard store.model.versionHash == model.versionHash else {
                throw StoreError.modelMismatch(path: books.displayName)
            }
            if let upgrade = store.upgradedFormat {
                BooksOnPostgreSQL.noteUpgrade(upgrade, books)
            } else {
                Log.notice("\(books.displayName) is already a store; nothing to do")
            }
        }
    }
}
