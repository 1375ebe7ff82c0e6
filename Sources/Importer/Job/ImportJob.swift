// One import: CSV → mapping → values → the store's batch writer, in one transaction.
//
// `ImportPlan` decides what the import does before anything is written; `ImportPass` reads the records into
// the batch (its loops in ImportPass+Loops.swift). The engine does the writing and the validation; the pass
// maps each problem back to its line and column, and with `--on-error skip` rolls back and rejects the unit
// at fault (a line, or a document with all its lines) while the rest goes on. This file runs the passes in
// the transaction and turns their outcome into the summary or the failure.

import CSV
import Foundation
import ObjectStore

package final class ImportJob {
    package let store: Store
    package let settings: ImportSettings
    /// The input path as given (`-` is standard input).
    package let path: String

    package init(store: Store, path: String, settings: ImportSettings) {
        self.store = store
        self.path = path
        self.settings = settings
    }

    /// Runs the import. Returns the summary; throws `ImportFailure` when records were rejected (after
    /// committing the good ones with --on-error skip) or nothing was imported, and the input and store
    /// errors as they are.
    package func run(progressEnabled: Bool = true) throws -> ImportSummary {
        let started = Timestamp.now()
        let clock = DispatchTime.now().uptimeNanoseconds
        let input = try InputFile(path: path)
        let readerOptions = CSVReader.Options(delimiter: settings.delimiter, encoding: settings.encoding)
        var reader: CSVReader
        do {
            reader = try input.reader(options: readerOptions)
        } catch let error as CSVError {
            throw ImportFailure(error)
        }
        let plan = try ImportPlan(model: store.model, settings: settings, file: path, reader: reader)
        let split = SplitDocuments(canReadAgain: input.canReadAgain)
        let accepted = try settings.acceptRejects.map { try AcceptedRejects(path: $0, delimiter: reader.delimiter) }
        var pass = ImportPass(plan: plan, settings: settings, model: store.model, split: split,
                              rejects: try rejectsWriter(plan, reader), accepted: accepted)
        let progress = ProgressBar(totalBytes: input.size, enabled: progressEnabled && !settings.quiet)

        var records = 0
        var finalError: ImportFailure?
        var counts: [String: BatchCounts] = [:]
        var sha = ""
        var passCount = 1
        // Usually one pass. With --on-error skip, a document whose lines are apart and whose later lines fail after
        // its earlier ones were kept cannot be taken back alone: the pass is rolled back and the file read again,
        // rejecting that document's lines wherever they are (each further pass rejects one more such document).
        passes: while true {
            do {
                try store.batch(dryRun: settings.dryRun) { writer in
                    do {
                        records = try pass.run(reader, writer, progress)
                    } catch let error as CSVError {
                        // A final reader error (encoding, an unterminated quote): nothing after it can be read.
                        finalError = ImportFailure(error)
                        throw error
                    }
                    counts = writer.counts
                    if pass.issues.total > 0 && settings.onError == .abort { throw AbortImport() }
                    sha = try input.sha256()
                    // The bytes hashed and imported are the file's as it was opened (checked after the hash is done).
                    try input.checkUnchanged()
                    if !settings.dryRun {
                        let seconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9
                        try writer.recordImport(ImportJournalEntry(
                            file: path, sha256: sha, startedAt: started, seconds: seconds, entity: plan.entity.name,
                            records: records, rejected: pass.rejectedLines, counts: counts, encoding: reader.encoding.name))
                    }
                    try pass.rejects?.prepare()
                }
                break passes
            } catch is ReadAgain {
                pass.rejects?.discard()
                try input.checkUnchanged()
                do {
                    guard let again = try input.readerFromStart(options: readerOptions) else { throw ReadAgain() }
                    reader = again
                    if !plan.headerless { _ = try reader.next() }
                } catch let error as CSVError {
                    throw ImportFailure(error)
                }
                pass = ImportPass(plan: plan, settings: settings, model: store.model, split: split,
                                  rejects: try rejectsWriter(plan, reader), accepted: accepted)
                passCount += 1
                continue passes
            } catch is AbortImport {
                progress?.finish()
                pass.rejects?.discard()
                // Problems read from a file another program was writing are that program's: say so instead.
                try input.checkUnchanged()
                var lines = pass.issues.rendered(file: path)
                lines.append("nothing was imported: the whole file is one transaction (--on-error skip imports the good records and writes the bad ones to --rejects)")
                throw ImportFailure(lines: lines, category: .data)
            } catch {
                progress?.finish()
                pass.rejects?.discard()
                if error is ImportFailure || error is CSVError || finalError != nil { try input.checkUnchanged() }
                if let finalError {
                    throw ImportFailure(lines: pass.issues.rendered(file: path) + finalError.lines + ["nothing was imported"],
                                        category: finalError.category)
                }
                // The store's and SQLite's own failures (busy, I/O, a damaged file, a constraint) pass as they are:
                // one line with their own status; the transaction was rolled back.
                throw error
            }
        }
        progress?.finish()

        let seconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9
        var removedRejects = false
        if let rejects = pass.rejects {
            do {
                removedRejects = try rejects.close()
            } catch {
                // The store has committed: say so, and what failed after it.
                throw ImportFailure(lines: ["\(error)", "the import was committed; only the rejects file could not be put in place"],
                                    category: .io)
            }
        }
        var summary = makeSummary(pass, records: records, seconds: seconds, sha: sha, counts: counts)
        summary.encoding = reader.encoding.name
        if removedRejects { summary.removedRejectsFile = settings.rejects }
        summary.passes = passCount
        if pass.conflicts > 0 {
            summary.conflicts = pass.conflicts
            summary.onConflict = settings.onConflict.rawValue
            summary.conflictLines = pass.conflictNotes
        }
        if let superseded = pass.rejects?.supersededCount, superseded > 0 { summary.supersededRejects = superseded }
        if let accepted {
            summary.knownRejects = accepted.matched
            summary.acceptedNotRecurring = accepted.notRecurring
            // Every rejected line known: the night's problems are the ones the operator accepted.
            if pass.rejectedLines > 0 && accepted.unmatched == 0 && accepted.matched == pass.rejectedLines { return summary }
        }
        if pass.issues.total > 0 {
            let rejected = pass.rejectedLines
            var lines = pass.issues.rendered(file: path)
            if let accepted, accepted.matched > 0 {
                lines.append("\(accepted.matched) of the rejected lines \(accepted.matched == 1 ? "is" : "are") known (\(accepted.path)); "
                             + "\(accepted.unmatched) \(accepted.unmatched == 1 ? "is" : "are") new")
            }
            var written = ""
            if let rejects = pass.rejects, !settings.dryRun {
                let superseded = rejects.supersededCount
                written = superseded == 0 ? " (written to \(settings.rejects!))"
                    : " (\(rejects.count) written to \(settings.rejects!); \(superseded) left out: a later line of \(superseded == 1 ? "its" : "their") key was kept)"
            }
            lines.append("\(rejected) record\(rejected == 1 ? "" : "s") rejected\(written); the others were \(settings.dryRun ? "checked" : "imported")")
            throw ImportFailure(lines: lines, category: .data, summary: summary)
        }
        return summary
    }

    struct AbortImport: Error {}

    /// The rejects file of a pass, with the header; opened before anything is imported, so that an unwritable
    /// or forbidden path fails first.
    func rejectsWriter(_ plan: ImportPlan, _ reader: CSVReader) throws -> RejectsWriter? {
        guard let path = settings.rejects, !settings.dryRun else { return nil }
        let rejects = try RejectsWriter(path: path, reader: reader, header: plan.headerRaw, fieldCount: plan.fieldCount)
        rejects.holdsByKey = settings.onConflict == .last && plan.shape == .records
        return rejects
    }

    func makeSummary(_ pass: ImportPass, records: Int, seconds: Double, sha: String, counts: [String: BatchCounts]) -> ImportSummary {
        var order = [pass.entity.name]
        if let r = pass.rowsEntity { order.append(r.name) }
        order += counts.keys.filter { !order.contains($0) }.sorted()
        let entities = order.map { name -> ImportSummary.EntityCounts in
            let c = counts[name] ?? BatchCounts()
            return ImportSummary.EntityCounts(entity: name, inserted: c.inserted, updated: c.updated, unchanged: c.unchanged,
                                              deleted: c.deleted, rejected: pass.rejectedCounts[name] ?? 0)
        }
        return ImportSummary(file: path, entity: pass.entity.name, sha256: sha.isEmpty ? nil : sha, dryRun: settings.dryRun,
                             records: records, seconds: seconds,
                             recordsPerSecond: seconds > 0 ? Double(records) / seconds : 0,
                             entities: entities, ignoredColumns: pass.plan.unknown,
                             rejected: pass.rejectedLines,
                             rejectsFile: (pass.rejects?.count ?? 0) > 0 ? settings.rejects : nil,
                             errors: pass.issues.shown, errorCount: pass.issues.total)
    }
}
