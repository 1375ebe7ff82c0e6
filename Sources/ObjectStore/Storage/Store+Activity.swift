import FileOutput
import Foundation
import LocalTime

// Who holds the store's write lock, for the message another writer gets when it gives up waiting:
// `store is busy (import of orders.csv by pid 1234 since 02:00:01+02:00)`. The holder writes a small note beside
// the store once it has the lock (`<store>-activity`, a `SideFile`: created exclusively, never through a
// symlink) and removes it when its transaction ends; a reader of the note checks that the very process that
// wrote it (pid and start time) still runs, so a stale note or a reused pid is never named as the holder.

extension Store {
    var activityPath: String { path + "-activity" }

    /// Records that this process now writes (call inside the write transaction).
    func beginActivity() {
        guard let activity else { return }
        let time = Store.activityTime(Timestamp.now().secondsSinceEpoch, in: Zone.process)
        activityNote?.remove()
        activityNote = SideFile.createNote(at: activityPath, text: "\(activity) by pid \(getpid()) since \(time)")
    }

    /// The local time ($TZ) of `t` with its offset, `02:00:01+02:00`: the reader of the message may be in another
    /// zone than the writer, so a clock time alone would not say when.
    static func activityTime(_ t: Int64, in zone: Zone) -> String {
        let offset = zone.offset(at: t)
        let local = t + Int64(offset)
        let second = Int(local - (local >= 0 ? local / 86_400 : (local - 86_399) / 86_400) * 86_400)
        func two(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let magnitude = abs(offset)
        var zoneText = (offset < 0 ? "-" : "+") + two(magnitude / 3600) + ":" + two(magnitude / 60 % 60)
        if magnitude % 60 != 0 { zoneText += ":" + two(magnitude % 60) }
        return [second / 3600, second / 60 % 60, second % 60].map(two).joined(separator: ":") + zoneText
    }

    func endActivity() {
        activityNote?.remove()
        activityNote = nil
    }

    /// What the process holding the store's write lock said it is doing, if it is still running.
    package static func currentActivity(at path: String) -> String? {
        SideFile.liveNote(at: path + "-activity")
    }

    /// The error for a store whose write lock could not be had in time.
    func busyError() -> StoreError {
        .busy(path: path, detail: Store.currentActivity(at: path) ?? "another process is writing to it")
    }
}
