// What an import did, per entity, as text for people and JSON for pipelines (`--summary json`).
// Both are contracts: scripts read them. Add fields; never rename one.

import Foundation
import FileOutput
import ObjectStore

package struct ImportSummary: Sendable, Codable, Equatable {
    package struct EntityCounts: Sendable, Codable, Equatable {
        package var entity: String
        package var inserted = 0
        package var updated = 0
        package var unchanged = 0
        package var deleted = 0
        package var rejected = 0
    }

    package var file: String
    package var entity: String
    package var sha256: String?
    package var dryRun: Bool
    /// Data records read (the header not counted).
    package var records: Int
    package var seconds: Double
    package var recordsPerSecond: Double
    package var entities: [EntityCounts]
    /// Columns ignored because they map to nothing (with --ignore-unknown).
    package var ignoredColumns: [String]
    package var rejected: Int
    package var rejectsFile: String?
    /// An earlier rejects file removed because nothing was rejected this time.
    package var removedRejectsFile: String?
    /// The errors shown (the first 20) and how many there were in all.
    package var errors: [ImportIssue]
    package var errorCount: Int
    /// The encoding the input was read in (`utf-8`, `windows-1251`, `utf-16le`).
    package var encoding: String?
    /// How many times the input was read: 1, or 2 when the first reading learnt what only the whole file decides
    /// (documents whose lines are apart that failed late, a number column's decimal mark; see docs/import.md).
    package var passes: Int?
    /// Lines that gave a key again with other values, kept by --on-conflict first or last, and the policy.
    package var conflicts: Int?
    package var onConflict: String?
    /// The first few such lines: `line 7: Customer "X" (first given on line 3)`.
    package var conflictLines: [String]?
    /// With --accept-rejects: rejected lines found in the accepted file, and its lines that did not recur.
    /// With --on-conflict last: rejected lines left out of the rejects file because a later line of their key was kept.
    package var supersededRejects: Int?
    package var knownRejects: Int?
    package var acceptedNotRecurring: Int?

    /// The entity's line, e.g. `Order  0 inserted, 0 updated, 50 unchanged, 0 rejected`.
    func line(_ c: EntityCounts, width: Int, rowsEntity: Bool) -> String {
        var s = c.entity.padding(toLength: width, withPad: " ", startingAt: 0)
        s += "  \(c.inserted) inserted, \(c.updated) updated, \(c.unchanged) unchanged"
        if rowsEntity || c.deleted > 0 { s += ", \(c.deleted) deleted" }
        s += ", \(c.rejected) rejected"
        return s
    }

    /// The summary for people, several lines.
    /// `rowEntities`: the row tables, whose lines always show `deleted`.
    package func text(rowEntities: Set<String> = []) -> String {
        let perSecond = recordsPerSecond >= 1 ? String(Int(recordsPerSecond.rounded())) : String(format: "%.1f", recordsPerSecond)
        var lines = ["\(file) → \(entity): \(records) record\(records == 1 ? "" : "s") in \(String(format: "%.2f", seconds)) s (\(perSecond) records/s)\(encoding.map { ", \($0)" } ?? "")"]
        let width = entities.map(\.entity.count).max() ?? 0
        for c in entities { lines.append("  " + line(c, width: width, rowsEntity: rowEntities.contains(c.entity))) }
        if !ignoredColumns.isEmpty {
            lines.append("ignored columns: " + ignoredColumns.map { "\"\($0)\"" }.joined(separator: ", "))
        }
        if rejected > 0, let rejectsFile, !dryRun {
            lines.append("\(rejected) rejected line\(rejected == 1 ? "" : "s") written to \(rejectsFile)")
        }
        if let removedRejectsFile {
            lines.append("removed the earlier rejects file \(removedRejectsFile): nothing was rejected")
        }
        if let conflicts, conflicts > 0 {
            lines.append("\(conflicts) line\(conflicts == 1 ? "" : "s") gave a key again with other values; the \(onConflict ?? "first") values were kept (--on-conflict \(onConflict ?? "first")): "
                         + (conflictLines ?? []).joined(separator: "; ") + (conflicts > (conflictLines?.count ?? 0) ? "; …" : ""))
        }
        if let supersededRejects {
            lines.append("\(supersededRejects) rejected line\(supersededRejects == 1 ? " is" : "s are") not in the rejects file: a later line of "
                         + "\(supersededRejects == 1 ? "its" : "their") key was kept (--on-conflict last)")
        }
        if let knownRejects {
            lines.append("\(knownRejects) rejected line\(knownRejects == 1 ? " is" : "s are") known (--accept-rejects)"
                         + (acceptedNotRecurring.map { $0 > 0 ? "; \($0) accepted line\($0 == 1 ? "" : "s") no longer occur\($0 == 1 ? "s" : "")" : "" } ?? ""))
        }
        if let passes, passes > 1 {
            lines.append("read \(passes) times: the first reading learnt what only the whole file decides (a number column's decimal mark, documents whose lines are apart)")
        }
        if dryRun { lines.append("dry run: nothing was written") }
        // The file names, column names and keys in it are written as the messages write them (VisibleText): a
        // line feed in a file name began a forged `bookkeeper:` line in the cron mail, an ESC acted on the terminal.
        return lines.map(VisibleText.escaped).joined(separator: "\n")
    }

    /// The summary as one JSON object (keys sorted).
    package func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try! encoder.encode(self)
        return String(decoding: data, as: UTF8.self)
    }
}
