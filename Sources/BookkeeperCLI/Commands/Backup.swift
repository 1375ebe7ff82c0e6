import ArgumentParser
import FileOutput
import Foundation
import ObjectStore

struct Backup: StoreCommand, ZoneFreeCommand, TodayFreeCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy the store consistently, with SQLite's online backup, while others read or write it.",
        discussion: """
            The copy is written beside FILE under a temporary name, renamed when complete, and checked where it is. \
            A FILE with a -wal, -shm or -journal file beside it is refused (SQLite would read that file with the copy); \
            it is never deleted, since a process may be using it.
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "Where to write the copy.") var file: String

    func run() throws {
        // Refused before the store is opened (or migrated): a protected file, or a target with a stale `-wal`,
        // `-shm` or `-journal` beside it that SQLite would read with the copy.
        try Store.refuseStaleCompanions(of: file)
        // As it is, whatever model it records: a copy needs no migration (a reader that cannot write the store
        // was refused it).
        let store = try Store.openForCopy(at: options.storePath, model: model, busyTimeout: options.waitSeconds)
        defer { store.closeConnection() }
        try store.backup(to: file)
        confirm("backed up \(store.path) to \(file)")
    }
}
