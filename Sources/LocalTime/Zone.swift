// The time zone of a run: what `TZ` says, read as glibc reads it, so that bookkeeper shows and reads the times
// `date` and every other program on the machine shows and reads.
//
//     TZ unset                 /etc/localtime (UTC when there is none)
//     TZ=""  or  TZ=":"        UTC
//     TZ=:name or TZ=name      the zoneinfo file $TZDIR/name (default /usr/share/zoneinfo/name), else, when there is
//                              no such file, name read as a POSIX TZ string (POSIXRule.swift)
//     TZ=/path                 that zoneinfo file
//
// A TZ that names neither a zoneinfo file nor a POSIX TZ string (`Bogus/Zone`, `garbage!!`, a file that is not TZif)
// is refused with ZoneError, where glibc (and Foundation, which understands only bare names) silently uses UTC.
//
// Why not Foundation's TimeZone or glibc's localtime_r: TimeZone.current on Linux reads only a bare identifier from
// TZ, so `:America/New_York`, a path and every POSIX string came out as UTC; and glibc keeps one zone per process,
// behind a lock, set through the environment, so a second zone (a test's, a report's) cannot stand beside it. The
// zone is instead read here, from the same files by the same rules as glibc: the files' transitions, then their
// footers; a POSIX string's changes per UTC year as __tz_compute computes them. ZoneDifferentialTests compares the
// offsets and abbreviations with glibc's localtime_r for random instants in each form. The cost is a binary search
// per instant (offset(at:)); local→instant (resolve) looks at the transitions within a day either side. Measured
// (x86-64, -O, 2 million instants, Europe/Berlin): offset 0.11 µs, as Foundation's secondsFromGMT (0.09 µs); resolve
// 0.25 µs; glibc's localtime_r 0.65 µs and mktime 0.7 µs, behind their lock.

#if canImport(Glibc)
import Glibc
#endif

package struct Zone: Sendable, CustomStringConvertible {
    /// What outputs call the zone: `America/New_York` for TZ=America/New_York, TZ=:America/New_York and
    /// TZ=/usr/share/zoneinfo/America/New_York; `UTC` for UTC and its aliases; a POSIX TZ string as written
    /// (`EST5EDT,M3.2.0,M11.1.0`), since its abbreviations (EST, CET) do not say which rules it has.
    package let name: String
    let rules: Rules
    /// The largest offset of the zone, and a second: every instant with a given local time lies within this many
    /// seconds of that local time read as UTC.
    let reach: Int64

    // Indirect: a zone is copied with every value converter (a copy a cell), so it is kept to a pointer and a name;
    // inline, a POSIX rule made each copy a large move, and an import 10% slower.
    indirect enum Rules: Sendable {
        case fixed(offset: Int, abbreviation: String)
        case posix(POSIXRule)
        case file(ZoneFile)
    }

    init(name: String, rules: Rules) {
        self.name = name
        self.rules = rules
        switch rules {
        case .fixed(let offset, _): reach = Int64(abs(offset)) + 1
        case .posix(let rule): reach = Int64(rule.largestOffsetMagnitude) + 1
        case .file(let file): reach = Int64(file.largestOffsetMagnitude) + 1
        }
    }

    package static let utc = Zone(name: "UTC", rules: .fixed(offset: 0, abbreviation: "UTC"))

    package var description: String { name }

    // MARK: Reading TZ

    static let defaultDirectory = "/usr/share/zoneinfo"
    static let localtimePath = "/etc/localtime"

    /// The zone `tz` names (nil: TZ unset), read as glibc reads it; `zoneinfoDirectory` is `TZDIR`.
    package init(tz: String?, zoneinfoDirectory: String? = nil) throws(ZoneError) {
        let directory = zoneinfoDirectory.flatMap { $0.isEmpty ? nil : $0 } ?? Zone.defaultDirectory
        guard var spec = tz else {
            // The system's zone; UTC when there is none (a container), as glibc.
            do {
                let file = try ZoneFile.read(path: Zone.localtimePath)
                self.init(name: Zone.systemZoneName(file), rules: .file(file))
            } catch where error.kind == .missing {
                self = .utc
            } catch {
                throw ZoneError(tz: nil, reason: "TZ is unset and \(error.reason)")
            }
            return
        }
        if spec.hasPrefix(":") { spec.removeFirst() }
        if spec.isEmpty {
            self = .utc
            return
        }
        let path = spec.hasPrefix("/") ? spec : directory + "/" + spec
        let read: Result<ZoneFile, ZoneFile.ReadError> = Result { () throws(ZoneFile.ReadError) in try ZoneFile.read(path: path) }
        let fileError: ZoneFile.ReadError
        switch read {
        case .success(let file):
            self.init(name: Zone.name(forFile: spec, directory: directory, file), rules: .file(file))
            return
        case .failure(let error):
            fileError = error
        }
        // No zone file: a POSIX TZ string (as glibc, also after a colon and when a file by the name is not TZif).
        do {
            let rule = try POSIXRule(parsing: spec)
            let isUTC = rule.daylight == nil && rule.standardOffset == 0 && ["UTC", "GMT", "UCT"].contains(rule.standardName)
            self.init(name: isUTC ? "UTC" : spec, rules: rule.daylight == nil
                ? .fixed(offset: rule.standardOffset, abbreviation: rule.standardName) : .posix(rule))
        } catch {
            if fileError.kind == .missing && !spec.hasPrefix("/") {
                throw ZoneError(tz: tz, reason: "\(fileError.reason), and it is not a POSIX TZ string: \(error.reason)")
            }
            throw ZoneError(tz: tz, reason: fileError.reason)
        }
    }

    /// Refuses, as the process's zone, one 24 hours or more from UTC (POSIX allows hours up to 24, glibc reads them): every date-time
    /// is written with its offset, and an ISO 8601 offset ends at 23:59:59, so a value shown in such a zone could not
    /// be given back to any command.
    func requireWritableOffsets(_ tz: String?) throws(ZoneError) {
        let largest = reach - 1
        guard largest >= 86_400 else { return }
        let h = largest / 3600, m = largest % 3600 / 60
        throw ZoneError(tz: tz, reason: (tz == nil ? "TZ is unset and the system's zone (\(Zone.localtimePath))" : "it")
                        + " is \(h):\(m < 10 ? "0" : "")\(m) hours from UTC at some time, and a date-time is written "
                        + "with an offset of at most 23:59:59 (ISO 8601), so no value shown in it could be read back", unwritable: true)
    }

    /// The aliases of UTC, which outputs call `UTC`.
    static let utcNames: Set<String> = [
        "UTC", "GMT", "Etc/UTC", "Etc/GMT", "Etc/Universal", "Etc/Zulu", "Universal", "Zulu", "Etc/GMT0", "Etc/GMT+0",
        "Etc/GMT-0", "GMT0", "GMT+0", "GMT-0", "UCT", "Etc/UCT", "Greenwich", "Etc/Greenwich",
    ]

    /// The name a file is known by: the part of its path under the zoneinfo directory (`America/New_York` for
    /// `/usr/share/zoneinfo/America/New_York`), else the path as given; UTC's aliases are `UTC`.
    /// The path is first made plain (`.`, `..` and doubled or trailing slashes resolved as written), so that
    /// `/usr/share/zoneinfo/../zoneinfo/Asia/Tokyo`, and a path under `TZDIR=/x/`, are `Asia/Tokyo` too.
    static func name(forFile spec: String, directory: String, _ file: ZoneFile) -> String {
        let path = lexicalPath(spec.hasPrefix("/") ? spec : directory + "/" + spec)
        let base = lexicalPath(directory)
        var name = spec.hasPrefix("/") ? path : lexicalPath(spec, relative: true)
        if path.hasPrefix(base == "/" ? "/" : base + "/"), path.count > base.count {
            name = String(path.dropFirst(base == "/" ? 1 : base.count + 1))
        } else if let under = afterZoneinfo(path) {
            name = under
        } else if let target = resolvedPath(path), let under = afterZoneinfo(target) {
            name = under
        }
        return file.isUTC && utcNames.contains(name) ? "UTC" : name
    }

    /// `path` with `.` and empty parts dropped and each `..` taking the part before it, as written (not through
    /// links: only for naming). A relative path keeps a `..` it cannot resolve.
    static func lexicalPath(_ path: String, relative: Bool = false) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == "..", let last = parts.last, last != ".." { parts.removeLast(); continue }
            if part == "..", !relative { continue }
            parts.append(part)
        }
        return (relative ? "" : "/") + parts.joined(separator: "/")
    }

    /// /etc/localtime's zone: the name its link points at (`/usr/share/zoneinfo/Europe/Berlin`), else the one in
    /// /etc/timezone (Debian's), else the file's footer (`CET-1CEST,M3.5.0,M10.5.0/3`), else `localtime`.
    static func systemZoneName(_ file: ZoneFile) -> String {
        var name: String?
        if let target = resolvedPath(localtimePath), let under = afterZoneinfo(target) {
            name = under
        } else if let text = try? readSmallText("/etc/timezone") {
            let line = text.split(whereSeparator: \.isNewline).first.map(String.init) ?? ""
            if !line.isEmpty, !line.contains(" ") { name = line }
        }
        let chosen = name ?? file.footerText ?? "localtime"
        return file.isUTC && utcNames.contains(chosen) ? "UTC" : chosen
    }

    /// `Europe/Berlin` for `/usr/share/zoneinfo/Europe/Berlin`.
    static func afterZoneinfo(_ path: String) -> String? {
        let marker = Array("/zoneinfo/".utf8), bytes = Array(path.utf8)
        guard bytes.count > marker.count else { return nil }
        for start in 0...(bytes.count - marker.count) where Array(bytes[start..<start + marker.count]) == marker {
            let rest = String(decoding: bytes[(start + marker.count)...], as: UTF8.self)
            return rest.isEmpty ? nil : rest
        }
        return nil
    }

    static func resolvedPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The start of a small regular file (/etc/timezone); never waits on a FIFO or a device.
    static func readSmallText(_ path: String) throws -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { throw ZoneFile.ReadError(kind: .missing, reason: path) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw ZoneFile.ReadError(kind: .notAFile, reason: path)
        }
        var buffer = [UInt8](repeating: 0, count: 256)
        let n = buffer.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress!, $0.count) }
        return String(decoding: buffer[..<max(0, n)], as: UTF8.self)
    }

    // MARK: The process's zone

    private static let processZone: Result<Zone, ZoneError> = {
        let tz = getenv("TZ").map { String(cString: $0) }
        let directory = getenv("TZDIR").map { String(cString: $0) }
        // (LocalTime reads such a zone as glibc does; the process's zone is the one bookkeeper writes times in.)
        return Result { () throws(ZoneError) -> Zone in
            let zone = try Zone(tz: tz, zoneinfoDirectory: directory)
            try zone.requireWritableOffsets(tz)
            return zone
        }
    }()

    /// The zone of this process ($TZ, $TZDIR), read once; a TZ that names no zone is the error.
    package static func current() throws(ZoneError) -> Zone { try processZone.get() }

    /// The zone of this process, for code that cannot throw. The command line calls `current()` before every command
    /// that reads or shows a local time or today, and refuses a bad TZ there (status 78); only a caller that did not
    /// gets UTC here for a TZ that names no zone.
    package static var process: Zone { (try? processZone.get()) ?? .utc }

    // MARK: Instants and local times

    /// Seconds east of Greenwich at `t` (seconds since 1970-01-01T00:00:00Z).
    package func offset(at t: Int64) -> Int {
        switch rules {
        case .fixed(let offset, _): return offset
        case .posix(let rule): return rule.offset(at: t)
        case .file(let file): return file.offset(at: t)
        }
    }

    /// The abbreviation at `t` (`CET`, `EDT`, `+03`).
    package func abbreviation(at t: Int64) -> String {
        switch rules {
        case .fixed(_, let abbreviation): return abbreviation
        case .posix(let rule): return rule.abbreviation(at: t)
        case .file(let file): return file.abbreviation(at: t)
        }
    }

    /// The local time at `t`, as seconds since 1970-01-01T00:00:00 local.
    package func localSeconds(at t: Int64) -> Int64 { t + Int64(offset(at: t)) }

    /// The local date at `t`, as days since 1970-01-01.
    package func localDays(at t: Int64) -> Int64 { CivilCalendar.floorDays(localSeconds(at: t)) }

    /// Which instants have a local time.
    package enum Resolution: Sendable, Equatable {
        /// One.
        case unique(Int64)
        /// Two: the clocks went back over it; `earlier` is the one before the change.
        case ambiguous(earlier: Int64, later: Int64)
        /// None: at `transition` the clocks skipped from the local time `from` to `to`, over it.
        case skipped(from: Int64, to: Int64, transition: Int64)
    }

    /// The instants whose local time is `local` (seconds since 1970-01-01T00:00:00 local).
    package func resolve(localSeconds local: Int64) -> Resolution {
        let range = (local - reach)...(local + reach)
        var points: [Int64] = []
        switch rules {
        case .fixed(let offset, _): return .unique(local - Int64(offset))
        case .posix(let rule): rule.breakpoints(in: range, into: &points)
        case .file(let file): file.breakpoints(in: range, into: &points)
        }
        if points.isEmpty { return .unique(local - Int64(offset(at: range.lowerBound))) }
        points.sort()
        // Between two breakpoints the offset is one: an instant t there has the local time when t + offset == local.
        var starts = [range.lowerBound]
        for p in points where p > starts[starts.count - 1] { starts.append(p) }
        var found: [Int64] = []
        for (k, start) in starts.enumerated() {
            let end = k + 1 < starts.count ? starts[k + 1] : range.upperBound + 1
            let t = local - Int64(offset(at: start))
            if t >= start && t < end { found.append(t) }
        }
        if let first = found.first {
            return found.count == 1 ? .unique(first) : .ambiguous(earlier: first, later: found[found.count - 1])
        }
        for start in starts.dropFirst() {
            let before = start + Int64(offset(at: start - 1)), after = start + Int64(offset(at: start))
            if before <= local && local < after { return .skipped(from: before, to: after, transition: start) }
        }
        return .skipped(from: local, to: local, transition: local)
    }

    /// The instant of a local time: the earlier of two when the clocks went back over it (as ISO 8601's and
    /// Python's fold=0, and PostgreSQL); nil when they skipped it.
    package func instant(localSeconds local: Int64) -> Int64? {
        switch resolve(localSeconds: local) {
        case .unique(let t), .ambiguous(let t, _): return t
        case .skipped: return nil
        }
    }

    /// The first instant of a local day (days since 1970-01-01): its midnight, or when the clocks skipped
    /// midnight, the moment they skipped it.
    package func startOfDay(days: Int64) -> Int64 {
        switch resolve(localSeconds: days * 86_400) {
        case .unique(let t), .ambiguous(let t, _): return t
        case .skipped(_, _, let transition): return transition
        }
    }

    /// Why a local time is not one in this zone, for messages after the value:
    /// `does not exist in Europe/Berlin: the clocks skip from 02:00 to 03:00 on 2024-03-31`.
    package func skippedReason(from: Int64, to: Int64) -> String {
        func clock(_ local: Int64) -> String {
            let second = Int(local - CivilCalendar.floorDays(local) * 86_400)
            var text = pad(second / 3600) + ":" + pad(second / 60 % 60)
            if second % 60 != 0 { text += ":" + pad(second % 60) }
            return text
        }
        let (y, m, d) = CivilCalendar.date(days: Int(CivilCalendar.floorDays(to - 1)))
        let day = (y < 1000 ? String(repeating: "0", count: y < 10 ? 3 : y < 100 ? 2 : 1) : "") + "\(y)-\(pad(m))-\(pad(d))"
        return "does not exist in \(name): the clocks skip from \(clock(from)) to \(clock(to)) on \(day)"
    }

    private func pad(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }
}

/// A TZ that names no time zone glibc or bookkeeper can read.
package struct ZoneError: Error, Sendable, Equatable, CustomStringConvertible {
    /// TZ as given (nil: unset).
    package let tz: String?
    package let reason: String
    /// The zone was read, but its times cannot be written (see `Zone.requireWritableOffsets`).
    package var unwritable = false

    package init(tz: String?, reason: String, unwritable: Bool = false) {
        self.tz = tz
        self.reason = reason
        self.unwritable = unwritable
    }

    package var description: String {
        guard let tz else { return ZoneError.oneLine(reason) }
        return ZoneError.oneLine("TZ \"\(tz)\" \(unwritable ? "names a zone bookkeeper cannot use" : "names no time zone"): \(reason) (write a zone such as Europe/Berlin or "
            + ":America/New_York, a zoneinfo file's path, or a POSIX TZ string such as EST5EDT,M3.2.0,M11.1.0)")
    }

    /// Control characters (a line feed in TZ, or in a message quoting it) written as `<U+000A>`, as every message
    /// writes them (the command line's Log.oneLine), so that the message is one line.
    static func oneLine(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value)
                || scalar == "\u{2028}" || scalar == "\u{2029}" {
                let digits = String(scalar.value, radix: 16, uppercase: true)
                out += "<U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits + ">"
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
