// The ends of the calendar in an XLSX file: instants near year 1 and 9999 shown in zones from -14 to +14 hours, and
// a generation time (BOOKKEEPER_TODAY) before year 1000, must give a file every reader opens.

import Foundation
import LocalTime
import TestSupport
import XCTest
@testable import ReportRenderers

final class XLSXCalendarEndsTests: XCTestCase {
    /// core.xml's `created` as written.
    private func created(_ path: String) throws -> String {
        let r = try OpenpyxlWorkbook.run([OpenpyxlWorkbook.python, "-c", """
            import sys, zipfile, re
            core = zipfile.ZipFile(sys.argv[1]).read("docProps/core.xml").decode()
            print(re.search(r"<dcterms:created[^>]*>([^<]*)<", core).group(1))
            """, path])
        return String(decoding: r.output, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) + r.error
    }

    /// `TZ=Asia/Tokyo BOOKKEEPER_TODAY=0001-01-01` wrote `created` = `0-12-31T14:41:01Z`, which openpyxl refuses;
    /// any generation time before year 1000 had a year of fewer than four digits. Now `created` is held to the years
    /// 1000 to 9999, and cells at both ends in ±14h zones are dates or text, never a trap.
    func testCoreXMLNeverGetsAYearOutsideOneThousandToNineThousandNineHundredNinetyNine() throws {
        let folder = try TemporaryFolder()
        let ends: [Int64] = [-62_135_596_800, -62_135_596_800 + 3600, -30_610_224_001, -50_000_000_000, 253_402_300_799,
                             253_402_300_799 - 3600, 1_795_294_800]
        for tz in ["<+14>-14", "<-14>14", "Asia/Tokyo"] {
            let zone = try Zone(tz: tz)
            for (k, generated) in ends.enumerated() {
                let document = ReportDocument(
                    name: "ends", title: "Ends", generatedAt: Date(timeIntervalSince1970: TimeInterval(generated)),
                    timeZone: zone, columns: [ReportColumn(title: "At"), ReportColumn(title: "Day", format: .date)])
                var rows = ArrayRowSource(ends.map { [.dateTime(secondsSinceEpoch: $0), .dateTime(secondsSinceEpoch: $0)] })
                let path = folder.file("ends\(k).xlsx")
                try XLSXRenderer().render(document, rows: &rows, to: .file(path: path))
                let text = try created(path)
                XCTAssertNotNil(text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/), "\(tz) \(generated): \(text)")
                if generated < -30_610_224_000 { XCTAssertEqual(text, "1000-01-01T00:00:00Z") }
                if generated == 1_795_294_800 { XCTAssertEqual(text, "2026-11-21T21:00:00Z") }
            }
        }
    }
}
