// Issue 25, "Round trips are exact": a list item with a comma, a quote or a space at an end reads back as
// itself; dates a spreadsheet would read a day early are text in XLSX; and a double that is not finite —
// stored by another tool, or a total or sum that overflows — is refused the same way by every output, and
// never stored by bookkeeper. The property over random stores is ReliabilityRoundTripTests.

import Foundation
import TestSupport
import XCTest

final class RoundTripExactTests: ImportTestCase {
    /// Tags with awkward names, a customer holding them all, exported and imported into a new store.
    private func roundTrip(tags: [String], file: StaticString = #filePath, line: UInt = #line) throws -> (export: String, copy: String) {
        ok("init", "--quiet")
        csv("tags.csv", "name\n" + tags.map { csvField($0) + "\n" }.joined())
        ok("import", "Tag", "tags.csv", "--quiet")
        ok("add", "Customer", "name=C")
        try executeSQL(store, "INSERT INTO Customer_tags SELECT 1, id FROM Tag")
        XCTAssertEqual(try query("SELECT count(*) FROM Customer_tags"), ["\(tags.count)"], file: file, line: line)
        let exported = ok("export", "Customer", "customers.csv")
        _ = exported
        ok("export", "Tag", "tags-out.csv")
        let copy = dir.file("copy.sqlite")
        for args in [["init", "--quiet"], ["import", "Tag", "tags-out.csv", "--quiet"], ["import", "Customer", "customers.csv", "--quiet"]] {
            let r = runCLI(["--store", copy] + args, in: dir.path)
            XCTAssertEqual(r.status, 0, "\(args): \(r)", file: file, line: line)
        }
        let names = "SELECT group_concat(name, '|') FROM (SELECT t.name FROM Customer_tags j JOIN Tag t ON t.id = j.Tag_id ORDER BY t.name)"
        XCTAssertEqual(try queryStore(copy, names), try queryStore(store, names), "the same tags, each one item", file: file, line: line)
        let again = runCLI(["--store", copy, "export", "Customer"], in: dir.path).stdout
        XCTAssertEqual(again, try String(contentsOfFile: dir.file("customers.csv"), encoding: .utf8), file: file, line: line)
        return (try String(contentsOfFile: dir.file("customers.csv"), encoding: .utf8), copy)
    }

    func testAListItemWithACommaRoundTripsAsOneItem() throws {
        let (export, copy) = try roundTrip(tags: ["x, y", "z"])
        // The old export wrote `x, y, z`, which imported as three keys (and failed: no tag "x").
        XCTAssertEqual(export, "name,code,info,tags\nC,,,\"\"\"x, y\"\", z\"\n")
        XCTAssertEqual(try queryStore(copy, "SELECT count(*) FROM Customer_tags"), ["2"])
    }

    func testAListItemWithALeadingSpaceRoundTrips() throws {
        let tags = [" lead", "trail ", "say \"hi\"", "line\nfeed", "\"", "a,b,c", "semi;colon", "\u{A0}nbsp", "é\u{301}"]
        let (export, _) = try roundTrip(tags: tags)
        XCTAssertTrue(export.contains("\"\" lead\"\""), export)
    }

    /// Plain keys are written as they always were, and a file written by hand in the old form still imports.
    func testAPlainListExportsAsBeforeAndBothFormsImport() throws {
        ok("init", "--quiet")
        csv("tags.csv", "name\na\nb\nc\n\"x, y\"\n")
        ok("import", "Tag", "tags.csv", "--quiet")
        csv("c.csv", "name,tags\nP,\"a, b,c\"\nQ,\" a ,, b ,\"\nR,\"\"\"x, y\"\" , c\"\n")
        ok("import", "Customer", "c.csv", "--quiet")
        XCTAssertEqual(ok("export", "Customer"), "name,code,info,tags\nP,,,\"a, b, c\"\nQ,,,\"a, b\"\nR,,,\"c, \"\"x, y\"\"\"\n")
    }

    func testAMalformedQuotedListIsAnErrorNamingItsPlaceAndValue() throws {
        ok("init", "--quiet")
        csv("tags.csv", "name\n\"x, y\"\nz\n")
        ok("import", "Tag", "tags.csv", "--quiet")
        csv("c.csv", "name,tags\nP,z\nQ,\"\"\"x, y, z\"\n")
        let r = bk("import", "Customer", "c.csv")
        XCTAssertEqual(r.status, 65)
        XCTAssertEqual(r.stderr.split(separator: "\n").first.map(String.init),
                       "bookkeeper: c.csv:3:3: column \"tags\": \"\"x, y, z\" is not a list of keys: the quote that opens item 1 (at "
                       + "character 1) is not closed — an item in quotes ends with a quote, and a quote inside it is written twice (\"\")")
        XCTAssertEqual(try query("SELECT count(*) FROM Customer"), ["0"], "nothing committed")
        csv("d.csv", "name,tags\nQ,\"\"\"x, y\"\"z\"\n")
        let after = bk("import", "Customer", "d.csv")
        XCTAssertEqual(after.status, 65)
        XCTAssertTrue(after.stderr.hasPrefix("bookkeeper: d.csv:2:3: column \"tags\": \"\"x, y\"z\" is not a list of keys: text follows the quote"), after.stderr)
    }

    /// Found by the round-trip property: `export` wrote -9223372036854775808 and `import` refused it.
    func testTheSmallestIntegerRoundTrips() throws {
        dir.write("model.yaml", "entities:\n  Item:\n    kind: directory\n    attributes:\n      name: { type: string, required: true }\n      n: { type: integer }\n")
        ok("init", "--quiet")
        ok("add", "Item", "name=min", "n=-9223372036854775808")
        ok("add", "Item", "name=max", "n=9223372036854775807")
        ok("export", "Item", "items.csv")
        try executeSQL(store, "DELETE FROM Item")
        ok("import", "Item", "items.csv", "--quiet")
        XCTAssertEqual(try query("SELECT group_concat(n) FROM (SELECT n FROM Item ORDER BY id)"), ["-9223372036854775808,9223372036854775807"])
        csv("over.csv", "name,n\nx,-9223372036854775809\n")
        XCTAssertEqual(bk("import", "Item", "over.csv").status, 65)
    }

    // MARK: XLSX dates

    func testDatesBeforeMarch1900AreTextInXLSX() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        dir.write("model.yaml", "entities:\n  Order:\n    attributes:\n      stamp: { type: datetime }\n")
        ok("init", "--quiet")
        csv("o.csv", """
            number,date,stamp
            A,1899-12-31,1899-12-31T12:00:00Z
            B,1900-01-01,1900-01-01T00:00:00Z
            C,1900-02-28,1900-02-28T23:59:59Z
            D,1900-03-01,1900-03-01T00:00:00Z
            E,2024-03-01,2024-03-01T12:00:00+02:00

            """)
        ok("import", "Order", "o.csv", "--quiet")
        dir.write("dates.yaml", """
            title: Dates
            entity: Order
            sort: number
            columns:
              - { key: number, title: Number }
              - { key: date, title: Date }
              - { key: stamp, title: Stamp }

            """)
        let r = runCLI(["--store", store, "report", "dates.yaml", "--format", "xlsx", "--output", "dates.xlsx"], in: dir.path,
                       environment: ["TZ": "UTC", "BOOKKEEPER_TODAY": "2026-11-21"])
        XCTAssertEqual(r.status, 0, "\(r)")
        let book = try OpenpyxlWorkbook(path: dir.file("dates.xlsx"))
        let sheet = book.sheetNames.first!
        // Serials 1…59 (January and February 1900) read a day early in LibreOffice, which has no 1900-02-29.
        book.assertCell(sheet, "B2", type: "str", value: "1899-12-31")
        book.assertCell(sheet, "B3", type: "str", value: "1900-01-01")
        book.assertCell(sheet, "B4", type: "str", value: "1900-02-28")
        book.assertCell(sheet, "B5", type: "datetime", value: "1900-03-01T00:00:00")
        book.assertCell(sheet, "B6", type: "datetime", value: "2024-03-01T00:00:00")
        book.assertCell(sheet, "C3", type: "str", value: "1900-01-01 00:00")
        book.assertCell(sheet, "C4", type: "str", value: "1900-02-28 23:59")
        book.assertCell(sheet, "C5", type: "datetime", value: "1900-03-01T00:00:00")
        book.assertCell(sheet, "C6", type: "datetime", value: "2024-03-01T10:00:00")
        let about = book.cells("About").values.compactMap { $0["value"] as? String }
        XCTAssertTrue(about.contains("Dates as text"), "\(about)")
        XCTAssertTrue(about.contains { $0.hasPrefix("6 dates are before 1900-03-01 (or after 9999) and written as text (YYYY-MM-DD), first in B2") }, "\(about)")

        // And LibreOffice shows what was meant (it showed 1900-02-27 for a date cell of 1900-02-28).
        let soffice = "/usr/bin/soffice"
        guard FileManager.default.isExecutableFile(atPath: soffice) else { return }
        let converted = try runTool([soffice, "-env:UserInstallation=file://\(dir.file("profile"))", "--headless", "--convert-to", "csv",
                                     "--outdir", dir.file("csv"), dir.file("dates.xlsx")])
        XCTAssertEqual(converted.status, 0, converted.error)
        let shown = try String(contentsOfFile: dir.file("csv/dates.csv"), encoding: .utf8)
        XCTAssertTrue(shown.contains("C,1900-02-28,1900-02-28 23:59"), shown)
        XCTAssertTrue(shown.contains("B,1900-01-01,1900-01-01 00:00"), shown)
    }

    // MARK: Doubles that are not finite

    private func itemStore() {
        dir.write("model.yaml", """
            entities:
              Item:
                kind: directory
                attributes:
                  name: { type: string, required: true }
                  weight: { type: double }
                relationships:
                  box: { to: Box, inverse: items, delete: nullify }
              Box:
                kind: directory
                attributes:
                  name: { type: string, required: true }

            """)
        dir.write("items.yaml", """
            title: Items
            entity: Item
            sort: name
            columns:
              - { key: name, title: Name }
              - { key: weight, title: Weight }
            totals: [Weight]

            """)
        ok("init", "--quiet")
    }

    func testAnOverflowingDoubleTotalIsAnErrorNamingTheColumn() throws {
        itemStore()
        ok("add", "Item", "name=a", "weight=1.7976931348623157e308")
        ok("add", "Item", "name=b", "weight=1e308")
        for format in ["text", "json", "csv", "xlsx"] {
            let output = "items.\(format)"
            dir.write(output, "yesterday's report")
            let r = bk("report", "items.yaml", "--format", format, "--output", output)
            XCTAssertEqual(r.status, 65, format)
            XCTAssertEqual(r.stderr, "bookkeeper: \(output): the total of column \"Weight\" overflows a double "
                           + "(±1.7976931348623157e+308) as its values are added up, and is not written as a number\n", format)
            XCTAssertEqual(try String(contentsOfFile: dir.file(output), encoding: .utf8), "yesterday's report", "\(format): not replaced")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasPrefix(".") || $0.contains("tmp") }, [],
                       "no temporary file left")
        // A sum the store computes (fetch, a report's aggregate column) is refused the same way.
        let sum = bk("fetch", "Item", "--columns", "sum:weight")
        XCTAssertEqual(sum.status, 65)
        XCTAssertEqual(sum.stderr, "bookkeeper: column \"sum:weight\" overflows a double (±1.7976931348623157e+308) "
                       + "as its values are added up, and is not written as a number\n")
        ok("add", "Box", "name=B", "items=a,b")
        dir.write("boxes.yaml", "title: Boxes\nentity: Box\ncolumns:\n  - { key: name, title: Box }\n  - { key: items.@sum.weight, title: Weight }\n")
        let aggregate = bk("report", "boxes.yaml", "--format", "csv", "--output", "boxes.csv")
        XCTAssertEqual(aggregate.status, 65)
        XCTAssertEqual(aggregate.stderr, "bookkeeper: boxes.csv: column \"Weight\" overflows a double (±1.7976931348623157e+308) "
                       + "as its values are added up, and is not written as a number\n")
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("boxes.csv")))
        // Within range, the same report runs.
        ok("set", "Item", "a", "weight=1.5")
        XCTAssertTrue(ok("report", "items.yaml", "--format", "json").contains("\"totals\": {\"Weight\": 100000000000000000000000000000000000000000"))
    }

    func testANonFiniteDoubleInTheStoreIsOneRefusalInEveryOutput() throws {
        itemStore()
        ok("add", "Box", "name=B")
        ok("add", "Item", "name=a", "weight=1.5", "box=B")
        ok("add", "Item", "name=b", "weight=2", "box=B")
        // Another tool writes an infinity (SQLite reads 9e999 as +∞; a NaN it would store as NULL).
        try executeSQL(store, "UPDATE Item SET weight = -9e999 WHERE name = 'b'")
        let message = "bookkeeper: Item/2.weight: the store holds a non-finite number (-inf), which no output can write — another "
            + "tool wrote it; run `bookkeeper check` to list every such value, and set each to a number\n"
        var outputs: [[String]] = [["list", "Item"], ["show", "Item", "b"], ["export", "Item"], ["export", "Item", "items.csv"],
                                   ["fetch", "Item"], ["fetch", "Item", "--format", "json"], ["fetch", "Item", "--format", "csv"],
                                   ["fetch", "Box", "--columns", "name, items.@sum.weight"], ["fetch", "Item", "--columns", "box.name, weight"],
                                   ["fetch", "Item", "--group", "box.name", "--columns", "box.name, avg:weight"]]
        for format in ["text", "json", "csv", "xlsx"] {
            outputs.append(["report", "items.yaml", "--format", format, "--output", "items.\(format)"])
            outputs.append(["report", "items.yaml", "--format", format])
        }
        for args in outputs {
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            // An export streams to standard output: the lines before the object went out, and it says so (it said
            // nothing, and `export | gzip` kept a short file).
            let expected = args == ["export", "Item"]
                ? String(message.dropLast()) + " — the output is incomplete: the header and the 1 line before it went to standard output\n"
                : message
            XCTAssertEqual(r.stderr, expected, "\(args)")
            XCTAssertFalse(r.stdout.lowercased().contains("inf") || r.stdout.contains("\"Weight\": null"), "\(args): \(r.stdout)")
        }
        for format in ["text", "json", "csv", "xlsx"] {
            XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("items.\(format)")), format)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("items.csv")))
        // An output that does not read the value still runs, and the value can be set right.
        ok("show", "Item", "a")
        ok("fetch", "Item", "--where", "name == 'a'")
        ok("set", "Item", "b", "weight=2.5")
        XCTAssertTrue(ok("export", "Item").hasSuffix("b,2.5,B\n"))
    }

    func testNonFiniteDoublesAreNeverStored() throws {
        itemStore()
        for text in ["1e999", "-1e999", "inf", "-inf", "Infinity", "-Infinity", "nan", "NaN"] {
            let added = bk("add", "Item", "name=x", "weight=\(text)")
            XCTAssertEqual(added.status, 65, text)
            XCTAssertEqual(added.stderr, "bookkeeper: Item.weight: \"\(text)\" is not a finite number (a double holds at most "
                           + "±1.7976931348623157e+308; infinities and NaN are not stored)\n", text)
        }
        ok("add", "Item", "name=y", "weight=1")
        for text in ["1e999", "-Infinity", "nan"] {
            let set = bk("set", "Item", "y", "weight=\(text)")
            XCTAssertEqual(set.status, 65, text)
            XCTAssertTrue(set.stderr.hasPrefix("bookkeeper: Item.weight: \"\(text)\" is not a finite number"), set.stderr)
        }
        csv("i.csv", "name,weight\np,1e999\nq,inf\nr,nan\ns,-Infinity\nt,1.5\n")
        let imported = bk("import", "Item", "i.csv")
        XCTAssertEqual(imported.status, 65)
        XCTAssertEqual(imported.stderr.split(separator: "\n").prefix(4).map(String.init), [
            "bookkeeper: i.csv:2:3: column \"weight\": \"1e999\" is not a finite number (a double holds at most ±1.7976931348623157e+308; infinities and NaN are not stored)",
            "bookkeeper: i.csv:3:3: column \"weight\": \"inf\" is not a finite number (a double holds at most ±1.7976931348623157e+308; infinities and NaN are not stored)",
            "bookkeeper: i.csv:4:3: column \"weight\": \"nan\" is not a finite number (a double holds at most ±1.7976931348623157e+308; infinities and NaN are not stored)",
            "bookkeeper: i.csv:5:3: column \"weight\": \"-Infinity\" is not a finite number (a double holds at most ±1.7976931348623157e+308; infinities and NaN are not stored)",
        ])
        XCTAssertEqual(try query("SELECT count(*) FROM Item WHERE weight IS NULL OR abs(weight) > 1.7976931348623157e308"), ["0"])
        XCTAssertEqual(try query("SELECT group_concat(name) FROM Item"), ["y"], "nothing imported")
        // The largest finite, a subnormal and a negative zero are numbers, and are kept.
        ok("add", "Item", "name=big", "weight=1.7976931348623157e308")
        ok("add", "Item", "name=tiny", "weight=5e-324")
        ok("add", "Item", "name=zero", "weight=-0.0")
        XCTAssertEqual(ok("export", "Item"), "name,weight,box\ny,1,\nbig,1.7976931348623157e+308,\ntiny,5e-324,\nzero,0,\n")
    }
}
