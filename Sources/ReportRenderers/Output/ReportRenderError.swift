// Errors of the renderers.
//
// Why this file exists: a nightly cron job mails what goes wrong; a failure must read as one line
// naming the file (`out/x.xlsx: cannot create (Permission denied)`), with no stack trace. Errors
// thrown by a row source are not wrapped: they pass through unchanged.

import FileOutput
#if canImport(Glibc)
import Glibc
#endif

/// A rendering failure. `description` is one line: `FILE: message`, FILE being the output's path as
/// given (standard output by that name).
package struct ReportRenderError: Error, Sendable, Equatable, CustomStringConvertible {
    enum Kind: Sendable, Equatable {
        /// A system call failed; `operation` completes "cannot …" (`create`, `write`, `sync`, …).
        case io(operation: String, errno: Int32)
        /// libxlsxwriter refused; `message` is its own (`lxw_strerror`).
        case xlsx(operation: String, message: String)
        /// The row source gave a different number of rows than its `rowCount`.
        case rowCountMismatch(declared: Int, given: Int)
        /// Row `row` (1-based) has `cells` cells for `columns` columns.
        case cellCountMismatch(row: Int, cells: Int, columns: Int)
        /// The document contradicts itself (a chart over a column that does not exist, …).
        case invalidDocument(String)
        /// The report is larger than the format holds (more rows or columns than a worksheet): the data's
        /// fault, not the program's.
        case beyondFormat(String)
        /// The total of a column (titled so) is beyond what a double holds: its doubles' sum overflowed.
        case totalNotFinite(column: String)
    }

    /// The output's path as given, `-` for standard output.
    package let file: String
    let kind: Kind

    init(file: String, kind: Kind) {
        self.file = file
        self.kind = kind
    }

    /// The system error number, for failed system calls.
    package var errno: Int32? {
        if case let .io(_, code) = kind { return code }
        return nil
    }

    /// Whether the report is larger than the output format can hold (a data error, not a failure).
    package var isBeyondFormat: Bool {
        if case .beyondFormat = kind { return true }
        return false
    }

    /// Whether a total is not a finite number (a data error, not a failure).
    package var isTotalNotFinite: Bool {
        if case .totalNotFinite = kind { return true }
        return false
    }

    /// The total of `column` (its title) overflowed, rendering to `file`.
    static func totalNotFinite(file: String, column: String) -> ReportRenderError {
        ReportRenderError(file: file, kind: .totalNotFinite(column: column))
    }

    /// The message without the file name.
    package var message: String {
        switch kind {
        case let .io(operation, code):
            return "cannot \(operation) (\(String(cString: strerror(code))))"
        case let .xlsx(operation, message):
            return "cannot \(operation) (\(message))"
        case let .rowCountMismatch(declared, given):
            let announced = declared == 1 ? "1 row" : "\(declared) rows"
            return given > declared ? "the report announced \(announced) but its source gave more"
                : "the report announced \(announced) but its source gave \(given)"
        case let .cellCountMismatch(row, cells, columns):
            return "row \(row) has \(cells == 1 ? "1 cell" : "\(cells) cells"), "
                + "but the report has \(columns == 1 ? "1 column" : "\(columns) columns")"
        case let .invalidDocument(message), let .beyondFormat(message):
            return message
        case let .totalNotFinite(column):
            // True also when only a partial sum overflows (1.7e308 + 1.7e308 − 1.7e308): the sum is added in order.
            return "the total of column \"\(column)\" overflows a double (±\(Double.greatestFiniteMagnitude)) as its values "
                + "are added up, and is not written as a number"
        }
    }

    /// `FILE: message`; a total that overflows at standard output is the data's fault, not the output's, and is
    /// named as `fetch` names it, without `-: `.
    package var description: String { file == "-" && isTotalNotFinite ? message : "\(FileOutputError.shownName(file)): \(message)" }
}
