import XCTest
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The model is the user's: model files, automatic and explicit migrations, yesterday's store.
final class ModelEvolutionCommandTests: StoreCommandTestCase {
    /// The shared banks model, with invoices of banks (a document and its rows).
    static let banks = ModelFixtures.banks + "\n" + """
          Invoice:
            kind: document
            attributes:
              number: { type: string }
              date:   { type: date, default: today }
            relationships:
              bank: { to: Bank, inverse: invoices, delete: nullify, inverse-delete: deny }
          InvoiceLine:
            kind: rows
            attributes:
              text:   { type: string }
              amount: { type: decimal, scale: 2, required: true }
            relationships:
              invoice: { to: Invoice, inverse: lines, required: true, inverse-delete: cascade }
        """

    func testYesterdaysStoreOpensAndMigratesToAModelFile() throws {
        try FileManager.default.copyItem(atPath: packageRoot.appendingPathComponent("Tests/Fixtures/v1-store.sqlite").path, toPath: store)
        XCTAssertEqual(ok("show", "Order", "A-1").split(separator: "\n").last, "rows      OrderRow/1", "the first schema's store opens as it is")
        dir.write("model.yaml", Self.banks)
        let list = bk("list", "Customer")
        XCTAssertEqual(list.status, 0, "\(list)")
        XCTAssertTrue(list.stderr.hasPrefix("bookkeeper: \(store): migrated to the current model: add attribute Customer.vat; add relationship Customer.bank;"), list.stderr)
        XCTAssertTrue(list.stdout.hasPrefix("id  name         code  info            vat  bank\n"), list.stdout)
        XCTAssertEqual(ok("add", "Bank", "name=First Bank", "cert=101", "closed=2023-05-01", "deposits=5000"), "Bank/1\n")
        ok("add", "Bank", "name=Second", "cert=7")
        ok("set", "Customer", "Acme Ltd", "bank=101", "vat=DE123")
        ok("add", "Invoice", "number=I-1", "date=2024-01-02", "bank=101")
        ok("add", "InvoiceLine", "invoice=I-1", "text=Fees", "amount=12.50")
        ok("add", "InvoiceLine", "invoice=I-1", "text=Interest", "amount=0.75")
        XCTAssertEqual(ok("fetch", "Bank", "--where", "ANY customers.vat BEGINSWITH 'DE' AND invoices.lines.@sum.amount > 10",
                          "--columns", "name, customers.name, invoices.@count, invoices.lines.@sum.amount"), """
            name        customers.name  invoices.@count  invoices.lines.@sum.amount
            ----------  --------------  ---------------  --------------------------
            First Bank  Acme Ltd                      1                       13.25
            1 object

            """)
        XCTAssertEqual(ok("list", "Bank"), """
            id  name        city  cert  closed      deposits
            --  ----------  ----  ----  ----------  --------
             1  First Bank         101  2023-05-01   5000.00
             2  Second               7
            2 objects

            """, "the entity's default sort: closed desc, name")
        let rule = bk("add", "Bank", "name=Third", "cert=9", "deposits=-1")
        XCTAssertEqual(rule.status, 65)
        XCTAssertEqual(rule.stderr, "bookkeeper: new Bank \"9\": deposits cannot be negative\n")
        let deny = bk("delete", "Bank", "101")
        XCTAssertEqual(deny.status, 65)
        XCTAssertEqual(deny.stderr, "bookkeeper: Bank/1 \"101\" cannot be deleted: 1 Invoice object refers to it (Invoice/1 \"I-1\") — Bank.invoices has delete rule Deny\n")
        XCTAssertEqual(ok("delete", "Invoice", "I-1"), "deleted Invoice/1 and 2 dependants (InvoiceLine/1, InvoiceLine/2)\n")
        XCTAssertTrue(ok("model", "--format", "json").contains("\"name\" : \"Bank\""))
        XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"])
    }

    func testModelFileMistakesAreRefusedBeforeTheStoreIsTouched() throws {
        ok("init")
        let before = try dumpStore(store)
        dir.write("model.yaml", "entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: strin }\n")
        let r = bk("list", "Customer")
        XCTAssertEqual(r.status, 78)
        XCTAssertEqual(r.stderr, "bookkeeper: model.yaml:5:21: unknown type \"strin\" — did you mean \"string\"? (types: string, integer, decimal, double, boolean, date, datetime, binary)\n".replacingOccurrences(of: "model.yaml", with: dir.file("model.yaml")))
        XCTAssertEqual(try dumpStore(store), before)
        let explicit = runCLI(["--store", store, "--model", "missing.yaml", "list", "Tag"], in: dir.path)
        XCTAssertEqual(explicit.status, 66)
        XCTAssertEqual(explicit.stderr, "bookkeeper: missing.yaml: no such model file\n")
        let viaEnvironment = runCLI(["--store", store, "list", "Tag"], in: dir.path, environment: ["BOOKKEEPER_MODEL": dir.file("model.yaml")])
        XCTAssertEqual(viaEnvironment.status, 78)
    }

    /// `migrate --dry-run` of a plan that the real run would refuse prints the plan and exits 65 (it exited 0, so
    /// a script could not test a plan before running it); a plan that can be applied still exits 0.
    func testMigrateDryRunOfABlockedPlanExits65() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: string }\n")
        ok("init")
        ok("add", "Customer", "name=Acme", "tier=x")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: integer }\n")
        let before = try dumpStore(store)
        let blocked = bk("migrate", "--dry-run", "--allow-data-loss")
        XCTAssertEqual(blocked.status, 65, "\(blocked)")
        XCTAssertTrue(blocked.stdout.contains("- blocked: Customer.tier: 1 value is not Integer (\"x\" in Customer/1)\n"), blocked.stdout)
        XCTAssertTrue(blocked.stderr.hasPrefix("bookkeeper: \(store): the data does not allow the migration yet (dry run: nothing was changed)\n"), blocked.stderr)
        let withoutFlag = bk("migrate", "--dry-run")
        XCTAssertEqual(withoutFlag.status, 65, "a plan that would lose data, without --allow-data-loss: \(withoutFlag)")
        XCTAssertEqual(try dumpStore(store), before)
        try executeSQL(store, "UPDATE Customer SET tier = '2'")
        let possible = bk("migrate", "--dry-run", "--allow-data-loss")
        XCTAssertEqual(possible.status, 0, "\(possible)")
        XCTAssertEqual(possible.stderr, "")
    }

    func testDataLosingChangesAreRefusedUntilMigrateIsToldSo() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n      tier: { type: string }\n")
        ok("init")
        ok("add", "Customer", "name=Acme", "fax=555", "tier=1")
        ok("add", "Customer", "name=Bolt", "tier=x")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      tier: { type: integer, required: true }\n")
        let before = try dumpStore(store)
        let refused = bk("list", "Customer")
        XCTAssertEqual(refused.status, 65)
        XCTAssertEqual(refused.stderr, """
            bookkeeper: \(store): the model changed in ways that could lose data, so the store was not migrated
            bookkeeper: \(store): would lose data: change Customer.tier from String to Integer
            bookkeeper: \(store): would lose data: remove attribute Customer.fax (1 value)
            bookkeeper: \(store): blocked: Customer.tier: 1 value is not Integer ("x" in Customer/2)
            bookkeeper: \(store): fix the data above (or give --default Entity.attribute=VALUE for missing values), then run `bookkeeper migrate`

            """)
        XCTAssertEqual(try dumpStore(store), before)
        // The dry run shows the plan, and fails as the real run would (65): a script can test a plan first.
        let dryRun = bk("migrate", "--dry-run", "--allow-data-loss")
        XCTAssertEqual(dryRun.status, 65, "\(dryRun)")
        XCTAssertTrue(dryRun.stderr.hasPrefix("bookkeeper: \(store): the data does not allow the migration yet (dry run: nothing was changed)\n"), dryRun.stderr)
        let plan = dryRun.stdout
        XCTAssertTrue(plan.contains("- blocked: Customer.tier: 1 value is not Integer (\"x\" in Customer/2)\n"), plan)
        XCTAssertTrue(plan.contains("INSERT INTO \"_bk_new_Customer\" (\"id\", \"name\", \"code\", \"info\", \"tier\") SELECT \"id\", \"name\", \"code\", \"info\", bk_convert(\"tier\", 'string', 'integer') FROM \"Customer\";"), plan)
        let blocked = bk("migrate", "--allow-data-loss")
        XCTAssertEqual(blocked.status, 65)
        XCTAssertTrue(blocked.stderr.hasPrefix("bookkeeper: \(store): the data does not allow the migration yet; nothing was changed\n"), blocked.stderr)
        try executeSQL(store, "UPDATE Customer SET tier = '2' WHERE name = 'Bolt'")
        let withoutFlag = bk("migrate")
        XCTAssertEqual(withoutFlag.status, 65)
        XCTAssertTrue(withoutFlag.stderr.contains("run `bookkeeper migrate --allow-data-loss`"), withoutFlag.stderr)
        let done = ok("migrate", "--allow-data-loss")
        XCTAssertTrue(done.contains("migrated \(store) (backup: \(store).before-migration-"), done)
        XCTAssertEqual(try queryRows(store, "SELECT name, tier FROM Customer ORDER BY id"), [["Acme", "1"], ["Bolt", "2"]])
        XCTAssertEqual(ok("migrate"), "\(store) is up to date with the model\n")
    }

    func testRenamesAndDefaultsMapTheData() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n")
        ok("init")
        ok("add", "Customer", "name=Acme", "fax=555")
        ok("add", "Customer", "name=Bolt")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      telefax: { type: string, required: true }\n")
        XCTAssertEqual(bk("list", "Customer").status, 65)
        let r = bk("migrate", "--rename", "Customer.fax=telefax", "--default", "Customer.telefax=none", "--allow-data-loss")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try queryRows(store, "SELECT name, telefax FROM Customer ORDER BY id"), [["Acme", "555"], ["Bolt", "none"]])
    }

    /// Seen: `migrate --rename Customer.fax=zzz` on a store already up to date exited 0, and a misspelt rename or
    /// --default was silently ignored. Now each names what is missing, with a did-you-mean (64), and changes
    /// nothing; a rename that an earlier run made is left out, so a cron job keeping its --rename stays at 0.
    func testMisspeltRenamesAndDefaultsAreRefusedAndARenameMadeBeforeIsLeftOut() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n")
        ok("init")
        ok("add", "Customer", "name=Acme", "fax=555")
        let upToDate = bk("migrate", "--rename", "Customer.fax=zzz")
        XCTAssertEqual(upToDate.status, 64)
        XCTAssertEqual(upToDate.stderr, """
            bookkeeper: \(store): --rename Customer.fax=zzz: the model has no property Customer.zzz
            bookkeeper: \(store): nothing was changed; `bookkeeper model` lists the store's entities and properties

            """)
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      telefax: { type: string }\n")
        let before = try storeFingerprint(store)
        for (args, message) in [
            (["--rename", "Customer.fax=telefx"], "--rename Customer.fax=telefx: the model has no property Customer.telefx — did you mean \"telefax\"?"),
            (["--rename", "Customer.fx=telefax"], "--rename Customer.fx=telefax: the store has no property Customer.fx — did you mean \"fax\"?"),
            (["--rename", "Custmer.fax=telefax"], "--rename Custmer.fax=telefax: the model has no entity Custmer — did you mean \"Customer\"?"),
            (["--rename", "Client=Buyer"], "--rename Client=Buyer: the model has no entity Buyer"),
            (["--rename", "Customer.fax=telefax", "--default", "Customer.tier=1"], "--default Customer.tier=1: the model has no attribute Customer.tier"),
        ] {
            for dryRun in [[], ["--dry-run"]] {
                let r = bk(["migrate"] + dryRun + args + ["--allow-data-loss"])
                XCTAssertEqual(r.status, 64, "\(args) \(dryRun): \(r)")
                XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: \(store): \(message)\n"), "\(args): \(r.stderr)")
                XCTAssertEqual(try storeFingerprint(store), before)
            }
        }
        XCTAssertEqual(bk("migrate", "--rename", "Customer.fax=telefax").status, 0)
        XCTAssertEqual(try queryRows(store, "SELECT name, telefax FROM Customer"), [["Acme", "555"]])
        let again = bk("migrate", "--rename", "Customer.fax=telefax")
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertEqual(again.stdout, "\(store) is up to date with the model\n")
    }

    /// A migration killed at a random moment leaves the store exactly as it was, or fully migrated. Each migration is
    /// first run whole on a copy to learn how long it takes; then each trial starts from a fresh copy and kills it
    /// with SIGKILL at a moment drawn from its start (even trials) or from its first write to the log (odd trials, so
    /// that kills land inside the transaction), and the completing one also as its commit writes the store. `make
    /// test`: 60,000 customers, 4 kills of each migration and 2 at the commit; `make stress`: 250,000, 20 and 10.
    /// The last killed store then migrates to the end.
    func testAMigrationKilledMidwayLeavesTheStoreAsItWas() throws {
        let rows = Trials.count("BOOKKEEPER_MIGRATION_ROWS", quick: 60_000, stress: 250_000)
        let kills = Trials.count("BOOKKEEPER_MIGRATION_KILLS", quick: 4, stress: 20)
        let seed = Trials.seed(fixed: 7)
        var random = SeededGenerator(seed: seed)
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n")
        ok("init")
        try executeSQL(store, """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
            INSERT INTO Customer (name, code, fax) SELECT 'Customer ' || i, 'C' || i, '555-' || i FROM n
            """)
        let before = try storeFingerprint(store)
        let original = dir.file("original.sqlite")
        try FileManager.default.copyItem(atPath: store, toPath: original)
        func fresh(_ path: String) throws {
            for suffix in ["", "-wal", "-shm", "-activity"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            try FileManager.default.copyItem(atPath: original, toPath: path)
        }

        /// How long `arguments` take on a copy of the original store, and how they end.
        func timed(_ arguments: [String]) throws -> (seconds: Double, status: Int32) {
            let copy = dir.file("timing.sqlite")
            try fresh(copy)
            let start = Date()
            let r = runCLI(["--store", copy] + arguments, in: dir.path)
            return (Date().timeIntervalSince(start), r.status)
        }
        /// Runs `arguments` on a fresh copy and kills it with SIGKILL at a moment drawn over its span.
        func killed(_ arguments: [String], within seconds: Double, trial: Int) throws -> (killed: Bool, midway: Bool) {
            try fresh(store)
            let fromWriting = trial % 2 == 1
            let child = try Child(["--store", store] + arguments, in: dir.path)
            // Inside the transaction: its busy note is beside the store, or its log has frames.
            func inside() -> Bool { FileManager.default.fileExists(atPath: store + "-activity") || fileSize(store + "-wal") > 0 }
            if fromWriting { _ = waitUntil(child, pollMicroseconds: 200) { inside() } }
            usleep(UInt32(Double.random(in: 0...(seconds * (fromWriting ? 0.5 : 1.1)), using: &random) * 1_000_000))
            let midway = inside()
            child.signal(SIGKILL)
            let result = child.wait()
            XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"], "trial \(trial) (seed \(seed))")
            return (result.killedBySignal, midway && result.killedBySignal)
        }

        // A migration the data blocks (text that is not an integer): it never changes anything, killed or not.
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: integer }\n")
        let blocked = ["migrate", "--allow-data-loss", "--rename", "Customer.fax=fax"]
        let blockedRun = try timed(blocked)
        XCTAssertNotEqual(blockedRun.status, 0, "the data blocks this migration")
        var blockedOutcomes = (killed: 0, midway: 0)
        for trial in 0..<kills {
            let outcome = try killed(blocked, within: blockedRun.seconds, trial: trial)
            blockedOutcomes.killed += outcome.killed ? 1 : 0
            blockedOutcomes.midway += outcome.midway ? 1 : 0
            XCTAssertEqual(try storeFingerprint(store), before, "trial \(trial) (seed \(seed)): blocked migrations must not change anything")
        }
        // The same, with a migration that can complete: the store is before or after, never between.
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      fax: { type: string, required: true }\n")
        let completing = ["migrate", "--allow-data-loss", "--default", "Customer.fax=-"]
        let completingRun = try timed(completing)
        XCTAssertEqual(completingRun.status, 0)
        func isMigrated() throws -> Bool {
            let schema = try queryStore(store, "SELECT sql FROM sqlite_master WHERE name = 'Customer'").first.flatMap { $0 } ?? ""
            XCTAssertEqual(try queryStore(store, "SELECT COUNT(*) FROM Customer"), ["\(rows)"], "seed \(seed)")
            guard schema.contains("\"fax\" TEXT NOT NULL") else { return false }
            XCTAssertEqual(try queryStore(store, "SELECT value FROM _bookkeeper_meta WHERE key = 'migrated_at'").count, 1)
            XCTAssertEqual(try queryStore(store, "SELECT COUNT(*) FROM Customer WHERE fax IS NULL"), ["0"])
            return true
        }
        var outcomes = (before: 0, midway: 0, after: 0, finished: 0, inCommit: 0)
        for trial in 0..<kills {
            let outcome = try killed(completing, within: completingRun.seconds, trial: trial)
            if try isMigrated() {
                outcomes.after += outcome.killed ? 1 : 0
                outcomes.finished += outcome.killed ? 0 : 1
            } else {
                XCTAssertEqual(try storeFingerprint(store), before, "trial \(trial) (seed \(seed)): not migrated means untouched")
                outcomes.before += 1
                outcomes.midway += outcome.midway ? 1 : 0
            }
        }
        // Kills drawn over the run seldom land in the commit, so some aim at it: SIGKILL as soon as the store file
        // itself changes, which only the checkpoint of a commit does (the rebuilt table's log passes SQLite's
        // 1,000-page autocheckpoint, so the COMMIT copies it into the store).
        let commitKills = Trials.count("BOOKKEEPER_MIGRATION_COMMIT_KILLS", quick: 2, stress: 10)
        for trial in 0..<commitKills {
            try fresh(store)
            let size = fileSize(store)
            let child = try Child(["--store", store] + completing, in: dir.path)
            if waitUntil(child, pollMicroseconds: 100, { fileSize(store) != size }) { outcomes.inCommit += 1 }
            child.signal(SIGKILL)
            _ = child.wait()
            XCTAssertEqual(try queryStore(store, "PRAGMA integrity_check"), ["ok"], "commit kill \(trial)")
            if try !isMigrated() { XCTAssertEqual(try storeFingerprint(store), before, "commit kill \(trial): not migrated means untouched") }
        }
        // A store killed in the middle of a migration migrates when asked again.
        let again = bk(["--quiet"] + completing)
        XCTAssertEqual(again.status, 0, "\(again)")
        XCTAssertTrue(try isMigrated())
        reportTrials("SIGKILL during a migration", "seed \(seed), \(rows) customers: a blocked migration (\(String(format: "%.2f", blockedRun.seconds)) s) "
                      + "killed \(blockedOutcomes.killed) of \(kills) times (\(blockedOutcomes.midway) inside its transaction), unchanged each time; "
                      + "a completing one (\(String(format: "%.2f", completingRun.seconds)) s) killed \(outcomes.before) times before its commit "
                      + "(\(outcomes.midway) inside its transaction; unchanged), \(outcomes.after) after it (migrated), "
                      + "\(outcomes.finished) finished first; \(outcomes.inCommit) of \(commitKills) killed as the commit wrote the store; never between")
    }
}
