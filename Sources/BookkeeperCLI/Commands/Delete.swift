import ArgumentParser
import ObjectStore
import ValueText

struct Delete: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete",
        abstract: "Delete an object, or every object a predicate finds, applying the model's delete rules.",
        discussion: """
            Cascade deletes dependants too (an order's rows), Nullify clears references to the object, \
            and Deny refuses while related objects exist (a customer with orders). No Action keeps the references \
            (one line says how many): they read as none, and a deletion that would break a rule through them is \
            refused. A deleted object's ID is never given to another. ID is the natural key or an object ID, as \
            for show.
            Instead of ID, --where deletes every object a predicate finds (fetch's syntax, with --param and --arg), \
            with the same delete rules, in one transaction: a Deny anywhere, or a rule any deletion would break, \
            refuses the whole batch (65), naming the objects. --dry-run lists the objects it would delete (cascades \
            included) and the references it would clear, and changes nothing.
            Example: bookkeeper delete Order --where 'date < "2020-01-01" AND paid == YES' --dry-run
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String
    @Argument(help: "Natural key, or object ID (Customer/17); or --where.") var id: String?
    @Option(name: .customLong("where"), help: ArgumentHelp(
        "Delete every object this predicate finds (fetch's syntax); repeated, all must hold.", valueName: "predicate"))
    var predicates: [String] = []
    @Option(name: .customLong("param"), help: ArgumentHelp("A $NAME value for the predicate.", valueName: "NAME=VALUE"))
    var parameters: [String] = []
    @Option(name: .customLong("arg"), help: ArgumentHelp("A value for the next %@ or %K placeholder.", valueName: "VALUE"))
    var arguments: [String] = []
    @Flag(help: "With --where: list what would be deleted and cleared, and change nothing.") var dryRun = false

    func run() throws {
        if id != nil && !predicates.isEmpty {
            throw CommandLineError("delete takes an ID or --where, not both")
        }
        guard let id else {
            guard !predicates.isEmpty else { throw CommandLineError("delete needs an ID, or --where PREDICATE for every object it finds") }
            return try deleteWhere()
        }
        if dryRun || !parameters.isEmpty || !arguments.isEmpty {
            throw CommandLineError("--dry-run, --param and --arg go with --where, not with an ID")
        }
        let context = try openContext()
        let object = try context.resolve(id, in: entity)
        let objectID = object.objectID!
        try context.delete(object)
        let result = try context.save()
        let cascaded = result.deleted.filter { $0 != objectID }.sorted()
        var line = "deleted \(objectID)"
        if !cascaded.isEmpty {
            line += " and \(cascaded.count) dependant\(cascaded.count == 1 ? "" : "s") (\(cascaded.map(\.description).joined(separator: ", ")))"
        }
        confirm(line)
        for kept in result.keptReferences {
            let shown = kept.deleted.prefix(5).map(\.description).joined(separator: ", ") + (kept.deleted.count > 5 ? ", …" : "")
            let entity = kept.relationship.prefix { $0 != "." }
            let noun = kept.referring == 1 ? "\(entity) still refers" : "\(entity) objects still refer"
            confirm("\(kept.referring) \(noun) to deleted \(shown) through \(kept.relationship) (\(kept.rule) has delete rule No Action)")
        }
    }

    private func deleteWhere() throws {
        let request = BatchDeleteRequest(fetch: try BatchPredicate.request(entity, predicates, parameters, arguments), dryRun: dryRun)
        // (A dry run's store is opened as every dry run's is: not a byte of it changes, its log and header included.)
        let context = ObjectContext(store: try openStore(dryRun: dryRun))
        let result = try context.execute(request)
        let n = result.requested.count
        let entityName = result.entity
        var line = "\(PlainText.groupedDigits(n)) \(entityName) object\(n == 1 ? "" : "s")"
        if !result.cascaded.isEmpty {
            var byEntity: [(String, Int)] = []
            for id in result.cascaded {
                if let k = byEntity.firstIndex(where: { $0.0 == id.entity }) { byEntity[k].1 += 1 } else { byEntity.append((id.entity, 1)) }
            }
            let c = result.cascaded.count
            line += " and \(PlainText.groupedDigits(c)) dependant\(c == 1 ? "" : "s") (\(byEntity.map { "\(PlainText.groupedDigits($0.1)) \($0.0)" }.joined(separator: ", ")))"
        }
        if dryRun {
            for id in result.requested { print("delete \(id)") }
            for id in result.cascaded { print("delete \(id) (cascade)") }
            for c in result.nullified { print("clear \(c.object).\(c.relationship) (was \(c.referred))") }
        }
        confirm(dryRun ? "would delete \(line) (dry run: nothing changed)" : "deleted \(line)")
        for kept in result.keptReferences {
            let shown = kept.deleted.prefix(5).map(\.description).joined(separator: ", ") + (kept.deleted.count > 5 ? ", …" : "")
            let entity = kept.relationship.prefix { $0 != "." }
            let noun = kept.referring == 1 ? "\(entity) still refers" : "\(entity) objects still refer"
            confirm("\(kept.referring) \(noun) to deleted \(shown) through \(kept.relationship) (\(kept.rule) has delete rule No Action)")
        }
    }
}

extension Delete: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        predicates += values["--where"] ?? []
        parameters += values["--param"] ?? []
        arguments += values["--arg"] ?? []
    }
}
