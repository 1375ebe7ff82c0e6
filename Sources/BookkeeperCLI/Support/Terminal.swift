import Foundation

/// Writes to standard error, where every message goes (standard output is for results).
func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
