import Foundation

/// What to fetch: an entity, a predicate, sort descriptors, a limit and an offset (Core Data's fetch request),
/// with the values for the predicate's `$NAME` variables and `%@`/`%K` placeholders.
///
/// ```swift
/// let request = ObjectFetchRequest(entity: "Invoice", predicate: "total >= %@ AND customer.name BEGINSWITH %@",
///                                  arguments: [.decimal(DecimalNumber(100)), .string("A")],
///                                  sortDescriptors: [SortKey("total", ascending: false)])
/// ```
public struct ObjectFetchRequest: Sendable {
    /// The name of the entity whose objects are fetched.
    public var entity: String
    /// NSPredicate format syntax, e.g. `made == YES AND paid == NO`.
    public var predicate: String?
    /// The order of the objects: the first key, then the next among equals.
    public var sortDescriptors: [SortKey]
    /// At most this many objects.
    public var limit: Int?
    /// Skips this many objects first.
    public var offset: Int?
    /// `$NAME` values as text, each typed by what it is compared with (`$since` against a date reads as a day).
    public var variables: [String: String]
    /// `%@` and `%K` values in order: a `%@` takes the value itself, which must be of the type it is compared with
    /// (an integer, decimal or double compares with any number); a `%K` takes a key path as `.string`.
    public var arguments: [Value]
    /// `%@` and `%K` values as text, in order before `arguments`, each typed by what it is compared with (a
    /// command line's arguments).
    package var textArguments: [String]
    /// Where the predicate text comes from, for error positions (`where`, or a report file's line and column).
    package var predicateOrigin: PredicateSourceOrigin
    /// More predicates ANDed with `predicate` (a repeated `--where`); each is parsed on its own, its errors naming
    /// `where#2`, `where#3`, …, and the `%@`/`%K` placeholders are numbered across all of them in order.
    package var morePredicates: [String] = []
    /// Whether `sortDescriptors` is the entity's default sort rather than one the user wrote: a grouped fetch
    /// then keeps only its keys that are group keys, instead of failing over text the user never wrote.
    package var sortIsDefault = false

    /// A request for the objects of `entity` that satisfy `predicate` with its `%@`/`%K` placeholders bound to
    /// `arguments` and its `$NAME` variables to `variables`, in the order of `sortDescriptors`.
    @_disfavoredOverload
    public init(entity: String, predicate: String? = nil, arguments: [Value] = [], variables: [String: String] = [:],
                sortDescriptors: [SortKey] = [], limit: Int? = nil, offset: Int? = nil) {
        self.init(entity: entity, predicate: predicate, sortDescriptors: sortDescriptors, limit: limit, offset: offset,
                  variables: variables)
        self.arguments = arguments
    }

    package init(entity: String, predicate: String? = nil, sortDescriptors: [SortKey] = [],
                limit: Int? = nil, offset: Int? = nil, variables: [String: String] = [:], textArguments: [String] = [],
                predicateOrigin: PredicateSourceOrigin = PredicateSourceOrigin(name: "where")) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
        self.variables = variables
        self.arguments = []
        self.textArguments = textArguments
        self.predicateOrigin = predicateOrigin
    }

    /// Every placeholder's argument in order: the text ones, then the typed ones.
    var placeholderArguments: [PredicateArgument] { textArguments.map { .text($0) } + arguments.map { .value($0) } }
}

/// A column of a fetch: a key path (to-one chain, aggregate, or a to-many path listing its values).
package struct FetchColumn: Sendable {
    package let keyPath: String
    /// The type of the column's values (`.string` for a to-many list, `.integer` for `@count`, `.double` for `@avg`).
    package let type: AttributeType
    package let expression: BoundExpression
    let term: FetchTerm

    /// For a to-many path listing its values (`tags.name`, `customers.at`), the type of its items: the column's
    /// values are then `StoredValue.listText` (the stored values in one text, as `.string`), to be decoded by
    /// `StoredValue.listItems` and each item as this type. Nil for every other column.
    package var listItemType: AttributeType? {
        if case .values(_, _, let attribute) = expression { return attribute.type }
        return nil
    }
}

/// A column, group key or sort key as written, with where it was written (for error positions).
package struct FetchTerm: Sendable, Hashable {
    package var text: String
    package var origin: PredicateSourceOrigin

    package init(_ text: String, origin: PredicateSourceOrigin) {
        let lead = text.prefix { $0 == " " }.count
        self.text = text.trimmingCharacters(in: .whitespaces)
        self.origin = origin.at(column: origin.column + lead)
    }

    /// Splits `number, customer.name` at commas, each term keeping its column: `columns:1:9` points into the list.
    package static func list(_ text: String, origin: PredicateSourceOrigin) -> [FetchTerm] {
        var terms: [FetchTerm] = []
        var column = origin.column
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            terms.append(FetchTerm(String(item), origin: origin.at(column: column)))
            column += item.count + 1
        }
        return terms.filter { !$0.text.isEmpty }
    }

    /// An error at this term: `columns:1:9: …`.
    package func error(_ message: String) -> PredicateBindingError {
        PredicateBindingError(message, at: .start, in: PredicateSourceText(text, origin: origin))
    }
}

/// A fetch request checked against a model: every key path resolved, every literal typed. It compiles to one
/// SQL statement and can also run in memory (the oracle that tests the compiler).
package struct FetchPlan: Sendable {
    package let entity: Entity
    package let request: ObjectFetchRequest
    package let columns: [FetchColumn]
    package let predicate: BoundPredicate?
    package let sortKeys: [(SortKey, BoundExpression)]
    /// The most sort keys a fetch takes (see where it is checked).
    package static let maximumSortKeys = 32
    package let scopes: [Entity]
    package let model: ObjectModel
    package let groupKeys: [BoundExpression]
    /// Whether the plan has group keys or aggregate columns: one row per group rather than per object.
    package let isGrouped: Bool

    /// Binds the request (and the columns, key paths separated by commas) against `model`.
    /// Throws `ModelError`, `PredicateSyntaxError`, `PredicateBindingError` or `SortError`.
    /// Binds the request with columns and group keys given as plain text (errors say `columns:1:N`, `group:1:N`).
    package init(_ request: ObjectFetchRequest, model: ObjectModel, columns columnList: [String]? = nil, groupBy: [String] = []) throws {
        try self.init(request, model: model,
                      columns: columnList.map { $0.map { FetchTerm($0, origin: PredicateSourceOrigin(name: "columns")) } },
                      groupBy: groupBy.map { FetchTerm($0, origin: PredicateSourceOrigin(name: "group")) })
    }

    /// Binds the request with columns and group keys that know where they were written (a report file's line
    /// and column), so errors point there.
    package init(_ request: ObjectFetchRequest, model: ObjectModel, columns columnList: [FetchTerm]?, groupBy: [FetchTerm]) throws {
        let entity = try model.entity(request.entity)
        self.entity = entity
        self.request = request
        self.model = model
        var binder = PredicateBinder(model: model, entity: entity, source: PredicateSourceText("", origin: request.predicateOrigin),
                                     variables: request.variables)
        var texts: [(String, PredicateSourceOrigin)] = []
        if let text = request.predicate { texts.append((text, request.predicateOrigin)) }
        for (i, text) in request.morePredicates.enumerated() {
            var origin = request.predicateOrigin
            origin.name = "\(origin.name)#\(i + 2)"
            texts.append((text, origin))
        }
        texts.removeAll { $0.0.trimmingCharacters(in: .whitespaces).isEmpty }
        if !texts.isEmpty {
            var syntaxes: [PredicateSyntax] = []
            for (text, origin) in texts { syntaxes.append(try PredicateSyntax(parsing: text, origin: origin)) }
            // Arguments fill placeholders in order across the predicates; the last takes what is left, so a
            // wrong count is reported there with both numbers.
            var remaining = request.placeholderArguments[...]
            var parts: [BoundPredicate] = []
            for (i, var syntax) in syntaxes.enumerated() {
                let take = i == syntaxes.count - 1 ? remaining.count : min(syntax.placeholderCount, remaining.count)
                syntax = try syntax.binding(arguments: Array(remaining.prefix(take)))
                remaining = remaining.dropFirst(take)
                binder.source = syntax.source
                parts.append(try binder.bind(syntax.root))
            }
            predicate = BoundPredicate.all(parts)
        } else {
            if !request.placeholderArguments.isEmpty {
                var unused = PredicateBindingError("arguments were given, but there is no predicate with %@ or %K placeholders",
                                                   at: .start, in: PredicateSourceText("", origin: request.predicateOrigin))
                unused.fact = .argumentsWithoutPlaceholders
                throw unused
            }
            predicate = nil
        }
        var groupKeys: [BoundExpression] = []
        for term in groupBy {
            let e = try binder.bindColumn(term.text, origin: term.origin)
            if e.isGroupAggregate {
                throw term.error("group keys are key paths or periods such as month(date), not aggregates like \"\(term.text)\"")
            }
            // A list (a to-many key path's items) has no order of its own as a group: grouped as its text, numbers
            // came as `-1, 10, 100, 9`, and it cannot be sorted. Refused as a sort key is, and as Core Data's
            // propertiesToGroupBy refuses a to-many key path (found by the attack on 0.7.0).
            if case .values(let c, _, _) = e {
                let r = c.hops.first { $0.isToMany }!
                throw term.error("\"\(r.name)\" is a to-many relationship — group by an aggregate such as \(r.name).@count")
            }
            groupKeys.append(e)
        }
        // A term that names a group key again (`--group orders.@count --columns orders.@count`) binds with scopes of
        // its own — every to-many path gets new ones — so it was "neither a group key nor an aggregate". Compared as
        // bound from one binder state, it takes the group key's own expression.
        func asGroupKey(_ e: BoundExpression, _ term: FetchTerm) -> BoundExpression {
            if groupKeys.contains(e) { return e }
            for (keyTerm, key) in zip(groupBy, groupKeys) {
                var fromKey = binder, fromTerm = binder
                if let a = try? fromKey.bindColumn(keyTerm.text, origin: keyTerm.origin),
                   let b = try? fromTerm.bindColumn(term.text, origin: term.origin), a == b { return key }
            }
            return e
        }
        var columns: [FetchColumn] = []
        for term in columnList ?? entity.attributes.map({ FetchTerm($0.name, origin: PredicateSourceOrigin(name: "columns")) }) {
            let e = asGroupKey(try binder.bindColumn(term.text, origin: term.origin), term)
            let type: AttributeType
            switch e.type {
            case .attribute(let t): type = t
            // A reference (`customer`, `SELF`) is shown as its object ID, `Customer/6`, as list and show print it.
            case .object: type = .string
            case .null: type = .integer
            }
            columns.append(FetchColumn(keyPath: term.text, type: type, expression: e, term: term))
        }
        let grouped = !groupKeys.isEmpty || columns.contains { $0.expression.isGroupAggregate }
        if grouped {
            for column in columns where !column.expression.isGroupAggregate && !groupKeys.contains(column.expression) {
                throw column.term.error(
                    "\"\(column.keyPath)\" is neither a group key nor an aggregate — add it to the group keys, or aggregate it (count, sum:…, min:…)")
            }
        }
        var sortKeys: [(SortKey, BoundExpression)] = []
        for descriptor in request.sortDescriptors {
            let term = FetchTerm(descriptor.keyPath, origin: descriptor.origin ?? PredicateSourceOrigin(name: "sort"))
            let e = asGroupKey(try binder.bindColumn(term.text, origin: term.origin), term)
            if case .values(let c, _, _) = e {
                let r = c.hops.first { $0.isToMany }!
                throw term.error("\"\(r.name)\" is a to-many relationship — sort by an aggregate such as \(r.name).@count")
            }
            if grouped && !e.isGroupAggregate && !groupKeys.contains(e) {
                if request.sortIsDefault { continue }
                throw term.error("\"\(descriptor.keyPath)\" is neither a group key nor an aggregate, so it cannot sort groups")
            }
            if !grouped && e.isGroupAggregate {
                if request.sortIsDefault { continue }
                throw term.error("\"\(descriptor.keyPath)\" aggregates a group, but the fetch is not grouped")
            }
            // A key repeated with the same comparison orders nothing more: the first one decides. Dropped, it
            // keeps a long generated sort list within the limit below.
            // (Compared by key path: each binding of an aggregate makes scopes of its own.)
            if sortKeys.contains(where: { $0.0.keyPath == descriptor.keyPath && $0.0.comparison == descriptor.comparison }) { continue }
            if sortKeys.count == FetchPlan.maximumSortKeys {
                // SQLite 3.40 (Debian 12's) crashes (SIGSEGV) ordering by 63 or more terms when some are columns
                // of joined tables; FuzzDefinitionShape found it with a report's sort list.
                throw term.error("more than \(FetchPlan.maximumSortKeys) sort keys — sort by at most \(FetchPlan.maximumSortKeys)")
            }
            sortKeys.append((descriptor, e))
        }
        self.sortKeys = sortKeys
        self.columns = columns
        self.groupKeys = groupKeys
        self.isGrouped = grouped
        self.scopes = binder.scopes
    }
}

extension FetchColumn {
    /// For an average (`rows.@avg.sum`, `avg:rows.sum`), the type of the values averaged: a report shows the
    /// average at their scale. Nil for every other column.
    package var averagedType: AttributeType? {
        func valueType(_ e: BoundExpression) -> AttributeType? {
            switch e {
            case .attribute(_, let a): return a.type
            case .aggregate(let op, _, _, let a): return op == .count ? .integer : a?.type
            case .groupAggregate(_, let inner, _): return inner.flatMap(valueType)
            default: return nil
            }
        }
        switch expression {
        case .aggregate(.avg, _, _, let a): return a?.type
        case .groupAggregate(.avg, let inner?, _): return valueType(inner)
        default: return nil
        }
    }
}

extension FetchPlan {
    /// The index of the first column that shows what an earlier one does, however it is spelt (`name` and `SELF.name`,
    /// `rows.@sum.sum` and `rows.@SUM.sum`, `sum:rows.sum` and `sum: rows.sum`, `month(date)` and `MONTH( date )`);
    /// nil when each column is its own. Columns are compared as bound, each from the same binder state: every binding
    /// of a to-many path makes scopes of its own, so two bindings in turn would differ in them.
    package var repeatedColumn: Int? {
        let binder = PredicateBinder(model: model, entity: entity, source: PredicateSourceText("", origin: request.predicateOrigin),
                                     variables: request.variables)
        var seen: Set<BoundExpression> = []
        for (i, column) in columns.enumerated() {
            var fresh = binder
            guard let e = try? fresh.bindColumn(column.term.text, origin: column.term.origin) else { continue }
            if !seen.insert(e).inserted { return i }
        }
        return nil
    }
}
