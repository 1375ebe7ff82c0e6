
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

        package var description: String {
            arguments.isEmpty ? sql + ";" : sql + ";  -- " + arguments.enumerated().map { "?\($0.offset + 1) = \($0.element)" }.joined(separator: ", ")
        }
    }

    /// The changes in words: `add attribute Customer.vat`.
    package internal(set) var changes: [String] = []
    /// Changes that lose data, refused without `allowDataLoss`: `remove attribute Customer.fax (3 values)`.
    package internal(set) var dataLoss: [String] = []
    /// Data that must be fixed (or mapped with --default) first: `Customer.vat: 2 objects share "X" (Customer/1, Customer/4)`.
    package internal(set) var blockers: [String] = []
    /// Names given with --rename or --default that name nothing: a typo is refused, never ignored.
    package internal(set) var unknownNames: [String] = []
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

    /// The same, a line each (a value in one, such as a step's argument, may hold a line feed of its own: an output
    /// escapes each line, not the breaks between them).
    package var lines: [String] {
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
        for b in unknownNames + blockers { lines.append("- blocked: \(b)") }
        if !steps.isEmpty {
            lines.append("SQL (one transaction, foreign keys checked at the end):")
            lines += steps.map { "  \($0)" }
        }
        return lines
    }
}

/// Why a store cannot be opened with the current model until it is migrated.
package struct MigrationError: CategorizedError {
    package let path: String
    package let plan: MigrationPlan
    package let reason: String

    package init(path: String, plan: MigrationPlan, reason: String) {
        self.path = path
        self.plan = plan
        self.reason = reason
    }

    package var category: ErrorCategory { plan.unknownNames.isEmpty ? .data : .usage }

    package var description: String { messages.joined(separator: "\n") }

    /// One per problem, then the remedy.
    package var messages: [String] {
        if !plan.unknownNames.isEmpty {
            return plan.unknownNames.map { "\(path): \($0)" }
                + ["\(path): nothing was changed; `bookkeeper model` lists the store's entities and properties"]
        }
        var lines = ["\(path): \(reason)"]
        lines += plan.dataLoss.map { "\(path): would lose data: \($0)" }
        lines += plan.brokenRules.map { "\(path): would break a new rule: \($0)" }
        lines += plan.blockers.map { "\(path): blocked: \($0)" }
        if !plan.blockers.isEmpty {
            lines.append("\(path): fix the data above (or give --default Entity.attribute=VALUE for missing values), then run `bookkeeper migrate`")
        } else {
            var flags: [String] = []
            var notes = ""
            if !plan.dataLoss.isEmpty {
                flags.append("--allow-data-loss")
                notes += " (a backup copy is kept)"
            }
            if !plan.brokenRules.isEmpty {
                flags.append("--allow-broken-rules")
                notes += " (`check` lists the objects that break a rule until they are fixed)"
            }
            if !flags.isEmpty {
                let command = "bookkeeper migrate " + flags.joined(separator: " ")
                lines.append("\(path): to accept this, run `\(command)`\(notes); `bookkeeper migrate --dry-run` shows the plan")
            }
        }
        return lines
    }
}
