// Errors in report definitions: one line each, naming the file, line and column, with a remedy
// where there is one (`— did you mean "name"?`). They are bad configuration (exit status 78): the
// operator fixes the file, not the command line.

import ObjectStore
import ReportRenderers

/// A report definition that cannot be used: bad YAML, an unknown or missing key, a wrong type, a key
/// path the model does not have, a total over a text column.
package struct DefinitionError: CategorizedError, Equatable {
    /// `Reports/x.yaml:4:8: unknown key "nmae" on Customer — did you mean "name"?`
    package let message: String

    package init(_ message: String, at place: SourcePlace) {
        self.message = "\(place): \(message)"
    }

    package init(_ message: String, file: String) {
        self.message = "\(file): \(message)"
    }

    /// An error that already names its place (the predicate parser's and binder's).
    init(placed message: String) {
        self.message = message
    }

    package var category: ErrorCategory { .configuration }
    package var description: String { message }
}

/// A mistake on the command line about reports: an unknown report or parameter, a parameter value of
/// the wrong type, a missing required parameter (exit status 64).
package struct ReportUsageError: CategorizedError, Equatable {
    package let message: String

    package init(_ message: String) {
        self.message = message
    }

    package var category: ErrorCategory { .usage }
    package var description: String { message }
}

/// A report or definition directory that is not there (exit status 66), or a file that cannot be read.
package struct ReportInputError: CategorizedError, Equatable {
    package let message: String
    package let category: ErrorCategory

    package init(_ message: String, category: ErrorCategory = .missingInput) {
        self.message = message
        self.category = category
    }

    package var description: String { message }
}

/// The renderers know nothing of exit statuses (they do not depend on ObjectStore); a report run
/// maps their errors here: an output that cannot be created is 73, a failed write 74, a report larger
/// than its format holds 65, and so is a total beyond what a double holds.
extension ReportRenderError: CategorizedError {
    package var category: ErrorCategory {
        if isBeyondFormat || isTotalNotFinite { return .data }
        if message.hasPrefix("cannot create") { return .cannotCreateOutput }
        if errno != nil || message.hasPrefix("cannot ") { return .io }
        return .failure
    }
}
