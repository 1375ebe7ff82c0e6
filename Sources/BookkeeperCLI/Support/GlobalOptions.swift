import ArgumentParser
import Foundation
import ObjectStore

/// Options every command accepts, before or after the command name: `bookkeeper --store x.sqlite list Customer`
/// and `bookkeeper list Customer --store x.sqlite` mean the same.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The store file (default: $BOOKKEEPER_STORE, else ./bookkeeper.sqlite).",
                                            valueName: "path"))
    var store: String?

    @Option(name: .long, help: ArgumentHelp(
        "The schema of books on PostgreSQL (default: the URI's schema parameter, else bookkeeper).", valueName: "name"))
    var schema: String?

    @Option(name: .long, help: ArgumentHelp(
        "A model file (YAML) extending the built-in model (default: $BOOKKEEPER_MODEL, else model.yaml beside the store).",
        valueName: "file"))
    var model: String?

    // .unconditional: "--wait -1" is a value to refuse with the range, not a missing value.
    @Option(name: .long, parsing: .unconditional, help: ArgumentHelp("How long a writer waits for another to finish, in seconds: 0 to 86400 (default 30).",
                                            valueName: "seconds"))
    var wait: Double?

    /// The longest `--wait`: a day. Larger values overflowed the busy timeout's conversion (a trap), and NaN or a
    /// negative number was taken in silence.
    static let maximumWait: Double = 86_400

    func validate() throws {
        if let wait, !(wait >= 0 && wait <= Self.maximumWait) {
            throw ValidationError("--wait takes 0 to 86400 seconds, got \(Self.spelling(wait))")
        }
    }

    private static func spelling(_ value: Double) -> String {
        if value.isNaN { return "nan" }
        if value.isInfinite { return value < 0 ? "-inf" : "inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }

    @Flag(name: .shortAndLong, help: "Print errors only: nothing on success (for cron).")
    var quiet = false

    @Flag(name: .long, help: "Print details of what is done on stderr.")
    var verbose = false

    @Option(name: .long, help: "How messages on stderr are written.")
    var logFormat: LogFormat?

    /// `other` fills what this one leaves unset (the root command's options under a subcommand's).
    func merged(with other: GlobalOptions) -> GlobalOptions {
        var merged = self
        merged.store = store ?? other.store
        merged.model = model ?? other.model
        merged.schema = schema ?? other.schema
        merged.wait = wait ?? other.wait
        merged.quiet = quiet || other.quiet
        merged.verbose = verbose || other.verbose
        merged.logFormat = logFormat ?? other.logFormat
        return merged
    }

    var storePath: String {
        if let store { return store }
        if let env = ProcessInfo.processInfo.environment["BOOKKEEPER_STORE"], !env.isEmpty { return env }
        return "bookkeeper.sqlite"
    }
}

extension GlobalOptions {
    /// The model file to use, and whether it was asked for (a missing file named explicitly is an error).
    var modelFile: (path: String, explicit: Bool)? {
        if let model { return (model, true) }
        if let env = ProcessInfo.processInfo.environment["BOOKKEEPER_MODEL"], !env.isEmpty { return (env, true) }
        if store.map(PostgreSQLLocation.isURI) ?? false || PostgreSQLLocation.isURI(storePath) { return nil }
        let beside = URL(fileURLWithPath: storePath).deletingLastPathComponent().appendingPathComponent("model.yaml").path
        return FileManager.default.fileExists(atPath: beside) ? (beside, false) : nil
    }
}

extension GlobalOptions {
    /// The busy timeout for the store.
    var waitSeconds: TimeInterval { max(0, wait ?? 30) }
}
