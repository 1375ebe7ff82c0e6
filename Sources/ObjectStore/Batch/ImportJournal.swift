// The import history: one row per import that wrote to the store (file name, SHA-256 of its bytes, time,
// counts, the encoding it was read in), in the store's own table `_bookkeeper_imports`, written inside
// the import's transaction so it is there exactly when the import is. Made on first use; a store that
// never imported has none. Columns added later (`encoding`) are added to an older table by the first
// import that writes one (an additive ALTER TABLE, in the same transaction); rows from before have none.

import Foundation

/// One import, as recorded.
package struct ImportJournalEntry: Sendable, Equatable {
    package var id: Int64?
    package var file: String
    package var sha256: String
    /// When the import began (UTC).
    package var startedAt: Timestamp
    package var seconds: Double
    package var entity: String
    /// Data records read.
    package var records: Int
    package var rejected: Int
    /// What was done, per entity.
    package var counts: [String: BatchCounts]
    /// The encoding the file was read in (`windows-1251`); nil for imports recorded before it was kept.
    package var encoding: String?
    /// What of the stored row cannot be read as bookkeeper wrote it (another tool changed it), each as
    /// `started_at holds "yesterday"`: its fields are then shown as unreadable, never as a made-up time or count.
    package var unreadable: [String] = []
    /// Whether `startedAt`, the counts, `records` and `rejected` are what is stored (not stand-ins for unreadable ones).
    package var timeIsReadable: Bool { !unreadable.contains { $0.hasPrefix("started_at ") } }
    package var countsAreReadable: Bool { !unreadable.contains { $0.hasPrefix("counts ") } }
    package var recordsAreReadable: Bool { !unreadable.contains { $0.hasPrefix("records ") } }
    package var rejectedIsReadable: Bool { !unreadable.contains { $0.hasPrefix("rejected ") } }

    package init(id: Int64? = nil, file: String, sha256: String, startedAt: Timestamp, seconds: Double, entity: String,
                records: Int, rejected: Int, counts: [String: BatchCounts], encoding: String? = nil) {
        self.encoding = encoding
        self.id = id
        self.file = file
        self.sha256 = sha256
        self.startedAt = startedAt
        self.seconds = seconds
        self.entity = entity
        self.records = records
        self.rejected = rejected
        self.counts = counts
    }

    /// Counts added over every entity.
    package var total: BatchCounts {
        counts.values.reduce(into: BatchCounts()) {
            $0.inserted += $1.inserted
            $0.updated += $1.updated
            $0.unchanged += $1.unchanged
            $0.deleted += $1.deleted
        }
    }
}

enum ImportJournal {
    static let table = BatchSQL.journalTable
    /// The table on a store file (the schema a store file is compared with).
    static var createSQL: String { BatchSQL.sqlite.createJournal }
    /// Columns added since the table was first made, each nullable (rows from before have no value).
    static let addedColumns = BatchSQL.journalAddedColumns
}

extension BatchWriter {
    /// Records an import in the store's history, in this batch's transaction.
    package func recordImport(_ entry: ImportJournalEntry) throws(BatchError) {
        try execute(sql.createJournal)
        // A table made by an older version: add the newer columns.
        let info = try statement(sql.columnsOfTable)
        info.bind(1, .text(ImportJournal.table))
        var existing: Set<String> = []
        while try info.step() { if case .text(let n) = info.column(0) { existing.insert(n) } }
        info.reset()
        for (name, type) in ImportJournal.addedColumns where !existing.contains(name) {
            try execute(sql.addJournalColumn(name, type))
        }
        let s = try statement(sql.recordImport)
        let total = entry.total
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let counts = String(decoding: (try? encoder.encode(entry.counts)) ?? Data("{}".utf8), as: UTF8.self)
        let values: [StoredValue] = [
            .text(entry.file), .text(entry.sha256), .text(entry.startedAt.description), .real(entry.seconds),
            .text(entry.entity), .integer(Int64(entry.records)), .integer(Int64(total.inserted)),
            .integer(Int64(total.updated)), .integer(Int64(total.unchanged)), .integer(Int64(total.deleted)),
            .integer(Int64(entry.rejected)), .text(counts), entry.encoding.map { .text($0) } ?? .null,
        ]
        for (i, v) in values.enumerated() { s.bind(Int32(i + 1), v) }
        try s.execute()
    }
}

extension Store {
    /// Every recorded import, oldest first.
    package func importHistory() throws -> [ImportJournalEntry] {
        try read { db in
            guard try db.tableExists(ImportJournal.table) else { return [] }
            // A read-only look at an older store: its table may not have the newer column yet.
            let hasEncoding = try db.columns(of: ImportJournal.table).contains("encoding")
            return try db.rows(BatchSQL(db.dialect).importHistory(hasEncoding: hasEncoding)).map { row in
                // A field another tool changed is named, not read as a stand-in (a 1970 time, zero counts).
                var unreadable: [String] = []
                func stored(_ name: String) -> String {
                    switch row[name] {
                    case .text(let s)?: s.debugDescription
                    case .integer(let i)?: String(i)
                    case .real(let d)?: String(d)
                    case .blob?: "a blob"
                    case .null?, nil: "nothing"
                    }
                }
                func text(_ name: String) -> String { row[name]?.string ?? "" }
                func number(_ name: String) -> Int {
                    guard case .integer(let n)? = row[name], n >= 0 else {
                        unreadable.append("\(name) holds \(stored(name))")
                        return 0
                    }
                    return Int(n)
                }
                let counts: [String: BatchCounts]
                if case .text(let json)? = row["counts"],
                   let decoded = try? JSONDecoder().decode([String: BatchCounts].self, from: Data(json.utf8)) {
                    counts = decoded
                } else {
                    unreadable.append("counts holds \(stored("counts"))")
                    counts = [:]
                }
                let startedAt = Timestamp(iso: text("started_at"))
                if startedAt == nil { unreadable.insert("started_at holds \(stored("started_at"))", at: 0) }
                var entry = ImportJournalEntry(id: row["id"]?.int64, file: text("file"), sha256: text("sha256"),
                                               startedAt: startedAt ?? Timestamp(secondsSinceEpoch: 0),
                                               seconds: row["seconds"]?.double ?? 0, entity: text("entity"), records: number("records"),
                                               rejected: number("rejected"), counts: counts, encoding: row["encoding"]?.string)
                entry.unreadable = unreadable
                return entry
            }
        }
    }
}
