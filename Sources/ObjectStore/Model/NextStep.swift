/// What a person can do about an error, as a fact rather than as words: a front end words it (the command line
/// names its commands and options, BookkeeperCLI's EngineWording); an error's own `description` says it without
/// naming any command or option, so that a library user who prints the error reads a true sentence.
package enum NextStep: Equatable, Sendable, CustomStringConvertible {
    /// Create the store at the path, or name another store.
    case createStore
    /// The store's check lists the problem (its schema differences, damage, unreadable values).
    case runCheck
    /// Migrate the store to the model.
    case migrate
    /// The store needs migrating and this user cannot write it: its owner must migrate it.
    case ownerMigrates
    /// The model's entities and properties, as the store has them, are listed by the model command.
    case listModel
    /// A migration that loses data or breaks a new rule is accepted by allowing it.
    case acceptMigration(allowDataLoss: Bool, allowBrokenRules: Bool)
    /// Fix the data a migration is blocked by (or give defaults for missing values), then migrate.
    case fixDataThenMigrate
    /// Give a migration a value for an attribute's existing objects (`Customer.tier`).
    case giveDefault(attribute: String)
    /// Give a predicate's variable `$name` a value.
    case giveVariable(name: String)
    /// Give one argument per placeholder of a predicate.
    case giveArgumentPerPlaceholder
    /// Give the values a batch update would derive with the update itself (`count`: how many).
    case giveUpdatedValues(count: Int)
    /// Any write lists the schema differences that block writes.
    case tryAWrite
    /// Change the objects one at a time rather than in a batch (`eachObject`: the batch named several).
    case changeOneByOne(eachObject: Bool)
    /// Books of an earlier format are brought up to date by a command that writes them, run by a role that may.
    case upgradeBooks

    /// The step in words that name no command or option (a front end's own words name them).
    package var description: String {
        switch self {
        case .createStore: "create it, or name another store"
        case .runCheck: "the store's check lists it"
        case .migrate: "migrate it"
        case .ownerMigrates: "its owner must migrate it"
        case .upgradeBooks: "a command that writes them, by a role that may, brings them up to date"
        case .listModel: "nothing was changed"
        case .acceptMigration(let allowDataLoss, let allowBrokenRules):
            "to accept this, migrate allowing " + [allowDataLoss ? "data loss (a backup copy is kept)" : nil,
                                                   allowBrokenRules ? "broken rules (the objects that break a rule are listed by the check until they are fixed)" : nil]
                .compactMap { $0 }.joined(separator: " and ")
        case .fixDataThenMigrate: "fix the data above (or give defaults for missing values), then migrate"
        case .giveDefault(let attribute): "give a default for \(attribute)"
        case .giveVariable(let name): "give $\(name) a value"
        case .giveArgumentPerPlaceholder: "give one argument per placeholder"
        case .giveUpdatedValues(let count): "give \(count == 1 ? "it" : "them") with the update, or set each object"
        case .tryAWrite: "any write lists them"
        case .changeOneByOne(let eachObject): eachObject ? "change each object on its own" : "change the object on its own"
        }
    }
}
