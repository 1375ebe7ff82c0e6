import Foundation
@testable import ObjectStore
import TestSupport
import XCTest

/// Rows stream (single-row mode): stepping through a query's rows holds one row at a time, so the memory it takes
/// does not grow with the row count. Measured as the growth of this process's peak RSS (VmHWM, reset through
/// /proc/self/clear_refs) over its RSS before the query, at 250,000, 500,000 and 1,000,000 rows of (bigint, text);
/// a serial job (run-tests.py), so nothing beside it moves the figures. No time limits.
final class PostgreSQLStreamingTests: XCTestCase {
    /// glibc's malloc_trim (not in the Glibc module): gives freed heap memory back to the system.
    @_silgen_name("malloc_trim") static func mallocTrim(_ pad: Int) -> Int32

    /// This process's peak and current resident size, in bytes (/proc/self/status).
    static func residentSizes() -> (peak: Int, current: Int) {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        func field(_ name: String) -> Int {
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return 0 }
            return (Int(line.split(separator: " ").dropFirst().first { Int($0) != nil } ?? "0") ?? 0) * 1024
        }
        return (field("VmHWM"), field("VmRSS"))
    }

    /// Resets the peak to the current size (Linux: writing 5 to clear_refs).
    static func resetPeak() {
        let fd = open("/proc/self/clear_refs", O_WRONLY)
        guard fd >= 0 else { return }
        _ = write(fd, "5", 1)
        close(fd)
    }

    /// The peak RSS growth while `body` runs.
    static func peakGrowth(_ body: () throws -> Void) rethrows -> Int {
        _ = mallocTrim(0)  // what an earlier measure freed goes back to the system, so it does not hide this one's growth
        resetPeak()
        let before = residentSizes().current
        try body()
        return residentSizes().peak - before
    }

    func testSteppingThroughAMillionRowsDoesNotGrowWithTheRowCount() throws {
        let (_, db) = try PostgreSQLTestDatabase.freshSchema(self)
        try db.execute("CREATE TABLE big AS SELECT g::bigint AS id, 'row ' || g || repeat('x', 40) AS s FROM generate_series(1, 1000000) g")
        let query = "SELECT id, s FROM big WHERE id <= $1 ORDER BY id"
        func stream(_ rows: Int) throws -> Int {
            var count = 0, bytes = 0
            let growth = try Self.peakGrowth {
                let s = try db.prepare(query)
                s.bind([.integer(Int64(rows))])
                while try s.step() {
                    count += 1
                    bytes += s.text(1)?.count ?? 0
                    XCTAssertEqual(s.int64(0), Int64(count))
                }
                s.reset()
            }
            XCTAssertEqual(count, rows)
            XCTAssertGreaterThan(bytes, rows * 44)
            return growth
        }
        _ = try stream(10_000)  // warm up: first-use allocations are not the rows'
        let quarter = try stream(250_000), half = try stream(500_000), million = try stream(1_000_000)
        let mb = { (b: Int) in String(format: "%.2f MB", Double(b) / 1_048_576) }
        print("postgresql-streaming: peak RSS growth \(mb(quarter)) at 250,000 rows, \(mb(half)) at 500,000, \(mb(million)) at 1,000,000; "
              + "the process's peak RSS \(mb(Self.residentSizes().peak))")
        XCTAssertLessThan(half - quarter, 4 << 20, "doubling the rows grew the peak: \(mb(quarter)) → \(mb(half))")
        XCTAssertLessThan(million - half, 4 << 20, "doubling the rows grew the peak: \(mb(half)) → \(mb(million))")
        XCTAssertLessThan(million, 16 << 20, "a million rows streamed took \(mb(million))")

        // The measure sees rows that are kept: all of them read into memory grow with the count.
        let keptQuarter = try Self.peakGrowth { let s = try db.prepare(query); s.bind([.integer(250_000)]); _ = try s.allRows() }
        let keptHalf = try Self.peakGrowth { let s = try db.prepare(query); s.bind([.integer(500_000)]); _ = try s.allRows() }
        print("postgresql-streaming: rows kept in memory: \(mb(keptQuarter)) at 250,000 rows, \(mb(keptHalf)) at 500,000")
        XCTAssertGreaterThan(keptHalf - keptQuarter, 8 << 20, "the measure does not see kept rows")

        // Abandoned after ten rows outside a transaction (the rest cancelled), the connection runs the next query.
        let s = try db.prepare("SELECT id, s FROM big")
        for _ in 0..<10 { XCTAssertTrue(try s.step()) }
        s.reset()
        XCTAssertEqual(try db.int("SELECT count(*) FROM big"), 1_000_000)
    }
}
