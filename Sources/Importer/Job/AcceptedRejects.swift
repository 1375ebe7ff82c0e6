// `--accept-rejects FILE`: an earlier run's rejects file, reviewed by the operator, naming the problems a
// nightly export is known to have (a product ID with two names). A line rejected again exactly — the same
// fields and the same reason, but for the line numbers a reason names — is known; an import whose every rejected line is known exits 0, and any new
// problem still exits 65. Why: a job that exits 65 every night for the same three lines teaches its operator
// to ignore the status, and then the night a new problem comes it is ignored too.

import CSV
import FileOutput
import Foundation

final class AcceptedRejects {
    let path: String
    /// Each known line with how many times the file has it: a known line rejected more often than that is new (an
    /// upstream fault that repeats a bad line went unnoticed when known lines were a set).
    private var known: [[String]: Int] = [:]
    private let delimiter: CSVReader.Delimiter
    /// How many known lines this import rejected again, and how many rejected lines were new.
    private(set) var matched = 0
    private(set) var unmatched = 0
    /// How many times this import rejected each known line again (so that those that no longer occur can be counted).
    private var seenCounts: [[String]: Int] = [:]

    /// Reads the file as `import` reads a CSV (its encoding and delimiter as the input's, or sniffed); a missing
    /// or unreadable file is an input error.
    init(path: String, delimiter: UInt8) throws {
        self.path = path
        self.delimiter = CSVReader.Delimiter(label: String(UnicodeScalar(delimiter))) ?? .auto
        // Tonight's rejects written over it would accept tomorrow whatever is new tonight: no output may replace it.
        ProtectedFiles.protect(path, as: "the accepted rejects file (--accept-rejects)")
        guard FileManager.default.fileExists(atPath: path) else {
            throw ImportInputError(message: "\(path): no such file (--accept-rejects)", category: .missingInput)
        }
        let reader: CSVReader
        do {
            reader = try CSVReader(path: path, options: CSVReader.Options(delimiter: self.delimiter))
            var first = true
            while let record = try reader.next() {
                let fields = (0..<record.count).map { record[$0] }
                // The header the rejects file begins with (its last column is `reason`).
                if first, fields.last == "reason" { first = false; continue }
                first = false
                known[AcceptedRejects.normalized(fields), default: 0] += 1
            }
        } catch let error as CSVError {
            throw ImportFailure(lines: ["\(error.description) (--accept-rejects)"], category: .data)
        }
    }

    /// Notes a line this import rejects; returns whether it is known.
    @discardableResult
    func note(raw: String, reason: String) -> Bool {
        var fields: [String] = []
        if let reader = try? CSVReader(string: raw, options: CSVReader.Options(delimiter: delimiter)),
           let record = try? reader.next() {
            fields = (0..<record.count).map { record[$0] }
        }
        fields.append(reason)
        fields = AcceptedRejects.normalized(fields)
        if let times = known[fields], (seenCounts[fields] ?? 0) < times {
            matched += 1
            seenCounts[fields, default: 0] += 1
            return true
        }
        unmatched += 1
        return false
    }

    /// The fields with the reason's line numbers left out: a document's reason names the line where it failed
    /// (`rejected with Order "7" (line 12: …)`), which moves when the export gains a line above it.
    static func normalized(_ fields: [String]) -> [String] {
        guard var reason = fields.last, reason.contains("line ") else { return fields }
        var out = ""
        while let r = reason.range(of: "line ") {
            out += reason[..<r.upperBound]
            reason = String(reason[r.upperBound...])
            let digits = reason.prefix { $0.isASCII && $0.isNumber }
            if !digits.isEmpty { out += "#"; reason.removeFirst(digits.count) }
        }
        return fields.dropLast() + [out + reason]
    }

    /// Known lines this import did not reject (fixed at the source, or no longer in the export).
    var notRecurring: Int { known.values.reduce(0, +) - seenCounts.values.reduce(0, +) }

    /// Forgets what a pass noted (the input is read again).
    func reset() {
        matched = 0
        unmatched = 0
        seenCounts = [:]
    }
}
