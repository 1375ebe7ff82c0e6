// `bookkeeper export ENTITY [FILE]`: CSV that `import` reads back to the same store content.
//
// The columns are the import's key paths: attributes by name, to-one relationships (by the target's
// natural key, or `rel.attr` by another unique attribute), many-to-many relationships as lists joined
// with ", " (a key that holds a comma, a quote, a line break or spaces at an end in quotes: `"x, y", z`;
// ListText.swift), and a document's rows as `rows.*` columns — one line per row with the document's own
// columns repeated, one line with empty `rows.*` cells for a document without rows. Values are written
// as import reads them by default: decimals at their scale, dates YYYY-MM-DD, booleans yes/no.
// Limits: an empty string is written as an empty cell, which imports as empty (null). In another `encoding` (`--encoding windows-1251`), a
// value that encoding cannot hold is an error naming the object and the column (never a `?`), and the
// file is not written.

import CSV
import Importer
import ObjectStore

/// Why an export failed: the output (73, 74) or a value its encoding cannot hold (73).
package struct ExportError: CategorizedError, Equatable {
    package let message: String
    package let category: ErrorCategory
    /// The non-finite number that stopped the export, and what became of the output: a front end words the number's
    /// remedy (`message` is its description, then the outcome).
    package private(set) var nonFinite: (stored: NonFiniteStoredNumber, outcome: String)?

    package init(message: String, category: ErrorCategory) {
        self.message = message
        self.category = category
    }

    package init(_ stored: NonFiniteStoredNumber, outcome: String) {
        self.init(message: "\(stored.description) — \(outcome)", category: stored.category)
        nonFinite = (stored, outcome)
    }

    package static func == (a: ExportError, b: ExportError) -> Bool {
        a.message == b.message && a.category == b.category && a.nonFinite?.stored == b.nonFinite?.stored
    }

    package var description: String { message }
}

package enum Exporter {
    /// Writes every object of `entityName` to `path` (`-`: standard output; a file appears whole when complete);
    /// returns the number of lines.
    /// A reference whose target is gone (a No Action delete left it) is written empty, as every read sees it, and
    /// `warn` is told once per relationship, with the count and the first object (`1 Note.customer refers to a
    /// deleted Customer (Note/1): written empty`). Before, the stored ID was written where import reads a key, so
    /// an export/import round trip attached the object to one named `Customer/1`, or created it.
    @discardableResult
    package static func export(store: Store, entity entityName: String, to path: String, encoding: CSVEncoding = .utf8,
                               warn: @escaping (String) -> Void = { _ in }) throws -> Int {
        let model = store.model
        let entity = try model.entity(entityName)
        let resolver = KeyPathResolver(model: model, entity: entity)
        // Decided before the header is written (it went to standard output before this failed).
        try model.refuseUnnameableReferences(of: entity)
        if let re = resolver.rowsEntity { try model.refuseUnnameableReferences(of: re) }
        let writer: CSVWriter
        do {
            writer = try CSVWriter(path: path, options: CSVWriter.Options(encoding: encoding))
        } catch let error as CSVError {
            throw ExportError(message: error.description, category: .cannotCreateOutput)
        }

        /// Dangling references written empty, per `Entity.relationship` in the order met: the count and the first.
        var dangling: [(relationship: String, destination: String, count: Int, first: ObjectID)] = []
        func columns(_ e: Entity, prefix: String, excluding parent: String?) -> [(String, (ExportedObject) -> String)] {
            var list: [(String, (ExportedObject) -> String)] = []
            for (i, a) in e.attributes.enumerated() {
                list.append((prefix + a.name, { $0.attributes[i].description }))
            }
            let (toOne, manyToMany) = model.exportedRelationships(of: e)
            for r in toOne where r.name != parent {
                let d = model.entity(named: r.destination)!
                let key = model.referenceKey(of: d)
                let path = key?.name == d.naturalKey ? r.name : "\(r.name).\(key?.name ?? "id")"
                list.append((prefix + path, { o in
                    if o.dangling[r.name] != nil {
                        let name = "\(e.name).\(r.name)"
                        if let i = dangling.firstIndex(where: { $0.relationship == name }) {
                            dangling[i].count += 1
                        } else {
                            dangling.append((name, r.destination, 1, ObjectID(entity: e.name, rowID: o.rowID)))
                        }
                        return ""
                    }
                    return o.references[r.name]?.description ?? ""
                }))
            }
            for r in manyToMany {
                let d = model.entity(named: r.destination)!
                let key = model.referenceKey(of: d)
                let path = key?.name == d.naturalKey ? r.name : "\(r.name).\(key?.name ?? "id")"
                list.append((prefix + path, { ListText.join(($0.links[r.name] ?? []).map(\.description)) }))
            }
            return list
        }

        let own = columns(entity, prefix: "", excluding: nil)
        var rowColumns: [(String, (ExportedObject) -> String)] = []
        if let rr = resolver.rowsRelationship, let re = resolver.rowsEntity {
            rowColumns = columns(re, prefix: "\(rr.name).", excluding: model.inverse(of: rr).name)
        }
        var lines = 0
        let names = own.map(\.0) + rowColumns.map(\.0)
        let keyIndex = model.referenceKey(of: entity).flatMap { k in entity.attributes.firstIndex { $0.name == k.name } }
        /// Writes one line; a value the encoding cannot hold names its object and column.
        func write(_ cells: [String], _ object: ExportedObject?) throws {
            do {
                try writer.writeRecord(cells)
            } catch let error as CSVWriter.Unencodable {
                let what = object.map { o in keyIndex.map { "\(entity.name) \"\(o.attributes[$0].description)\"" } ?? "\(entity.name) \(o.rowID)" }
                    ?? "the header"
                // A file appears whole or not at all; standard output has had the lines before this one.
                let before = object == nil ? "nothing" : lines == 0 ? "the header" : "the header and the \(lines) line\(lines == 1 ? "" : "s") before it"
                let outcome = path == "-" ? "the output is incomplete: \(before) went to standard output" : "nothing was written"
                throw ExportError(message: "\(path): \(what), column \(names[error.fieldIndex]): \(error.character.message) — \(outcome)",
                                       category: .data)
            }
        }
        do {
            try write(names, nil)
            try store.forEachObject(of: entity.name, rows: resolver.rowsRelationship?.name) { object in
                try refuseNonFinite(object, entity)
                if let re = resolver.rowsEntity { for row in object.rows { try refuseNonFinite(row, re) } }
                let ownCells = own.map { $0.1(object) }
                if rowColumns.isEmpty || object.rows.isEmpty {
                    try write(ownCells + rowColumns.map { _ in "" }, object)
                    lines += 1
                } else {
                    for row in object.rows {
                        try write(ownCells + rowColumns.map { $0.1(row) }, object)
                        lines += 1
                    }
                }
            }
            try writer.close()
            for d in dangling {
                warn(d.count == 1 ? "1 \(d.relationship) refers to a deleted \(d.destination) (\(d.first)): written empty"
                                  : "\(d.count) \(d.relationship) refer to a deleted \(d.destination) (the first \(d.first)): written empty")
            }
        } catch let error as CSVError {
            throw ExportError(message: error.description, category: .io)
        } catch let error as NonFiniteStoredNumber where path == "-" {
            // A file is not written at all; standard output has had the lines before this object, which a pipe
            // (`| gzip`) may keep: say so, as for a character the encoding cannot hold.
            let before = lines == 0 ? "the header" : "the header and the \(lines) line\(lines == 1 ? "" : "s") before it"
            throw ExportError(error, outcome: "the output is incomplete: \(before) went to standard output")
        }
        return lines
    }

    /// An infinity another tool stored would be written as `inf`, which no import reads back: refused, naming it.
    private static func refuseNonFinite(_ object: ExportedObject, _ entity: Entity) throws {
        guard let i = object.attributes.firstIndex(where: \.isNonFiniteDouble), case .double(let d) = object.attributes[i] else { return }
        throw NonFiniteStoredNumber(object: ObjectID(entity: entity.name, rowID: object.rowID), attribute: entity.attributes[i].name, value: d)
    }
}
