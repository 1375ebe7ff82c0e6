import Foundation
#if canImport(Glibc)
import Glibc
#endif

// Who holds the store's write lock, for the message another writer gets when it gives up waiting:
// `store is busy (import of orders.csv by pid 1234 since 02:00:01)`. The holder writes a small file beside
// the store once it has the lock (`<store>-activity`) and removes it when its transaction ends; a reader of
// that file checks that the process still lives.

extension Store {
    var activityPath: String { path + "-activity" }

    /// Records that this process now writes (call inside the write transaction).
    func beginActivity() {
        guard let activity else { return }
        let formatter = DateFormatter()
        formatter.dateFormat = "HH:mm:ss"
        let text = "\(getpid())\n\(activity) by pid \(getpid()) since \(formatter.string(from: Date()))\n"
        try? Data(text.utf8).write(to: URL(fileURLWithPath: activityPath))
    }

    func endActivity() {
        guard activity != nil else { return }
        try? FileManager.default.removeItem(atPath: activityPath)
    }

    /// What the process holding the store's write lock said it is doing, if it is still running.
    public static func currentActivity(at path: String) -> String? {
        guard let text = try? String(contentsOfFile: path + "-activity", encoding: .utf8) else { return nil }
        let lines = text.split(separator: "\n")
        guard lines.count >= 2, let pid = Int32(lines[0]), kill(pid, 0) == 0 || errno == EPERM else { return nil }
        return String(lines[1])
    }

    /// The error for a store whose write lock could not be had in time.
    func busyError() -> StoreError {
        .busy(path: path, detail: Store.currentActivity(at: path) ?? "another process is writing to it")
    }
}
