// Ledger: Bookkeeper's engine used as a library. A model of two entities defined in code — accounts and their
// entries, related both ways with an inverse and a delete rule —, a store in a temporary folder, objects inserted
// and related, saved, and fetched with a predicate whose `%@` placeholders are bound to typed values.
// `make test-examples` runs it and compares what it prints with expected-output.txt.

import Foundation
import ObjectStore

/// The model: an account has many entries (deleting an account that still has entries is refused), an entry
/// belongs to exactly one account (deleting an entry only takes it out of its account's list).
func ledgerModel() throws -> ObjectModel {
    try ObjectModel(entities: [
        Entity("Account", kind: .directory, naturalKey: "code", attributes: [
            EntityAttribute("code", .string, required: true, unique: true),
            EntityAttribute("name", .string, required: true),
            EntityAttribute("opened", .date),
        ], relationships: [
            EntityRelationship("entries", to: "Entry", inverse: "account", toMany: true, deleteRule: .deny),
        ]),
        Entity("Entry", kind: .document, naturalKey: "number", attributes: [
            EntityAttribute("number", .string, required: true, unique: true),
            EntityAttribute("day", .date, required: true),
            EntityAttribute("amount", .decimal(scale: 2), required: true),
            EntityAttribute("memo", .string),
        ], relationships: [
            EntityRelationship("account", to: "Account", inverse: "entries", required: true, deleteRule: .nullify),
        ]),
    ])
}

func day(_ text: String) -> Value {
    guard let day = Day(iso: text) else { fatalError("not a date: \(text)") }
    return .date(day)
}

func amount(_ text: String) -> Value {
    guard let number = DecimalNumber(exactly: text) else { fatalError("not a decimal: \(text)") }
    return .decimal(number)
}

/// Everything the example does, in a folder of its own.
func run(in folder: String) throws {
    let store = try Store.create(at: folder + "/ledger.sqlite", model: try ledgerModel())
    let context = ObjectContext(store: store)

    var accounts: [String: ManagedObject] = [:]
    for (code, name, opened) in [("1200", "Bank", "2026-01-01"), ("4000", "Sales", "2026-01-01"), ("6100", "Rent", "2026-02-01")] {
        let account = try context.insert("Account")
        try account.setValue(.string(code), forKey: "code")
        try account.setValue(.string(name), forKey: "name")
        try account.setValue(day(opened), forKey: "opened")
        accounts[code] = account
    }
    let entries: [(String, String, String, String, String)] = [
        ("E-001", "2026-03-02", "1200", "1500.00", "invoice 17 paid"),
        ("E-002", "2026-03-02", "4000", "-1500.00", "invoice 17"),
        ("E-003", "2026-03-05", "6100", "820.50", "March rent"),
        ("E-004", "2026-03-05", "1200", "-820.50", "March rent"),
        ("E-005", "2026-04-01", "1200", "99.99", "refund"),
    ]
    for (number, date, account, value, memo) in entries {
        let entry = try context.insert("Entry")
        try entry.setValue(.string(number), forKey: "number")
        try entry.setValue(day(date), forKey: "day")
        try entry.setValue(amount(value), forKey: "amount")
        try entry.setValue(.string(memo), forKey: "memo")
        try entry.setObject(accounts[account], for: "account")
    }
    let saved = try context.save()
    print("saved: \(saved.inserted.count) objects inserted")

    // The bank's entries in March, larger than 100.00: `%@` is bound to a string, a decimal and two dates.
    let request = ObjectFetchRequest(
        entity: "Entry",
        predicate: "account.code == %@ AND amount > %@ AND day BETWEEN {%@, %@}",
        arguments: [.string("1200"), amount("-1000"), day("2026-03-01"), day("2026-03-31")],
        sortDescriptors: [SortKey("day"), SortKey("number")]
    )
    let found = try context.fetch(request)
    print("Entry where account.code == 1200, amount > -1000.00, day in March 2026: \(found.count)")
    for entry in found {
        let account = try entry.object(for: "account")
        let name = try account?.value(forKey: "name") ?? .null
        print("  \(try entry.value(forKey: "number"))  \(try entry.value(forKey: "day"))  \(try entry.value(forKey: "amount"))  \(name)  \(try entry.value(forKey: "memo"))")
    }

    // The inverse is kept by the context: each account lists its entries.
    for code in accounts.keys.sorted() {
        let account = accounts[code]!
        let count = try account.objects(for: "entries").count
        print("Account \(code) \(try account.value(forKey: "name")): \(count) \(count == 1 ? "entry" : "entries")")
    }

    // The delete rule: an account with entries cannot be deleted. The save is refused with a ValidationFailure
    // whose issues carry the facts (the object, the key, the message); nothing is written.
    try context.delete(accounts["6100"]!)
    do {
        _ = try context.save()
        print("deleted the rent account (unexpected)")
    } catch let failure as ValidationFailure {
        print("deleting the rent account was refused: \(failure.issues.count) \(failure.issues.count == 1 ? "issue" : "issues")")
        for issue in failure.issues {
            print("  \(issue.objectLabel) \(issue.key ?? "-"): \(issue.message)")
        }
        context.rollback()
    }
    print("Account objects after the rollback: \(try context.count(of: "Account"))")
}

// A temporary folder of our own (mkdtemp), removed at the end whatever happened.
var template = Array((FileManager.default.temporaryDirectory.path + "/ledger-XXXXXX").utf8CString)
guard let made = mkdtemp(&template) else { fatalError("mkdtemp: \(String(cString: strerror(errno)))") }
let folder = String(cString: made)
var failed = false
do {
    try run(in: folder)
} catch {
    print("ledger: \(error)")
    failed = true
}
try? FileManager.default.removeItem(atPath: folder)
exit(failed ? 1 : 0)
