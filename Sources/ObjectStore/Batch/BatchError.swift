/// One problem with one record of a batch: the property at fault (nil for the whole record) and a message
/// worded as the context's validation words it (`OrderRow.sum is required`).
package struct BatchIssue: Sendable, Equatable, CustomStringConvertible {
    /// The attribute or relationship name (of the record's entity), or nil.
    package let key: String?
    package let message: String

    package init(key: String?, message: String) {
        self.key = key
        self.message = message
    }

    package var description: String { message }
}

/// Why a batch operation failed.
package enum BatchError: CategorizedError, Equatable {
    /// The record is invalid; nothing of it was written.
    case invalid([BatchIssue])
    /// A referenced object does not exist (and was not to be created).
    case notFound(entity: String, key: String, value: String, suggestion: String?)
    /// A key written earlier in this batch is given again with other values: the properties that differ.
    case repeatedKey(entity: String, key: String, value: String, rowID: Int64, properties: [String])
    /// The call does not fit the model (unknown key, a non-unique key, an entity without a key).
    case usage(String)
    case busy(path: String)
    case readOnly(path: String)
    /// A constraint SQLite enforced that validation did not foresee.
    case constraint(String)
    /// Objects that would break the model's rules once the batch is written: `Entity/ID: message` each.
    case ruleViolations([String])
    /// A limit of the data was reached (every object ID handed out): the message names the store.
    case dataLimit(String)
    /// What the store refused, as a store error (an unreadable ID mark, damage SQLite met): a front end words its remedy.
    case store(StoreError)
    case sqlite(String)

    package var category: ErrorCategory {
        switch self {
        case .invalid, .notFound, .constraint, .repeatedKey, .ruleViolations, .dataLimit: .data
        case .usage: .usage
        case .busy: .temporaryFailure
        case .readOnly: .cannotCreateOutput
        case .sqlite: .io
        case .store(let error): error.category
        }
    }

    package var messages: [String] {
        switch self {
        case .invalid(let issues): issues.map(\.message)
        case .ruleViolations(let problems): problems + ["nothing was imported: the objects above would break the model's rules"]
        default: [description]
        }
    }

    package var description: String {
        switch self {
        case .invalid, .ruleViolations: messages.joined(separator: "\n")
        case .notFound(let entity, let key, let value, let suggestion):
            "\(entity) with \(key) \"\(value)\" not found\(Suggestions.didYouMean(suggestion))"
        case .repeatedKey(let entity, let key, let value, _, let properties):
            "\(entity) with \(key) \"\(value)\" was given earlier with other values (\(properties.joined(separator: ", ")))"
        case .usage(let message), .constraint(let message), .dataLimit(let message), .sqlite(let message): message
        case .busy(let path): "\(path): store is busy (another process is writing to it)"
        case .readOnly(let path): "\(path): the store is read-only"
        case .store(let error): error.description
        }
    }
}
