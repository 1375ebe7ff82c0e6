// Reading a definition file: YAML (Yams' node tree, so every value keeps its line and column) into a
// `ReportDefinition`. This stage checks the shape — known keys, the right kind of value, parameter
// types and defaults, formats and chart kinds by name — and leaves key paths to `ReportBinder`,
// which checks them against the model.
//
// Values are read as the text written (never YAML's own typing: `title: 2026` is the text "2026",
// `default: no` the text "no", which a boolean parameter then reads as false).

import FileOutput
import Foundation
import ObjectStore
import ReportRenderers
import Yams

extension ReportDefinition {
    /// The keys a definition may have, in the order docs/reports.md documents them.
    package static let keys = ["title", "description", "entity", "where", "params", "sort", "group", "columns", "totals", "chart",
                              "negative", "period"]
    static let columnKeys = ["key", "title", "format", "width", "empty"]
    static let parameterKeys = ["type", "default", "title"]
    static let chartKeys = ["type", "title", "categories", "values"]
    static let periodKeys = ["from", "to"]

    /// Reads the definition at `path`; `file` names it in messages (default: the path).
    package static func load(path: String, file: String? = nil) throws -> ReportDefinition {
        let file = file ?? path
        // A report's output may not replace its own definition (`report x.yaml --output x.yaml`).
        ProtectedFiles.protect(path, as: "a report definition")
        let data = try DefinitionFile.read(path: path, file: file)
        guard let text = String(data: data, encoding: .utf8) else {
            throw DefinitionError("not UTF-8 text", file: file)
        }
        let base = (path as NSString).lastPathComponent
        let name = base.hasSuffix(".yaml") ? String(base.dropLast(5)) : base.hasSuffix(".yml") ? String(base.dropLast(4)) : base
        return try parse(text, name: name, file: file)
    }

    /// Reads definition text; `name` is the report's name, `file` names it in messages.
    package static func parse(_ text: String, name: String, file: String) throws(DefinitionError) -> ReportDefinition {
        var reader = DefinitionReader(source: YAMLSource(text: text, file: file))
        return try reader.definition(yaml: text, name: name)
    }
}

/// Walks the YAML node tree of one definition.
private struct DefinitionReader {
    let source: YAMLSource

    func error(_ message: String, _ node: Node) -> DefinitionError {
        DefinitionError(message, at: source.place(of: node))
    }

    mutating func definition(yaml: String, name: String) throws(DefinitionError) -> ReportDefinition {
        let root: Node?
        do {
            // The basic resolver: this reader takes every scalar as its text and resolves no tags, and Yams' default
            // resolver compiles its regular expressions (ICU's) on first use, 2 ms of every report (issue 27).
            root = try Yams.compose(yaml: yaml, .basic)
        } catch let error as YamlError {
            throw yamlError(error)
        } catch {
            throw DefinitionError("not valid YAML: \(error)", file: source.file)
        }
        guard let root else {
            throw DefinitionError("the file is empty; a report needs at least entity and columns", file: source.file)
        }
        let pairs = try mapping(root, what: "a report definition", keys: ReportDefinition.keys)

        var title: Placed<String>?
        var description: Placed<String>?
        var entity: Placed<String>?
        var predicate: SourceSnippet?
        var parameters: [ParameterDefinition] = []
        var sort: [SourceSnippet] = []
        var group: [SourceSnippet] = []
        var columns: [ColumnDefinition]?
        var totals: [Placed<String>] = []
        var chart: ChartDefinition?
        var negative: Placed<NegativeStyle>?
        var period: PeriodDefinition?
        for (key, value) in pairs {
            switch key.value {
            case "title": title = try text(value, key.value)
            case "description": description = try text(value, key.value)
            case "entity": entity = try text(value, key.value)
            case "where": predicate = try snippet(value, key.value, region: true)
            case "params": parameters = try self.parameters(value)
            case "sort": sort = try keyList(value, key.value)
            case "group": group = try keyList(value, key.value)
            case "columns": columns = try self.columns(value)
            case "totals": totals = try textList(value, key.value)
            case "chart": chart = try self.chart(value)
            case "negative":
                let text = try self.text(value, "negative")
                let names = NegativeStyle.allCases.map(\.rawValue)
                guard let style = NegativeStyle(rawValue: text.value) else {
                    throw DefinitionError("unknown negative style \"\(text.value)\"\(Suggestions.didYouMean(Suggestions.closest(to: text.value, in: names)))"
                                          + " (write \(names.joined(separator: ", ")))", at: text.place)
                }
                negative = Placed(style, at: text.place)
            case "period":
                var bounds = PeriodDefinition(from: nil, to: nil, place: source.place(of: value))
                for (name, item) in try mapping(value, what: "period", keys: ReportDefinition.periodKeys) {
                    let text = try self.text(item, name.value)
                    if name.value == "from" { bounds.from = text } else { bounds.to = text }
                }
                period = bounds
            default: break
            }
        }
        guard let entity else {
            throw DefinitionError("a report needs an entity to fetch (entity: Order)", at: source.place(of: root))
        }
        guard let columns else {
            throw DefinitionError("a report needs columns (columns: [{ key: KEYPATH, title: TITLE }, …])", at: source.place(of: root))
        }
        return ReportDefinition(name: name, file: source.file, title: title, description: description, entity: entity,
                                predicate: predicate, parameters: parameters, sort: sort, group: group, columns: columns,
                                totals: totals, chart: chart, period: period, negative: negative,
                                place: source.place(of: root))
    }

    // MARK: Shapes

    /// The pairs of a mapping whose keys must be among `keys` (with a did-you-mean), each at most once.
    func mapping(_ node: Node, what: String, keys: [String]?) throws(DefinitionError) -> [(key: Placed<String>, value: Node)] {
        guard case .mapping(let mapping) = node else {
            throw error("\(what) is a mapping of keys to values (key: value)\(kindFound(node))", node)
        }
        var pairs: [(key: Placed<String>, value: Node)] = []
        var seen: [String: SourcePlace] = [:]
        for (keyNode, value) in mapping {
            guard case .scalar(let scalar) = keyNode else { throw error("a key is plain text", keyNode) }
            let key = scalar.string
            let place = source.place(of: keyNode)
            if let keys, !keys.contains(key) {
                let suggestion = Suggestions.closest(to: key, in: keys)
                let expected = suggestion == nil ? " (\(what) takes \(keys.joined(separator: ", ")))" : ""
                throw DefinitionError("unknown key \"\(key)\" in \(what)\(Suggestions.didYouMean(suggestion))\(expected)", at: place)
            }
            if let first = seen[key] {
                throw DefinitionError("\"\(key)\" is given twice (first on line \(first.line))", at: place)
            }
            seen[key] = place
            pairs.append((Placed(key, at: place), value))
        }
        return pairs
    }

    func text(_ node: Node, _ key: String) throws(DefinitionError) -> Placed<String> {
        guard case .scalar(let scalar) = node else {
            throw error("\(key) takes one value\(kindFound(node))", node)
        }
        return Placed(scalar.string, at: source.place(of: node))
    }

    func snippet(_ node: Node, _ key: String, region: Bool) throws(DefinitionError) -> SourceSnippet {
        guard case .scalar(let scalar) = node else {
            throw error("\(key) takes one value\(kindFound(node))", node)
        }
        return source.snippet(of: scalar, region: region)
    }

    /// `sort: date, customer.name` or `sort: [date, customer.name desc]`.
    func keyList(_ node: Node, _ key: String) throws(DefinitionError) -> [SourceSnippet] {
        switch node {
        case .scalar(let scalar):
            return scalar.string.trimmingCharacters(in: .whitespaces).isEmpty ? [] : [source.snippet(of: scalar, region: false)]
        case .sequence(let sequence):
            var items: [SourceSnippet] = []
            for item in sequence { items.append(try snippet(item, "each item of \(key)", region: false)) }
            return items
        default:
            throw error("\(key) takes key paths separated by commas, or a list of them\(kindFound(node))", node)
        }
    }

    /// `totals: Total` or `totals: [Orders, Total]`.
    func textList(_ node: Node, _ key: String) throws(DefinitionError) -> [Placed<String>] {
        switch node {
        case .scalar:
            return [try text(node, key)]
        case .sequence(let sequence):
            var items: [Placed<String>] = []
            for item in sequence { items.append(try text(item, "each item of \(key)")) }
            return items
        default:
            throw error("\(key) takes a list of column titles\(kindFound(node))", node)
        }
    }

    func kindFound(_ node: Node) -> String {
        switch node {
        case .mapping: return ", not a mapping"
        case .sequence: return ", not a list"
        case .scalar: return ", not a single value"
        case .alias: return ", not an alias"
        }
    }

    // MARK: Parts

    func parameters(_ node: Node) throws(DefinitionError) -> [ParameterDefinition] {
        if case .scalar(let scalar) = node, scalar.string.isEmpty { return [] }
        var parameters: [ParameterDefinition] = []
        for (name, value) in try mapping(node, what: "params", keys: nil) {
            guard name.value.first.map({ $0.isLetter || $0 == "_" }) == true,
                  name.value.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }), name.value.allSatisfy(\.isASCII) else {
                throw DefinitionError("a parameter name is a word of letters, digits and _ (it is written $\(name.value) in where), not \"\(name.value)\"",
                                      at: name.place)
            }
            var type: Placed<String>?
            var defaultValue: Placed<String>?
            var title: Placed<String>?
            if case .scalar = value {
                type = try text(value, "type")                       // `until: date`
            } else {
                for (key, item) in try mapping(value, what: "a parameter", keys: ReportDefinition.parameterKeys) {
                    switch key.value {
                    case "type": type = try text(item, "type")
                    case "default": defaultValue = try text(item, "default")
                    case "title": title = try text(item, "title")
                    default: break
                    }
                }
            }
            guard let type else {
                throw error("parameter \"\(name.value)\" needs a type (\(ParameterType.allCases.map(\.rawValue).joined(separator: ", ")))", value)
            }
            guard let parameterType = ParameterType(rawValue: type.value.lowercased()) else {
                let names = ParameterType.allCases.map(\.rawValue)
                throw DefinitionError("unknown parameter type \"\(type.value)\"\(Suggestions.didYouMean(Suggestions.closest(to: type.value, in: names)))"
                                      + " (write \(names.joined(separator: ", ")))", at: type.place)
            }
            if let defaultValue, case .failure(let problem) = parameterType.value(defaultValue.value, today: Day(year: 2000, month: 1, day: 1)!) {
                throw DefinitionError("default of \(parameterType) parameter \"\(name.value)\": \(problem.message)", at: defaultValue.place)
            }
            parameters.append(ParameterDefinition(name: name, type: Placed(parameterType, at: type.place),
                                                  defaultValue: defaultValue, title: title))
        }
        return parameters
    }

    func columns(_ node: Node) throws(DefinitionError) -> [ColumnDefinition] {
        guard case .sequence(let sequence) = node, sequence.count > 0 else {
            throw error("columns takes a list of columns, at least one ({ key: KEYPATH, title: TITLE })\(case_(node))", node)
        }
        var columns: [ColumnDefinition] = []
        for item in sequence {
            if case .scalar(let scalar) = item {
                columns.append(ColumnDefinition(key: source.snippet(of: scalar, region: false), title: nil, format: nil,
                                                width: nil, empty: nil, place: source.place(of: item)))
                continue
            }
            var key: SourceSnippet?
            var title: Placed<String>?
            var format: Placed<String>?
            var width: Placed<Int>?
            var empty: Placed<String>?
            for (name, value) in try mapping(item, what: "a column", keys: ReportDefinition.columnKeys) {
                switch name.value {
                case "key": key = try snippet(value, "key", region: false)
                case "title": title = try text(value, "title")
                case "format":
                    let text = try self.text(value, "format")
                    let names = ColumnFormat.allCases.map(\.rawValue)
                    guard names.contains(text.value) || text.value.lowercased() == "datetime" else {
                        throw DefinitionError("unknown format \"\(text.value)\"\(Suggestions.didYouMean(Suggestions.closest(to: text.value, in: names)))"
                                              + " (write \(names.joined(separator: ", ")))", at: text.place)
                    }
                    format = text
                case "width":
                    let text = try self.text(value, "width")
                    guard let number = Int(text.value), (1...255).contains(number) else {
                        throw DefinitionError("width is a number of characters from 1 to 255, not \"\(text.value)\"", at: text.place)
                    }
                    width = Placed(number, at: text.place)
                case "empty": empty = try text(value, "empty")
                default: break
                }
            }
            guard let key, !key.text.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw error("a column needs a key: the key path, period or aggregate it shows ({ key: KEYPATH, title: TITLE })", item)
            }
            columns.append(ColumnDefinition(key: key, title: title, format: format, width: width, empty: empty,
                                            place: source.place(of: item)))
        }
        return columns
    }

    private func case_(_ node: Node) -> String {
        if case .sequence = node { return "" }
        return kindFound(node)
    }

    func chart(_ node: Node) throws(DefinitionError) -> ChartDefinition {
        var kind: Placed<String>?
        var title: Placed<String>?
        var categories: Placed<String>?
        var values: [Placed<String>] = []
        for (key, value) in try mapping(node, what: "chart", keys: ReportDefinition.chartKeys) {
            switch key.value {
            case "type":
                let text = try self.text(value, "type")
                let names = ChartSpec.Kind.allCases.map(\.rawValue)
                guard ChartSpec.Kind(rawValue: text.value) != nil else {
                    throw DefinitionError("unknown chart type \"\(text.value)\"\(Suggestions.didYouMean(Suggestions.closest(to: text.value, in: names)))"
                                          + " (write \(names.joined(separator: ", ")))", at: text.place)
                }
                kind = text
            case "title": title = try text(value, "title")
            case "categories": categories = try text(value, "categories")
            case "values": values = try textList(value, "values")
            default: break
            }
        }
        guard let categories else {
            throw error("a chart needs categories: the title of the column along its axis (categories: Month)", node)
        }
        guard !values.isEmpty else {
            throw error("a chart needs values: the titles of the columns it draws (values: [Total])", node)
        }
        return ChartDefinition(kind: kind ?? Placed("column", at: source.place(of: node)), title: title,
                               categories: categories, values: values, place: source.place(of: node))
    }

    // MARK: YAML errors

    func yamlError(_ error: YamlError) -> DefinitionError {
        if let located = error.located {
            let context = located.context.map { " (\($0))" } ?? ""
            return DefinitionError("not valid YAML: \(located.problem)\(context)", at: source.place(line: located.line, scalarColumn: located.scalarColumn))
        }
        switch error {
        case let .duplicatedKeysInMapping(duplicates, context):
            let key = duplicates.first ?? ""
            let places = source.places(ofKey: key, from: context.mark.line)
            if places.count >= 2 {
                return DefinitionError("\"\(key)\" is given twice (first on line \(places[0].line))", at: places[1])
            }
            return DefinitionError("\(duplicates.map { "\"\($0)\"" }.joined(separator: ", ")) given twice in one mapping",
                                   at: source.place(context.mark))
        default:
            // Yams' description of the rest may span lines; messages are one line each.
            return DefinitionError("not valid YAML: \(String(describing: error).split(whereSeparator: \.isNewline).joined(separator: " "))", file: source.file)
        }
    }
}
