/// A value given as text that cannot be used: it names the property and the value.
package struct InputError: CategorizedError, Equatable {
    package let message: String
    package let category: ErrorCategory
    /// What can be done, when the message ends with it (`NextStep.description`), for a front end to word.
    package var nextStep: NextStep? = nil

    package init(_ message: String, category: ErrorCategory = .data) {
        self.message = message
        self.category = category
    }

    /// A message that ends with `step`, in the engine's words.
    package init(_ message: String, category: ErrorCategory = .data, then step: NextStep) {
        self.init(message + step.description, category: category)
        nextStep = step
    }

    package var description: String { message }
}
