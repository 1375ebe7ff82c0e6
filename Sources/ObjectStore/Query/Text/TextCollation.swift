// Orders for sort descriptors and SQLite collations: `natural` and `nocase`.
//
// Both are total orders consistent with string equality: they answer
// `.orderedSame` exactly when the strings are equal as Swift strings
// (canonically equivalent), so a UNIQUE index, GROUP BY or DISTINCT under
// the collation never merges different strings, and sorting is
// deterministic across runs and machines. Neither depends on the locale.
import Foundation

package enum TextCollation {
    /// Finder-like order (in the spirit of `localizedStandardCompare`):
    /// case-insensitive and numeric-aware, so "Item 2" < "Item 10" and
    /// "file9" < "file10".
    ///
    /// Strings are compared level by level; a level is consulted only when
    /// all earlier ones find the strings equal:
    ///
    /// 1. Both sides folded with `[cd]`, then read as a sequence of numbers
    ///    (maximal runs of ASCII digits 0–9, compared by value, any length)
    ///    and single characters (compared by Unicode scalar value). A number
    ///    sorts before a character ("a1" < "aa"); a sequence that is a prefix
    ///    of the other sorts first. So "Émile" sorts with "emile", before "Eric".
    /// 2. Leading zeros: at the first number written with a different count
    ///    of digits, fewer digits first: "a1" < "a01" < "a001".
    /// 3. Diacritics: both sides folded with `[c]` only, compared by scalar value:
    ///    "emile" < "émile".
    /// 4. Case and anything else: Swift's string order (Unicode scalar values
    ///    of the NFC form): "Emile" < "emile".
    ///
    /// Each level compares a key computed from each string on its own, so the
    /// whole is a total order; the last level makes it consistent with equality.
    package static func naturalCompare(_ a: String, _ b: String) -> ComparisonResult {
        var a = a, b = b
        let fast = a.withUTF8 { x in b.withUTF8 { y in naturalCompareASCII(x, y) } }
        return fast ?? naturalCompareByFolding(a, b)
    }

    /// `naturalCompare` of two strings' UTF-8 bytes as SQLite hands them to the `bk_natural` collation: the bytes
    /// read in place when the ASCII parts decide, else (a non-ASCII byte reached undecided) decoded as GRDB decodes
    /// a collation's arguments (bad bytes replaced) and compared by `naturalCompareByFolding`.
    package static func naturalCompare(utf8 a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> ComparisonResult {
        if let decided = naturalCompareASCII(a, b) { return decided }
        return naturalCompareByFolding(String(decoding: a, as: UTF8.self), String(decoding: b, as: UTF8.self))
    }

    /// The same order as `naturalCompareByFolding`, over UTF-8 bytes without allocating, for the common case: the
    /// answer when the ASCII beginnings of both strings decide it (always when both are ASCII), nil when a non-ASCII
    /// byte is reached first. Level 1 is `NumberAwareScan` over the lowercased bytes up to the first non-ASCII byte
    /// of each side (what `FoldedKey` holds before `complete()`), with the same stops; for two ASCII strings level 3
    /// has nothing to fold and level 4, Swift's string order, is byte order.
    static func naturalCompareASCII(_ a: UnsafeBufferPointer<UInt8>, _ b: UnsafeBufferPointer<UInt8>) -> ComparisonResult? {
        var knownA = 0, knownB = 0
        while knownA < a.count, a[knownA] < 0x80 { knownA += 1 }
        while knownB < b.count, b[knownB] < 0x80 { knownB += 1 }
        let completeA = knownA == a.count, completeB = knownB == b.count
        @inline(__always) func digit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
        var i = 0, j = 0
        var leadingZeros = ComparisonResult.orderedSame
        while i < knownA, j < knownB {
            let x = a[i], y = b[j]
            let digitA = digit(x), digitB = digit(y)
            if digitA, digitB {
                let startA = i, startB = j
                while i < knownA, digit(a[i]) { i += 1 }
                while j < knownB, digit(b[j]) { j += 1 }
                // A number at the end of the ASCII part may go on after a dropped mark: the folding path decides.
                if (i == knownA && !completeA) || (j == knownB && !completeB) { return nil }
                if let decided = compareNumbers(a, startA..<i, b, startB..<j, leadingZeros: &leadingZeros) { return decided }
            } else if digitA != digitB {
                return digitA ? .orderedAscending : .orderedDescending   // a number before a character
            } else {
                let lx = TextFolding.asciiLowercased(x), ly = TextFolding.asciiLowercased(y)
                if lx != ly { return lx < ly ? .orderedAscending : .orderedDescending }
                i += 1
                j += 1
            }
        }
        guard completeA, completeB else { return nil }
        if i < knownA { return .orderedDescending }
        if j < knownB { return .orderedAscending }
        if leadingZeros != .orderedSame { return leadingZeros }
        // Level 4 for two ASCII strings: byte order (equal bytes, equal strings).
        for k in 0..<min(a.count, b.count) where a[k] != b[k] {
            return a[k] < b[k] ? .orderedAscending : .orderedDescending
        }
        return a.count == b.count ? .orderedSame : (a.count < b.count ? .orderedAscending : .orderedDescending)
    }

    /// The order `naturalCompare` gives, computed on Swift strings level by level as documented above (folding
    /// through Foundation when the ASCII parts do not decide). `naturalCompare` answers from the bytes first; this
    /// is its fallback and the property test's second implementation (TextCollationTests).
    package static func naturalCompareByFolding(_ a: String, _ b: String) -> ComparisonResult {
        if a == b { return .orderedSame }
        // Level 1 reads the ASCII beginnings directly and folds the rest (NFD
        // through Foundation, the costly part) only if they do not decide.
        var keyA = FoldedKey(a, diacriticInsensitive: true), keyB = FoldedKey(b, diacriticInsensitive: true)
        var scan = NumberAwareScan()
        if let decided = scan.run(keyA, keyB) { return decided }
        if !(keyA.isComplete && keyB.isComplete) {
            keyA.complete()
            keyB.complete()
            if let decided = scan.run(keyA, keyB) { return decided }
        }
        if scan.leadingZeros != .orderedSame { return scan.leadingZeros }
        if !(TextFolding.isASCII(a) && TextFolding.isASCII(b)) {
            let secondary = compareScalars(
                TextFolding.fold(a, caseInsensitive: true, diacriticInsensitive: false),
                TextFolding.fold(b, caseInsensitive: true, diacriticInsensitive: false))
            if secondary != .orderedSame { return secondary }
        }
        return a < b ? .orderedAscending : .orderedDescending
    }

    /// Case-insensitive order: both sides folded with `[c]` (full Unicode case
    /// folding, so "straße" and "STRASSE" are neighbours), compared by Unicode
    /// scalar value (the same as UTF-8 byte order, SQLite's BINARY); ties
    /// broken by Swift's string order of the originals ("ABC" < "abc").
    package static func nocaseCompare(_ a: String, _ b: String) -> ComparisonResult {
        if a == b { return .orderedSame }
        if let decided = compareASCIIBeginnings(a, b) {
            return decided != .orderedSame ? decided : (a < b ? .orderedAscending : .orderedDescending)
        }
        var keyA = FoldedKey(a, diacriticInsensitive: false), keyB = FoldedKey(b, diacriticInsensitive: false)
        var folded = compareValues(keyA, keyB)
        if folded == nil {
            keyA.complete()
            keyB.complete()
            folded = compareValues(keyA, keyB)
        }
        if let folded, folded != .orderedSame { return folded }
        return a < b ? .orderedAscending : .orderedDescending
    }

    // MARK: - Levels

    /// The scalar values of a string folded with `[c]` or `[cd]`, computed in
    /// two steps: the ASCII beginning (lowercased, nothing else to do), then,
    /// on demand, the fold of the rest. Folding the two parts apart gives the
    /// fold of the whole: the split is before a non-ASCII scalar and after an
    /// ASCII one, which no decomposition, reordering or folding crosses.
    private struct FoldedKey {
        private let text: String
        private let diacriticInsensitive: Bool
        private var rest: String.Index?
        private(set) var values: [UInt32] = []

        init(_ text: String, diacriticInsensitive: Bool) {
            self.text = text
            self.diacriticInsensitive = diacriticInsensitive
            let utf8 = text.utf8
            values.reserveCapacity(utf8.count)
            var index = utf8.startIndex
            while index < utf8.endIndex {
                let byte = utf8[index]
                if byte >= 0x80 {
                    rest = index
                    return
                }
                values.append(UInt32(TextFolding.asciiLowercased(byte)))
                index = utf8.index(after: index)
            }
        }

        /// Whether `values` hold the whole folded string.
        var isComplete: Bool { rest == nil }

        mutating func complete() {
            guard let rest else { return }
            let folded = TextFolding.fold(String(text[rest...]), caseInsensitive: true, diacriticInsensitive: diacriticInsensitive)
            for scalar in folded.unicodeScalars { values.append(scalar.value) }
            self.rest = nil
        }
    }

    /// Lowercased ASCII byte by byte, without allocating; nil when a non-ASCII
    /// byte comes before any difference.
    private static func compareASCIIBeginnings(_ a: String, _ b: String) -> ComparisonResult? {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil):
                return .orderedSame
            case (nil, let y?):
                return y < 0x80 ? .orderedAscending : nil
            case (let x?, nil):
                return x < 0x80 ? .orderedDescending : nil
            case (let x?, let y?):
                if x >= 0x80 || y >= 0x80 { return nil }
                let lx = TextFolding.asciiLowercased(x), ly = TextFolding.asciiLowercased(y)
                if lx != ly { return lx < ly ? .orderedAscending : .orderedDescending }
            }
        }
    }

    /// Compares folded values; nil when the known values agree and one side is not complete.
    private static func compareValues(_ a: FoldedKey, _ b: FoldedKey) -> ComparisonResult? {
        let x = a.values, y = b.values
        for k in 0..<min(x.count, y.count) where x[k] != y[k] {
            return x[k] < y[k] ? .orderedAscending : .orderedDescending
        }
        guard a.isComplete, b.isComplete else { return nil }
        return x.count == y.count ? .orderedSame : (x.count < y.count ? .orderedAscending : .orderedDescending)
    }

    private static func isDigit(_ value: UInt32) -> Bool { value >= 0x30 && value <= 0x39 }

    /// Levels 1 and 2 for two runs of ASCII digits (UTF-8 bytes or scalar values): the numbers by value (leading
    /// zeros skipped, then the count of digits, then digit by digit), nil when equal; then, if no earlier number
    /// did, notes in `leadingZeros` which run has fewer digits.
    @inline(__always)
    private static func compareNumbers<C: RandomAccessCollection>(_ a: C, _ runA: Range<Int>, _ b: C, _ runB: Range<Int>,
                                                                  leadingZeros: inout ComparisonResult) -> ComparisonResult?
    where C.Index == Int, C.Element: BinaryInteger {
        var significantA = runA.lowerBound, significantB = runB.lowerBound
        while significantA < runA.upperBound - 1, a[significantA] == 0x30 { significantA += 1 }
        while significantB < runB.upperBound - 1, b[significantB] == 0x30 { significantB += 1 }
        let lengthA = runA.upperBound - significantA, lengthB = runB.upperBound - significantB
        if lengthA != lengthB { return lengthA < lengthB ? .orderedAscending : .orderedDescending }
        for k in 0..<lengthA where a[significantA + k] != b[significantB + k] {
            return a[significantA + k] < b[significantB + k] ? .orderedAscending : .orderedDescending
        }
        if leadingZeros == .orderedSame, runA.count != runB.count {
            leadingZeros = runA.count < runB.count ? .orderedAscending : .orderedDescending
        }
        return nil
    }

    /// Level 1, resumable: reads the keys as numbers and single characters
    /// and stops at the first difference, or, when a key is not complete, where
    /// its known values end. Level 2 (the first number whose digit counts
    /// differ) is noted on the way.
    private struct NumberAwareScan {
        var i = 0, j = 0
        var leadingZeros = ComparisonResult.orderedSame

        /// The answer of level 1, or nil: undecided for now (a key is incomplete)
        /// or a tie (both complete, then see `leadingZeros`).
        mutating func run(_ keyA: FoldedKey, _ keyB: FoldedKey) -> ComparisonResult? {
            let a = keyA.values, b = keyB.values
            while i < a.count, j < b.count {
                let digitA = isDigit(a[i]), digitB = isDigit(b[j])
                if digitA, digitB {
                    let startA = i, startB = j
                    while i < a.count, isDigit(a[i]) { i += 1 }
                    while j < b.count, isDigit(b[j]) { j += 1 }
                    // A number at the end of what is known may go on in the rest
                    // (digits parted by a dropped mark): read it again then.
                    if (i == a.count && !keyA.isComplete) || (j == b.count && !keyB.isComplete) {
                        i = startA
                        j = startB
                        return nil
                    }
                    if let decided = compareNumbers(a, startA..<i, b, startB..<j, leadingZeros: &leadingZeros) { return decided }
                } else if digitA {
                    return .orderedAscending
                } else if digitB {
                    return .orderedDescending
                } else {
                    if a[i] != b[j] { return a[i] < b[j] ? .orderedAscending : .orderedDescending }
                    i += 1
                    j += 1
                }
            }
            guard keyA.isComplete, keyB.isComplete else { return nil }
            if i < a.count { return .orderedDescending }
            if j < b.count { return .orderedAscending }
            return nil
        }
    }

    /// Unicode scalar order, which is UTF-8 byte order.
    private static func compareScalars(_ a: String, _ b: String) -> ComparisonResult {
        var left = a.utf8.makeIterator(), right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return .orderedSame
            case (nil, _): return .orderedAscending
            case (_, nil): return .orderedDescending
            case (let x?, let y?):
                if x != y { return x < y ? .orderedAscending : .orderedDescending }
            }
        }
    }
}
