// Where a rendered report goes.

/// Standard output, or a file (written through `OutputFile`: atomically, or in place for a device or pipe).
package enum ReportOutput: Sendable, Hashable, CustomStringConvertible {
    case standardOutput
    case file(path: String)

    /// `-` is standard output; anything else a file path.
    package init(path: String) {
        self = path == "-" ? .standardOutput : .file(path: path)
    }

    /// The name used in messages: the path as given, `-` for standard output.
    package var description: String {
        switch self {
        case .standardOutput: return "-"
        case let .file(path): return path
        }
    }
}
