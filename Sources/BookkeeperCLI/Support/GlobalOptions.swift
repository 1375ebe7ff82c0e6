import ArgumentParser
import Foundation

/// Options every command accepts, before or after the command name: `bookkeeper --store x.sqlite list Customer`
/// and `bookkeeper list Customer --store x.sqlite` mean the same.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file (default: $BOOKKEEPER_STORE, else ./bookkeeper.sqlite).",
                                            valueName: "path"))
    var store: String?

    /// `other` fills what this one leaves unset (the root command's options under a subcommand's).
    func merged(with other: GlobalOptions) -> GlobalOptions {
        var merged = self
        merged.store = store ?? other.store
        return merged
    }

    var storePath: String {
        if let store { return store }
        if let env = ProcessInfo.processInfo.environment["BOOKKEEPER_STORE"], !env.isEmpty { return env }
        return "bookkeeper.sqlite"
    }
}
