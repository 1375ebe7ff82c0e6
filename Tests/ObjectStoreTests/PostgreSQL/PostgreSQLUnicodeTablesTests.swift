import XCTest
@testable import ObjectStore

/// The tables our PostgreSQL functions are made from look only at the planes that hold assigned characters
/// (`PostgreSQLUnicodeTables.assignedSpans`); a scan of every scalar must give the same tables, or the skipped planes
/// held something after all (a newer Unicode in this process's data).
final class PostgreSQLUnicodeTablesTests: XCTestCase {
    func testSkippingTheUnassignedPlanesLosesNothing() {
        let full = PostgreSQLUnicodeTables(scanning: [0...0x10FFFF])
        let shared = PostgreSQLUnicodeTables.shared
        XCTAssertEqual(full.singleFrom, shared.singleFrom)
        XCTAssertEqual(full.singleTo, shared.singleTo)
        XCTAssertEqual(full.multi.map { [$0.0] + $0.1 }, shared.multi.map { [$0.0] + $0.1 })
        XCTAssertEqual(full.simpleCaseClasses.map { [$0.0] + $0.1 }, shared.simpleCaseClasses.map { [$0.0] + $0.1 })
        for (name, a, b) in [("combining marks", full.combiningMarks, shared.combiningMarks), ("digits", full.digits, shared.digits),
                             ("spaces", full.spaces, shared.spaces), ("word characters", full.wordCharacters, shared.wordCharacters),
                             ("extending", full.extending, shared.extending), ("controls", full.controls, shared.controls),
                             ("pictographs", full.pictographs, shared.pictographs)] {
            XCTAssertEqual(a, b, name)
        }
        XCTAssertFalse(shared.pictographs.isEmpty)
    }
}
