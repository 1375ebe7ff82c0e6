import ArgumentParser
import CSV
import Foundation
import LocalTime
import ObjectStore
import ReportRenderers
import Reports

struct Fetch: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch",
        abstract: "Fetch objects with a predicate, sort keys and a limit; print them as a table, CSV or JSON.",
        discussion: """
            Predicates use NSPredicate's format syntax: made == YES AND paid == NO, name CONTAINS[cd] "muller", \
            ANY tags.name == "vip", rows.@sum.sum > 1000, date <= $until (with --param until=2024-12-31), \
            number BEGINSWITH %@ (with --arg A-). Columns and sort keys are key paths, to-one chains and \
            aggregates included. docs/queries.md has the whole language.
            Example: bookkeeper fetch Order --where 'made == YES AND paid == NO' --sort 'date, customer.name' \
            --columns 'number, date, customer.name, rows.@sum.sum'
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, csv, json }

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity to fetch.") var entity: String
    @Option(name: .customLong("where"), help: ArgumentHelp(
        "A predicate in NSPredicate format syntax; repeated, all must hold (they are combined with AND).",
        valueName: "predicate"))
    var predicates: [String] = []
    @Option(help: "Sort keys: \"KEYPATH [asc|desc] [natural|nocase], ...\".") var sort: String?
    // .unconditional: "--limit -1" is refused with the range rather than read as a missing value.
    @Option(parsing: .unconditional, help: "At most this many objects (0 or more).") var limit: Int?
    @Option(parsing: .unconditional, help: "Skip this many objects first (0 or more).") var offset: Int?
    @Option(help: "Columns: \"KEYPATH, ...\" (default: the entity's attributes); with --group also count, sum:KEYPATH, avg:, min:, max:.")
    var columns: String?
    @Option(help: "Group keys: \"KEYPATH or month|quarter|week|year(KEYPATH), ...\"; one row per group.") var group: String?
    @Option(name: .customLong("param"), help: ArgumentHelp("A $NAME value for the predicate.", valueName: "NAME=VALUE"))
    var parameters: [String] = []
    @Option(name: .customLong("arg"), help: ArgumentHelp("A value for the next %@ or %K placeholder.", valueName: "VALUE"))
    var arguments: [String] = []
    @Option(help: "Output format.") var format: Format = .text
    @Flag(help: "Print only the number of matching objects.") var count = false
    @Flag(help: "Print the SQL and its arguments instead of running it.") var explain = false

    func validate() throws {
        if let limit, limit < 0 { throw ValidationError("--limit must be 0 or more") }
        if let offset, offset < 0 { throw ValidationError("--offset must be 0 or more") }
        var seen: [Substring: Substring] = [:]
        for p in parameters {
            guard let eq = p.firstIndex(of: "=") else { throw ValidationError("--param takes NAME=VALUE, got \"\(p)\"") }
            let (name, value) = (p[..<eq], p[p.index(after: eq)...])
            // A repeated name would keep one value in silence.
            if let earlier = seen[name] {
                throw ValidationError("--param \(name) is given twice: \"\(name)=\(earlier)\" and \"\(name)=\(value)\" — give one value")
            }
            seen[name] = value
        }
    }

    func run() throws {
        var variables: [String: String] = [:]
        for p in parameters {
            let eq = p.firstIndex(of: "=")!
            variables[String(p[..<eq])] = String(p[p.index(after: eq)...])
        }
        let defaultSort = try model.entity(entity).defaultSort
        var request = ObjectFetchRequest(entity: entity, predicate: predicates.first, sortDescriptors: try SortKey.parseList(sort ?? defaultSort ?? ""),
                                   limit: limit, offset: offset, variables: variables, textArguments: arguments)
        request.morePredicates = Array(predicates.dropFirst())
        request.sortIsDefault = sort == nil && defaultSort != nil
        let columnList = columns.map { FetchTerm.list($0, origin: PredicateSourceOrigin(name: "columns")) }
        // Nothing but commas and spaces compiled to `SELECT  FROM …` (found by the predicate fuzzer).
        if let columnList, columnList.allSatisfy({ $0.text.trimmingCharacters(in: .whitespaces).isEmpty }) {
            throw NoColumns()
        }
        // A column named twice would key a JSON object twice (`{"count": 3, "count": 3}`, which JSON parsers read
        // each their own way) and show nothing new in CSV or text: refused in every format, one rule for all.
        if let columnList {
            var seen: Set<String> = []
            for term in columnList where !seen.insert(term.text).inserted {
                throw term.error("the column \"\(term.text)\" is given twice — name each column once")
            }
        }
        let groupList = group.map { FetchTerm.list($0, origin: PredicateSourceOrigin(name: "group")) } ?? []
        // Without --columns a fetch shows the entity's attributes, which a grouped one cannot: the error named the
        // first of them, a column the user never wrote (found by the attack on 0.7.0).
        if columnList == nil, let key = groupList.first(where: { !$0.text.trimmingCharacters(in: .whitespaces).isEmpty }) {
            // The group keys bound first, so that a mistake in one is named as itself.
            var keysOnly = request
            keysOnly.sortDescriptors = []
            _ = try FetchPlan(keysOnly, model: model, columns: [], groupBy: groupList)
            throw key.error("--group needs --columns naming the group keys and aggregates to show, such as --columns '\(key.text.trimmingCharacters(in: .whitespaces)), count'")
        }
        let plan = try FetchPlan(request, model: model, columns: columnList, groupBy: groupList)
        // The same column spelt another way (`name, SELF.name`; `sum:rows.sum, sum: rows.sum`) is given twice too.
        if let columnList, let i = plan.repeatedColumn {
            throw columnList[i].error("the column \"\(columnList[i].text)\" is given twice — name each column once")
        }
        let store = try openStore(readOnly: true)
        if explain {
            print(store.explain(plan, count ? .count : .columns))
            return
        }
        if count {
            print(try store.count(plan))
            return
        }
        let names = plan.columns.map(\.keyPath)
        // Values are written by the renderers' rules, each column as a report column of its type would be; a to-many
        // column's items each as a column of their type (`customers.at` as `at`), in a list (an array in JSON).
        let formats = plan.columns.map { ColumnFormat(defaultFor: $0.listItemType ?? $0.type) }
        let listItems = plan.columns.map(\.listItemType)
        func cell(_ value: Value, _ i: Int) -> ReportCell {
            listItems[i].map { ReportCell(list: value, itemType: $0) } ?? ReportCell(value)
        }
        let cells = CellFormatter(timeZone: try Zone.current())
        switch format {
        case .csv:
            let writer = try CSVWriter(path: "-", displayName: "standard output")
            // The header goes out with the first row (or after the last, for none): a query that fails before its
            // first row — PostgreSQL refuses some patterns only as it runs — leaves standard output empty.
            var headed = false
            // Each field as bytes into one scratch buffer, numbers and dates without a String (issue 27: a String per
            // cell was most of what the fetch bench paid beyond its statement); text as it is stored.
            var field: [UInt8] = []
            field.reserveCapacity(64)
            try store.fetchRows(plan) { row in
                if !headed {
                    try writer.writeRecord(names)
                    headed = true
                }
                for i in 0..<row.count {
                    if listItems[i] == nil {
                        // ASCII text straight from the statement, with no String.
                        if try row.withASCIIText(i, { try writer.writeField(bytes: $0) }) != nil { continue }
                    }
                    let value = row.value(i)
                    if case let .string(text) = value, listItems[i] == nil {
                        try writer.writeField(text)
                        continue
                    }
                    field.removeAll(keepingCapacity: true)
                    cells.appendPlain(cell(value, i), as: formats[i], to: &field)
                    try field.withUnsafeBufferPointer { try writer.writeField(bytes: $0) }
                }
                try writer.endRecord()
            }
            if !headed { try writer.writeRecord(names) }
            try writer.close()
        case .json:
            var out = StandardOutput()
            try out.write("[")
            var first = true
            try store.fetchColumns(plan) { values in
                var fields: [String] = []
                for (i, value) in values.enumerated() {
                    fields.append("\(JSONText.string(names[i])): \(cells.json(cell(value, i), as: formats[i]))")
                }
                try out.write((first ? "\n  {" : ",\n  {") + fields.joined(separator: ", ") + "}")
                first = false
            }
            try out.write(first ? "]\n" : "\n]\n")
            try out.flush()
        case .text:
            let numeric = plan.columns.map { c -> TextTable.Alignment in
                switch c.type { case .integer, .decimal, .double: .right; default: .left }
            }
            var table = TextTable(headers: names, alignments: numeric)
            try store.fetchColumns(plan) { values in
                table.append(values.indices.map { cells.display(cell(values[$0], $0), as: formats[$0]) })
            }
            print(table.render())
            let noun = plan.isGrouped ? (table.rows.count == 1 ? "group" : "groups") : (table.rows.count == 1 ? "object" : "objects")
            print("\(table.rows.count) \(noun)")
        }
    }
}

extension Fetch: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        predicates += values["--where"] ?? []
        parameters += values["--param"] ?? []
        arguments += values["--arg"] ?? []
    }
}

/// `--columns` with no key path in it.
struct NoColumns: CategorizedError {
    var category: ErrorCategory { .usage }
    var description: String { "columns:1:1: --columns needs at least one key path" }
}
