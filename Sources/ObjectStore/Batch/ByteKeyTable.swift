// A hash table from byte strings to row IDs, for the key caches of bulk writes.
//
// Why not Dictionary<String, Int64>: a key cache holds up to millions of short keys (order numbers, customer
// names) and is probed once or twice per input line. Swift's Dictionary hashes with SipHash through the
// String's generic hashing and keeps 24-byte entries at 75% load behind a separate metadata array; this
// table hashes the UTF-8 bytes with FNV-1a, keeps the keys in one arena and probes linearly, and a probe
// can start from a CSV cell's bytes without making a String. On the 10M-line bench the order-number cache
// (2,000,000 keys) was the largest single cost that grew faster than the lines.

import Foundation

package final class ByteKeyTable {
    private struct Slot {
        var hash: UInt64 = 0
        var offset: UInt32 = 0
        var length: Int32 = -1     // -1: empty
        var id: Int64 = 0          // 0: removed (row IDs start at 1)
    }

    private var arena: [UInt8] = []
    private var slots = [Slot](repeating: Slot(), count: 256)
    private var used = 0
    package private(set) var count = 0

    package init() {}

    @inline(__always)
    static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The slot holding `bytes`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ bytes: UnsafeBufferPointer<UInt8>, _ h: UInt64) -> (index: Int, found: Bool) {
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: h) & mask
        return arena.withUnsafeBufferPointer { a in
            slots.withUnsafeBufferPointer { s in
                while true {
                    let slot = s[i]
                    if slot.length < 0 { return (i, false) }
                    if slot.hash == h, Int(slot.length) == bytes.count,
                       bytes.count == 0 || memcmp(a.baseAddress! + Int(slot.offset), bytes.baseAddress!, bytes.count) == 0 {
                        return (i, true)
                    }
                    i = (i + 1) & mask
                }
            }
        }
    }

    @inline(__always)
    package func get(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let (i, found) = find(bytes, ByteKeyTable.hash(bytes))
        guard found else { return nil }
        let id = slots[i].id
        return id == 0 ? nil : id
    }

    /// Sets (or, with nil, removes) the row ID of a key.
    package func set(_ bytes: UnsafeBufferPointer<UInt8>, _ id: Int64?) {
        let h = ByteKeyTable.hash(bytes)
        var (i, found) = find(bytes, h)
        if found {
            let old = slots[i].id
            slots[i].id = id ?? 0
            if old == 0 && id != nil { count += 1 }
            if old != 0 && id == nil { count -= 1 }
            return
        }
        guard let id else { return }
        if (used + 1) * 4 > slots.count * 3 {
            grow()
            i = find(bytes, h).index
        }
        precondition(arena.count + bytes.count < Int(UInt32.max), "key cache larger than 4 GiB")
        slots[i] = Slot(hash: h, offset: UInt32(arena.count), length: Int32(bytes.count), id: id)
        arena.append(contentsOf: bytes)
        used += 1
        count += 1
    }

    package func get(_ key: String) -> Int64? {
        var key = key
        return key.withUTF8 { get($0) }
    }

    package func set(_ key: String, _ id: Int64?) {
        var key = key
        key.withUTF8 { set($0, id) }
    }

    private func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        let mask = slots.count - 1
        for slot in old where slot.length >= 0 {
            var i = Int(truncatingIfNeeded: slot.hash) & mask
            while slots[i].length >= 0 { i = (i + 1) & mask }
            slots[i] = slot
        }
    }
}
