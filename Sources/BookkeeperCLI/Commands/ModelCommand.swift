import ArgumentParser
import Foundation
import ObjectStore

struct ModelCommand: StoreCommand, TodayFreeCommand {
    static let configuration = CommandConfiguration(
        commandName: "model",
        abstract: "Show the model: entities, attributes with types and flags, relationships with inverse and delete rule.")

    enum Format: String, ExpressibleByArgument, CaseIterable { case text, json }

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Option(help: "Output format.") var format: Format = .text

    func run() throws {
        switch format {
        case .json:
            let data = try JSONSerialization.data(withJSONObject: model.jsonObject, options: [.prettyPrinted, .sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        case .text:
            print(ModelCommand.describe(model))
        }
    }

    static func describe(_ model: ObjectModel) -> String {
        var blocks: [String] = []
        for e in model.entities {
            var header = "\(e.name) (\(e.kind.rawValue)"
            if let key = e.naturalKey { header += ", key: \(key)" }
            header += ")"
            var table = TextTable(headers: ["property", "type", "flags"])
            for a in e.attributes {
                var flags: [String] = []
                if a.isRequired { flags.append("required") }
                if a.isUnique { flags.append("unique") }
                if a.isIndexed { flags.append("indexed") }
                if let d = a.defaultValue { flags.append("default \(d.text)") }
                table.append([a.name, a.type.description, flags.joined(separator: ", ")])
            }
            for r in e.relationships {
                var flags = ["inverse \(r.destination).\(r.inverse)", "delete rule \(r.deleteRule.displayName)"]
                if r.isRequired { flags.insert("required", at: 0) }
                let inverse = model.inverse(of: r)
                let kind = r.isToMany ? (inverse.isToMany ? "many-to-many" : "to-many") : "to-one"
                table.append([r.name, "\(kind) \(r.destination)", flags.joined(separator: ", ")])
            }
            blocks.append(header + "\n" + table.render().split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
        }
        return blocks.joined(separator: "\n\n")
    }
}
