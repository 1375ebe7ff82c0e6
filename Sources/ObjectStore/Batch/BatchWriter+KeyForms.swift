// Keys that are the same text in another Unicode normal form ("Café" precomposed, or with U+0301 as macOS
// writes it) name the same object. Text is stored as given, and the caches and SQLite's indexes compare bytes,
// so this is the look-up after an exact miss, for non-ASCII keys only (ASCII is the same in every form: the
// hot path of an import of ASCII keys is untouched).
//
// A key equal after NFC is either stored in NFC — found by an exact look-up of the NFC form — or stored in
// another form, which is rare (text typed on macOS) and kept per column in `KeyCache.nonNFC`: loaded by one
// scan of the rows whose key has a byte ≥ 0x80 at the first non-ASCII miss, then kept up to date as the batch
// inserts and updates. It stays empty for a column of precomposed keys, however many.

extension BatchWriter {
    /// The row ID of the row whose key in `cache`'s column is `key`, byte for byte (the cache, then SQLite for a
    /// cache that does not know every row).
    func exactID(_ key: StoredValue, _ cache: KeyCache, _ layout: EntityLayout) throws(BatchError) -> Int64? {
        if let id = try cached(cache, key) { return id }
        guard !cache.authoritative else { return nil }
        let s = try statement(sql.ids(from: layout.entity.name, where: cache.column))
        s.bind(1, key)
        let found = try s.step() ? s.int64(0) : nil
        s.reset()
        if let found { try cacheSet(cache, key, found) }
        return found
    }

    /// The row ID of the row whose key in `cache`'s column equals `text` after NFC, when an exact look-up of
    /// `text` found none.
    func canonicalMatch(_ text: String, _ cache: KeyCache, _ layout: EntityLayout) throws(BatchError) -> Int64? {
        let composed = TextNormalForm.nfc(text)
        if !TextNormalForm.sameBytes(composed, text), let id = try exactID(.text(composed), cache, layout) { return id }
        if cache.nonNFC == nil { try loadNonNFC(cache) }
        return cache.nonNFC?[composed]
    }

    /// The key as stored in row `id` of `cache`'s column (for a message naming the stored spelling).
    func storedKey(_ cache: KeyCache, _ layout: EntityLayout, id: Int64) throws(BatchError) -> String? {
        let s = try statement(sql.value(of: cache.column, in: layout.entity.name))
        s.bind(1, id)
        defer { s.reset() }
        guard try s.step(), case .text(let t) = s.column(0) else { return nil }
        return t
    }

    /// Fills `cache.nonNFC` by one scan of the column's non-ASCII keys (a text's length in bytes and in
    /// characters differ exactly when it has a byte ≥ 0x80), rows this batch wrote included.
    private func loadNonNFC(_ cache: KeyCache) throws(BatchError) {
        let s = try statement(sql.nonASCIIKeys(cache.column, in: cache.table))
        defer { s.reset() }
        var map: [String: Int64] = [:]
        while try s.step() {
            guard case .text(let t) = s.column(0) else { continue }
            let composed = TextNormalForm.nfc(t)
            // The first of two stored keys that are equal after NFC (a store written before this check) wins.
            if !TextNormalForm.sameBytes(composed, t), map[composed] == nil { map[composed] = s.int64(1)! }
        }
        cache.nonNFC = map
        // The scan saw the current record's rows too: if it is rolled back, scan again when next needed.
        logUndo { cache.nonNFC = nil }
    }

    /// Keeps `cache.nonNFC` up to date for a key the batch wrote (`id`) or took away (nil; only if it was `was`'s).
    func noteNonNFC(_ cache: KeyCache, _ key: StoredValue, _ id: Int64?, was: Int64? = nil) {
        guard case .text(let t) = key, !TextNormalForm.isSurelyNFC(t) else { return }
        let composed = TextNormalForm.nfc(t)
        if TextNormalForm.sameBytes(composed, t) { return }
        let old = cache.nonNFC?[composed]
        if id == nil && old != was { return }
        if id != nil && old != nil { return }
        cache.nonNFC?[composed] = id
        logUndo { cache.nonNFC?[composed] = old }
    }
}
