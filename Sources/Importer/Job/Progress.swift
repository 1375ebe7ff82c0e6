import FileOutput
// A progress bar on standard error — percent of bytes read, records per second, time left — drawn only
// when standard error is a terminal (never into a log file or a pipe), at most five times a second.

import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class ProgressBar {
    private let total: Int64?
    private let start = DispatchTime.now().uptimeNanoseconds
    private var lastDraw: UInt64 = 0
    private var drawn = false

    /// A bar, or nil when standard error is not a terminal.
    init?(totalBytes: Int64?, enabled: Bool) {
        guard enabled, isatty(STDERR_FILENO) == 1 else { return nil }
        total = totalBytes
    }

    /// Called every few thousand records; draws when enough time has passed.
    func update(bytes: Int64, records: Int) {
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw > 200_000_000 else { return }
        lastDraw = now
        let elapsed = Double(now - start) / 1e9
        let rate = elapsed > 0 ? Double(records) / elapsed : 0
        var text = "\r"
        if let total, total > 0 {
            let fraction = min(1, Double(bytes) / Double(total))
            let width = 30
            let filled = Int(fraction * Double(width))
            text += "[" + String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled) + "]"
            text += String(format: " %3d%%", Int(fraction * 100))
            if fraction > 0.01 {
                let left = elapsed / fraction - elapsed
                text += String(format: "  ETA %ds", Int(left.rounded()))
            }
        }
        text += "  \(records) records  \(Int(rate)) records/s"
        text += "\u{1B}[K"
        // (write(2), not FileHandle, which traps when standard error cannot be written.)
        _ = Array(text.utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) }
        drawn = true
    }

    /// Clears the bar.
    func finish() {
        if drawn { _ = Array("\r\u{1B}[K".utf8).withUnsafeBytes { writeAll(STDERR_FILENO, $0) } }
    }
}
