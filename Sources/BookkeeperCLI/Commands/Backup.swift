import ArgumentParser
import FileOutput
import Foundation
import ObjectStore

struct Backup: StoreCommand, ZoneFreeCommand, TodayFreeCommand {
    static let configuration = CommandConfiguration(
        abstract: "Copy the store consistently, with SQLite's online backup, while others read or write it.",
        discussion: "The copy is written beside FILE under a temporary name and renamed when complete.")

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "Where to write the copy.") var file: String

    func run() throws {
        _ = try OutputTarget.resolve(file)   // refused before the store is opened (or migrated)
        let store = try openStore(readOnly: true)
        try store.backup(to: file)
        confirm("backed up \(store.path) to \(file)")
    }
}
