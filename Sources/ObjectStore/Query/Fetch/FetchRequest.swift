import Foundation
import GRDB

/// What to fetch: an entity, a predicate, sort descriptors, a limit and an offset (Core Data's fetch request),
/// with the values for the predicate's `$NAME` variables and `%@`/`%K` placeholders.
public struct FetchRequest: Sendable {
    public var entity: String
    /// NSPredicate format syntax, e.g. `made == YES AND paid == NO`.
    public var predicate: String?
    public var sortDescriptors: [SortKey]
    public var limit: Int?
    public var offset: Int?
    /// `$NAME` values (from `--param NAME=VALUE`), typed by what they are compared with.
    public var variables: [String: String]
    /// `%@` and `%K` values in order (from `--arg VALUE`).
    public var arguments: [String]
    /// Where the predicate text comes from, for error positions (`where`, or a report file's line and column).
    public var predicateOrigin: PredicateSourceOrigin

    public init(entity: String, predicate: String? = nil, sortDescriptors: [SortKey] = [],
                limit: Int? = nil, offset: Int? = nil, variables: [String: String] = [:], arguments: [String] = [],
                predicateOrigin: PredicateSourceOrigin = PredicateSourceOrigin(name: "where")) {
        self.entity = entity
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.limit = limit
        self.offset = offset
        self.variables = variables
        self.arguments = arguments
        self.predicateOrigin = predicateOrigin
    }
}

/// A column of a fetch: a key path (to-one chain, aggregate, or a to-many path listing its values).
public struct FetchColumn: Sendable {
    public let keyPath: String
    /// The type of the column's values (`.string` for a to-many list, `.integer` for `@count`, `.double` for `@avg`).
    public let type: AttributeType
    package let expression: BoundExpression
}

/// A fetch request checked against a model: every key path resolved, every literal typed. It compiles to one
/// SQL statement and can also run in memory (the oracle that tests the compiler).
public struct FetchPlan: Sendable {
    public let entity: Entity
    public let request: FetchRequest
    public let columns: [FetchColumn]
    package let predicate: BoundPredicate?
    package let sortKeys: [(SortKey, BoundExpression)]
    package let scopes: [Entity]
    package let model: Model

    /// Binds the request (and the columns, key paths separated by commas) against `model`.
    /// Throws `ModelError`, `PredicateSyntaxError`, `PredicateBindingError` or `SortError`.
    public init(_ request: FetchRequest, model: Model, columns columnList: [String]? = nil,
                columnsOrigin: String = "columns", sortOrigin: String = "sort") throws {
        let entity = try model.entity(request.entity)
        self.entity = entity
        self.request = request
        self.model = model
        var binder = PredicateBinder(model: model, entity: entity, source: PredicateSourceText("", origin: request.predicateOrigin),
                                     variables: request.variables)
        if let text = request.predicate, !text.trimmingCharacters(in: .whitespaces).isEmpty {
            var syntax = try PredicateSyntax(parsing: text, origin: request.predicateOrigin)
            syntax = try syntax.binding(arguments: request.arguments)
            binder.source = syntax.source
            predicate = try binder.bind(syntax.root)
        } else {
            if !request.arguments.isEmpty {
                throw PredicateBindingError("--arg was given, but there is no predicate with %@ or %K placeholders",
                                            at: .start, in: PredicateSourceText("", origin: request.predicateOrigin))
            }
            predicate = nil
        }
        var sortKeys: [(SortKey, BoundExpression)] = []
        for descriptor in request.sortDescriptors {
            let source = PredicateSourceText(descriptor.keyPath, origin: PredicateSourceOrigin(name: sortOrigin))
            binder.source = source
            let path = try PredicateParser.parseKeyPath(source)
            switch try binder.resolve(path) {
            case .scalar(let e):
                sortKeys.append((descriptor, e))
            case .collection(let c, _, _):
                let r = c.hops.first { $0.isToMany }!
                throw binder.error("\"\(r.name)\" is a to-many relationship — sort by an aggregate such as \(r.name).@count",
                                   at: path.range)
            }
        }
        self.sortKeys = sortKeys
        var columns: [FetchColumn] = []
        for keyPath in columnList ?? entity.attributes.map(\.name) {
            let source = PredicateSourceText(keyPath, origin: PredicateSourceOrigin(name: columnsOrigin))
            binder.source = source
            let path = try PredicateParser.parseKeyPath(source)
            let expression: BoundExpression
            switch try binder.resolve(path) {
            case .scalar(let e): expression = e
            case .collection(let c, let rest, let attribute):
                // A to-many path as a column lists the values; without an attribute, the elements' natural keys.
                let end = rest.last.map { model.entity(named: $0.destination)! } ?? model.entity(named: c.elementEntity)!
                guard let a = attribute ?? end.naturalKey.flatMap(end.attribute(named:)) else {
                    throw binder.error("\"\(keyPath)\" needs an attribute at its end, or an aggregate such as .@count", at: path.range)
                }
                expression = .values(c, ToOnePath(scope: c.elementScope, hops: rest), a)
            }
            let type: AttributeType
            switch expression.type {
            case .attribute(let t): type = t
            case .object, .null: type = .integer
            }
            columns.append(FetchColumn(keyPath: keyPath, type: type, expression: expression))
        }
        self.columns = columns
        self.scopes = binder.scopes
    }

    // MARK: SQL

    public enum Selection: Sendable {
        /// Whole rows of the fetched entity, for objects.
        case objects
        /// The plan's columns.
        case columns
        /// The number of matching objects.
        case count
    }

    /// The statement and its arguments.
    public func sql(_ selection: Selection) -> (sql: String, arguments: [DatabaseValue]) {
        let compiler = SQLCompiler(model: model, scopes: scopes)
        let q = compiler.rootQuery()
        if let predicate { q.conditions.append(compiler.compile(predicate, negated: false, in: q)) }
        let limited = request.limit != nil || request.offset != nil
        let select: String
        switch selection {
        case .objects: select = "t0.*"
        case .columns: select = columns.map { compiler.scalar($0.expression, .stored, in: q) }.joined(separator: ", ")
        case .count: select = limited ? "1" : "COUNT(*)"
        }
        var order: [String] = []
        if selection != .count || limited {
            for (descriptor, expression) in sortKeys {
                var term = compiler.scalar(expression, .stored, in: q)
                if expression.type == .attribute(.string), let collation = descriptor.comparison.collation {
                    term += " COLLATE \(collation)"
                }
                order.append(term + (descriptor.ascending ? " ASC" : " DESC"))
            }
            order.append("t0.\"id\" ASC")
        }
        // Joins are added while compiling, so the body is read last.
        var sql = "SELECT \(select) \(q.body())"
        if !order.isEmpty { sql += " ORDER BY " + order.joined(separator: ", ") }
        if limited {
            sql += " LIMIT \(compiler.bind((request.limit ?? -1).databaseValue))"
            if let offset = request.offset { sql += " OFFSET \(compiler.bind(offset.databaseValue))" }
        }
        if selection == .count && limited { sql = "SELECT COUNT(*) FROM (\(sql))" }
        return (sql, compiler.arguments)
    }
}

extension FetchPlan.Selection: Equatable {}
