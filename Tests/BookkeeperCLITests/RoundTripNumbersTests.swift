// Issue 25 §1, "Round trips are exact / numbers": a to-many column lists values, not SQLite's storage; a stored
// infinity is refused inside sums, averages and lists too; the largest double never opens as infinity in XLSX;
// a double is written in decimal and never silently becomes 0; the range of a decimal is symmetric.

import Foundation
import TestSupport
import XCTest

final class RoundTripNumbersTests: ImportTestCase {
    private static let itemModel = """
        entities:
          Item:
            kind: directory
            attributes:
              name: { type: string, required: true }
              note: { type: string }
              i:    { type: integer }
              d2:   { type: decimal, scale: 2 }
              d4:   { type: decimal, scale: 4 }
              x:    { type: double }
              b:    { type: boolean }
              day:  { type: date }
              at:   { type: datetime }
          Customer:
            relationships:
              items: { to: Item, many: true, inverse: customers, inverse-many: true }

        """

    private static let listed = ["note", "i", "d2", "d4", "x", "b", "day", "at"]

    // MARK: To-many columns

    /// The items of a to-many column, for random stores, are each object's own value as the same output writes it
    /// in a column of its own (`fetch Item --columns x` in text, CSV or JSON), in the order of the objects, joined as
    /// export joins a list in text and CSV and an array in JSON — in `fetch` and in a report (CSV, JSON). The old SQL
    /// listed SQLite's storage: decimal units, 1/0, doubles to 15 digits, and did not quote an item holding ", "; then
    /// each item was written as `export` writes it, whatever the format: date-times in UTC, booleans `yes`/`no`.
    func testAToManyColumnOfDecimalsShowsValuesNotStorageUnits() throws {
        let trials = Trials.count("BOOKKEEPER_LIST_TRIALS", quick: 3, stress: 25)
        let seed = Trials.seed(fixed: 25_1)
        var random = SeededGenerator(seed: seed)
        dir.write("model.yaml", Self.itemModel)
        dir.write("lists.yaml", "title: Lists\nentity: Customer\nsort: name\ncolumns:\n  - { key: name, title: name }\n"
                  + Self.listed.map { "  - { key: items.\($0), title: \($0) }\n" }.joined())
        for trial in 0..<trials {
            removeStore()
            ok("init", "--quiet")
            let count = 2 + random.next(upTo: 7)
            var lines = ["name," + Self.listed.joined(separator: ",")]
            for n in 0..<count {
                lines.append((["n\(n)"] + Self.listed.map { Self.randomText(for: $0, &random) }).map(csvField).joined(separator: ","))
            }
            csv("items.csv", lines.joined(separator: "\n") + "\n")
            ok("import", "Item", "items.csv", "--quiet")
            var customers = ["name,items"]
            var members: [String: [Int]] = [:]
            for c in 0..<3 {
                let chosen = (0..<count).filter { _ in random.next(upTo: 2) == 0 }
                members["c\(c)"] = chosen
                customers.append("c\(c)," + csvField(chosen.reversed().map { "n\($0)" }.joined(separator: ", ")))
            }
            csv("customers.csv", customers.joined(separator: "\n") + "\n")
            ok("import", "Customer", "customers.csv", "--quiet")
            XCTAssertEqual(try query("SELECT group_concat(name) FROM (SELECT name FROM Item ORDER BY id)"),
                           [(0..<count).map { "n\($0)" }.joined(separator: ",")], "items numbered in file order")

            // Each item's values as the same fetch writes them in a column of their own, in each format.
            let scalarColumns = (["name"] + Self.listed).joined(separator: ", ")
            let scalarCSV = parseCSV(ok("fetch", "Item", "--columns", scalarColumns, "--format", "csv"))
            var csvValues: [String: [String: String]] = [:]
            for row in scalarCSV.dropFirst() { csvValues[row[0]] = Dictionary(uniqueKeysWithValues: zip(scalarCSV[0], row)) }
            let scalarJSON = try JSONSerialization.jsonObject(with: Data(ok("fetch", "Item", "--columns", scalarColumns, "--format", "json").utf8),
                                                              options: .fragmentsAllowed) as! [[String: Any]]
            var jsonValues: [String: [String: Any]] = [:]
            for object in scalarJSON { jsonValues[object["name"] as! String] = object }
            // The text table, cut at its columns (the dashes under the header): booleans and date-times read otherwise there.
            var textValues = csvValues
            let table = ok("fetch", "Item", "--columns", "name, b, at").split(separator: "\n").map { Array($0) }
            let dashes = table[1]
            var starts: [Int] = [0]
            for k in 1..<dashes.count where dashes[k] == "-" && dashes[k - 1] == " " { starts.append(k) }
            for line in table.dropFirst(2).dropLast() {
                func field(_ n: Int) -> String {
                    let from = min(starts[n], line.count), to = n + 1 < starts.count ? min(starts[n + 1], line.count) : line.count
                    return String(line[from..<to]).trimmingCharacters(in: .whitespaces)
                }
                textValues[field(0)]!["b"] = field(1)
                textValues[field(0)]!["at"] = field(2)
            }
            func memberNames(_ customer: String) -> [String] { members[customer]!.map { "n\($0)" } }
            func expected(_ customer: String, _ attribute: String, _ values: [String: [String: String]]) -> String {
                Self.joinList(memberNames(customer).map { values[$0]![attribute]! }.filter { !$0.isEmpty })
            }
            let what = "trial \(trial), seed \(seed): \(lines.joined(separator: " | "))"

            let columns = (["name"] + Self.listed.map { "items.\($0)" }).joined(separator: ", ")
            let fetched = parseCSV(ok("fetch", "Customer", "--columns", columns, "--sort", "name", "--format", "csv"))
            let report = parseCSV(ok("report", "lists.yaml", "--format", "csv"))
            for (table, neutralized) in [(fetched, false), (report, true)] {
                XCTAssertEqual(table.count, 4, what)
                for row in table.dropFirst() {
                    for (k, attribute) in Self.listed.enumerated() {
                        // A report's text cell that a spreadsheet would run as a formula has a quote before it; a list of
                        // several is text, a list of one value other than text is that value (CSVRenderer).
                        let want = expected(row[0], attribute, csvValues)
                        let items = memberNames(row[0]).filter { !csvValues[$0]![attribute]!.isEmpty }.count
                        let asText = attribute == "note" || items != 1
                        XCTAssertEqual(row[k + 1], (neutralized && asText && "=+-@".contains(want.first ?? " ") ? "'" : "") + want,
                                       "\(row[0]).items.\(attribute) (CSV), \(what)")
                    }
                }
            }
            // JSON: an array of the values the scalar column holds (NULLs left out), empty for none.
            let json = try JSONSerialization.jsonObject(with: Data(ok("fetch", "Customer", "--columns", columns, "--sort", "name",
                                                                      "--format", "json").utf8)) as! [[String: Any]]
            let reportJSON = try JSONSerialization.jsonObject(with: Data(ok("report", "lists.yaml", "--format", "json").utf8)) as! [String: Any]
            for (objects, prefix) in [(json, "items."), (reportJSON["rows"] as! [[String: Any]], "")] {
                XCTAssertEqual(objects.count, 3, what)
                for object in objects {
                    let name = object["name"] as! String
                    for attribute in Self.listed {
                        let want = memberNames(name).compactMap { jsonValues[$0]![attribute] }.filter { !($0 is NSNull) } as NSArray
                        let got = object[prefix + attribute] as? NSArray
                        XCTAssertEqual(got, want, "\(name).items.\(attribute) (JSON), \(what)")
                    }
                }
            }
            for attribute in Self.listed {
                let lines = ok("fetch", "Customer", "--columns", "items.\(attribute)", "--sort", "name").split(separator: "\n", omittingEmptySubsequences: false)
                let rows = lines.dropFirst(2).prefix(3).map { String($0.reversed().drop { $0 == " " }.reversed()).drop { $0 == " " } }
                XCTAssertEqual(rows.map(String.init), (0..<3).map { expected("c\($0)", attribute, textValues) }, "items.\(attribute) (text), \(what)")
            }
        }
        reportTrials("RoundTripNumbersTests.testAToManyColumnOfDecimalsShowsValuesNotStorageUnits", "\(trials) stores, seed \(seed)")
    }

    // MARK: Infinities inside sums and lists

    /// +∞ and −∞ in two items: SQLite's sum of them is a NaN, which it turns into NULL — `items.@sum.x` printed 0,
    /// `sum:x` and `avg:x` nothing, and `items.x` listed `Inf, -Inf`, all with exit status 0.
    func testInfinitiesThatCancelInASumAreRefused() throws {
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        for (name, x) in [("a", "1.5"), ("p", "1"), ("m", "2"), ("z", "")] { ok("add", "Item", "name=\(name)", "x=\(x)", "b=yes") }
        ok("add", "Customer", "name=C", "items=a, p, m, z")
        dir.write("sums.yaml", "title: Sums\nentity: Customer\ncolumns:\n  - { key: name, title: Name }\n  - { key: items.@sum.x, title: X }\n")
        dir.write("list.yaml", "title: List\nentity: Customer\ncolumns:\n  - { key: name, title: Name }\n  - { key: items.x, title: X }\n")
        dir.write("avg.yaml", "title: Avg\nentity: Customer\ncolumns:\n  - { key: name, title: Name }\n  - { key: items.@avg.x, title: X }\n")
        var outputs: [[String]] = [
            ["fetch", "Customer", "--columns", "name, items.@sum.x"], ["fetch", "Customer", "--columns", "name, items.@avg.x", "--format", "csv"],
            ["fetch", "Customer", "--columns", "name, items.x"], ["fetch", "Customer", "--columns", "name, items.x", "--format", "json"],
            ["fetch", "Item", "--group", "b", "--columns", "b, sum:x"], ["fetch", "Item", "--group", "b", "--columns", "b, avg:x", "--format", "json"],
            ["fetch", "Customer", "--columns", "sum:items.x"], ["fetch", "Customer", "--columns", "avg:items.x"],
            ["fetch", "Item", "--columns", "min:x"], ["fetch", "Item", "--columns", "max:x"],
        ]
        for format in ["text", "csv", "json", "xlsx"] {
            for definition in ["sums", "list", "avg"] { outputs.append(["report", "\(definition).yaml", "--format", format, "--output", "\(definition).\(format)"]) }
        }
        // Before: the sums and averages computed, each at its own value.
        for args in outputs.prefix(6) { XCTAssertEqual(bk(args).status, 0, "\(args)") }
        try executeSQL(store, "UPDATE Item SET x = 9e999 WHERE name = 'p'; UPDATE Item SET x = -9e999 WHERE name = 'm'")
        for args in outputs {
            let r = bk(args)
            XCTAssertEqual(r.status, 65, "\(args): \(r)")
            XCTAssertTrue(r.stderr.hasPrefix("bookkeeper: Item/2.x: the store holds a non-finite number (inf)")
                          || r.stderr.hasPrefix("bookkeeper: Item/3.x: the store holds a non-finite number (-inf)"), "\(args): \(r.stderr)")
            XCTAssertTrue(r.stderr.hasSuffix("run `bookkeeper check` to list every such value, and set each to a number\n"), "\(args): \(r.stderr)")
            XCTAssertFalse(r.stdout.lowercased().contains("inf") || r.stdout.contains("\nC") || r.stdout.contains("\"C\""), "\(args): \(r.stdout)")
        }
        for definition in ["sums", "list", "avg"] {
            for format in ["text", "csv", "json", "xlsx"] { XCTAssertFalse(FileManager.default.fileExists(atPath: dir.file("\(definition).\(format)"))) }
        }
        // What reads no double still runs; set right, the sums are numbers again.
        XCTAssertEqual(ok("fetch", "Customer", "--columns", "name, items.@count", "--format", "csv"), "name,items.@count\nC,4\n")
        ok("set", "Item", "p", "x=4")
        ok("set", "Item", "m", "x=-2")
        XCTAssertEqual(ok("fetch", "Customer", "--columns", "name, items.@sum.x", "--format", "csv"), "name,items.@sum.x\nC,3.5\n")
    }

    /// A total whose adding up overflows, though the exact sum is finite (1.7e308 + 1.7e308 − 1.7e308), was "beyond
    /// what a double can hold" — untrue; and at standard output the message began `-: `.
    func testAnOverflowingPartialSumIsNamedTruthfullyAndStandardOutputIsNotCalledDash() throws {
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        for (name, x) in [("a", "1.7e308"), ("b", "1.7e308"), ("c", "-1.7e308")] { ok("add", "Item", "name=\(name)", "x=\(x)") }
        dir.write("items.yaml", "title: Items\nentity: Item\nsort: name\ncolumns:\n  - { key: name, title: Name }\n"
                  + "  - { key: x, title: Weight }\ntotals: [Weight]\n")
        let total = "the total of column \"Weight\" overflows a double (±1.7976931348623157e+308) as its values are added up, "
            + "and is not written as a number\n"
        for format in ["text", "csv", "json", "xlsx"] {
            let stdout = bk("report", "items.yaml", "--format", format)
            XCTAssertEqual(stdout.status, 65, format)
            XCTAssertEqual(stdout.stderr, "bookkeeper: " + total, format)
            let file = bk("report", "items.yaml", "--format", format, "--output", "items.\(format)")
            XCTAssertEqual(file.status, 65, format)
            XCTAssertEqual(file.stderr, "bookkeeper: items.\(format): " + total, format)
        }
        dir.write("sum.yaml", "title: Sum\nentity: Customer\ncolumns:\n  - { key: items.@sum.x, title: Weight }\n")
        ok("add", "Customer", "name=C", "items=a, b, c")
        let column = "column \"Weight\" overflows a double (±1.7976931348623157e+308) as its values are added up, and is not written as a number\n"
        let report = bk("report", "sum.yaml", "--format", "csv")
        XCTAssertEqual(report.status, 65)
        XCTAssertEqual(report.stderr, "bookkeeper: " + column)
        let fetched = bk("fetch", "Item", "--columns", "sum:x")
        XCTAssertEqual(fetched.status, 65)
        XCTAssertEqual(fetched.stderr, "bookkeeper: column \"sum:x\" overflows a double (±1.7976931348623157e+308) as its values are added up, "
                       + "and is not written as a number\n")
    }

    // MARK: Doubles written in decimal, never silently 0

    /// Swift's Double(String) reads hexadecimal floats: `x=0X10` stored 16, `0x1p3` 8 — where an integer or a
    /// decimal column refuses `0x10`.
    func testHexFloatsAreNotDoubles() throws {
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        ok("add", "Item", "name=s", "x=1")
        let spellings = ["0X10", "0x10", "0x1p3", "0x1.8p1", "-0x1p-2", " 0x10"]
        for text in spellings {
            let added = bk("add", "Item", "name=h", "x=\(text)")
            XCTAssertEqual(added.status, 65, text)
            XCTAssertEqual(added.stderr, "bookkeeper: Item.x: \"\(text)\" is not a number\n", text)
            let set = bk("set", "Item", "s", "x=\(text)")
            XCTAssertEqual(set.status, 65, text)
            XCTAssertEqual(set.stderr, "bookkeeper: Item.x: \"\(text)\" is not a number\n", text)
        }
        csv("hex.csv", "name,x\n" + spellings.enumerated().map { "h\($0.offset),\($0.element)\n" }.joined())
        let imported = bk("import", "Item", "hex.csv")
        XCTAssertEqual(imported.status, 65)
        XCTAssertEqual(imported.stderr.split(separator: "\n").first.map(String.init), "bookkeeper: hex.csv:2:4: column \"x\": \"0X10\" is not a number")
        XCTAssertEqual(try query("SELECT group_concat(name || '=' || x) FROM Item"), ["s=1.0"], "nothing stored")
        // As integers and decimals refuse them.
        XCTAssertEqual(bk("add", "Item", "name=h", "i=0x10").status, 65)
        XCTAssertEqual(bk("add", "Item", "name=h", "d2=0x10").status, 65)
    }

    /// `x=1e-400` stored 0.0 (and `-1e-400`, `2e-324`): a double rounds a number below half the smallest subnormal
    /// to zero, silently. A nonzero subnormal (5e-324) is a number, and is kept.
    func testANumberThatUnderflowsToZeroIsRefused() throws {
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        ok("add", "Item", "name=s", "x=1")
        let tiny = ["1e-400", "-1e-400", "2e-324", "0.000001e-320", "-2.4e-324"]
        for text in tiny {
            let added = bk("add", "Item", "name=u", "x=\(text)")
            XCTAssertEqual(added.status, 65, text)
            XCTAssertEqual(added.stderr, "bookkeeper: Item.x: \"\(text)\" is too small for a double (the smallest above 0 is 5e-324): "
                           + "it would be stored as 0\n", text)
            XCTAssertEqual(bk("set", "Item", "s", "x=\(text)").status, 65, text)
        }
        csv("tiny.csv", "name,x\n" + tiny.enumerated().map { "t\($0.offset),\($0.element)\n" }.joined())
        let imported = bk("import", "Item", "tiny.csv")
        XCTAssertEqual(imported.status, 65)
        XCTAssertEqual(imported.stderr.split(separator: "\n").filter { $0.contains("is too small for a double") }.count, tiny.count, imported.stderr)
        XCTAssertTrue(imported.stderr.hasPrefix("bookkeeper: tiny.csv:2:4: column \"x\": \"1e-400\" is too small for a double"), imported.stderr)
        XCTAssertEqual(try query("SELECT group_concat(name || '=' || x) FROM Item"), ["s=1.0"], "nothing stored")
        // Zero written any way, the smallest subnormal, and one that rounds up to it are numbers.
        for (n, text) in ["0", "-0.0", "0e-400", "0.000e5", "5e-324", "3e-324", "-5e-324", "2.2250738585072014e-308"].enumerated() {
            ok("add", "Item", "name=k\(n)", "x=\(text)")
        }
        XCTAssertEqual(try query("SELECT group_concat(x, ' ') FROM (SELECT x FROM Item WHERE name LIKE 'k%' ORDER BY id)"),
                       ["0.0 0.0 0.0 0.0 4.94065645841247e-324 4.94065645841247e-324 -4.94065645841247e-324 2.2250738585072e-308"])
    }

    // MARK: The range of a decimal

    /// The docs and every message give a decimal's range as ±92233720368547758.07 (scale 2), but the units of
    /// -92233720368547758.08 (Int64.min) were stored — a value whose negation traps.
    func testTheSmallestStorageUnitIsOutsideTheDecimalRange() throws {
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        let message = "\"-92233720368547758.08\" is beyond what Decimal(2) can hold (±92233720368547758.07)"
        let added = bk("add", "Item", "name=m", "d2=-92233720368547758.08")
        XCTAssertEqual(added.status, 65)
        XCTAssertEqual(added.stderr, "bookkeeper: Item.d2: \(message)\n")
        let scale4 = bk("add", "Item", "name=m", "d4=-922337203685477.5808")
        XCTAssertEqual(scale4.status, 65)
        XCTAssertEqual(scale4.stderr, "bookkeeper: Item.d4: \"-922337203685477.5808\" is beyond what Decimal(4) can hold (±922337203685477.5807)\n")
        ok("add", "Item", "name=m", "d2=-92233720368547758.07")
        let set = bk("set", "Item", "m", "d2=-92233720368547758.08")
        XCTAssertEqual(set.status, 65)
        XCTAssertEqual(set.stderr, "bookkeeper: Item.d2: \(message)\n")
        csv("m.csv", "name,d2\nn,-92233720368547758.08\no,-9223372036854775808\n")
        let imported = bk("import", "Item", "m.csv")
        XCTAssertEqual(imported.status, 65)
        XCTAssertEqual(imported.stderr.split(separator: "\n").first.map(String.init), "bookkeeper: m.csv:2:3: column \"d2\": \(message)")
        XCTAssertEqual(try query("SELECT group_concat(d2) FROM Item"), ["-9223372036854775807"])

        // The sample model: an order row's sum given, and one computed as quantity × price.
        try FileManager.default.removeItem(atPath: dir.file("model.yaml"))
        removeStore()
        ok("init", "--quiet")
        ok("add", "Service", "name=S")
        ok("add", "Order", "number=1")
        let sum = bk("add", "OrderRow", "order=1", "service=S", "sum=-92233720368547758.08")
        XCTAssertEqual(sum.status, 65)
        XCTAssertEqual(sum.stderr, "bookkeeper: OrderRow.sum: \(message)\n")
        let computed = bk("add", "OrderRow", "order=1", "service=S", "quantity=2", "price=-46116860184273879.04")
        XCTAssertEqual(computed.status, 65)
        XCTAssertEqual(computed.stderr, "bookkeeper: OrderRow.sum: quantity × price = 2.000 × -46116860184273879.04 = -92233720368547758.08, "
                       + "beyond what Decimal(2) can hold (±92233720368547758.07)\n")
        XCTAssertEqual(try query("SELECT count(*) FROM OrderRow"), ["0"])
        ok("add", "OrderRow", "order=1", "service=S", "sum=-92233720368547758.07")
    }

    // MARK: XLSX

    /// libxlsxwriter writes a number with %.16G: the largest double became `1.797693134862316E+308`, which openpyxl
    /// reads as inf and LibreOffice as INF; `2.2250738585072014e-308` became another number, listed nowhere.
    func testTheLargestDoubleNeverOpensAsInfinityInXLSX() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        let values = ["1.7976931348623157e+308", "-1.7976931348623157e+308", "1.797693134862315e+308", "2.2250738585072014e-308",
                      "0.30000000000000004", "2.5", "5e-324", "1.7976931348623155e+308"]
        for (n, v) in values.enumerated() { ok("add", "Item", "name=\(n)", "x=\(v)") }
        dir.write("x.yaml", "title: X\nentity: Item\nsort: name\ncolumns:\n  - { key: name, title: Name }\n  - { key: x, title: X }\n")
        ok("report", "x.yaml", "--format", "xlsx", "--output", "x.xlsx")
        // What the sheet's XML holds, read as numbers: never an infinity.
        let xml = try runTool([OpenpyxlWorkbook.python, "-c", "import sys, zipfile; print(zipfile.ZipFile(sys.argv[1]).read('xl/worksheets/sheet1.xml').decode())",
                               dir.file("x.xlsx")])
        let numbers = String(decoding: xml.output, as: UTF8.self).components(separatedBy: "<v>").dropFirst().map { String($0.prefix { $0 != "<" }) }
        XCTAssertFalse(numbers.isEmpty)
        for text in numbers { XCTAssertTrue(Double(text)?.isFinite ?? true, "the sheet holds <v>\(text)</v>") }

        let book = try OpenpyxlWorkbook(path: dir.file("x.xlsx"))
        let sheet = book.sheetNames.first!
        let about = book.cells("About")
        let listed = Dictionary(about.compactMap { ref, cell -> (String, String)? in
            guard ref.hasPrefix("A"), let label = cell["value"] as? String, label.first == "B",
                  let exact = about["B" + ref.dropFirst()]?["value"] as? String else { return nil }
            return (label, exact)
        }, uniquingKeysWith: { a, _ in a })
        for (n, v) in values.enumerated() {
            let reference = "B\(n + 2)"
            let cell = book.cell(sheet, reference)
            let exact = Double(v)!
            if let text = cell["value"] as? String {
                XCTAssertEqual(cell["type"] as? String, "str", reference)
                XCTAssertEqual(Double(text), exact, "\(reference): written as text, exactly")
                XCTAssertEqual(listed[reference], "\(exact)", "\(reference): listed")
            } else {
                let read = try XCTUnwrap(cell["value"] as? Double, "\(reference): \(cell)")
                XCTAssertTrue(read.isFinite, "\(reference) opens as \(read)")
                // A number the sheet does not give back exactly is listed with its exact value.
                if read != exact { XCTAssertEqual(listed[reference], "\(exact)", "\(reference): \(read) for \(v), not listed") }
            }
        }
        XCTAssertNotNil(listed["B5"], "2.2250738585072014e-308 is listed")
        XCTAssertNil(listed["B7"], "2.5 is exact")
        book.assertCell(sheet, "B2", type: "str", value: "1.7976931348623157e+308")
        book.assertCell(sheet, "B3", type: "str", value: "-1.7976931348623157e+308")
        let notes = about.values.compactMap { $0["value"] as? String }
        XCTAssertTrue(notes.contains { $0.hasPrefix("3 numbers are written as text, first in B2: so near the largest a double holds") }, "\(notes)")
    }

    // MARK: Periods

    /// `year(day)` of the year 1 was `1` in text, CSV and JSON (a year is an integer) but the text `0001` in XLSX,
    /// which writes a year before 1900 as text.
    func testTheYearOneIsTheSameInEveryFormat() throws {
        try OpenpyxlWorkbook.requireOpenpyxl()
        dir.write("model.yaml", Self.itemModel)
        ok("init", "--quiet")
        ok("add", "Item", "name=a", "day=0001-05-06")
        ok("add", "Item", "name=b", "day=0002-12-31")
        dir.write("years.yaml", "title: Years\nentity: Item\ngroup: [year(day)]\nsort: year(day)\ncolumns:\n"
                  + "  - { key: year(day), title: Year }\n  - { key: count, title: N }\n")
        XCTAssertEqual(ok("report", "years.yaml", "--format", "csv"), "Year,N\n1,1\n2,1\n")
        // A year column is shown as a code (not `2,026`): a JSON string.
        XCTAssertTrue(ok("report", "years.yaml", "--format", "json").contains("{\"Year\": \"1\", \"N\": 1},\n    {\"Year\": \"2\", \"N\": 1}"))
        XCTAssertTrue(ok("report", "years.yaml", "--format", "text").contains("\n1     1\n2     1\n"))
        XCTAssertEqual(ok("fetch", "Item", "--columns", "year(day)", "--format", "csv"), "year(day)\n1\n2\n")
        ok("report", "years.yaml", "--format", "xlsx", "--output", "years.xlsx")
        let book = try OpenpyxlWorkbook(path: dir.file("years.xlsx"))
        let sheet = book.sheetNames.first!
        book.assertCell(sheet, "A2", type: "str", value: "1")
        book.assertCell(sheet, "A3", type: "str", value: "2")
    }

    /// Text that imports as a value of the attribute, or empty (no value).
    private static func randomText(for attribute: String, _ random: inout SeededGenerator) -> String {
        if random.next(upTo: 6) == 0 { return "" }
        switch attribute {
        case "note":
            return random.pick(["plain", "x, y", " lead", "trail ", "say \"hi\"", "a,b", "é", "semi;colon", "\"", "1.50", "yes"])
        case "i":
            return random.pick(["0", "-1", "9223372036854775807", "-9223372036854775808", String(Int64(bitPattern: random.next()))])
        case "d2", "d4":
            let scale = attribute == "d2" ? 2 : 4
            let units = random.pick([Int64.max, -Int64.max, 55750, -1, 0, Int64(bitPattern: random.next()) / 3])
            let digits = String(units.magnitude)
            let padded = String(repeating: "0", count: max(0, scale + 1 - digits.count)) + digits
            return (units < 0 ? "-" : "") + padded.dropLast(scale) + "." + padded.suffix(scale)
        case "x":
            var d = Double(bitPattern: random.next())
            while !d.isFinite || d == 0 { d = Double(bitPattern: random.next()) }
            return random.pick(["1.7976931348623157e308", "-1.7976931348623157e+308", "5e-324", "2.2250738585072014e-308", "0.1",
                                "0.3333333333333333", "1e15", "123456789012345680", "2.5", "\(d)"])
        case "b":
            return random.pick(["yes", "no"])
        case "day":
            return String(format: "%04d-%02d-%02d", 1 + random.next(upTo: 9999), 1 + random.next(upTo: 12), 1 + random.next(upTo: 28))
        default:
            return String(format: "%04d-%02d-%02dT%02d:%02d:%02dZ", 1 + random.next(upTo: 9999), 1 + random.next(upTo: 12),
                          1 + random.next(upTo: 28), random.next(upTo: 24), random.next(upTo: 60), random.next(upTo: 60))
        }
    }

    /// The list form `import` reads (docs/import.md): an item in quotes when it holds a comma, a quote or a line
    /// break, or has a space at an end; a quote inside written twice.
    static func joinList(_ items: [String]) -> String {
        items.map { item in
            let needs = item.isEmpty || item.first!.isWhitespace || item.last!.isWhitespace
                || item.contains { $0 == "," || $0 == "\"" || $0.isNewline }
            return needs ? "\"" + item.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : item
        }.joined(separator: ", ")
    }
}

/// The records of CSV text (RFC 4180: quoted fields, quotes doubled, line breaks inside quotes).
func parseCSV(_ text: String) -> [[String]] {
    var records: [[String]] = []
    var record: [String] = []
    var field = ""
    var quoted = false
    var chars = Array(text)[...]
    while let c = chars.popFirst() {
        if quoted {
            if c == "\"" {
                if chars.first == "\"" { field.append("\""); chars.removeFirst() } else { quoted = false }
            } else { field.append(c) }
        } else if c == "\"" {
            quoted = true
        } else if c == "," {
            record.append(field); field = ""
        } else if c == "\n" || c == "\r\n" {
            record.append(field); field = ""
            records.append(record); record = []
        } else {
            field.append(c)
        }
    }
    if !field.isEmpty || !record.isEmpty { record.append(field); records.append(record) }
    return records
}
