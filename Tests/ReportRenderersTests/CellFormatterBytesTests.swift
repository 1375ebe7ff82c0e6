// `CellFormatter.appendPlain` (what `fetch --format csv` writes each field with, issue 27) against
// `CellFormatter.plain`, the String form it replaced, on generated cells of every kind (the seed is printed;
// STRESS_SEED replays one).

import Foundation
import LocalTime
import TestSupport
import XCTest
@testable import ReportRenderers

final class CellFormatterBytesTests: XCTestCase {
    func testAppendedBytesAreThePlainString() throws {
        let seed = Trials.seed(fixed: 2728)
        var g = SeededGenerator(seed: seed)
        let cells = CellFormatter(timeZone: try Zone(tz: "America/St_Johns"))
        var bytes: [UInt8] = [UInt8(ascii: "#")]   // appended to, never replaced
        var trials = 0
        for _ in 0..<Trials.count("BOOKKEEPER_CELL_BYTES_TRIALS", quick: 20_000, stress: 400_000) {
            let cell = RendererBytesDifferentialTests.cell(&g)
            let format = g.pick(ColumnFormat.allCases)
            bytes.removeSubrange(1...)
            cells.appendPlain(cell, as: format, to: &bytes)
            XCTAssertEqual(String(decoding: bytes.dropFirst(), as: UTF8.self), cells.plain(cell, as: format),
                           "seed \(seed): \(cell) as \(format)")
            XCTAssertEqual(bytes.first, UInt8(ascii: "#"))
            trials += 1
        }
        reportTrials("CellFormatter.appendPlain against plain", "seed \(seed), \(trials) cells compared")
    }
}
