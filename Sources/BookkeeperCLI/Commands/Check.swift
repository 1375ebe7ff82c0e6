import ArgumentParser
import Bookkeeping
import ObjectStore

struct Check: StoreCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Check the store: SQLite's integrity and foreign keys, the schema against the model's, and the model's own rules over every object.",
        discussion: """
            Prints one line per problem and exits 65 when there is any; prints "ok" (unless --quiet) when there is none. \
            References that a No Action delete rule kept to deleted objects are notes on standard output (unless \
            --quiet), not problems. \
            Also named: tables, columns, indexes, triggers and views another tool added, dropped or changed; repeated \
            values of unique attributes; text that is not UTF-8 or holds a NUL; numbers that are not finite; values \
            that are not of their attribute's type or storage class; dates and date-times stored in another form \
            than bookkeeper's; links of many-to-many relationships to objects \
            that do not exist, or kept twice. Lines that block writes come first; each kind is listed at most 20 \
            times, then "… and N more". A trigger on the model's tables, a unique index of the model (or a join \
            table's primary key) missing or changed, or a model column of another type, collation or foreign key \
            makes every command that writes refuse the store (65) until it is undone.
            """)

    @ParentCommand var root: Bookkeeper
    @OptionGroup(visibility: .hidden) var local: GlobalOptions

    func run() throws {
        var store: Store
        var againstRecorded = false
        do {
            if let books = BooksOnPostgreSQL.location {
                // Books on PostgreSQL: opened whatever another tool did to their schema, which the lines list.
                store = try Store.open(books: books, behaviours: BookkeepingModel.model, readOnly: true,
                                       busyTimeout: options.waitSeconds, checking: true)
            } else {
                store = try openStore(readOnly: true)
            }
            if store.readAsItIs != nil {
                // A store this user cannot migrate (openStore noted it): checked against the model it records, which
                // its schema was made for; the pending migration is no problem of the store's.
                store.closeConnection()
                store = try Store.openRecorded(at: options.storePath, model: model, busyTimeout: options.waitSeconds)
                againstRecorded = true
            }
        } catch is ForeignSchemaError {
            // A store that needs migrating to the model, but whose schema another tool changed so that it is not
            // migrated: checked against the model it records, which its schema was made for.
            store = try Store.openRecorded(at: options.storePath, model: model, busyTimeout: options.waitSeconds)
        } catch StoreError.damaged(let path, _) {
            // Damage in the pages the store's own tables start from: list what SQLite's check finds there,
            // since this is the command other commands send the user to.
            throw CheckFailed(path: path, problems: Store.integrityProblems(at: path))
        }
        let problems: [String]
        var notes: [String] = []
        do {
            problems = try store.check(notes: &notes, wording: EngineWording.nextStep)
        } catch StoreError.damaged(let path, let detail) {
            throw CheckFailed(path: path, problems: ["integrity: \(detail) (SQLite's check stopped there)"])
        }
        // What a successful command left on purpose (a No Action delete's references): no problem.
        for note in notes { confirm("note: \(note)") }
        if problems.isEmpty {
            confirm("ok: \(store.path) passed the integrity, schema, foreign key and model checks"
                    + (againstRecorded ? " (against the model it records)" : ""))
            return
        }
        throw CheckFailed(path: store.path, problems: problems)
    }
}

struct CheckFailed: CategorizedError {
    let path: String
    let problems: [String]
    var category: ErrorCategory { .data }
    var description: String { messages.joined(separator: "\n") }
    var messages: [String] {
        // The count is of problems, not lines: a line `… and N more` stands for N.
        let count = Store.problemCount(problems)
        return problems.map { "\(path): \($0)" } + ["\(path): \(count) problem\(count == 1 ? "" : "s") found"]
    }
}
