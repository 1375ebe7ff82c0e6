// A hash table from byte strings to row IDs, for the key caches of bulk writes.
//
// Why not Dictionary<String, Int64>: a key cache holds up to millions of short keys (order numbers, customer
// names) and is probed once or twice per input line. Swift's Dictionary hashes with SipHash through the
// String's generic hashing; this table hashes the UTF-8 bytes with FNV-1a, keeps the keys in one arena and
// probes linearly through 16-byte slots, and a probe can start from a CSV cell's bytes without making a String. Its
// state is raw memory behind one `let` pointer, so a probe costs no exclusivity or uniqueness checks (measured with
// callgrind: a probe went from about 1,200 instructions through Dictionary to under 100). On the 10M-line
// bench the order-number cache (2,000,000 keys) was the cost that grew fastest.

import Foundation

package final class ByteKeyTable {
    /// 16 bytes: the low half of the hash (to skip most mismatches without touching the arena), where the key is in
    /// the arena (its length, 4 bytes, then its bytes), and the row ID. All zero is an empty slot, so a table mapped
    /// from the system (fresh pages read as zeros) needs no filling.
    private struct Slot {
        var hash: UInt32
        var place: UInt32   // 0: empty; else 1 + the offset of the key's length in the arena
        var id: Int64       // 0: removed (row IDs start at 1)
    }

    private struct State {
        var slots: UnsafeMutablePointer<Slot>
        var mask: Int
        var arena: UnsafeMutablePointer<UInt8>
        var arenaCount: Int
        var arenaCapacity: Int
        var used: Int
        var count: Int
    }

    private let state: UnsafeMutablePointer<State>

    /// Slot tables from this size on are mapped from the system, so that growing gives the old table's pages back as
    /// they are moved (see `grow()`).
    private static let mappedBytes = 1 << 20
    /// How much of the old table is given back at a time while growing (a multiple of the page size).
    private static let releaseChunk = 1 << 16

    package init() {
        state = .allocate(capacity: 1)
        state.initialize(to: State(slots: ByteKeyTable.allocateSlots(256), mask: 255, arena: .allocate(capacity: 4096),
                                   arenaCount: 0, arenaCapacity: 4096, used: 0, count: 0))
    }

    deinit {
        ByteKeyTable.freeSlots(state.pointee.slots, state.pointee.mask + 1)
        state.pointee.arena.deallocate()
        state.deallocate()
    }

    private static func allocateSlots(_ count: Int) -> UnsafeMutablePointer<Slot> {
        let bytes = count * MemoryLayout<Slot>.stride
        if bytes >= mappedBytes {
            guard let p = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0), p != MAP_FAILED else {
                fatalError("out of memory for a key cache of \(count) slots")
            }
            return p.bindMemory(to: Slot.self, capacity: count)
        }
        let p = UnsafeMutablePointer<Slot>.allocate(capacity: count)
        p.initialize(repeating: Slot(hash: 0, place: 0, id: 0), count: count)
        return p
    }

    private static func freeSlots(_ slots: UnsafeMutablePointer<Slot>, _ count: Int) {
        let bytes = count * MemoryLayout<Slot>.stride
        if bytes >= mappedBytes {
            munmap(UnsafeMutableRawPointer(slots), bytes)
        } else {
            slots.deallocate()
        }
    }

    /// Keys with a row ID.
    package var count: Int { state.pointee.count }

    @inline(__always)
    private static func hash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return h
    }

    /// The slot holding `bytes`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ bytes: UnsafeBufferPointer<UInt8>, _ h: UInt64) -> (index: Int, found: Bool) {
        let s = state.pointee
        var i = Int(truncatingIfNeeded: h) & s.mask
        while true {
            let slot = s.slots[i]
            if slot.place == 0 { return (i, false) }
            if slot.hash == UInt32(truncatingIfNeeded: h) {
                let key = s.arena + Int(slot.place - 1)
                let length = Int(UnsafeRawPointer(key).loadUnaligned(as: UInt32.self))
                if length == bytes.count && (length == 0 || memcmp(key + 4, bytes.baseAddress!, length) == 0) {
                    return (i, true)
                }
            }
            i = (i + 1) & s.mask
        }
    }

    @inline(__always)
    package func get(_ bytes: UnsafeBufferPointer<UInt8>) -> Int64? {
        let (i, found) = find(bytes, ByteKeyTable.hash(bytes))
        guard found else { return nil }
        let id = state.pointee.slots[i].id
        return id == 0 ? nil : id
    }

    /// Sets (or, with nil, removes) the row ID of a key.
    package func set(_ bytes: UnsafeBufferPointer<UInt8>, _ id: Int64?) {
        let h = ByteKeyTable.hash(bytes)
        var (i, found) = find(bytes, h)
        if found {
            let old = state.pointee.slots[i].id
            state.pointee.slots[i].id = id ?? 0
            if old == 0 && id != nil { state.pointee.count += 1 }
            if old != 0 && id == nil { state.pointee.count -= 1 }
            return
        }
        guard let id else { return }
        let needed = 4 + bytes.count
        precondition(state.pointee.arenaCount + needed < Int(UInt32.max), "a key cache of more than 4 GiB of keys")
        if (state.pointee.used + 1) * 4 > (state.pointee.mask + 1) * 3 {
            grow()
            i = find(bytes, h).index
        }
        if state.pointee.arenaCount + needed > state.pointee.arenaCapacity {
            let capacity = max(state.pointee.arenaCapacity * 2, state.pointee.arenaCount + needed)
            let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
            bigger.update(from: state.pointee.arena, count: state.pointee.arenaCount)
            state.pointee.arena.deallocate()
            state.pointee.arena = bigger
            state.pointee.arenaCapacity = capacity
        }
        let offset = state.pointee.arenaCount
        UnsafeMutableRawPointer(state.pointee.arena + offset).storeBytes(of: UInt32(bytes.count), as: UInt32.self)
        if let base = bytes.baseAddress, bytes.count > 0 { (state.pointee.arena + offset + 4).update(from: base, count: bytes.count) }
        state.pointee.arenaCount += needed
        state.pointee.slots[i] = Slot(hash: UInt32(truncatingIfNeeded: h), place: UInt32(offset + 1), id: id)
        state.pointee.used += 1
        state.pointee.count += 1
    }

    package func get(_ key: String) -> Int64? {
        var key = key
        return key.withUTF8 { get($0) }
    }

    package func set(_ key: String, _ id: Int64?) {
        var key = key
        key.withUTF8 { set($0, id) }
    }

    /// Twice the slots. The old table is read front to back, and when it is mapped its pages are given back to the
    /// system as they are passed, so that growing needs about the new table's memory rather than both tables':
    /// 200,000 order numbers arriving in random order grow the table from 262,144 to 524,288 slots when the file is
    /// nearly read, and that moment was the peak of the 1M-line import (docs/design/import-speed.md).
    private func grow() {
        let old = state.pointee.slots
        let oldCount = state.pointee.mask + 1
        let count = oldCount * 2
        let slots = ByteKeyTable.allocateSlots(count)
        let mask = count - 1
        let stride = MemoryLayout<Slot>.stride
        let mapped = oldCount * stride >= ByteKeyTable.mappedBytes
        let perChunk = ByteKeyTable.releaseChunk / stride
        for k in 0..<oldCount {
            if old[k].place != 0 {
                // The slot keeps 32 bits of the hash; the table's index uses the low bits, so they suffice until a
                // table of 2^32 slots.
                var i = Int(old[k].hash) & mask
                while slots[i].place != 0 { i = (i + 1) & mask }
                slots[i] = old[k]
            }
            if mapped && (k + 1) % perChunk == 0 {
                madvise(UnsafeMutableRawPointer(old + (k + 1 - perChunk)), ByteKeyTable.releaseChunk, MADV_DONTNEED)
            }
        }
        ByteKeyTable.freeSlots(old, oldCount)
        state.pointee.slots = slots
        state.pointee.mask = mask
    }
}
