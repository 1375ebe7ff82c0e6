// The open end of a `ReportOutput` while a renderer writes, and a small buffer in front of it.
//
// Why this file exists: every renderer ends the same way — commit the file on success, remove it on
// any error — so that happens in exactly one place (`withOutputChannel`). Text and JSON write many
// small strings; `OutputBuffer` collects them and writes 64 KiB at a time.

import FileOutput
#if canImport(Glibc)
import Glibc
#endif

/// Standard output or a file, opened through the one output module (`OutputFile`).
final class OutputChannel {
    /// The output's name in messages: the path as given, `-` for standard output.
    let displayName: String
    let fileDescriptor: Int32
    let file: OutputFile

    init(_ output: ReportOutput) throws {
        displayName = output.description
        file = try OutputFile(path: output.description)
        fileDescriptor = file.fileDescriptor
    }

    func commit() throws {
        try file.commit()
    }

    func discard() {
        file.discard()
    }
}

/// Opens `output`, runs `body`, then commits the file; on any error the file is discarded (the
/// target left as it was) and the error rethrown.
func withOutputChannel<Result>(_ output: ReportOutput, _ body: (OutputChannel) throws -> Result) throws -> Result {
    let channel = try OutputChannel(output)
    do {
        let result = try body(channel)
        try channel.commit()
        return result
    } catch {
        channel.discard()
        throw error
    }
}

/// Buffered UTF-8 output to a file descriptor.
final class OutputBuffer {
    private let fileDescriptor: Int32
    private let displayName: String
    private var bytes: [UInt8] = []
    private let limit = 64 << 10

    init(fileDescriptor: Int32, displayName: String) {
        self.fileDescriptor = fileDescriptor
        self.displayName = displayName
        bytes.reserveCapacity(limit + 4096)
    }

    convenience init(_ channel: OutputChannel) {
        self.init(fileDescriptor: channel.fileDescriptor, displayName: channel.displayName)
    }

    func write(_ text: String) throws {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= limit { try flush() }
    }

    func write<S: StringProtocol>(_ text: S) throws {
        bytes.append(contentsOf: text.utf8)
        if bytes.count >= limit { try flush() }
    }

    func write(bytes: UnsafeRawBufferPointer) throws {
        self.bytes.append(contentsOf: bytes)
        if self.bytes.count >= limit { try flush() }
    }

    func write(byte: UInt8) throws {
        bytes.append(byte)
        if bytes.count >= limit { try flush() }
    }

    /// Writes what is buffered, then `bytes` straight from where they are (a whole report built in memory is
    /// not copied into the buffer first).
    func writeThrough(bytes: UnsafeRawBufferPointer) throws {
        try flush()
        let code = writeAll(fileDescriptor, bytes)
        if code != 0 { throw ReportRenderError(file: displayName, kind: .io(operation: "write", errno: code)) }
    }

    func flush() throws {
        let code = bytes.withUnsafeBytes { writeAll(fileDescriptor, $0) }
        if code != 0 { throw ReportRenderError(file: displayName, kind: .io(operation: "write", errno: code)) }
        bytes.removeAll(keepingCapacity: true)
    }
}
