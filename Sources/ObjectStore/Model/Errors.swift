import FileOutput
/// What kind of failure an error is, so a front end can choose an exit status without knowing every error type.
package enum ErrorCategory: Sendable {
    /// The command was used wrongly (unknown entity or key, malformed argument).
    case usage
    /// The input data is wrong (a value that does not fit, a validation failure, a missing referenced object).
    case data
    /// An input (file, store, object) does not exist.
    case missingInput
    /// An output cannot be created.
    case cannotCreateOutput
    /// Reading or writing failed.
    case io
    /// Try again later (the store is busy).
    case temporaryFailure
    /// A service the command needs is unavailable (a database server that cannot be reached or is not supported).
    case unavailable
    /// Permission was refused (a database server refused this user's authentication).
    case permission
    /// A configuration file (model, report definition, profile) is wrong.
    case configuration
    /// Anything else.
    case failure
}

/// An error with human messages and a category.
package protocol CategorizedError: Error, CustomStringConvertible {
    var category: ErrorCategory { get }
    /// One message per problem (most errors have one). A front end prints each as one line: a line feed inside
    /// a message is part of a value, never a second message, so the messages are kept apart here rather than
    /// split out of `description`, where they are joined by line feeds.
    var messages: [String] { get }
}

extension CategorizedError {
    package var messages: [String] { [description] }
}

/// A model that is not valid (`invalidModel`, `nameClash`, checked when an `ObjectModel` is made), or a name a
/// caller gave that the model does not have (`unknownEntity`, `unknownProperty`, with the closest name when one
/// is near).
public enum ModelError: CategorizedError, Equatable {
    /// The model has no entity of this name; `suggestion` is the closest one, if any is near.
    case unknownEntity(String, suggestion: String?)
    /// `entity` has no attribute or relationship `key`; `suggestion` is the closest one, if any is near.
    case unknownProperty(entity: String, key: String, suggestion: String?)
    /// `subject`: the property (`Customer.name`) the problem is about, so that a model file can name its line.
    case invalidModel(String, located: Bool = false, subject: String? = nil)
    /// Two names the schema needs that SQLite takes for one; `subjects` are the entities and properties
    /// (`Customer`, `Customer.name`) that make them, so that a model file can name the line of the one it declares.
    case nameClash(String, subjects: [String])
    /// A model file that cannot be read: `reason` says why (no such model file, a directory, not readable).
    case unreadableFile(path: String, reason: String)
    /// A mistake in a model file, at its 1-based `line` and `column`.
    case modelFile(file: String, line: Int, column: Int, message: String)

    package var category: ErrorCategory {
        switch self {
        case .unknownEntity, .unknownProperty: .usage
        case .invalidModel, .nameClash, .modelFile: .configuration
        case .unreadableFile: .missingInput
        }
    }

    public var description: String {
        switch self {
        case .unknownEntity(let name, let suggestion):
            "unknown entity \"\(name)\"\(Suggestions.didYouMean(suggestion))"
        case .unknownProperty(let entity, let key, let suggestion):
            "unknown key \"\(key)\" on \(entity)\(Suggestions.didYouMean(suggestion))"
        case .invalidModel(let message, let located, _):
            // A message that already names its place (`model.yaml:7:12: …`) stands alone.
            located ? message : "invalid model: \(message)"
        case .nameClash(let message, _):
            "invalid model: \(message)"
        case .unreadableFile(let path, let reason):
            "\(path): \(reason)"
        case .modelFile(let file, let line, let column, let message):
            "\(file):\(line):\(column): \(message)"
        }
    }
}

extension Entity {
    /// The attribute, or an error with a did-you-mean suggestion.
    package func requireAttribute(_ name: String) throws(ModelError) -> EntityAttribute {
        if let a = attribute(named: name) { return a }
        throw ModelError.unknownProperty(entity: self.name, key: name,
                                         suggestion: Suggestions.closest(to: name, in: propertyNames))
    }

    /// Whether `name` is an attribute or a relationship; throws with a did-you-mean when it is neither.
    package func requireProperty(_ name: String) throws(ModelError) -> Property {
        if let a = attribute(named: name) { return .attribute(a) }
        if let r = relationship(named: name) { return .relationship(r) }
        throw ModelError.unknownProperty(entity: self.name, key: name,
                                         suggestion: Suggestions.closest(to: name, in: propertyNames))
    }
}

/// An attribute or a relationship.
package enum Property: Sendable {
    case attribute(EntityAttribute)
    case relationship(EntityRelationship)
}

/// The file-writing module knows nothing of exit statuses: an output refused or not created is 73, a failed write 74.
extension FileOutputError: CategorizedError {
    package var category: ErrorCategory { kind == .cannotCreate ? .cannotCreateOutput : .io }
}
