// Date-times as people write them: a time without an offset is a local time in the zone outputs use ($TZ), so
// that what is typed is what is shown (typed 12:00 in Berlin is stored as 11:00Z and listed as 12:00 again). A
// time with `Z` or an offset keeps its meaning. A local time the clocks skipped (a spring-forward gap) is refused
// with the value and the zone; one they passed twice (fall-back) is the earlier instant, as ISO 8601 and Python
// (fold=0) and PostgreSQL take it.
//
// Every entry point reads through here: import cells (ISO and --date-format), add/set values, predicate
// literals and --param values, model defaults, migrations' --default, BOOKKEEPER_TODAY.

import Foundation
import LocalTime

/// Why a text is not a date-time: the reason, to follow the quoted value.
package struct DateTimeProblem: Error, Sendable, Equatable {
    package let reason: String

    package static let malformed = DateTimeProblem(
        reason: "is not a date and time (expected YYYY-MM-DDTHH:MM:SS with an optional Z or ±HH:MM)")

    /// `+05:99`, `+24:00`: no offset a clock has.
    static func offsetOutOfRange(_ offset: String) -> DateTimeProblem {
        DateTimeProblem(reason: "has no possible offset \"\(offset)\" (an offset is ±HH:MM or ±HH:MM:SS, hours 00 to 23, minutes and seconds 00 to 59)")
    }
}

extension Timestamp {
    /// The first and last instants the store holds: 0001-01-01T00:00:00Z and 9999-12-31T23:59:59Z.
    package static let range: ClosedRange<Int64> = -62_135_596_800 ... 253_402_300_799

    /// `YYYY-MM-DDTHH:MM:SS` (or a space for `T`) with `Z`, `±HH:MM` or `±HH:MM:SS`, or without: then a local time
    /// in `zone`.
    package static func parse(_ text: some StringProtocol, in zone: Zone) -> Result<Timestamp, DateTimeProblem> {
        switch scan(text) {
        case .malformed: return .failure(.malformed)
        case .offsetOutOfRange(let offset): return .failure(.offsetOutOfRange(offset))
        case .parts(let local, let offset?): return checked(local - Int64(offset))
        case .parts(let local, nil): return Timestamp.local(local, in: zone)
        }
    }

    /// The instant of a local time (seconds since 1970-01-01T00:00:00 local) in `zone`.
    package static func local(_ local: Int64, in zone: Zone) -> Result<Timestamp, DateTimeProblem> {
        switch zone.resolve(localSeconds: local) {
        case .unique(let t), .ambiguous(let t, _): return checked(t)
        case .skipped(let from, let to, _): return .failure(DateTimeProblem(reason: zone.skippedReason(from: from, to: to)))
        }
    }

    /// Why an instant outside `range` is refused, after the quoted value.
    package static let outsideRangeReason = "falls outside the years 1 to 9999 in UTC"

    private static func checked(_ t: Int64) -> Result<Timestamp, DateTimeProblem> {
        guard range.contains(t) else { return .failure(DateTimeProblem(reason: outsideRangeReason)) }
        return .success(Timestamp(secondsSinceEpoch: t))
    }

    /// The local date of the instant in `zone`; nil outside the years 1 to 9999.
    package func day(in zone: Zone) -> Day? { Day(daysSinceEpoch: Int(zone.localDays(at: secondsSinceEpoch))) }
}

/// `BOOKKEEPER_TODAY`: a fixed now and today for a run, for tests and for re-running a past night.
///
/// Today is one thing for the whole process: `default: today` (add, import, migrate), `$TODAY` in predicates and
/// rules, and the reports' relative dates and generation time all read it here (`RunMoment.today`, `.now`), so
/// that a run under `BOOKKEEPER_TODAY=2020-01-01` fills, selects and reports 2020-01-01 alike. A value that is
/// neither a date nor a date-time is refused (status 78) before any work, by the command line's
/// `RunMoment.checkProcess()`, rather than quietly replaced by the clock.
package enum RunMoment {
    package static let environmentVariable = "BOOKKEEPER_TODAY"

    /// `YYYY-MM-DD` is that day from its first instant in `zone` (its midnight); an ISO date-time is that moment (a
    /// local time in `zone` without an offset), today its local date. Nil when the text is neither.
    package static func fixed(_ text: String, zone: Zone) -> Result<(now: Timestamp, today: Day), DateTimeProblem>? {
        if let day = Day(iso: text) {
            // 0001-01-01 east of Greenwich starts in year 0 in UTC: no now a run can have (a report's generation time).
            let start = zone.startOfDay(days: Int64(day.daysSinceEpoch))
            guard Timestamp.range.contains(start) else {
                return .failure(DateTimeProblem(reason: "starts outside the years 1 to 9999 in UTC in \(zone.name)"))
            }
            return .success((Timestamp(secondsSinceEpoch: start), day))
        }
        guard Timestamp.scan(text) != .malformed else { return nil }
        switch Timestamp.parse(text, in: zone) {
        case .failure(let problem): return .failure(problem)
        case .success(let now):
            guard let today = now.day(in: zone) else {
                return .failure(DateTimeProblem(reason: "falls outside the years 1 to 9999 in \(zone.name)"))
            }
            return .success((now, today))
        }
    }

    /// The fixed moment `environment` gives (nil when `BOOKKEEPER_TODAY` is unset or empty), or why it is none.
    package static func fixed(environment: [String: String], zone: Zone) throws(RunMomentError) -> (now: Timestamp, today: Day)? {
        guard let text = environment[environmentVariable], !text.isEmpty else { return nil }
        switch fixed(text, zone: zone) {
        case .success(let moment)?: return moment
        case .failure(let problem)?: throw RunMomentError(message: "\(environmentVariable): \"\(text)\" \(problem.reason)")
        case nil:
            throw RunMomentError(message: "\(environmentVariable): \"\(text)\" is neither a date (YYYY-MM-DD) nor a date-time "
                                 + "(YYYY-MM-DDTHH:MM:SSZ)")
        }
    }

    /// This process's `BOOKKEEPER_TODAY`, read once in the process's zone.
    private static let processMoment: Result<(now: Timestamp, today: Day)?, RunMomentError> = {
        Result { () throws(RunMomentError) in try fixed(environment: ProcessInfo.processInfo.environment, zone: .process) }
    }()

    /// Refuses a `BOOKKEEPER_TODAY` that is neither a date nor a date-time (the command line, before any work).
    package static func checkProcess() throws(RunMomentError) { _ = try processMoment.get() }

    /// Today for this run: `BOOKKEEPER_TODAY`'s day when set, else the clock's date in the process's zone (TZ).
    package static var today: Day {
        if case .success(let moment?) = processMoment { return moment.today }
        return Day.today(zone: .process)
    }

    /// Now for this run: `BOOKKEEPER_TODAY`'s moment when set (a date's midnight), else the clock.
    package static var now: Timestamp {
        if case .success(let moment?) = processMoment { return moment.now }
        return Timestamp.now()
    }
}

/// A `BOOKKEEPER_TODAY` that is neither a date nor a date-time, or a local time the clocks skip: bad configuration.
package struct RunMomentError: CategorizedError, Equatable {
    package let message: String
    package var category: ErrorCategory { .configuration }
    package var description: String { message }
}

/// A TZ that names no zone is a configuration error (status 78), as a bad model or report definition.
extension ZoneError: CategorizedError {
    package var category: ErrorCategory { .configuration }
}
