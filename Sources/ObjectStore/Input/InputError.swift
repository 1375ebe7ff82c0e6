/// A value given as text that cannot be used: it names the property and the value.
public struct InputError: CategorizedError, Equatable {
    public let message: String
    public let category: ErrorCategory

    public init(_ message: String, category: ErrorCategory = .data) {
        self.message = message
        self.category = category
    }

    public var description: String { message }
}
