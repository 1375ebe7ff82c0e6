// `migrate --model FILE`, one suite on both kinds of store (issue 31; docs/testing.md, "One suite, both kinds of
// store"): what a migration says, refuses and leaves — the objects as `fetch` shows them — is the same on a store file
// and on books on PostgreSQL. What only a store file has (the before-migration copy, migrating on open with a model
// file beside the store, SQLite's statements) stays in the ModelEvolution… suites; what only books on PostgreSQL have
// in PostgreSQLMigrateTests.

import Foundation
import TestSupport
import XCTest

/// On a store file here, on books on PostgreSQL in `MigrateCommandTestsOnPostgreSQL`.
class MigrateCommandTests: StoreCommandTestCase {
    static let base = "entities:\n  Customer:\n    attributes:\n      tier: { type: string }\n      fax: { type: string }\n"
        + "      joined: { type: date }\n      credit: { type: integer }\n"

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir.write("base.yaml", Self.base)
        XCTAssertEqual(bk("--model", "base.yaml", "init").status, 0)
    }

    /// A command on the books as they are at model file `model`: a store file is opened with it (else it would be
    /// brought to the built-in model); books on PostgreSQL keep their model and take no model file.
    @discardableResult
    func at(_ model: String, _ args: String...) -> CLIResult {
        bk(storeKind == .file ? ["--model", model] + args : args)
    }

    /// `migrate --model FILE …`, its output with a store file's before-migration copy left out (the books need none).
    func migrate(_ model: String, _ args: String...) -> CLIResult {
        let r = bk(["--model", model, "migrate"] + args)
        func plain(_ text: String) -> String {
            text.replacingOccurrences(of: #" \(backup: [^)]*before-migration[^)]*\)"#, with: "", options: .regularExpression)
                .replacingOccurrences(of: " (a backup copy is kept)", with: "")
        }
        return CLIResult(status: r.status, stdout: plain(r.stdout), stderr: plain(r.stderr))
    }

    func csv(_ model: String, _ entity: String, _ columns: String) -> String {
        let r = at(model, "fetch", entity, "--columns", columns, "--format", "csv")
        XCTAssertEqual(r.status, 0, "\(r)")
        return r.stdout
    }

    func testAnAdditiveChangeMigratesOnceAndEveryCommandAfterUsesIt() throws {
        ok("--model", "base.yaml", "add", "Customer", "name=Ann", "tier=gold")
        dir.write("more.yaml", Self.base + "      vat: { type: string, unique: true }\n      level: { type: integer, default: 3, indexed: true }\n"
                  + "  Bank:\n    kind: directory\n    attributes:\n      name: { type: string, required: true }\n")
        let r = migrate("more.yaml")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(r.stdout, """
            - add attribute Customer.vat
            - add attribute Customer.level
            - add index Customer_level_index
            - add index Customer_vat_unique
            - add entity Bank
            migrated \(storeName)

            """)
        XCTAssertEqual(r.stderr, "")
        ok("--model", "more.yaml", "add", "Bank", "name=North")
        XCTAssertEqual(at("more.yaml", "add", "Customer", "name=Bob", "vat=NO1", "level=5").status, 0)
        XCTAssertEqual(csv("more.yaml", "Customer", "name, tier, vat, level"), "name,tier,vat,level\nAnn,gold,,3\nBob,,NO1,5\n")
        let again = migrate("more.yaml")
        XCTAssertEqual(again.status, 0)
        XCTAssertEqual(again.stdout, "\(storeName) is up to date with the model\n")
        let dry = migrate("more.yaml", "--dry-run")
        XCTAssertEqual(dry.stdout, "the store is up to date with the model\n")
        // A unique value the new index holds to.
        XCTAssertEqual(at("more.yaml", "add", "Customer", "name=Cy", "vat=NO1").status, 65)
    }

    func testALossyChangeWithoutItsFlagIsRefusedAndChangesNothing() throws {
        ok("--model", "base.yaml", "add", "Customer", "name=Ann", "fax=12", "credit=7")
        dir.write("less.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: string }\n      joined: { type: date }\n"
                  + "      credit: { type: integer }\n")
        let before = csv("base.yaml", "Customer", "name, fax, credit")
        let r = migrate("less.yaml")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stdout, "")
        XCTAssertEqual(r.stderr, """
            bookkeeper: \(storeName): the migration would lose data; nothing was changed
            bookkeeper: \(storeName): would lose data: remove attribute Customer.fax (1 value)
            bookkeeper: \(storeName): to accept this, run `bookkeeper migrate --allow-data-loss`; `bookkeeper migrate --dry-run` shows the plan

            """)
        XCTAssertEqual(csv("base.yaml", "Customer", "name, fax, credit"), before)
        let accepted = migrate("less.yaml", "--allow-data-loss")
        XCTAssertEqual(accepted.status, 0, "\(accepted)")
        XCTAssertEqual(accepted.stdout, "- loses data: remove attribute Customer.fax (1 value)\nmigrated \(storeName)\n")
        XCTAssertEqual(csv("less.yaml", "Customer", "name, credit"), "name,credit\nAnn,7\n")
    }

    func testARetypeConvertsEveryValueExactlyOrNamesTheOnesThatDoNot() throws {
        ok("--model", "base.yaml", "add", "Customer", "name=Ann", "tier=0042", "credit=12", "joined=2026-03-01")
        ok("--model", "base.yaml", "add", "Customer", "name=Bob", "tier=x1", "credit=-3")
        ok("--model", "base.yaml", "add", "Customer", "name=Cy", "tier=9.5")
        dir.write("typed.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: integer }\n      fax: { type: string }\n"
                  + "      joined: { type: datetime }\n      credit: { type: decimal, scale: 2 }\n")
        let before = csv("base.yaml", "Customer", "name, tier, credit, joined")
        let dry = migrate("typed.yaml", "--dry-run", "--allow-data-loss")
        XCTAssertEqual(dry.status, 65, "\(dry)")
        XCTAssertTrue(dry.stdout.hasPrefix("""
            - loses data: change Customer.tier from String to Integer
            - loses data: change Customer.joined from Date to DateTime
            - loses data: change Customer.credit from Integer to Decimal(2)
            - blocked: Customer.tier: 2 values are not Integer ("x1" in Customer/2, "9.5" in Customer/3)

            """), dry.stdout)
        let real = migrate("typed.yaml", "--allow-data-loss")
        XCTAssertEqual(real.status, 65)
        XCTAssertEqual(real.stderr, """
            bookkeeper: \(storeName): the data does not allow the migration yet; nothing was changed
            bookkeeper: \(storeName): would lose data: change Customer.tier from String to Integer
            bookkeeper: \(storeName): would lose data: change Customer.joined from Date to DateTime
            bookkeeper: \(storeName): would lose data: change Customer.credit from Integer to Decimal(2)
            bookkeeper: \(storeName): blocked: Customer.tier: 2 values are not Integer ("x1" in Customer/2, "9.5" in Customer/3)
            bookkeeper: \(storeName): fix the data above (or give --default Entity.attribute=VALUE for missing values), then run `bookkeeper migrate`

            """)
        XCTAssertEqual(csv("base.yaml", "Customer", "name, tier, credit, joined"), before)
        ok("--model", "base.yaml", "set", "Customer", "Bob", "tier=1")
        ok("--model", "base.yaml", "set", "Customer", "Cy", "tier=")
        let accepted = migrate("typed.yaml", "--allow-data-loss")
        XCTAssertEqual(accepted.status, 0, "\(accepted)")
        XCTAssertEqual(csv("typed.yaml", "Customer", "name, tier, credit"), "name,tier,credit\nAnn,42,12.00\nBob,1,-3.00\nCy,,\n")
        // A date becomes the start of its day in the process's zone.
        XCTAssertEqual(at("typed.yaml", "fetch", "Customer", "--where", "joined == '2026-03-01T00:00:00'", "--count").stdout, "1\n")
    }

    func testRenamesKeepEveryObjectAndTheirReferences() throws {
        dir.write("banks.yaml", Self.base + "    relationships:\n      bank: { to: Bank, inverse: customers }\n"
                  + "  Bank:\n    kind: directory\n    attributes:\n      name: { type: string, required: true }\n      city: { type: string }\n")
        XCTAssertEqual(migrate("banks.yaml").status, 0)
        ok("--model", "banks.yaml", "add", "Bank", "name=North", "city=Oslo")
        ok("--model", "banks.yaml", "add", "Customer", "name=Ann", "tier=gold", "bank=North")
        dir.write("lenders.yaml", Self.base.replacingOccurrences(of: "tier:", with: "grade:")
                  + "    relationships:\n      bank: { to: Lender, inverse: customers }\n"
                  + "  Lender:\n    kind: directory\n    attributes:\n      name: { type: string, required: true }\n      city: { type: string }\n")
        let r = migrate("lenders.yaml", "--rename", "Bank=Lender", "--rename", "Customer.tier=grade")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(r.stdout.hasPrefix("- rename entity Bank to Lender\n- rename attribute Customer.tier to grade\n"), r.stdout)
        XCTAssertEqual(csv("lenders.yaml", "Customer", "name, grade, bank"), "name,grade,bank\nAnn,gold,Lender/1\n")
        XCTAssertEqual(csv("lenders.yaml", "Lender", "name, city, customers.name"), "name,city,customers.name\nNorth,Oslo,Ann\n")
        // A rename already made is no longer needed: the same command again is up to date.
        let again = migrate("lenders.yaml", "--rename", "Bank=Lender", "--rename", "Customer.tier=grade")
        XCTAssertEqual(again.stdout, "\(storeName) is up to date with the model\n")
        // A rename that names nothing is refused (64), naming it.
        let typo = migrate("lenders.yaml", "--rename", "Lender=Lendr")
        XCTAssertEqual(typo.status, 64, "\(typo)")
        XCTAssertEqual(typo.stderr, """
            bookkeeper: \(storeName): --rename Lender=Lendr: the model has no entity Lendr — did you mean "Lender"?
            bookkeeper: \(storeName): nothing was changed; `bookkeeper model` lists the store's entities and properties

            """)
    }

    func testARequiredAttributeAndANewRuleAreCheckedAgainstTheObjects() throws {
        ok("--model", "base.yaml", "add", "Customer", "name=Ann", "credit=7")
        ok("--model", "base.yaml", "add", "Customer", "name=Bob")
        dir.write("strict.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: string, required: true }\n      fax: { type: string }\n"
                  + "      joined: { type: date }\n      credit: { type: integer }\n"
                  + "    rules:\n      - { where: \"credit == nil OR credit < 5\", message: \"credit is below 5\" }\n")
        let r = migrate("strict.yaml")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertTrue(r.stderr.contains("blocked: Customer.tier is now required, but 2 objects have none (Customer/1, Customer/2) — set them, or give --default Customer.tier=VALUE\n"), r.stderr)
        let ruled = migrate("strict.yaml", "--default", "Customer.tier=basic", "--allow-data-loss")
        XCTAssertEqual(ruled.status, 65, "\(ruled)")
        XCTAssertEqual(ruled.stderr, """
            bookkeeper: \(storeName): existing objects break the model's new rules, so the store was not migrated
            bookkeeper: \(storeName): would lose data: Customer.tier becomes required: 2 objects without one get "basic"
            bookkeeper: \(storeName): would break a new rule: Customer/1 "Ann": credit is below 5
            bookkeeper: \(storeName): to accept this, run `bookkeeper migrate --allow-data-loss --allow-broken-rules` (`check` lists the objects that break a rule until they are fixed); `bookkeeper migrate --dry-run` shows the plan

            """)
        XCTAssertEqual(csv("base.yaml", "Customer", "name, tier"), "name,tier\nAnn,\nBob,\n")
        let accepted = migrate("strict.yaml", "--default", "Customer.tier=basic", "--allow-data-loss", "--allow-broken-rules")
        XCTAssertEqual(accepted.status, 0, "\(accepted)")
        XCTAssertEqual(csv("strict.yaml", "Customer", "name, tier"), "name,tier\nAnn,basic\nBob,basic\n")
        XCTAssertEqual(at("strict.yaml", "add", "Customer", "name=Cy").status, 65)
    }
}

final class MigrateCommandTestsOnPostgreSQL: MigrateCommandTests {
    override class var storeKind: StoreKind { .postgresql }
    override func testAnAdditiveChangeMigratesOnceAndEveryCommandAfterUsesIt() throws { try super.testAnAdditiveChangeMigratesOnceAndEveryCommandAfterUsesIt() }
    override func testALossyChangeWithoutItsFlagIsRefusedAndChangesNothing() throws { try super.testALossyChangeWithoutItsFlagIsRefusedAndChangesNothing() }
    override func testARetypeConvertsEveryValueExactlyOrNamesTheOnesThatDoNot() throws { try super.testARetypeConvertsEveryValueExactlyOrNamesTheOnesThatDoNot() }
    override func testRenamesKeepEveryObjectAndTheirReferences() throws { try super.testRenamesKeepEveryObjectAndTheirReferences() }
    override func testARequiredAttributeAndANewRuleAreCheckedAgainstTheObjects() throws { try super.testARequiredAttributeAndANewRuleAreCheckedAgainstTheObjects() }
}
