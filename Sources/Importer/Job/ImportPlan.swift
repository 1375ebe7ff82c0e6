// What an import will do, decided before anything is written and fixed for the whole import: the shape, the
// key records are matched by, the header, and each column's target.
//
// Three shapes, chosen by the entity's kind:
// - a directory (or a document without `rows.` columns): one record per line, upserted by key;
// - a document with `rows.` columns: the lines of one document (which may be anywhere in the file) carry
//   its own columns, repeated, and one row each; its own values must agree across its lines, and a line
//   whose `rows.` cells are all empty stands for a document without rows;
// - a row table (OrderRow) on its own: each line names its document; the rows a file gives a document
//   replace that document's rows.

import CSV
import Foundation
import LocalTime
import ObjectStore

struct ImportPlan {
    enum Shape { case records, documents, rows }

    /// One mapped column. Immutable (`let` properties cost no exclusivity checks in the hot loop); each pass
    /// makes it again with its resolver once the batch has begun (`ImportPass.prepare`).
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
        let hasDefault: Bool
        /// Whether the column holds numbers (a decimal or an integer attribute, or a reference by such a key), whose
        /// decimal mark may be decided.
        let isNumber: Bool
        /// A reference to the entity being imported whose key may come on a later line (or this one): a key not
        /// found yet is resolved once the whole file is in (`ImportPass.resolveDeferred`). Its resolver creates
        /// nothing; `finalResolver` is the one that may (--create-missing), used at the end.
        let defers: Bool
        let finalResolver: ReferenceResolver?

        init(index: Int, name: String, target: ColumnTarget, attributeIndex: Int = 0, type: AttributeType = .string,
             propertyIndex: Int = 0, resolver: ReferenceResolver? = nil, textKey: Bool = false, memo: ByteKeyTable? = nil,
             hasDefault: Bool = false, finalResolver: ReferenceResolver? = nil) {
            defers = finalResolver != nil
            self.finalResolver = finalResolver
            self.index = index
            self.name = name
            self.target = target
            self.attributeIndex = attributeIndex
            self.type = type
            self.propertyIndex = propertyIndex
            self.resolver = resolver
            self.textKey = textKey
            self.memo = memo
            self.hasDefault = hasDefault
            switch (target, type) {
            case (.attribute, .integer), (.attribute, .decimal), (.reference, .integer), (.reference, .decimal): isNumber = true
            default: isNumber = false
            }
        }
    }

    /// What reading a cell needs, fixed for the whole import.
    final class Cells {
        let converter: ValueConverter
        /// The converters of a column whose decimal mark the import decides (no --decimal-comma or --decimal-point).
        let pointConverter: ValueConverter
        let commaConverter: ValueConverter
        let nullTokens: [[UInt8]]
        let listSeparator: Character

        init(converter: ValueConverter, nullTokens: [[UInt8]], listSeparator: Character) {
            self.converter = converter
            var c = converter
            c.markGiven = false
            c.decimalComma = false
            pointConverter = c
            c.decimalComma = true
            commaConverter = c
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

    /// The input's name in messages (`-` for standard input).
    let file: String
    let entity: Entity
    /// A document's row table, when the file gives rows (`rows.` columns) or is the row table itself.
    let rowsEntity: Entity?
    let shape: Shape
    /// The attribute records are matched by (none for a row table).
    let key: String?
    let mainColumns: [Column]
    let rowColumns: [Column]
    /// The column that gives the key.
    let keyColumn: Int
    /// Whether the columns come from the profile (`columns:`), not from a header line.
    let headerless: Bool
    let fieldCount: Int
    /// The header line as read, for the rejects file.
    let headerRaw: String?
    /// The header's fields as read, to know the header met again as a line (two exports joined with `cat`).
    let headerFields: [String]?
    /// Columns that map to nothing (with --ignore-unknown).
    let unknown: [String]
    let cells: Cells
    /// The field delimiter in use (given or sniffed).
    let delimiter: UInt8

    /// Reads the header from `reader` (unless the profile names the columns) and maps it.
    init(model: ObjectModel, settings: ImportSettings, file: String, reader: CSVReader) throws {
        self.file = file
        let entity = try model.entity(settings.entity)
        self.entity = entity
        let resolver = KeyPathResolver(model: model, entity: entity)
        var shape = Shape.records
        switch entity.kind {
        case .rows:
            shape = .rows
            if let k = settings.key {
                throw ImportOptionError("--key \(k): \(entity.name) is a row table; its rows are matched to their document's stored rows by position", source: .commandLine)
            }
            key = nil
        case .directory, .document:
            do {
                key = try entity.identifyingKey(settings.key).name
            } catch {
                switch error {
                case .noNaturalKey: throw ImportOptionError("\(error) with --key", source: .commandLine)
                case .unknown(_, let k, let suggestion):
                    throw ImportOptionError("--key \(k): unknown attribute of \(entity.name)\(Suggestions.didYouMean(suggestion))", source: .commandLine)
                case .notUnique(_, let k): throw ImportOptionError("--key \(k): \(error)", source: .commandLine)
                }
            }
        }
        // Cells are compared as bytes: null tokens and the no-break spaces that group digits in the input's encoding.
        var converter = ValueConverter(decimalComma: settings.decimalComma ?? false, dateFormat: settings.dateFormat,
                                       zone: try Zone.current())
        converter.markGiven = settings.decimalComma != nil
        converter.spaceGroupings = ["\u{A0}", "\u{202F}"].compactMap { reader.bytes(of: $0) }
        delimiter = reader.delimiter
        cells = Cells(converter: converter, nullTokens: settings.nullTokens.compactMap { reader.bytes(of: $0) },
                      listSeparator: settings.listSeparator)

        // The header.
        var header: [String]
        if let columns = settings.columns {
            header = columns
            headerless = true
            headerRaw = nil
            headerFields = nil
        } else {
            headerless = false
            do {
                guard let first = try reader.next() else {
                    throw ImportFailure(lines: ["\(file): the file is empty — expected a header line naming the columns"], category: .data)
                }
                header = Array(first)
                headerRaw = first.rawText
                headerFields = header
            } catch let error as CSVError {
                throw ImportFailure(error)
            }
        }
        fieldCount = header.count

        // A rejects file, fixed, is imported again with the same profile and command: its trailing `reason`
        // column (which the rejects file adds) is ignored, unless the entity has such a property or it is mapped.
        var map = settings.map, mapOrder = settings.mapOrder
        if !headerless, header.count > 1, let last = header.last, HeaderMapping.trim(last) == "reason",
           !map.keys.contains(where: { HeaderMapping.trim($0).lowercased() == "reason" }),
           !resolver.candidates.contains(where: { $0.lowercased() == "reason" }) {
            map[last] = ""
            mapOrder.append(last)
        } else if !headerless, header.count > 2, let last = header.last, HeaderMapping.trim(last) == "reason",
                  header.dropLast().contains(where: { HeaderMapping.trim($0) == "reason" }) {
            // An entity with a `reason` of its own: its rejects file has two columns of that name, and the last is
            // the one the rejects file added (it was "both fill reason", and the fixed file could not be imported).
            let renamed = "reason (added by the rejects file)"
            header[header.count - 1] = renamed
            map[renamed] = ""
            mapOrder.append(renamed)
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
               settings.map.isEmpty, settings.columns == nil {
                lines.append("\(file):1: no column name is a key path of \(entity.name) — is line 1 a header? (a profile's `columns:` names the columns of a file without one)")
            }
            throw ImportFailure(lines: lines, category: problems[0].category)
        }
        unknown = mapping.unknown

        // Each mapped column, to the document or to its rows.
        var rowsEntity = resolver.rowsEntity
        var main: [Column] = [], rows: [Column] = []
        for (i, target) in mapping.targets.enumerated() {
            guard let target else { continue }
            let owner = target.inRows ? rowsEntity! : entity
            var attributeIndex = 0
            var type = AttributeType.string
            var hasDefault = false
            if case .attribute(let name, let t, _) = target {
                attributeIndex = owner.attributes.firstIndex { $0.name == name }!
                type = t
                hasDefault = owner.attributes[attributeIndex].defaultValue != nil
            }
            let c = Column(index: i, name: mapping.names[i], target: target, attributeIndex: attributeIndex, type: type, hasDefault: hasDefault)
            if target.inRows { rows.append(c) } else { main.append(c) }
        }
        var keyColumn = 0
        if shape != .rows {
            if !rows.isEmpty { shape = .documents } else { rowsEntity = nil }
            let keyName = key!
            guard let k = main.first(where: { if case .attribute(let n, _, _) = $0.target { n == keyName } else { false } }) else {
                throw ImportFailure(lines: ["\(file):1: no column gives the key \(entity.name).\(keyName) — add one, or map one with --map \"COLUMN=\(keyName)\""],
                                    category: .data)
            }
            keyColumn = k.index
        }
        self.shape = shape
        self.rowsEntity = rowsEntity
        self.mainColumns = main
        self.rowColumns = rows
        self.keyColumn = keyColumn
    }
}

extension ImportFailure {
    /// A reader's error: an I/O failure (74) or the input's fault (65).
    init(_ error: CSVError) {
        if case .io = error.kind { self.init(lines: [error.description], category: .io) } else { self.init(lines: [error.description], category: .data) }
    }
}
