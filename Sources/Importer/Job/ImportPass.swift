// One pass over the input inside the import's transaction. Usually the only one: with --on-error skip, a
// document whose lines are apart may need the file read again (see `SplitDocuments`), and each pass starts
// with nothing counted, rejected or resolved.

import CSV
import Foundation
import ObjectStore

/// What passes over the input learn and hand on to the next: documents whose lines are apart and must be
/// rejected whole, or judged by their rules once all their lines are in.
final class SplitDocuments {
    /// A document a later pass rejects: what made it fail, from the pass that found it.
    struct Rejection {
        /// The failure named in the reason of its lines that had no problem of their own.
        var failure: String
        /// The first line of its stretch that failed, that stretch's issues and its lines' own reasons.
        var start: Int
        var issues: [ImportIssue]
        var reasons: [Int: String]
    }

    /// Whether the input can be read again (standard input cannot).
    let canReadAgain: Bool
    var rejections: [[UInt8]: Rejection] = [:]
    /// Documents whose rules are checked at the end of the file.
    var rulesAtEnd: Set<[UInt8]> = []
    /// The decimal mark of each number column (by field index) whose values readable both ways were read with
    /// the other mark in an earlier pass, decided from all its values.
    var marks: [Int: DecimalMark] = [:]

    init(canReadAgain: Bool) { self.canReadAgain = canReadAgain }
}

/// Thrown out of a pass (rolling its transaction back) when the file must be read again.
struct ReadAgain: Error {}

final class ImportPass {
    typealias Column = ImportPlan.Column
    typealias Cells = ImportPlan.Cells

    let plan: ImportPlan
    let settings: ImportSettings
    let model: ObjectModel
    let split: SplitDocuments
    let rejects: RejectsWriter?
    var issues = IssueLog()
    var rejectedCounts: [String: Int] = [:]
    /// Input records rejected (a document's lines all count).
    var rejectedLines = 0
    /// An earlier run's rejects file, reviewed (--accept-rejects): shared by every pass.
    let accepted: AcceptedRejects?
    /// Keys given again with other values, kept by --on-conflict first or last; the first few places.
    var conflicts = 0
    var conflictNotes: [String] = []
    /// The line where each record (by row ID) was first given, for messages about a key given again.
    @exclusivity(unchecked) var firstLines = LineBook()
    /// Each number column's evidence about its decimal mark (by field index), when the import decides it.
    @exclusivity(unchecked) var tallies: [MarkTally?]
    /// The mark a value readable both ways is read with before its column shows one: a comma in a file separated
    /// by semicolons (where it is usual), else a point. Only the number of passes depends on it.
    let tentativeMark: DecimalMark
    // (`@exclusivity(unchecked)` on the three properties read for every line: by this thread only: the access checks
    // cost more than the reads; see EntityLayout.)
    /// References to the imported entity whose key was not found yet (see `Column.defers`): those of the record
    /// being filled, then, once it is written, each by its row and relationship, in the order they were given.
    @exclusivity(unchecked) var pendingSelf: [DeferredReference] = []
    var deferred: [DeferredReference?] = []
    var deferredSlots: [DeferredSlot: Int] = [:]
    private(set) var deferringColumns: [Column] = []
    /// The plan's columns with this pass's resolvers.
    private(set) var mainColumns: [Column]
    private(set) var rowColumns: [Column]

    var file: String { plan.file }
    var entity: Entity { plan.entity }
    var rowsEntity: Entity? { plan.rowsEntity }
    var key: String? { plan.key }
    var cells: Cells { plan.cells }
    var keyColumn: Int { plan.keyColumn }
    var headerless: Bool { plan.headerless }

    init(plan: ImportPlan, settings: ImportSettings, model: ObjectModel, split: SplitDocuments, rejects: RejectsWriter?,
         accepted: AcceptedRejects? = nil) {
        self.plan = plan
        self.accepted = accepted
        accepted?.reset()
        self.settings = settings
        self.model = model
        self.split = split
        self.rejects = rejects
        mainColumns = plan.mainColumns
        rowColumns = plan.rowColumns
        tallies = Array(repeating: nil, count: settings.decimalComma == nil ? plan.fieldCount : 0)
        tentativeMark = plan.delimiter == UInt8(ascii: ";") ? .comma : .point
    }

    /// Reads every record after the header into `writer`. Returns the number of records read.
    func run(_ reader: CSVReader, _ writer: BatchWriter, _ progress: ProgressBar?) throws -> Int {
        writer.onRepeat = settings.onConflict
        try prepare(writer)
        firstLines = LineBook(firstNewRowID: try writer.firstNewRowID(of: entity.name))
        try checkRequired(writer)
        let records: Int
        switch plan.shape {
        case .records: records = try importRecords(reader, writer, progress, fields: plan.fieldCount)
        case .documents: records = try importDocuments(reader, writer, progress, fields: plan.fieldCount)
        case .rows: records = try importRows(reader, writer, progress, fields: plan.fieldCount)
        }
        try settleMarks()
        try resolveDeferred(writer)
        try writer.finishRows()
        return records
    }

    /// The converter for a number cell of a column whose decimal mark the import decides, noting what the value
    /// shows (see DecimalMark.swift).
    @inline(__always)
    func converter(for c: Column, _ bytes: UnsafeBufferPointer<UInt8>, _ record: CSVRecord) -> ValueConverter {
        switch mark(for: c, bytes, record) {
        case .comma: cells.commaConverter
        case .point: cells.pointConverter
        case nil: cells.converter
        }
    }

    /// Which of `cells`' converters reads a number cell of a column whose decimal mark the import decides (nil: the
    /// import's own), noting what the value shows (see DecimalMark.swift). The hot path calls the converter it
    /// names in place: a `ValueConverter` copied per cell (its zone, its groupings) was 5% of the importer thread's
    /// samples, most of it retains and releases.
    @inline(__always)
    func mark(for c: Column, _ bytes: UnsafeBufferPointer<UInt8>, _ record: CSVRecord) -> DecimalMark? {
        if let fixed = split.marks[c.index] { return fixed }
        let mark: DecimalMark
        switch MarkClassifier.evidence(cells.converter.trimmed(bytes)) {
        case .none:
            return nil
        case .only(let m):
            // Evidence only when the value is a number with that mark (`1.2.3` is neither: left to be refused).
            guard (m == .comma ? cells.commaConverter : cells.pointConverter).number(cells.converter.trimmed(bytes), allowFraction: true) != nil
            else { return nil }
            mark = m
            if (m == .comma ? tallies[c.index]?.comma : tallies[c.index]?.point) == nil {
                var t = tallies[c.index] ?? MarkTally()
                let place = place(record, c)
                if m == .comma { t.comma = place } else { t.point = place }
                tallies[c.index] = t
            }
        case .either:
            var t = tallies[c.index] ?? MarkTally()
            mark = t.shown ?? tentativeMark
            if t.either == nil { t.either = place(record, c) }
            if t.eitherWithComma == nil, bytes.contains(UInt8(ascii: ",")) { t.eitherWithComma = place(record, c) }
            if mark == .comma { t.eitherReadAsComma = true } else { t.eitherReadAsPoint = true }
            tallies[c.index] = t
        }
        return mark
    }

    private func place(_ record: CSVRecord, _ c: Column) -> MarkTally.Place {
        let p = record.position(ofField: c.index)
        return MarkTally.Place(line: p.line, column: p.column, text: record[c.index].trimmingCharacters(in: .whitespaces))
    }

    /// At the end of a pass: each number column's decimal mark from all its values. A column showing both marks, or
    /// no mark but values readable both ways, stops the import; values readable both
    /// ways that were read with the other mark make the file be read again with the column's mark fixed.
    func settleMarks() throws {
        var again: [(Column, MarkTally, DecimalMark)] = []
        for c in mainColumns + rowColumns where c.index < tallies.count {
            guard let t = tallies[c.index] else { continue }
            if let comma = t.comma, let point = t.point {
                let (first, second) = comma.line <= point.line ? (comma, point) : (point, comma)
                let mark = { (p: MarkTally.Place) in p == comma ? "a decimal comma" : "a decimal point" }
                throw ImportFailure(lines: [
                    "\(file):\(first.line):\(first.column): column \"\(c.name)\": \"\(first.text)\" has \(mark(first)), but line \(second.line) "
                    + "(\"\(second.text)\") has \(mark(second)): a column's numbers are written one way — fix the file, or give "
                    + "--decimal-comma or --decimal-point", "nothing was imported"], category: .data)
            }
            var shown = t.shown
            // A file separated by commas writes its decimals with a point (see DecimalMark.swift).
            if shown == nil, t.either != nil, t.eitherWithComma == nil, plan.delimiter == UInt8(ascii: ",") { shown = .point }
            guard let decided = shown else {
                guard let e = t.eitherWithComma ?? t.either else { continue }
                let asPoint = e.text.replacingOccurrences(of: ",", with: "")
                let asComma = e.text.replacingOccurrences(of: ".", with: "").replacingOccurrences(of: ",", with: ".")
                let pointReading = e.text.contains(",") ? "\(asPoint) (a comma grouping thousands)" : "\(e.text) (a decimal point)"
                let commaReading = e.text.contains(",") ? "\(asComma) (a decimal comma)" : "\(asComma.replacingOccurrences(of: ".", with: "")) (a point grouping thousands)"
                throw ImportFailure(lines: [
                    "\(file):\(e.line):\(e.column): column \"\(c.name)\": \"\(e.text)\" reads as \(pointReading) or as \(commaReading), and no "
                    + "value of the column decides — give --decimal-point or --decimal-comma", "nothing was imported"], category: .data)
            }
            if decided == .comma ? t.eitherReadAsPoint : t.eitherReadAsComma { again.append((c, t, decided)) }
        }
        guard !again.isEmpty else { return }
        guard split.canReadAgain else {
            let (c, t, mark) = again[0]
            let e = t.either!, shown = (mark == .comma ? t.comma : t.point)!
            throw ImportFailure(lines: [
                "\(file):\(e.line):\(e.column): column \"\(c.name)\": \"\(e.text)\" was read with a decimal \(mark == .comma ? "point" : "comma") "
                + "before line \(shown.line) (\"\(shown.text)\") showed the column's decimal \(mark == .comma ? "comma" : "point"), and this input "
                + "cannot be read again — give \(mark.option)", "nothing was imported"], category: .data)
        }
        for (c, _, mark) in again { split.marks[c.index] = mark }
        throw ReadAgain()
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
                // A reference to the imported entity itself (an employee's boss) may name a key the file gives
                // further on: such keys wait for the end of the file. Not with --on-error skip (a line kept could
                // not be taken back at the end) nor for a required one (its column cannot wait empty).
                let defers = destination == entity.name && !c.target.inRows && plan.shape != .rows
                    && settings.onError == .abort && entity.relationship(named: rel)?.isRequired == false
                let resolver = try writer.referenceResolver(to: destination, by: key, createMissing: settings.createMissing && !defers)
                return Column(index: c.index, name: c.name, target: c.target, type: keyType,
                              propertyIndex: record.index(ofReference: rel) ?? 0,
                              resolver: resolver,
                              textKey: keyType == .string, memo: memo ? ByteKeyTable() : nil,
                              finalResolver: defers ? try writer.referenceResolver(to: destination, by: key, createMissing: settings.createMissing) : nil)
            case .links(let rel, let destination, let key, let keyType, _):
                return Column(index: c.index, name: c.name, target: c.target, type: keyType,
                              propertyIndex: record.index(ofLinks: rel) ?? 0,
                              resolver: try writer.referenceResolver(to: destination, by: key, createMissing: settings.createMissing),
                              textKey: keyType == .string)
            }
        }
        mainColumns = try plan.mainColumns.map(prepared)
        rowColumns = try plan.rowColumns.map(prepared)
        deferringColumns = mainColumns.filter(\.defers)
    }

    /// Required properties no column gives (and no default or domain rule provides): reported before any row is read.
    func checkRequired(_ writer: BatchWriter) throws {
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
        if plan.shape == .documents, let re = rowsEntity, let rr = KeyPathResolver(model: model, entity: entity).rowsRelationship {
            missing += try check(re, rowColumns, parent: model.inverse(of: rr).name)
        }
        if !missing.isEmpty {
            let prefix = plan.shape == .documents ? "rows." : ""
            throw ImportFailure(lines: missing.map { m in
                let property = m.split(separator: ".").last.map(String.init) ?? m
                let path = m.hasPrefix("\(entity.name).") ? property : prefix + property
                return "\(file):1: required \(m) has no column — add one, or map one with --map \"COLUMN=\(path)\""
            }, category: .data)
        }
    }
}
