// Indexes during a bulk load. A table that was empty when the batch began is loaded without keeping up
// the indexes whose keys arrive out of order: each is dropped at the first key that is smaller than the
// one before, and made again from its own SQL when the batch ends (`finishIndexes()`) — one sort instead
// of a random B-tree insert per row. An index whose keys keep arriving in order (order numbers counting
// up, dates of orders written day by day, the rows of one document after another) costs only an append
// per row, so it is kept up as rows come and nothing is left to sort at the end.
//
// Why: a random insert into an index larger than SQLite's page cache reads and rewrites a page per row, and
// a sort grows as n log n where appends grow as n (figures: docs/design/import-speed.md).
//
// A unique index can be dropped only where the batch checks that uniqueness itself: a single column
// holding an attribute the writer validates, in a table that was empty, whose every row the authoritative
// key cache of that attribute then knows (`validate` asks the cache instead of SQLite). Other unique
// indexes (a one-to-one relationship's foreign key) stay, in or out of order.

import Foundation

extension EntityLayout {
    /// An index of a table that was empty when the batch began, kept up while its keys arrive in order.
    struct LiveIndex {
        let name: String
        let sql: String
        /// Where each key column's value is in a row as buffered (`"id"` is 0, attributes from 1, then
        /// foreign keys).
        let positions: [Int]
        /// The key of the last row inserted (empty before the first).
        var last: [StoredValue] = []
    }
}

extension BatchWriter {
    /// Decides, at the first insert into `layout`'s table, which of its indexes to watch, drop now, or keep.
    func prepareIndexes(_ layout: EntityLayout) throws(BatchError) {
        layout.deferredIndexes = []
        // (On PostgreSQL a dropped index would make every reader of the table wait for the commit: kept up.)
        guard layout.maxIDAtStart == 0, sql.dropsIndexesDuringLoads else { return }
        let list = try statement(sql.indexesOfTable)
        list.bind(1, .text(layout.entity.name))
        var found: [(name: String, sql: String, unique: Bool)] = []
        while try list.step() {
            if case .text(let name) = list.column(0), case .text(let sql) = list.column(1) {
                found.append((name, sql, list.int64(2) == 1))
            }
        }
        list.reset()
        let columns = try statement(sql.keyColumnsOfIndex)
        var dropNow: [(name: String, sql: String)] = []
        for index in found {
            columns.bind(1, .text(index.name))
            var positions: [Int]? = []
            while try columns.step() {
                // An expression (no name), or an order other than bytewise, cannot be followed here.
                guard columns.int64(1) == 1, case .text(let column) = columns.column(0),
                      let p = layout.rowPosition(ofColumn: column) else {
                    positions = nil
                    continue
                }
                positions?.append(p)
            }
            columns.reset()
            if index.unique {
                // Only a uniqueness the writer checks in memory may go unenforced until the end.
                guard let p = positions, p.count == 1, p[0] >= 1, p[0] <= layout.types.count,
                      layout.checksUniqueness[p[0] - 1] else { continue }
            }
            if let positions {
                layout.liveIndexes.append(EntityLayout.LiveIndex(name: index.name, sql: index.sql, positions: positions))
            } else {
                dropNow.append((index.name, index.sql))
            }
        }
        for index in dropNow { try dropIndex(index, of: layout) }
    }

    /// Follows the key order of the watched indexes for the row just buffered (the last `width` values of
    /// `layout.pending`); drops each index that a key out of order would make insert at random. (Dropping
    /// writes out the buffered rows first, this one included: one insert out of order costs nothing.)
    @inline(__always)
    func followIndexes(_ layout: EntityLayout) throws(BatchError) {
        let base = layout.pending.count - layout.width
        var outOfOrder: [EntityLayout.LiveIndex] = []
        var i = 0
        while i < layout.liveIndexes.count {
            if layout.advance(index: i, rowAt: base) {
                i += 1
            } else {
                outOfOrder.append(layout.liveIndexes.remove(at: i))
            }
        }
        for index in outOfOrder { try dropIndex((index.name, index.sql), of: layout) }
    }

    private func dropIndex(_ index: (name: String, sql: String), of layout: EntityLayout) throws(BatchError) {
        try execute(sql.dropIndex(index.name))
        layout.deferredIndexes?.append(index)
    }

    /// Makes the dropped indexes again: the last step before commit.
    func finishIndexes() throws(BatchError) {
        let exists = try statement(sql.indexExists)
        var missing: [(name: String, sql: String)] = []
        for l in layouts.values.sorted(by: { $0.entity.name < $1.entity.name }) {
            for (name, sql) in l.deferredIndexes ?? [] {
                // A drop inside a record that was rolled back did not happen.
                exists.bind(1, .text(name))
                if !(try exists.step()) { missing.append((name, sql)) }
                exists.reset()
            }
            l.deferredIndexes = []
            l.liveIndexes = []
        }
        guard !missing.isEmpty else { return }
        // The load is over and the inserting thread idle: SQLite's sorter may sort on the other cores while
        // this one reads the table (faster at 10M lines: docs/design/import-speed.md).
        let helpers = BackgroundInserter.oneThread ? 0 : max(0, min(ProcessInfo.processInfo.activeProcessorCount - 1, 4))
        try execute(sql.sortHelpers(helpers))
        defer { try? connection.execute(sql.sortHelpers(0)) }
        for index in missing {
            try execute(index.sql)
            BatchTimes.mark("index rebuild: \(index.name)")
        }
    }
}

extension EntityLayout {
    /// The position of a table column in a buffered row (see `LiveIndex.positions`).
    func rowPosition(ofColumn column: String) -> Int? {
        if column == "id" { return 0 }
        if let k = attributeIndex[column] { return 1 + k }
        if let j = toOne.firstIndex(where: { $0.column == column }) { return 1 + types.count + j }
        return nil
    }

    /// Values per buffered row.
    var width: Int { 1 + types.count + toOne.count }

    /// Whether the row at `base` in `pending` keeps watched index `i` in order (equal keys do: the row ID,
    /// the index's last column, grows); records its key.
    @inline(__always)
    func advance(index i: Int, rowAt base: Int) -> Bool {
        let positions = liveIndexes[i].positions
        if liveIndexes[i].last.isEmpty {
            liveIndexes[i].last = positions.map { pending[base + $0] }
            return true
        }
        for (c, p) in positions.enumerated() {
            let order = StoredValue.indexOrder(pending[base + p], liveIndexes[i].last[c])
            if order < 0 { return false }
            if order > 0 { break }
        }
        for (c, p) in positions.enumerated() { liveIndexes[i].last[c] = pending[base + p] }
        return true
    }
}

extension StoredValue {
    /// -1, 0 or 1 as `a` sorts before, with or after `b` in an index with the BINARY collation: NULL, then
    /// numbers by value, then text by its UTF-8 bytes, then blobs by their bytes.
    static func indexOrder(_ a: StoredValue, _ b: StoredValue) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.integer(let x), .integer(let y)): return x < y ? -1 : x == y ? 0 : 1
        case (.integer(let x), .real(let y)): return compare(Double(x), y)
        case (.real(let x), .integer(let y)): return compare(x, Double(y))
        case (.real(let x), .real(let y)): return compare(x, y)
        case (.integer, _), (.real, _): return -1
        case (_, .integer), (_, .real): return 1
        case (.text(var x), .text(var y)): return x.withUTF8 { a in y.withUTF8 { b in bytewise(a, b) } }
        case (.text, .blob): return -1
        case (.blob, .text): return 1
        case (.blob(let x), .blob(let y)):
            return x.withUnsafeBytes { a in y.withUnsafeBytes { b in bytewise(a.bindMemory(to: UInt8.self), b.bindMemory(to: UInt8.self)) } }
        }
    }

    private static func compare(_ x: Double, _ y: Double) -> Int { x < y ? -1 : x == y ? 0 : 1 }

    private static func bytewise(_ x: UnsafeBufferPointer<UInt8>, _ y: UnsafeBufferPointer<UInt8>) -> Int {
        let n = min(x.count, y.count)
        let c = n == 0 ? 0 : memcmp(x.baseAddress!, y.baseAddress!, n)
        if c != 0 { return c < 0 ? -1 : 1 }
        return x.count < y.count ? -1 : x.count == y.count ? 0 : 1
    }
}
