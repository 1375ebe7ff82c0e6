import ArgumentParser
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
}
