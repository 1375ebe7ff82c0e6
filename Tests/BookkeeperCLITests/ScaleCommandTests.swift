import XCTest
import TestSupport

/// Issue 15 §4, through the built binary: long IN lists are one bound value, thousands of repeated options
/// parse (in one pass, not argument-parser's copy per occurrence), and a header of 10,000 unknown columns
/// prints the first 20 problems and a count.
final class ScaleCommandTests: StoreCommandTestCase {
    override func setUp() {
        super.setUp()
        ok("init")
        ok("add", "Customer", "name=Acme")
        for n in 1...5 { ok("add", "Order", "number=A-\(n)", "customer=Acme", n % 2 == 0 ? "paid=yes" : "paid=no") }
    }

    /// Seen: 45 s for 100,000 values, each its own placeholder. Now one JSON array, whatever the length.
    func testAnInListOf100000ValuesIsOneBoundValue() throws {
        let values = (0..<100_000).map { "'N-\($0)'" } + ["'A-2'", "'A-5'"]
        let definition = dir.file("in.yaml")
        try "entity: Order\nwhere: number IN {\(values.joined(separator: ", "))} AND NOT number IN {'A-5', 'zz'}\ncolumns: [number]\n"
            .write(toFile: definition, atomically: true, encoding: .utf8)
        let r = bk("report", definition, "--format", "csv")
        XCTAssertEqual(r.status, 0, "\(r.stderr)")
        XCTAssertEqual(r.stdout, "number\nA-2\n")
        let explain = ok("report", definition, "--explain")
        XCTAssertTrue(explain.contains(#"t0."number" IN (SELECT value FROM json_each(?1))"#), String(explain.prefix(400)))
        // The short list stays placeholders; the long one is ?1: two lists, three bound values in all.
        XCTAssertTrue(explain.contains(#"t0."number" IN (?2, ?3)"#), String(explain.prefix(400)))
        XCTAssertFalse(explain.contains("?4"))
    }

    func testALongParameterListAndNumbersAndNullsInLongLists() {
        // `IN $list` from --param: 10,000 values (what a command line holds), numbers at the decimal edges, NULL.
        let list = (0..<10_000).map { "B-\($0)" } + ["A-1", "A-3"]
        XCTAssertEqual(ok("fetch", "Order", "--where", "number IN $list", "--param", "list=" + list.joined(separator: ","),
                          "--columns", "number", "--format", "csv"), "number\nA-1\nA-3\n")
        let ids = (0..<1_000).map { String($0 * 7 + 100) } + ["2", "4", "nil", "92233720368547758.08", "-92233720368547758.08"]
        XCTAssertEqual(ok("fetch", "Customer", "--where", "orders.@count IN {\(ids.joined(separator: ", "))}", "--count"), "0\n")
        XCTAssertEqual(ok("fetch", "Customer", "--where", "orders.@count IN {\((ids + ["5"]).joined(separator: ", "))}", "--count"), "1\n")
        XCTAssertEqual(ok("fetch", "Customer", "--where", "code IN {\((ids.map { "'\($0)'" } + ["nil"]).joined(separator: ", "))}", "--count"), "1\n")
    }

    /// Seen (before RepeatedOptions covered them): 2,000 `--map` took 6.8 s in argument-parser, growing as n².
    func testThousandsOfRepeatedOptionsParse() throws {
        let csv = dir.file("c.csv")
        try "Name,Code\nZed,Z1\n".write(toFile: csv, atomically: true, encoding: .utf8)
        var args = ["import", "Customer", "c.csv", "--map", "Name=name", "--map", "Code=code"]
        for i in 0..<5_000 { args += ["--null", "NULL\(i)"] }
        let r = bk(args)
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(ok("fetch", "Customer", "--where", "name == 'Zed'", "--columns", "code", "--format", "csv"), "code\nZ1\n")
        // `--where=…` form, 5,000 times.
        var many = ["fetch", "Order"]
        for i in 0..<5_000 { many += ["--where=number != 'x\(i)'"] }
        let fetched = bk(many + ["--count"])
        XCTAssertEqual(fetched.status, 0, fetched.stderr)
        XCTAssertEqual(fetched.stdout, "5\n")
        var renames = ["migrate", "--dry-run"]
        for i in 0..<3_000 { renames += ["--rename", "Nothing\(i)=Else\(i)"] }
        // Every one of them reaches the command.
        let m = bk(renames)
        let blocked = m.stdout.split(separator: "\n").filter { $0.hasPrefix("- blocked: --rename Nothing") }
        XCTAssertEqual(blocked.count, 3_000, m.stdout.suffix(300).description)
        XCTAssertTrue(blocked.contains("- blocked: --rename Nothing2999=Else2999: the model has no entity Else2999"))
    }

    /// Found by FuzzDefinitionShape: a report sorted by 3,000 keys was an I/O error on the store (74), and one
    /// sorted by 64 keys, some of a joined table (`customer.name`), crashed SQLite 3.40 (SIGSEGV).
    func testAReportSortedByThousandsOfKeys() throws {
        let keys = Array(repeating: ["paid desc", "customer.name", "rows.@sum.sum", "number desc"], count: 750).flatMap { $0 }
        try "title: S\nentity: Order\nsort: \(keys.joined(separator: ", "))\ncolumns: [number]\n"
            .write(toFile: dir.file("sort.yaml"), atomically: true, encoding: .utf8)
        // A repeated key orders nothing more: the four that are left decide.
        let r = bk("report", dir.file("sort.yaml"), "--format", "csv")
        XCTAssertEqual(r.status, 0, r.stderr)
        XCTAssertEqual(r.stdout, "number\nA-4\nA-2\nA-5\nA-3\nA-1\n")
        XCTAssertEqual(ok("fetch", "Order", "--sort", Array(repeating: "customer.name", count: 70).joined(separator: ", "), "--count"), "5\n")
        // More than 32 different keys are refused at the place of the 33rd.
        let many = ["number", "date", "made", "paid", "customer.name", "customer.code", "customer.info", "rows.@count",
                    "rows.@sum.sum", "rows.@max.sum", "rows.@min.sum"].flatMap { ["\($0)", "\($0) nocase", "\($0) natural"] }
        let refused = bk("fetch", "Order", "--sort", many.joined(separator: ", "))
        XCTAssertEqual(refused.status, 64)
        XCTAssertTrue(refused.stderr.hasPrefix("bookkeeper: sort:1:"), refused.stderr)
        XCTAssertTrue(refused.stderr.hasSuffix(": more than 32 sort keys — sort by at most 32\n"), refused.stderr)
    }

    /// Seen: 10,001 lines for a header of 10,000 unknown columns; docs/import.md promises the first 20 and a count.
    func testTenThousandUnknownColumnsPrintTheFirstTwentyAndACount() throws {
        let header = ["name"] + (0..<10_000).map { "x\($0)" }
        try (header.joined(separator: ",") + "\n" + (["Zed"] + Array(repeating: "v", count: 10_000)).joined(separator: ",") + "\n")
            .write(toFile: dir.file("wide.csv"), atomically: true, encoding: .utf8)
        let r = bk("import", "Customer", "wide.csv")
        XCTAssertEqual(r.status, 65)
        let lines = r.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        XCTAssertEqual(lines.count, 22, r.stderr)
        XCTAssertEqual(lines[0], #"bookkeeper: wide.csv:1: column "x0" maps to nothing on Customer"#)
        XCTAssertEqual(lines[19], #"bookkeeper: wide.csv:1: column "x19" maps to nothing on Customer"#)
        XCTAssertEqual(lines[20], "bookkeeper: … and 9980 more errors (10000 in all)")
        XCTAssertTrue(lines[21].hasPrefix(#"bookkeeper: wide.csv:1: map such columns with --map"#), String(lines[21]))
        XCTAssertEqual(ok("fetch", "Customer", "--count"), "1\n")
    }
}
