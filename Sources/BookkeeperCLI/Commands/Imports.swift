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
            let objects = history.map { e -> [String: Any] in
                let t = e.total
                return ["id": e.id ?? 0, "file": e.file, "sha256": e.sha256, "startedAt": e.startedAt.description,
                        "seconds": e.seconds, "entity": e.entity, "records": e.records, "inserted": t.inserted,
                        "updated": t.updated, "unchanged": t.unchanged, "deleted": t.deleted, "rejected": e.rejected, "encoding": e.encoding ?? NSNull(),
                        "counts": e.counts.mapValues { c in
                            ["inserted": c.inserted, "updated": c.updated, "unchanged": c.unchanged, "deleted": c.deleted]
                        }]
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
                table.append([String(e.id ?? 0), e.startedAt.description, e.file, String(e.sha256.prefix(12)), e.entity,
                              String(e.records), String(t.inserted), String(t.updated), String(t.unchanged),
                              String(t.deleted), String(e.rejected), e.encoding ?? ""])
            }
            print(table.render())
        }
    }
}
