import Foundation
import TestSupport
import XCTest

/// A to-many column (`readings.at`) listed each item as `export` writes it, whatever the format: date-times in UTC
/// (`2024-07-01T10:00:00Z` beside a scalar column's `2024-07-01T12:00:00+02:00` in Berlin), booleans `yes`/`no` in
/// CSV and JSON (where a scalar column writes `true`/`false`), and JSON a string. Each item is now written as the
/// same value in a column of its own in that format, joined as a list in text and CSV, an array in JSON. The books:
/// sensors and their readings.
class ListColumnCommandTestCase: ZonedCommandTestCase {
    static let model = """
        entities:
          Sensor:
            kind: directory
            key: name
            attributes:
              name: { type: string, required: true }
          Reading:
            kind: directory
            key: name
            attributes:
              name: { type: string, required: true }
              at:   { type: datetime }
              ok:   { type: boolean }
              level: { type: decimal, scale: 2 }
              x:    { type: double }
              day:  { type: date }
            relationships:
              sensor: { to: Sensor, inverse: readings }
        """

    override func setUpWithError() throws {
        try super.setUpWithError()
        dir.write("model.yaml", Self.model)
        okIn("UTC", "--model", "model.yaml", "init")
        okIn("UTC", "add", "Sensor", "name=s1")
        okIn("UTC", "add", "Sensor", "name=s2")
        okIn("UTC", "add", "Reading", "name=r1", "sensor=s1", "at=2024-07-01T10:00:00Z", "ok=yes", "level=-1.50", "x=1e20", "day=2024-02-29")
        okIn("UTC", "add", "Reading", "name=r2", "sensor=s1", "at=2024-12-01T10:00:00Z", "ok=no", "level=1234.5", "x=0.1")
        okIn("UTC", "add", "Reading", "name=r3", "sensor=s1")
    }
}

/// `fetch`'s list columns, on a store file here and on books on PostgreSQL in `ListColumnCommandTestsOnPostgreSQL`.
class ListColumnCommandTests: ListColumnCommandTestCase {
    func testAListColumnWritesEachItemAsTheSameValueInAColumnOfItsOwn() throws {
        let tz = "Europe/Berlin"
        let columns = "at, ok, level, x, day"
        let listed = "name, " + columns.split(separator: ",").map { "readings." + $0.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
        // The scalar columns, the oracle.
        let scalar = parseCSV(okIn(tz, "fetch", "Reading", "--columns", columns, "--sort", "name", "--format", "csv"))
        XCTAssertEqual(scalar[1], ["2024-07-01T12:00:00+02:00", "true", "-1.50", "100000000000000000000", "2024-02-29"])
        let csv = parseCSV(okIn(tz, "fetch", "Sensor", "--columns", listed, "--sort", "name", "--format", "csv"))
        XCTAssertEqual(csv[1], ["s1", "2024-07-01T12:00:00+02:00, 2024-12-01T11:00:00+01:00", "true, false", "-1.50, 1234.50",
                                "100000000000000000000, 0.1", "2024-02-29"])
        XCTAssertEqual(csv[2], ["s2", "", "", "", "", ""])
        for (k, row) in csv[1].dropFirst().enumerated() {
            XCTAssertEqual(row, scalar.dropFirst().map { $0[k] }.filter { !$0.isEmpty }.joined(separator: ", "), "column \(k)")
        }
        XCTAssertEqual(okIn(tz, "fetch", "Sensor", "--columns", listed, "--sort", "name", "--format", "json"), """
            [
              {"name": "s1", "readings.at": ["2024-07-01T12:00:00+02:00", "2024-12-01T11:00:00+01:00"], "readings.ok": [true, false], "readings.level": [-1.50, 1234.50], "readings.x": [100000000000000000000, 0.1], "readings.day": ["2024-02-29"]},
              {"name": "s2", "readings.at": [], "readings.ok": [], "readings.level": [], "readings.x": [], "readings.day": []}
            ]

            """)
        XCTAssertEqual(okIn(tz, "fetch", "Reading", "--columns", "at, ok", "--sort", "name", "--limit", "1"), """
            at                ok
            ----------------  ---
            2024-07-01 12:00  yes
            1 object

            """)
        XCTAssertEqual(okIn(tz, "fetch", "Sensor", "--columns", "name, readings.at, readings.ok", "--sort", "name"), """
            name  readings.at                         readings.ok
            ----  ----------------------------------  -----------
            s1    2024-07-01 12:00, 2024-12-01 11:00  yes, no
            s2
            2 objects

            """)
    }
}

/// Every test of `ListColumnCommandTests` on books on PostgreSQL (the postgresql tier).
final class ListColumnCommandTestsOnPostgreSQL: ListColumnCommandTests {
    override class var storeKind: StoreKind { .postgresql }

    // Linux's test discovery finds only the tests a class declares itself (swift-package-manager#5573), so each
    // inherited test is named again here; StoreKindSuiteTests checks that none is missing.
    override func testAListColumnWritesEachItemAsTheSameValueInAColumnOfItsOwn() throws { try super.testAListColumnWritesEachItemAsTheSameValueInAColumnOfItsOwn() }
}

/// A report's list columns (`report` works on store files only until part 2 of issue 30).
final class ListColumnReportCommandTests: ListColumnCommandTestCase {
    func testAReportsListColumnWritesEachItemAsFetchDoes() throws {
        let tz = "Europe/Berlin"
        // A report's list column, in its zone and format, the same way (its format is the items': money here).
        dir.write("levels.yaml", "title: Levels\nentity: Sensor\nsort: name\ncolumns:\n  - { key: name, title: Sensor }\n"
                  + "  - { key: readings.at, title: At }\n  - { key: readings.level, title: Level, format: money }\n")
        XCTAssertEqual(okIn(tz, "report", "levels.yaml", "--format", "csv"),
                       "Sensor,At,Level\ns1,\"2024-07-01T12:00:00+02:00, 2024-12-01T11:00:00+01:00\",\"'-1.50, 1234.50\"\ns2,,\n")
        XCTAssertTrue(okIn(tz, "report", "levels.yaml", "--format", "json").contains(
            #"{"Sensor": "s1", "At": ["2024-07-01T12:00:00+02:00", "2024-12-01T11:00:00+01:00"], "Level": [-1.50, 1234.50]}"#))
        XCTAssertTrue(okIn(tz, "report", "levels.yaml").contains("s1      2024-07-01 12:00, 2024-12-01 11:00  -1.50, \"1,234.50\"\n"))
        // Totals of many numbers in a cell are refused.
        dir.write("levels.yaml", "title: Levels\nentity: Sensor\ncolumns:\n  - { key: readings.level, title: Level }\ntotals: [Level]\n")
        let totals = run(tz, ["report", "levels.yaml"])
        XCTAssertEqual(totals.status, 78, "\(totals)")
        XCTAssertEqual(totals.stderr, "bookkeeper: levels.yaml:5:10: totals: \"Level\" lists the values of the to-many path readings.level, many "
                       + "numbers in one cell — use an aggregate such as readings.@sum.level\n")
    }
}
