import Yams

/// libyaml's problem and its place, for a one-line message. Yams' own description adds the source line and a
/// caret: three lines where every message is one, and a control character in the file (the usual reader error)
/// went raw to the terminal.
package struct YAMLProblem: Sendable, Equatable {
    /// `control characters are not allowed (U+001B)`, `did not find expected key`.
    package let problem: String
    /// What libyaml was reading when it failed: `while parsing a block mapping at line 2`.
    package let context: String?
    /// 1-based, as libyaml counts lines (LF, CR LF and CR each end one).
    package let line: Int
    /// 1-based, counted in Unicode scalars as libyaml counts.
    package let scalarColumn: Int
}

extension YamlError {
    /// The problem and place of a reader, scanner, parser or composer error; nil for the others.
    package var located: YAMLProblem? {
        switch self {
        case let .reader(problem, offset, value, yaml):
            guard let offset, let end = yaml.index(yaml.startIndex, offsetBy: offset, limitedBy: yaml.endIndex) else { return nil }
            var line = 1, column = 1
            // A byte-order mark takes no column, as in libyaml's own marks; "\r\n" is one Character, one break.
            let start = yaml.first == "\u{FEFF}" && offset > 0 ? yaml.index(after: yaml.startIndex) : yaml.startIndex
            for c in yaml[start..<end] {
                if c == "\n" || c == "\r\n" || c == "\r" { line += 1; column = 1 } else { column += c.unicodeScalars.count }
            }
            let code = value >= 0 ? " (U+\(Self.hex(UInt32(value))))" : ""
            return YAMLProblem(problem: problem + code, context: nil, line: line, scalarColumn: column)
        case let .scanner(context, problem, mark, _), let .parser(context, problem, mark, _),
             let .composer(context, problem, mark, _):
            return YAMLProblem(problem: problem, context: context.map { "\($0.text) at line \($0.mark.line)" },
                               line: mark.line, scalarColumn: mark.column)
        default:
            return nil
        }
    }

    private static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
