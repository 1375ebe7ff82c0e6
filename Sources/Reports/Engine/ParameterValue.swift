// Parameter values: text from a definition's default or from `--param NAME=VALUE`, read as the
// parameter's declared type, then handed to the predicate as the text of its `$NAME` variable.

import Foundation
import ObjectStore

/// A parameter's value, typed.
package enum ParameterValue: Sendable, Hashable, CustomStringConvertible {
    case date(Day)
    case string(String)
    case number(DecimalNumber)
    case boolean(Bool)

    /// The text the predicate binder reads for `$NAME` (it types it again by what it is compared with).
    var variableText: String {
        switch self {
        case .date(let day): day.description
        case .string(let text): text
        case .number(let number): number.description
        case .boolean(let value): value ? "yes" : "no"
        }
    }

    /// As shown in report headers: `2026-11-21`, `yes`.
    package var description: String { variableText }
}

extension ParameterType {
    /// Reads `text` as a value of this type (relative dates against `today`), or says why it cannot.
    func value(_ text: String, today: Day) -> Result<ParameterValue, ParameterValueError> {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        switch self {
        case .string:
            return .success(.string(text))
        case .number:
            if let number = DecimalNumber(exactly: trimmed) { return .success(.number(number)) }
            return .failure(ParameterValueError(message: "\"\(text)\" is not a number (write 1234.50: digits, a point, no grouping)"))
        case .boolean:
            switch trimmed.lowercased() {
            case "yes", "y", "true", "1": return .success(.boolean(true))
            case "no", "n", "false", "0": return .success(.boolean(false))
            default: return .failure(ParameterValueError(message: "\"\(text)\" is not a boolean (write yes or no)"))
            }
        case .date:
            guard let relative = RelativeDate(parsing: trimmed) else {
                let suggestion = Suggestions.closest(to: trimmed.lowercased(), in: RelativeDate.phrases)
                return .failure(ParameterValueError(
                    message: "\"\(text)\" is not a date (write \(RelativeDate.forms))\(Suggestions.didYouMean(suggestion))"))
            }
            guard let day = relative.resolve(today: today) else {
                return .failure(ParameterValueError(message: "\"\(text)\" falls outside the years 1 to 9999"))
            }
            return .success(.date(day))
        }
    }
}

struct ParameterValueError: Error {
    let message: String
}
