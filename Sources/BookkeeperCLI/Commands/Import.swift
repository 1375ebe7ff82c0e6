import ArgumentParser
import FileOutput
import Foundation
import Importer
import ObjectStore

extension OnError: ExpressibleByArgument {}
extension RepeatPolicy: ExpressibleByArgument {}
extension SummaryFormat: ExpressibleByArgument {}

struct Import: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import a CSV file into an entity: validated, in one transaction, safe to run twice.",
        discussion: """
            Header names map to attributes and key paths (exact, then any case; --map first): attributes by name, \
            to-one relationships by the target's natural key (customer) or another unique attribute (customer.code), \
            many-to-many relationships as lists (tags: "vip, wholesale"), and a document's rows as rows.* columns, one \
            line per row with the document's own columns repeated. A row table (OrderRow) imported on its own \
            replaces the rows of each document it names.
            Records are upserted by natural key (--key names another unique attribute): new keys are inserted, \
            changed records updated, unchanged ones left alone. Every import is recorded (see `bookkeeper imports`).
            By default any error imports nothing; --on-error skip imports the good records and writes the bad lines, \
            with a reason column, to --rejects. Exit status 65 whenever a record was rejected.

            A profile (--profile FILE.yaml) holds the same options, keys named as the long options:
              entity: Order
              delimiter: ";"
              decimal-comma: yes
              date-format: "%d.%m.%Y"
              null: [NULL]
              map:
                Kunde: customer.code
                Artikel: rows.service
            Options on the command line override the profile's.
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions

    @Argument(help: "The entity (Customer, Service, Tag, Order, OrderRow).") var entity: String
    @Argument(help: ArgumentHelp("The CSV file; - reads standard input.", valueName: "file")) var file: String

    @Option(help: ArgumentHelp("Options from a YAML profile.", valueName: "file.yaml")) var profile: String?
    @Option(help: ArgumentHelp("The unique attribute that identifies records (default: the natural key).", valueName: "attr"))
    var key: String?
    @Option(name: .customLong("map"), help: ArgumentHelp("Map a CSV column to a key path (repeatable); an empty key path ignores the column.",
                                                         valueName: "CSV column=keypath"))
    var maps: [String] = []
    @Flag(help: "Ignore columns that map to nothing (the summary lists them).") var ignoreUnknown = false
    @Flag(help: "Create missing directory items that references name.") var createMissing = false
    @Option(help: ArgumentHelp("Field delimiter: auto, \",\", \";\", tab or \"|\".", valueName: "delimiter")) var delimiter: String?
    @Option(help: ArgumentHelp("Input encoding: auto, utf-8, utf-16, windows-1250…1258, iso-8859-N, koi8-r, cp866, shift_jis, … (see docs/import.md).", valueName: "encoding")) var encoding: String?
    @Option(help: ArgumentHelp("strftime-style date format, e.g. %d/%m/%Y or %d-%b-%y (default %Y-%m-%d).", valueName: "format"))
    var dateFormat: String?
    @Flag(help: "Decimals use a comma (1.234,50), in every number column.") var decimalComma = false
    @Flag(help: "Decimals use a point (1,234.50), in every number column. Without either, each column's values decide.")
    var decimalPoint = false
    @Option(name: .customLong("null"), help: ArgumentHelp("A cell text that means empty (repeatable), e.g. NULL.", valueName: "text"))
    var nullTokens: [String] = []
    @Option(help: ArgumentHelp("Separator of to-many lists (default \",\").", valueName: "separator")) var listSeparator: String?
    @Option(help: "abort: any error imports nothing; skip: import the good records.") var onError: OnError?
    @Option(help: "A key given again with other values: error (the default), first or last (keep those values; the summary counts them).")
    var onConflict: RepeatPolicy?
    @Option(help: ArgumentHelp("With --on-error skip: an earlier rejects file, reviewed; its lines rejected again exactly leave the exit status 0.",
                               valueName: "file"))
    var acceptRejects: String?
    @Option(help: ArgumentHelp("With --on-error skip: write rejected lines, plus a reason column, here.", valueName: "file"))
    var rejects: String?
    @Flag(help: "Validate everything and report what would be done; write nothing.") var dryRun = false
    @Option(help: "Summary format: text or json (on stdout).") var summary: SummaryFormat?

    /// The options the command line gives (nil where not given).
    func commandLineOptions() throws -> ImportOptions {
        var o = ImportOptions()
        o.entity = entity
        o.key = key
        for m in maps {
            guard let eq = m.firstIndex(of: "=") else {
                throw ValidationError("--map \"\(m)\": expected \"CSV column=keypath\"")
            }
            o.addMap(column: String(m[..<eq]), keyPath: String(m[m.index(after: eq)...]))
        }
        o.ignoreUnknown = ignoreUnknown ? true : nil
        o.createMissing = createMissing ? true : nil
        o.delimiter = delimiter
        o.encoding = encoding
        o.dateFormat = dateFormat
        if decimalComma && decimalPoint { throw ValidationError("--decimal-comma and --decimal-point contradict each other: give one") }
        o.decimalComma = decimalComma ? true : decimalPoint ? false : nil
        o.nullTokens = nullTokens.isEmpty ? nil : nullTokens
        o.listSeparator = listSeparator
        o.onError = onError
        o.onConflict = onConflict
        o.acceptRejects = acceptRejects
        o.rejects = rejects
        o.dryRun = dryRun ? true : nil
        o.quiet = options.quiet ? true : nil   // --quiet is a global option
        o.summary = summary
        return o
    }

    func validate() throws {
        _ = try commandLineOptions()
    }

    func run() throws {
        let given = try commandLineOptions()
        var base = ImportOptions()
        if let profile { base = try ImportProfile.load(path: profile) }
        var merged = given.merged(over: base)
        // The entity argument names what to import; a profile's entity must agree with it.
        if let declared = base.entity, let profile {
            let a = try model.entity(entity), b = try? model.entity(declared)
            if a.name != b?.name {
                throw ImportOptionError("\(profile): the profile is for \(declared), not \(a.name)", source: .commandLine)
            }
        }
        merged.entity = entity
        let settings = try ImportSettings(merged, entity: entity) { name in
            let fromProfile: Bool
            switch name {
            case "map": fromProfile = given.map.isEmpty && !base.map.isEmpty
            case "delimiter": fromProfile = given.delimiter == nil && base.delimiter != nil
            case "encoding": fromProfile = given.encoding == nil && base.encoding != nil
            case "date-format": fromProfile = given.dateFormat == nil && base.dateFormat != nil
            case "list-separator": fromProfile = given.listSeparator == nil && base.listSeparator != nil
            case "rejects": fromProfile = given.rejects == nil && given.onError == nil && profile != nil
            case "accept-rejects": fromProfile = given.acceptRejects == nil && given.onError == nil && profile != nil
            default: fromProfile = false
            }
            return fromProfile ? .profile(profile!) : .commandLine
        }
        // Through openStore: --wait is the busy timeout, and a writer that finds the store busy is told
        // "import of orders.csv by pid N since HH:MM:SS±HH:MM".
        // Outputs are checked before any work (the store is not even opened): a rejects file that is the store,
        // the input or the profile is refused here.
        ProtectedFiles.protect(file, as: "the input being imported")
        if let profile { ProtectedFiles.protect(profile, as: "the import profile") }
        if let rejects = settings.rejects, !settings.dryRun { _ = try OutputTarget.resolve(rejects, creatingThroughDanglingLink: true) }
        let store = try openStore(activity: "import of " + (file == "-" ? "standard input" : (file as NSString).lastPathComponent),
                                  dryRun: settings.dryRun)
        let job = ImportJob(store: store, path: file, settings: settings)
        do {
            let result = try job.run()
            report(result, settings)
        } catch let failure as ImportFailure {
            if let s = failure.summary {
                report(s, settings)
                // The summary of what was kept is part of the result: lost, it is an I/O error as well.
                do {
                    try StandardOutput.flushPrinted()
                } catch {
                    throw ImportFailure(lines: failure.lines + ["\(error)"], category: .io)
                }
            }
            throw failure
        }
    }

    func report(_ summary: ImportSummary, _ settings: ImportSettings) {
        if settings.summary == .json {
            print(summary.json())
        } else if !settings.quiet {
            print(summary.text(rowEntities: Set(model.entities.filter { $0.kind == .rows }.map(\.name))))
        }
    }
}

extension Import: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        maps += values["--map"] ?? []
        nullTokens += values["--null"] ?? []
    }
}
