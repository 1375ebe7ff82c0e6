// Row IDs of the references an import has resolved, keyed by the cell's bytes: a service named on a
// million lines is looked up without making a String or hashing it with SipHash a million times (the
// engine's key cache is keyed by String). Open addressing over a flat arena; FNV-1a hashes. Memory grows
// with the distinct keys only. Not used with --on-error skip, where a rolled-back record may take back a
// row ID this memo would keep.

import Foundation

final class ByteKeyCache {
    private struct Slot {
        var hash: UInt64 = 0
        var offset: Int32 = 0
        var length: Int32 = -1     // -1: empty
        var id: Int64 = 0
    }

    private var arena: [UInt8] = []
    private var slots = [Slot](repeating: Slot(), count: 1024)
    private var mask = 1023
    private var count = 0

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h | 1
    }

    @inline(__always)
    func lookup(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let h = ByteKeyCache.hash(bytes)
        var i = Int(truncatingIfNeeded: h) & mask
        return arena.withUnsafeBufferPointer { a -> Int64? in
            slots.withUnsafeBufferPointer { s -> Int64? in
                while true {
                    let slot = s[i]
                    if slot.length < 0 { return nil }
                    if slot.hash == h, Int(slot.length) == bytes.count,
                       bytes.count == 0 || memcmp(a.baseAddress! + Int(slot.offset), bytes.baseAddress!, bytes.count) == 0 {
                        return slot.id
                    }
                    i = (i + 1) & mask
                }
            }
        }
    }

    func insert(_ bytes: UnsafeBufferPointer<UInt8>, id: Int64) {
        if (count + 1) * 2 > slots.count { grow() }
        let h = ByteKeyCache.hash(bytes)
        var i = Int(truncatingIfNeeded: h) & mask
        while slots[i].length >= 0 { i = (i + 1) & mask }
        slots[i] = Slot(hash: h, offset: Int32(arena.count), length: Int32(bytes.count), id: id)
        arena.append(contentsOf: bytes)
        count += 1
    }

    private func grow() {
        let old = slots
        slots = [Slot](repeating: Slot(), count: old.count * 2)
        mask = slots.count - 1
        for slot in old where slot.length >= 0 {
            var i = Int(truncatingIfNeeded: slot.hash) & mask
            while slots[i].length >= 0 { i = (i + 1) & mask }
            slots[i] = slot
        }
    }
}
