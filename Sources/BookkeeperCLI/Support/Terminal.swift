import FileOutput
import Foundation

/// Writes to standard error, where every message goes (standard output is for results). A standard error that
/// cannot be written (`2>/dev/full`, closed) loses the message but must not crash the command: FileHandle traps
/// on a failed write, so this goes through write(2).
func printError(_ text: String) {
    _ = Array((text + "\n").utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
}
