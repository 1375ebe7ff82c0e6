import ObjectStore
import ReportRenderers
import TestSupport
import XCTest

/// A list cell's text (`PlainText.list`, the renderers') is the list `export` writes (ObjectStore's `ListText.join`):
/// the same items quoted the same way, for hostile items.
final class ListCellTextTests: XCTestCase {
    func testAListCellIsJoinedAsExportJoinsAList() {
        let pieces = ["a", "Zoë", " ", "\"", "\"\"", ",", ";", "\t", "\n", "\r\n", "\u{A0}", "\u{2028}", "\u{85}", "\u{301}", "😀", "x\"y", "'", "\\"]
        var random = SeededGenerator(seed: 27)
        let cells = CellFormatter(timeZone: .utc)
        for round in 0..<2_000 {
            let items = (0..<random.next(upTo: 5)).map { _ in (0..<random.next(upTo: 5)).map { _ in random.pick(pieces) }.joined() }
            let cell = ReportCell.list(items.map { .text($0) })
            XCTAssertEqual(cells.plain(cell, as: .text), ListText.join(items), "round \(round): \(items)")
            XCTAssertEqual(cells.display(cell, as: .text), ListText.join(items), "round \(round): \(items)")
        }
    }
}
