// `fetch --format csv` writes each field as bytes into one buffer, numbers and dates without a String (issue 27):
// end to end on generated stores, against a CSV written here by a second implementation from the values the test
// generated (the seed is printed; STRESS_SEED replays one, BOOKKEEPER_FETCH_CSV_TRIALS sets the number of stores).

import Foundation
import TestSupport
import XCTest

final class FetchCSVDifferentialTests: StoreCommandTestCase {
    /// Customer names and infos a CSV must quote or keep as they are: delimiters, quotes, line breaks, leading
    /// formula characters (fetch never neutralizes), non-ASCII text, spaces kept at both ends.
    private static let names = ["Acme Ltd", "Zeta \"Z\", Inc.", "Müller GmbH", "=1+2", "-5 minus", "日本語の顧客",
                                "  spaced  ", "comma, only", "quote \" only", "😀 emoji", "a rather long customer name, longer than a small string"]
    private static let infos = ["", "line\nbreak", "carriage\r\nreturn", "\"quoted\"", "plain", "tab\there", "x,y", "trailing,"]

    private struct Order {
        var number: String
        var date: String
        var customer: Int?
        var made: Bool
        var paid: Bool
        var sums: [Int128]   // cents
    }

    /// Money as this test writes it: the cents with a point before the last two digits, a minus for a negative.
    private static func money(_ cents: Int128) -> String {
        let digits = String(cents.magnitude)
        let padded = String(repeating: "0", count: max(0, 3 - digits.count)) + digits
        return (cents < 0 ? "-" : "") + padded.dropLast(2) + "." + padded.suffix(2)
    }

    /// RFC 4180 as the writer's contract says: quoted only for a comma, quote, CR or LF, quotes doubled.
    private static func field(_ text: String) -> String {
        text.contains(where: { $0 == "," || $0 == "\"" || $0 == "\r" || $0 == "\n" || $0 == "\r\n" })
            ? "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\"" : text
    }

    private static func cents(_ g: inout SeededGenerator) -> Int128 {
        let largest: Int128 = 9_223_372_036_854_775_807   // what a Decimal(2) holds, in cents
        switch g.next(upTo: 6) {
        case 0: return 0
        case 1: return Int128(g.next(upTo: 200_000)) - 100_000
        case 2: return Int128(g.next(upTo: 100_000_000))
        case 3: return g.next(upTo: 2) == 0 ? largest : -largest   // two of them sum beyond an Int64
        case 4: return largest - Int128(g.next(upTo: 1000))
        default: return -Int128(g.next(upTo: 5_000))
        }
    }

    func testCSVIsWhatASecondWriterWritesFromTheSameValues() throws {
        let seed = Trials.seed(fixed: 2727)
        var g = SeededGenerator(seed: seed)
        let stores = Trials.count("BOOKKEEPER_FETCH_CSV_TRIALS", quick: 2, stress: 12)
        var compared = 0
        for trial in 0..<stores {
            removeStore()
            ok("init")
            ok("add", "Service", "name=Work")
            var customers = "name,info\n"
            for (i, name) in Self.names.enumerated() {
                customers += Self.field(name) + "," + Self.field(Self.infos[i % Self.infos.count]) + "\n"
            }
            dir.write("customers.csv", customers)
            ok("import", "Customer", "customers.csv")

            var orders: [Order] = []
            var lines = "number,date,customer,made,paid,rows.service,rows.sum\n"
            for i in 0..<(20 + g.next(upTo: 40)) {
                let year = g.pick([1, 999, 1970, 2024, 2025, 9999])
                let date = String(format: "%04d-%02d-%02d", year, 1 + g.next(upTo: 12), 1 + g.next(upTo: 28))
                let order = Order(number: String(format: "N-%04d", i) + g.pick(["", ",x", "\"q\"", " ü"]), date: date,
                                  customer: g.next(upTo: 5) == 0 ? nil : g.next(upTo: Self.names.count),
                                  made: g.next(upTo: 2) == 0, paid: g.next(upTo: 2) == 0,
                                  sums: (0..<(1 + g.next(upTo: 3))).map { _ in Self.cents(&g) })
                orders.append(order)
                for sum in order.sums {
                    lines += [Self.field(order.number), order.date, order.customer.map { Self.field(Self.names[$0]) } ?? "",
                              order.made ? "yes" : "no", order.paid ? "yes" : "no", "Work", Self.money(sum)].joined(separator: ",") + "\n"
                }
            }
            dir.write("orders.csv", lines)
            ok("import", "Order", "orders.csv")

            let columns = "number, date, customer.name, customer.info, made, paid, rows.@sum.sum, rows.@count, rows.@min.sum"
            let r = bk("fetch", "Order", "--columns", columns, "--sort", "number", "--format", "csv")
            XCTAssertEqual(r.status, 0, "seed \(seed), store \(trial): \(r)")
            var expected = columns.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ",") + "\n"
            // `--sort number`: SQLite's binary collation, the UTF-8 bytes in order.
            for order in orders.sorted(by: { Array($0.number.utf8).lexicographicallyPrecedes(Array($1.number.utf8)) }) {
                let fields = [Self.field(order.number), order.date,
                              order.customer.map { Self.field(Self.names[$0]) } ?? "",
                              order.customer.map { Self.field(Self.infos[$0 % Self.infos.count]) } ?? "",
                              order.made ? "true" : "false", order.paid ? "true" : "false",
                              Self.money(order.sums.reduce(0, +)), String(order.sums.count), Self.money(order.sums.min()!)]
                expected += fields.joined(separator: ",") + "\n"
            }
            XCTAssertEqual(r.stdout, expected, "seed \(seed), store \(trial)")
            compared += orders.count
        }
        reportTrials("fetch CSV against a second writer", "seed \(seed), \(stores) stores, \(compared) orders compared")
    }
    /// Text is written straight from the statement only when it is ASCII without NUL; text another tool wrote with
    /// a NUL or bytes that are not UTF-8 is written as before, as GRDB reads it: up to the NUL, repaired (U+FFFD).
    func testTextAnotherToolWroteIsWrittenAsBefore() throws {
        ok("init")
        for name in ["Nul", "Bad", "Fine", "Wide"] { ok("add", "Customer", "name=\(name)") }
        let r = try runTool(["/usr/bin/sqlite3", store, """
            UPDATE "Customer" SET "info" = 'a' || char(0) || ',b' WHERE "name" = 'Nul';
            UPDATE "Customer" SET "info" = CAST(X'41FF2C42' AS TEXT) WHERE "name" = 'Bad';
            UPDATE "Customer" SET "info" = 'x,"y"' WHERE "name" = 'Fine';
            UPDATE "Customer" SET "info" = 'Zoë, "z"' WHERE "name" = 'Wide';
            """])
        XCTAssertEqual(r.status, 0, r.error)
        XCTAssertEqual(ok("fetch", "Customer", "--columns", "name, info", "--sort", "name", "--format", "csv"),
                       "name,info\nBad,\"A\u{FFFD},B\"\nFine,\"x,\"\"y\"\"\"\nNul,a\nWide,\"Zoë, \"\"z\"\"\"\n")
    }
}
