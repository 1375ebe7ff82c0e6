// A zoneinfo file (TZif, RFC 8536; tzfile(5)) as glibc's tzfile.c reads it: the 64-bit data of a version 2+ file
// (the 32-bit data of a version 1 file), the local time types, and the footer's POSIX TZ string for the instants after
// the last transition. A file glibc would not read is refused with what is wrong with it. Instants here are POSIX
// time, as the store's `…Z` times are, where leap seconds do not count: the transitions of a file with leap-second
// records (the `right/` zones), which count them, are moved back by the correction in effect at each, so that
// right/Europe/Berlin changes at the instants Europe/Berlin does (glibc keeps the leap-counting time_t instead).
//
// Which type applies at an instant is glibc's __tzfile_compute: before the first transition (or with none) the first
// type that is not daylight time; from the last transition on, the footer's rule when there is one; between, the type
// of the latest transition at or before the instant.

#if canImport(Glibc)
import Glibc
#endif

final class ZoneFile: Sendable {
    struct LocalType: Sendable, Equatable {
        /// Seconds east of Greenwich.
        var offset: Int
        var isDaylight: Bool
        var abbreviation: String
    }

    let transitions: [Int64]
    /// For each transition, the index of the type it starts.
    let transitionTypes: [Int]
    let types: [LocalType]
    /// The type before the first transition.
    let initialType: Int
    /// What follows the last transition; nil when the file has no footer (or glibc could not use it).
    let footer: POSIXRule?
    /// The footer as written, for a name when nothing better names the zone.
    let footerText: String?

    // A class: a zone is copied into every cell formatter and converter, and its offset looked up per value.
    init(transitions: [Int64], transitionTypes: [Int], types: [LocalType], initialType: Int, footer: POSIXRule?,
         footerText: String?) {
        self.transitions = transitions
        self.transitionTypes = transitionTypes
        self.types = types
        self.initialType = initialType
        self.footer = footer
        self.footerText = footerText
    }

    struct ReadError: Error {
        enum Kind { case missing, notAFile, notTZif, damaged }
        let kind: Kind
        let reason: String
    }

    /// Zone files are a few kilobytes; anything this large is not one.
    static let sizeLimit = 4 << 20

    static func read(path: String) throws(ReadError) -> ZoneFile {
        // O_NONBLOCK: opening a FIFO (TZ=/tmp/fifo) would wait for a writer, forever; anything but a regular file
        // is refused below, and a regular file reads the same without blocking.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT || e == ENOTDIR { throw ReadError(kind: .missing, reason: "there is no file \(path)") }
            throw ReadError(kind: .notAFile, reason: "\(path) cannot be read (\(String(cString: strerror(e))))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw ReadError(kind: .notAFile, reason: "\(path) cannot be read (\(String(cString: strerror(errno))))")
        }
        guard info.st_mode & S_IFMT == S_IFREG else {
            let what = switch info.st_mode & S_IFMT {
            case S_IFDIR: "a directory"
            case S_IFIFO: "a named pipe"
            case S_IFCHR, S_IFBLK: "a device"
            case S_IFSOCK: "a socket"
            default: "something other than a regular file"
            }
            throw ReadError(kind: .notAFile, reason: "\(path) is \(what), not a zoneinfo file")
        }
        guard Int(info.st_size) <= sizeLimit else {
            throw ReadError(kind: .notTZif, reason: "\(path) is not a zoneinfo (TZif) file (it is \(info.st_size) bytes)")
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var filled = 0
        while filled < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            filled += n
        }
        bytes.removeSubrange(filled...)
        return try parse(bytes, path: path)
    }

    static func parse(_ bytes: [UInt8], path: String) throws(ReadError) -> ZoneFile {
        func notTZif() -> ReadError { ReadError(kind: .notTZif, reason: "\(path) is not a zoneinfo (TZif) file") }
        func damaged(_ why: String) -> ReadError { ReadError(kind: .damaged, reason: "\(path) is a damaged zoneinfo file (\(why))") }
        var at = 0
        func int32() -> Int {
            let v = UInt32(bytes[at]) << 24 | UInt32(bytes[at + 1]) << 16 | UInt32(bytes[at + 2]) << 8 | UInt32(bytes[at + 3])
            at += 4
            return Int(Int32(bitPattern: v))
        }
        func int64() -> Int64 {
            var v: UInt64 = 0
            for k in 0..<8 { v = v << 8 | UInt64(bytes[at + k]) }
            at += 8
            return Int64(bitPattern: v)
        }
        struct Header { var version: UInt8, isutcnt, isstdcnt, leapcnt, timecnt, typecnt, charcnt: Int }
        func header() throws(ReadError) -> Header {
            guard bytes.count - at >= 44, Array(bytes[at..<at + 4]) == Array("TZif".utf8) else { throw notTZif() }
            let version = bytes[at + 4]
            at += 20
            let counts = (0..<6).map { _ in int32() }
            guard counts.allSatisfy({ $0 >= 0 }) else { throw damaged("a negative count") }
            return Header(version: version, isutcnt: counts[0], isstdcnt: counts[1], leapcnt: counts[2],
                          timecnt: counts[3], typecnt: counts[4], charcnt: counts[5])
        }
        func dataSize(_ h: Header, timeSize: Int) -> Int {
            h.timecnt * (timeSize + 1) + h.typecnt * 6 + h.charcnt + h.leapcnt * (timeSize + 4) + h.isstdcnt + h.isutcnt
        }

        var h = try header()
        var timeSize = 4
        if h.version != 0 {
            // Version 2 and later: skip the 32-bit data to the 64-bit header and data.
            let skip = dataSize(h, timeSize: 4)
            guard bytes.count - at >= skip else { throw damaged("it ends inside its version 1 data") }
            at += skip
            h = try header()
            timeSize = 8
        }
        guard h.isstdcnt <= h.typecnt, h.isutcnt <= h.typecnt else { throw damaged("more indicators than local time types") }
        guard h.typecnt > 0 else { throw damaged("no local time types") }
        guard bytes.count - at >= dataSize(h, timeSize: timeSize) else { throw damaged("it ends inside its data") }

        var transitions: [Int64] = []
        transitions.reserveCapacity(h.timecnt)
        for _ in 0..<h.timecnt { transitions.append(timeSize == 8 ? int64() : Int64(int32())) }
        var transitionTypes: [Int] = []
        transitionTypes.reserveCapacity(h.timecnt)
        for _ in 0..<h.timecnt {
            guard Int(bytes[at]) < h.typecnt else { throw damaged("a transition to a type it does not have") }
            transitionTypes.append(Int(bytes[at]))
            at += 1
        }
        for k in transitions.indices.dropFirst() where transitions[k] <= transitions[k - 1] {
            throw damaged("transitions out of order")
        }
        var rawTypes: [(offset: Int, isDaylight: Bool, index: Int)] = []
        for _ in 0..<h.typecnt {
            let offset = int32()
            let dst = bytes[at], index = Int(bytes[at + 1])
            at += 2
            guard dst <= 1 else { throw damaged("a daylight flag other than 0 or 1") }
            guard index <= h.charcnt else { throw damaged("an abbreviation outside its table") }
            // RFC 8536's range; offsets beyond a day and a bit are damage, not a place.
            guard (-89_999...93_599).contains(offset) else { throw damaged("an offset of \(offset) seconds") }
            rawTypes.append((offset, dst == 1, index))
        }
        let names = Array(bytes[at..<at + h.charcnt])
        at += h.charcnt
        let types = rawTypes.map { raw -> LocalType in
            let end = names[raw.index...].firstIndex(of: 0) ?? names.count
            return LocalType(offset: raw.offset, isDaylight: raw.isDaylight,
                             abbreviation: String(decoding: names[raw.index..<end], as: UTF8.self))
        }
        // Leap-second records (the `right/` zones): their transition times count the leap seconds, so each is
        // moved back by the correction in effect then (the latest record at or before it, in the same time scale),
        // to the POSIX instant of the change. Without this every change came 27 seconds late. The leap seconds
        // themselves are not counted: instants here are POSIX time, as the store's `…Z` times are.
        var leaps: [(time: Int64, correction: Int64)] = []
        for _ in 0..<h.leapcnt {
            let time = timeSize == 8 ? int64() : Int64(int32())
            leaps.append((time, Int64(int32())))
        }
        if !leaps.isEmpty {
            var r = 0
            var correction: Int64 = 0
            for k in transitions.indices {
                while r < leaps.count, leaps[r].time <= transitions[k] {
                    correction = leaps[r].correction
                    r += 1
                }
                transitions[k] -= correction
            }
            for k in transitions.indices.dropFirst() where transitions[k] <= transitions[k - 1] {
                throw damaged("transitions out of order")
            }
        }
        // The standard/UT indicators are not used (they only matter for POSIX footers glibc derives itself).
        at += h.isstdcnt + h.isutcnt

        var footer: POSIXRule?
        var footerText: String?
        if timeSize == 8 {
            // glibc requires room for a footer (a line feed, the string, a line feed; the string may be empty).
            guard bytes.count - at >= 2 else { throw damaged("no footer line") }
            let rest = bytes[(at + 1)...]
            let end = rest.firstIndex(of: UInt8(ascii: "\n")) ?? bytes.count
            let text = String(decoding: bytes[(at + 1)..<end], as: UTF8.self)
            if bytes[at] == UInt8(ascii: "\n"), !text.isEmpty {
                footerText = text
                // glibc uses what it can read of a footer; zic writes only complete ones, all of which parse here
                // (a test reads every file under /usr/share/zoneinfo). One that does not is left out: the last
                // transition's type then lasts, as in glibc when a footer cannot be used.
                footer = try? POSIXRule(parsing: text)
            }
        }
        let initial = types.firstIndex { !$0.isDaylight } ?? 0
        return ZoneFile(transitions: transitions, transitionTypes: transitionTypes, types: types, initialType: initial,
                        footer: footer, footerText: footerText)
    }

    /// The index of the latest transition at or before `t`; nil before the first.
    func transitionIndex(at t: Int64) -> Int? {
        guard let first = transitions.first, t >= first else { return nil }
        var lo = 0, hi = transitions.count        // transitions[lo] <= t < transitions[hi]
        while hi - lo > 1 {
            let mid = (lo + hi) / 2
            if transitions[mid] <= t { lo = mid } else { hi = mid }
        }
        return lo
    }

    func offset(at t: Int64) -> Int {
        guard let k = transitionIndex(at: t) else { return types[initialType].offset }
        if k == transitions.count - 1, let footer { return footer.offset(at: t) }
        return types[transitionTypes[k]].offset
    }

    func abbreviation(at t: Int64) -> String {
        guard let k = transitionIndex(at: t) else { return types[initialType].abbreviation }
        if k == transitions.count - 1, let footer { return footer.abbreviation(at: t) }
        return types[transitionTypes[k]].abbreviation
    }

    func breakpoints(in range: ClosedRange<Int64>, into result: inout [Int64]) {
        guard let last = transitions.last else { return }
        var k = transitionIndex(at: range.lowerBound).map { $0 + 1 } ?? 0
        while k < transitions.count, transitions[k] <= range.upperBound {
            if transitions[k] >= range.lowerBound { result.append(transitions[k]) }
            k += 1
        }
        if let footer, range.upperBound > last {
            footer.breakpoints(in: max(range.lowerBound, last)...range.upperBound, into: &result)
        }
    }

    var largestOffsetMagnitude: Int {
        max(types.map { abs($0.offset) }.max() ?? 0, footer?.largestOffsetMagnitude ?? 0)
    }

    /// Whether every instant has offset 0 (UTC and its aliases).
    var isUTC: Bool {
        types.allSatisfy { $0.offset == 0 } && (footer.map { $0.standardOffset == 0 && $0.daylight == nil } ?? true)
    }
}
