// The reader's hot loop: finds the fields of one record in the buffer.
//
// Why this file exists: this loop is where the time goes, so it is kept apart and written for the
// optimizer — raw pointers, state in locals, one table lookup per byte, a LF sentinel after the
// valid bytes instead of a bounds check. It records each field as a byte range plus a kind; quotes
// are removed (and `""` unescaped) only when a field is read, in CSVRecord.

/// One field of the current record, as offsets into the reader's buffer.
struct FieldSlot {
    /// Raw start (the opening quote of a quoted field) and end (after the closing quote).
    var start: Int
    var end: Int
    /// `plain`: the bytes as they are; `quoted`: drop the enclosing quotes; `escaped`: quoted with
    /// `""` inside or text after the closing quote, unescape on demand.
    var kind: UInt8

    static let plain: UInt8 = 0
    static let quoted: UInt8 = 1
    static let escaped: UInt8 = 2
}

enum ScanResult {
    /// The fields are in `fields[0..<fieldCount]`, the record in `recordStart..<recordEnd`.
    case record
    /// The record at `position` continues past `end`: refill and scan again.
    case needMore
    case endOfInput
    /// The input ends inside the quoted field that begins at this buffer offset.
    case unterminatedQuote(fieldStart: Int)
}

extension CSVReader {
    func scanRecord() -> ScanResult {
        let lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r"), quote = UInt8(ascii: "\"")
        let buf = buffer
        let end = self.end
        let eof = atEOF
        let unquoted = UnsafePointer(classes)
        let quoted = unquoted + 256
        let atLineStart = unquoted + 512
        let delimiter = self.delimiter
        var p = position

        // Blank lines are not records: skip them and commit, so a refill keeps them skipped. So are byte-order
        // marks at the start of a line in UTF-8 text (two exports joined with `cat`): a line of only a mark is
        // blank. A mark cut by the end of the data is seen whole when the record is scanned again after the refill
        // its field needs. One table lookup decides the usual case, a record's first byte.
        var line = self.line
        var blank = 0
        while true {
            // At the end of the data, or at a CR that may be half of a CRLF: decide after a refill.
            if p == end || (p &+ 1 == end && buf[p] == cr && !eof) {
                position = p
                self.line = line
                blankLinesSkipped += blank
                return p == end && eof ? .endOfInput : .needMore
            }
            let k = atLineStart[Int(buf[p])]
            if k == 0 {
                break
            } else if k == 2 {
                p &+= 1
            } else if k == 3 {
                p &+= (p &+ 1 < end && buf[p &+ 1] == lf) ? 2 : 1
            } else if buf[p &+ 1] == 0xBB, buf[p &+ 2] == 0xBF {     // the LF sentinel after the data stops it
                p &+= 3
                continue
            } else {
                break
            }
            line &+= 1
            blank &+= 1
        }
        position = p
        self.line = line
        if blank > 0 { blankLinesSkipped += blank }

        let start = p
        var slots = fields
        var slotCapacity = fieldCapacity
        var count = 0
        var breaks = 0      // line breaks inside quoted fields
        while true {
            let fieldStart = p
            var kind = FieldSlot.plain
            if buf[p] == quote {
                kind = FieldSlot.quoted
                p &+= 1
                while true {
                    while quoted[Int(buf[p])] == 0 { p &+= 1 }
                    if p == end {
                        if !eof { return .needMore }
                        recordStart = start
                        recordLine = line
                        return .unterminatedQuote(fieldStart: fieldStart)
                    }
                    let c = buf[p]
                    if c == quote {
                        if p &+ 1 == end {
                            if !eof { return .needMore }
                            p &+= 1
                            break
                        }
                        if buf[p &+ 1] == quote {
                            kind = FieldSlot.escaped
                            p &+= 2
                            continue
                        }
                        p &+= 1
                        break
                    }
                    if c == lf {
                        breaks &+= 1
                    } else {
                        if p &+ 1 == end, !eof { return .needMore }
                        if p &+ 1 == end || buf[p &+ 1] != lf { breaks &+= 1 }
                    }
                    p &+= 1
                }
                if unquoted[Int(buf[p])] == 0 {
                    // Text after the closing quote: kept, as Python's csv module does.
                    kind = FieldSlot.escaped
                    repeat { p &+= 1 } while unquoted[Int(buf[p])] == 0
                }
            } else {
                while unquoted[Int(buf[p])] == 0 { p &+= 1 }
            }

            if count == slotCapacity {
                growFields()
                slots = fields
                slotCapacity = fieldCapacity
            }
            slots[count] = FieldSlot(start: fieldStart, end: p, kind: kind)
            count &+= 1

            let c = buf[p]
            if c == delimiter {
                p &+= 1
                continue
            }
            let next: Int
            if p == end {
                if !eof { return .needMore }
                next = p
            } else if c == lf {
                next = p &+ 1
            } else {
                if p &+ 1 == end, !eof { return .needMore }
                next = (p &+ 1 < end && buf[p &+ 1] == lf) ? p &+ 2 : p &+ 1
            }
            fieldCount = count
            recordStart = start
            recordEnd = p
            recordLine = line
            position = next
            self.line = line &+ breaks &+ 1
            return .record
        }
    }

    func growFields() {
        let bigger = UnsafeMutablePointer<FieldSlot>.allocate(capacity: fieldCapacity * 2)
        bigger.moveInitialize(from: fields, count: fieldCapacity)
        fields.deallocate()
        fields = bigger
        fieldCapacity *= 2
    }
}
