// The three reading loops of an import pass (see ImportPlan.swift for the shapes).

import CSV
import Foundation
import ObjectStore

extension ImportPass {
    func reason(_ problems: [ImportIssue]) -> String {
        problems.map(\.message).joined(separator: "; ")
    }

    /// The loop of the shapes with one record per line: counts lines and reports progress, refuses a line with
    /// the wrong number of fields, and gives each other line to `write`, which returns its problems. With
    /// `--on-error skip` each record is a savepoint: kept when it has no problem, else rolled back and its line
    /// rejected.
    func eachRecord(_ reader: CSVReader, _ writer: BatchWriter, _ progress: ProgressBar?, fields: Int,
                    _ write: (CSVRecord) throws -> [ImportIssue]) throws -> Int {
        let skip = settings.onError == .skip
        var n = 0
        while let record = try nextRecord(reader, count: &n, progress, fields: fields) {
            if skip { try writer.beginRecord() }
            let problems = try write(record)
            if problems.isEmpty {
                if skip { try writer.commitRecord() }
                continue
            }
            for p in problems { issues.add(p) }
            if skip {
                try writer.rollbackRecord()
                let key = rejects?.holdsByKey == true && keyColumn < record.count ? record[keyColumn] : nil
                try reject([record.rawText], reason: reason(problems), entity: entity.name, key: key)
            }
        }
        return n
    }

    /// The next record with the header's number of fields: counts it and reports progress, and refuses (rejects,
    /// with --on-error skip) each record on the way that has another number of fields.
    /// With `groupedBy` (the column naming a line's document), a line with another number of fields that still
    /// names its document is returned with its problem in `malformed`: it belongs to that document, which is then
    /// rejected whole (rejected alone, it left the document with its other lines).
    func nextRecord(_ reader: CSVReader, count n: inout Int, _ progress: ProgressBar?, fields: Int,
                    groupedBy: Int? = nil, malformed: UnsafeMutablePointer<ImportIssue?>? = nil) throws -> CSVRecord? {
        while let record = try reader.next() {
            n += 1
            if n & 8191 == 0 { progress?.update(bytes: record.byteOffset, records: n) }
            if let header = plan.headerFields, record.count == header.count, isHeaderAgain(record, header) {
                // Not a record: a customer named "name" was imported from the second file's header.
                let problem = ImportIssue(line: record.line, record: record.number,
                                          message: "this line is the header again (two files joined?), not a record")
                issues.add(problem)
                if settings.onError == .skip { try reject([record.rawText], reason: problem.message, entity: entity.name) }
                continue
            }
            if let problem = checkFieldCount(record, expected: fields) {
                if let groupedBy, let malformed, groupedBy < record.count, record.count > 1 {
                    malformed.pointee = problem
                    return record
                }
                issues.add(problem)
                if settings.onError == .skip { try reject([record.rawText], reason: problem.message, entity: entity.name) }
                continue
            }
            return record
        }
        return nil
    }

    /// Whether every field of the line is the header's (the first compared as bytes, so that a usual line costs one
    /// comparison of its first field).
    func isHeaderAgain(_ record: CSVRecord, _ header: [String]) -> Bool {
        let first = record.withBytes(ofField: 0) { b in b.count == header[0].utf8.count && b.elementsEqual(header[0].utf8) }
        guard first else { return false }
        for i in 1..<header.count where record[i] != header[i] { return false }
        return true
    }

    /// Directories, and documents without rows: one record per line.
    func importRecords(_ reader: CSVReader, _ writer: BatchWriter, _ progress: ProgressBar?, fields: Int) throws -> Int {
        let r = try writer.record(entity.name)
        return try eachRecord(reader, writer, progress, fields: fields) { record in
            r.reset()
            let problems = fill(r, from: record, columns: mainColumns, writer: writer)
            guard problems.isEmpty else { return problems }
            do {
                let (id, outcome) = try writer.upsert(r, by: key!)
                let waiting = noteDeferred(id, outcome, record, mainColumns)
                if !waiting.isEmpty { return waiting }
                if outcome == .conflicted { noteConflict(line: record.line, id: id, label: "\(entity.name) \"\(record[keyColumn])\"") }
                if let rejects, rejects.holdsKeys { rejects.supersede(record[keyColumn]) }
                if outcome != .repeated && outcome != .conflicted { firstLines[id] = Int32(record.line) }
                // With --on-error skip a record that would break a rule of the model is rejected alone.
                if settings.onError == .skip {
                    return try writer.ruleViolations(of: entity.name, id: id).map { issue(record, nil, $0) }
                }
                return []
            } catch {
                if isFatal(error) { throw error }
                return issues(of: error, record, columns: mainColumns)
            }
        }
    }

    /// Documents with their rows in one file: the lines of one document together form one unit.
    func importDocuments(_ reader: CSVReader, _ writer: BatchWriter, _ progress: ProgressBar?, fields: Int) throws -> Int {
        try importGrouped(reader, writer, progress, fields: fields, rowsOf: nil)
    }

    /// The loop of both document shapes. `rowsOf` is nil for documents with their rows in one file; for a row
    /// table on its own it is the to-one relationship to the document and the column that names it: then each line
    /// is a row, the document must exist, and a document's lines are kept or rejected together just the same.
    private func importGrouped(_ reader: CSVReader, _ writer: BatchWriter, _ progress: ProgressBar?, fields: Int,
                               rowsOf: (relationship: EntityRelationship, column: Column)?) throws -> Int {
        let rowsOnly = rowsOf != nil
        let rowsName = rowsOnly ? entity.name : rowsEntity!.name
        let documentName = rowsOf?.relationship.destination ?? entity.name
        let documentRules = model.entity(named: documentName)?.rules.isEmpty == false
        let cells = self.cells
        let mainColumns = rowsOnly ? [] : self.mainColumns
        // A row table's column naming the document is read once per document, when its first line opens it.
        let rowColumns = rowsOf.map { p in self.mainColumns.filter { $0.index != p.column.index } } ?? self.rowColumns
        let keyColumn = rowsOf?.column.index ?? self.keyColumn
        let own = try writer.record(entity.name)
        let row = try writer.record(rowsName)
        let skip = settings.onError == .skip
        var n = 0
        // Found in this pass, for the next (see `closeGroup`): all of them are learnt in one pass, so that the
        // file is read at most once more however many documents fail late.
        var lateRejections: [[UInt8]: SplitDocuments.Rejection] = [:]
        var lateRulesAtEnd: Set<[UInt8]> = []

        // The document being read: its key's bytes, its own cells' bytes (to check that later lines agree).
        var open = false
        var groupKey: [UInt8] = []
        // The document the key names, in one normal form: lines that spell it in NFC and NFD (which the store matches
        // as one key) are one document's lines, kept or rejected together.
        var docKey: [UInt8] = []
        var ownBytes: [UInt8] = []
        var ownRanges: [Range<Int>] = Array(repeating: 0..<0, count: mainColumns.count)
        var parent: Int64?
        var firstLine = 0
        var failed = false
        var failure = ""
        var lines: [(raw: String, reason: String?)] = []
        var rowLines = 0
        var label: String { "\(documentName) \"\(String(decoding: groupKey, as: UTF8.self))\"" }
        // With --on-error skip a document is kept or rejected with all its lines. Its lines may be apart in the
        // file: each stretch is remembered (its first line, whether it was rejected). A later stretch of a
        // rejected document is rejected with it; a later stretch that fails after an earlier one was kept
        // cannot make the document whole in this pass: `run` reads the file again, rejecting the document
        // from its first line (`split.rejections`), with the problems this pass found. A rule is about the whole
        // document: when a stretch broke one and the document has more lines further on, the file is read again
        // and that document's rules are checked at the end of the file (`rulesAtEnd`), once all its rows are in.
        var stretches: [[UInt8]: (line: Int, rejected: Bool, forRule: Bool)] = [:]
        var earlier: (line: Int, rejected: Bool, forRule: Bool)?
        var brokeRule = false
        /// Documents whose rules wait for the end of the file: their ID and the first line of their last stretch.
        var checkAtEnd: [[UInt8]: (id: Int64, line: Int)] = [:]
        var stretchIssues: [ImportIssue] = []
        var reasons: [Int: String] = [:]
        /// In a later pass, the failed stretch of a document rejected whole: its problems as first found.
        var replay: SplitDocuments.Rejection?
        func note(_ issue: ImportIssue) {
            issues.add(issue)
            if skip { stretchIssues.append(issue) }
        }

        func closeGroup() throws {
            guard open else { return }
            open = false
            if let parent { writer.endRows(rowsName, of: parent) }
            guard skip else { return }
            // The document with all its rows must keep the model's rules, or it is rejected whole.
            if !failed, let parent, split.rulesAtEnd.contains(docKey) {
                checkAtEnd[docKey] = (parent, firstLine)
            } else if !failed, let parent, documentRules {
                try writer.finishRows(rowsName, of: parent)
                let broken = try writer.ruleViolations(of: documentName, id: parent)
                if !broken.isEmpty {
                    failed = true
                    brokeRule = true
                    failure = "line \(firstLine): \(broken.joined(separator: "; "))"
                    for message in broken { note(ImportIssue(line: firstLine, message: "\(label): \(message)")) }
                    if !lines.isEmpty { lines[0].reason = lines[0].reason ?? "\(label): \(broken.joined(separator: "; "))" }
                }
            }
            if failed, let earlier, !earlier.rejected {
                if split.canReadAgain {
                    // Its earlier lines are in this pass's transaction: the pass goes on to learn every such
                    // document, and the next one rejects them all from their first lines.
                    if let r = lines.first?.reason { reasons[firstLine] = r }
                    if lateRejections[docKey] == nil {
                        lateRejections[docKey] = SplitDocuments.Rejection(failure: failure, start: firstLine, issues: stretchIssues, reasons: reasons)
                    }
                    try writer.rollbackRecord()
                    return
                }
                throw ImportFailure(lines: issues.rendered(file: file) + [
                    "\(label): its lines are not together (line \(earlier.line) was accepted, line \(firstLine) is wrong), "
                    + "so the document can be neither kept nor rejected whole from \(file == "-" ? "standard input" : "a pipe or a device"), "
                    + "which cannot be read again; nothing was imported — put each document's lines together, fix line \(firstLine), "
                    + "or import from a regular file, which is read again to reject the document whole"], category: .data)
            }
            if stretches[docKey] == nil { stretches[docKey] = (firstLine, failed, brokeRule) }
            if failed {
                try writer.rollbackRecord()
                if rowsOnly {
                    rejectedCounts[rowsName, default: 0] += lines.count
                } else {
                    if earlier == nil { rejectedCounts[entity.name, default: 0] += 1 }   // a document counts once
                    rejectedCounts[rowsName, default: 0] += rowLines
                }
                rejectedLines += lines.count
                for l in lines { try writeReject(l.raw, reason: l.reason ?? "rejected with \(label) (\(failure))") }
            } else {
                try writer.commitRecord()
            }
        }

        var malformedLine: ImportIssue?
        while let record = try nextRecord(reader, count: &n, progress, fields: fields, groupedBy: keyColumn, malformed: &malformedLine) {
            var problems: [ImportIssue] = []
            let malformed = malformedLine
            malformedLine = nil
            let same = open && record.withBytes(ofField: keyColumn) { b in
                b.count == groupKey.count && (b.count == 0 || groupKey.withUnsafeBufferPointer { memcmp(b.baseAddress!, $0.baseAddress!, b.count) == 0 })
            }
            if !same {
                try closeGroup()
                open = true
                groupKey.removeAll(keepingCapacity: true)
                record.withBytes(ofField: keyColumn) { groupKey.append(contentsOf: $0) }
                docKey = groupKey.allSatisfy({ $0 < 0x80 }) ? groupKey
                    : Array(TextNormalForm.nfc(String(decoding: groupKey, as: UTF8.self)).utf8)
                ownBytes.removeAll(keepingCapacity: true)
                for (k, c) in mainColumns.enumerated() {
                    let start = ownBytes.count
                    // A line with fields missing (`malformed`) has no cell for every column.
                    if c.index < record.count { record.withBytes(ofField: c.index) { ownBytes.append(contentsOf: $0) } }
                    ownRanges[k] = start..<ownBytes.count
                }
                parent = nil
                firstLine = record.line
                failed = false
                failure = ""
                lines.removeAll(keepingCapacity: true)
                stretchIssues.removeAll()
                reasons.removeAll()
                replay = nil
                brokeRule = false
                rowLines = 0
                if skip { try writer.beginRecord() }
                earlier = skip ? stretches[docKey] : nil
                var judgeWhole = false
                if let earlier, earlier.rejected, earlier.forRule, split.canReadAgain, !split.rulesAtEnd.contains(docKey) {
                    // Its first stretch broke a rule, but the document goes on: the next pass judges it whole.
                    lateRulesAtEnd.insert(docKey)
                    judgeWhole = true
                }
                own.reset()
                if judgeWhole || lateRejections[docKey] != nil {
                    // Decided by the next pass; until then its lines stay out of this one.
                    failed = true
                    failure = "read again"
                    problems = []
                } else if skip, let rejection = split.rejections[docKey] {
                    // Rejected whole in this pass: its stretch that failed keeps the problems first found.
                    failed = true
                    failure = rejection.failure
                    problems = []
                    if rejection.start == firstLine {
                        replay = rejection
                        for i in rejection.issues { issues.add(i) }
                    }
                } else if let earlier, earlier.rejected {
                    // Lines of a document rejected earlier in the file: rejected with it.
                    failed = true
                    failure = "its lines from line \(earlier.line) on were rejected"
                    problems = []
                } else if let malformed {
                    problems = [malformed]
                } else if let rowsOf {
                    // A row table: the document the line names must exist; its row is read below.
                    own.reset()
                    problems = fill(own, from: record, columns: [rowsOf.column], writer: writer)
                    if problems.isEmpty {
                        if let id = own.reference(rowsOf.relationship.name) {
                            do {
                                try writer.beginRows(like: row, of: id)
                                parent = id
                            } catch {
                                if isFatal(error) { throw error }
                                problems = issues(of: error, record, columns: [rowsOf.column])
                            }
                        } else {
                            problems = [issue(record, rowsOf.column, "\(entity.name).\(rowsOf.relationship.name) is required")]
                        }
                    }
                } else {
                    problems = fill(own, from: record, columns: mainColumns, writer: writer)
                }
                if problems.isEmpty && !failed && !rowsOnly {
                    do {
                        let (id, outcome) = try writer.upsert(own, by: key!)
                        problems = noteDeferred(id, outcome, record, mainColumns)
                        if outcome == .conflicted { noteConflict(line: record.line, id: id, label: label) }
                        if outcome != .repeated && outcome != .conflicted { firstLines[id] = Int32(record.line) }
                        try writer.beginRows(like: row, of: id)
                        parent = id
                    } catch {
                        if isFatal(error) { throw error }
                        problems = issues(of: error, record, columns: mainColumns)
                    }
                }
            } else if let malformed {
                if replay == nil { problems = [malformed] }
            } else if replay == nil && !rowsOnly {
                for (k, c) in mainColumns.enumerated() {
                    let range = ownRanges[k]
                    var agrees = ownBytes.withUnsafeBufferPointer { all in
                        record.withBytes(ofField: c.index) { b in
                            b.count == range.count && (b.count == 0 || memcmp(b.baseAddress!, all.baseAddress! + range.lowerBound, b.count) == 0)
                        }
                    }
                    // The same text in another normal form (a customer named in NFC on one line, NFD on the next) is
                    // the same value: keys match that way, and the store keeps the first spelling.
                    if !agrees, c.index < record.count {
                        agrees = TextNormalForm.equivalent(record[c.index], String(decoding: ownBytes[range], as: UTF8.self))
                    }
                    if !agrees {
                        if settings.onConflict != .error, let parent {
                            // --on-conflict: the first line's values stay, or this line's are written.
                            if settings.onConflict == .last {
                                own.reset()
                                problems = fill(own, from: record, columns: mainColumns, writer: writer)
                                if problems.isEmpty {
                                    do {
                                        let (id, outcome) = try writer.upsert(own, by: key!)
                                        problems = noteDeferred(id, outcome, record, mainColumns, notingConflict: false)
                                    } catch {
                                        if isFatal(error) { throw error }
                                        problems = issues(of: error, record, columns: mainColumns)
                                    }
                                }
                                ownBytes.removeAll(keepingCapacity: true)
                                for (j, c) in mainColumns.enumerated() {
                                    let start = ownBytes.count
                                    record.withBytes(ofField: c.index) { ownBytes.append(contentsOf: $0) }
                                    ownRanges[j] = start..<ownBytes.count
                                }
                            }
                            noteConflict(line: record.line, id: parent, label: label)
                            break
                        }
                        let first = String(decoding: ownBytes[ownRanges[k]], as: UTF8.self)
                        problems.append(issue(record, c, "\"\(record[c.index])\" differs from line \(firstLine) (\"\(first)\"): the lines of \(label) must agree on its own columns (--on-conflict first or last keeps one)"))
                        break
                    }
                }
            }
            var hasRow = rowsOnly
            if !rowsOnly {
                for c in rowColumns where c.index < record.count {
                    if !record.withBytes(ofField: c.index, { cells.isNull($0) }) { hasRow = true; break }
                }
            }
            if let replay {
                // The stretch that failed in an earlier pass: its lines keep the reasons first found.
                if hasRow { rowLines += 1 }
                lines.append((record.rawText, replay.reasons[record.line]))
                continue
            }
            if hasRow && malformed != nil {
                rowLines += 1
            } else if hasRow {
                rowLines += 1
                row.reset()
                var rowProblems = fill(row, from: record, columns: rowColumns, writer: writer)
                if rowProblems.isEmpty, problems.isEmpty, let parent, !(skip && failed) {
                    do {
                        try writer.putRow(row, parent: parent)
                    } catch {
                        if isFatal(error) { throw error }
                        rowProblems = issues(of: error, record, columns: rowColumns)
                    }
                }
                if !rowProblems.isEmpty { problems += rowProblems }
            }
            if !problems.isEmpty {
                for p in problems { note(p) }
                if !failed { failure = "line \(record.line): \(problems[0].message)" }
                failed = true
            }
            if skip {
                lines.append((record.rawText, problems.isEmpty ? nil : reason(problems)))
                if !problems.isEmpty { reasons[record.line] = reason(problems) }
            }
        }
        try closeGroup()
        var judged = false
        if !lateRejections.isEmpty || !lateRulesAtEnd.isEmpty {
            split.rejections.merge(lateRejections) { first, _ in first }
            split.rulesAtEnd.formUnion(lateRulesAtEnd)
            throw ReadAgain()
        }
        for (key, document) in checkAtEnd {
            try writer.finishRows(rowsName, of: document.id)
            let broken = try writer.ruleViolations(of: documentName, id: document.id)
            guard !broken.isEmpty else { continue }
            let label = "\(documentName) \"\(String(decoding: key, as: UTF8.self))\""
            let message = "\(label): \(broken.joined(separator: "; "))"
            split.rejections[key] = SplitDocuments.Rejection(failure: "line \(document.line): \(broken.joined(separator: "; "))", start: document.line,
                                                  issues: [ImportIssue(line: document.line, message: message)],
                                                  reasons: [document.line: message])
            judged = true
        }
        if judged { throw ReadAgain() }
        return n
    }

    /// A row table on its own: each line names its document; a file's rows replace those of the documents it names.
    /// A document's lines are one unit, as in a file of documents with their rows: with --on-error skip they are
    /// kept or rejected together (keeping 2 of 3 lines replaced the document's rows with those two).
    func importRows(_ reader: CSVReader, _ writer: BatchWriter, _ progress: ProgressBar?, fields: Int) throws -> Int {
        let row = try writer.record(entity.name)
        let parentRelationship = KeyPathResolver(model: model, entity: entity).parentRelationship
        let parentName = parentRelationship?.name
        let parentColumn = mainColumns.first { $0.target.property == parentName }
        if let parentRelationship, let parentColumn {
            return try importGrouped(reader, writer, progress, fields: fields, rowsOf: (parentRelationship, parentColumn))
        }
        var lastParent: Int64?
        let n = try eachRecord(reader, writer, progress, fields: fields) { record in
            row.reset()
            let problems = fill(row, from: record, columns: mainColumns, writer: writer)
            guard problems.isEmpty else { return problems }
            guard let parentName, let parent = row.reference(parentName) else {
                return [issue(record, parentColumn, "\(entity.name).\(parentName ?? "document") is required")]
            }
            if parent != lastParent {
                if let lastParent { writer.endRows(entity.name, of: lastParent) }
                lastParent = parent
            }
            do {
                try writer.putRow(row, parent: parent)
                return []
            } catch {
                if isFatal(error) { throw error }
                return issues(of: error, record, columns: mainColumns)
            }
        }
        if let lastParent { writer.endRows(entity.name, of: lastParent) }
        return n
    }
}

extension KeyPathResolver {
    /// For a row table: its to-one relationship to its document.
    var parentRelationship: EntityRelationship? {
        guard entity.kind == .rows else { return nil }
        return entity.relationships.first { r in
            !r.isToMany && model.entity(named: r.destination)?.kind == .document && model.inverse(of: r).isToMany
        }
    }
}
