// Parameters of one run: each declared parameter's value from `--param NAME=VALUE`, else from its
// default, read as its type; and the check that the predicate uses only declared parameters, each
// compared with something of its type.

import Foundation
import ObjectStore

/// `--param NAME=VALUE` arguments, parsed.
package struct ParameterArguments: Sendable {
    package var values: [String: String]
    /// The names in the order given.
    package var names: [String]

    package init(_ values: [String: String] = [:]) {
        self.values = values
        self.names = values.keys.sorted()
    }

    /// Parses `NAME=VALUE` texts (the value may be empty or contain `=`); a name given twice is refused with both
    /// values, rather than one of them winning in silence.
    package init(parsing arguments: [String]) throws(ReportUsageError) {
        values = [:]
        names = []
        for argument in arguments {
            guard let eq = argument.firstIndex(of: "="), eq != argument.startIndex else {
                throw ReportUsageError("--param takes NAME=VALUE, got \"\(argument)\"")
            }
            let name = String(argument[..<eq]).trimmingCharacters(in: .whitespaces)
            let value = String(argument[argument.index(after: eq)...])
            if let earlier = values[name] {
                throw ReportUsageError("--param \(name) is given twice: \"\(name)=\(earlier)\" and \"\(name)=\(value)\" — give one value")
            }
            names.append(name)
            values[name] = value
        }
    }
}

extension ReportDefinition {
    /// The value of every declared parameter, in declaration order. A given value of the wrong type, or a
    /// parameter without a default that is not given, is a usage error; with `rejectUnknown`, so is a
    /// given name the report does not declare.
    func parameterValues(_ arguments: ParameterArguments, today: Day,
                         rejectUnknown: Bool) throws -> [(ParameterDefinition, ParameterValue)] {
        let declared = parameters.map(\.name.value)
        if rejectUnknown {
            for name in arguments.names where !declared.contains(name) {
                let suggestion = Suggestions.closest(to: name, in: declared)
                let takes = declared.isEmpty ? "it takes no parameters" : "it takes \(declared.joined(separator: ", "))"
                throw ReportUsageError("--param \(name): report \(self.name) has no parameter \"\(name)\""
                                       + "\(Suggestions.didYouMean(suggestion)) (\(takes))")
            }
        }
        var result: [(ParameterDefinition, ParameterValue)] = []
        for parameter in parameters {
            let name = parameter.name.value
            let type = parameter.type.value
            if let given = arguments.values[name] {
                switch type.value(given, today: today) {
                case .success(let value): result.append((parameter, value))
                case .failure(let problem): throw ReportUsageError("--param \(name): \(problem.message)")
                }
            } else if let defaultValue = parameter.defaultValue {
                switch type.value(defaultValue.value, today: today) {
                case .success(let value): result.append((parameter, value))
                case .failure(let problem):
                    throw DefinitionError("default of \(type) parameter \"\(name)\": \(problem.message)", at: defaultValue.place)
                }
            } else {
                throw ReportUsageError("report \(self.name) needs --param \(name)=\(type.placeholder) (it has no default)")
            }
        }
        return result
    }

    /// A value of each parameter for checking the definition without running it: the default, or a
    /// stand-in of the parameter's type.
    func sampleParameterValues(today: Day) throws -> [(ParameterDefinition, ParameterValue)] {
        try parameters.map { parameter in
            if let defaultValue = parameter.defaultValue,
               case .success(let value) = parameter.type.value.value(defaultValue.value, today: today) {
                return (parameter, value)
            }
            if let defaultValue = parameter.defaultValue {
                throw DefinitionError("default of parameter \"\(parameter.name.value)\" is not a \(parameter.type.value)",
                                      at: defaultValue.place)
            }
            switch parameter.type.value {
            case .date: return (parameter, .date(today))
            case .string: return (parameter, .string(""))
            case .number: return (parameter, .number(DecimalNumber(0)))
            case .boolean: return (parameter, .boolean(false))
            }
        }
    }
}

extension ParameterType {
    /// How `--help`-style text writes a value of this type.
    package var placeholder: String {
        switch self {
        case .date: "DATE"
        case .string: "TEXT"
        case .number: "NUMBER"
        case .boolean: "yes|no"
        }
    }

    /// Whether a value of this type can be compared with values of `type`.
    func compares(with type: AttributeType) -> Bool {
        switch self {
        case .date: return type == .date || type == .dateTime
        case .string: return type == .string
        case .number:
            switch type {
            case .integer, .decimal, .double: return true
            default: return false
            }
        case .boolean: return type == .boolean
        }
    }
}

/// Checks the `$NAME` variables of a report's predicate against its declared parameters.
struct VariableCheck {
    let definition: ReportDefinition
    let model: ObjectModel
    let entity: Entity
    let syntax: PredicateSyntax

    /// Every `$NAME` is a declared parameter (or `$TODAY`), and each parameter is compared only with
    /// values of its type; there are no `%@`/`%K` placeholders.
    func run() throws {
        let declared = Dictionary(definition.parameters.map { ($0.name.value, $0) }, uniquingKeysWith: { a, _ in a })
        var scopeVariables: Set<String> = []
        var problem: DefinitionError?
        syntax.root.forEachOperand { operand in
            guard problem == nil else { return }
            switch operand {
            case .keyPath(let path):
                if case .subquery(let subquery) = path.root { scopeVariables.insert(subquery.variable) }
                guard case .variable(let name, let range) = path.root, !scopeVariables.contains(name),
                      declared[name] == nil, name.uppercased() != "TODAY" else { return }
                let suggestion = Suggestions.closest(to: name, in: Array(declared.keys))
                let remedy = suggestion == nil ? " (declare it under params:, e.g. \(name): { type: date, default: today })"
                    : " (parameters are declared under params:)"
                problem = DefinitionError("unknown parameter $\(name)\(Suggestions.didYouMean(suggestion))\(remedy)",
                                          at: place(range.start))
            case .valuePlaceholder(_, let range), .keyPathPlaceholder(_, let range):
                problem = DefinitionError("%@ and %K are filled from the command line by `fetch --arg`; a report "
                                          + "uses parameters instead ($name, declared under params:)", at: place(range.start))
            default:
                break
            }
        }
        if let problem { throw problem }
        try checkComparisons(syntax.root, declared: declared)
    }

    private func place(_ position: SourcePosition) -> SourcePlace {
        let (line, column) = syntax.source.location(of: position)
        return SourcePlace(file: definition.file, line: line, column: column)
    }

    private func checkComparisons(_ node: PredicateNode, declared: [String: ParameterDefinition]) throws {
        switch node {
        case .constant:
            break
        case .not(let inner, _):
            try checkComparisons(inner, declared: declared)
        case .and(let a, let b, _), .or(let a, let b, _):
            try checkComparisons(a, declared: declared)
            try checkComparisons(b, declared: declared)
        case .comparison(let comparison):
            // `x IN $list` takes a comma-separated list: its text is not one value of the type.
            guard comparison.operator != .in else { return }
            for (variableSide, otherSide) in [(comparison.right, comparison.left), (comparison.left, comparison.right)] {
                guard case .keyPath(let variablePath) = variableSide, let name = variablePath.bareVariable,
                      let parameter = declared[name],
                      case .keyPath(let path) = otherSide, case .object = path.root,
                      let type = try valueType(of: path) else { continue }
                let parameterType = parameter.type.value
                if !parameterType.compares(with: type) {
                    let written = String(syntax.source.text(in: path.range))
                    throw DefinitionError("$\(name) is a \(parameterType) parameter, but \"\(written)\" is \(type) "
                                          + "(change the type of \(name) at line \(parameter.type.place.line))",
                                          at: place(variablePath.range.start))
                }
            }
        }
    }

    /// The type of the values of a key path rooted at the fetched object (each element's, for a
    /// to-many path); nil if it does not bind (the fetch plan then reports it) or is a relationship.
    private func valueType(of path: PredicateKeyPath) throws -> AttributeType? {
        let text = String(syntax.source.text(in: path.range))
        guard !text.isEmpty,
              let plan = try? FetchPlan(ObjectFetchRequest(entity: entity.name), model: model,
                                        columns: [FetchTerm(text, origin: PredicateSourceOrigin(name: "check"))], groupBy: []),
              let column = plan.columns.first else { return nil }
        switch column.expression {
        case .values(_, _, let attribute): return attribute.type
        case .reference: return nil
        default: return column.type
        }
    }
}

extension ParameterDefinition {
    /// The default's value on `today`, as text (`2026-10-01` for `start of last month`); nil without one.
    package func resolvedDefault(today: Day) -> String? {
        guard let text = defaultValue?.value, case .success(let value) = type.value.value(text, today: today) else { return nil }
        return value.description
    }
}
