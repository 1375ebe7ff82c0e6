/// A problem found while working with objects in a context.
public enum ContextError: CategorizedError, Equatable {
    /// An object named by ID does not exist.
    case objectNotFound(ObjectID)
    /// No object of `entity` has `key` equal to `value`.
    case keyNotFound(entity: String, key: String, value: String, suggestion: String?)
    /// An object ID names another entity than the one expected.
    case wrongEntity(ObjectID, expected: String)
    /// The entity has no natural key, so objects can only be named by ID.
    case noNaturalKey(entity: String, reference: String)
    /// A relationship was given an object of the wrong entity.
    case wrongDestination(relationship: String, expected: String, got: String)
    /// A text that is one object's ID and another's natural key.
    case ambiguousReference(String, byID: ObjectID, idObjectKey: String?, byKey: String, key: String)
    /// An object ID whose entity is not in the model but close to one that is (`customer/2`): the message.
    case misspeltEntity(ObjectID, message: String)
    /// An object of another context was given (to relate, or to delete): `object` is its label (`Customer/3 "Acme"`).
    case otherContext(String)
    /// An object was used after its context was gone (a context is kept as long as its objects are used).
    case contextGone(String)
    /// An object was used after its context's `rollback()`, which forgot it: fetch it again.
    case forgotten(String)

    package var category: ErrorCategory {
        switch self {
        case .objectNotFound, .keyNotFound: .missingInput
        case .wrongEntity, .noNaturalKey, .wrongDestination, .ambiguousReference, .misspeltEntity, .otherContext, .contextGone, .forgotten: .usage
        }
    }

    public var description: String {
        switch self {
        case .objectNotFound(let id):
            "\(id) not found"
        case .keyNotFound(let entity, let key, let value, let suggestion):
            "\(entity) with \(key) \"\(value)\" not found\(Suggestions.didYouMean(suggestion))"
        case .wrongEntity(let id, let expected):
            "\(id) is not a \(expected)"
        case .noNaturalKey(let entity, let reference):
            "\(entity) objects have no natural key; name one by its object ID (\(entity)/N), not \"\(reference)\""
        case .wrongDestination(let relationship, let expected, let got):
            "\(relationship) takes a \(expected), not a \(got)"
        case .misspeltEntity(_, let message):
            message
        case .otherContext(let object):
            "\(object) belongs to another context: relate and delete objects of one context"
        case .forgotten(let object):
            "\(object) was forgotten by its context's rollback: fetch it again"
        case .contextGone(let object):
            "the context of \(object) is gone: keep a context while its objects are used"
        case .ambiguousReference(let reference, let byID, let idObjectKey, let byKey, let key):
            "\(byID.entity) \"\(reference)\" is ambiguous: it is the object ID of \(byID) and the \(key) of \(byKey) — "
                + "name the one you mean otherwise: \(idObjectKey.map { "\"\($0)\"" } ?? "the \(key) of \(byID)") or \(byKey)"
        }
    }
}

/// A failed save: every problem found, none written.
public struct ValidationFailure: CategorizedError {
    /// Every problem found, in the order of the objects.
    public let issues: [ValidationIssue]

    package var category: ErrorCategory { .data }

    /// One line per problem.
    public var description: String { messages.joined(separator: "\n") }
    package var messages: [String] { issues.map(\.message) }
}

/// One validation problem, e.g. `Customer.name is required`.
public struct ValidationIssue: Sendable, Equatable, CustomStringConvertible {
    /// The object at fault, for callers that map objects back to their input (an import's line).
    public let object: ObjectIdentifier?
    /// `Customer/3` or `new Customer`.
    public let objectLabel: String
    /// `Customer.name`, or nil for a problem of the whole object.
    public let key: String?
    /// The problem in one line: `Customer.name is required`.
    public let message: String
    /// What the message's last words ask for, when a front end words it (it names its own options): nil for most.
    package var nextStep: NextStep? = nil

    public var description: String { message }
}
