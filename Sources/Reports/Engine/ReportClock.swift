// What "now" and "today" are for a run: the generation time in headers, and the day relative dates
// (`today`, `start of last month`) and `$TODAY` count from.
//
// `BOOKKEEPER_TODAY` fixes both, for tests and for re-running a past night's reports:
// `BOOKKEEPER_TODAY=2026-11-21` (that day, 00:00 in the time zone) or an ISO date-time
// `BOOKKEEPER_TODAY=2026-11-21T21:00:00Z`. Without it, the system clock in the process's time zone
// (TZ).

import Foundation
import ObjectStore

public struct ReportClock: Sendable {
    /// The generation time.
    public var now: Date
    /// The zone of the generation time, of date-time cells and of "today".
    public var timeZone: TimeZone
    public var today: Day

    public init(now: Date, timeZone: TimeZone) {
        self.now = now
        self.timeZone = timeZone
        self.today = Day.today(now: now, timeZone: timeZone)
    }

    public static let environmentVariable = "BOOKKEEPER_TODAY"

    /// The system clock, or `BOOKKEEPER_TODAY` when set.
    public static func current(environment: [String: String] = ProcessInfo.processInfo.environment,
                               timeZone: TimeZone = .current) throws -> ReportClock {
        guard let text = environment[environmentVariable], !text.isEmpty else {
            return ReportClock(now: Date(), timeZone: timeZone)
        }
        if let day = Day(iso: text) {
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = timeZone
            let midnight = calendar.date(from: DateComponents(year: day.year, month: day.month, day: day.day))!
            return ReportClock(now: midnight, timeZone: timeZone)
        }
        if let moment = Timestamp(iso: text) {
            return ReportClock(now: Date(timeIntervalSince1970: TimeInterval(moment.secondsSinceEpoch)), timeZone: timeZone)
        }
        throw ReportInputError("\(environmentVariable): \"\(text)\" is neither a date (YYYY-MM-DD) nor a date-time "
                               + "(YYYY-MM-DDTHH:MM:SSZ)", category: .configuration)
    }
}
