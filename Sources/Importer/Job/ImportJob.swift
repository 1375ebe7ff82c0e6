// One import: CSV → mapping → values → the store's batch writer, in one transaction.
//
// Three shapes, chosen by the entity's kind:
// - a directory (or a document without `rows.` columns): one record per line, upserted by key;
// - a document with `rows.` columns: the lines of one document (which may be anywhere in the file) carry
//   its own columns, repeated, and one row each; its own values must agree across its lines, and a line
//   whose `rows.` cells are all empty stands for a document without rows;
// - a row table (OrderRow) on its own: each line names its document; the rows a file gives a document
//   replace that document's rows.
// The engine does the writing and the validation; this file maps each problem back to its line and
// column, and with `--on-error skip` rolls back and rejects the unit at fault (a line, or a document
// with all its lines) while the rest goes on.

import CSV
import Foundation
import ObjectStore

package final class ImportJob {
    package let store: Store
    package let settings: ImportSettings
    /// The input path as given (`-` is standard input).
    package let path: String
    var model: Model { store.model }

    package init(store: Store, path: String, settings: ImportSettings) {
        self.store = store
        self.path = path
        self.settings = settings
    }

    enum Shape { case records, documents, rows }

    /// One mapped column. Immutable (`let` properties cost no exclusivity checks in the hot loop); made
    /// again with its resolver once the batch has begun.
    final class Column {
        let index: Int
        let name: String
        let target: ColumnTarget
        /// The attribute's index in its record, for attribute targets.
        let attributeIndex: Int
        let type: AttributeType
        /// For references and links: the property's index in its record, and the resolver.
        let propertyIndex: Int
        let resolver: ReferenceResolver?
        /// Whether references are by a string key (no conversion needed).
        let textKey: Bool
        /// References already resolved, by the cell's bytes: a service named on a million lines costs no String
        /// and no look-up through the engine per line. Not used with --on-error skip, where a rolled-back record
        /// may take back a row ID the memo would keep.
        let memo: ByteKeyTable?
        /// Whether the attribute has a default: an empty cell then means "not given" (the default for a new
        /// record, the stored value for an existing one), not "clear".
        var hasDefault = false

        init(index: Int, name: String, target: ColumnTarget, attributeIndex: Int = 0, type: AttributeType = .string,
             propertyIndex: Int = 0, resolver: ReferenceResolver? = nil, textKey: Bool = false, memo: ByteKeyTable? = nil) {
            self.index = index
            self.name = name
            self.target = target
            self.attributeIndex = attributeIndex
            self.type = type
            self.propertyIndex = propertyIndex
            self.resolver = resolver
            self.textKey = textKey
            self.memo = memo
        }
    }

    /// What reading a cell needs, fixed for the whole import.
    final class Cells {
        let converter: ValueConverter
        let nullTokens: [[UInt8]]
        let listSeparator: Character

        init(converter: ValueConverter, nullTokens: [[UInt8]], listSeparator: Character) {
            self.converter = converter
            self.nullTokens = nullTokens
            self.listSeparator = listSeparator
        }

        /// Whether a cell is empty: no bytes, or a null token.
        @inline(__always)
        func isNull(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
            if bytes.isEmpty { return true }
            if nullTokens.isEmpty { return false }
            for t in nullTokens where t.count == bytes.count && t.elementsEqual(bytes) { return true }
            return false
        }
    }

    // Set up by run().
    var file = ""
    var cells = Cells(converter: ValueConverter(), nullTokens: [], listSeparator: ",")
    var issues = IssueLog()
    var shape = Shape.records
    var entity: Entity!
    var rowsEntity: Entity?
    var key: String?
    var mainColumns: [Column] = []
    var rowColumns: [Column] = []
    var keyColumn = 0
    var headerless = false
    var rejectedCounts: [String: Int] = [:]
    /// Input records rejected (a document's lines all count).
    var rejectedLines = 0
    var rejects: RejectsWriter?
    /// The line where each record (by row ID) was first given, for messages about a key given again.
    var firstLines = LineBook()

    /// Runs the import. Returns the summary; throws `ImportFailure` when records were rejected (after
    /// committing the good ones with --on-error skip) or nothing was imported, and the input and store
    /// errors as they are.
    package func run(progressEnabled: Bool = true) throws -> ImportSummary {
        let started = Timestamp.now()
        let clock = DispatchTime.now().uptimeNanoseconds
        file = path == "-" ? "-" : path
        entity = try model.entity(settings.entity)
        cells = Cells(converter: ValueConverter(decimalComma: settings.decimalComma, dateFormat: settings.dateFormat),
                      nullTokens: settings.nullTokens.map { Array($0.utf8) }, listSeparator: settings.listSeparator)
        let resolver = KeyPathResolver(model: model, entity: entity)
        switch entity.kind {
        case .rows:
            shape = .rows
            if let k = settings.key {
                throw ImportOptionError("--key \(k): \(entity.name) is a row table; its rows are matched to their document's stored rows by position", source: .commandLine)
            }
        case .directory, .document:
            let k = settings.key ?? entity.naturalKey
            guard let k else {
                throw ImportOptionError("\(entity.name) has no natural key: name a unique attribute with --key", source: .commandLine)
            }
            guard let a = entity.attribute(named: k) else {
                throw ImportOptionError("--key \(k): unknown attribute of \(entity.name)\(Suggestions.didYouMean(Suggestions.closest(to: k, in: entity.attributes.map(\.name))))", source: .commandLine)
            }
            guard a.isUnique || a.name == entity.naturalKey else {
                throw ImportOptionError("--key \(k): \(entity.name).\(k) is not unique, so it cannot identify records", source: .commandLine)
            }
            key = k
        }

        let input = try InputFile(path: path)
        let reader: CSVReader
        do {
            reader = try input.reader(options: CSVReader.Options(delimiter: settings.delimiter, encoding: settings.encoding))
        } catch let error as CSVError {
            throw csvFailure(error)
        }
        // Cells are compared as bytes: null tokens and the no-break spaces that group digits in the input's encoding.
        cells = Cells(converter: {
            var c = cells.converter
            c.spaceGroupings = ["\u{A0}", "\u{202F}"].compactMap { reader.bytes(of: $0) }
            return c
        }(), nullTokens: settings.nullTokens.compactMap { reader.bytes(of: $0) }, listSeparator: cells.listSeparator)

        // The header.
        var header: [String]
        var headerRaw: String?
        if let columns = settings.columns {
            header = columns
            headerless = true
        } else {
            do {
                guard let first = try reader.next() else {
                    throw ImportFailure(lines: ["\(file): the file is empty — expected a header line naming the columns"], category: .data)
                }
                header = Array(first)
                headerRaw = first.rawText
            } catch let error as CSVError {
                throw csvFailure(error)
            }
        }

        // A rejects file, fixed, is imported again with the same profile and command: its trailing `reason`
        // column (which the rejects file adds) is ignored, unless the entity has such a property or it is mapped.
        var map = settings.map, mapOrder = settings.mapOrder
        if !headerless, header.count > 1, let last = header.last, HeaderMapping.trim(last) == "reason",
           !map.keys.contains(where: { HeaderMapping.trim($0).lowercased() == "reason" }),
           !resolver.candidates.contains(where: { $0.lowercased() == "reason" }) {
            map[last] = ""
            mapOrder.append(last)
        }
        let mapping: HeaderMapping
        switch HeaderMapping.make(header: header, resolver: resolver, map: map, mapOrder: mapOrder,
                                  mapSource: settings.mapSource, ignoreUnknown: settings.ignoreUnknown) {
        case .success(let m): mapping = m
        case .failure(let failure):
            let problems = failure.list
            // As for records: the first 20 problems and a count (a header of 10,000 unknown columns was
            // 10,001 lines). The closing hint on how to map columns, the last problem, is always shown.
            var shown = problems
            var hint: [HeaderMapping.Problem] = []
            if let last = shown.last, last.message.hasPrefix("map such columns") { hint = [shown.removeLast()] }
            let more = shown.count - IssueLog.shownLimit
            if more > 0 { shown.removeLast(more) }
            func line(_ p: HeaderMapping.Problem) -> String { p.category == .data ? "\(file):1: \(p.message)" : p.message }
            var lines = shown.map(line)
            if more > 0 { lines.append("… and \(more) more error\(more == 1 ? "" : "s") (\(problems.count - hint.count) in all)") }
            lines += hint.map(line)
            if header.map(HeaderMapping.trim).allSatisfy({ name in !resolver.candidates.contains { $0.lowercased() == name.lowercased() } }),
               settings.map.isEmpty, !headerless {
                lines.append("\(file):1: no column name is a key path of \(entity.name) — is line 1 a header? (a profile's `columns:` names the columns of a file without one)")
            }
            throw ImportFailure(lines: lines, category: problems[0].category)
        }
        try plan(mapping, resolver: resolver)

        if let path = settings.rejects, !settings.dryRun {
            rejects = try RejectsWriter(path: path, reader: reader)
            if let headerRaw { try rejects!.writeHeader(headerRaw) }
        }
        let progress = ProgressBar(totalBytes: input.size, enabled: progressEnabled && !settings.quiet)

        var records = 0
        var finalError: Error?
        var counts: [String: BatchCounts] = [:]
        var sha = ""
        do {
            try store.batch(dryRun: settings.dryRun) { writer in
                try prepare(writer)
                firstLines = LineBook(firstNewRowID: try writer.firstNewRowID(of: entity.name))
                try checkRequired(writer, mapping: mapping)
                do {
                    switch shape {
                    case .records: records = try importRecords(reader, writer, progress, fields: header.count)
                    case .documents: records = try importDocuments(reader, writer, progress, fields: header.count)
                    case .rows: records = try importRows(reader, writer, progress, fields: header.count)
                    }
                    try writer.finishRows()
                } catch let error as CSVError {
                    // A final reader error (encoding, an unterminated quote): nothing after it can be read.
                    finalError = csvFailure(error)
                    throw error
                }
                counts = writer.counts
                if issues.total > 0 && settings.onError == .abort { throw AbortImport() }
                sha = try input.sha256()
                if !settings.dryRun {
                    let seconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9
                    try writer.recordImport(ImportJournalEntry(
                        file: file, sha256: sha, startedAt: started, seconds: seconds, entity: entity.name,
                        records: records, rejected: rejectedLines, counts: counts, encoding: reader.encoding.name))
                }
                try rejects?.prepare()
            }
        } catch is AbortImport {
            progress?.finish()
            rejects?.discard()
            var lines = issues.rendered(file: file)
            lines.append("nothing was imported: the whole file is one transaction (--on-error skip imports the good records and writes the bad ones to --rejects)")
            throw ImportFailure(lines: lines, category: .data)
        } catch {
            progress?.finish()
            rejects?.discard()
            if let finalError {
                throw ImportFailure(lines: issues.rendered(file: file) + (finalError as! ImportFailure).lines
                                    + ["nothing was imported"], category: (finalError as! ImportFailure).category)
            }
            // The store's and SQLite's own failures (busy, I/O, a damaged file, a constraint) pass as they are:
            // one line with their own status; the transaction was rolled back.
            throw error
        }
        progress?.finish()

        let seconds = Double(DispatchTime.now().uptimeNanoseconds - clock) / 1e9
        let rejected = rejectedLines
        if let rejects {
            do {
                try rejects.close()
            } catch {
                // The store has committed: say so, and what failed after it.
                throw ImportFailure(lines: ["\(error)", "the import was committed; only the rejects file could not be put in place"],
                                    category: .io)
            }
        }
        var summary = makeSummary(records: records, seconds: seconds, sha: sha, counts: counts, unknown: mapping.unknown)
        summary.encoding = reader.encoding.name
        if issues.total > 0 {
            var lines = issues.rendered(file: file)
            lines.append("\(rejected) record\(rejected == 1 ? "" : "s") rejected\(rejects != nil && !settings.dryRun ? " (written to \(settings.rejects!))" : ""); the others were \(settings.dryRun ? "checked" : "imported")")
            throw ImportFailure(lines: lines, category: .data, summary: summary)
        }
        return summary
    }

    struct AbortImport: Error {}

    func csvFailure(_ error: CSVError) -> ImportFailure {
        if case .io = error.kind { return ImportFailure(lines: [error.description], category: .io) }
        return ImportFailure(lines: [error.description], category: .data)
    }

    func makeSummary(records: Int, seconds: Double, sha: String, counts: [String: BatchCounts], unknown: [String]) -> ImportSummary {
        var order = [entity.name]
        if let r = rowsEntity { order.append(r.name) }
        order += counts.keys.filter { !order.contains($0) }.sorted()
        let entities = order.map { name -> ImportSummary.EntityCounts in
            let c = counts[name] ?? BatchCounts()
            return ImportSummary.EntityCounts(entity: name, inserted: c.inserted, updated: c.updated, unchanged: c.unchanged,
                                              deleted: c.deleted, rejected: rejectedCounts[name] ?? 0)
        }
        return ImportSummary(file: file, entity: entity.name, sha256: sha.isEmpty ? nil : sha, dryRun: settings.dryRun,
                             records: records, seconds: seconds,
                             recordsPerSecond: seconds > 0 ? Double(records) / seconds : 0,
                             entities: entities, ignoredColumns: unknown,
                             rejected: rejectedLines,
                             rejectsFile: (rejects?.count ?? 0) > 0 ? settings.rejects : nil,
                             errors: issues.shown, errorCount: issues.total)
    }

    // MARK: Planning

    func plan(_ mapping: HeaderMapping, resolver: KeyPathResolver) throws {
        rowsEntity = resolver.rowsEntity
        for (i, target) in mapping.targets.enumerated() {
            guard let target else { continue }
            let owner = target.inRows ? rowsEntity! : entity!
            var attributeIndex = 0
            var type = AttributeType.string
            if case .attribute(let name, let t, _) = target {
                attributeIndex = owner.attributes.firstIndex { $0.name == name }!
                type = t
            }
            let c = Column(index: i, name: mapping.names[i], target: target, attributeIndex: attributeIndex, type: type)
            if case .attribute = target { c.hasDefault = owner.attributes[attributeIndex].defaultValue != nil }
            if target.inRows { rowColumns.append(c) } else { mainColumns.append(c) }
        }
        if shape != .rows {
            if !rowColumns.isEmpty { shape = .documents } else { rowsEntity = nil }
            guard let k = mainColumns.first(where: { if case .attribute(let n, _, _) = $0.target { n == key } else { false } }) else {
                throw ImportFailure(lines: ["\(file):1: no column gives the key \(entity.name).\(key!) — add one, or map one with --map \"COLUMN=\(key!)\""],
                                    category: .data)
            }
            keyColumn = k.index
        }
    }

    /// Gives each reference column its resolver and each column its place in its record.
    func prepare(_ writer: BatchWriter) throws {
        func prepared(_ c: Column) throws -> Column {
            let record = try writer.record(c.target.inRows ? rowsEntity!.name : entity.name)
            switch c.target {
            case .attribute: return c
            case .reference(let rel, let destination, let key, let keyType, _):
                // A memo only where no record of this import can change or take back the key.
                let memo = keyType == .string && settings.onError == .abort && destination != entity.name
                    && destination != rowsEntity?.name
                return Column(index: c.index, name: c.name, target: c.target, type: keyType,
                              propertyIndex: record.index(ofReference: rel) ?? 0,
                              resolver: try writer.referenceResolver(to: destination, by: key, createMissing: settings.createMissing),
                              textKey: keyType == .string, memo: memo ? ByteKeyTable() : nil)
            case .links(let rel, let destination, let key, let keyType, _):
                return Column(index: c.index, name: c.name, target: c.target, type: keyType,
                              propertyIndex: record.index(ofLinks: rel) ?? 0,
                              resolver: try writer.referenceResolver(to: destination, by: key, createMissing: settings.createMissing),
                              textKey: keyType == .string)
            }
        }
        mainColumns = try mainColumns.map(prepared)
        rowColumns = try rowColumns.map(prepared)
    }

    /// Required properties no column gives (and no default or domain rule provides): reported before any row is read.
    func checkRequired(_ writer: BatchWriter, mapping: HeaderMapping) throws {
        func check(_ e: Entity, _ columns: [Column], parent: String?) throws -> [String] {
            var attributes: Set<String> = []
            var references: Set<String> = []
            for c in columns {
                switch c.target {
                case .attribute(let n, _, _): attributes.insert(n)
                case .reference(let r, _, _, _, _): references.insert(r)
                case .links: break
                }
            }
            if let parent { references.insert(parent) }
            return try writer.missingRequired(e.name, attributes: attributes, references: references).map { "\(e.name).\($0)" }
        }
        var missing = try check(entity, mainColumns, parent: nil)
        if shape == .documents, let re = rowsEntity, let rr = KeyPathResolver(model: model, entity: entity).rowsRelationship {
            missing += try check(re, rowColumns, parent: model.inverse(of: rr).name)
        }
        if !missing.isEmpty {
            let prefix = shape == .documents ? "rows." : ""
            throw ImportFailure(lines: missing.map { m in
                let property = m.split(separator: ".").last.map(String.init) ?? m
                let path = m.hasPrefix("\(entity.name).") ? property : prefix + property
                return "\(file):1: required \(m) has no column — add one, or map one with --map \"COLUMN=\(path)\""
            }, category: .data)
        }
    }

    // MARK: Cells

    @inline(__always)
    func isNull(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool { cells.isNull(bytes) }

    /// A cell's text, or nil when empty or a null token.
    @inline(__always)
    func text(_ record: CSVRecord, _ i: Int, _ cells: Cells) -> String? {
        let empty = record.withBytes(ofField: i) { cells.isNull($0) }
        return empty ? nil : record[i]
    }

    /// A column's problem on this record, placed at the field.
    func issue(_ record: CSVRecord, _ column: Column?, _ message: String) -> ImportIssue {
        var text = message
        if let column { text = "column \"\(column.name)\": \(message)" }
        if headerless, record.line == 1, column != nil, message.contains(" is not ") {
            text += " — is line 1 a header the mapping does not know?"
        }
        let position = column.map { record.position(ofField: $0.index) }
        return ImportIssue(line: position?.line ?? record.line, column: position?.column, record: record.number, message: text)
    }

    /// Fills `r` from the columns, resolving references. Returns the problems (empty: all cells converted).
    func fill(_ r: BatchRecord, from record: CSVRecord, columns: [Column], writer: BatchWriter) -> [ImportIssue] {
        var problems: [ImportIssue] = []
        let cells = self.cells
        let fields = record.count
        for c in columns where c.index < fields {
            do {
                switch c.target {
                case .attribute:
                    let type = c.type
                    let value: Value = try record.withBytes(ofField: c.index) { bytes in
                        if cells.isNull(bytes) { return .null }
                        return try cells.converter.convert(bytes, as: type) { record[c.index] }
                    }
                    if value.isNull && c.hasDefault { continue }
                    r.set(value, at: c.attributeIndex)
                case .reference:
                    if let memo = c.memo {
                        let id: Int64? = try record.withBytes(ofField: c.index) { bytes in
                            if cells.isNull(bytes) { return nil }
                            if let id = memo.get(bytes) { return id }
                            let id = try c.resolver!.id(forText: record[c.index])
                            memo.set(bytes, id)
                            return id
                        }
                        r.setReference(at: c.propertyIndex, to: id)
                        continue
                    }
                    guard let t = text(record, c.index, cells) else { r.setReference(at: c.propertyIndex, to: nil); continue }
                    let id = c.textKey ? try c.resolver!.id(forText: t) : try reference(t, keyType: c.type, c.resolver!)
                    r.setReference(at: c.propertyIndex, to: id)
                case .links:
                    var ids: [Int64] = []
                    if let t = text(record, c.index, cells) {
                        for item in t.split(separator: cells.listSeparator) {
                            let k = item.trimmingCharacters(in: .whitespaces)
                            if k.isEmpty { continue }
                            ids.append(c.textKey ? try c.resolver!.id(forText: k) : try reference(k, keyType: c.type, c.resolver!))
                        }
                    }
                    r.setLinks(at: c.propertyIndex, to: ids)
                }
            } catch let error as ConversionError {
                problems.append(issue(record, c, error.message))
            } catch let error as BatchError {
                problems.append(issue(record, c, message(for: error, destination: c.target)))
            } catch {
                problems.append(issue(record, c, "\(error)"))
            }
        }
        return problems
    }

    func reference(_ text: String, keyType: AttributeType, _ resolver: ReferenceResolver) throws -> Int64 {
        let value: Value = try Array(text.utf8).withUnsafeBufferPointer { bytes in
            try cells.converter.convert(bytes, as: keyType) { text }
        }
        return try resolver.id(for: value)
    }

    func message(for error: BatchError, destination: ColumnTarget?) -> String {
        if case .notFound(let e, _, _, _) = error, !settings.createMissing, model.entity(named: e)?.kind == .directory {
            return "\(error) (--create-missing creates it)"
        }
        return error.description
    }

    /// The issues of a failed write, each at the column of the property at fault.
    func issues(of error: Error, _ record: CSVRecord, columns: [Column]) -> [ImportIssue] {
        guard let batch = error as? BatchError else { return [issue(record, nil, "\(error)")] }
        if case .invalid(let list) = batch {
            return list.map { i in issue(record, columns.first { $0.target.property == i.key }, i.message) }
        }
        if case .repeatedKey(_, _, _, let rowID, let properties) = batch {
            let column = columns.first { $0.target.property == properties.first }
            let earlier = firstLines[rowID].map { " on line \($0)" } ?? ""
            return [issue(record, column, batch.description.replacingOccurrences(of: "given earlier", with: "given earlier\(earlier)"))]
        }
        return [issue(record, nil, message(for: batch, destination: nil))]
    }

    /// A store error (busy, I/O) ends the import; a record's problem does not.
    func isFatal(_ error: Error) -> Bool {
        guard let batch = error as? BatchError else { return true }
        switch batch {
        // A constraint SQLite enforced is not one record's: validation foresees them all, and rows reach SQLite in
        // chunks on another thread, so it could not be placed. It ends the import.
        case .invalid, .notFound, .repeatedKey: return false
        default: return true
        }
    }

    func reject(_ raws: [String], reason: String, entity: String, count: Int = 1) throws {
        rejectedCounts[entity, default: 0] += count
        rejectedLines += raws.count
        guard let rejects else { return }
        for raw in raws { try rejects.reject(raw, reason: reason) }
    }

    func checkFieldCount(_ record: CSVRecord, expected: Int) -> ImportIssue? {
        guard record.count != expected else { return nil }
        let e = CSVError(file: file, line: record.line, kind: .fieldCountMismatch(found: record.count, expected: expected, expectedIsHeader: !headerless))
        return ImportIssue(line: record.line, record: record.number, message: e.message)
    }
}

/// Lines by row ID, compactly: rows inserted by this import have consecutive IDs, so their lines are an array
/// (4 bytes a record, where a dictionary took about 40); rows that existed before go to a dictionary.
struct LineBook {
    var base: Int64 = .max
    var lines: [Int32] = []
    var others: [Int64: Int32] = [:]

    init(firstNewRowID: Int64 = .max) {
        base = firstNewRowID
    }

    subscript(id: Int64) -> Int32? {
        get {
            if id >= base {
                let i = Int(id - base)
                return i < lines.count && lines[i] != 0 ? lines[i] : nil
            }
            return others[id]
        }
        set {
            if id >= base {
                let i = Int(id - base)
                if i >= lines.count { lines.append(contentsOf: repeatElement(0, count: i + 1 - lines.count)) }
                lines[i] = newValue ?? 0
            } else {
                others[id] = newValue
            }
        }
    }
}
