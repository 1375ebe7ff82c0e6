/// Why a fetch request could not be run: its predicate does not parse (`kind == .syntax`), or it names or compares
/// what the model does not have, or an argument or variable does not fit what it is compared with
/// (`kind == .binding`). Each field is a fact; `description` is the one line
/// `where:1:7: unknown key "nme" on Customer — did you mean "name"?`.
public struct FetchError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Which stage refused the request.
    public enum Kind: Sendable, Hashable {
        /// The predicate text is not NSPredicate format syntax, or the placeholders and arguments do not match.
        case syntax
        /// The predicate reads well but does not fit the model: an unknown key, a wrong type, an argument of
        /// another type than what it is compared with.
        case binding
        /// The request itself is wrong: a negative limit or offset (`source` names which).
        case request
    }

    /// Which stage refused the request.
    public let kind: Kind
    /// What is wrong, without the place: `unknown key "nme" on Customer`.
    public let message: String
    /// A remedy, when one is known: `did you mean "name"?`.
    public let hint: String?
    /// The text the place is in: `where` for the predicate, `where#2` for a second one.
    public let source: String
    /// The 1-based line in `source`.
    public let line: Int
    /// The 1-based column in `source`, in characters.
    public let column: Int
    /// The `$NAME` variable whose value is wrong, when that is what is wrong (the predicate is then as meant).
    public let variable: String?
    public let description: String

    package init(_ error: PredicateSyntaxError) {
        self.init(kind: .syntax, error, variable: nil)
    }

    package init(_ error: PredicateBindingError) {
        self.init(kind: .binding, error, variable: error.variable)
    }

    /// A request whose `field` (`limit`, `offset`) is negative: silently fetching everything would answer another
    /// question (found by the attack on the library).
    init(negative field: String, _ value: Int) {
        kind = .request
        message = "\(field) is \(value); it must be 0 or more"
        hint = nil
        source = field
        line = 1
        column = 1
        variable = nil
        description = "\(field): \(message)"
    }

    private init(kind: Kind, _ error: some PredicateSourceError, variable: String?) {
        self.kind = kind
        message = error.message
        hint = error.hint
        source = error.sourceName
        line = error.line
        column = error.column
        self.variable = variable
        description = error.description
    }
}

extension FetchError: CategorizedError {
    package var category: ErrorCategory { .usage }
}

extension ObjectContext {
    /// The objects matching `request`, in its order: one SQL statement. Throws `FetchError` when the request does
    /// not fit the model, `ModelError` for an unknown entity, `StoreError` when the store cannot be read.
    public func fetch(_ request: ObjectFetchRequest) throws -> [ManagedObject] {
        try fetch(FetchError.plan(request, model: model))
    }

    /// The number of objects matching `request` (its limit and offset apply), counted by the store.
    public func count(_ request: ObjectFetchRequest) throws -> Int {
        let (sql, arguments) = try FetchError.plan(request, model: model).sql(.count, dialect: store.dialect)
        return try store.read { db in try db.int(sql, arguments) ?? 0 }
    }
}

extension FetchError {
    /// The request bound against `model`, its predicate errors as `FetchError`.
    static func plan(_ request: ObjectFetchRequest, model: ObjectModel) throws -> FetchPlan {
        if let limit = request.limit, limit < 0 { throw FetchError(negative: "limit", limit) }
        if let offset = request.offset, offset < 0 { throw FetchError(negative: "offset", offset) }
        do {
            return try FetchPlan(request, model: model, columns: [])
        } catch let error as PredicateSyntaxError {
            throw FetchError(error)
        } catch let error as PredicateBindingError {
            throw FetchError(error)
        }
    }
}
