// The rejects file of `--on-error skip`: the header, then each rejected input line as it was read, with
// one more column, `reason`. The file is UTF-8 (an input read as Windows-1252 is transcoded, so the
// rejects can be fixed and imported again with the same options but the encoding); a rejected record
// that spans several physical lines is written whole. It is written through the one output module
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
    private(set) var count = 0

    /// Opens the output now, so an unwritable or forbidden path fails before anything is imported.
    init(path: String, delimiter: UInt8) throws {
        self.path = path
        self.delimiter = delimiter
        file = try OutputFile(path: path)
        buffer.reserveCapacity(1 << 16)
    }

    func writeHeader(_ raw: String) throws {
        try writeLine(raw, reason: "reason")
    }

    func reject(_ raw: String, reason: String) throws {
        count += 1
        try writeLine(raw, reason: reason)
    }

    private func writeLine(_ raw: String, reason: String) throws {
        buffer += raw.utf8
        buffer.append(delimiter)
        // The reason is quoted when it must be, as CSVWriter quotes.
        let special: Set<UInt8> = [delimiter, UInt8(ascii: "\""), 10, 13]
        let needsQuotes = reason.utf8.contains { special.contains($0) }
        if needsQuotes {
            buffer.append(UInt8(ascii: "\""))
            for b in reason.utf8 {
                buffer.append(b)
                if b == UInt8(ascii: "\"") { buffer.append(b) }
            }
            buffer.append(UInt8(ascii: "\""))
        } else {
            buffer += reason.utf8
        }
        buffer.append(10)
        if buffer.count >= 1 << 16 { try flush() }
    }

    func flush() throws {
        try file.write(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    /// Writes and syncs every line, inside the import's transaction: a rejects file that cannot be written
    /// rolls the import back.
    func prepare() throws {
        try flush()
        try file.sync()
    }

    /// Puts the file in place (after the store committed). Nothing rejected: no file — an older rejects file
    /// at the target no longer describes the input and is removed, as the file this run was told to write.
    func close() throws {
        // Reached through a symlink, the file is kept with its header only: removing the link's target would
        // leave a dangling link that the next import refuses.
        if count == 0 && !file.pathIsSymlink {
            file.discard()
            file.removeTarget()
            return
        }
        try flush()
        try file.commit()
    }

    /// Abandons the file: the target, and an older rejects file there, are left as they were.
    func discard() {
        file.discard()
    }
}
