// How a report names the time zone its date-times are shown in (the About sheet, the header of the text report).

import Foundation
import LocalTime
import ValueText

extension Zone {
    /// The zone's name (Zone.name: `Europe/Helsinki`, `UTC` for UTC and its aliases, a POSIX TZ string as written).
    var reportIdentifier: String { name }

    /// `UTC` for UTC and its aliases; otherwise the name with the offset at `date`:
    /// `Europe/Helsinki (UTC+02:00)`, `EST5EDT,M3.2.0,M11.1.0 (UTC-04:00)`.
    func reportLabel(at date: Date) -> String {
        if name == "UTC" { return name }
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down))
        return "\(name) (UTC\(CalendarText.isoOffset(seconds: offset(at: seconds))))"
    }
}
