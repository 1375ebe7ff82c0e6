// A definition bound to a model and to the values of one run: the fetch plan to execute and the
// document the renderers need (titles, formats, totals, chart, parameters, sort in words).
//
// Binding is where a definition is checked against the model. Everything that can be wrong in the
// file is found here, before a row is read, and reported at its line and column:
// - the entity, each key path (predicate, sort, group, columns) — by ObjectStore's binder, which
//   points into the file because every term is given its origin;
// - `$NAME` variables: declared, and compared with values of their type (ReportParameters.swift);
// - formats the values cannot have, duplicate titles, totals over text, chart columns.

import Foundation
import ObjectStore
import ReportRenderers

package struct PreparedReport: Sendable {
    package let definition: ReportDefinition
    package let plan: FetchPlan
    package let document: ReportDocument
    package let parameters: [(name: String, value: ParameterValue)]
    /// How each column's stored values become cells.
    let decoders: [CellDecoder]
    /// How the missing periods of a period report are filled; nil for other reports.
    let periodFill: PeriodFill?

    /// Binds `definition` against `model` with the parameter values from `arguments` (else the
    /// defaults). With `rejectUnknown`, a `--param` the report does not declare is an error.
    /// Throws `DefinitionError` (the file is wrong) or `ReportUsageError` (the arguments are).
    package init(_ definition: ReportDefinition, model: ObjectModel, arguments: ParameterArguments = ParameterArguments(),
                clock: ReportClock, rejectUnknown: Bool = true) throws {
        let values = try definition.parameterValues(arguments, today: clock.today, rejectUnknown: rejectUnknown)
        try self.init(definition, model: model, values: values, given: arguments.values, clock: clock)
    }

    /// Checks a definition without running it: parameters take their defaults, or a stand-in value.
    package static func check(_ definition: ReportDefinition, model: ObjectModel, clock: ReportClock) throws {
        _ = try PreparedReport(definition, model: model, values: try definition.sampleParameterValues(today: clock.today),
                               given: [:], clock: clock)
    }

    /// `given`: the values given with `--param`, by name; a value the predicate cannot take is the user's mistake
    /// there (64), where a default's is the definition's (78).
    private init(_ definition: ReportDefinition, model: ObjectModel, values: [(ParameterDefinition, ParameterValue)],
                 given: [String: String], clock: ReportClock) throws {
        self.definition = definition
        let file = definition.file
        func origin(_ place: SourcePlace) -> PredicateSourceOrigin {
            PredicateSourceOrigin(name: file, line: place.line, column: place.column)
        }
        // A quoted value with escapes counts from its own start, and its map finds the file's place.
        func origin(_ snippet: SourceSnippet) -> PredicateSourceOrigin {
            guard let map = snippet.map else { return origin(snippet.place) }
            return PredicateSourceOrigin(name: file, map: map)
        }

        // Where the default of parameter `name` is written, when the run takes it (no --param gave the value).
        func defaultPlace(of name: String) -> SourcePlace? {
            guard given[name] == nil else { return nil }
            return definition.parameters.first { $0.name.value == name }?.defaultValue?.place
        }

        // Entity.
        let entity: Entity
        do {
            entity = try model.entity(definition.entity.value)
        } catch {
            throw DefinitionError("\(error)", at: definition.entity.place)
        }

        // Parameters become the predicate's variables; $TODAY follows the clock.
        var variables: [String: String] = [:]
        for (parameter, value) in values { variables[parameter.name.value] = value.variableText }
        if !definition.parameters.contains(where: { $0.name.value.uppercased() == "TODAY" }) {
            variables["TODAY"] = clock.today.description
        }
        let parameters = values.map { (name: $0.0.displayName, value: $0.1) }

        // The fetch plan: every term with its place in the file.
        let plan: FetchPlan
        do {
            if let predicate = definition.predicate, !predicate.text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                let syntax = try PredicateSyntax(parsing: predicate.text, origin: origin(predicate))
                try VariableCheck(definition: definition, model: model, entity: entity, syntax: syntax).run()
            }
            var sortKeys: [SortKey] = []
            for snippet in definition.sort {
                sortKeys += try SortKey.parseList(snippet.text, origin: origin(snippet))
            }
            let request = ObjectFetchRequest(entity: entity.name, predicate: definition.predicate?.text, sortDescriptors: sortKeys,
                                       variables: variables,
                                       predicateOrigin: definition.predicate.map { origin($0) } ?? PredicateSourceOrigin(name: file))
            let groupTerms = definition.group.flatMap { FetchTerm.list($0.text, origin: origin($0)) }
            let columnTerms = definition.columns.map { FetchTerm($0.key.text, origin: origin($0.key)) }
            for term in groupTerms + columnTerms + sortKeys.map({ FetchTerm($0.keyPath, origin: $0.origin ?? origin(definition.place)) }) {
                try PreparedReport.checkShape(of: term)
            }
            plan = try FetchPlan(request, model: model, columns: columnTerms, groupBy: groupTerms)
        } catch let error as DefinitionError {
            throw error
        } catch let error as PredicateBindingError where error.variable.map({ given[$0] != nil }) ?? false {
            // `customer == $c` with `--param c=customer/2`: the definition is right, the value given is not (it was
            // reported at the definition's `$c`, status 78).
            let name = error.variable!
            throw ReportUsageError("--param \(name): \(error.message)\(error.hint.map { "; \($0)" } ?? "")")
        } catch let error as PredicateBindingError where error.variable.flatMap({ defaultPlace(of: $0) }) != nil {
            // The same with the parameter's default (`c: { type: string, default: customer/2 }`): the default is wrong,
            // so it is placed there, not at the `$c` that uses it (found by the attack on 0.7.0).
            throw DefinitionError("\(error.message)\(error.hint.map { "; \($0)" } ?? "")", at: defaultPlace(of: error.variable!)!)
        } catch let error as PredicateBindingError {
            // The binder's errors already name the file, line and column; a variable without a value is given
            // with --param.
            guard case .unknownVariable(let name)? = error.fact else { throw DefinitionError(placed: error.description) }
            throw DefinitionError(placed: error.worded(hint: "give it with --param \(name)=VALUE").description)
        } catch let error as CategorizedError where !(error is ReportUsageError) {
            // The binder's, parser's and sort errors already name the file, line and column.
            throw DefinitionError(placed: error.description)
        }

        // Columns: titles, formats, widths.
        var columns: [ReportColumn] = []
        var decoders: [CellDecoder] = []
        var titles: [String: SourcePlace] = [:]
        for (definitionColumn, fetchColumn) in zip(definition.columns, plan.columns) {
            let title = definitionColumn.displayTitle
            if let first = titles[title] {
                throw DefinitionError("two columns are titled \"\(title)\" (the other on line \(first.line)); titles name "
                                      + "columns in totals and chart, and head the columns of every output",
                                      at: definitionColumn.title?.place ?? definitionColumn.place)
            }
            titles[title] = definitionColumn.title?.place ?? definitionColumn.place
            var isYear = false
            if case .period(let unit, _) = fetchColumn.expression, unit == .year { isYear = true }
            let format: ColumnFormat
            // A to-many column's format is its items' (`format: money` on `rows.sum`), each shown as that format shows one.
            let valueType = fetchColumn.listItemType ?? fetchColumn.type
            if let named = definitionColumn.format {
                guard let chosen = ColumnFormats.format(named: named.value) else {
                    throw DefinitionError("unknown format \"\(named.value)\"", at: named.place)
                }
                guard ColumnFormats.fits(chosen, valueType) else {
                    throw DefinitionError("format \(chosen.rawValue) needs \(ColumnFormats.needs(chosen)), but "
                                          + "\"\(fetchColumn.keyPath)\" is \(valueType)", at: named.place)
                }
                format = chosen
            } else {
                format = ColumnFormats.defaultFormat(for: valueType, isYear: isYear)
            }
            let isGroupKey = plan.groupKeys.contains(fetchColumn.expression)
            let emptyLabel = definitionColumn.empty?.value ?? (isGroupKey ? PreparedReport.emptyLabel(keyPath: fetchColumn.keyPath) : nil)
            var column = ReportColumn(title: title, format: format, width: definitionColumn.width?.value, emptyLabel: emptyLabel)
            if case .period(let unit, _) = fetchColumn.expression { column.period = ReportPeriodUnit(rawValue: unit.rawValue) }
            columns.append(column)
            decoders.append(PreparedReport.decoder(fetchColumn, format: format))
        }

        // Totals and chart name columns by title (or by key path).
        func columnIndex(_ name: Placed<String>, for use: String) throws -> Int {
            if let i = columns.firstIndex(where: { $0.title == name.value }) { return i }
            if let i = plan.columns.firstIndex(where: { $0.keyPath == name.value }) { return i }
            let suggestion = Suggestions.closest(to: name.value, in: columns.map(\.title))
            throw DefinitionError("\(use) names no column \"\(name.value)\"\(Suggestions.didYouMean(suggestion)) (the columns are "
                                  + columns.map { "\"\($0.title)\"" }.joined(separator: ", ") + ")", at: name.place)
        }
        // A to-many column (`rows.sum`) has its items' format, but many numbers in a cell: no total, no bar.
        func listed(_ i: Int, _ use: String, _ place: SourcePlace) throws {
            guard plan.columns[i].listItemType != nil else { return }
            let path = plan.columns[i].keyPath
            let aggregate = path.split(separator: ".").dropLast().joined(separator: ".") + ".@sum." + (path.split(separator: ".").last ?? "")
            throw DefinitionError("\(use): \"\(columns[i].title)\" lists the values of the to-many path \(path), many numbers in one "
                                  + "cell — use an aggregate such as \(aggregate)", at: place)
        }
        for total in definition.totals {
            let i = try columnIndex(total, for: "totals")
            try listed(i, "totals", total.place)
            guard ColumnFormats.isNumeric(columns[i].format) else {
                throw DefinitionError("totals: \"\(columns[i].title)\" is a \(columns[i].format.rawValue) column; only numbers add up",
                                      at: total.place)
            }
            columns[i].total = true
        }
        var chart: ChartSpec?
        if let spec = definition.chart {
            let categories = try columnIndex(spec.categories, for: "chart categories")
            var valueColumns: [Int] = []
            for value in spec.values {
                let i = try columnIndex(value, for: "chart values")
                try listed(i, "chart values", value.place)
                guard ColumnFormats.isNumeric(columns[i].format) else {
                    throw DefinitionError("chart values: \"\(columns[i].title)\" is a \(columns[i].format.rawValue) column; a chart "
                                          + "draws numbers", at: value.place)
                }
                valueColumns.append(i)
            }
            chart = ChartSpec(kind: ChartSpec.Kind(rawValue: spec.kind.value) ?? .column, title: spec.title?.value,
                              categoriesColumn: categories, valueColumns: valueColumns)
        }

        self.plan = plan
        self.parameters = parameters
        self.decoders = decoders
        periodFill = try PeriodFill.make(definition: definition, plan: plan, decoders: decoders, values: values)
        document = ReportDocument(
            name: definition.name, title: definition.displayTitle, description: definition.description?.value,
            parameters: parameters.map { ($0.name, $0.value.description) },
            sortDescription: PreparedReport.sortDescription(plan: plan, titles: columns.map(\.title)),
            generatedAt: clock.now, timeZone: clock.timeZone, columns: columns, chart: chart,
            negative: definition.negative?.value ?? .minus)
    }

    /// The label of an empty group key, named after what is missing: `(no customer)` for `customer.name` (the
    /// relationship), `(no service)` for `order.service.name`, `(no date)` for `month(date)`, `(no name)` for `name`.
    static func emptyLabel(keyPath: String) -> String {
        var path = Substring(keyPath.trimmingCharacters(in: .whitespaces))
        if let open = path.firstIndex(of: "("), path.hasSuffix(")") {
            path = path[path.index(after: open)..<path.index(before: path.endIndex)]
        }
        let parts = path.split(separator: ".").map { $0.trimmingCharacters(in: .whitespaces) }
        let named = parts.count >= 2 ? parts[parts.count - 2] : parts.last ?? keyPath
        return "(no \(named))"
    }

    /// A period or aggregate spelt wrong (`mnth(date)`, `smu:rows.sum`) gets a did-you-mean here; the
    /// binder would read it as a malformed key path.
    static func checkShape(of term: FetchTerm) throws {
        let text = term.text
        let (line, column) = term.origin.place(line: term.origin.line, column: term.origin.column)
        let place = SourcePlace(file: term.origin.name, line: line, column: column)
        let word = String(text.drop { $0 == "@" }.prefix { $0.isLetter || $0 == "_" })
        guard !word.isEmpty else { return }
        let rest = text.drop { $0 == "@" }.dropFirst(word.count).drop { $0 == " " }
        let periods = ReportPeriodUnit.allCases.map(\.rawValue)
        if rest.hasPrefix("("), !periods.contains(word.lowercased()) {
            let suggestion = Suggestions.closest(to: word, in: periods)
            throw DefinitionError("unknown period \"\(word)(…)\"\(Suggestions.didYouMean(suggestion)) (the periods are month(KEYPATH), "
                                  + "quarter(KEYPATH), week(KEYPATH) and year(KEYPATH))", at: place)
        }
        if rest.hasPrefix(":"), !["count", "sum", "avg", "min", "max"].contains(word.lowercased()) {
            let suggestion = Suggestions.closest(to: word, in: ["count", "sum", "avg", "min", "max"])
            throw DefinitionError("unknown aggregate \"\(word):\"\(Suggestions.didYouMean(suggestion)) (the aggregates are count, "
                                  + "sum:KEYPATH, avg:, min: and max:)", at: place)
        }
    }

    /// The sort in words, by column titles where a column shows the key: `Date, Customer`,
    /// `Total (descending)`.
    static func sortDescription(plan: FetchPlan, titles: [String]) -> String? {
        let keys = plan.request.sortDescriptors
        guard !keys.isEmpty else { return nil }
        return keys.map { key in
            let title = plan.columns.firstIndex { $0.keyPath == key.keyPath }.map { titles[$0] } ?? key.keyPath
            return key.ascending ? title : "\(title) (descending)"
        }.joined(separator: ", ")
    }

    /// The SQL and its arguments, as `--explain` shows them.
    package var explanation: String {
        let (sql, arguments) = plan.sql(.columns, dialect: Store.fileDialect)
        var lines = [sql]
        for (i, argument) in arguments.enumerated() { lines.append("  ?\(i + 1) = \(argument)") }
        return lines.joined(separator: "\n")
    }
}

extension PreparedReport {
    /// How a column's stored values become cells: as stored, except that an average is shown at the scale of
    /// what it averages (two decimals for integers; two more for a percentage, so 12.34% keeps its decimals) and
    /// `format: integer` shows a decimal or a double (an average, or a double attribute) as a whole number, each
    /// rounded half away from zero: every value of the column, as the format says (a double attribute's were shown
    /// as stored, found by the attack on 0.7.0). A to-many column's items are each shown as a column of one of them
    /// would be (`format: integer` rounds decimal and double items).
    static func decoder(_ column: FetchColumn, format: ColumnFormat) -> CellDecoder {
        if let item = column.listItemType {
            switch (format, item) {
            case (.integer, .decimal), (.integer, .double): return .list(item: item, shown: 0)
            default: return .list(item: item, shown: nil)
            }
        }
        if format == .integer {
            switch column.type {
            case .decimal(let scale): return .roundedDecimal(scale: scale, shown: 0)
            case .double: return .roundedDouble(shown: 0)
            default: break
            }
        }
        if column.type == .double, let averaged = column.averagedType {
            let scale: Int
            switch averaged {
            case .decimal(let s): scale = s
            case .integer: scale = 2
            default: return CellDecoder(column.type)
            }
            return .roundedDouble(shown: format == .percent ? scale + 2 : scale)
        }
        return CellDecoder(column.type)
    }
}
