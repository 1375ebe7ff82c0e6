import ArgumentParser
import ObjectStore
import ValueText

struct Update: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "update",
        abstract: "Change the same values of every object a predicate finds, validated, all or nothing.",
        discussion: """
            The predicate is fetch's (--where, repeated: all must hold; --param, --arg); each --set is read as set \
            reads a key=value (key= clears; a to-one relationship by natural key or object ID). Unlike Core Data's \
            NSBatchUpdateRequest, every change is validated: required values, types and ranges, unique values, and \
            the model's rules on each changed object and on every object whose rules read it through \
            relationships. Any problem changes nothing (65), naming the objects. To-many relationships are not \
            changed by a batch (use set). --dry-run lists each object's old and new values and changes nothing.
            Example: bookkeeper update Order --where 'made == YES AND paid == NO AND date < "2026-11-01"' --set paid=YES
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Argument(help: "The entity.") var entity: String
    @Option(name: .customLong("where"), help: ArgumentHelp(
        "A predicate in NSPredicate format syntax, as for fetch; repeated, all must hold.", valueName: "predicate"))
    var predicates: [String] = []
    @Option(name: .customLong("set"), help: ArgumentHelp("A new value, as set takes it; repeated.", valueName: "key=value"))
    var assignments: [String] = []
    @Option(name: .customLong("param"), help: ArgumentHelp("A $NAME value for the predicate.", valueName: "NAME=VALUE"))
    var parameters: [String] = []
    @Option(name: .customLong("arg"), help: ArgumentHelp("A value for the next %@ or %K placeholder.", valueName: "VALUE"))
    var arguments: [String] = []
    @Flag(help: "List what would change (each object's old and new values) and change nothing.") var dryRun = false

    func run() throws {
        guard !predicates.isEmpty else {
            throw CommandLineError("update needs --where PREDICATE (give TRUEPREDICATE to change every \(entity) object)")
        }
        guard !assignments.isEmpty else { throw CommandLineError("update needs at least one --set key=value") }
        let parsed = try assignments.map { try Assignment(parsing: $0) }
        let request = BatchUpdateRequest(fetch: try BatchPredicate.request(entity, predicates, parameters, arguments),
                                         assignments: parsed, dryRun: dryRun)
        // (A dry run's store is opened as every dry run's is: not a byte of it changes, its log and header included.)
        let context = ObjectContext(store: try openStore(dryRun: dryRun))
        let result = try context.execute(request)
        let noun = result.updated == 1 ? "\(result.entity) object" : "\(result.entity) objects"
        if dryRun {
            for change in result.changes {
                print("\(change.object): " + change.values.map { "\($0.key) \(shown($0.old)) → \(shown($0.new))" }.joined(separator: ", "))
            }
            confirm("would update \(PlainText.groupedDigits(result.updated)) \(noun) (dry run: nothing changed)")
        } else {
            confirm("updated \(PlainText.groupedDigits(result.updated)) \(noun)")
        }
    }

    private func shown(_ text: String) -> String { text.isEmpty ? "(empty)" : text }
}

extension Update: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        predicates += values["--where"] ?? []
        assignments += values["--set"] ?? []
        parameters += values["--param"] ?? []
        arguments += values["--arg"] ?? []
    }
}

/// The predicate options of `update` and `delete --where`, read as `fetch` reads them.
enum BatchPredicate {
    static func request(_ entity: String, _ predicates: [String], _ parameters: [String], _ arguments: [String]) throws -> ObjectFetchRequest {
        var variables: [String: String] = [:]
        for p in parameters {
            guard let eq = p.firstIndex(of: "=") else { throw CommandLineError("--param takes NAME=VALUE, got \"\(p)\"") }
            let (name, value) = (p[..<eq], p[p.index(after: eq)...])
            if let earlier = variables[String(name)] {
                throw CommandLineError("--param \(name) is given twice: \"\(name)=\(earlier)\" and \"\(name)=\(value)\" — give one value")
            }
            variables[String(name)] = String(value)
        }
        var request = ObjectFetchRequest(entity: entity, predicate: predicates.first, variables: variables, textArguments: arguments)
        request.morePredicates = Array(predicates.dropFirst())
        return request
    }
}
