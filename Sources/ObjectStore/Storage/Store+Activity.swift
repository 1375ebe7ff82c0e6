import FileOutput
import Foundation
import LocalTime

// Who holds the store's write lock, for the message another writer gets when it gives up waiting:
// `store is busy (import of orders.csv by pid 1234 since 02:00:01)`. The holder writes a small note beside
// the store once it has the lock (`<store>-activity`, a `SideFile`: created exclusively, never through a
// symlink) and removes it when its transaction ends; a reader of the note checks that the very process that
// wrote it (pid and start time) still runs, so a stale note or a reused pid is never named as the holder.

extension Store {
    var activityPath: String { path + "-activity" }

    /// Records that this process now writes (call inside the write transaction).
    func beginActivity() {
        guard let activity else { return }
        // The local time ($TZ) of now, `02:00:01`.
        let local = Zone.process.localSeconds(at: Timestamp.now().secondsSinceEpoch)
        let second = Int(local - (local >= 0 ? local / 86_400 : (local - 86_399) / 86_400) * 86_400)
        let time = [second / 3600, second / 60 % 60, second % 60].map { $0 < 10 ? "0\($0)" : "\($0)" }.joined(separator: ":")
        activityNote?.remove()
        activityNote = SideFile.createNote(at: activityPath, text: "\(activity) by pid \(getpid()) since \(time)")
    }

    func endActivity() {
        activityNote?.remove()
        activityNote = nil
    }

    /// What the process holding the store's write lock said it is doing, if it is still running.
    public static func currentActivity(at path: String) -> String? {
        SideFile.liveNote(at: path + "-activity")
    }

    /// The error for a store whose write lock could not be had in time.
    func busyError() -> StoreError {
        .busy(path: path, detail: Store.currentActivity(at: path) ?? "another process is writing to it")
    }
}
