import ArgumentParser
import FileOutput
import Foundation
import LocalTime
import ObjectStore
import ReportRenderers
import Reports

struct ReportCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "report",
        abstract: "Run a report (or every report) to text, CSV, JSON or XLSX.",
        discussion: """
            A report is a YAML definition (`bookkeeper reports` lists them and where they are; docs/reports.md): \
            an entity, a predicate with typed parameters, sort and group keys, and columns with formats and totals.
            Text goes to standard output unless --output is given; files are written whole or not at all. \
            --all runs every report: text to standard output, or each to --output-dir DIR as NAME.EXT, or with \
            --format xlsx --output FILE.xlsx into one workbook with a sheet per report.
            Dates for parameters: YYYY-MM-DD, today, yesterday, start of month, end of last month, start of year, \
            start of month - 11 months, today - 30 days, … ($BOOKKEEPER_TODAY fixes today, for tests and reruns).
            Examples:
              bookkeeper report unpaid-orders
              bookkeeper report sales-by-month --param from=2026-01-01
              bookkeeper report sales-by-month --format xlsx --output sales.xlsx
              bookkeeper report --all --format xlsx --output-dir out/reports
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The report's name (see `bookkeeper reports`), or the path of a definition file.")
    var name: String?
    @Flag(help: "Run every report.") var all = false
    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter's value (see `bookkeeper reports`).", valueName: "name=value"))
    var parameters: [String] = []
    @Option(help: "Output format.") var format: ReportFormat = .text
    @Option(help: ArgumentHelp("The file to write (- for standard output).", valueName: "file"))
    var output: String?
    @Option(name: .customLong("output-dir"), help: ArgumentHelp("Write each report to DIR/NAME.EXT (created if missing).", valueName: "dir"))
    var outputDirectory: String?
    @Option(name: .customLong("csv-dialect"),
            help: "standard (formula-like text gets a leading '), raw (text exactly, for pipelines), or for Excel: excel (byte-order mark, CRLF), excel-eu (also ; and decimal commas).")
    var csvDialect: CSVRenderer.Dialect = .standard
    @OptionGroup var definitions: ReportDirectoryOptions
    @Flag(help: "Print each report's SQL and its arguments instead of running it.") var explain = false

    func validate() throws {
        if all && name != nil { throw ValidationError("give a report name or --all, not both") }
        if !all && name == nil { throw ValidationError("name a report (see `bookkeeper reports`), or give --all") }
        if output != nil && outputDirectory != nil { throw ValidationError("give --output or --output-dir, not both") }
        // `-` is standard output everywhere else; as a folder it made one named `-` (found by the attack on 0.6.0).
        if outputDirectory == "-" { throw ValidationError("--output-dir takes a folder, and - is standard output (give --output - for one report)") }
        if csvDialect != .standard && format != .csv { throw ValidationError("--csv-dialect applies to --format csv") }
        guard !explain else { return }
        if all, output != nil, format != .xlsx {
            throw ValidationError("--all --output FILE writes one workbook: it needs --format xlsx (for other formats, --output-dir DIR)")
        }
        if all, output == nil, outputDirectory == nil, format != .text {
            throw ValidationError("--all --format \(format.rawValue) writes one file per report: give --output-dir DIR")
        }
        if format == .xlsx, output == nil || output == "-", outputDirectory == nil, isatty(STDOUT_FILENO) != 0 {
            throw ValidationError("XLSX is a binary file: give --output FILE.xlsx (or --output-dir DIR)")
        }
    }

    func run() throws {
        let clock = try ReportClock.current(timeZone: try Zone.current())
        let arguments = try ParameterArguments(parsing: parameters)
        let library = definitions.library

        guard all else {
            let definition = try definitions.definition(name!, in: library)
            let report = try PreparedReport(definition, model: model, arguments: arguments, clock: clock)
            if explain {
                // As it would run on the store, when there is one: its ranges are judged against it (issue 27).
                let store = try? openStore(readOnly: true)
                print(store.map { $0.explain(report.plan, .columns) } ?? report.explanation)
                return
            }
            let output = try destination(for: definition.name)   // refused before the store is opened
            let store = try openContext(readOnly: true).store
            let count = try report.render(from: store, with: renderer, to: output)
            wrote(output, count)
            return
        }

        // Every report. A --param must belong to at least one of them.
        let entries = try library.entries()
        guard !entries.isEmpty else {
            throw ReportInputError("no report definitions found (\(library.searched))")
        }
        var failures = ReportFailures(total: entries.count)
        var prepared: [PreparedReport] = []
        var declared: Set<String> = []
        var definitionsRead: [ReportDefinition] = []
        for entry in entries {
            do {
                let definition = try ReportDefinition.load(path: entry.path, file: entry.file)
                declared.formUnion(definition.parameters.map(\.name.value))
                definitionsRead.append(definition)
            } catch {
                failures.record(error)
            }
        }
        for name in arguments.names where !declared.contains(name) {
            let suggestion = Suggestions.closest(to: name, in: Array(declared))
            throw ReportUsageError("--param \(name): no report has a parameter \"\(name)\"\(Suggestions.didYouMean(suggestion))")
        }
        for definition in definitionsRead {
            do {
                prepared.append(try PreparedReport(definition, model: model, arguments: arguments, clock: clock, rejectUnknown: false))
            } catch {
                failures.record(error)
            }
        }
        if explain {
            let store = try? openStore(readOnly: true)
            for report in prepared {
                print("-- \(report.definition.name)\n\(store.map { $0.explain(report.plan, .columns) } ?? report.explanation)")
            }
            try failures.finish()
            return
        }
        if format == .xlsx, let output, output != "-" { _ = try checked(.file(path: output)) }
        let store = try openContext(readOnly: true).store

        if format == .xlsx, let output, output != "-" {
            // One workbook: nothing is written unless every report is sound.
            try failures.finish()
            let workbook = try XLSXWorkbook(output: checked(.file(path: output)), title: "Bookkeeper reports")
            for report in prepared { try report.add(to: workbook, from: store) }
            try workbook.close()
            confirm("wrote \(output) (\(prepared.count) reports)")
            return
        }
        // Once, before any report runs: a folder that cannot be made fails every report for the same reason.
        if let outputDirectory { try createOutputDirectory(outputDirectory) }
        for (i, report) in prepared.enumerated() {
            do {
                if outputDirectory == nil && i > 0 {
                    // Between reports on standard output, written as the renderers write it (write(2), in order).
                    let code = Array("\n".utf8).withUnsafeBytes { writeAll(STDOUT_FILENO, $0) }
                    if code != 0 { throw StandardOutputError(errno: code) }
                }
                let output = try destination(for: report.definition.name)
                wrote(output, try report.render(from: store, with: renderer, to: output))
            } catch {
                // Standard output that cannot be written fails every report after this one the same way: said once
                // (six identical lines before: found by the attack on 0.6.0).
                if outputDirectory == nil, Self.isStandardOutputFailure(error) { throw error }
                failures.record(error)
            }
        }
        try failures.finish()
    }

    static func isStandardOutputFailure(_ error: Error) -> Bool {
        if error is StandardOutputError { return true }
        if let e = error as? ReportRenderError, e.file == "-", e.errno != nil { return true }
        if let e = error as? FileOutputError, e.path == "-", e.kind == .io { return true }
        return false
    }

    /// `wrote out/reports/x.xlsx (8 rows)` on stdout for a file (left out with --quiet); nothing for stdout.
    func wrote(_ output: ReportOutput, _ rows: Int) {
        if case .file(let path) = output { confirm("wrote \(path) (\(rows == 1 ? "1 row" : "\(rows) rows"))") }
    }

    var renderer: any ReportRenderer {
        let useColor = format == .text && output == nil && outputDirectory == nil && isatty(STDOUT_FILENO) != 0
            && (ProcessInfo.processInfo.environment["NO_COLOR"] ?? "").isEmpty   // no-color.org: set and not empty
        return format.renderer(csvDialect: csvDialect, useColor: useColor)
    }

    /// `output`, once the output module has resolved it: the store, the model file, a folder or a broken link is
    /// refused (73) before the report runs its query.
    func checked(_ output: ReportOutput) throws -> ReportOutput {
        _ = try OutputTarget.resolve(output.description)
        return output
    }

    /// Standard output, --output, or DIR/NAME.EXT under --output-dir (creating DIR).
    func destination(for reportName: String) throws -> ReportOutput {
        if let outputDirectory {
            try createOutputDirectory(outputDirectory)
            return try checked(.file(path: (outputDirectory as NSString).appendingPathComponent("\(reportName).\(format.fileExtension)")))
        }
        return try checked(output.map(ReportOutput.init(path:)) ?? .standardOutput)
    }
}

extension ReportCommand {
    /// `--output-dir`, made with its parents if missing; an error says why it cannot be.
    func createOutputDirectory(_ path: String) throws {
        guard !path.isEmpty else { throw ReportInputError("--output-dir: the path is empty", category: .usage) }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
            if isDirectory.boolValue { return }
            throw ReportInputError("\(path): cannot create the directory (a file of that name is there)", category: .cannotCreateOutput)
        }
        // As `mkdir -p`, with mkdir(2) itself, so that the reason is the system's own words.
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += (prefix.isEmpty || prefix.hasSuffix("/") ? "" : "/") + component
            if mkdir(prefix, 0o777) == 0 { continue }
            let code = errno
            var isDirectory: ObjCBool = false
            if code == EEXIST, FileManager.default.fileExists(atPath: prefix, isDirectory: &isDirectory), isDirectory.boolValue { continue }
            let reason = code == EEXIST || code == ENOTDIR ? "\(prefix) is not a directory" : String(cString: strerror(code))
            throw ReportInputError("\(path): cannot create the directory (\(reason))", category: .cannotCreateOutput)
        }
    }
}

extension ReportCommand: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        parameters += values["--param"] ?? []
        definitions.directories += values["--reports"] ?? []
    }
}

/// `--reports DIR`, shared by `reports` and `report`.
struct ReportDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("reports"),
            help: ArgumentHelp("Also read definitions from this directory, before $BOOKKEEPER_REPORTS and the shipped Reports/ (repeatable).",
                               valueName: "dir"))
    var directories: [String] = []

    var library: ReportLibrary { ReportLibrary.standard(extra: directories) }

    /// Whether a report's name is the path of a definition file rather than a name to look up.
    static func isPath(_ name: String) -> Bool {
        name.contains("/") || name.hasSuffix(".yaml") || name.hasSuffix(".yml")
    }

    /// A report by name, or a definition file given by path (`Reports/x.yaml`, `./mine.yaml`).
    func definition(_ name: String, in library: ReportLibrary) throws -> ReportDefinition {
        if Self.isPath(name) {
            return try ReportDefinition.load(path: name)
        }
        return try library.definition(named: name)
    }
}

/// The failures of an `--all` run: each is printed when it happens, and the run goes on with the
/// other reports; at the end the run fails with the first failure's exit status.
struct ReportFailures {
    let total: Int
    private(set) var first: ErrorCategory?
    private(set) var count = 0

    init(total: Int) { self.total = total }

    mutating func record(_ error: Error) {
        count += 1
        if let error = error as? CategorizedError {
            for message in EngineWording.messages(for: error) { Log.error(message) }
            first = first ?? error.category
        } else {
            Log.error("\(error)")
            first = first ?? .failure
        }
    }

    func finish() throws {
        guard let first else { return }
        throw ReportsFailed(failed: count, total: total, category: first)
    }
}

struct ReportsFailed: CategorizedError {
    let failed: Int
    let total: Int
    let category: ErrorCategory
    var description: String { "\(failed) of \(total) reports failed" }
}

extension ReportFormat: ExpressibleByArgument {}
extension CSVRenderer.Dialect: ExpressibleByArgument {}
