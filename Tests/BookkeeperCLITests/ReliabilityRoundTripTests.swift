// A property (issue 6, "property tests where they fit"): whatever a store holds, `export` writes CSV that
// `import` reads back into a new store with the same content, row IDs included, and exporting that store
// gives the same bytes. Seeded random stores with hostile text (quotes, delimiters, line breaks, emoji,
// combining accents, non-breaking spaces, text that looks like a number or NULL), extreme decimals and dates.
// Issue 25 widened it: tag keys made of the same hostile pieces, so that to-many lists hold items with commas,
// quotes, line feeds and spaces at either end (the old export joined them with ", " and they came back as other
// items, or not at all), written in the input in both list forms; and a model-file entity with every attribute
// type at the edges of its range — integers and decimals at their limits, the largest double, subnormals and
// -0.0, dates from year 1 to 9999, date-times with offsets from -12:00 to +14:00, bytes — whose `fetch` output,
// under TZ=UTC, must be the same from both stores too.
// The CSV reader and writer alone are covered by CSVWriterTests and the CSV fuzz target.

import Foundation
import TestSupport
import XCTest

final class ReliabilityRoundTripTests: XCTestCase {
    static let pieces = ["a", "Zoë", " ", "\"", "\"\"", ",", ";", "\t", "|", "\n", "\r\n", "\r", "😀", "👩‍👩‍👧", "\u{A0}", "'",
                         "x\"y", "0", "007", "-1.5", "NULL", "e\u{301}", "é", "#", "=1+1", "\\", "%", "_"]

    func testExportThenImportGivesTheSameStore() throws {
        // `make test`: 4 stores from a fixed seed; `make stress`: 30 from the seed it prints.
        let rounds = Trials.count("BOOKKEEPER_ROUNDTRIP_ROUNDS", quick: 2, stress: 30)
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
            // Tag keys of hostile pieces: list items with commas, quotes, line feeds, spaces at either end.
            let tags = (0..<5).map { unique("T", $0) }
            /// A to-many cell as a file written by hand or by `export` has it: plain keys as they are (or quoted,
            /// at random), a key that needs it quoted, `""` for a quote; separators with or without spaces.
            func listCell(_ items: [String]) -> String {
                items.map { item -> String in
                    let scalars = item.unicodeScalars
                    let needs = scalars.isEmpty || CharacterSet.whitespacesAndNewlines.contains(scalars.first!)
                        || CharacterSet.whitespacesAndNewlines.contains(scalars.last!) || scalars.contains { "\",\r\n".unicodeScalars.contains($0) }
                    guard needs || Int.random(in: 0..<4, using: &random) == 0 else { return item }
                    var quoted = String.UnicodeScalarView(["\""])
                    for scalar in scalars {
                        quoted.append(scalar)
                        if scalar == "\"" { quoted.append("\"") }
                    }
                    quoted.append("\"")
                    return String(quoted)
                }.joined(separator: [", ", ",", " , "][Int.random(in: 0..<3, using: &random)])
            }
            let customers = (0..<8).map { unique("C", $0) }
            let services = (0..<5).map { unique("S", $0) }
            var csv = ["tags.csv": "name\n" + tags.map { csvField($0) + "\n" }.joined()]
            csv["services.csv"] = "name,code,info\n" + services.enumerated().map { i, s in
                "\(csvField(s)),\(csvField(i % 2 == 0 ? "" : "code \(i)")),\(csvField(text()))\n"
            }.joined()
            csv["customers.csv"] = "name,code,info,tags\n" + customers.enumerated().map { i, c in
                let chosen = listCell(tags.filter { _ in Bool.random(using: &random) })
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
            // Every attribute type, at the edges of its range.
            func pick(_ values: [String]) -> String { values[Int.random(in: 0..<values.count, using: &random)] }
            let doubles = ["1.7976931348623157e308", "-1.7976931348623157e308", "5e-324", "-5e-324", "2.2250738585072014e-308",
                           "-0.0", "0", "0.1", "-1.5", "123456789.125", "1e-300", "3.141592653589793"]
            var gauges = "name,quantity,amount,fine,whole,reading,flag,day,moment,blob,labels,boss\n"
            // Each gauge's boss is a gauge of the same file, at random: itself, one on an earlier or a later line, or none.
            let gaugeNames = (0..<8).map { unique("G", $0) }
            for i in 0..<8 {
                let fields = [
                    csvField(gaugeNames[i]),
                    pick(["-9223372036854775808", "9223372036854775807", "0", "-1", "", String(Int64.random(in: .min ... .max, using: &random))]),
                    pick(["-92233720368547758.07", "92233720368547758.07", "0.00", "-0.01", "", decimal(2, 999_999_999_999)]),
                    pick(["-9223372036854.775807", "9223372036854.775807", "0.000001", "", decimal(6, 999_999_999_999)]),
                    pick(["-9223372036854775807", "9223372036854775807", "0", ""]),
                    pick(doubles + [""]),
                    pick(["yes", "no", ""]),
                    pick(["0001-01-01", "9999-12-31", "1899-12-31", "1900-02-28", "1900-03-01", "2024-02-29", ""]),
                    pick(["2024-03-01T12:00:00+02:00", "2024-03-01T12:00:00-12:00", "0001-01-02T00:00:00+14:00", "9999-12-31T23:59:59Z",
                          "1900-02-28T23:30:00-05:30", "2024-10-27T01:30:00+00:00", ""]),
                    pick(["0x00", "0xff00ff", "0x" + String(repeating: "ab", count: 40), ""]),
                    csvField(listCell(tags.filter { _ in Int.random(in: 0..<3, using: &random) == 0 })),
                    csvField(pick(gaugeNames + [""])),
                ]
                gauges += fields.joined(separator: ",") + "\n"
            }
            csv["gauges.csv"] = gauges
            for (name, text) in csv { dir.write(name, text) }
            dir.write("model.yaml", Self.model)

            let first = dir.file("first.sqlite"), second = dir.file("second.sqlite")
            let order = [("Tag", "tags"), ("Service", "services"), ("Customer", "customers"), ("Order", "orders"), ("Gauge", "gauges")]
            func ok(_ store: String, _ args: [String]) -> String {
                let r = runCLI(["--store", store] + args, in: dir.path, environment: ["TZ": "UTC"])
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
            XCTAssertEqual(try queryStore(second, "SELECT (SELECT count(*) FROM Customer) || '/' || (SELECT count(*) FROM \"Order\") || '/' || ((SELECT count(*) FROM OrderRow) > 0) || '/' || (SELECT count(*) FROM Gauge)"),
                           ["8/12/1/8"], "round \(round)")
            XCTAssertEqual(objects(try storeContent(second)), objects(try storeContent(first)), "round \(round): the same objects")
            for (entity, _) in order {
                XCTAssertEqual(ok(second, ["export", entity]), exported[entity], "round \(round) (seed \(seed)): \(entity) exports the same bytes")
            }
            // And every query sees the same: each entity's attributes, the lists through both sides of a relationship.
            for args in [["fetch", "Gauge", "--format", "json"], ["fetch", "Gauge", "--columns", "name, labels.name", "--format", "csv"],
                         ["fetch", "Gauge", "--columns", "name, boss.name, reports.name", "--format", "json"],
                         ["fetch", "Tag", "--columns", "name, customers.name, gauges.name", "--format", "json"],
                         ["fetch", "Customer", "--columns", "name, code, info, tags.name", "--format", "json"],
                         ["fetch", "Order", "--format", "json"]] {
                XCTAssertEqual(ok(second, args), ok(first, args), "round \(round) (seed \(seed)): \(args)")
            }
            XCTAssertEqual(ok(second, ["fetch", "Customer", "--count", "--where", "tags.@count > 0"]),
                           ok(first, ["fetch", "Customer", "--count", "--where", "tags.@count > 0"]), "round \(round) (seed \(seed))")
        }
        reportTrials("export then import", "\(rounds) random stores with hostile text, list items and every attribute type at its edges "
                     + "(seed \(seed)): the same objects, the same bytes exported, the same fetch results")
    }

    /// An entity with every attribute type, and a many-to-many relationship to the built-in Tag.
    static let model = """
        entities:
          Gauge:
            kind: directory
            attributes:
              name:     { type: string, required: true }
              quantity: { type: integer }
              amount:   { type: decimal, scale: 2 }
              fine:     { type: decimal, scale: 6 }
              whole:    { type: decimal, scale: 0 }
              reading:  { type: double }
              flag:     { type: boolean }
              day:      { type: date }
              moment:   { type: datetime }
              blob:     { type: binary }
            relationships:
              labels: { to: Tag, inverse: gauges, many: true, inverse-many: true }
              boss:   { to: Gauge, inverse: reports }
        """

    /// The objects' tables only (the metadata holds the creation time, the history the file names).
    private func objects(_ content: String) -> String {
        var out: [Substring] = []
        var skipping = false
        // Split by scalars: a value ending in CR makes "\r\n" one Character, which a split by Character would not
        // split, hiding the import history's heading in the line before it.
        for scalars in content.unicodeScalars.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = String(scalars)
            if line.hasPrefix("## ") { skipping = line.hasPrefix("## _bookkeeper_") }
            if !skipping && !line.hasPrefix("CREATE") { out.append(Substring(line)) }
        }
        return out.joined(separator: "\n")
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
