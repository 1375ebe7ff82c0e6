import ArgumentParser
import Bookkeeping
import FileOutput
import ObjectStore

struct Migrate: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract: "Bring the store to the current model (the built-in one, extended by the model file).",
        discussion: """
            Additive changes (a new entity, attribute, relationship or index) are migrated when a store is opened; \
            this command also does the ones that could lose data — removing or retyping an attribute, \
            relationship or entity — when --allow-data-loss is given, and only once the data allows them: \
            missing values for newly required attributes are given with --default, renamed names with --rename. \
            A backup copy is kept beside the store, and the whole migration is one transaction. \
            Books on PostgreSQL keep their model: `migrate --model FILE` brings them to the file's, in one \
            transaction holding their lock, with no copy (PostgreSQL's DDL is transactional).
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions
    @Flag(help: "Show the plan (changes, problems and SQL) without changing anything.") var dryRun = false
    @Flag(help: "Accept removing or retyping attributes, relationships and entities.") var allowDataLoss = false
    @Flag(help: "Accept new or changed rules that existing objects break (`check` lists them until they are fixed).")
    var allowBrokenRules = false
    @Option(name: .customLong("rename"), help: ArgumentHelp("A renamed entity (Old=New) or property (Entity.old=new).", valueName: "OLD=NEW"))
    var renames: [String] = []
    @Option(name: .customLong("default"), help: ArgumentHelp("A value for objects without one when an attribute becomes required.",
                                                           valueName: "ENTITY.ATTRIBUTE=VALUE"))
    var defaults: [String] = []

    func validate() throws {
        for r in renames where !r.contains("=") { throw ValidationError("--rename takes OLD=NEW, got \"\(r)\"") }
        for d in defaults where !d.contains("=") || !d.split(separator: "=")[0].contains(".") {
            throw ValidationError("--default takes ENTITY.ATTRIBUTE=VALUE, got \"\(d)\"")
        }
    }

    func run() throws {
        func pairs(_ list: [String]) -> [String: String] {
            var d: [String: String] = [:]
            for item in list {
                let eq = item.firstIndex(of: "=")!
                d[String(item[..<eq])] = String(item[item.index(after: eq)...])
            }
            return d
        }
        let migrationOptions = MigrationOptions(renames: pairs(renames), defaults: pairs(defaults), allowDataLoss: allowDataLoss,
                                                allowBrokenRules: allowBrokenRules)
        if let books = BooksOnPostgreSQL.location { return try migrate(books, migrationOptions) }
        let store = try Store.openForMigration(at: options.storePath, model: model, busyTimeout: options.waitSeconds, dryRun: dryRun)
        store.activity = "migrate" + (dryRun ? " (dry run)" : "")
        defer { store.closeConnection() }
        var plan = try store.migrationPlan(migrationOptions)
        if store.isReadOnly {
            // A user who cannot write the store: the plan against the store as it is (not rehearsed, which takes
            // the write lock), and the real run's verdict — the same code and line from every command.
            let needed = plan.modelChanged || !plan.steps.isEmpty || !plan.unknownNames.isEmpty
            if dryRun { print(plan.lines(EngineWording.migration).joined(separator: "\n")) } else if !needed { confirm("\(store.path) is up to date with the model") }
            if needed { throw StoreError.needsMigratingReadOnly(path: store.path) }
            return
        }
        if dryRun {
            // Run and rolled back, so that what only running it shows (a statement SQLite refuses, objects that break
            // a new rule) is in the verdict, as it is in the real run's.
            if plan.blockers.isEmpty && plan.unknownNames.isEmpty && (plan.modelChanged || !plan.steps.isEmpty) {
                // Nil when another process migrated the store while this one planned or waited for the lock: plan
                // again from the store as it is now, as the real run does.
                guard let rehearsed = try store.rehearse(plan) else { return try run() }
                plan = rehearsed
            }
            printPlan(plan.lines(EngineWording.migration))
            // A plan the real run would refuse fails here too, so a script can test it before running it.
            if plan.modelChanged || !plan.steps.isEmpty || !plan.unknownNames.isEmpty, !plan.canApply(migrationOptions) {
                throw MigrationError(path: store.path, plan: plan, reason: !plan.blockers.isEmpty
                                     ? "the data does not allow the migration yet (dry run: nothing was changed)"
                                     : plan.dataLoss.isEmpty || migrationOptions.allowDataLoss
                                     ? "existing objects break the model's new rules (dry run: nothing was changed)"
                                     : "the migration would lose data (dry run: nothing was changed)")
            }
            return
        }
        guard plan.modelChanged || !plan.steps.isEmpty || !plan.unknownNames.isEmpty else {
            confirm("\(store.path) is up to date with the model")
            return
        }
        guard plan.canApply(migrationOptions) else {
            throw MigrationError(path: store.path, plan: plan, reason: plan.blockers.isEmpty
                                 ? "the migration would lose data; nothing was changed"
                                 : "the data does not allow the migration yet; nothing was changed")
        }
        guard let result = try store.applyMigration(plan, options: migrationOptions) else {
            // Another process migrated the store while this one planned or waited for the write lock (the plan is
            // applied only to the model it was made from): plan again from what the store records now.
            return try run()
        }
        // A line per change, as the dry run prints them: each line is escaped (a name or value may hold a control
        // character), not the line breaks between them (they were written `<U+000A>`, one line in all).
        for line in result.plan.lines(EngineWording.migration) where !line.hasPrefix("SQL") && !line.hasPrefix("  ") {
            confirm(line)
        }
        confirm("migrated \(store.path)" + (result.backupPath.map { " (backup: \($0))" } ?? ""))
    }
}

extension Migrate {
    /// Books on PostgreSQL keep their model: `migrate --model FILE` brings them to the file's, in one transaction
    /// holding the books' lock (no backup copy: PostgreSQL's DDL is transactional, a refusal leaves them as they
    /// were). The same plan, words, refusals and exit statuses as on a store file.
    private func migrate(_ books: PostgreSQLLocation, _ migrationOptions: MigrationOptions) throws {
        guard ModelLocator.file != nil else { throw ModelFileNeeded(what: books.displayName) }
        let store = try Store.open(books: books, behaviours: BookkeepingModel.model, readOnly: false, busyTimeout: options.waitSeconds)
        store.activity = "migrate" + (dryRun ? " (dry run)" : "")
        defer { store.closeConnection() }
        if store.isReadOnly {
            // A role that may not write the books: the plan against them as they are, and the real run's verdict.
            let plan = try store.booksMigrationPlan(to: model, options: migrationOptions)
            let needed = plan.modelChanged || !plan.steps.isEmpty || !plan.unknownNames.isEmpty
            if dryRun { printPlan(plan.lines(EngineWording.migration)) } else if !needed { confirm("\(store.path) is up to date with the model") }
            if needed { throw StoreError.needsMigratingReadOnly(path: store.path) }
            return
        }
        let result = try store.migrateBooks(to: model, options: migrationOptions, dryRun: dryRun)
        let plan = result.plan
        let needed = plan.modelChanged || !plan.steps.isEmpty || !plan.unknownNames.isEmpty
        if dryRun {
            printPlan(plan.lines(EngineWording.migration))
            if needed, !plan.canApply(migrationOptions) {
                throw MigrationError(path: store.path, plan: plan, reason: !plan.blockers.isEmpty
                                     ? "the data does not allow the migration yet (dry run: nothing was changed)"
                                     : plan.dataLoss.isEmpty || migrationOptions.allowDataLoss
                                     ? "existing objects break the model's new rules (dry run: nothing was changed)"
                                     : "the migration would lose data (dry run: nothing was changed)")
            }
            return
        }
        guard needed else {
            confirm("\(store.path) is up to date with the model")
            return
        }
        guard result.applied else {
            throw MigrationError(path: store.path, plan: plan, reason: plan.blockers.isEmpty
                                 ? "the migration would lose data; nothing was changed"
                                 : "the data does not allow the migration yet; nothing was changed")
        }
        for line in plan.lines(EngineWording.migration) where !line.hasPrefix("SQL") && !line.hasPrefix("  ") {
            confirm(line)
        }
        confirm("migrated \(store.path)")
    }

    /// `migrate` without a model file on books on PostgreSQL: they keep their model, so there is nothing to bring
    /// them to — a usage error (64), nothing changed, rather than a success a cron job would take for a migration.
    struct ModelFileNeeded: CategorizedError {
        let what: String
        var category: ErrorCategory { .usage }
        var description: String {
            "\(what): nothing to migrate: books on PostgreSQL keep their model; give --model FILE to bring them to that file's model"
        }
    }

    /// The dry run's plan on stdout, a line at a time, with what a name or value holds that would act on a terminal
    /// written `<U+001B>` (as every other text output writes it).
    private func printPlan(_ lines: [String]) {
        for line in lines { print(VisibleText.escaped(line)) }
    }
}

extension Migrate: TakesRepeatedOptions {
    mutating func take(_ values: [String: [String]]) {
        renames += values["--rename"] ?? []
        defaults += values["--default"] ?? []
    }
}
