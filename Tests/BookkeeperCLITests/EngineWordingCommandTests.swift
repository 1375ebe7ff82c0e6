import XCTest
import TestSupport

/// The command line's words for the engine's facts (issue 29): the engine's errors name no option or command, and
/// BookkeeperCLI's EngineWording turns their facts into the messages the command line always printed, word for word.
/// (The migration's, the check's, the damaged store's and the tampered store's words are checked where those
/// commands are: ModelEvolution*, ReadOnlyMigrationTests, SchemaTamperTests, ReliabilityStoreTests.)
final class EngineWordingCommandTests: StoreCommandTestCase {
    func testAMissingStoreNamesInitAndStore() {
        let r = bk("list", "Customer")
        XCTAssertEqual(r.status, 66, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: \(store): no such store — create it with `bookkeeper init`, or name another with --store\n")
    }

    func testAVariableWithoutAValueNamesParam() {
        ok("init")
        let r = bk("fetch", "Customer", "--where", "$x == name")
        XCTAssertEqual(r.status, 64, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: where:1:1: unknown variable $x; give it with --param x=VALUE\n")
    }

    func testArgumentsWithoutAPredicateNameArg() {
        ok("init")
        let r = bk("fetch", "Customer", "--arg", "x")
        XCTAssertEqual(r.status, 64, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: where:1:1: --arg was given, but there is no predicate with %@ or %K placeholders\n")
    }

    /// A migration's unknown names and blockers, and its remedy, in `migrate`'s options (the dry run's plan too).
    func testAMigrationNamesTheOptionsItWasGivenAndTheOnesThatAcceptIt() {
        ok("init")
        ok("add", "Customer", "name=Acme")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: integer, required: true }\n")
        let unknown = bk("migrate", "--rename", "Client=Klient", "--default", "Customer.tiar=1")
        XCTAssertEqual(unknown.status, 64, "\(unknown)")
        XCTAssertTrue(unknown.stderr.contains("bookkeeper: \(store): --rename Client=Klient: the model has no entity Klient"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.contains("bookkeeper: \(store): --default Customer.tiar=1: the model has no attribute Customer.tiar"), unknown.stderr)
        XCTAssertTrue(unknown.stderr.hasSuffix("bookkeeper: \(store): nothing was changed; `bookkeeper model` lists the store's entities and properties\n"),
                      unknown.stderr)
        let blocked = bk("migrate", "--dry-run")
        XCTAssertTrue(blocked.stdout.contains("- blocked: Customer.tier is new and required, but 1 existing object would have none — "
                                              + "give it a default in the model, or --default Customer.tier=VALUE"), "\(blocked)")
        XCTAssertTrue(blocked.stderr.hasSuffix("fix the data above (or give --default Entity.attribute=VALUE for missing values), then run `bookkeeper migrate`\n"),
                      blocked.stderr)
        let badDefault = bk("migrate", "--default", "Customer.tier=many")
        XCTAssertTrue(badDefault.stderr.contains("blocked: --default Customer.tier=many: "), "\(badDefault)")
    }
}
