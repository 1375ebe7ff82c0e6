// Key caches: how a batch finds the row ID behind a natural key or another unique attribute without
// a query per record. They are the only memory of a batch that grows with the input.
//
// A cache of an entity whose table was empty when the batch began is *authoritative*: every row of it
// was written by this batch and is in the cache, so a miss means "no such row" without asking SQLite.
// Otherwise a miss asks SQLite once and remembers the answer.
//
// An authoritative cache keeps no entries at all while its keys arrive in increasing order (order numbers
// counting up, as exports write them): a key that sorts after the last one written cannot be any earlier
// one, so it is new without a look-up. The first key that is not past the last fills the cache from its
// table, and from then on it keeps every key. (Order numbers were most of the 10M-line import's peak memory:
// docs/design/import-speed.md.)

final class KeyCache {
    let attributeIndex: Int
    let column: String
    let table: String
    let type: AttributeType
    let authoritative: Bool
    /// Text keys (the usual case) are kept by String: hashing an enum around the String costs more.
    let isText: Bool
    private var ids: [StoredValue: Int64] = [:]
    private var texts = ByteKeyTable()
    /// False while the keys have arrived in increasing order (see above): then only the last is kept.
    private(set) var keepsEntries: Bool
    private(set) var lastKey: StoredValue = .null
    /// The column's stored text keys that are not in NFC, by their NFC form (see BatchWriter+KeyForms): nil until
    /// a non-ASCII key first misses.
    var nonNFC: [String: Int64]?

    init(attributeIndex: Int, column: String, table: String, type: AttributeType, authoritative: Bool) {
        self.attributeIndex = attributeIndex
        self.column = column
        self.table = table
        self.type = type
        self.authoritative = authoritative
        isText = type == .string
        keepsEntries = true
    }

    var isEmpty: Bool { ids.isEmpty && texts.count == 0 }

    /// The cached row ID of `key`. (Through `BatchWriter.cached(_:_:)`, which also answers for a cache that
    /// keeps no entries.)
    @inline(__always)
    subscript(key: StoredValue) -> Int64? {
        get {
            if isText, case .text(let s) = key { return texts.get(s) }
            return ids[key]
        }
        set {
            if isText, case .text(let s) = key { texts.set(s, newValue) } else { ids[key] = newValue }
        }
    }

    @inline(__always)
    func id(forText s: String) -> Int64? {
        isText ? texts.get(s) : ids[.text(s)]
    }

    /// Whether `key` sorts after every key written so far (in the order of SQLite's BINARY indexes).
    @inline(__always)
    func isPastLast(_ key: StoredValue) -> Bool {
        !released && (lastKey == .null || StoredValue.indexOrder(key, lastKey) > 0)
    }

    func noteInOrder(_ key: StoredValue) {
        lastKey = key
    }

    func startKeepingEntries() {
        keepsEntries = true
    }

    /// Set by `release()`: no key is taken as past the last one any more.
    private(set) var released = false

    /// Gives the entries' memory back once the batch's body has returned (`BatchWriter.releaseKeyCaches()`). The
    /// cache still answers rightly if asked: the next look-up fills it again from its table (an authoritative
    /// cache: `released` keeps a key from being taken as new without a look-up), or asks SQLite (any other).
    func release() {
        ids = [:]
        texts = ByteKeyTable()
        nonNFC = nil
        if authoritative {
            keepsEntries = false
            released = true
        }
    }

    /// Back to keeping no entries, after `last` (undoing a fill inside a record that was rolled back).
    func stopKeepingEntries(last: StoredValue) {
        ids = [:]
        texts = ByteKeyTable()
        keepsEntries = false
        lastKey = last
    }
}

extension BatchWriter {
    /// Empties every key cache, once the batch's body has returned and before the dropped indexes are made again:
    /// the caches are the batch's biggest memory (200,000 order numbers arriving in random order: about 13 MiB)
    /// and SQLite's sorter needs its own beside them, so they made the peak of an import (docs/design/import-speed.md).
    func releaseKeyCaches() {
        for l in layouts.values {
            for c in l.cacheList { c.release() }
        }
    }

    /// The cache of `layout`'s attribute number `index`, made on first use.
    func keyCache(_ layout: EntityLayout, _ index: Int) throws(BatchError) -> KeyCache {
        if let c = layout.caches[index] { return c }
        let a = layout.entity.attributes[index]
        let empty = layout.maxIDAtStart == 0
        let cache = KeyCache(attributeIndex: index, column: a.name, table: layout.entity.name, type: a.type, authoritative: empty)
        if empty {
            // Everything in the table was written by this batch: load it, and the cache knows every row. With
            // nothing written yet, it keeps none while the keys come in order.
            try fill(cache)
            if cache.isEmpty { cache.stopKeepingEntries(last: .null) }
        }
        layout.caches[index] = cache
        layout.cacheList.append(cache)
        return cache
    }

    /// The row ID `cache` has for `key`. A cache that keeps no entries answers "none" for a key past its last
    /// one; for any other key it is filled from its table first.
    @inline(__always)
    func cached(_ cache: KeyCache, _ key: StoredValue) throws(BatchError) -> Int64? {
        if !cache.keepsEntries {
            if cache.isPastLast(key) { return nil }
            try fill(cache)
        }
        return cache[key]
    }

    /// Loads every row of an authoritative cache's table (all written by this batch) into it.
    func fill(_ cache: KeyCache) throws(BatchError) {
        let s = try statement(sql.keys(cache.column, in: cache.table))
        defer { s.reset() }
        if !cache.keepsEntries {
            let last = cache.lastKey
            // Rows of the current record are loaded too: if it is rolled back, so is the fill.
            logUndo { cache.stopKeepingEntries(last: last) }
        }
        cache.startKeepingEntries()
        while try s.step() { cache[s.column(0)] = s.int64(1)! }
    }

    func cacheSet(_ cache: KeyCache, _ key: StoredValue, _ id: Int64?) throws(BatchError) {
        if !cache.keepsEntries {
            // Nothing is kept, so there is nothing to remove; a key past the last is only noted. (A rolled-back
            // record leaves its key as the last: later keys must then sort after it, which is only stricter.)
            guard id != nil else { return }
            if cache.isPastLast(key) { cache.noteInOrder(key); return }
            try fill(cache)
        }
        if savepoint != nil {
            let old = cache[key]
            logUndo { cache[key] = old }
        }
        cache[key] = id
    }

    /// Records a newly inserted row in every cache of its entity.
    func cacheInserted(_ r: BatchRecord, _ layout: EntityLayout, _ id: Int64) throws(BatchError) {
        for cache in layout.cacheList {
            let v = r.values[cache.attributeIndex]
            if v.isNull { continue }
            let key = v.storedValue(for: cache.type)
            try cacheSet(cache, key, id)
            if cache.nonNFC != nil { noteNonNFC(cache, key, id) }
        }
    }

    /// Moves the cache entries of an updated row whose cached attributes changed.
    func cacheUpdated(_ r: BatchRecord, _ stored: StoredRow) throws(BatchError) {
        for cache in r.layout.caches.values {
            let new = r.values[cache.attributeIndex].storedValue(for: cache.type)
            let old = stored.attributes[cache.attributeIndex]
            guard new != old else { continue }
            if old != .null, try cached(cache, old) == stored.id { try cacheSet(cache, old, nil) }
            if new != .null { try cacheSet(cache, new, stored.id) }
            if cache.nonNFC != nil {
                noteNonNFC(cache, old, nil, was: stored.id)
                noteNonNFC(cache, new, stored.id)
            }
        }
    }

    /// A resolver for references to `entityName` by `key` (the natural key when nil): the fast way to resolve
    /// many references, without looking the entity and its cache up each time.
    package func referenceResolver(to entityName: String, by key: String? = nil,
                                  createMissing: Bool = false) throws(BatchError) -> ReferenceResolver {
        let layout = try layout(named: entityName)
        let e = layout.entity
        let index: Int
        do { index = layout.attributeIndex[try e.identifyingKey(key).name]! } catch { throw .usage(error.description) }
        return ReferenceResolver(writer: self, cache: try keyCache(layout, index), layout: layout, keyIndex: index,
                                 createMissing: createMissing)
    }

    /// The row ID of the `entityName` object whose attribute `key` (the natural key when nil; it must be
    /// unique) equals `value`. When there is none: with `createMissing`, a directory item is created with
    /// that value (and defaults), validated like any other; otherwise `BatchError.notFound`.
    package func resolve(_ value: Value, in entityName: String, by key: String? = nil,
                        createMissing: Bool = false) throws(BatchError) -> Int64 {
        let layout = try layout(named: entityName)
        let e = layout.entity
        let index: Int
        do { index = layout.attributeIndex[try e.identifyingKey(key).name]! } catch { throw .usage(error.description) }
        return try resolve(value, layout, index, try keyCache(layout, index), createMissing: createMissing)
    }

    /// `resolve` with the look-ups done (the reference resolver's way in).
    func resolve(_ value: Value, _ layout: EntityLayout, _ index: Int, _ cache: KeyCache,
                 createMissing: Bool) throws(BatchError) -> Int64 {
        let e = layout.entity
        let a = e.attributes[index]
        let keyName = a.name
        let sqlKey = value.storedValue(for: a.type)
        if let id = try exactID(sqlKey, cache, layout) { return id }
        if case .text(let text) = sqlKey, !TextFolding.isASCII(text), let id = try canonicalMatch(text, cache, layout) {
            return id
        }
        guard createMissing, e.kind == .directory else {
            throw .notFound(entity: e.name, key: keyName, value: value.description,
                            suggestion: try nearbyKey(value.description, layout, a))
        }
        let r = BatchRecord(layout: layout)
        r.set(value, at: index)
        applyDefaults(r, layout)
        model.behaviours[e.name]?.willSave?(r)
        let issues = try validate(r, layout, stored: nil, knownAbsent: index)
        if !issues.isEmpty {
            throw .invalid(issues.map {
                BatchIssue(key: nil, message: "cannot create \(e.name) with \(keyName) \"\(value)\": \($0.message)")
            })
        }
        let id = try insertRow(r, layout)
        try cacheInserted(r, layout, id)
        placeholders[e.name, default: []].insert(id)
        logUndo { self.placeholders[e.name]?.remove(id) }
        count(e.name) { $0.inserted += 1 }
        return id
    }

    /// A stored key close to a misspelt one, when the table is small enough to look through.
    private func nearbyKey(_ text: String, _ layout: EntityLayout, _ a: EntityAttribute) throws(BatchError) -> String? {
        guard a.type == .string else { return nil }
        let s = try statement(sql.values(a.name, in: layout.entity.name, limit: 10001))
        defer { s.reset() }
        var candidates: [String] = []
        while try s.step() {
            if case .text(let t) = s.column(0) { candidates.append(t) }
        }
        return candidates.count > 10_000 ? nil : Suggestions.closest(to: text, in: candidates)
    }
}

/// Resolves references to one entity by one key (see `BatchWriter.referenceResolver(to:by:createMissing:)`).
package final class ReferenceResolver {
    unowned let writer: BatchWriter
    let cache: KeyCache
    let layout: EntityLayout
    let keyIndex: Int
    let createMissing: Bool

    init(writer: BatchWriter, cache: KeyCache, layout: EntityLayout, keyIndex: Int, createMissing: Bool) {
        self.writer = writer
        self.cache = cache
        self.layout = layout
        self.keyIndex = keyIndex
        self.createMissing = createMissing
    }

    /// The row ID of the object whose key is `value` (created when missing, if asked).
    @inline(__always)
    package func id(for value: Value) throws(BatchError) -> Int64 {
        if let id = cache[value.storedValue(for: cache.type)] { return id }
        return try writer.resolve(value, layout, keyIndex, cache, createMissing: createMissing)
    }

    /// The row ID of the object whose key is `value`, or nil when there is none yet: nothing is created and no near
    /// key is looked for (an import asks this of a key its own file may give on a later line).
    package func existingID(for value: Value) throws(BatchError) -> Int64? {
        let key = value.storedValue(for: cache.type)
        if let id = try writer.exactID(key, cache, layout) { return id }
        if case .text(let text) = key, !TextFolding.isASCII(text) { return try writer.canonicalMatch(text, cache, layout) }
        return nil
    }

    /// The row ID of the object whose (text) key is `text`.
    @inline(__always)
    package func id(forText text: String) throws(BatchError) -> Int64 {
        if let id = cache.id(forText: text) { return id }
        return try writer.resolve(.string(text), layout, keyIndex, cache, createMissing: createMissing)
    }
}

extension BatchWriter {
    /// Sets the to-one reference number `index` of row `rowID` of `entityName` (a reference an import could resolve
    /// only once its whole file was read). Returns whether the stored value changed; a row counted unchanged
    /// (`wasUnchanged`) whose reference changes is counted updated instead.
    @discardableResult
    package func setReference(of entityName: String, rowID: Int64, at index: Int, to target: Int64,
                              wasUnchanged: Bool) throws(BatchError) -> Bool {
        let layout = try layout(named: entityName)
        let s = try statement(sql.setReference(layout.entity.name, column: layout.toOne[index].column))
        s.bind(1, target)
        s.bind(2, rowID)
        s.bind(3, target)
        try s.execute()
        let changed = connection.changes > 0
        if changed && wasUnchanged {
            layout.counts.unchanged -= 1
            layout.counts.updated += 1
        }
        return changed
    }
}
