// A property (issue 6, "property tests where they fit"): whatever a store holds, `export` writes CSV that
// `import` reads back into a new store with the same content, row IDs included, and exporting that store
// gives the same bytes. Seeded random stores with hostile text (quotes, delimiters, line breaks, emoji,
// combining accents, non-breaking spaces, text that looks like a number or NULL), extreme decimals and dates.
// The CSV reader and writer alone are covered by CSVWriterTests and the CSV fuzz target.

import Foundation
import TestSupport
import XCTest

final class ReliabilityRoundTripTests: XCTestCase {
    static let pieces = ["a", "Zoë", " ", "\"", "\"\"", ",", ";", "\t", "|", "\n", "\r\n", "\r", "😀", "👩‍👩‍👧", "\u{A0}", "'",
                         "x\"y", "0", "007", "-1.5", "NULL", "e\u{301}", "é", "#", "=1+1", "\\", "%", "_"]

    func testExportThenImportGivesTheSameStore() throws {
        // `make test`: 4 stores from a fixed seed; `make stress`: 30 from the seed it prints.
        let rounds = Trials.count("BOOKKEEPER_ROUNDTRIP_ROUNDS", quick: 4, stress: 30)
        let seed = Trials.seed("BOOKKEEPER_ROUNDTRIP_SEED", fixed: 61)
        var random = SeededGenerator(seed: seed)
        for round in 0..<rounds {
            let dir = TemporaryDirectory()
            func text(_ minimum: Int = 0) -> String {
                (0..<Int.random(in: minimum...5, using: &random)).map { _ in Self.pieces.randomElement(using: &random)! }.joined()
            }
            func unique(_ prefix: String, _ i: Int) -> String { text() + prefix + String(i) + text() }
            func decimal(_ scale: Int, _ bound: Int64) -> String {
                let n = Int64.random(in: -bound...bound, using: &random)
                let sign = n < 0 ? "-" : "", a = n.magnitude
                let unit = UInt64(pow(10.0, Double(scale)))
                return "\(sign)\(a / unit).\(String(a % unit).leftPadded(scale))"
            }
            let tags = (0..<3).map { "tag \($0)" + ["", " ü", " 😀"][$0] }
            let customers = (0..<8).map { unique("C", $0) }
            let services = (0..<5).map { unique("S", $0) }
            var csv = ["tags.csv": "name\n" + tags.map { csvField($0) + "\n" }.joined()]
            csv["services.csv"] = "name,code,info\n" + services.enumerated().map { i, s in
                "\(csvField(s)),\(csvField(i % 2 == 0 ? "" : "code \(i)")),\(csvField(text()))\n"
            }.joined()
            csv["customers.csv"] = "name,code,info,tags\n" + customers.enumerated().map { i, c in
                let chosen = tags.filter { _ in Bool.random(using: &random) }.joined(separator: ", ")
                return "\(csvField(c)),\(csvField(i % 3 == 0 ? "" : unique("K", i))),\(csvField(text())),\(csvField(chosen))\n"
            }.joined()
            var orders = "number,date,customer,made,paid,rows.service,rows.quantity,rows.price,rows.sum\n"
            for i in 0..<12 {
                let number = unique("N", i)
                let date = String(format: "%04d-%02d-%02d", Int.random(in: 1900...2100, using: &random),
                                  Int.random(in: 1...12, using: &random), Int.random(in: 1...28, using: &random))
                let customer = i % 4 == 0 ? "" : customers.randomElement(using: &random)!
                let head = "\(csvField(number)),\(date),\(csvField(customer)),\(Bool.random(using: &random) ? "yes" : "no"),\(i % 2 == 0 ? "yes" : "no")"
                let rows = Int.random(in: 0...3, using: &random)
                if rows == 0 { orders += head + ",,,,\n" }
                for _ in 0..<rows {
                    orders += head + ",\(csvField(services.randomElement(using: &random)!)),\(decimal(3, 999_999_999))"
                        + ",\(decimal(2, 9_999_999_999)),\(decimal(2, 999_999_999_999_999))\n"
                }
            }
            csv["orders.csv"] = orders
            for (name, text) in csv { dir.write(name, text) }

            let first = dir.file("first.sqlite"), second = dir.file("second.sqlite")
            let order = [("Tag", "tags"), ("Service", "services"), ("Customer", "customers"), ("Order", "orders")]
            func ok(_ store: String, _ args: [String]) -> String {
                let r = runCLI(["--store", store] + args, in: dir.path)
                XCTAssertEqual(r.status, 0, "round \(round), \(args): \(r)")
                return r.stdout
            }
            _ = ok(first, ["init", "--quiet"])
            for (entity, file) in order { _ = ok(first, ["import", entity, "\(file).csv", "--quiet"]) }
            // Export everything, import the exports into a new store.
            var exported: [String: String] = [:]
            for (entity, file) in order {
                _ = ok(first, ["export", entity, "export-\(file).csv"])
                exported[entity] = try String(contentsOfFile: dir.file("export-\(file).csv"), encoding: .utf8)
            }
            _ = ok(second, ["init", "--quiet"])
            for (entity, file) in order { _ = ok(second, ["import", entity, "export-\(file).csv", "--quiet"]) }
            XCTAssertEqual(try queryStore(second, "SELECT (SELECT count(*) FROM Customer) || '/' || (SELECT count(*) FROM \"Order\") || '/' || ((SELECT count(*) FROM OrderRow) > 0)"),
                           ["8/12/1"], "round \(round)")
            XCTAssertEqual(objects(try storeContent(second)), objects(try storeContent(first)), "round \(round): the same objects")
            for (entity, _) in order {
                XCTAssertEqual(ok(second, ["export", entity]), exported[entity], "round \(round) (seed \(seed)): \(entity) exports the same bytes")
            }
        }
        reportTrials("export then import", "\(rounds) random stores with hostile text (seed \(seed)): the same objects, the same bytes exported")
    }

    /// The objects' tables only (the metadata holds the creation time, the history the file names).
    private func objects(_ content: String) -> String {
        var out: [Substring] = []
        var skipping = false
        for line in content.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("## ") { skipping = line.hasPrefix("## _bookkeeper_") }
            if !skipping && !line.hasPrefix("CREATE") { out.append(line) }
        }
        return out.joined(separator: "\n")
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
