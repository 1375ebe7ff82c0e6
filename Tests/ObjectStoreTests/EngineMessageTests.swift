import Foundation
import TestSupport
import XCTest
@testable import ObjectStore

/// "Errors carry facts, not command-line wording" (issue 29): no message of the library (ObjectStore and the modules
/// it depends on) names a command-line option, a command of the binary, or the binary as a command. Its errors carry
/// what a front end needs to word a remedy (`nextStep`, `MigrationPlan.Given`, `PredicateBindingError.Fact`), and
/// BookkeeperCLI's EngineWording words them as they always read (the end-to-end tests check those words).
final class EngineMessageTests: XCTestCase {
    /// The library's modules: what a library user links, and prints the errors of.
    static let libraryModules = ["Sources/ObjectStore/", "Sources/FileOutput/", "Sources/LocalTime/", "Sources/ValueText/"]

    /// The binary's commands.
    static let commands = ["init", "model", "add", "set", "show", "list", "delete", "update", "fetch", "migrate", "backup",
                           "check", "import", "imports", "export", "reports", "report", "help"]

    /// An option (`--store`, `--allow-data-loss`), the binary with a command (`bookkeeper check`), the binary in
    /// backticks, or a command in backticks (`` `check` lists them ``). The product's name in a sentence ("bookkeeper
    /// writes nothing to it") and shell remedies (`ulimit -u`) are no command of ours.
    static let pattern = try! NSRegularExpression(pattern:
        #"(^|[^A-Za-z0-9_-])--[a-z]|\bbookkeeper (\#(commands.joined(separator: "|")))\b|`bookkeeper|`(\#(commands.joined(separator: "|")))\b|\buse (\#(commands.joined(separator: "|")))\b"#)

    static func namingLiterals(in source: String) -> [(line: Int, text: String)] {
        var lexer = LiteralLexer(Array(source.unicodeScalars))
        lexer.code(untilParenthesis: false)
        return lexer.literals.filter { pattern.firstMatch(in: $0.text, range: NSRange($0.text.startIndex..., in: $0.text)) != nil }
    }

    func testNoLiteralOfTheLibraryNamesAnOptionOrACommand() throws {
        let sources = packageRoot.appendingPathComponent("Sources")
        var scanned = 0
        var found: [String] = []
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let url as URL in files where url.pathExtension == "swift" {
            let relative = "Sources/" + url.path.dropFirst(sources.path.count + 1)
            guard Self.libraryModules.contains(where: relative.hasPrefix) else { continue }
            scanned += 1
            for literal in Self.namingLiterals(in: try String(contentsOf: url, encoding: .utf8)) {
                found.append("\(relative):\(literal.line): \(literal.text.replacingOccurrences(of: "\u{1}", with: "\\(…)").debugDescription)")
            }
        }
        XCTAssertGreaterThan(scanned, 100, "the scan reads the library's files")
        XCTAssertEqual(found, [], """
            a message of the library names an option or a command of the command line: carry the fact in the error \
            (a case, a field, NextStep) and word it in Sources/BookkeeperCLI/Support/EngineWording.swift:
            \(found.joined(separator: "\n"))
            """)
    }

    /// The scan itself: what it takes for an option or a command, and what it leaves.
    func testTheScanFindsOptionsAndCommandsInLiteralsOnly() {
        func named(_ source: String) -> [String] { Self.namingLiterals(in: source).map(\.text) }
        XCTAssertEqual(named(#"let s = "name another with --store""#), ["name another with --store"])
        XCTAssertEqual(named(#"let s = "give --default \(key)=VALUE""#), ["give --default \u{1}=VALUE"])
        XCTAssertEqual(named(#"flags.append("--allow-data-loss")"#), ["--allow-data-loss"], "a piece of a message")
        XCTAssertEqual(named(#"let s = "run `bookkeeper migrate`""#), ["run `bookkeeper migrate`"])
        XCTAssertEqual(named(#"let s = "bookkeeper check lists it""#), ["bookkeeper check lists it"])
        XCTAssertEqual(named(#"let s = "(`check` lists the objects)""#), ["(`check` lists the objects)"])
        XCTAssertEqual(named(#"let s = "x\(f("--param"))y""#), ["--param"], "a literal inside an interpolation")
        XCTAssertEqual(named("// give --default in a comment\n/* `bookkeeper check` */ let s = \"ok\""), [], "comments")
        XCTAssertEqual(named(#"let s = "bookkeeper writes nothing to it; bookkeeper needs 12 of its own""#), [], "the product's name")
        XCTAssertEqual(named(#"let s = "raise the limit (ulimit -u 40)""#), [], "a shell remedy")
        XCTAssertEqual(named(#"let s = sql + ";  -- " + a"#), [], "an SQL comment")
        XCTAssertEqual(named(#"let s = "a well-known x--y""#), [], "dashes inside a word")
    }

    // MARK: The facts

    /// Every store error's description names no option or command; the remedies are `nextStep`.
    func testStoreErrorsNameNoCommandAndCarryTheirNextStep() {
        let errors: [(StoreError, NextStep?)] = [
            (.missing(path: "a.sqlite"), .createStore),
            (.needsMigratingReadOnly(path: "a.sqlite"), .ownerMigrates),
            (.damaged(path: "a.sqlite", detail: "database disk image is malformed"), .runCheck),
            (.foreignConstraint(path: "a.sqlite", constraint: "CHECK constraint no_unpaid"), .runCheck),
            (.missingColumn(path: "a.sqlite", column: "Customer.info"), .runCheck),
            (.idMarkUnreadable(path: "a.sqlite", entity: "Customer", value: "\"abc\""), .runCheck),
            (.alreadyExists(path: "a.sqlite"), nil),
            (.readOnly(path: "a.sqlite"), nil),
            (.hotJournal(path: "a.sqlite", dryRun: true), nil),
            (.idsExhausted(path: "a.sqlite", entity: "Customer"), nil),
        ]
        for (error, step) in errors {
            XCTAssertEqual(error.nextStep, step, "\(error)")
            XCTAssertTrue(Self.namingLiterals(in: "let s = \(error.description.debugDescription)").isEmpty, "\(error)")
            XCTAssertTrue(error.description.hasPrefix("a.sqlite: "), "\(error)")
        }
        XCTAssertEqual(StoreError.missing(path: "a.sqlite").description, "a.sqlite: no such store")
        XCTAssertEqual(NonFiniteStoredNumber(object: ObjectID(entity: "Item", rowID: 3), attribute: "weight", value: .infinity).nextStep, .runCheck)
        XCTAssertEqual(ForeignSchemaError(path: "a.sqlite", problems: ["trigger t on Customer"]).nextStep, .runCheck)
        let copy = DamagedCopyError(path: "a.sqlite", problem: "page 3 is never used")
        XCTAssertEqual(copy.nextStep, .runCheck)
        XCTAssertTrue(Self.namingLiterals(in: "let s = \(copy.description.debugDescription)").isEmpty, copy.description)
        for step in Self.everyNextStep {
            XCTAssertTrue(Self.namingLiterals(in: "let s = \(step.description.debugDescription)").isEmpty, "\(step): \(step)")
        }
    }

    static let everyNextStep: [NextStep] = [
        .createStore, .runCheck, .migrate, .ownerMigrates, .listModel, .fixDataThenMigrate, .tryAWrite,
        .acceptMigration(allowDataLoss: true, allowBrokenRules: false), .acceptMigration(allowDataLoss: false, allowBrokenRules: true),
        .acceptMigration(allowDataLoss: true, allowBrokenRules: true), .giveDefault(attribute: "Customer.tier"),
        .giveVariable(name: "min"), .giveArgumentPerPlaceholder, .giveUpdatedValues(count: 2),
    ]

    /// A migration's given names, blockers and remedy are facts; a front end's wording replaces exactly those.
    func testAMigrationCarriesTheNamesGivenItsBlockersAndItsRemedyAsFacts() throws {
        let dir = TemporaryDirectory()
        let path = dir.file("store.sqlite")
        let v1 = try model("fax: { type: string }")
        let store = try Store.create(at: path, model: v1)
        let c = ObjectContext(store: store)
        for name in ["Acme", "Bolt"] {
            let o = try c.insert("Customer")
            try c.apply([Assignment(key: "name", value: name)], to: o)
        }
        try c.save()
        store.closeConnection()

        // fax becomes required, but no customer has one; a rename of an entity no model has; a default for an attribute
        // the model lacks.
        let v2 = try model("fax: { type: string, required: true }")
        let migrating = try Store.openForMigration(at: path, model: v2)
        let plan = try migrating.migrationPlan(MigrationOptions(renames: ["Client": "Klient"], defaults: ["Customer.faks": "none"]))
        XCTAssertEqual(plan.unknownNames.map(\.given), [.rename(from: "Client", to: "Klient"), .defaultValue(attribute: "Customer.faks", value: "none")])
        XCTAssertEqual(plan.blockers, [.nowRequired(attribute: "Customer.fax", count: 2, ids: "Customer/1, Customer/2")])
        for line in plan.lines {
            XCTAssertTrue(Self.namingLiterals(in: "let s = \(line.debugDescription)").isEmpty, line)
        }
        let unknown = MigrationError(path: path, plan: plan, reason: "the names given name nothing")
        XCTAssertEqual(unknown.nextStep, .listModel)
        XCTAssertEqual(unknown.messages.last, "\(path): nothing was changed")

        let refused = try migrating.migrationPlan(MigrationOptions(defaults: ["Customer.fax": "none"]))
        XCTAssertEqual(refused.blockers, [])
        migrating.closeConnection()

        // Opening with a model that loses data: the reason and the remedy are facts.
        let v3 = try model("")
        XCTAssertThrowsError(try Store.open(at: path, model: v3)) { error in
            guard let error = error as? MigrationError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.nextStep, .acceptMigration(allowDataLoss: true, allowBrokenRules: false))
            XCTAssertTrue(Self.namingLiterals(in: "let s = \(error.description.debugDescription)").isEmpty, error.description)
            XCTAssertEqual(error.messages.last, "\(path): to accept this, migrate allowing data loss (a backup copy is kept)")
            // A front end's words go where the facts are, and only there.
            let wording = MigrationWording(unknownName: { "<\($0.given)>" }, blocker: { "<\($0)>" }, nextStep: { "<step \($0)>" })
            XCTAssertEqual(error.messages(wording).last, "\(path): <step \(error.nextStep!)>")
            XCTAssertEqual(error.messages(wording).dropLast(), error.messages.dropLast())
        }
        let unknownWorded = unknown.messages(MigrationWording(unknownName: { "[\($0.given)] \($0.problem)" }, blocker: \.description, nextStep: \.description))
        XCTAssertEqual(unknownWorded.first, "\(path): [rename(from: \"Client\", to: \"Klient\")] \(plan.unknownNames[0].problem)")
        XCTAssertEqual(plan.lines(.engine), plan.lines)
    }

    /// A predicate's variable without a value, a placeholder without an argument, arguments without placeholders:
    /// the fact, the engine's flag-free hint, and a front end's words in their place.
    func testPredicateMistakesOfTheCallerCarryTheirFacts() {
        func bindingError(_ predicate: String?, arguments: [String] = []) -> PredicateBindingError? {
            do {
                _ = try FetchPlan(ObjectFetchRequest(entity: "Book", predicate: predicate, textArguments: arguments), model: TestModel.model, columns: [])
                return nil
            } catch {
                return error as? PredicateBindingError
            }
        }
        let unknown = bindingError("pages > $min")
        XCTAssertEqual(unknown?.fact, .unknownVariable(name: "min"))
        XCTAssertEqual(unknown?.description, "where:1:9: unknown variable $min; give $min a value")
        XCTAssertEqual(unknown?.worded(hint: "give it with --param min=VALUE").description,
                       "where:1:9: unknown variable $min; give it with --param min=VALUE")
        let unused = bindingError(nil, arguments: ["x"])
        XCTAssertEqual(unused?.fact, .argumentsWithoutPlaceholders)
        XCTAssertFalse(unused?.description.contains("--") ?? true, "\(String(describing: unused))")
        XCTAssertNil(bindingError("pages > 'many'")?.fact, "the predicate author's own mistake is no fact for a caller")
    }

    private func model(_ fax: String) throws -> ObjectModel {
        try ModelFile.parse("""
            entities:
              Customer:
                kind: directory
                attributes:
                  name: { type: string }
                  \(fax)
            """, name: "model.yaml", extending: try ObjectModel(entities: []))
    }
}
