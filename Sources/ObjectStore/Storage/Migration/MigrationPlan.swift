
/// What the user says about a migration: names that changed, values for attributes that become required,
/// and whether changes that lose data are accepted.
package struct MigrationOptions: Sendable {
    /// `Old` → `New` for entities, `Entity.old` → `new` for attributes and relationships (entity as in the new model).
    package var renames: [String: String]
    /// `Entity.attribute` → the value (as text) for objects that have none when the attribute becomes required.
    package var defaults: [String: String]
    /// Accept removing and retyping attributes, relationships and entities.
    package var allowDataLoss: Bool
    /// Accept new or changed rules that existing objects break (`check` lists them until they are fixed).
    package var allowBrokenRules: Bool

    package init(renames: [String: String] = [:], defaults: [String: String] = [:], allowDataLoss: Bool = false,
                allowBrokenRules: Bool = false) {
        self.renames = renames
        self.defaults = defaults
        self.allowDataLoss = allowDataLoss
        self.allowBrokenRules = allowBrokenRules
    }
}

/// The way from the model a store was written with to the current one: the SQL, and what stands in its way.
package struct MigrationPlan: Sendable {
    /// One statement of the plan, with its bound arguments.
    package struct Step: Sendable, CustomStringConvertible {
        package let sql: String
        package let arguments: [StoredValue]
        /// Books on PostgreSQL: `sql` is run once per object, each value converted by `Value.converted` (the
        /// function SQLite's bk_convert calls), rather than once.
        package var conversion: Conversion? = nil

        package var description: String {
            if let c = conversion {
                return sql + ";  -- for each object: $1 = its ID, $2 = its \(c.from) converted from \(c.fromType) to \(c.toType)"
            }
            return arguments.isEmpty ? sql + ";" : sql + ";  -- " + arguments.enumerated().map { "?\($0.offset + 1) = \($0.element)" }.joined(separator: ", ")
        }
    }

    /// A retyped column's values converted object by object (books on PostgreSQL): column `from` of `table` read,
    /// converted from `fromType` to `toType`, written to column `to`.
    package struct Conversion: Sendable {
        package let table: String
        package let from: String
        package let to: String
        package let fromType: AttributeType
        package let toType: AttributeType
    }

    /// The changes in words: `add attribute Customer.vat`.
    package internal(set) var changes: [String] = []
    /// Changes that lose data, refused without `allowDataLoss`: `remove attribute Customer.fax (3 values)`.
    package internal(set) var dataLoss: [String] = []
    /// Data that must be fixed (or given a default) first: `Customer.vat: 2 objects share "X" (Customer/1, Customer/4)`.
    package internal(set) var blockers: [Blocker] = []
    /// Renames or defaults given (`MigrationOptions`) that name nothing: a typo is refused, never ignored.
    package internal(set) var unknownNames: [UnknownName] = []
    package internal(set) var steps: [Step] = []
    /// Existing objects that break a rule the model adds or changes, found by running the plan (see `Store.rehearse`):
    /// `Bank/2 "7": deposits cannot be negative`. Refused without `allowBrokenRules`.
    package internal(set) var brokenRules: [String] = []
    /// The rules each entity (by its new name) gains or changes, checked over its objects once the steps have run.
    var newRules: [String: [ModelRule]] = [:]

    /// Whether the model changed at all (the recorded model differs, even if no SQL is needed).
    package internal(set) var modelChanged = false

    /// The hash of the model the store recorded when the plan was made. The plan is applied only while the store
    /// still records it, checked under the write lock: another process may have migrated the store meanwhile.
    package internal(set) var recordedHash: String?

    /// Whether it may run: nothing blocks, and data loss (if any) is accepted.
    package func canApply(_ options: MigrationOptions) -> Bool {
        blockers.isEmpty && unknownNames.isEmpty && (dataLoss.isEmpty || options.allowDataLoss)
            && (brokenRules.isEmpty || options.allowBrokenRules)
    }

    /// Additive only: what opening a store migrates without asking.
    package var isAutomatic: Bool { blockers.isEmpty && dataLoss.isEmpty && brokenRules.isEmpty }

    /// The changes in one line, for a note on stderr (`add attribute Customer.vat; add index …`); a model that changed
    /// where no table shows it (a sort, a default, a removed rule) is said so, never as nothing.
    package var summary: String {
        changes.isEmpty ? "record the changed model — no table changes: defaults, sorts or rules only" : changes.joined(separator: "; ")
    }

    /// The plan as a person reads it: changes, data loss, blockers, then the SQL.
    package var text: String { lines.joined(separator: "\n") }

    /// `lines`, with the given names and blockers worded by `wording` (a front end names its own options there).
    package func lines(_ wording: MigrationWording) -> [String] {
        var lines: [String] = []
        if changes.isEmpty && steps.isEmpty && unknownNames.isEmpty {
            // A model that changed only where no table shows it (a default, a sort, a removed rule) is recorded by a
            // real run, which says "migrated": the plan said "up to date" just before it.
            lines.append(modelChanged ? "- record the changed model (no table changes: defaults, sorts or rules only)"
                                      : "the store is up to date with the model")
        }
        for c in changes { lines.append("- \(c)") }
        for d in dataLoss { lines.append("- loses data: \(d)") }
        for r in brokenRules { lines.append("- breaks a new rule: \(r)") }
        for u in unknownNames { lines.append("- blocked: \(wording.unknownName(u))") }
        for b in blockers { lines.append("- blocked: \(wording.blocker(b))") }
        if !steps.isEmpty {
            lines.append("SQL (one transaction, foreign keys checked at the end):")
            lines += steps.map { "  \($0)" }
        }
        return lines
    }

    /// The same, a line each (a value in one, such as a step's argument, may hold a line feed of its own: an output
    /// escapes each line, not the breaks between them).
    package var lines: [String] { lines(.engine) }
}

/// Why a store cannot be opened with the current model until it is migrated.
/// A store written with another model that opening did not migrate: the change could lose data, break a new rule
/// or is blocked by the data (or opening was asked not to migrate). Nothing was changed. Each field is a fact;
/// `description` lists them one per line.
public struct MigrationError: CategorizedError {
    /// The store's path.
    public let path: String
    package let plan: MigrationPlan
    /// Why the store needs a migration: `the store was written with another model`.
    public let reason: String
    /// What the reason asks for, when it asks for one thing (`.migrate`: the store was written with another model).
    package let reasonStep: NextStep?

    package init(path: String, plan: MigrationPlan, reason: String, reasonStep: NextStep? = nil) {
        self.path = path
        self.plan = plan
        self.reason = reason
        self.reasonStep = reasonStep
    }

    package var category: ErrorCategory { plan.unknownNames.isEmpty ? .data : .usage }

    public var description: String { messages.joined(separator: "\n") }

    /// What the migration would lose, one line each (`Customer.fax: 3 values`).
    public var dataLoss: [String] { plan.dataLoss }
    /// The new rules objects would break, one line each.
    public var brokenRules: [String] { plan.brokenRules }
    /// What in the data stops the migration, one line each.
    public var blockers: [String] { plan.blockers.map(MigrationWording.engine.blocker) }

    /// One per problem, then the remedy.
    package var messages: [String] { messages(.engine) }

    /// The remedy the last message gives: the model's names for names that name nothing, fixing the data for
    /// blockers, allowing what the migration loses or breaks.
    package var nextStep: NextStep? {
        if !plan.unknownNames.isEmpty { return .listModel }
        if !plan.blockers.isEmpty { return .fixDataThenMigrate }
        if plan.dataLoss.isEmpty && plan.brokenRules.isEmpty { return nil }
        return .acceptMigration(allowDataLoss: !plan.dataLoss.isEmpty, allowBrokenRules: !plan.brokenRules.isEmpty)
    }

    /// `messages`, with the given names, blockers and remedies worded by `wording`.
    package func messages(_ wording: MigrationWording) -> [String] {
        if !plan.unknownNames.isEmpty {
            return plan.unknownNames.map { "\(path): \(wording.unknownName($0))" } + ["\(path): \(wording.nextStep(.listModel))"]
        }
        var lines = ["\(path): \(reason)" + (reasonStep.map { "; " + wording.nextStep($0) } ?? "")]
        lines += plan.dataLoss.map { "\(path): would lose data: \($0)" }
        lines += plan.brokenRules.map { "\(path): would break a new rule: \($0)" }
        lines += plan.blockers.map { "\(path): blocked: \(wording.blocker($0))" }
        if let nextStep { lines.append("\(path): \(wording.nextStep(nextStep))") }
        return lines
    }
}

/// How a front end words the parts of a migration's plan and errors that name its own options and commands: the
/// renames and defaults it was given, the blockers that ask for a default, and the remedies. `.engine` names none.
package struct MigrationWording: Sendable {
    package var unknownName: @Sendable (MigrationPlan.UnknownName) -> String
    package var blocker: @Sendable (MigrationPlan.Blocker) -> String
    package var nextStep: @Sendable (NextStep) -> String

    package init(unknownName: @escaping @Sendable (MigrationPlan.UnknownName) -> String,
                 blocker: @escaping @Sendable (MigrationPlan.Blocker) -> String,
                 nextStep: @escaping @Sendable (NextStep) -> String) {
        self.unknownName = unknownName
        self.blocker = blocker
        self.nextStep = nextStep
    }

    package static let engine = MigrationWording(unknownName: \.description, blocker: \.description, nextStep: \.description)
}

extension MigrationPlan {
    /// A rename or default given to a migration (`MigrationOptions`).
    package enum Given: Equatable, Sendable {
        /// `from` → `to`, as given: `Client` → `Customer`, `Customer.fax` → `phone`.
        case rename(from: String, to: String)
        /// `attribute` (`Customer.tier`) → `value`, as given.
        case defaultValue(attribute: String, value: String)
    }

    /// A rename or default that names nothing: `problem` says what is missing where (`the model has no entity
    /// Custmer (did you mean Customer?)`).
    package struct UnknownName: Equatable, Sendable, CustomStringConvertible {
        package let given: Given
        package let problem: String

        package var description: String {
            switch given {
            case .rename(let from, let to): "the rename of \(from) to \(to): \(problem)"
            case .defaultValue(let attribute, let value): "the default \(attribute)=\(value): \(problem)"
            }
        }
    }

    /// What blocks a migration until the data is fixed (or a default given).
    package enum Blocker: Equatable, Sendable, CustomStringConvertible, ExpressibleByStringInterpolation {
        /// Data to fix, in words: `Customer.vat: 2 objects share "X" (Customer/1, Customer/4)`.
        case data(String)
        /// A default given for `attribute` that is not a value of its type: `reason` says why.
        case unreadableDefault(attribute: String, value: String, reason: String)
        /// `attribute` becomes required, and `count` objects (`ids`, the first of them) have none.
        case nowRequired(attribute: String, count: Int, ids: String)
        /// `attribute` is new and required, without a default in the model, and `count` objects exist.
        case newRequired(attribute: String, count: Int)

        package init(stringLiteral value: String) { self = .data(value) }
        package init(stringInterpolation: DefaultStringInterpolation) { self = .data(String(stringInterpolation: stringInterpolation)) }

        package var description: String {
            switch self {
            case .data(let text):
                text
            case .unreadableDefault(let attribute, let value, let reason):
                "the default \(attribute)=\(value): \(reason)"
            case .nowRequired(let attribute, let count, let ids):
                "\(attribute) is now required, but \(count) object\(count == 1 ? " has" : "s have") none (\(ids)) — set \(count == 1 ? "it" : "them"), or give a default"
            case .newRequired(let attribute, let count):
                "\(attribute) is new and required, but \(count) existing object\(count == 1 ? "" : "s") would have none — give it a default in the model, or a default for the migration"
            }
        }
    }
}
