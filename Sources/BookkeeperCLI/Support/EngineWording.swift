import Exporter
import ObjectStore

// The command line's words for the engine's facts.
//
// The engine (ObjectStore) knows no command or option: its errors carry what happened and what can be done about it
// as cases and fields (`StoreError.missing(path:)`, `MigrationPlan.Given.rename(from:to:)`, `NextStep.runCheck`), and
// their `description` is a sentence that names no command, for a library user who prints it. Here those facts become
// the command line's messages, naming its commands (`bookkeeper check`) and options (`--default`, `--store`), word
// for word as they always read. Every place that prints a CategorizedError asks `messages(for:)`.
enum EngineWording {
    /// The lines to print for `error`, one message each.
    static func messages(for error: any CategorizedError) -> [String] {
        switch error {
        case let error as StoreError: [text(error)]
        case BatchError.store(let error): [text(error)]
        case let error as DamagedCopyError:
            ["\(error.path): the copy fails SQLite's integrity check (\(error.problem)) — the store is damaged: `bookkeeper check` lists the damage; "
                + "restore it from a backup. No copy was kept."]
        case let error as MigrationError: error.messages(migration)
        case let error as ForeignSchemaError:
            error.problems.map { "\(error.path): \($0)" }
                + ["\(error.path): the store's schema is not the model's (another tool changed it), so bookkeeper writes nothing to it "
                   + "until that is undone; nothing was changed — `bookkeeper check` lists every difference"]
        case let error as NonFiniteStoredNumber: [text(error)]
        case let error as PredicateBindingError: [worded(error).description]
        case let error as ValidationFailure: error.issues.map(text)
        case let error as InputError: [text(error)]
        case let error as AssignmentErrors: error.problems.flatMap(messages(for:))
        case let error as ExportError:
            error.nonFinite.map { ["\(text($0.stored)) — \($0.outcome)"] } ?? error.messages
        default: error.messages
        }
    }

    /// `messages(for:)` joined by line feeds, for the places that print an error as one text.
    static func description(of error: any CategorizedError) -> String {
        messages(for: error).joined(separator: "\n")
    }

    /// Whether the books are on PostgreSQL, whose server, not `check`, looks after its pages: damage is the
    /// engine's sentence there.
    static var onPostgreSQL: Bool { BooksOnPostgreSQL.location != nil }

    /// A store error, in the command line's words: its remedy names the command that is the next step.
    static func text(_ error: StoreError) -> String {
        if onPostgreSQL, case .damaged = error { return error.description }
        return switch error {
        case .missing(let path):
            "\(path): no such store — create it with `bookkeeper init`, or name another with --store"
        case .needsMigratingReadOnly(let path):
            "\(path): the store was written with another model and needs migrating, and it is read-only for this user "
                + "— its owner must run `bookkeeper migrate`"
        case .damaged(let path, let detail):
            "\(path): \(detail) — the store is damaged: `bookkeeper check` lists the damage; restore it from a backup"
        case .foreignConstraint(let path, let constraint):
            "\(path): the store's \(constraint) refused the change; it is not the model's (another tool added it; "
                + "`bookkeeper check` lists it) — nothing was changed"
        case .missingColumn(let path, let column):
            "\(path): \(column) is missing from the store (another tool renamed or dropped its column) — "
                + "`bookkeeper check` lists how the store's schema differs from the model's"
        case .idMarkUnreadable:
            // The engine's sentence ends with what follows from it; the command that lists it follows that.
            "\(error.description); `bookkeeper check` lists it"
        default:
            if let step = error.nextStep, error.description.hasSuffix(step.description) {
                error.description.dropLast(step.description.count) + nextStep(step)
            } else {
                error.description
            }
        }
    }

    /// A predicate's mistake whose remedy is an option of the command line's (`--param`, `--arg`).
    static func worded(_ error: PredicateBindingError) -> PredicateBindingError {
        switch error.fact {
        case .unknownVariable(let name)?: error.worded(hint: nextStep(.giveVariable(name: name)))
        case .missingArgument?: error.worded(hint: nextStep(.giveArgumentPerPlaceholder))
        case .argumentsWithoutPlaceholders?:
            error.worded(message: "--arg was given, but there is no predicate with %@ or %K placeholders", hint: error.hint)
        case nil: error
        }
    }

    /// A validation problem whose message ends with its next step in the engine's words: in the command line's.
    static func text(_ error: InputError) -> String {
        guard let step = error.nextStep, error.message.hasSuffix(step.description) else { return error.message }
        return error.message.dropLast(step.description.count) + nextStep(step)
    }

    static func text(_ issue: ValidationIssue) -> String {
        guard let step = issue.nextStep, issue.message.hasSuffix(step.description) else { return issue.message }
        return issue.message.dropLast(step.description.count) + nextStep(step)
    }

    /// A non-finite number another tool stored, with the command that lists every such value.
    static func text(_ error: NonFiniteStoredNumber) -> String {
        return "\(error.object).\(error.attribute): the store holds a non-finite number (\(NonFiniteStoredNumber.spelling(error.value))), which no output "
            + "can write — another tool wrote it; run `bookkeeper check` to list every such value, and set each to a number"
    }

    /// A next step the command line takes with one of its commands or options, where a line of the engine's
    /// (`check`'s, a migration's) names it.
    static func nextStep(_ step: NextStep) -> String {
        return switch step {
        case .createStore: "create it with `bookkeeper init`, or name another with --store"
        case .runCheck: "`bookkeeper check` lists it"
        case .migrate: "run `bookkeeper migrate`"
        case .ownerMigrates: "its owner must run `bookkeeper migrate`"
        case .upgradeBooks: "`bookkeeper init` on them (or any write) by a role that may write them brings them up to date"
        case .listModel: "nothing was changed; `bookkeeper model` lists the store's entities and properties"
        case .acceptMigration(let allowDataLoss, let allowBrokenRules):
            "to accept this, run `bookkeeper migrate "
                + [allowDataLoss ? "--allow-data-loss" : nil, allowBrokenRules ? "--allow-broken-rules" : nil].compactMap { $0 }.joined(separator: " ")
                // (Books on PostgreSQL need no copy: the migration is one transaction of transactional DDL.)
                + "`" + (allowDataLoss && !onPostgreSQL ? " (a backup copy is kept)" : "")
                + (allowBrokenRules ? " (`check` lists the objects that break a rule until they are fixed)" : "")
                + "; `bookkeeper migrate --dry-run` shows the plan"
        case .fixDataThenMigrate: "fix the data above (or give --default Entity.attribute=VALUE for missing values), then run `bookkeeper migrate`"
        case .giveDefault(let attribute): "give --default \(attribute)=VALUE"
        case .giveVariable(let name): "give it with --param \(name)=VALUE"
        case .giveArgumentPerPlaceholder: "give one --arg per placeholder"
        case .giveUpdatedValues(let count): "give \(count == 1 ? "it" : "them") with --set, or use set for each object"
        case .tryAWrite: "`bookkeeper set` or any other write lists them"
        case .changeOneByOne(let eachObject): eachObject ? "use set for each object" : "use set"
        }
    }

    /// A migration's plan and errors, naming `migrate`'s options.
    static let migration = MigrationWording(
        unknownName: { name in
            switch name.given {
            case .rename(let from, let to): "--rename \(from)=\(to): \(name.problem)"
            case .defaultValue(let attribute, let value): "--default \(attribute)=\(value): \(name.problem)"
            }
        },
        blocker: { blocker in
            switch blocker {
            case .data(let text):
                text
            case .unreadableDefault(let attribute, let value, let reason):
                "--default \(attribute)=\(value): \(reason)"
            case .nowRequired(let attribute, let count, let ids):
                "\(attribute) is now required, but \(count) object\(count == 1 ? " has" : "s have") none (\(ids)) — set \(count == 1 ? "it" : "them"), or \(nextStep(.giveDefault(attribute: attribute)))"
            case .newRequired(let attribute, let count):
                "\(attribute) is new and required, but \(count) existing object\(count == 1 ? "" : "s") would have none — give it a default in the model, or --default \(attribute)=VALUE"
            }
        },
        nextStep: nextStep)
}
