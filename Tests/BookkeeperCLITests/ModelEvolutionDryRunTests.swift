import XCTest
import TestSupport

/// Issue 26, "Trust, part 6": a dry run changes nothing, and a migration tells the truth before it starts.
final class ModelEvolutionDryRunTests: StoreCommandTestCase {
    /// What a dry run must leave exactly as it was: the store's bytes and the names in its folder.
    struct Snapshot: Equatable, CustomStringConvertible {
        let bytes: Data
        let listing: [String]
        var description: String { "\(bytes.count) bytes; \(listing)" }
    }

    func snapshot() throws -> Snapshot {
        Snapshot(bytes: try Data(contentsOf: URL(fileURLWithPath: store)),
                 listing: try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted())
    }

    /// The store's content, read from a copy in another folder (a read-only connection to the store itself leaves
    /// its -wal and -shm files beside it).
    func content() throws -> String {
        let copy = TemporaryDirectory()
        try FileManager.default.copyItem(atPath: store, toPath: copy.file("copy.sqlite"))
        return try dumpStore(copy.file("copy.sqlite"))
    }

    /// Copies made before a migration, beside the store.
    func backups() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.contains("before-migration") }.sorted()
    }

    static let vatModel = "entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n"

    /// Seen: `import --dry-run` after the model file gained an attribute migrated the store, wrote a
    /// `…before-migration-…` copy, and ended "dry run: nothing was written".
    func testImportDryRunAfterTheModelGainedAnAttributeMigratesNothing() throws {
        ok("init")
        ok("add", "Customer", "name=Acme")
        dir.write("model.yaml", Self.vatModel)
        dir.write("customers.csv", "name,vat\nAcme,DE1\nBolt,DE2\n")
        let before = try snapshot()
        let dry = bk("import", "Customer", "customers.csv", "--dry-run")
        XCTAssertEqual(dry.status, 0, "\(dry)")
        XCTAssertEqual(dry.stderr, "bookkeeper: \(store): a real run would first migrate the store to the current model: add attribute Customer.vat"
                       + " (dry run: not migrated; `bookkeeper migrate --dry-run` shows the SQL)\n")
        XCTAssertTrue(dry.stdout.contains("1 inserted") && dry.stdout.contains("1 updated"), dry.stdout)
        XCTAssertTrue(dry.stdout.contains("dry run: nothing was written"), dry.stdout)
        XCTAssertEqual(try snapshot(), before, "a dry run changes not a byte of the store, and leaves no file beside it")
        XCTAssertEqual(try backups(), [])
        // The real run migrates first and imports what the dry run said.
        let real = bk("import", "Customer", "customers.csv")
        XCTAssertEqual(real.status, 0, "\(real)")
        XCTAssertTrue(real.stderr.hasPrefix("bookkeeper: \(store): migrated to the current model: add attribute Customer.vat"), real.stderr)
        XCTAssertEqual(try backups().count, 1)
        XCTAssertEqual(try queryStore(store, "SELECT vat FROM Customer ORDER BY name"), ["DE1", "DE2"])
    }

    /// Every dry run, with the model unchanged and with a changed one (an added attribute, an added rule, a removed
    /// attribute, a retyped one): the store's bytes and the folder's listing are exactly as before. Seen: a dry run
    /// of a store with no -wal file changed its bytes too (the writer's connection committed a table made and dropped).
    func testEveryDryRunLeavesTheStoreByteIdentical() throws {
        let base = "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n      tier: { type: string }\n"
        dir.write("model.yaml", base)
        ok("init")
        ok("add", "Customer", "name=Acme", "fax=1", "tier=2")
        dir.write("customers.csv", "name,tier\nAcme,3\nBolt,4\n")
        dir.write("orders.csv", "number,customer\nA-1,Acme\n")
        let models = [
            "unchanged": base,
            "an added attribute": base + "      vat: { type: string, default: none }\n",
            "an added rule": base + "    rules:\n      - { where: \"tier != '2'\", message: no tier 2 }\n",
            "a removed attribute": "entities:\n  Customer:\n    attributes:\n      tier: { type: string }\n",
            "a retyped attribute": "entities:\n  Customer:\n    attributes:\n      fax: { type: integer }\n      tier: { type: string }\n",
        ]
        let dryRuns: [[String]] = [
            ["import", "Customer", "customers.csv", "--dry-run"],
            ["import", "Order", "orders.csv", "--dry-run"],
            ["import", "Customer", "customers.csv", "--dry-run", "--on-error", "skip", "--rejects", "rejects.csv"],
            ["migrate", "--dry-run"],
            ["migrate", "--dry-run", "--allow-data-loss"],
            ["migrate", "--dry-run", "--allow-data-loss", "--allow-broken-rules"],
            ["migrate", "--dry-run", "--rename", "Customer.fax=telefax"],
        ]
        for (name, model) in models.sorted(by: { $0.key < $1.key }) {
            dir.write("model.yaml", model)
            for args in dryRuns {
                let before = try snapshot()
                let r = bk(args)
                XCTAssertTrue([0, 64, 65].contains(r.status), "\(name): \(args): \(r)")
                XCTAssertEqual(try snapshot(), before, "\(name): \(args): \(r)")
            }
        }
    }

    /// A command refused because the model changed in a way that needs `migrate --allow-data-loss` or breaks a rule
    /// ("nothing was changed"), a read, and a write refused for a bad value: each leaves every byte of the store.
    /// Seen: each such opening rewrote the file's header (change counter +1, schema cookie +2: GRDB made and dropped
    /// a table to set WAL mode up whenever no -wal file was there), so sha256 and mtime changed on a read (found by
    /// the attack on 0.7.0).
    func testARefusedMigrationLeavesEveryByteOfTheStore() throws {
        let base = "entities:\n  Customer:\n    attributes:\n      fax: { type: string }\n"
        dir.write("model.yaml", base)
        ok("init")
        ok("add", "Customer", "name=Acme", "fax=12")
        let pending = [
            "a retyped attribute": "entities:\n  Customer:\n    attributes:\n      fax: { type: integer }\n",
            "a rule the data breaks": base + "    rules:\n      - { where: \"fax == nil\", message: no fax }\n",
        ]
        let commands: [[String]] = [["check"], ["fetch", "Customer"], ["list", "Customer"], ["show", "Customer", "Acme"],
                                    ["export", "Customer"], ["imports"], ["migrate"], ["set", "Customer", "Acme", "fax=3"]]
        for (name, model) in pending.sorted(by: { $0.key < $1.key }) {
            dir.write("model.yaml", model)
            for args in commands {
                let before = try snapshot()
                let r = bk(args)
                XCTAssertEqual(r.status, 65, "\(name): \(args): \(r)")
                XCTAssertEqual(try snapshot(), before, "\(name): \(args): every byte as it was")
            }
        }
        dir.write("model.yaml", base)
        for args in [["fetch", "Customer"], ["check"], ["set", "Customer", "Acme", "nosuch=1"], ["add", "Customer", "name=Acme"]] {
            let before = try snapshot()
            let r = bk(args)
            XCTAssertNotEqual(r.stdout + r.stderr, "", "\(args)")
            // (A read may leave SQLite's -wal and -shm beside the store, which the next command removes: the bytes.)
            XCTAssertEqual(try snapshot().bytes, before.bytes, "unchanged model: \(args): every byte as it was (\(r))")
        }
    }

    /// Two objects whose texts are equal in another Unicode normal form (café precomposed and decomposed, both
    /// added by bookkeeper before the attribute was unique): making it unique migrated (0) and `check` said ok,
    /// though every command takes the two for one key (found by the attack on 0.7.0). Blocked, naming both.
    func testUniquenessOverValuesEqualInAnotherNormalFormIsRefused() throws {
        let base = "entities:\n  Tag:\n    attributes:\n      label: { type: string }\n"
        dir.write("model.yaml", base)
        ok("init")
        ok("add", "Tag", "name=x", "label=caf\u{E9}")
        ok("add", "Tag", "name=y", "label=cafe\u{301}")
        XCTAssertEqual(try queryStore(store, "SELECT hex(label) FROM Tag ORDER BY id"), ["636166C3A9", "63616665CC81"], "stored as typed")
        dir.write("model.yaml", base.replacingOccurrences(of: "label: { type: string }", with: "label: { type: string, unique: true }"))
        let before = try snapshot()
        for args in [["migrate", "--dry-run"], ["migrate"]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("blocked: Tag.label becomes unique, but 2 objects share \"caf\u{E9}\" in different Unicode normal forms, one key to every command (Tag/1, Tag/2)"), "\(args): \(r.stderr)")
            XCTAssertEqual(try snapshot().bytes, before.bytes, "\(args): not migrated")
        }
    }

    /// A retype with --allow-data-loss converted what no reader shows as stored: text holding a NUL (`1<NUL>2`, read
    /// up to the NUL, became 1) and a Boolean stored as 2 (became 1), neither listed as blocked (found by the attack
    /// on 0.7.0). Both block the migration, named with the object; the store stays as it was.
    func testARetypeOfTextHoldingANulIsBlocked() throws {
        let base = "entities:\n  Tag:\n    attributes:\n      code: { type: string }\n      flag: { type: boolean }\n"
        dir.write("model.yaml", base)
        ok("init")
        ok("add", "Tag", "name=x", "code=5", "flag=yes")
        ok("add", "Tag", "name=y", "code=7", "flag=no")
        let tamper = try runTool(["/usr/bin/sqlite3", store, "UPDATE Tag SET code = CAST(X'3100320A' AS TEXT), flag = 2 WHERE name = 'x'"])
        XCTAssertEqual(tamper.status, 0, "\(tamper)")
        dir.write("model.yaml", "entities:\n  Tag:\n    attributes:\n      code: { type: integer }\n      flag: { type: integer }\n")
        let before = try snapshot()
        for args in [["migrate", "--dry-run", "--allow-data-loss"], ["migrate", "--allow-data-loss"]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains(#"blocked: Tag.code: 1 value is not Integer ("1<NUL>2<U+000A>" in Tag/1, which no reader shows as stored)"#),
                          "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.contains(#"blocked: Tag.flag: 1 value is not Integer ("2" in Tag/1, which no reader shows as stored)"#), "\(args): \(r.stderr)")
            XCTAssertEqual(try snapshot().bytes, before.bytes, "\(args): not migrated")
        }
    }

    /// Seen: an attribute `NAME` beside `name` passed `migrate --dry-run` (exit 0, `ALTER TABLE … ADD COLUMN NAME`);
    /// then `list`, `check` and every other command failed with 74 "duplicate column name", each run leaving another
    /// full copy of the store. Refused at the model file's line (78) before anything is opened.
    func testAnAttributeThatDiffersOnlyInCaseFromAnotherIsRefusedAtItsLine() throws {
        ok("init")
        ok("add", "Customer", "name=Acme")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n      NAME: { type: string }\n")
        let before = try snapshot()
        for args in [["migrate", "--dry-run"], ["migrate"], ["list", "Customer"], ["check"], ["add", "Customer", "name=Bolt"]] {
            let r = bk(args)
            XCTAssertEqual(r.status, 78, "\(args): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(dir.file("model.yaml")):5:7: Customer.NAME and Customer.name would be one column of table "
                           + "Customer in SQLite, which does not tell NAME from name: give one of them another name\n", "\(args)")
            XCTAssertEqual(try snapshot(), before, "\(args)")
        }
        XCTAssertEqual(try backups(), [])
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      ID: { type: integer }\n")
        XCTAssertEqual(bk("list", "Customer").stderr, "bookkeeper: \(dir.file("model.yaml")):4:7: Customer.ID and the object IDs (column id) "
                       + "would be one column of table Customer in SQLite, which does not tell ID from id: give one of them another name\n")
    }

    /// Seen: an entity `ORDER` beside the built-in `Order` failed in SQLite after the copy was made.
    func testAnEntityORDERBesideOrderIsRefusedAtItsLine() throws {
        ok("init")
        dir.write("model.yaml", "entities:\n  ORDER:\n    kind: directory\n    attributes:\n      name: { type: string }\n")
        let before = try snapshot()
        let r = bk("migrate", "--dry-run")
        XCTAssertEqual(r.status, 78, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: \(dir.file("model.yaml")):2:3: entity ORDER and entity Order would have one name in SQLite, "
                       + "which does not tell ORDER from Order: give one of them another name\n")
        XCTAssertEqual(bk("migrate").status, 78)
        XCTAssertEqual(try snapshot(), before)
        XCTAssertEqual(try backups(), [])
    }

    /// Seen: an attribute `customer_id` beside the relationship `customer` (whose column it is) passed the dry run.
    func testAnAttributeNamedAsARelationshipsColumnIsRefusedAtItsLine() throws {
        ok("init")
        dir.write("model.yaml", "entities:\n  Order:\n    attributes:\n      Customer_ID: { type: integer }\n")
        let before = try snapshot()
        let r = bk("migrate", "--dry-run")
        XCTAssertEqual(r.status, 78, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: \(dir.file("model.yaml")):4:7: relationship Order.customer (column customer_id) and Order.Customer_ID "
                       + "would be one column of table Order in SQLite, which does not tell customer_id from Customer_ID: give one of them another name\n")
        XCTAssertEqual(try snapshot(), before)
        dir.write("model.yaml", "entities:\n  Order:\n    attributes:\n      customer_id: { type: integer }\n")
        XCTAssertEqual(bk("migrate", "--dry-run").stderr, "bookkeeper: \(dir.file("model.yaml")):4:7: relationship Order.customer (column customer_id) "
                       + "and Order.customer_id would be one column of table Order: give one of them another name\n")
    }

    /// Found beside them: a retype that makes unique values repeat (`01` and `1` as integers) passed the dry run,
    /// then the real run failed with 74 "UNIQUE constraint failed" and left its backup copy. What only running the
    /// plan shows is now in the dry run's verdict, and a real run refused that way removes its copy.
    func testARetypeThatMakesUniqueValuesRepeatIsRefusedByTheDryRunAndLeavesNoCopy() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      ref: { type: string, unique: true }\n")
        ok("init")
        ok("add", "Customer", "name=A", "ref=01")
        ok("add", "Customer", "name=B", "ref=1")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      ref: { type: integer, unique: true }\n")
        let before = try snapshot(), content = try self.content()
        let blocked = "blocked: SQLite refuses the step CREATE UNIQUE INDEX \"Customer_ref_unique\" ON \"Customer\"(\"ref\"): UNIQUE constraint failed: Customer.ref"
        let dry = bk("migrate", "--dry-run", "--allow-data-loss")
        XCTAssertEqual(dry.status, 65, "\(dry)")
        XCTAssertTrue(dry.stdout.contains("- " + blocked), dry.stdout)
        XCTAssertEqual(try snapshot(), before)
        let real = bk("migrate", "--allow-data-loss")
        XCTAssertEqual(real.status, 65, "\(real)")
        XCTAssertTrue(real.stderr.hasPrefix("bookkeeper: \(store): the migration cannot be made as planned, so the store was not migrated\n"), real.stderr)
        XCTAssertTrue(real.stderr.contains("bookkeeper: \(store): " + blocked + "\n"), real.stderr)
        XCTAssertEqual(try backups(), [])
        XCTAssertEqual(try snapshot().listing, before.listing)
        XCTAssertEqual(try self.content(), content)
    }

    /// Seen: an entity `Customer_tags` (the join table of Customer.tags) passed the dry run.
    func testAnEntityNamedAsAJoinTableIsRefusedAtItsLine() throws {
        ok("init")
        dir.write("model.yaml", "entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: string }\n  Customer_tags:\n    kind: directory\n    attributes:\n      name: { type: string }\n")
        let before = try snapshot()
        let r = bk("migrate", "--dry-run")
        XCTAssertEqual(r.status, 78, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: \(dir.file("model.yaml")):6:3: the links of Customer.tags (table Customer_tags) and entity Customer_tags "
                       + "would have one name: give one of them another name\n")
        XCTAssertEqual(try snapshot(), before)
    }

    static let sharedLinksModel = """
        entities:
          A:
            kind: directory
            attributes: { name: { type: string } }
            relationships:
              b_c: { to: Tag, many: true, inverse-many: true, inverse: as1 }
          A_b:
            kind: directory
            attributes: { name: { type: string } }
            relationships:
              c: { to: Tag, many: true, inverse-many: true, inverse: as2 }

        """

    /// Seen (attack 26, finding 3): `A.b_c` and `A_b.c`, both many-to-many to Tag, keep their links in tables both
    /// named `A_b_c`. `init`, `migrate` and `check` exited 0, only one table was made, and every write to `A_b.c` failed
    /// with 74 ("table A_b_c has no column named A_b_id"). Through a migration, `migrate` printed "the store is up to
    /// date with the model" and then "migrated". Refused at the model line (78) by every command, before anything.
    func testTwoManyToManyRelationshipsWhoseLinksShareATableNameAreRefusedAtTheModelLine() throws {
        let message = "bookkeeper: \(dir.file("model.yaml")):11:7: the links of A_b.c and the links of A.b_c would have one name, "
            + "table A_b_c: give one of them another name\n"
        dir.write("model.yaml", Self.sharedLinksModel)
        let refusedInit = bk("init")
        XCTAssertEqual(refusedInit.status, 78, "\(refusedInit)")
        XCTAssertEqual(refusedInit.stderr, message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
        // Through a migration: the store has A.b_c and A_b without c.
        dir.write("model.yaml", Self.sharedLinksModel.replacingOccurrences(of: "    relationships:\n      c: { to: Tag, many: true, inverse-many: true, inverse: as2 }\n", with: ""))
        ok("init")
        ok("add", "Tag", "name=t1")
        ok("add", "A", "name=a1", "b_c=t1")
        dir.write("model.yaml", Self.sharedLinksModel)
        let before = try snapshot()
        for args in [["migrate", "--dry-run"], ["migrate"], ["check"], ["list", "Tag"], ["show", "Tag", "t1"], ["add", "A_b", "name=ab1", "c=t1"],
                     ["import", "Tag", "-", "--dry-run"], ["export", "Tag", "-"], ["backup", dir.file("copy.sqlite")], ["imports"], ["model"]] {
            let r = bk(args, stdin: "name\nt2\n")
            XCTAssertEqual(r.status, 78, "\(args): \(r)")
            XCTAssertEqual(r.stderr, message, "\(args)")
            XCTAssertEqual(r.stdout, "", "\(args)")
            XCTAssertEqual(try snapshot(), before, "\(args)")
        }
        XCTAssertEqual(try backups(), [])
    }

    /// Seen with that model: `migrate` printed its plan "the store is up to date with the model", then "migrated": a
    /// model that changed where no table shows it was called up to date. A change of that kind (here a removed rule)
    /// is said as what it is, by the dry run and by the real run.
    func testAMigrationThatChangesNoTableNeverSaysUpToDateAndMigrated() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    rules:\n      - { where: \"name != 'x'\", message: no x }\n")
        ok("init")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n")
        ok("migrate")
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      vat: { type: string, default: X }\n")
        let dry = ok("migrate", "--dry-run")
        XCTAssertEqual(dry, "- record the changed model (no table changes: defaults, sorts or rules only)\n")
        let real = ok("migrate")
        XCTAssertFalse(real.contains("up to date"), real)
        XCTAssertTrue(real.hasPrefix("- record the changed model (no table changes: defaults, sorts or rules only)\nmigrated \(store)"), real)
        XCTAssertEqual(ok("migrate"), "\(store) is up to date with the model\n")
    }

    /// Seen (attack 26, finding 10): `"my attr": { type: string }` on line 4 was reported at the entity's line 2.
    /// A property's problem names the property's own line and column.
    func testAModelFileErrorAboutAPropertyNamesThePropertysLine() throws {
        let cases: [(String, String)] = [
            ("entities:\n  Customer:\n    attributes:\n      \"my attr\": { type: string }\n", "4:7: Customer.my attr is not a valid property name"),
            ("entities:\n  Customer:\n    attributes:\n      vat: { type: string }\n      id: { type: integer }\n", "5:7: Customer.id is reserved for object IDs"),
            ("entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: string }\n    relationships:\n"
             + "      \"a-b\": { to: Customer, inverse: banks }\n", "7:7: Bank.a-b is not a valid property name"),
            ("entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: string }\n    relationships:\n"
             + "      twin: { to: Bank, inverse: twins, many: true, inverse-many: true }\n",
             "7:7: Bank.twin: many-to-many relationships from an entity to itself are not supported"),
        ]
        for (model, expected) in cases {
            dir.write("model.yaml", model)
            let r = bk("init")
            XCTAssertEqual(r.status, 78, "\(model): \(r)")
            XCTAssertEqual(r.stderr, "bookkeeper: \(dir.file("model.yaml")):\(expected)\n", model)
        }
    }

    /// Seen: `init` with such a model failed with 73 and SQLite's raw "duplicate column name".
    func testInitWithNamesSQLiteCannotHoldApartIsRefusedAtTheLine() throws {
        dir.write("model.yaml", "entities:\n  Customer:\n    attributes:\n      Code: { type: string }\n")
        let r = bk("init")
        XCTAssertEqual(r.status, 78, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: \(dir.file("model.yaml")):4:7: Customer.Code and Customer.code would be one column of table "
                       + "Customer in SQLite, which does not tell Code from code: give one of them another name\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
        // Tables and indexes share one namespace: Foo.bar_x's unique index and Foo_bar.x's are both Foo_bar_x_unique.
        dir.write("model.yaml", "entities:\n  Foo:\n    kind: directory\n    attributes:\n      bar_x: { type: string, unique: true }\n"
                  + "  Foo_bar:\n    kind: directory\n    attributes:\n      x: { type: string, unique: true }\n")
        let indexes = bk("init")
        XCTAssertEqual(indexes.status, 78, "\(indexes)")
        XCTAssertEqual(indexes.stderr, "bookkeeper: \(dir.file("model.yaml")):9:7: the index Foo_bar_x_unique of Foo_bar.x and the index "
                       + "Foo_bar_x_unique of Foo.bar_x would have one name: give one of them another name\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: store))
        dir.write("model.yaml", "entities:\n  sqlite_things:\n    kind: directory\n    attributes:\n      name: { type: string }\n")
        let reserved = bk("init")
        XCTAssertEqual(reserved.status, 78, "\(reserved)")
        XCTAssertEqual(reserved.stderr, "bookkeeper: \(dir.file("model.yaml")):2:3: entity sqlite_things: names that begin with sqlite_ "
                       + "are SQLite's own: give it another name\n")
    }

    static let bank = "entities:\n  Bank:\n    kind: directory\n    attributes:\n      name: { type: string }\n      a: { type: string }\n      b: { type: integer }\n"

    /// Seen: a case-only rename (`--rename Bank=BANK`) passed the dry run, then failed in SQLite after the copy.
    func testACaseOnlyRenameOfAnEntityMigrates() throws {
        dir.write("model.yaml", Self.bank)
        ok("init")
        ok("add", "Bank", "name=First", "a=x", "b=1")
        dir.write("model.yaml", Self.bank.replacingOccurrences(of: "  Bank:", with: "  BANK:"))
        let dry = bk("migrate", "--dry-run", "--rename", "Bank=BANK")
        XCTAssertEqual(dry.status, 0, "\(dry)")
        XCTAssertTrue(dry.stdout.contains(#"ALTER TABLE "Bank" RENAME TO "_bk_rename_BANK""#), dry.stdout)
        let real = bk("migrate", "--rename", "Bank=BANK")
        XCTAssertEqual(real.status, 0, "\(real)")
        XCTAssertEqual(try queryStore(store, "SELECT name || a || b FROM BANK"), ["Firstx1"])
        XCTAssertEqual(bk("check").status, 0)
        // Without --rename it is a removal and an addition: refused without --allow-data-loss, made with it.
        dir.write("model.yaml", Self.bank.replacingOccurrences(of: "  Bank:", with: "  bank:"))
        XCTAssertEqual(bk("migrate", "--dry-run").status, 65)
        XCTAssertEqual(bk("migrate").status, 65)
        XCTAssertEqual(bk("migrate", "--dry-run", "--allow-data-loss").status, 0)
        let lossy = bk("migrate", "--allow-data-loss")
        XCTAssertEqual(lossy.status, 0, "\(lossy)")
        XCTAssertEqual(try queryStore(store, "SELECT name FROM sqlite_master WHERE type = 'table' AND lower(name) = 'bank'"), ["bank"])
    }

    /// Seen: a swap (`--rename Bank.a=b --rename Bank.b=a`) and a case-only rename of an attribute passed the dry
    /// run, then failed with "duplicate column name" after the copy.
    func testASwapOfTwoAttributesMigratesThroughTemporaryNames() throws {
        dir.write("model.yaml", Self.bank)
        ok("init")
        ok("add", "Bank", "name=First", "a=x", "b=1")
        let swapped = Self.bank.replacingOccurrences(of: "a: { type: string }", with: "a: { type: integer }")
            .replacingOccurrences(of: "b: { type: integer }", with: "b: { type: string }")
        dir.write("model.yaml", swapped)
        let dry = bk("migrate", "--dry-run", "--rename", "Bank.a=b", "--rename", "Bank.b=a")
        XCTAssertEqual(dry.status, 0, "\(dry)")
        let real = bk("migrate", "--rename", "Bank.a=b", "--rename", "Bank.b=a")
        XCTAssertEqual(real.status, 0, "\(real)")
        XCTAssertEqual(try queryStore(store, "SELECT b || a FROM Bank"), ["x1"])
        dir.write("model.yaml", swapped.replacingOccurrences(of: "      a:", with: "      A:"))
        XCTAssertEqual(bk("migrate", "--dry-run", "--rename", "Bank.a=A").status, 0)
        let caseOnly = bk("migrate", "--rename", "Bank.a=A")
        XCTAssertEqual(caseOnly.status, 0, "\(caseOnly)")
        XCTAssertEqual(try queryStore(store, "SELECT name FROM pragma_table_info('Bank') ORDER BY cid"), ["id", "name", "b", "A"])
        XCTAssertEqual(bk("check").status, 0)
    }

    /// Seen: a new rule that existing objects break passed `migrate --dry-run` and `migrate` ("up to date"); then
    /// `check` failed, and so did the next `add` or `import`. The plan lists the objects, and `migrate` refuses until
    /// --allow-broken-rules accepts them.
    func testANewRuleThatExistingDataBreaksIsListedAndRefusedWithoutTheFlag() throws {
        dir.write("model.yaml", Self.bank)
        ok("init")
        ok("add", "Bank", "name=First", "b=1")
        ok("add", "Bank", "name=Second", "b=-5")
        dir.write("model.yaml", Self.bank + "    rules:\n      - { where: \"b == nil OR b >= 0\", message: b cannot be negative }\n")
        let before = try snapshot(), content = try self.content()
        let dry = bk("migrate", "--dry-run")
        XCTAssertEqual(dry.status, 65, "\(dry)")
        XCTAssertEqual(try snapshot(), before)
        XCTAssertEqual(dry.stdout, "- add rule to Bank: b cannot be negative\n- breaks a new rule: Bank/2 \"Second\": b cannot be negative\n")
        XCTAssertEqual(dry.stderr, """
            bookkeeper: \(store): existing objects break the model's new rules (dry run: nothing was changed)
            bookkeeper: \(store): would break a new rule: Bank/2 "Second": b cannot be negative
            bookkeeper: \(store): to accept this, run `bookkeeper migrate --allow-broken-rules` (`check` lists the objects that break a rule until they are fixed); `bookkeeper migrate --dry-run` shows the plan

            """)
        for args in [["migrate"], ["list", "Bank"], ["import", "Bank", "-", "--dry-run"]] {
            let r = bk(args, stdin: "name,b\nThird,3\n")
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.contains("would break a new rule: Bank/2 \"Second\": b cannot be negative"), "\(args): \(r.stderr)")
            // (A real run's writer connection may change the file's bytes, not its content.)
            XCTAssertEqual(try snapshot().listing, before.listing, "\(args)")
            XCTAssertEqual(try self.content(), content, "\(args)")
        }
        XCTAssertEqual(try backups(), [])
        XCTAssertEqual(bk("migrate", "--dry-run", "--allow-broken-rules").status, 0)
        let accepted = bk("migrate", "--allow-broken-rules")
        XCTAssertEqual(accepted.status, 0, "\(accepted)")
        XCTAssertTrue(accepted.stdout.contains("- breaks a new rule: Bank/2 \"Second\": b cannot be negative"), accepted.stdout)
        XCTAssertEqual(ok("migrate"), "\(store) is up to date with the model\n")
        let check = bk("check")
        XCTAssertEqual(check.status, 65)
        XCTAssertTrue((check.stdout + check.stderr).contains("Bank/2 \"Second\": b cannot be negative"), "\(check)")
    }
}
