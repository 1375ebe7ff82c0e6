// YAML profiles: every import option saved in a file, so a nightly job runs against a declared mapping
// rather than guesses. Keys are the long option names without `--`; `map` is a mapping of CSV column to
// key path; `null` and `columns` take a list. Values are read as written (a scalar's text, never YAML's
// own typing, so `null: NULL` means the text NULL), and a mistake is reported with its line and column.
//
//     entity: Order
//     delimiter: ";"
//     decimal-comma: yes
//     date-format: "%d.%m.%Y"
//     null: [NULL, "-"]
//     map:
//       Kunde: customer.code
//       Artikel: rows.service.code

import Foundation
import ObjectStore
import Yams

package enum ImportProfile {
    /// Every key a profile may have.
    package static let keys = ["entity", "key", "map", "ignore-unknown", "create-missing", "delimiter", "encoding",
                              "date-format", "decimal-comma", "decimal-point", "null", "list-separator", "on-error", "on-conflict", "accept-rejects", "rejects",
                              "dry-run", "quiet", "summary", "columns"]

    /// Reads the profile at `path`: a missing file is missing input (66), a bad one a bad configuration (78).
    package static func load(path: String) throws -> ImportOptions {
        guard FileManager.default.fileExists(atPath: path) else {
            throw ImportInputError(message: "\(path): no such profile", category: .missingInput)
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportInputError(message: "\(path): cannot read the profile", category: .io)
        }
        return try parse(String(decoding: data, as: UTF8.self), file: path)
    }

    /// Parses profile text; `file` names it in messages.
    package static func parse(_ text: String, file: String) throws(ImportOptionError) -> ImportOptions {
        func fail(_ message: String, _ mark: Mark?) -> ImportOptionError {
            let place = mark.map { "\(file):\($0.line):\($0.column)" } ?? file
            return ImportOptionError(message: "\(place): \(message)", category: .configuration)
        }
        let root: Node?
        do {
            root = try Yams.compose(yaml: text)
        } catch let error as YamlError {
            throw fail("not valid YAML: \(yamlProblem(error))", nil)
        } catch {
            throw fail("not valid YAML: \(error)", nil)
        }
        guard let root else { return ImportOptions() }
        guard let mapping = root.mapping else { throw fail("a profile is a mapping of option names to values", root.mark) }

        var options = ImportOptions()
        var markKey: String?
        for (keyNode, value) in mapping {
            guard let key = keyNode.scalar?.string else { throw fail("option names are plain text", keyNode.mark) }
            func scalar() throws(ImportOptionError) -> String {
                guard let s = value.scalar?.string else { throw fail("\(key) takes one value", value.mark) }
                return s
            }
            func boolean() throws(ImportOptionError) -> Bool {
                let s = try scalar()
                switch s.lowercased() {
                case "yes", "y", "true", "on", "1": return true
                case "no", "n", "false", "off", "0": return false
                default: throw fail("\(key) is yes or no, not \"\(s)\"", value.mark)
                }
            }
            func list() throws(ImportOptionError) -> [String] {
                if let s = value.scalar?.string { return [s] }
                guard let seq = value.sequence else { throw fail("\(key) takes a list", value.mark) }
                var items: [String] = []
                for item in seq {
                    guard let s = item.scalar?.string else { throw fail("\(key) takes a list of plain values", item.mark) }
                    items.append(s)
                }
                return items
            }
            switch key {
            case "entity": options.entity = try scalar()
            case "key": options.key = try scalar()
            case "map":
                guard let m = value.mapping else {
                    throw fail("map is a mapping of CSV column to key path (\"Customer No: customer.code\")", value.mark)
                }
                for (c, k) in m {
                    guard let column = c.scalar?.string, let keyPath = k.scalar?.string else {
                        throw fail("map entries are \"CSV column: key path\"", c.mark)
                    }
                    options.addMap(column: column, keyPath: keyPath)
                }
            case "ignore-unknown": options.ignoreUnknown = try boolean()
            case "create-missing": options.createMissing = try boolean()
            case "delimiter": options.delimiter = try scalar()
            case "encoding": options.encoding = try scalar()
            case "date-format": options.dateFormat = try scalar()
            case "decimal-comma", "decimal-point":
                // One says what the other does: both is a contradiction or a repetition, never "the last wins".
                if let other = markKey { throw fail("\(key) and \(other) both say which decimal mark numbers use: keep one", value.mark) }
                markKey = key
                let yes = try boolean()
                options.decimalComma = key == "decimal-comma" ? yes : !yes
            case "null": options.nullTokens = try list()
            case "list-separator": options.listSeparator = try scalar()
            case "on-error":
                let s = try scalar()
                guard let v = OnError(rawValue: s) else { throw fail("on-error is abort or skip, not \"\(s)\"", value.mark) }
                options.onError = v
            case "on-conflict":
                let s = try scalar()
                guard let v = RepeatPolicy(rawValue: s) else { throw fail("on-conflict is error, first or last, not \"\(s)\"", value.mark) }
                options.onConflict = v
            case "accept-rejects": options.acceptRejects = try scalar()
            case "rejects": options.rejects = try scalar()
            case "dry-run": options.dryRun = try boolean()
            case "quiet": options.quiet = try boolean()
            case "summary":
                let s = try scalar()
                guard let v = SummaryFormat(rawValue: s) else { throw fail("summary is text or json, not \"\(s)\"", value.mark) }
                options.summary = v
            case "columns": options.columns = try list()
            default:
                throw fail("unknown option \"\(key)\"\(Suggestions.didYouMean(Suggestions.closest(to: key, in: keys)))", keyNode.mark)
            }
        }
        return options
    }

    private static func yamlProblem(_ error: YamlError) -> String {
        if let located = error.located {
            return "\(located.problem) at line \(located.line), column \(located.scalarColumn)"
        }
        return "\(error)".split(separator: "\n").first.map(String.init) ?? "\(error)"
    }
}
