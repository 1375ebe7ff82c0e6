import ArgumentParser
import CSV
import Exporter
import FileOutput
import Importer
import ObjectStore

struct Export: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "export",
        abstract: "Export an entity as CSV that `bookkeeper import` reads back to the same store content.",
        discussion: """
            Columns are import key paths: attributes, to-one relationships by the target's natural key, \
            many-to-many lists ("vip, wholesale"), and for a document its rows as rows.* columns, one line per row.
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: ArgumentHelp("The CSV file to write (default: standard output).", valueName: "file")) var file: String = "-"
    @Option(help: ArgumentHelp("Output encoding: utf-8 (default), windows-1251, koi8-r, utf-16, shift_jis, … (as import accepts).", valueName: "encoding"))
    var encoding: String?

    func run() throws {
        _ = try OutputTarget.resolve(file)   // refused before the store is opened (or migrated)
        let store = try openStore(readOnly: true)
        _ = try model.entity(entity)
        var outputEncoding = CSVEncoding.utf8
        if let encoding {
            outputEncoding = try ImportSettings.encoding(encoding, source: .commandLine)
            if outputEncoding == .auto {
                throw ImportOptionError("export writes a named encoding, not auto", source: .commandLine)
            }
        }
        // Through the one output module (CSVWriter → OutputFile): the store is refused, a file appears whole or
        // not at all, a device or pipe is written in place.
        try Exporter.export(store: store, entity: entity, to: file, encoding: outputEncoding) { Log.warning($0) }
    }
}
