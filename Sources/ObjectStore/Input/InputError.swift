/// A value given as text that cannot be used: it names the property and the value.
package struct InputError: CategorizedError, Equatable {
    package let message: String
    package let category: ErrorCategory

    package init(_ message: String, category: ErrorCategory = .data) {
        self.message = message
        self.category = category
    }

    package var description: String { message }
}
