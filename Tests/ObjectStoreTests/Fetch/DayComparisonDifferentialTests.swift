import Foundation
import LocalTime
import TestSupport
import XCTest
@testable import ObjectStore

/// A date-time compared with a date (`checked >= "2024-03-01"`, `checked < $TODAY`, a report's date parameter) was
/// refused — 64 quoting a value nobody typed for $TODAY, 78 for a report's date parameter. Now it compares with the
/// date's local day in the process's zone: the objects whose local date (as fetch shows it) stands so to the day,
/// in SQL and in the evaluator alike, for instants around local midnights (run it under TZ=America/Santiago,
/// Europe/Berlin, …: the zone is the process's, as the command line's is).
final class DayComparisonDifferentialTests: XCTestCase {
    func testADateTimeComparedWithADateComparesItsLocalDay() throws {
        let seed = Trials.seed(fixed: 25_12)
        var rng = SeededGenerator(seed: seed)
        let zone = Zone.process
        let (store, dir) = try TestModel.makeStore()
        _ = dir
        let c = ObjectContext(store: store)
        // Days around the clocks' changes in the north and the south, and Santiago's skipped midnight (2024-09-08).
        let bases = ["2024-03-29", "2024-04-04", "2024-09-06", "2024-10-25"].map { Int64(Day(iso: $0)!.daysSinceEpoch) }
        var instants: [Int64?] = [nil]
        for _ in 0..<120 {
            let day = rng.pick(bases) + Int64(rng.next(upTo: 5))
            let start = zone.startOfDay(days: day)
            instants.append(start + Int64(rng.next(upTo: 7201)) - 3600)
        }
        for (k, t) in instants.enumerated() {
            let o = try c.insert("Book")
            o["isbn"] = .string(String(k))
            o["title"] = .string("t")
            o["checked"] = t.map { .dateTime(Timestamp(secondsSinceEpoch: $0)) } ?? .null
        }
        try c.save()
        let localDays = instants.map { $0.map { Timestamp(secondsSinceEpoch: $0).day(in: zone)!.description } }
        var checked = 0
        for _ in 0..<Trials.count("BOOKKEEPER_DAY_COMPARISON_TRIALS", quick: 120, stress: 2000) {
            let base = Int(rng.pick(bases))
            let d = Day(daysSinceEpoch: base - 1 + rng.next(upTo: 7))!.description
            let e = Day(daysSinceEpoch: base - 1 + rng.next(upTo: 7))!.description
            let op = rng.pick(["==", "!=", "<", "<=", ">", ">=", "BETWEEN"])
            let predicate = op == "BETWEEN" ? "checked BETWEEN {'\(d)', '\(e)'}" : "checked \(op) $D"
            let expected = Set(localDays.indices.filter { k in
                guard let local = localDays[k] else { return op == "!=" }
                switch op {
                case "==": return local == d
                case "!=": return local != d
                case "<": return local < d
                case "<=": return local <= d
                case ">": return local > d
                case ">=": return local >= d
                default: return local >= d && local <= e
                }
            }.map { String($0) })
            let request = ObjectFetchRequest(entity: "Book", predicate: predicate, variables: ["D": d])
            let plan = try FetchPlan(request, model: store.model, columns: [])
            let sql = try c.fetch(plan).map { $0["isbn"].description }
            let memory = try c.fetchInMemory(plan).map { $0["isbn"].description }
            XCTAssertEqual(Set(sql), expected, "\(predicate) with D = \(d) in \(zone) (seed \(seed))")
            XCTAssertEqual(Set(memory), expected, "\(predicate) in memory, D = \(d) (seed \(seed))")
            checked += 1
        }
        reportTrials("day comparisons", "\(checked) date-time-to-date comparisons in \(zone) (seed \(seed))")
    }
}
