import LocalTime
import ObjectStore
import ReportRenderers
import Reports
import TestSupport
import XCTest

/// Every instant the store holds (the years 1 to 9999 in UTC) is written by `fetch` (CSV and JSON), `list` and
/// `show` in the run's zone, where it may fall in year 0 (west of Greenwich) or in year 10000 (east): what is written
/// must read back, as a value (`set`, `add`, import cells) and as a predicate's literal. `0001-01-01T00:00:00Z` was
/// written `0000-12-31T19:03:58-04:56:02` in New York and refused when given back ("is not a date and time").
final class DateTimeEndsReadBackTests: XCTestCase {
    /// Zones from −23:59 to +23:59, local mean times with seconds, and real zones. (A POSIX string takes hours to 24,
    /// and what is written at an offset of 24 hours or more does not read back: a problem of its own, left out here.)
    static let zones = ["America/New_York", "Pacific/Honolulu", "<-14>14", "<-2359>23:59", "<+2359>-23:59", "<-013015>1:30:15",
                        "Asia/Tokyo", "Pacific/Kiritimati", "<+14>-14", "Africa/Monrovia", "UTC", "Europe/Berlin"]

    func testEveryInstantNearTheEndsReadsBackAsWrittenInEveryZone() throws {
        let seed = Trials.seed("BOOKKEEPER_ENDS_SEED", fixed: 20261127)
        var random = SeededGenerator(seed: seed)
        let trials = Trials.count("BOOKKEEPER_ENDS_TRIALS", quick: 3000, stress: 60_000)
        let zones = try Self.zones.map { try Zone(tz: $0) }
        let format = ColumnFormat(defaultFor: .dateTime)
        var checked = 0
        for trial in 0..<trials {
            let zone = zones[trial % zones.count]
            // The first and last instants themselves, then any within two days of either end.
            let t: Int64 = switch trial / zones.count {
            case 0: Timestamp.range.lowerBound
            case 1: Timestamp.range.upperBound
            default:
                Bool.random(using: &random) ? Timestamp.range.lowerBound + Int64.random(in: 0...2 * 86_400, using: &random)
                    : Timestamp.range.upperBound - Int64.random(in: 0...2 * 86_400, using: &random)
            }
            let value = Value.dateTime(Timestamp(secondsSinceEpoch: t))
            let written = CellFormatter(timeZone: zone).plain(ReportCell(value), as: format)
            // As a value: `set`, `add` and import cells read it in the zone.
            guard case .success(let read) = Timestamp.parse(written, in: zone) else {
                XCTFail("\(value) written \(written) in \(zone.name) does not read back: \(Timestamp.parse(written, in: zone))")
                continue
            }
            XCTAssertEqual(read.secondsSinceEpoch, t, "\(written) in \(zone.name)")
            XCTAssertEqual(Timestamp(iso: written)?.secondsSinceEpoch, t, written)
            // Without its offset, as a person retypes what `fetch` shows, it is the same local time there: the same
            // instant, or the earlier of two when the clocks passed that time twice.
            let local = Self.withoutOffset(written)
            if case .success(let again) = Timestamp.parse(local, in: zone) {
                XCTAssertLessThanOrEqual(again.secondsSinceEpoch, t, "\(local) in \(zone.name)")
            } else {
                XCTFail("\(local) (\(written) without its offset) does not read back in \(zone.name)")
            }
            // JSON writes the same text, in quotes.
            let json = CellFormatter(timeZone: zone).json(ReportCell(value), as: format)
            XCTAssertEqual(json, "\"\(written)\"")
            checked += 1
        }
        XCTAssertEqual(checked, trials)
        reportTrials("date-time ends read back", "seed \(seed), \(trials) instants within two days of year 1 and year 9999 in \(zones.count) zones: written, read back")
    }

    /// `0000-12-31T19:03:58-04:56:02` → `0000-12-31T19:03:58`: the text before the offset (or `Z`).
    static func withoutOffset(_ written: String) -> String {
        let bytes = Array(written.utf8)
        let end = bytes.lastIndex { $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "Z") }!
        return String(decoding: bytes[..<end], as: UTF8.self)
    }
}
