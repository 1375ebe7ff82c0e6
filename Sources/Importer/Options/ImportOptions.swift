// Every option of an import, as the command line and a YAML profile give it. Each is optional here,
// so a profile and the command line can be merged: the command line wins (`merged(over:)`), and the
// defaults apply last (`ImportSettings`).

import CSV
import ObjectStore

/// What to do with a record that cannot be imported.
package enum OnError: String, Sendable, CaseIterable, Codable {
    /// Import nothing: the whole file is one transaction.
    case abort
    /// Import the good records; write each bad input line to the rejects file.
    case skip
}

/// How the summary is printed.
package enum SummaryFormat: String, Sendable, CaseIterable {
    case text
    case json
}

/// The options as given (nil: not given).
package struct ImportOptions: Sendable, Equatable {
    package var entity: String?
    package var key: String?
    /// CSV column → key path; an empty key path ignores the column.
    package var map: [String: String] = [:]
    /// The order `map` entries were given in (for messages).
    package var mapOrder: [String] = []
    package var ignoreUnknown: Bool?
    package var createMissing: Bool?
    package var delimiter: String?
    package var encoding: String?
    package var dateFormat: String?
    /// true: --decimal-comma; false: --decimal-point; nil: each number column's values decide.
    package var decimalComma: Bool?
    package var nullTokens: [String]?
    package var listSeparator: String?
    package var onError: OnError?
    package var onConflict: RepeatPolicy?
    /// An earlier run's rejects file, reviewed: its lines, rejected again exactly, leave the exit status 0.
    package var acceptRejects: String?
    package var rejects: String?
    package var dryRun: Bool?
    package var quiet: Bool?
    package var summary: SummaryFormat?
    /// Column names for a file without a header line (profiles only).
    package var columns: [String]?

    package init() {}

    /// Adds `--map "CSV column=keypath"` entries, later ones replacing earlier ones for the same column.
    package mutating func addMap(column: String, keyPath: String) {
        if map[column] == nil { mapOrder.append(column) }
        map[column] = keyPath
    }

    /// These options where given, `base` (a profile) where not. Map entries merge per column.
    package func merged(over base: ImportOptions) -> ImportOptions {
        var m = base
        m.entity = entity ?? base.entity
        m.key = key ?? base.key
        for column in mapOrder { m.addMap(column: column, keyPath: map[column]!) }
        m.ignoreUnknown = ignoreUnknown ?? base.ignoreUnknown
        m.createMissing = createMissing ?? base.createMissing
        m.delimiter = delimiter ?? base.delimiter
        m.encoding = encoding ?? base.encoding
        m.dateFormat = dateFormat ?? base.dateFormat
        m.decimalComma = decimalComma ?? base.decimalComma
        m.nullTokens = nullTokens ?? base.nullTokens
        m.listSeparator = listSeparator ?? base.listSeparator
        m.onError = onError ?? base.onError
        m.onConflict = onConflict ?? base.onConflict
        m.acceptRejects = acceptRejects ?? base.acceptRejects
        m.rejects = rejects ?? base.rejects
        m.dryRun = dryRun ?? base.dryRun
        m.quiet = quiet ?? base.quiet
        m.summary = summary ?? base.summary
        m.columns = columns ?? base.columns
        return m
    }
}

/// Where an option came from, so a bad value is reported as a usage error (command line) or a bad
/// configuration (profile, with its file name).
package enum OptionSource: Sendable, Equatable {
    case commandLine
    case profile(String)
}

/// An option that cannot be used: a bad value on the command line (exit 64) or in a profile (exit 78).
package struct ImportOptionError: CategorizedError, Equatable {
    package let message: String
    package let category: ErrorCategory

    package init(_ message: String, source: OptionSource) {
        switch source {
        case .commandLine:
            self.message = message
            category = .usage
        case .profile(let file):
            self.message = "\(file): \(message)"
            category = .configuration
        }
    }

    package init(message: String, category: ErrorCategory) {
        self.message = message
        self.category = category
    }

    package var description: String { message }
}

/// The options resolved, checked and defaulted: what an import job runs with.
package struct ImportSettings: Sendable {
    package var entity: String
    package var key: String?
    package var map: [String: String]
    package var mapOrder: [String]
    package var ignoreUnknown: Bool
    package var createMissing: Bool
    package var delimiter: CSVReader.Delimiter
    package var encoding: CSVEncoding
    package var dateFormat: DateFormat?
    /// The decimal mark of every number column: true a comma, false a point, nil decided per column from its values.
    package var decimalComma: Bool?
    package var nullTokens: [String]
    package var listSeparator: Character
    package var onError: OnError
    package var onConflict: RepeatPolicy
    package var acceptRejects: String?
    package var rejects: String?
    package var dryRun: Bool
    package var quiet: Bool
    package var summary: SummaryFormat
    package var columns: [String]?
    /// Where each option came from, for messages about the mapping.
    package var mapSource: OptionSource

    /// Checks and defaults `options` (already merged). `source(name)` tells where an option came from.
    package init(_ options: ImportOptions, entity: String, source: (String) -> OptionSource) throws(ImportOptionError) {
        self.entity = entity
        key = options.key
        map = options.map
        mapOrder = options.mapOrder
        ignoreUnknown = options.ignoreUnknown ?? false
        createMissing = options.createMissing ?? false
        if let d = options.delimiter {
            guard let parsed = CSVReader.Delimiter(label: d) else {
                throw ImportOptionError("delimiter \"\(d)\" is not one of auto , ; tab | (or another single ASCII character)", source: source("delimiter"))
            }
            delimiter = parsed
        } else {
            delimiter = .auto
        }
        if let e = options.encoding {
            encoding = try ImportSettings.encoding(e, source: source("encoding"))
        } else {
            encoding = .auto
        }
        if let f = options.dateFormat {
            do { dateFormat = try DateFormat(f) } catch {
                throw ImportOptionError("date format \"\(f)\": \(error.message)", source: source("date-format"))
            }
        }
        decimalComma = options.decimalComma
        nullTokens = options.nullTokens ?? []
        let separator = options.listSeparator ?? ","
        guard separator.count == 1, let c = separator.first else {
            throw ImportOptionError("list separator \"\(separator)\" must be one character", source: source("list-separator"))
        }
        listSeparator = c
        onError = options.onError ?? .abort
        rejects = options.rejects
        if rejects != nil && onError != .skip {
            throw ImportOptionError("--rejects needs --on-error skip (with abort, nothing is imported and nothing rejected)", source: source("rejects"))
        }
        onConflict = options.onConflict ?? .error
        acceptRejects = options.acceptRejects
        if acceptRejects != nil && onError != .skip {
            throw ImportOptionError("--accept-rejects needs --on-error skip (it names rejects that may recur)", source: source("accept-rejects"))
        }
        dryRun = options.dryRun ?? false
        quiet = options.quiet ?? false
        summary = options.summary ?? .text
        columns = options.columns
        mapSource = source("map")
    }

    /// The encoding a label names; a refused or unknown one is an option error naming what is accepted.
    package static func encoding(_ label: String, source: OptionSource) throws(ImportOptionError) -> CSVEncoding {
        switch CSVEncoding.parse(label) {
        case .success(let e):
            return e
        case .failure(.refused(let why)):
            throw ImportOptionError("encoding \"\(label)\" is not accepted: \(why); accepted: \(CSVEncoding.accepted)", source: source)
        case .failure(.unknown):
            let suggestion = Suggestions.closest(to: label, in: CSVEncoding.names)
            throw ImportOptionError("unknown encoding \"\(label)\"\(Suggestions.didYouMean(suggestion)); accepted: \(CSVEncoding.accepted)", source: source)
        }
    }
}
