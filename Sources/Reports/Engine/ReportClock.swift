// What "now" and "today" are for a run: the generation time in headers, and the day relative dates
// (`today`, `start of last month`) and `$TODAY` count from.
//
// `BOOKKEEPER_TODAY` fixes both, for tests and for re-running a past night's reports:
// `BOOKKEEPER_TODAY=2026-11-21` (that day, from its midnight in the time zone), an ISO date-time with an offset
// `BOOKKEEPER_TODAY=2026-11-21T21:00:00Z`, or one without, a local time in the zone (RunMoment in ObjectStore).
// Without it, the system clock. The zone is the run's: TZ as glibc reads it (LocalTime's Zone).

import Foundation
import LocalTime
import ObjectStore

package struct ReportClock: Sendable {
    /// The generation time.
    package var now: Date
    /// The zone of the generation time, of date-time cells and of "today".
    package var timeZone: Zone
    package var today: Day

    package init(now: Date, timeZone: Zone) {
        self.now = now
        self.timeZone = timeZone
        self.today = Day.today(now: now, zone: timeZone)
    }

    init(now: Date, timeZone: Zone, today: Day) {
        self.now = now
        self.timeZone = timeZone
        self.today = today
    }

    package static let environmentVariable = RunMoment.environmentVariable

    /// The system clock, or `BOOKKEEPER_TODAY` when set (read as RunMoment reads it for the whole process).
    package static func current(environment: [String: String] = ProcessInfo.processInfo.environment,
                               timeZone: Zone) throws -> ReportClock {
        guard let moment = try RunMoment.fixed(environment: environment, zone: timeZone) else {
            return ReportClock(now: Date(), timeZone: timeZone)
        }
        return ReportClock(now: Date(timeIntervalSince1970: TimeInterval(moment.now.secondsSinceEpoch)),
                           timeZone: timeZone, today: moment.today)
    }
}
