// The rejects file of `--on-error skip`: the header, then each rejected input line as it was read, with
// one more column, `reason`. It is written in the input's encoding and dialect (delimiter, CRLF or LF, a
// byte-order mark if the input had one), so that it can be fixed and imported again with the same profile
// and command — `import` ignores a trailing `reason` column. (It was UTF-8 whatever the input, which gave
// mojibake when imported again under a windows-1252 profile.) Characters of a reason that the encoding
// cannot hold (our dashes and quotes in KOI8-R) are written as ASCII equivalents; a rejected record that
// spans several physical lines is written whole. It is written through the one output module
// (`OutputFile`): the store and the input are refused before anything is imported, and the file appears
// whole when the import ends — synced before the store commits, put in place after.

import CSV
import FileOutput
import Foundation
import ObjectStore

final class RejectsWriter {
    let path: String
    private let file: OutputFile
    private var buffer: [UInt8] = []
    private let delimiter: UInt8
    private let encoder: OutputEncoder
    private let lineEnding: [UInt8]
    private(set) var count = 0
    /// With --on-conflict last: rejected lines are held with their key until the end, and a line whose key a
    /// later line gave again and was kept is left out — its fixed form imported again would overwrite the later
    /// values the import kept (the last line's), the opposite of what --on-conflict last asked for.
    var holdsByKey = false
    private var held: [(key: String?, raw: String, reason: String)] = []
    private var heldKeys: [String: [Int]] = [:]
    private var superseded: Set<Int> = []
    /// Lines left out because a later line of their key was kept.
    var supersededCount: Int { superseded.count }

    /// Opens the output now, so an unwritable or forbidden path, or a file there that is not a rejects file of this
    /// input, fails before anything is imported. `header`: the input's header line as read (nil with --columns);
    /// `fieldCount`: the fields of a record.
    init(path: String, reader: CSVReader, header: String?, fieldCount: Int) throws {
        self.path = path
        delimiter = reader.delimiter
        encoder = OutputEncoder(reader.encoding) ?? OutputEncoder(.utf8)!
        // Through a link to nothing (left by a run that rejected nothing), the file it points to is made again.
        file = try OutputFile(path: path, creatingThroughDanglingLink: true)
        buffer.reserveCapacity(1 << 16)
        var ending: [UInt8] = []
        try? encoder.encode(reader.usesCRLF ? "\r\n" : "\n", into: &ending)
        lineEnding = ending
        if reader.hadByteOrderMark { try? encoder.encode("\u{FEFF}", into: &buffer) }
        if let header { appendLine(header, reason: "reason") }
        do {
            try refuseUnlessRejectsFile(hasHeader: header != nil, reader: reader, fieldCount: fieldCount)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Seen (attack 26, finding 6): `--rejects yesterday.sqlite` (or a customers CSV) was removed without a word by
    /// an import that rejected nothing, and replaced by a header through a symlink. Only a rejects file may be
    /// replaced or removed: one whose first line, read as CSV in the encoding its byte-order mark names, else in
    /// the input's encoding or UTF-8 (with the input's delimiter, or a comma, semicolon, tab or bar), ends in the column
    /// `reason` — a rejects file of any import, since one `--rejects` path often serves a cron job's several
    /// imports (asking for this input's own header refused yesterday's customers rejects at tonight's orders
    /// import; a UTF-16 import's rejects at a UTF-8 one). With --columns there is no header: the first record, read
    /// in the input's dialect, must have the input's fields and a reason.
    private func refuseUnlessRejectsFile(hasHeader: Bool, reader: CSVReader, fieldCount: Int) throws {
        guard case let .regular(resolved) = file.target else { return }
        var status = stat()
        guard stat(resolved, &status) == 0 else { return }
        let refused = FileOutputError(path: path, message: "exists and is not a rejects file; not overwritten", kind: .cannotCreate)
        guard status.st_mode & S_IFMT == S_IFREG else { throw refused }
        // Only the first line is read, and at most 64 KiB of it: the file may be a store of gigabytes. It is read in
        // the encoding its byte-order mark names; without one, in the input's, or else in UTF-8 (a UTF-8 import's
        // rejects file at a UTF-16 import).
        let encodings = Self.encodingByMark(resolved).map { [$0] } ?? [reader.encoding] + (reader.encoding == .utf8 ? [] : [.utf8])
        func firstRecord(_ delimiter: CSVReader.Delimiter, _ encoding: CSVEncoding) -> [String]? {
            let options = CSVReader.Options(delimiter: delimiter, encoding: encoding, maxRecordBytes: 64 << 10, bufferSize: 64 << 10)
            guard let existing = try? CSVReader(path: resolved, options: options), let first = try? existing.next() else { return nil }
            return Array(first).map { String($0) }
        }
        if hasHeader {
            let delimiters = [reader.delimiter] + Array(",;\t|".utf8).filter { $0 != reader.delimiter }
            guard encodings.contains(where: { e in
                delimiters.contains { d in firstRecord(.byte(d), e).map { $0.count >= 2 && $0.last == "reason" } ?? false }
            }) else { throw refused }
        } else {
            guard encodings.contains(where: { firstRecord(.byte(reader.delimiter), $0)?.count == fieldCount + 1 }) else { throw refused }
        }
    }

    /// The encoding a file's byte-order mark names (UTF-32 or UTF-16, either order, or UTF-8), nil without one.
    /// Seen (attack 27, finding 10): the rejects file a UTF-16 import wrote (with its mark) was "not a rejects file"
    /// for a UTF-8 import on the same path, read as UTF-8.
    static func encodingByMark(_ path: String) -> CSVEncoding? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let bytes = try? handle.read(upToCount: 4).map(Array.init) else { return nil }
        let marks: [(prefix: [UInt8], name: String)] = [
            ([0x00, 0x00, 0xFE, 0xFF], "utf-32be"), ([0xFF, 0xFE, 0x00, 0x00], "utf-32le"),
            ([0xFE, 0xFF], "utf-16be"), ([0xFF, 0xFE], "utf-16le"), ([0xEF, 0xBB, 0xBF], "utf-8"),
        ]
        return marks.first { bytes.starts(with: $0.prefix) }.flatMap { CSVEncoding(label: $0.name) }
    }

    func reject(_ raw: String, reason: String, key: String? = nil) throws {
        if holdsByKey {
            if let key { heldKeys[key, default: []].append(held.count) }
            held.append((key, raw, reason))
            return
        }
        count += 1
        try writeLine(raw, reason: reason)
    }

    /// Whether a kept line's key may supersede held lines (nothing to look up otherwise).
    var holdsKeys: Bool { !heldKeys.isEmpty }

    /// A line with this key was kept after lines with it were rejected.
    func supersede(_ key: String) {
        guard let indices = heldKeys.removeValue(forKey: key) else { return }
        superseded.formUnion(indices)
    }

    /// Writes the held lines that no later line superseded.
    private func writeHeld() throws {
        guard holdsByKey else { return }
        for (i, line) in held.enumerated() where !superseded.contains(i) {
            count += 1
            try writeLine(line.raw, reason: line.reason)
        }
        held = []
        holdsByKey = false
    }

    private func writeLine(_ raw: String, reason: String) throws {
        appendLine(raw, reason: reason)
        if buffer.count >= 1 << 16 { try flush() }
    }

    private func appendLine(_ raw: String, reason: String) {
        // The line as it was read (its characters came from this encoding, so they fit).
        try? encoder.encode(raw, into: &buffer, fallback: true)
        var tail = [delimiter]
        // The reason is quoted when it must be, as CSVWriter quotes.
        let special: Set<UInt8> = [delimiter, UInt8(ascii: "\""), 10, 13]
        if reason.utf8.contains(where: { special.contains($0) }) {
            tail.append(UInt8(ascii: "\""))
            for b in reason.utf8 {
                tail.append(b)
                if b == UInt8(ascii: "\"") { tail.append(b) }
            }
            tail.append(UInt8(ascii: "\""))
        } else {
            tail += reason.utf8
        }
        try? tail.withUnsafeBufferPointer { (t) throws(UnencodableCharacter) in try encoder.encode(t, into: &buffer, fallback: true) }
        buffer += lineEnding
    }

    func flush() throws {
        try file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes and syncs every line, inside the import's transaction: a rejects file that cannot be written
    /// rolls the import back.
    func prepare() throws {
        try writeHeld()
        try flush()
        try file.sync()
    }

    /// Puts the file in place (after the store committed). Nothing rejected: no file — an older rejects file
    /// at the target (checked to be one when the writer opened) no longer describes the input and is removed, as
    /// the file this run was told to write; through a symbolic link, the file it points to (the link is left, and
    /// the next run that rejects a line makes that file again). Returns whether an older file was removed.
    @discardableResult
    func close() throws -> Bool {
        if count == 0 {
            file.discard()
            return file.removeTarget()
        }
        try flush()
        try file.commit()
        return false
    }

    /// Abandons the file: the target, and an older rejects file there, are left as they were.
    func discard() {
        file.discard()
    }
}
