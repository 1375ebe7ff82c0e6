import Foundation
import XCTest
import TestSupport

/// `bookkeeper import`: the sample data, idempotent re-imports, every option, documents with their rows.
class ImportCommandTests: ImportTestCase {
    func testSampleDataImportsWithTheShippedProfiles() throws {
        importSampleData()
        XCTAssertEqual(try query("SELECT count(*) FROM \"Tag\""), ["4"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"Service\""), ["10"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"Customer\""), ["20"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"Order\""), ["50"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"OrderRow\""), ["125"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"Customer_tags\""), ["19"])
        XCTAssertEqual(ok("show", "Order", "2026-001"), """
            id        Order/1
            number    2026-001
            date      2025-12-05
            made      true
            paid      true
            customer  Smith & Sons
            rows      OrderRow/1, OrderRow/2, OrderRow/3

            """)
        XCTAssertEqual(try query("SELECT quantity || ' ' || price || ' ' || sum FROM \"OrderRow\" WHERE id = 1"), ["10000 5575 55750"])
        XCTAssertEqual(try query("SELECT count(*) FROM \"OrderRow\" WHERE order_id = (SELECT id FROM \"Order\" WHERE number = '2026-023')"), ["0"],
                       "the order whose rows. cells are empty has no rows")
        XCTAssertEqual(try query("SELECT CASE WHEN customer_id IS NULL THEN 1 ELSE 0 END FROM \"Order\" WHERE number = '2026-037'"), ["1"])
    }

    func testImportingTheSameFileTwiceChangesNothing() throws {
        importSampleData()
        let before = try contents()
        for (file, entity, n) in [("tags", "Tag", 4), ("services", "Service", 10), ("customers", "Customer", 20), ("orders", "Order", 50)] {
            let out = ok("import", entity, sampleData.appendingPathComponent("\(file).csv").path,
                         "--profile", sampleData.appendingPathComponent("\(file).yaml").path)
            XCTAssertEqual(counts(out, entity), "0 inserted, 0 updated, \(n) unchanged, 0 rejected", out)
        }
        XCTAssertEqual(try contents(), before, "byte-identical store, row IDs included")
        XCTAssertEqual(try query("SELECT count(*) FROM _bookkeeper_imports"), ["8"])
    }

    func testTheSummary() throws {
        ok("init")
        let file = csv("tags.csv", "name\nvip\nretail\n")
        let out = ok("import", "Tag", file)
        let lines = out.split(separator: "\n")
        XCTAssertTrue(lines[0].hasPrefix("tags.csv → Tag: 2 records in "), out)
        XCTAssertTrue(lines[0].hasSuffix(" records/s), utf-8"), "the encoding the file was read in: \(out)")
        XCTAssertEqual(lines[1], "  Tag  2 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(lines.count, 2)
    }

    func testSummaryJSON() throws {
        ok("init")
        let file = csv("t.csv", "name,extra\nvip,1\n")
        let out = ok("import", "Tag", file, "--summary", "json", "--ignore-unknown")
        let json = try JSONSerialization.jsonObject(with: Data(out.utf8)) as! [String: Any]
        XCTAssertEqual(json["file"] as? String, "t.csv")
        XCTAssertEqual(json["entity"] as? String, "Tag")
        XCTAssertEqual(json["records"] as? Int, 1)
        XCTAssertEqual(json["dryRun"] as? Bool, false)
        XCTAssertEqual(json["ignoredColumns"] as? [String], ["extra"])
        XCTAssertEqual((json["sha256"] as? String)?.count, 64)
        let entities = json["entities"] as! [[String: Any]]
        XCTAssertEqual(entities.first?["inserted"] as? Int, 1)
        XCTAssertNotNil(json["seconds"] as? Double)
        XCTAssertNotNil(json["recordsPerSecond"] as? Double)
        XCTAssertEqual(out.split(separator: "\n").count, 1, "one line, for pipelines")
    }

    func testQuietPrintsErrorsOnly() {
        ok("init")
        XCTAssertEqual(ok("import", "Tag", csv("t.csv", "name\nvip\n"), "--quiet"), "")
        let r = bk("import", "Tag", csv("u.csv", "name,x\nvip,1\n"), "--quiet")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stdout, "")
        XCTAssertFalse(r.stderr.isEmpty)
    }

    func testTheHistoryIsRecordedAndListed() throws {
        ok("init")
        XCTAssertEqual(ok("imports"), "no imports yet\n")
        ok("import", "Tag", csv("tags.csv", "name\nvip\n"))
        ok("import", "Tag", "tags.csv")
        ok("import", "Tag", "tags.csv", "--dry-run")
        let lines = ok("imports").split(separator: "\n")
        XCTAssertEqual(lines.count, 4, "two imports; a dry run is not recorded")
        XCTAssertTrue(lines[2].contains("tags.csv"))
        let json = try JSONSerialization.jsonObject(with: Data(ok("imports", "--format", "json").utf8)) as! [[String: Any]]
        XCTAssertEqual(json.count, 2)
        XCTAssertEqual(json[0]["file"] as? String, "tags.csv")
        XCTAssertEqual(json[0]["sha256"] as? String, try sha256Hex(dir.file("tags.csv")))
        XCTAssertEqual(json[0]["inserted"] as? Int, 1)
        XCTAssertEqual(json[1]["unchanged"] as? Int, 1)
        XCTAssertEqual(json[0]["entity"] as? String, "Tag")
        XCTAssertNotNil(json[0]["startedAt"] as? String)
        XCTAssertEqual(json[0]["encoding"] as? String, "utf-8")
        XCTAssertTrue(lines[0].hasSuffix("encoding"), String(lines[0]))
        XCTAssertTrue(lines[2].hasSuffix("utf-8"), String(lines[2]))
    }

    func sha256Hex(_ path: String) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        p.arguments = [path]
        let out = Pipe()
        p.standardOutput = out
        try p.run()
        p.waitUntilExit()
        return String(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).prefix(64))
    }

    func testStandardInput() throws {
        ok("init")
        let r = bk(["import", "Tag", "-"], stdin: "name\nvip\nretail\n")
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertTrue(r.stdout.hasPrefix("- → Tag: 2 records"), r.stdout)
        XCTAssertEqual(try query("SELECT name FROM \"Tag\" ORDER BY id"), ["vip", "retail"])
    }

    /// The progress bar is drawn on a terminal (under `script`, which gives the import one) and never into a pipe.
    func testProgressBarOnlyOnATerminal() throws {
        let script = "/usr/bin/script"
        guard FileManager.default.isExecutableFile(atPath: script) else { throw XCTSkip("no \(script) to run on a terminal") }
        ok("init")
        csv("t.csv", "name\n" + (1...20_000).map { "tag \($0)\n" }.joined())
        let piped = bk("import", "Tag", "t.csv")
        XCTAssertEqual(piped.status, 0)
        XCTAssertEqual(piped.stderr, "", "nothing on stderr when it is not a terminal")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: script)
        process.arguments = ["-qec", "'\(bookkeeperBinary)' --store '\(store)' import Tag '\(dir.file("t.csv"))' --dry-run", "/dev/null"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationStatus, 0, output)
        XCTAssertTrue(output.contains("%") && output.contains(" records/s\u{1B}[K"), output.debugDescription)
        XCTAssertTrue(output.contains("\r\u{1B}[K"), "the bar is cleared before the summary")
        XCTAssertTrue(output.contains("Tag  0 inserted, 0 updated, 20000 unchanged, 0 rejected"), output)
    }

    // MARK: Options

    func testKeyUpsertsByAnotherUniqueAttribute() throws {
        importSampleData()
        let out = ok("import", "Customer", csv("c.csv", "code,name\nC001,Acme Limited\n"), "--key", "code")
        XCTAssertEqual(counts(out, "Customer"), "0 inserted, 1 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(try query("SELECT name FROM \"Customer\" WHERE code = 'C001'"), ["Acme Limited"])
        let bad = bk("import", "Customer", "c.csv", "--key", "info")
        XCTAssertEqual(bad.status, 64)
        XCTAssertEqual(bad.stderr, "bookkeeper: --key info: Customer.info is not unique, so it cannot name one object\n")
        XCTAssertEqual(bk("import", "Customer", "c.csv", "--key", "cod").stderr,
                       "bookkeeper: --key cod: unknown attribute of Customer — did you mean \"code\"?\n")
    }

    func testMapAndIgnoreUnknown() throws {
        ok("init")
        let file = csv("c.csv", "Kunde,Nr,Fax\nAcme,C1,123\n")
        let r = bk("import", "Customer", file, "--map", "Kunde=name", "--map", "Nr=code")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: c.csv:1: column "Fax" maps to nothing on Customer
            bookkeeper: c.csv:1: map such columns with --map "COLUMN=keypath" (or --map "COLUMN=" to ignore one), or pass --ignore-unknown; key paths of Customer: name, code, info, tags

            """)
        let out = ok("import", "Customer", file, "--map", "Kunde=name", "--map", "Nr=code", "--ignore-unknown")
        XCTAssertTrue(out.contains("ignored columns: \"Fax\""), out)
        XCTAssertEqual(try query("SELECT name || ' ' || code FROM \"Customer\""), ["Acme C1"])
        ok("import", "Customer", file, "--map", "Kunde=name", "--map", "Nr=code", "--map", "Fax=")
        let bad = bk("import", "Customer", file, "--map", "Kunde=nmae")
        XCTAssertEqual(bad.status, 64)
        XCTAssertEqual(bad.stderr.split(separator: "\n").first, "bookkeeper: --map \"Kunde=nmae\": \"nmae\" names nothing on Customer — did you mean \"name\"?")
        XCTAssertEqual(bk("import", "Customer", file, "--map", "Kunde").status, 64)
    }

    func testMissingRequiredAttributesAreReportedBeforeAnyRow() {
        ok("init")
        let r = bk("import", "OrderRow", csv("r.csv", "order,quantity\nA-1,oops\n"))
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: r.csv:1: required OrderRow.sum has no column — add one, or map one with --map "COLUMN=sum"
            bookkeeper: r.csv:1: required OrderRow.service has no column — add one, or map one with --map "COLUMN=service"

            """)
        let k = bk("import", "Order", csv("o.csv", "date\n2024-01-01\n"))
        XCTAssertEqual(k.stderr, "bookkeeper: o.csv:1: no column gives the key Order.number — add one, or map one with --map \"COLUMN=number\"\n")
    }

    func testCreateMissing() throws {
        ok("init")
        let file = csv("c.csv", "name,tags\nAcme,\"vip, wholesale\"\n")
        let r = bk("import", "Customer", file)
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: c.csv:2:6: column "tags": Tag with name "vip" not found (--create-missing creates it)
            bookkeeper: nothing was imported: the whole file is one transaction (--on-error skip imports the good records and writes the bad ones to --rejects)

            """)
        let out = ok("import", "Customer", file, "--create-missing")
        XCTAssertEqual(counts(out, "Tag"), "2 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(try query("SELECT name FROM \"Tag\" ORDER BY id"), ["vip", "wholesale"])
    }

    func testDelimiterEncodingDateFormatDecimalCommaAndNull() throws {
        ok("init")
        var bytes = Array("number;date;customer;rows.service;rows.price;rows.quantity\n".utf8)
        bytes += Array("A-1;31.01.2024;Caf".utf8) + [0xE9] + Array(";Delivery;1.234,50;NULL\n".utf8)
        dir.write("o.csv", "")
        try Data(bytes).write(to: URL(fileURLWithPath: dir.file("o.csv")))
        let args = ["import", "Order", "o.csv", "--delimiter", ";", "--encoding", "windows-1252", "--date-format", "%d.%m.%Y",
                    "--decimal-comma", "--null", "NULL", "--create-missing"]
        let r = bk(args)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(try query("SELECT \"date\" FROM \"Order\""), ["2024-01-31"])
        XCTAssertEqual(try query("SELECT name FROM \"Customer\""), ["Café"])
        XCTAssertEqual(try query("SELECT price || ' ' || quantity || ' ' || sum FROM \"OrderRow\""), ["123450 1000 123450"],
                       "NULL is empty, so quantity takes its default 1 and sum is derived")
        // auto finds the same delimiter and encoding
        XCTAssertEqual(bk(["import", "Order", "o.csv", "--date-format", "%d.%m.%Y", "--decimal-comma", "--null", "NULL"]).status, 0)
        // bad option values are usage errors
        XCTAssertEqual(bk("import", "Order", "o.csv", "--delimiter", "ab").stderr,
                       "bookkeeper: delimiter \"ab\" is not one of auto , ; tab | (or another single ASCII character)\n")
        XCTAssertEqual(bk("import", "Order", "o.csv", "--encoding", "ebcdic").status, 64)
        XCTAssertEqual(bk("import", "Order", "o.csv", "--date-format", "%d.%m").stderr,
                       "bookkeeper: date format \"%d.%m\": needs a year, a month and a day (%Y or %y, %m or %b, %d)\n")
    }

    func testTabPipeAndLatin1() throws {
        ok("init")
        try Data(Array("name\tinfo\nCaf".utf8) + [0xE9] + Array("\tx;y\n".utf8)).write(to: URL(fileURLWithPath: dir.file("t.tsv")))
        ok("import", "Customer", "t.tsv", "--delimiter", "tab", "--encoding", "latin1")
        XCTAssertEqual(try query("SELECT name || '|' || info FROM \"Customer\""), ["Café|x;y"])
        ok("import", "Customer", csv("p.csv", "name|info\nBolt|a,b\n"), "--delimiter", "|")
        XCTAssertEqual(try query("SELECT info FROM \"Customer\" WHERE name = 'Bolt'"), ["a,b"])
        ok("import", "Customer", csv("s.csv", "name|info\nCog|c\n"))
        XCTAssertEqual(try query("SELECT info FROM \"Customer\" WHERE name = 'Cog'"), ["c"], "| found by sniffing")
    }

    func testListSeparator() throws {
        ok("init")
        ok("import", "Customer", csv("c.csv", "name,tags\nAcme,vip|wholesale\n"), "--list-separator", "|", "--create-missing")
        XCTAssertEqual(try query("SELECT name FROM \"Tag\" ORDER BY id"), ["vip", "wholesale"])
    }

    func testDryRunValidatesEverythingAndWritesNothing() throws {
        ok("init")
        let before = try wholeStore()
        let out = ok("import", "Tag", csv("t.csv", "name\nvip\n"), "--dry-run")
        XCTAssertTrue(out.contains("  Tag  1 inserted, 0 updated, 0 unchanged, 0 rejected"), out)
        XCTAssertTrue(out.hasSuffix("dry run: nothing was written\n"), out)
        XCTAssertEqual(try wholeStore(), before)
        let bad = bk("import", "Customer", csv("c.csv", "name,tags\nAcme,vip\n"), "--dry-run")
        XCTAssertEqual(bad.status, 65)
        XCTAssertEqual(try wholeStore(), before)
    }

    // MARK: Documents with rows

    func testAnOrdersLinesMayBeAnywhereAndMustAgree() throws {
        ok("init")
        let file = csv("o.csv", """
            number,date,rows.service,rows.sum
            A-1,2024-01-01,S1,1.00
            B-1,2024-01-02,S1,2.00
            A-1,2024-01-01,S2,3.00

            """)
        let out = ok("import", "Order", file, "--create-missing")
        XCTAssertEqual(counts(out, "Order"), "2 inserted, 0 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(counts(out, "OrderRow"), "3 inserted, 0 updated, 0 unchanged, 0 deleted, 0 rejected")
        XCTAssertEqual(try query("SELECT o.number || ':' || r.sum FROM \"OrderRow\" r JOIN \"Order\" o ON o.id = r.order_id ORDER BY r.id"),
                       ["A-1:100", "B-1:200", "A-1:300"])
        let again = ok("import", "Order", file, "--create-missing")
        XCTAssertEqual(counts(again, "OrderRow"), "0 inserted, 0 updated, 3 unchanged, 0 deleted, 0 rejected")

        let clash = bk("import", "Order", csv("p.csv", """
            number,date,rows.service,rows.sum
            C-1,2024-01-01,S1,1.00
            C-1,2024-01-02,S1,2.00
            D-1,2024-01-01,S1,1.00
            C-1,2024-01-03,S1,2.00

            """))
        XCTAssertEqual(clash.status, 65)
        XCTAssertEqual(clash.stderr, """
            bookkeeper: p.csv:3:5: column "date": "2024-01-02" differs from line 2 ("2024-01-01"): the lines of Order "C-1" must agree on its own columns (--on-conflict first or last keeps one)
            bookkeeper: p.csv:5:5: column "date": Order with number "C-1" was given earlier on line 2 with other values (date) (--on-conflict first or last keeps one)
            bookkeeper: nothing was imported: the whole file is one transaction (--on-error skip imports the good records and writes the bad ones to --rejects)

            """)
    }

    func testAReimportReplacesAnOrdersRows() throws {
        ok("init")
        ok("import", "Order", csv("o.csv", """
            number,date,rows.service,rows.sum
            A-1,2024-01-01,S1,1.00
            A-1,2024-01-01,S1,2.00
            A-1,2024-01-01,S1,3.00
            B-1,2024-01-01,S1,4.00

            """), "--create-missing")
        let out = ok("import", "Order", csv("p.csv", """
            number,date,rows.service,rows.sum
            A-1,2024-01-01,S1,1.00
            A-1,2024-01-01,S1,2.50
            B-1,2024-01-01,,

            """))
        XCTAssertEqual(counts(out, "Order"), "0 inserted, 2 updated, 0 unchanged, 0 rejected")
        XCTAssertEqual(counts(out, "OrderRow"), "0 inserted, 1 updated, 1 unchanged, 2 deleted, 0 rejected")
        XCTAssertEqual(try query("SELECT id || ':' || sum FROM \"OrderRow\" ORDER BY id"), ["1:100", "2:250"])
    }

    func testTheTwoFileForm() throws {
        importSampleData()
        let file = csv("details.csv", """
            orderID,productID,qty,unitPrice
            2026-001,S01,2,25.00
            2026-001,S02,1,68.50
            2026-002,S03,1.5,120.00

            """)
        let args = ["import", "OrderRow", file, "--map", "orderID=order.number", "--map", "productID=service.code",
                    "--map", "qty=quantity", "--map", "unitPrice=price"]
        let r = bk(args)
        XCTAssertEqual(r.status, 0, "\(r)")
        XCTAssertEqual(counts(r.stdout, "OrderRow"), "0 inserted, 3 updated, 0 unchanged, 2 deleted, 0 rejected", r.stdout)
        XCTAssertEqual(try query("SELECT s.code || ' ' || r.quantity || ' ' || r.sum FROM \"OrderRow\" r JOIN \"Service\" s ON s.id = r.service_id JOIN \"Order\" o ON o.id = r.order_id WHERE o.number IN ('2026-001', '2026-002') ORDER BY r.id"),
                       ["S01 2000 5000", "S02 1000 6850", "S03 1500 18000"])
        let before = try contents()
        let again = bk(args)
        XCTAssertEqual(counts(again.stdout, "OrderRow"), "0 inserted, 0 updated, 3 unchanged, 0 deleted, 0 rejected", again.stdout)
        XCTAssertEqual(try contents(), before, "running it twice changes nothing")
        XCTAssertEqual(try query("SELECT count(*) FROM \"OrderRow\""), ["123"], "other orders keep their rows")
    }

    func testARowTableNeedsItsDocument() {
        ok("init")
        let r = bk("import", "OrderRow", csv("r.csv", "order,service,sum\nX-9,S1,1.00\n"), "--create-missing")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr, """
            bookkeeper: r.csv:2:1: column "order": Order with number "X-9" not found
            bookkeeper: nothing was imported: the whole file is one transaction (--on-error skip imports the good records and writes the bad ones to --rejects)

            """)
    }
}

final class ImportCommandTestsOnPostgreSQL: ImportCommandTests {
    override class var storeKind: StoreKind { .postgresql }
    override func testSampleDataImportsWithTheShippedProfiles() throws { try super.testSampleDataImportsWithTheShippedProfiles() }
    override func testImportingTheSameFileTwiceChangesNothing() throws { try super.testImportingTheSameFileTwiceChangesNothing() }
    override func testTheSummary() throws { try super.testTheSummary() }
    override func testSummaryJSON() throws { try super.testSummaryJSON() }
    override func testQuietPrintsErrorsOnly() { super.testQuietPrintsErrorsOnly() }
    override func testTheHistoryIsRecordedAndListed() throws { try super.testTheHistoryIsRecordedAndListed() }
    override func testStandardInput() throws { try super.testStandardInput() }
    override func testProgressBarOnlyOnATerminal() throws { try super.testProgressBarOnlyOnATerminal() }
    override func testKeyUpsertsByAnotherUniqueAttribute() throws { try super.testKeyUpsertsByAnotherUniqueAttribute() }
    override func testMapAndIgnoreUnknown() throws { try super.testMapAndIgnoreUnknown() }
    override func testMissingRequiredAttributesAreReportedBeforeAnyRow() { super.testMissingRequiredAttributesAreReportedBeforeAnyRow() }
    override func testCreateMissing() throws { try super.testCreateMissing() }
    override func testDelimiterEncodingDateFormatDecimalCommaAndNull() throws { try super.testDelimiterEncodingDateFormatDecimalCommaAndNull() }
    override func testTabPipeAndLatin1() throws { try super.testTabPipeAndLatin1() }
    override func testListSeparator() throws { try super.testListSeparator() }
    override func testDryRunValidatesEverythingAndWritesNothing() throws { try super.testDryRunValidatesEverythingAndWritesNothing() }
    override func testAnOrdersLinesMayBeAnywhereAndMustAgree() throws { try super.testAnOrdersLinesMayBeAnywhereAndMustAgree() }
    override func testAReimportReplacesAnOrdersRows() throws { try super.testAReimportReplacesAnOrdersRows() }
    override func testTheTwoFileForm() throws { try super.testTheTwoFileForm() }
    override func testARowTableNeedsItsDocument() { super.testARowTableNeedsItsDocument() }
}

/// What only an import into a store file has: its history table as an older version made it (changed with sqlite3).
final class ImportFileCommandTests: ImportTestCase {
    func testAnOlderHistoryTableGainsTheEncodingColumn() throws {
        ok("init")
        ok("import", "Tag", csv("tags.csv", "name\nvip\n"))
        // The table as a version before the encoding was kept made it.
        let drop = try runTool(["/usr/bin/sqlite3", store, "ALTER TABLE _bookkeeper_imports DROP COLUMN encoding"])
        XCTAssertEqual(drop.status, 0, drop.error)
        var json = try JSONSerialization.jsonObject(with: Data(ok("imports", "--format", "json").utf8)) as! [[String: Any]]
        XCTAssertTrue(json[0]["encoding"] is NSNull, "an older row has none")
        dir.write("more.csv", "name\nZoë\n")
        ok("import", "Tag", "more.csv")
        json = try JSONSerialization.jsonObject(with: Data(ok("imports", "--format", "json").utf8)) as! [[String: Any]]
        XCTAssertTrue(json[0]["encoding"] is NSNull)
        XCTAssertEqual(json[1]["encoding"] as? String, "utf-8")
    }
}
