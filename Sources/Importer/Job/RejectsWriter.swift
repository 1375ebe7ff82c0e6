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
        // An input that is itself a fixed rejects file (its header ends with `reason`, which import ignores) may meet
        // the rejects file of the input it came from, whose first line is its own header.
        var accepted: [[UInt8]] = []
        if let header, header.hasSuffix(String(UnicodeScalar(delimiter)) + "reason") {
            var line = buffer
            try? encoder.encode(header, into: &line, fallback: true)
            accepted.append(line + lineEnding)
        }
        if let header { appendLine(header, reason: "reason") }
        do {
            try refuseUnlessRejectsFile(headers: header == nil ? nil : [buffer] + accepted, reader: reader, fieldCount: fieldCount)
        } catch {
            file.discard()
            throw error
        }
    }

    /// Seen (attack 26, finding 6): `--rejects yesterday.sqlite` (or a customers CSV) was removed without a word by
    /// an import that rejected nothing, and replaced by a header through a symlink. Only a rejects file of this input
    /// may be replaced or removed: one that begins with the line this writer begins with — the input's header and
    /// `reason`, in the input's encoding and dialect. With --columns there is no header: its first record, read in
    /// the input's dialect, must have the input's fields and a reason.
    private func refuseUnlessRejectsFile(headers: [[UInt8]]?, reader: CSVReader, fieldCount: Int) throws {
        guard case let .regular(resolved) = file.target else { return }
        var status = stat()
        guard stat(resolved, &status) == 0 else { return }
        let refused = FileOutputError(path: path, message: "exists and is not a rejects file; not overwritten", kind: .cannotCreate)
        guard status.st_mode & S_IFMT == S_IFREG else { throw refused }
        if let headers {
            guard let handle = FileHandle(forReadingAtPath: resolved) else { throw refused }
            defer { try? handle.close() }
            let start = [UInt8]((try? handle.read(upToCount: headers.map(\.count).max() ?? 0)) ?? nil ?? Data())
            guard headers.contains(where: { start.starts(with: $0) }) else { throw refused }
        } else {
            let options = CSVReader.Options(delimiter: .byte(reader.delimiter), encoding: reader.encoding)
            guard let existing = try? CSVReader(path: resolved, options: options), let first = try? existing.next(),
                  Array(first).count == fieldCount + 1 else { throw refused }
        }
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
