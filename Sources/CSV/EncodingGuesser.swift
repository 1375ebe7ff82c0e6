// Which code page a file that is not UTF-8 is in, judged from its letters.
//
// Why this file exists: every byte is a character in Windows-1252, so "not UTF-8" used to mean
// Windows-1252, and a 1C export in Windows-1251 (`ООО Ромашка`) was stored as `ÎÎÎ Ðîìàøêà` with
// exit 0. The code pages people's exports come in put very different characters at 0x80–0xFF, and
// only one reading of a file gives plausible words: letters of one script, capitalised as words
// are, from one language's alphabet, with that language's frequent letters. Each candidate reading
// of a sample is scored for how implausible it is; the clear winner is used, and when no reading
// wins clearly the import stops and names the candidates rather than guess.

#if canImport(Glibc)
import Glibc
#endif

/// Bytes of a file that is not UTF-8: a sample from the first line with a non-UTF-8 byte on, and a
/// count of each byte there.
struct EncodingEvidence: Sendable {
    static let sampleLimit = 64 << 10
    var sample: [UInt8] = []
    var histogram = [Int](repeating: 0, count: 256)

    mutating func add(_ base: UnsafePointer<UInt8>, count: Int) {
        for i in 0..<count { histogram[Int(base[i])] += 1 }
        let keep = min(count, EncodingEvidence.sampleLimit - sample.count)
        if keep > 0 { sample.append(contentsOf: UnsafeBufferPointer(start: base, count: keep)) }
    }
}

enum EncodingGuesser {
    enum Guess: Equatable {
        case encoding(CSVEncoding)
        /// No clear winner: the two most plausible readings, best first.
        case unclear([CSVEncoding])
    }

    /// The code pages `auto` chooses among, in order of preference when readings are the same.
    static let candidates: [CSVEncoding] = [
        .windows1252,
        CSVEncoding(label: "windows-1250")!,
        CSVEncoding(label: "windows-1251")!,
        CSVEncoding(label: "koi8-r")!,
        CSVEncoding(label: "cp866")!,
    ]

    /// The best score must be at most this (a share of the non-ASCII characters that read badly)...
    static let acceptable = 0.25
    /// ...and the next reading must read this many more characters badly, as a share of the characters
    /// the two read differently.
    static let margin = 0.3

    struct Reading {
        var encoding: CSVEncoding
        var table: SingleByteTable
        var bad: Double
        var total: Double
        var signature: [UInt32]
        var score: Double { total == 0 ? 0 : min(1, bad / total) }
    }

    static func guess(_ evidence: EncodingEvidence) -> Guess {
        let present = (0x80..<0x100).filter { evidence.histogram[$0] > 0 }
        var scored: [Reading] = []
        for candidate in candidates {
            guard let table = SingleByteTable.table(for: candidate) else { continue }
            let (bad, total) = badness(evidence.sample, table)
            scored.append(Reading(encoding: candidate, table: table, bad: bad, total: total,
                                  signature: present.map { table.scalars[$0] }))
        }
        // Readings that give the same text are one reading: Windows-1252 speaks for them.
        var groups: [Reading] = []
        for s in scored where !groups.contains(where: { $0.signature == s.signature }) { groups.append(s) }
        groups.sort { $0.score < $1.score }
        guard let best = groups.first else { return .encoding(.windows1252) }
        if groups.count == 1 { return .encoding(best.encoding) }
        let second = groups[1]
        // The margin is weighed on the characters the two readings give differently: a Western file
        // where only `ñ` and `è` read otherwise in Windows-1250 is decided by those.
        let differing = evidence.sample.count { $0 >= 0x80 && best.table.scalars[Int($0)] != second.table.scalars[Int($0)] }
        if best.score <= acceptable && differing > 0 && (second.bad - best.bad) / Double(differing) >= margin {
            return .encoding(best.encoding)
        }
        // No code page reads it well: a multi-byte encoding whose reading is its language's characters
        // (a code page reads such bytes as nonsense: case breaks, symbols inside words).
        if best.score > acceptable {
            let multiByte = multiByteGuess(evidence.sample)
            if multiByte.count == 1 { return .encoding(multiByte[0]) }
            // EUC-JP, EUC-KR and GB18030 text can decode in one another: the bytes do not say which.
            if multiByte.count > 1 { return .unclear(Array(multiByte.prefix(2))) }
        }
        return .unclear([best.encoding, second.encoding])
    }

    /// The multi-byte encodings `auto` recognises, and the characters their text is made of.
    static let multiByteCandidates: [(CSVEncoding, @Sendable (UInt32) -> Bool)] = [
        (CSVEncoding(label: "shift_jis")!, isJapanese), (CSVEncoding(label: "euc-jp")!, isJapanese),
        (CSVEncoding(label: "gb18030")!, isCJKCommon), (CSVEncoding(label: "big5")!, isCJKCommon),
        (CSVEncoding(label: "euc-kr")!, { (0xAC00...0xD7A3).contains($0) || isCJKCommon($0) }),
    ]
    static func isCJKCommon(_ v: UInt32) -> Bool {
        (0x4E00...0x9FFF).contains(v) || (0x3000...0x303F).contains(v) || (0xFF00...0xFFEF).contains(v)
    }
    static func isJapanese(_ v: UInt32) -> Bool { (0x3040...0x30FF).contains(v) || isCJKCommon(v) }

    /// The multi-byte encodings the sample may be in: it decodes whole (a character cut at
    /// the sample's end aside), nearly all its characters are of that language, and, for GB18030 (in
    /// which almost any pair of bytes is some character), they are in its common (GB2312) range.
    static func multiByteGuess(_ sample: [UInt8]) -> [CSVEncoding] {
        var found: [CSVEncoding] = []
        for (candidate, plausible) in multiByteCandidates {
            guard let scalars = decode(sample, candidate.iconvName) else { continue }
            let high = scalars.filter { $0 >= 0x80 }
            guard high.count >= 2 else { continue }
            if Double(high.count(where: plausible)) / Double(high.count) < 0.9 { continue }
            if candidate.name == "gb18030" && !inGB2312(sample) { continue }
            found.append(candidate)
        }
        return found
    }

    /// Whether 90% of the sample's byte pairs are in GB2312's range (both bytes 0xA1–0xFE).
    static func inGB2312(_ sample: [UInt8]) -> Bool {
        var pairs = 0, common = 0, i = 0
        while i < sample.count {
            let b = sample[i]
            if b < 0x80 { i += 1; continue }
            if i + 1 < sample.count {
                pairs += 1
                if b >= 0xA1 && b <= 0xF7 && sample[i + 1] >= 0xA1 && sample[i + 1] <= 0xFE { common += 1 }
            }
            i += 2
        }
        return pairs > 0 && Double(common) >= Double(pairs) * 0.9
    }

    /// The sample's scalars through iconv, nil when it is not valid in `iconvName`.
    static func decode(_ sample: [UInt8], _ iconvName: String) -> [UInt32]? {
        guard let cd = openIconv(to: "UTF-32LE", from: iconvName) else { return nil }
        defer { iconv_close(cd) }
        var input = sample.map { CChar(bitPattern: $0) }
        var output = [UInt32](repeating: 0, count: sample.count + 4)
        let capacity = output.count * 4
        let produced: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBytes { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var inLeft = inBuf.count
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress!.assumingMemoryBound(to: CChar.self)
                var outLeft = capacity
                // A character cut by the sample's end (EINVAL) is fine; a byte that is not the encoding is not.
                if iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft) == -1 && errno != EINVAL { return nil }
                return (capacity - outLeft) / 4
            }
        }
        return produced.map { Array(output[0..<$0]) }
    }

    /// Punctuation and symbols that are at home in text of any of the candidates' languages.
    static let neutral: Set<UInt32> = [
        0xA0, 0x2013, 0x2014, 0xAB, 0xBB, 0x201E, 0x201C, 0x201D, 0x2018, 0x2019, 0x201A, 0x2026, 0x2116,
        0x20AC, 0xA3, 0xA5, 0xA7, 0xB0, 0xA9, 0xAE, 0xB1, 0xD7, 0xB7, 0x2022, 0x2030, 0xA2, 0x2122, 0xB5,
        0xBF, 0xA1, 0xB4,
    ]
    /// Marks that may stand between two letters of a word (O’Brien).
    static let inWord: Set<UInt32> = [0x2019, 0x2018, 0xB4]

    /// The extra letters (lowercase) of the languages each family serves: every word's letters must
    /// come from one of them (a customer list mixes French, German and Spanish names, but each name
    /// is in one language).
    static let latinLanguages: [Set<UInt32>] = [
        "àâæçéèêëîïôœùûüÿ", "äöüß", "áéíñóúü", "ãõáâêôçàéíóú", "àèéìíòóù", "æøå", "åäö", "ëïéè", "ðþáéíóúýæö",
        "ąćęłńóśźż", "áčďéěíňóřšťúůýž", "áäčďéíĺľňóôŕšťúýž", "áéíóöőúüű", "čćđšž", "ăâîşţșț",
    ].map { Set($0.unicodeScalars.map(\.value)) }
    static let cyrillicLanguages: [Set<UInt32>] = [
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя", "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя",
        "абвгдеёжзійклмнопрстуўфхцчшыьэюя", "абвгдђежзијклљмнњопрстћуфхцчџш",
    ].map { Set($0.unicodeScalars.map(\.value)) }
    static let russianFrequent = Set("оеаинтсрвл".unicodeScalars.map(\.value))
    static let cyrillicVowels = Set("аеёиоуыэюяієї".unicodeScalars.map(\.value))

    /// How implausible `sample` reads in `table`: how many of its non-ASCII characters read badly, of
    /// how many.
    static func badness(_ sample: [UInt8], _ table: SingleByteTable) -> (bad: Double, total: Double) {
        let scalars = sample.map { table.scalars[Int($0)] }
        func isLetter(_ v: UInt32) -> Bool {
            guard let s = Unicode.Scalar(v) else { return false }
            return s.properties.isAlphabetic
        }
        var total = 0.0, bad = 0.0
        var cyrillicLetters: [UInt32] = []
        var i = 0
        let n = scalars.count
        while i < n {
            let v = scalars[i]
            if isLetter(v) {
                // A word: a run of letters (and the marks that may stand inside one).
                var j = i
                var high = 0, latin = false, cyrillic = false, other = false, caseBreak = false
                var previousLower = false
                var letters: [UInt32] = []
                while j < n {
                    let w = scalars[j]
                    if !isLetter(w) {
                        if inWord.contains(w), j + 1 < n, isLetter(scalars[j + 1]), j > i { total += 1; j += 1; continue }
                        break
                    }
                    let s = Unicode.Scalar(w)!
                    if w < 0x250 { latin = true } else if w >= 0x400 && w < 0x530 { cyrillic = true } else { other = true }
                    let lower = s.properties.isLowercase, upper = s.properties.isUppercase
                    if upper && previousLower { caseBreak = true }
                    previousLower = lower
                    if sample[j] >= 0x80 {
                        high += 1
                        letters.append(s.properties.lowercaseMapping.unicodeScalars.first!.value)
                    }
                    j += 1
                }
                if high > 0 {
                    let h = Double(high)
                    total += h
                    if (latin && cyrillic) || caseBreak {
                        bad += h
                    } else if other {
                        bad += h * 0.75
                    } else if !(cyrillic ? cyrillicLanguages : latinLanguages).contains(where: { l in letters.allSatisfy(l.contains) }) {
                        bad += h                    // letters no one language has together: `Dvoøák`
                    } else if latin && j - i >= 3 && Double(high) > Double(j - i) * 0.75 {
                        bad += h                    // Latin words are mostly ASCII letters: `ÎÎÎ`, not `OOO`
                    } else {
                        // A lone non-ASCII letter is weak evidence at best.
                        if j - i == 1 { bad += 0.5 }
                        if cyrillic { cyrillicLetters += letters }
                    }
                }
                i = j
                continue
            }
            if sample[i] >= 0x80 {
                total += 1
                if !table.defined[Int(sample[i])] || (v >= 0x80 && v < 0xA0) {
                    bad += 1                        // an undefined byte or a C1 control
                } else if !neutral.contains(v) {
                    bad += 1                        // `Wroc³aw`, box drawing, stray symbols
                }
            }
            i += 1
        }
        // Cyrillic text has a third or more vowels, and its ten most frequent letters make over a third of it.
        if cyrillicLetters.count >= 10 {
            let c = Double(cyrillicLetters.count)
            let vowels = Double(cyrillicLetters.count(where: { cyrillicVowels.contains($0) })) / c
            let frequent = Double(cyrillicLetters.count(where: { russianFrequent.contains($0) })) / c
            if vowels < 0.3 || vowels > 0.65 { bad += c * 0.3 }
            if frequent < 0.35 { bad += c * (0.35 - frequent) }
        }
        return (bad, total)
    }
}
