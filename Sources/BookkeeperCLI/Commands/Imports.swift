import ArgumentParser
import Foundation
import ObjectStore

struct Imports: StoreCommand, ZoneFreeCommand, TodayFreeCommand {
    static let configuration = CommandConfiguration(
        commandName: "imports",
        abstract: "List the import history: file, SHA-256, time and counts of every import.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Option(help: "Output format.") var format: Format = .text

    func run() throws {
        let store = try openStore(readOnly: true)
        let history = try store.importHistory()
        switch format {
        case .json:
            // A field another tool made unreadable is null, and named in "unreadable" (never a 1970 time or zero counts).
            let objects = history.map { e -> [String: Any] in
                let t = e.total
                let counted = e.countsAreReadable
                var object: [String: Any] = [
                    "id": e.id ?? 0, "file": e.file, "sha256": e.sha256, "startedAt": e.timeIsReadable ? e.startedAt.description : NSNull(),
                    "seconds": e.seconds, "entity": e.entity, "records": e.recordsAreReadable ? e.records : NSNull(),
                    "inserted": counted ? t.inserted : NSNull(), "updated": counted ? t.updated : NSNull(),
                    "unchanged": counted ? t.unchanged : NSNull(), "deleted": counted ? t.deleted : NSNull(),
                    "rejected": e.rejectedIsReadable ? e.rejected : NSNull(), "encoding": e.encoding ?? NSNull(),
                    "counts": counted ? e.counts.mapValues { c in
                        ["inserted": c.inserted, "updated": c.updated, "unchanged": c.unchanged, "deleted": c.deleted]
                    } : NSNull()]
                if !e.unreadable.isEmpty { object["unreadable"] = e.unreadable }
                return object
            }
            let data = try JSONSerialization.data(withJSONObject: objects, options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes])
            print(String(decoding: data, as: UTF8.self))
        case .text:
            guard !history.isEmpty else {
                print("no imports yet")
                return
            }
            var table = TextTable(
                headers: ["id", "time", "file", "sha256", "entity", "records", "inserted", "updated", "unchanged", "deleted", "rejected", "encoding"],
                alignments: [.right, .left, .left, .left, .left, .right, .right, .right, .right, .right, .right, .left])
            for e in history {
                let t = e.total
                let unreadable = "unreadable"
                func count(_ n: Int) -> String { e.countsAreReadable ? String(n) : unreadable }
                table.append([String(e.id ?? 0), e.timeIsReadable ? e.startedAt.description : unreadable, e.file,
                              String(e.sha256.prefix(12)), e.entity, e.recordsAreReadable ? String(e.records) : unreadable,
                              count(t.inserted), count(t.updated), count(t.unchanged), count(t.deleted),
                              e.rejectedIsReadable ? String(e.rejected) : unreadable, e.encoding ?? ""])
            }
            print(table.render())
            // The rows another tool changed, on standard error (the table stays the history).
            for e in history where !e.unreadable.isEmpty {
                Log.warning("\(store.path): import \(e.id ?? 0) of the history is unreadable in part (\(e.unreadable.joined(separator: ", "))) "
                                 + "— another tool changed it; `bookkeeper check` lists it")
            }
        }
    }
}
