import ArgumentParser
import FileOutput
import Foundation
import LocalTime
import ObjectStore
import Reports

struct ReportsCommand: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "reports",
        abstract: "List the reports: name, title, parameters with their defaults; check every definition.",
        discussion: """
            Definitions are read from each --reports DIR, then $BOOKKEEPER_REPORTS (directories separated by :), then \
            the shipped Reports/; the first file of a name wins. Each is checked against the model: a bad key path, \
            an unknown parameter or a wrong type is reported with its file, line and column (exit status 78).
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @OptionGroup var definitions: ReportDirectoryOptions
    @Option(help: "Output format.") var format: Format = .text

    func run() throws {
        let clock = try ReportClock.current(timeZone: try Zone.current())
        let library = definitions.library
        let entries = try library.entries()
        var failures = ReportFailures(total: entries.count)
        var listed: [(ReportLibrary.Entry, ReportDefinition?)] = []
        for entry in entries {
            do {
                let definition = try ReportDefinition.load(path: entry.path, file: entry.file)
                try PreparedReport.check(definition, model: model, clock: clock)
                listed.append((entry, definition))
            } catch {
                failures.record(error)
                listed.append((entry, nil))
            }
        }
        switch format {
        case .text: print(text(listed, today: clock.today), terminator: "")
        case .json: print(json(listed, today: clock.today))
        }
        try failures.finish()
    }

    /// One line per report (name, title), then one line per parameter:
    ///
    ///     unpaid-orders  Completed but unpaid orders
    ///                      --param until=DATE  default: today (2026-11-21)
    private func text(_ listed: [(ReportLibrary.Entry, ReportDefinition?)], today: Day) -> String {
        // Everything here comes from file names and definition files: written as every text output writes such text
        // (VisibleText), since an ESC and a line feed in a title reached the terminal and forged a `bookkeeper:` line.
        let visible = VisibleText.escaped
        guard !listed.isEmpty else {
            return "no reports (\(visible(definitions.library.searched)))\n"
        }
        let names = listed.map { visible($0.0.name) }
        let width = names.map(\.count).max()! + 2
        var out = ""
        for ((entry, definition), shownName) in zip(listed, names) {
            let name = shownName.padding(toLength: width, withPad: " ", startingAt: 0)
            guard let definition else {
                out += name + "(invalid definition: \(visible(entry.file)))\n"
                continue
            }
            out += name + visible(definition.displayTitle) + "\n"
            let options = definition.parameters.map { visible("--param \($0.name.value)=\($0.type.value.placeholder)") }
            let optionWidth = options.map(\.count).max() ?? 0
            for (parameter, option) in zip(definition.parameters, options) {
                out += String(repeating: " ", count: width + 2) + option.padding(toLength: optionWidth + 2, withPad: " ", startingAt: 0)
                    + visible(defaultText(parameter, today: today)) + "\n"
            }
        }
        return out
    }

    private func defaultText(_ parameter: ParameterDefinition, today: Day) -> String {
        guard let text = parameter.defaultValue?.value else { return "required" }
        let resolved = parameter.resolvedDefault(today: today)
        return resolved.map { $0 == text ? "default: \(text)" : "default: \(text) (\($0))" } ?? "default: \(text)"
    }

    private func json(_ listed: [(ReportLibrary.Entry, ReportDefinition?)], today: Day) -> String {
        func quoted(_ s: String?) -> String { s.map(JSONText.string) ?? "null" }
        var items: [String] = []
        for (entry, definition) in listed {
            var fields = ["\"name\": \(quoted(entry.name))", "\"file\": \(quoted(entry.file))", "\"valid\": \(definition != nil)"]
            if let definition {
                fields.append("\"title\": \(quoted(definition.displayTitle))")
                fields.append("\"description\": \(quoted(definition.description?.value))")
                let parameters = definition.parameters.map { p in
                    "{\"name\": \(quoted(p.name.value)), \"type\": \(quoted(p.type.value.rawValue)), "
                        + "\"default\": \(quoted(p.defaultValue?.value)), \"value\": \(quoted(p.resolvedDefault(today: today)))}"
                }
                fields.append("\"parameters\": [\(parameters.joined(separator: ", "))]")
            }
            items.append("  {" + fields.joined(separator: ", ") + "}")
        }
        return items.isEmpty ? "[]" : "[\n" + items.joined(separator: ",\n") + "\n]"
    }
}

extension ReportsCommand: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        definitions.directories += values["--reports"] ?? []
    }
}
