import Foundation
import TestSupport
import XCTest

/// Values another tool stored with the `sqlite3` shell that `check` names (a Boolean stored as 2, text with a NUL or
/// bytes that are not UTF-8): every command gives each the one meaning its column has, and `set` writes over them.
/// Found by the attack on 0.7.0.
final class TamperedValueCommandTests: StoreCommandTestCase {
    func sqlite3(_ sql: String, file: StaticString = #filePath, line: UInt = #line) {
        let r = try? runTool(["/usr/bin/sqlite3", store, sql])
        XCTAssertEqual(r?.status, 0, "sqlite3 \(sql): \(r?.error ?? "could not run")", file: file, line: line)
    }

    /// CSV records after the header, as arrays of fields (no field here holds a comma or quote).
    func records(_ args: String..., file: StaticString = #filePath, line: UInt = #line) -> [[String]] {
        let r = bk(args + ["--format", "csv"])
        XCTAssertEqual(r.status, 0, "\(args): \(r)", file: file, line: line)
        return r.stdout.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false).map(String.init) }
    }

    /// A Boolean stored as 2 (or -1, 7) read as yes by `fetch` and `show` but excluded by `--where 'made == YES'`, and
    /// grouped on its own by `--group made`: every path now reads the column as the decoder does, nonzero as yes.
    func testABooleanStoredAsANumberOtherThanOneIsYesToPredicatesGroupsAndSortsAsWhereItIsShown() {
        ok("init")
        ok("add", "Customer", "name=Acme")
        let stored = ["A-1": "1", "A-2": "2", "A-3": "0", "A-4": "-1", "A-5": "7", "A-6": "0"]
        for number in stored.keys.sorted() { ok("add", "Order", "number=\(number)", "customer=Acme") }
        for (number, value) in stored { sqlite3("UPDATE \"Order\" SET made = \(value) WHERE number = '\(number)'") }
        // What fetch shows is the meaning: the decoder's, nonzero is yes.
        let shown = Dictionary(uniqueKeysWithValues: records("fetch", "Order", "--columns", "number, made").map { ($0[0], $0[1]) })
        XCTAssertEqual(shown, stored.mapValues { $0 == "0" ? "false" : "true" })
        XCTAssertTrue(ok("show", "Order", "A-2").split(separator: "\n").contains { $0.split(separator: " ") == ["made", "true"] })
        let yes = Set(shown.filter { $0.value == "true" }.keys), no = Set(shown.filter { $0.value == "false" }.keys)
        let predicates: [(String, Set<String>)] = [
            ("made == YES", yes), ("made == NO", no), ("made != YES", no), ("made != NO", yes), ("NOT made == YES", no),
            ("made == 1", yes), ("made == 0", no), ("made IN {YES}", yes), ("made > 0", yes), ("made < 1", no),
            ("made == YES AND customer.name == 'Acme'", yes), ("ANY customer.orders.made == YES", Set(shown.keys)),
        ]
        for (predicate, expected) in predicates {
            let found = Set(records("fetch", "Order", "--where", predicate, "--columns", "number").map { $0[0] })
            XCTAssertEqual(found, expected, predicate)
        }
        XCTAssertEqual(ok("fetch", "Order", "--where", "made == YES", "--count"), "\(yes.count)\n")
        // One group per value shown, counting every object shown with it.
        XCTAssertEqual(records("fetch", "Order", "--group", "made", "--columns", "made, count"),
                       [["false", "\(no.count)"], ["true", "\(yes.count)"]])
        // Sorted by the value shown, ties by object ID: every no before every yes.
        let sorted = records("fetch", "Order", "--sort", "made", "--columns", "number, made").map { $0[1] }
        XCTAssertEqual(sorted, sorted.sorted())
        // `check` still names each stored value that is not 0 or 1.
        let check = bk("check")
        XCTAssertEqual(check.status, 65, "\(check)")
        for id in ["Order/2", "Order/4", "Order/5"] { XCTAssertTrue(check.stderr.contains("\(id).made holds"), check.stderr) }
    }

    /// `set` said "unchanged" when asked to rewrite a value `check` names, because the value read (the text before
    /// a NUL, bytes that are not UTF-8 repaired, a Boolean stored as 2 read as yes) equals the one given; the stored
    /// bytes are not that value, so `set` writes it and says it updated the object. Setting it again is unchanged.
    func testSetWritesAValueThatCheckNamesEvenWhenItReadsAsTheValueGiven() throws {
        ok("init")
        ok("add", "Customer", "name=Acme", "info=a")
        ok("add", "Order", "number=A-1", "customer=Acme", "made=yes")
        let cases: [(tamper: String, args: [String], hex: String)] = [
            ("UPDATE Customer SET info = CAST(X'610062' AS TEXT)", ["Customer", "Acme", "info=a"], "61"),
            ("UPDATE Customer SET info = CAST(X'61FF' AS TEXT)", ["Customer", "Acme", "info=a\u{FFFD}"], "61EFBFBD"),
            ("UPDATE \"Order\" SET made = 2", ["Order", "A-1", "made=yes"], "01"),
        ]
        for c in cases {
            sqlite3(c.tamper)
            XCTAssertEqual(bk("check").status, 65, c.tamper)
            let first = bk(["set"] + c.args)
            XCTAssertEqual(first.status, 0, "\(first)")
            XCTAssertEqual(first.stdout, "updated \(c.args[0])/1\n", c.tamper)
            let column = c.args[0] == "Order" ? "printf('%02X', made)" : "hex(info)"
            XCTAssertEqual(try queryStore(store, "SELECT \(column) FROM \"\(c.args[0])\""), [c.hex], c.tamper)
            XCTAssertEqual(bk("check").status, 0, c.tamper)
            let again = bk(["set"] + c.args)
            XCTAssertEqual(again.stdout, "\(c.args[0])/1 unchanged\n", c.tamper)
        }
    }
}
