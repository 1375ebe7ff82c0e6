// Errors of the one module that writes files.
//
// Why this file exists: a cron job mails what goes wrong, so a failure is one line naming the file as the
// user gave it (`out/x.csv: cannot create (Permission denied)`). Whether the output could not be made at all
// (exit 73) or failed while being written (exit 74) is told apart here, once, for every command.

#if canImport(Glibc)
import Glibc
#endif

package struct FileOutputError: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The output was refused or could not be created; nothing was written.
        case cannotCreate
        /// Writing, syncing or putting the output in place failed.
        case io
    }

    /// The output's path as given (`-` for standard output).
    package let path: String
    /// The message without the path: `cannot create (Permission denied)`, `refusing to write: it is the store (…)`.
    package let message: String
    package let kind: Kind
    /// The system error number, when a system call failed.
    package let errno: Int32?

    package init(path: String, message: String, kind: Kind, errno: Int32? = nil) {
        self.path = path
        self.message = message
        self.kind = kind
        self.errno = errno
    }

    /// A failed system call: `cannot OPERATION (strerror)`.
    static func system(_ path: String, _ operation: String, _ code: Int32, kind: Kind) -> FileOutputError {
        FileOutputError(path: path, message: "cannot \(operation) (\(String(cString: strerror(code))))", kind: kind, errno: code)
    }

    static func refused(_ path: String, _ reason: String) -> FileOutputError {
        FileOutputError(path: path, message: reason, kind: .cannotCreate)
    }

    /// How a message names `path`: standard output by that name, as every command's messages do.
    package static func shownName(_ path: String) -> String { path == "-" ? "standard output" : path }

    package var description: String { "\(FileOutputError.shownName(path)): \(message)" }
}
