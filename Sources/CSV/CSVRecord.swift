// One record, as a view into the reader's buffer.
//
// Why this file exists: most of the reader's speed comes from not making Strings for fields nobody
// reads. A CSVRecord is a few integers and a reference: fields become Strings (decoded from the
// input's encoding, quotes removed) only when subscripted, and `withBytes(ofField:)` hands out the
// bytes without any allocation. Positions for error messages are computed here, on demand.

package struct CSVRecord: RandomAccessCollection {
    let reader: CSVReader
    // Copied from the reader, so the hot accessors read no class properties (no exclusivity
    // checks): valid while `stamp.pointee == generation`, i.e. until the next `next()`.
    private let buffer: UnsafeMutablePointer<UInt8>
    private let fields: UnsafeMutablePointer<FieldSlot>
    private let stamp: UnsafeMutablePointer<Int>
    private let generation: Int
    private let encoding: ResolvedEncoding
    /// Physical line (1-based) where the record starts.
    package let line: Int
    /// Record number (1-based); the header is record 1. Blank lines are not counted.
    package let number: Int
    /// 0-based byte offset of the record's first byte in the input.
    package let byteOffset: Int64
    /// Number of fields.
    package let count: Int

    init(reader: CSVReader) {
        self.reader = reader
        buffer = reader.buffer
        fields = reader.fields
        stamp = reader.generation
        generation = reader.generation.pointee
        encoding = reader.resolvedEncoding
        line = reader.recordLine
        number = reader.recordCount
        byteOffset = reader.bufferOffset + Int64(reader.recordStart)
        count = reader.fieldCount
    }

    package var startIndex: Int { 0 }
    package var endIndex: Int { count }

    /// Field `index` as a String, decoded from the input's encoding, quotes removed.
    package subscript(index: Int) -> String {
        withBytes(ofField: index) { bytes in
            FieldDecoder.string(bytes.baseAddress!, count: bytes.count, encoding: encoding)
        }
    }

    /// Calls `body` with the bytes of field `index`, quotes removed and `""` unescaped, in the
    /// input's encoding (`CSVReader.encoding`), without allocating. The bytes are valid only
    /// inside `body`. (The base address is never nil, also for an empty field.)
    package func withBytes<R>(ofField index: Int, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let slot = self.slot(index)
        switch slot.kind {
        case FieldSlot.plain:
            return try body(UnsafeBufferPointer(start: buffer + slot.start, count: slot.end - slot.start))
        case FieldSlot.quoted:
            return try body(UnsafeBufferPointer(start: buffer + slot.start + 1, count: slot.end - slot.start - 2))
        default:
            return try body(reader.unescape(slot))
        }
    }

    /// Where field `index` starts (its opening quote, if quoted): physical line and character column.
    package func position(ofField index: Int) -> CSVPosition {
        let slot = self.slot(index)
        return reader.locate(slot.start)
    }

    /// Whether field `index` was quoted in the input (`""` is an empty quoted field).
    package func isQuoted(field index: Int) -> Bool {
        slot(index).kind != FieldSlot.plain
    }

    /// The record as it appears in the input, quotes and all, without its line break: for
    /// showing a bad record to a user.
    package var rawText: String {
        checkCurrent()
        return FieldDecoder.string(buffer + reader.recordStart, count: reader.recordEnd - reader.recordStart,
                                   encoding: encoding)
    }

    @inline(__always)
    private func checkCurrent() {
        precondition(stamp.pointee == generation,
                     "CSVRecord used after CSVReader.next() moved on; copy the values you keep first")
    }

    @inline(__always)
    private func slot(_ index: Int) -> FieldSlot {
        checkCurrent()
        precondition(index >= 0 && index < count, "field index \(index) out of range 0..<\(count)")
        return fields[index]
    }
}

extension CSVReader {
    /// Unescapes an `escaped` field into `scratch`. Inside the quotes `""` is one quote and a lone
    /// quote closes them; after that every byte is literal (Python's rule).
    ///
    /// Each field gets its own place in `scratch` — at its offset within the record, which fits
    /// since unescaping only shrinks — and `scratch` holds a whole record, so it does not move
    /// while the record is current: bytes handed out for one field stay valid while another
    /// field is read (nested `withBytes` calls).
    func unescape(_ slot: FieldSlot) -> UnsafeBufferPointer<UInt8> {
        let quote = UInt8(ascii: "\"")
        let recordLength = recordEnd - recordStart
        if scratchCapacity < recordLength {
            scratch?.deallocate()
            scratchCapacity = max(recordLength, 256)
            scratch = .allocate(capacity: scratchCapacity)
        }
        let out = scratch! + (slot.start - recordStart)
        var o = 0
        var i = slot.start + 1
        var inQuotes = true
        while i < slot.end {
            let byte = buffer[i]
            if inQuotes, byte == quote {
                if i + 1 < slot.end, buffer[i + 1] == quote {
                    out[o] = quote
                    o += 1
                    i += 2
                } else {
                    inQuotes = false
                    i += 1
                }
                continue
            }
            out[o] = byte
            o += 1
            i += 1
        }
        return UnsafeBufferPointer(start: out, count: o)
    }
}
