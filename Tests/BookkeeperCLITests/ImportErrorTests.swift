import Foundation
import XCTest
import TestSupport

/// Every import error: its message (place, problem, remedy), its exit status, and a store left as it was.
class ImportErrorTests: ImportTestCase {
    /// Runs an import that must fail with `status` and leave the store unchanged; returns stderr.
    func fails(_ status: Int32, _ args: String..., file: StaticString = #filePath, line: UInt = #line) throws -> String {
        let before = try contents()
        let r = bk(args)
        XCTAssertEqual(r.status, status, "\(r)", file: file, line: line)
        XCTAssertEqual(try contents(), before, "the store is left exactly as it was", file: file, line: line)
        return r.stderr
    }

    let nothing = "bookkeeper: nothing was imported: the whole file is one transaction (--on-error skip imports the good records and writes the bad ones to --rejects)\n"

    func testABadValueNamesFileLineColumnAndFormat() throws {
        ok("init")
        csv("o.csv", "number,date,made\nA-1,2024-02-01,yes\nA-2,31/02/2024,no\nA-3,2024-02-03,maybe\n")
        XCTAssertEqual(try fails(65, "import", "Order", "o.csv"), """
            bookkeeper: o.csv:3:5: column "date": "31/02/2024" is not a date in format %Y-%m-%d
            bookkeeper: o.csv:4:16: column "made": "maybe" is not a boolean (expected yes/no, true/false, y/n or 1/0)

            """ + nothing)
        XCTAssertEqual(try fails(65, "import", "Order", "o.csv", "--date-format", "%d/%m/%Y").split(separator: "\n").first,
                       "bookkeeper: o.csv:2:5: column \"date\": \"2024-02-01\" is not a date in format %d/%m/%Y")
    }

    /// Issue 24: with %Y%m%d, `2024113` was imported as 2024-11-03 (a writer that drops zeros writes 2024-01-13 so).
    func testADayOfOneDigitBetweenDigitsWasReadAsAnotherDate() throws {
        ok("init")
        csv("a.csv", "number,date\nA-1,20241103\n")
        ok("import", "Order", "a.csv", "--date-format", "%Y%m%d", "--quiet")
        XCTAssertEqual(try query("SELECT \"date\" FROM \"Order\""), ["2024-11-03"])
        csv("o.csv", "number,date\nA-2,20241104\nA-3,2024113\n")
        XCTAssertEqual(try fails(65, "import", "Order", "o.csv", "--date-format", "%Y%m%d"), """
            bookkeeper: o.csv:3:5: column "date": "2024113" is not a date in format %Y%m%d

            """ + nothing)
    }

    func testPhysicalLinesCountLineBreaksInsideQuotesAndRecordsAreNamed() throws {
        ok("init")
        csv("c.csv", "name,info\n\"Acme\",\"two\nlines\"\nBolt,x\n\"Cog\",\"\"\n")
        ok("import", "Customer", "c.csv")
        csv("o.csv", "number,date\nA-1,\"multi\nline\"\nA-2,bad\n")
        XCTAssertEqual(try fails(65, "import", "Order", "o.csv"), """
            bookkeeper: o.csv:2:5: column "date": "multi\\nline" is not a date in format %Y-%m-%d
            bookkeeper: o.csv:4:5: column "date": "bad" is not a date in format %Y-%m-%d (record 3)

            """ + nothing)
    }

    func testTheFirstTwentyErrorsThenACount() throws {
        ok("init")
        csv("o.csv", "number,date\n" + (1...25).map { "A-\($0),x\n" }.joined())
        let lines = try fails(65, "import", "Order", "o.csv").split(separator: "\n")
        XCTAssertEqual(lines.count, 22)
        XCTAssertEqual(lines[19], "bookkeeper: o.csv:21:6: column \"date\": \"x\" is not a date in format %Y-%m-%d")
        XCTAssertEqual(lines[20], "bookkeeper: … and 5 more errors (25 in all)")
    }

    func testAWrongFieldCountNamesTheLineAndBothCounts() throws {
        ok("init")
        csv("t.csv", "name,x\nvip,1\nretail\nwholesale,2,3\n")
        XCTAssertEqual(try fails(65, "import", "Tag", "t.csv", "--ignore-unknown"), """
            bookkeeper: t.csv:3: 1 field, but the header has 2
            bookkeeper: t.csv:4: 3 fields, but the header has 2

            """ + nothing)
    }

    func testBytesThatAreNotUTF8SuggestAnEncoding() throws {
        ok("init")
        try Data(Array("name\nvip\nCaf".utf8) + [0x96] + Array("\n".utf8)).write(to: URL(fileURLWithPath: dir.file("t.csv")))
        XCTAssertEqual(try fails(65, "import", "Tag", "t.csv", "--encoding", "utf-8"),
                       "bookkeeper: t.csv:3: bytes 0x96 at offset 12 are not UTF-8 — try --encoding windows-1252\nbookkeeper: nothing was imported\n")
        // `Caf–` in Windows-1252 is `Cafû` in CP850: auto names both.
        XCTAssertEqual(try fails(65, "import", "Tag", "t.csv"),
                       "bookkeeper: t.csv: not UTF-8; the text looks like Windows-1252 (Western European) or CP850 (Western European, DOS) — give --encoding\n")
        ok("import", "Tag", "t.csv", "--encoding", "windows-1252")
        XCTAssertEqual(try query("SELECT name FROM \"Tag\" ORDER BY id"), ["vip", "Caf–"])
    }

    func testAnUnterminatedQuote() throws {
        ok("init")
        csv("t.csv", "name\nvip\n\"open\n")
        XCTAssertEqual(try fails(65, "import", "Tag", "t.csv"),
                       "bookkeeper: t.csv:3:1: quoted field begins here but is never closed — is a quote unbalanced?\nbookkeeper: nothing was imported\n")
    }

    func testAHeaderlessFileWhoseFirstLineIsAHeader() throws {
        ok("init")
        dir.write("p.yaml", "columns: [number, date]\n")
        csv("o.csv", "Number,Date\nA-1,2024-01-01\n")
        XCTAssertEqual(try fails(65, "import", "Order", "o.csv", "--profile", "p.yaml"), """
            bookkeeper: o.csv:1:8: column "date": "Date" is not a date in format %Y-%m-%d — is line 1 a header the mapping does not know?

            """ + nothing)
        csv("h.csv", "A-1,2024-01-01\n")
        XCTAssertEqual(try fails(65, "import", "Order", "h.csv"), """
            bookkeeper: h.csv:1: column "A-1" maps to nothing on Order
            bookkeeper: h.csv:1: column "2024-01-01" maps to nothing on Order
            bookkeeper: h.csv:1: map such columns with --map "COLUMN=keypath" (or --map "COLUMN=" to ignore one), or pass --ignore-unknown; key paths of Order: number, date, made, paid, customer, rows.quantity, rows.price, rows.sum, rows.service
            bookkeeper: h.csv:1: no column name is a key path of Order — is line 1 a header? (a profile's `columns:` names the columns of a file without one)

            """)
    }

    func testAnEmptyFile() throws {
        ok("init")
        csv("e.csv", "")
        XCTAssertEqual(try fails(65, "import", "Tag", "e.csv"), "bookkeeper: e.csv: the file is empty — expected a header line naming the columns\n")
    }

    func testValidationErrorsPointAtTheColumn() throws {
        ok("init")
        ok("import", "Customer", csv("c.csv", "name,code\nAcme,C1\n"))
        csv("d.csv", "name,code\nBolt,C1\n")
        XCTAssertEqual(try fails(65, "import", "Customer", "d.csv"),
                       "bookkeeper: d.csv:2:6: column \"code\": Customer.code \"C1\" already exists (Customer/1)\n" + nothing)
        csv("r.csv", "number,rows.service,rows.sum,rows.price\nA-1,S,,\n")
        XCTAssertEqual(try fails(65, "import", "Order", "r.csv", "--create-missing"),
                       "bookkeeper: r.csv:2:7: column \"rows.sum\": OrderRow.sum is required\n" + nothing)
        csv("k.csv", "name,info\n,x\n")
        XCTAssertEqual(try fails(65, "import", "Customer", "k.csv"), "bookkeeper: k.csv:2:1: column \"name\": Customer.name is required\n" + nothing)
    }

    func testInputAndOutputProblemsHaveTheirStatus() throws {
        ok("init")
        XCTAssertEqual(try fails(66, "import", "Tag", "missing.csv"), "bookkeeper: missing.csv: no such file\n")
        XCTAssertEqual(try fails(66, "import", "Tag", csv("t.csv", "name\nx\n"), "--profile", "none.yaml"), "bookkeeper: none.yaml: no such profile\n")
        XCTAssertEqual(try fails(73, "import", "Tag", "t.csv", "--on-error", "skip", "--rejects", "nodir/r.csv"),
                       "bookkeeper: nodir/r.csv: cannot create (No such file or directory)\n")
        XCTAssertEqual(try fails(64, "import", "Tga", "t.csv"), "bookkeeper: unknown entity \"Tga\" — did you mean \"Tag\"?\n")
        XCTAssertEqual(try fails(64, "import", "Tag", "t.csv", "--rejects", "r.csv"),
                       "bookkeeper: --rejects needs --on-error skip (with abort, nothing is imported and nothing rejected)\n")
        let noStore = runCLI(["--store", dir.file("none.sqlite"), "import", "Tag", "t.csv"], in: dir.path)
        XCTAssertEqual(noStore.status, 66)
    }

    func testABadProfileIsABadConfiguration() throws {
        ok("init")
        csv("t.csv", "name\nx\n")
        dir.write("p.yaml", "entity: Tag\ndelimeter: \";\"\n")
        XCTAssertEqual(try fails(78, "import", "Tag", "t.csv", "--profile", "p.yaml"),
                       "bookkeeper: p.yaml:2:1: unknown option \"delimeter\" — did you mean \"delimiter\"?\n")
        dir.write("q.yaml", "encoding: windows-1215\n")
        XCTAssertEqual(try fails(78, "import", "Tag", "t.csv", "--profile", "q.yaml"),
                       "bookkeeper: q.yaml: unknown encoding \"windows-1215\" — did you mean \"windows-1251\"?; accepted: auto, utf-8, utf-16 and utf-32 (le, be), windows-1250…1258, iso-8859-1…16, koi8-r, koi8-u, cp866, cp850, mac-roman, shift_jis, euc-jp, gb18030, big5, euc-kr\n")
        XCTAssertEqual(try fails(64, "import", "Tag", "t.csv", "--encoding", "windows-1215"),
                       "bookkeeper: unknown encoding \"windows-1215\" — did you mean \"windows-1251\"?; accepted: auto, utf-8, utf-16 and utf-32 (le, be), windows-1250…1258, iso-8859-1…16, koi8-r, koi8-u, cp866, cp850, mac-roman, shift_jis, euc-jp, gb18030, big5, euc-kr\n")
        XCTAssertTrue(try fails(64, "import", "Tag", "t.csv", "--encoding", "EBCDIC-US").hasPrefix("bookkeeper: encoding \"EBCDIC-US\" is not accepted: EBCDIC"))
        dir.write("m.yaml", "map:\n  name: nmae\n")
        XCTAssertEqual(try fails(78, "import", "Tag", "t.csv", "--profile", "m.yaml"),
                       "bookkeeper: m.yaml: --map \"name=nmae\": \"nmae\" names nothing on Tag — did you mean \"name\"?\n")
        dir.write("e.yaml", "entity: Customer\n")
        XCTAssertEqual(try fails(64, "import", "Tag", "t.csv", "--profile", "e.yaml"), "bookkeeper: e.yaml: the profile is for Customer, not Tag\n")
    }

    func testTheCommandLineOverridesAProfile() throws {
        ok("init")
        dir.write("p.yaml", "delimiter: \";\"\nmap:\n  Kunde: name\n")
        csv("c.csv", "Kunde,Code\nAcme,C1\n")
        XCTAssertEqual(bk("import", "Customer", "c.csv", "--profile", "p.yaml").stderr.split(separator: "\n").first,
                       "bookkeeper: p.yaml: --map \"Kunde=name\": the file has no column \"Kunde\"",
                       "; does not split this file")
        ok("import", "Customer", "c.csv", "--profile", "p.yaml", "--delimiter", ",")
        XCTAssertEqual(try query("SELECT name || ' ' || code FROM \"Customer\""), ["Acme C1"])
    }

    // MARK: --on-error skip

    func testSkipCommitsTheGoodRecordsAndWritesRejects() throws {
        ok("init")
        csv("c.csv", "name,code,tags\nAcme,C1,\nBolt,C1,\n\"Cog\nWheel\",C2,nope\nDyn,C3,\n")
        let r = bk("import", "Customer", "c.csv", "--on-error", "skip", "--rejects", "rejects.csv")
        XCTAssertEqual(r.status, 65, "records were rejected")
        XCTAssertEqual(counts(r.stdout, "Customer"), "2 inserted, 0 updated, 0 unchanged, 2 rejected")
        XCTAssertTrue(r.stdout.contains("2 rejected lines written to rejects.csv"), r.stdout)
        XCTAssertEqual(r.stderr, """
            bookkeeper: c.csv:3:6: column "code": Customer.code "C1" already exists (Customer/1, written earlier in this batch)
            bookkeeper: c.csv:5:11: column "tags": Tag with name "nope" not found (--create-missing creates it) (record 4)
            bookkeeper: 2 records rejected (written to rejects.csv); the others were imported

            """)
        XCTAssertEqual(try query("SELECT name FROM \"Customer\" ORDER BY id"), ["Acme", "Dyn"])
        XCTAssertEqual(try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8), """
            name,code,tags,reason
            Bolt,C1,,"column ""code"": Customer.code ""C1"" already exists (Customer/1, written earlier in this batch)"
            "Cog
            Wheel",C2,nope,"column ""tags"": Tag with name ""nope"" not found (--create-missing creates it)"

            """)
        // Fixed, the rejects import with the reason column mapped away.
        try String(contentsOfFile: dir.file("rejects.csv"), encoding: .utf8).replacingOccurrences(of: "nope", with: "")
            .replacingOccurrences(of: "Bolt,C1", with: "Bolt,C9").write(toFile: dir.file("fixed.csv"), atomically: true, encoding: .utf8)
        ok("import", "Customer", "fixed.csv", "--map", "reason=")
        XCTAssertEqual(try query("SELECT count(*) FROM \"Customer\""), ["4"])
    }

    func testSkipRejectsAWholeDocumentWithAllItsLines() throws {
        ok("init")
        csv("o.csv", """
            number,date,rows.service,rows.sum
            A-1,2024-01-01,S1,1.00
            A-1,2024-01-01,S1,x
            B-1,2024-01-01,S1,2.00

            """)
        let r = bk("import", "Order", "o.csv", "--on-error", "skip", "--rejects", "r.csv", "--create-missing")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(counts(r.stdout, "Order"), "1 inserted, 0 updated, 0 unchanged, 1 rejected")
        XCTAssertEqual(counts(r.stdout, "OrderRow"), "1 inserted, 0 updated, 0 unchanged, 0 deleted, 2 rejected")
        XCTAssertTrue(r.stdout.contains("2 rejected lines written to r.csv"), r.stdout)
        XCTAssertEqual(r.stderr.split(separator: "\n").last, "bookkeeper: 2 records rejected (written to r.csv); the others were imported")
        XCTAssertEqual(try query("SELECT number FROM \"Order\""), ["B-1"])
        XCTAssertEqual(try String(contentsOfFile: dir.file("r.csv"), encoding: .utf8), """
            number,date,rows.service,rows.sum,reason
            A-1,2024-01-01,S1,1.00,"rejected with Order ""A-1"" (line 3: column ""rows.sum"": ""x"" is not a decimal number)"
            A-1,2024-01-01,S1,x,"column ""rows.sum"": ""x"" is not a decimal number"

            """)
        XCTAssertEqual(try query("SELECT count(*) FROM \"Service\""), ["1"])
    }

    /// A record that would break a rule holding a value is rejected alone under --on-error skip, the others kept: the
    /// rule's check bound the record's ID in the value's place, so it rejected nothing and the end of the import
    /// refused the whole file.
    func testSkipRejectsARecordThatBreaksARuleAlone() throws {
        dir.write("model.yaml", "entities:\n  Tag:\n    rules:\n      - { where: \"name != 'forbidden'\", message: \"no forbidden tags\" }\n")
        ok("--model", "model.yaml", "init")
        csv("t.csv", "name\nok1\nforbidden\nok2\n")
        let r = bk("import", "Tag", "t.csv", "--on-error", "skip", "--rejects", "r.csv")
        XCTAssertEqual(r.status, 65, "\(r)")
        XCTAssertEqual(r.stderr, "bookkeeper: t.csv:3: no forbidden tags\nbookkeeper: 1 record rejected (written to r.csv); the others were imported\n")
        XCTAssertEqual(try query("SELECT name FROM \"Tag\" ORDER BY id"), ["ok1", "ok2"])
        XCTAssertEqual(try String(contentsOfFile: dir.file("r.csv"), encoding: .utf8), "name,reason\nforbidden,no forbidden tags\n")
    }

    func testSkipWithoutRejectsAndNothingToReject() throws {
        ok("init")
        let r = bk("import", "Tag", csv("t.csv", "name\nvip\n"), "--on-error", "skip", "--rejects", "r.csv")
        XCTAssertEqual(r.status, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("r.csv")), "no rejects, no file")
        let s = bk("import", "Tag", csv("u.csv", "name\n\"\"\nretail\n"), "--on-error", "skip")
        XCTAssertEqual(s.status, 65)
        XCTAssertEqual(s.stderr, "bookkeeper: u.csv:2:1: column \"name\": Tag.name is required\nbookkeeper: 1 record rejected; the others were imported\n")
    }
}

final class ImportErrorTestsOnPostgreSQL: ImportErrorTests {
    override class var storeKind: StoreKind { .postgresql }
    override func testABadValueNamesFileLineColumnAndFormat() throws { try super.testABadValueNamesFileLineColumnAndFormat() }
    override func testADayOfOneDigitBetweenDigitsWasReadAsAnotherDate() throws { try super.testADayOfOneDigitBetweenDigitsWasReadAsAnotherDate() }
    override func testPhysicalLinesCountLineBreaksInsideQuotesAndRecordsAreNamed() throws { try super.testPhysicalLinesCountLineBreaksInsideQuotesAndRecordsAreNamed() }
    override func testTheFirstTwentyErrorsThenACount() throws { try super.testTheFirstTwentyErrorsThenACount() }
    override func testAWrongFieldCountNamesTheLineAndBothCounts() throws { try super.testAWrongFieldCountNamesTheLineAndBothCounts() }
    override func testBytesThatAreNotUTF8SuggestAnEncoding() throws { try super.testBytesThatAreNotUTF8SuggestAnEncoding() }
    override func testAnUnterminatedQuote() throws { try super.testAnUnterminatedQuote() }
    override func testAHeaderlessFileWhoseFirstLineIsAHeader() throws { try super.testAHeaderlessFileWhoseFirstLineIsAHeader() }
    override func testAnEmptyFile() throws { try super.testAnEmptyFile() }
    override func testValidationErrorsPointAtTheColumn() throws { try super.testValidationErrorsPointAtTheColumn() }
    override func testInputAndOutputProblemsHaveTheirStatus() throws { try super.testInputAndOutputProblemsHaveTheirStatus() }
    override func testABadProfileIsABadConfiguration() throws { try super.testABadProfileIsABadConfiguration() }
    override func testTheCommandLineOverridesAProfile() throws { try super.testTheCommandLineOverridesAProfile() }
    override func testSkipCommitsTheGoodRecordsAndWritesRejects() throws { try super.testSkipCommitsTheGoodRecordsAndWritesRejects() }
    override func testSkipRejectsAWholeDocumentWithAllItsLines() throws { try super.testSkipRejectsAWholeDocumentWithAllItsLines() }
    override func testSkipWithoutRejectsAndNothingToReject() throws { try super.testSkipWithoutRejectsAndNothingToReject() }
    override func testSkipRejectsARecordThatBreaksARuleAlone() throws { try super.testSkipRejectsARecordThatBreaksARuleAlone() }
}

/// What only an import into a store file has: a killed import's write-ahead log, rolled back by the next opening.
final class ImportErrorFileTests: ImportTestCase {
    func testAnImportKilledMidwayLeavesTheStoreAsItWas() throws {
        importSampleData()
        let before = try contents()
        // A file big enough that the import is still writing when it is killed.
        var text = "number,date,customer,rows.service,rows.sum\n"
        for i in 0..<300_000 { text += "K\(i / 3),2024-01-01,Acme Ltd,Delivery,\(i % 1000).25\n" }
        csv("big.csv", text)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: bookkeeperBinary)
        process.arguments = ["--store", store, "import", "Order", dir.file("big.csv"), "--quiet"]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        // Wait until it has written to the write-ahead log (pages of the open transaction), then kill it.
        let wal = store + "-wal"
        var walSize = 0
        while process.isRunning && walSize < 1 << 20 {
            usleep(2000)
            walSize = ((try? FileManager.default.attributesOfItem(atPath: wal))?[.size] as? Int) ?? 0
        }
        XCTAssertTrue(process.isRunning, "the import finished before it could be killed; make the file bigger")
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        XCTAssertEqual(process.terminationReason, .uncaughtSignal)
        XCTAssertEqual(try contents(), before)
        XCTAssertEqual(try query("PRAGMA integrity_check"), ["ok"])
        XCTAssertEqual(ok("imports").split(separator: "\n").count, 6, "the killed import is not in the history")
    }
}
