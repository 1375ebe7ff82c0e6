// Which code page a file that is not UTF-8 is in, judged from its letters.
//
// Why this file exists: every byte is a character in Windows-1252, so "not UTF-8" used to mean
// Windows-1252, and a 1C export in Windows-1251 (`ООО Ромашка`) was stored as `ÎÎÎ Ðîìàøêà` with
// exit 0. The code pages people's exports come in put very different characters at 0x80–0xFF, and
// only one reading of a file gives plausible words: letters of one script, capitalised as words
// are, from one language's alphabet, with that language's frequent letters, in the languages of the
// words every reading gives alike. Each candidate reading of a sample is scored for how implausible
// it is; the clear winner is used, and when no reading wins clearly the import stops and names every
// plausible candidate rather than guess. Tests/CSVTests/EncodingCorpusTests.swift measures this on
// eight languages in their code pages and prints the confusion matrix.

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
        /// No clear winner: the plausible readings (two to five), best first.
        case unclear([CSVEncoding])
    }

    /// The code pages `auto` chooses among, in order of preference when readings are the same. ISO-8859-1
    /// and ISO-8859-9 are not among them: on text (no C1 controls at 0x80–0x9F) they read as Windows-1252 and
    /// Windows-1254 do, which speak for them.
    static let candidates: [CSVEncoding] = [
        .windows1252,
        CSVEncoding(label: "windows-1250")!,
        CSVEncoding(label: "windows-1251")!,
        CSVEncoding(label: "koi8-r")!,
        CSVEncoding(label: "cp866")!,
        CSVEncoding(label: "windows-1254")!,
        CSVEncoding(label: "iso-8859-15")!,
        CSVEncoding(label: "iso-8859-2")!,
        CSVEncoding(label: "iso-8859-5")!,
        // DOS exports (CP437 reads letters as CP850 does, but for `ø` and `Ø`), then Baltic: ISO-8859-13 reads
        // letters as Windows-1257 does, ISO-8859-4 otherwise.
        CSVEncoding(label: "cp850")!,
        CSVEncoding(label: "windows-1257")!,
        CSVEncoding(label: "iso-8859-13")!,
        CSVEncoding(label: "iso-8859-4")!,
    ]

    /// The best score must be at most this (a share of the non-ASCII characters that read badly)...
    static let acceptable = 0.25
    /// ...and the next reading must read this many more characters badly, as a share of the characters
    /// the two read differently.
    static let margin = 0.3
    /// The languages of the words read alike are weaker evidence than a misread word (`Øresund` is Danish,
    /// `Řresund` Czech, beside `Málaga`, which both have `á`): alone they decide only when they count this much
    /// against the other reading, four letters' worth...
    static let contextEvidence = 2.0
    /// ...or when they are specific: this many of their letters, in languages of one group (`ł` of
    /// `Małgorzata`, `Piłsudski`, `Biała` is Polish alone; `ö` and `ü` of `Björk` and `Zürich` are German,
    /// Hungarian or Turkish, and say nothing about `brûlée` against `brűlée`).
    static let specificContext = 4.0
    /// Fewer letters than this read alike say nothing of the file's languages.
    static let contextSupport = 2.0
    enum ContextStrength { case none, broad, specific }

    struct Reading {
        var encoding: CSVEncoding
        var table: SingleByteTable
        var bad: Double
        var total: Double
        var signature: [UInt32]
        var words: [Word]
        var score: Double { total == 0 ? 0 : min(1, bad / total) }
    }

    /// A word of a reading that fits some language: where it is in the sample, the languages it fits (bit k:
    /// `latinLanguages[k]`, bit `cyrillicShift + k`: `cyrillicLanguages[k]`), and its non-ASCII letters.
    struct Word {
        var range: Range<Int>
        var languages: Int
        var letters: Double
    }

    static func guess(_ evidence: EncodingEvidence) -> Guess {
        let present = (0x80..<0x100).filter { evidence.histogram[$0] > 0 }
        var scored: [Reading] = []
        for candidate in candidates {
            guard let table = SingleByteTable.table(for: candidate) else { continue }
            let (bad, total, words) = badness(evidence.sample, table)
            scored.append(Reading(encoding: candidate, table: table, bad: bad, total: total,
                                  signature: present.map { table.scalars[$0] }, words: words))
        }
        // Readings that give the same text are one reading: Windows-1252 speaks for them.
        var groups: [Reading] = []
        for s in scored where !groups.contains(where: { $0.signature == s.signature }) { groups.append(s) }
        // Stable, so that among equal scores the order of preference stands.
        groups = groups.enumerated().sorted { ($0.element.score, $0.offset) < ($1.element.score, $1.offset) }.map(\.element)
        guard let best = groups.first else { return .encoding(.windows1252) }
        if groups.count == 1 { return .encoding(best.encoding) }
        if best.score <= acceptable {
            var counts = [Int](repeating: 0, count: 256)
            for b in evidence.sample where b >= 0x80 { counts[Int(b)] += 1 }
            // A reading is used only when it is clearly better than every other; else every reading that no
            // other is clearly better than is named, and the right one is among them.
            let undominated = groups.indices.filter { k in
                !groups.indices.contains { j in j != k && clearlyBetter(groups[j], than: groups[k], counts, evidence.sample) }
            }
            if undominated.count == 1 && groups[undominated[0]].score <= acceptable {
                return .encoding(groups[undominated[0]].encoding)
            }
            // Asking, name every reading that only the words around it put behind: context can be wrong (a Slovak
            // `Prešov` among Polish cities reads as Polish `Preąov` in Windows-1250; ISO-8859-2 was left out of the
            // three pages named, stress seed 1795744985). Only bytes a reading misreads take it off the list.
            let plausible = groups.indices.filter { k in
                !groups.indices.contains { j in j != k && clearlyBetter(groups[j], than: groups[k], counts, evidence.sample, context: false) }
            }
            let named = plausible.isEmpty ? Array(groups.indices) : plausible
            return .unclear(named.prefix(5).map { groups[$0].encoding })
        }
        // No code page reads it well: a multi-byte encoding whose reading is its language's characters
        // (a code page reads such bytes as nonsense: case breaks, symbols inside words).
        let (multiByte, strong) = multiByteGuess(evidence.sample)
        if multiByte.count == 1 && strong { return .encoding(multiByte[0]) }
        // EUC-JP, EUC-KR and GB18030 text can decode in one another: the bytes do not say which.
        if multiByte.count > 1 && strong { return .unclear(Array(multiByte.prefix(2))) }
        // Two or three characters decode as kana in Shift_JIS by chance (`A\xC0\xAF` is `Aﾀｯ`): too few to
        // choose a multi-byte encoding over a code page, so both are named.
        if let m = multiByte.first { return .unclear([best.encoding, m]) }
        return .unclear(groups.prefix(3).map(\.encoding))
    }

    /// Whether `a` reads the sample clearly better than `b`, weighed on the characters the two give differently
    /// (`counts`: how often each byte is in the sample): a Western file where only `ñ` and `è` read otherwise in
    /// Windows-1250 is decided by those. When both read plausibly, the words they give alike judge the rest
    /// (`misfits`).
    static func clearlyBetter(_ a: Reading, than b: Reading, _ counts: [Int], _ sample: [UInt8], context useContext: Bool = true) -> Bool {
        var differing = 0
        for k in 0x80..<0x100 where counts[k] > 0 && a.table.scalars[k] != b.table.scalars[k] { differing += counts[k] }
        guard differing > 0 else { return false }
        let d = Double(differing)
        let misread = (b.bad - a.bad) / d
        guard useContext, a.score <= acceptable && b.score <= acceptable else { return misread >= margin }
        // Context weighs words, not bytes: it never makes a reading that misreads more bytes the clearly better one
        // (Windows-1252's `Wroc³aw` beside ISO-8859-2's `Wrocław`, with `Müller` and `Ústí` as the context; stress
        // seed 11).
        guard a.bad <= b.bad else { return false }
        let (aMisfit, bMisfit, strength) = misfits(a, b, sample)
        // A broad context (languages of several groups) counts only when it counts much; none (one shared
        // letter: `Müller` is German, Hungarian, Turkish, Estonian or Catalan) never.
        let difference = bMisfit - aMisfit
        let context = strength == .specific || strength == .broad && abs(difference) >= contextEvidence ? difference : 0
        return misread + context / d >= margin
    }

    /// A misread word is judged by the words around it: the words two plausible readings give alike (`Atatürk`,
    /// `François`) say which languages the file is in, and a reading whose other words are not in those languages
    /// (`Yýlmaz`, Icelandic-looking, in a Turkish file; `Hélčne`, Czech-looking, in a French one) has each of their
    /// letters count half bad. Weighed on each pair alone, so that a third reading that gives `ô` otherwise does
    /// not take `Jérôme` out of the context of Windows-1252 against ISO-8859-4. Returns what it counts against
    /// each, and whether the context is specific (`specificContext`).
    static func misfits(_ a: Reading, _ b: Reading, _ sample: [UInt8]) -> (Double, Double, strength: ContextStrength) {
        var same = [Bool](repeating: true, count: 256)
        for k in 0x80..<0x100 { same[k] = a.table.scalars[k] == b.table.scalars[k] }
        func isShared(_ w: Word) -> Bool { sample[w.range].allSatisfy { same[Int($0)] } }
        var coverage = [Double](repeating: 0, count: Int.bitWidth)
        for w in a.words where isShared(w) {
            for k in 0..<Int.bitWidth where w.languages & 1 << k != 0 { coverage[k] += w.letters }
        }
        guard let top = coverage.max(), top >= contextSupport else { return (0, 0, .none) }
        let context = coverage.indices.reduce(0) { coverage[$1] == top ? $0 | 1 << $1 : $0 }
        func misfit(_ r: Reading) -> Double {
            r.words.reduce(0.0) { $0 + (!isShared($1) && $1.languages & context == 0 ? $1.letters : 0) } * 0.5
        }
        // Specific: the top languages are of one group, and no other group covers the shared words as well (a
        // Western list's `Málaga`, `Allé`, `Düsseldorf` are as Hungarian as they are Spanish, French and German).
        let groups = latinGroups + [~0 << cyrillicShift]
        let groupCoverage = groups.map { g in a.words.reduce(0.0) { $0 + (isShared($1) && $1.languages & g != 0 ? $1.letters : 0) } }
        let topGroups = groupCoverage.count { $0 == groupCoverage.max() }
        let oneGroup = groups.contains { $0 & context == context }
        return (misfit(a), misfit(b), top >= specificContext && oneGroup && topGroups == 1 ? .specific : .broad)
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

    /// A multi-byte reading of fewer non-ASCII characters than this is not enough to choose it.
    static let multiByteEvidence = 4

    /// The multi-byte encodings the sample may be in: it decodes whole (a character cut at
    /// the sample's end aside), nearly all its characters are of that language, and, for GB18030 (in
    /// which almost any pair of bytes is some character), they are in its common (GB2312) range.
    /// `strong`: whether the first one read at least `multiByteEvidence` such characters.
    static func multiByteGuess(_ sample: [UInt8]) -> (found: [CSVEncoding], strong: Bool) {
        var found: [CSVEncoding] = []
        var strong = false
        for (candidate, plausible) in multiByteCandidates {
            guard let scalars = decode(sample, candidate.iconvName) else { continue }
            let high = scalars.filter { $0 >= 0x80 }
            guard high.count >= 2 else { continue }
            if Double(plausibleCount(scalars, plausible)) / Double(high.count) < 0.9 { continue }
            if candidate.name == "gb18030" && !inGB2312(sample) { continue }
            if found.isEmpty { strong = high.count >= multiByteEvidence }
            found.append(candidate)
        }
        return (found, strong)
    }

    /// How many non-ASCII characters are of the language and not inside a Latin word, an ASCII letter on each
    /// side: `M］chen`, `G杯eborg` (Shift_JIS's readings of CP850 `München`, `Göteborg`) are no Japanese.
    /// Japanese text glues Latin letters to one side (`Tシャツ`), not into a word.
    static func plausibleCount(_ scalars: [UInt32], _ plausible: (UInt32) -> Bool) -> Int {
        func isASCIILetter(_ v: UInt32) -> Bool { (v | 0x20) >= 0x61 && (v | 0x20) <= 0x7A }
        var count = 0, i = 0
        while i < scalars.count {
            guard scalars[i] >= 0x80 else { i += 1; continue }
            var j = i
            while j < scalars.count && scalars[j] >= 0x80 { j += 1 }
            let glued = i > 0 && j < scalars.count && isASCIILetter(scalars[i - 1]) && isASCIILetter(scalars[j])
            if !glued { count += scalars[i..<j].count(where: plausible) }
            i = j
        }
        return count
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

    /// A language's letters beyond ASCII (lowercase), those it writes only at the end of a word, and those
    /// no word of it begins with.
    struct Alphabet {
        let letters: Set<UInt32>
        let finalOnly: Set<UInt32>
        let neverFirst: Set<UInt32>
        let firstOnly: Set<UInt32>
        /// Letters that stand only after a vowel (a diaeresis parts two vowels: `Noël`, `Gaëlle`, `naïf`).
        let afterVowel: Set<UInt32>
        init(_ letters: String, finalOnly: String = "", neverFirst: String = "", firstOnly: String = "",
             afterVowel: String = "") {
            self.letters = Set(letters.unicodeScalars.map(\.value))
            self.finalOnly = Set(finalOnly.unicodeScalars.map(\.value))
            self.neverFirst = Set(neverFirst.unicodeScalars.map(\.value))
            self.firstOnly = Set(firstOnly.unicodeScalars.map(\.value))
            self.afterVowel = Set(afterVowel.unicodeScalars.map(\.value))
        }
    }

    /// Every word's letters must come from one of these (a customer list mixes French, German and Spanish
    /// names, but each name is in one language). Italian accents only a word's last vowel (`città`, `Nicolò`),
    /// so `Zdenìk`, Windows-1252's reading of Czech `Zdeněk`, is no Italian word.
    static let latinLanguages: [Alphabet] = [
        Alphabet("àâæçéèêëîïôœùûüÿ", finalOnly: "ù", afterVowel: "ëï"),       // French
        Alphabet("äöüß"),                                    // German
        Alphabet("áéíñóúü"),                                 // Spanish
        Alphabet("ãõáâêôçàéíóú"),                            // Portuguese
        Alphabet("àèéìíòóù", finalOnly: "àèéìíòóù"),         // Italian
        Alphabet("æøåéó"),                                   // Danish, Norwegian
        Alphabet("åäöé"),                                    // Swedish, Finnish
        Alphabet("ëïéèáóú", afterVowel: "ëï"),              // Dutch
        Alphabet("àçèéíïòóúü", afterVowel: "ï"),            // Catalan
        Alphabet("ðþáéíóúýæö", neverFirst: "ð", firstOnly: "þ"),             // Icelandic
        Alphabet("ąćęłńóśźż", neverFirst: "ąęń"),            // Polish
        Alphabet("áčďéěíňóřšťúůýž", neverFirst: "ěů"),       // Czech
        Alphabet("áäčďéíĺľňóôŕšťúýž"),                       // Slovak
        Alphabet("áéíóöőúüű"),                               // Hungarian
        Alphabet("čćđšž"),                                   // Croatian, Slovene, Bosnian
        Alphabet("ăâîşţșț"),                                 // Romanian
        Alphabet("çğıöşüâîûİ", neverFirst: "ğ"),             // Turkish (İ's lowercase is ASCII i)
        // Windows-1257 reads Danish `Ærø` as `Ęrų`: no Lithuanian word begins with `ę`.
        Alphabet("ąčęėįšųūž", neverFirst: "ąęų"),            // Lithuanian
        Alphabet("āčēģīķļņšūž"),                             // Latvian
        // `š` and `ž` only in loanwords: with them, Windows-1257's reading of Turkish `Eskişehir` is Estonian.
        Alphabet("äõöü"),                                    // Estonian
    ]
    /// Languages whose words meet in one file: a Western list has French, German and Spanish names, a Czech
    /// one Czech, Slovak and German ones. A reading whose words need languages of two groups is less
    /// plausible: Windows-1252 reads Turkish `Şişli` as Icelandic `Þiþli` beside Western `Gümüþhane`.
    static let latinGroups: [Int] = [
        [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],     // Western
        [1, 10, 11, 12, 13, 14, 15],        // Central European
        [1, 16],                            // Turkish
        [1, 5, 6, 9],                       // Nordic with Icelandic
        // Not with Swedish or French: their `é` outside the Baltic letters marks `Hélčne` as no Baltic word.
        [1, 17, 18, 19],                    // Baltic
    ].map { $0.reduce(0) { $0 | 1 << $1 } }
    static let cyrillicGroup = 1 << 31
    static let cyrillicShift = 24

    static let cyrillicLanguages: [Set<UInt32>] = [
        "абвгдеёжзийклмнопрстуфхцчшщъыьэюя", "абвгґдеєжзиіїйклмнопрстуфхцчшщьюя",
        "абвгдеёжзійклмнопрстуўфхцчшыьэюя", "абвгдђежзијклљмнњопрстћуфхцчџш",
    ].map { Set($0.unicodeScalars.map(\.value)) }
    static let russianFrequent = Set("оеаинтсрвл".unicodeScalars.map(\.value))
    static let cyrillicVowels = Set("аеёиоуыэюяієї".unicodeScalars.map(\.value))
    /// Letters no Russian word begins with.
    static let cyrillicNeverFirst = Set("ьъы".unicodeScalars.map(\.value))
    static let cyrillicNotConsonants = cyrillicVowels.union("ьъй".unicodeScalars.map(\.value))
    static let afterHardSign = Set("еёюя".unicodeScalars.map(\.value))

    /// Whether a Cyrillic word's letters (lowercase) could be Russian spelling: it does not begin with `ь`,
    /// `ъ` or `ы`, `ъ` comes before `е ё ю я`, and no five consonants follow one another (`вств` of
    /// `здравствуйте` is four). KOI8-R's reading of Windows-1251 `Хлеб бородинский` has `АНПНДХМЯЙХИ`.
    static func spelledLikeRussian(_ letters: [UInt32], first: UInt32) -> Bool {
        if cyrillicNeverFirst.contains(first) { return false }
        var run = 0
        for (k, l) in letters.enumerated() {
            if l == 0x44A && (k + 1 == letters.count || !afterHardSign.contains(letters[k + 1])) { return false }
            run = cyrillicNotConsonants.contains(l) ? 0 : run + 1
            if run >= 5 { return false }
        }
        return true
    }
    /// What a rare Cyrillic letter costs: how much rarer than 3% of Russian text it is, on a log scale
    /// (`ю` 0.6% costs 0.38, `о` 11% nothing). Three letters alone, `ЮЮЮ` (ISO-8859-5's reading of
    /// Windows-1251 `ООО`), are no company form; Russian text averages under 0.04 a letter.
    static let cyrillicRarity: [UInt32: Double] = {
        let perMille: [(Character, Double)] = [
            ("о", 109.7), ("е", 84.5), ("а", 80.1), ("и", 73.5), ("н", 67), ("т", 62.6), ("с", 54.7), ("р", 47.3),
            ("в", 45.4), ("л", 44), ("к", 34.9), ("м", 32.1), ("д", 29.8), ("п", 28.1), ("у", 26.2), ("я", 20.1),
            ("ы", 19), ("ь", 17.4), ("г", 17), ("з", 16.5), ("б", 15.9), ("ч", 14.4), ("й", 12.1), ("х", 9.7),
            ("ж", 9.4), ("ш", 7.3), ("ю", 6.4), ("ц", 4.8), ("щ", 3.6), ("э", 3.2), ("ф", 2.6), ("ё", 2), ("ъ", 0.4),
        ]
        var cost: [UInt32: Double] = [:]
        for (c, p) in perMille { cost[c.unicodeScalars.first!.value] = min(0.75, max(0, (-log(p / 1000) - 3.5) / 4)) }
        return cost
    }()
    /// A Cyrillic letter Russian does not have (Ukrainian `і`, Serbian `ђ`).
    static let otherCyrillicCost = 0.3

    /// Of `touchesLetters`, those that stand at a word's edge, never between two of its letters.
    static let notBetweenLetters: Set<UInt32> = [0x201A, 0x201E, 0x201C, 0x201D, 0xAB, 0xBB, 0x2026, 0xBF, 0xA1, 0xB0, 0x2122]

    /// Vowels, lowercase, that a diaeresis may follow (`afterVowel`).
    static let vowels = Set("aeiouyàâéèêëîïôûüœæáíóú".unicodeScalars.map(\.value))

    /// Letters that are words on their own (French and Portuguese `à`, Portuguese `é`, Lithuanian `į`).
    static let oneLetterWords: Set<UInt32> = [0xE0, 0xE9, 0x12F]     // à é į

    static let ordinalIndicators: Set<UInt32> = [0xBA, 0xAA]     // º ª

    /// Symbols of `neutral` that may touch a letter: quotes, dashes, `…`, `°C`, the no-break space. Others glued to a word
    /// (`„®áâ`, Windows-1252's reading of CP866 `Доставка`) are not how text is written.
    static let touchesLetters: Set<UInt32> = [0x2013, 0x2014, 0xAB, 0xBB, 0x201E, 0x201C, 0x201D, 0x2018, 0x2019,
                                              0x201A, 0x2026, 0xB0, 0xBF, 0xA1, 0xB4, 0xB7, 0x2122, 0xA0]

    /// What each byte of a code page is, looked up once per page rather than asked of Unicode per character (the
    /// guess reads 64 KiB in thirteen pages): letter, lowercase, uppercase, and its lowercase letter.
    struct PageLetters: Sendable {
        static let letter: UInt8 = 1, lowercase: UInt8 = 2, uppercase: UInt8 = 4
        var kind = [UInt8](repeating: 0, count: 256)
        var lower = [UInt32](repeating: 0, count: 256)

        init(_ table: SingleByteTable) {
            for b in 0..<256 {
                guard let s = Unicode.Scalar(table.scalars[b]) else { continue }
                let p = s.properties
                kind[b] = (p.isAlphabetic ? PageLetters.letter : 0) | (p.isLowercase ? PageLetters.lowercase : 0)
                    | (p.isUppercase ? PageLetters.uppercase : 0)
                lower[b] = p.lowercaseMapping.unicodeScalars.first!.value
            }
        }
    }

    /// How implausible `sample` reads in `table`: how many of its non-ASCII characters read badly, of
    /// how many, and the words that fit some language.
    static func badness(_ sample: [UInt8], _ table: SingleByteTable) -> (bad: Double, total: Double, words: [Word]) {
        let scalars = sample.map { table.scalars[Int($0)] }
        let page = PageLetters(table)
        /// Whether the character at `k` is a letter.
        func isLetter(at k: Int) -> Bool { page.kind[Int(sample[k])] & PageLetters.letter != 0 }
        func isDigit(_ v: UInt32) -> Bool { v >= 0x30 && v <= 0x39 }
        func glues(at k: Int) -> Bool { isLetter(at: k) || (scalars[k] >= 0x80 && scalars[k] != 0xA0) }
        // A symbol glued to a word breaks it: the word is misread as a whole (`бьш№эютр`, ISO-8859-5's
        // reading of Windows-1251 `Смирнова`; `╩ущьщп`), not only the symbol.
        func breaks(_ k: Int) -> Bool {
            k >= 0 && k < n && sample[k] >= 0x80 && !isLetter(at: k) && scalars[k] != 0xA0
                && !touchesLetters.contains(scalars[k]) && !inWord.contains(scalars[k])
        }
        var total = 0.0, bad = 0.0
        var cyrillicLetters: [UInt32] = []
        /// Per letter: how often it is in a word, and how often as the one non-ASCII letter, last, of a Latin word.
        var seen: [UInt32: Int] = [:], trailing: [UInt32: Int] = [:]
        /// The words that fit some language: the groups of those languages, and their non-ASCII letters.
        var fitting: [(groups: Int, letters: Double)] = []
        var words: [Word] = []
        var numeros = 0
        var i = 0
        /// Whether a letter of `marked` in the word being read stands first or after no vowel (`Klaipëda`,
        /// Windows-1252's reading of Lithuanian `Klaipėda`).
        var wordStart = 0, wordEnd = 0
        func diaeresisAfterConsonant(_ marked: Set<UInt32>) -> Bool {
            for k in wordStart..<wordEnd where sample[k] >= 0x80 && marked.contains(page.lower[Int(sample[k])]) {
                if k == wordStart || !vowels.contains(page.lower[Int(sample[k - 1])]) { return true }
            }
            return false
        }
        let n = scalars.count
        while i < n {
            let v = scalars[i]
            if isLetter(at: i) {
                // A word: a run of letters (and the marks that may stand inside one).
                var j = i
                var high = 0, latin = false, cyrillic = false, other = false, caseBreak = false
                var previousLower = false
                var letters: [UInt32] = []
                var ordinals: [Int] = []
                var lastIsHigh = false
                while j < n {
                    let w = scalars[j]
                    if !isLetter(at: j) {
                        if inWord.contains(w), j + 1 < n, isLetter(at: j + 1), j > i { total += 1; j += 1; continue }
                        break
                    }
                    let b = Int(sample[j])
                    if w < 0x250 { latin = true } else if w >= 0x400 && w < 0x530 { cyrillic = true } else { other = true }
                    let lower = page.kind[b] & PageLetters.lowercase != 0, upper = page.kind[b] & PageLetters.uppercase != 0
                    if upper && previousLower { caseBreak = true }
                    previousLower = lower
                    lastIsHigh = sample[j] >= 0x80
                    if ordinalIndicators.contains(w) {
                        high += 1
                        ordinals.append(j)
                    } else if lastIsHigh {
                        high += 1
                        let l = page.lower[b]
                        letters.append(l < 0x80 ? w : l)
                    }
                    j += 1
                }
                let length = j - i
                let start = i
                i = j
                guard high > 0 else { continue }
                let h = Double(high)
                total += h
                if !ordinals.isEmpty {
                    // An ordinal indicator ends a number or a short abbreviation: `3º`, `2ª`, `Nº`, `D.ª`.
                    let after = start > 0 ? scalars[start - 1] : 0
                    let placed = length == 1 ? isDigit(after) || after == 0x2E : length <= 3
                    if ordinals != [j - 1] || !placed || letters.count > 0 { bad += h }
                    continue
                }
                if (latin && cyrillic) || caseBreak || breaks(start - 1) || breaks(j) {
                    bad += h
                    continue
                }
                if other {
                    bad += h * 0.75
                    continue
                }
                let nonFinal = lastIsHigh ? letters.dropLast() : letters[...]
                for l in letters { seen[l, default: 0] += 1 }
                if latin && !cyrillic && letters.count == 1 && lastIsHigh && length > 1 { trailing[letters[0], default: 0] += 1 }
                let firstLower = page.lower[Int(sample[start])]
                wordStart = start
                wordEnd = i
                let highFirst = sample[start] >= 0x80
                var groups = 0, languages = 0
                if cyrillic {
                    for (k, l) in cyrillicLanguages.enumerated() where letters.allSatisfy(l.contains) {
                        languages |= 1 << (cyrillicShift + k)
                        groups = cyrillicGroup
                    }
                } else {
                    for (k, a) in latinLanguages.enumerated()
                    where letters.allSatisfy(a.letters.contains) && !nonFinal.contains(where: a.finalOnly.contains)
                        && !(highFirst && a.neverFirst.contains(firstLower))
                        && !(highFirst ? letters.dropFirst() : letters[...]).contains(where: a.firstOnly.contains)
                        && (a.afterVowel.isEmpty || !diaeresisAfterConsonant(a.afterVowel)) {
                        languages |= 1 << k
                        for (g, members) in latinGroups.enumerated() where members & 1 << k != 0 { groups |= 1 << g }
                    }
                }
                let numberFollows = j < n && isDigit(scalars[j]) || j + 1 < n && scalars[j] == 0x20 && isDigit(scalars[j + 1])
                if groups != 0 && length == 2 && (scalars[start] | 0x20) == 0x6E && lastIsHigh && numberFollows {
                    numeros += 1                    // `Nş 12`, `Nē 12`: where Western text writes `Nº 12`
                    continue
                }
                if groups == 0 {
                    bad += h                        // letters no one language has together: `Dvoøák`
                } else if latin && length >= 3 && Double(high) > Double(length) * 0.75 {
                    bad += h                        // Latin words are mostly ASCII letters: `ÎÎÎ`, not `OOO`
                } else if cyrillic && !spelledLikeRussian(letters, first: firstLower) {
                    bad += h
                } else {
                    fitting.append((groups, h))
                    words.append(Word(range: start..<i, languages: languages, letters: h))
                    if length == 1 {
                        // A lone non-ASCII letter is weak evidence at best, unless it is a word (`à`, which
                        // CP850 gives where Windows-1252 gives a plausible `…`); glued to a number it is an
                        // ordinal or a unit, and those are º, ª or ASCII: `3ş` is Windows-1250's `3º`.
                        let glued = i - 1 > 0 && isDigit(scalars[i - 2])
                        bad += glued ? 1 : oneLetterWords.contains(letters.first ?? 0) ? 0 : 0.5
                    }
                    if cyrillic {
                        cyrillicLetters += letters
                        for l in letters { bad += cyrillicRarity[l] ?? otherCyrillicCost }
                    }
                }
                continue
            }
            if sample[i] >= 0x80 {
                total += 1
                if !table.defined[Int(sample[i])] || (v >= 0x80 && v < 0xA0) {
                    bad += 1                        // an undefined byte or a C1 control
                } else if !neutral.contains(v) {
                    bad += 1                        // `Wroc³aw`, box drawing, stray symbols
                } else if !touchesLetters.contains(v) && (i > 0 && glues(at: i - 1) || i + 1 < n && glues(at: i + 1)) {
                    bad += 1                        // `„®áâ`, `€®¢`: a symbol glued to a word or to other symbols
                } else if notBetweenLetters.contains(v) && i > 0 && i + 1 < n && glues(at: i - 1) && glues(at: i + 1) {
                    // `J‚r“me`: Windows-1252's reading of CP850 `Jérôme`; `Pie¹»any`, its reading of ISO-8859-2
                    // `Piešťany`, where the other symbol, not a letter, stands on one side.
                    bad += 1
                }
            }
            i += 1
        }
        // One letter that ends otherwise ASCII words, every time it is read, three times or more, is more likely a
        // symbol after them: `Nameá, Cityá, Stateá` is CP850's reading of the FDIC list's no-break spaces. A
        // quarter each: a suspicion that tips a decision other evidence leans to, never one on its own (`Bogotá,
        // Panamá, Pará` in CP850 then stops rather than being read as Windows-1252).
        for (l, n) in trailing where n >= 3 && seen[l] == n { bad += Double(n) * 0.25 }
        // `N` and a letter before a number is the place of Western `Nº`: a misreading among Western words (`José,
        // Nş 12`), a suspicion alone (`Nş 12`), a quarter bad, that never decides on its own.
        let western = fitting.contains { $0.groups & 1 != 0 }
        bad += Double(numeros) * (western ? 1 : 0.25)
        // The words of one file come from one group of languages; those of others read badly: Windows-1257 reads
        // a Western list's `François, Núñez, Cádiz, Hélène` as Latvian `Franēois`, Polish `Nśńez`, Lithuanian
        // `Cįdiz` and Czech `Hélčne`, of two groups where Windows-1252 needs one. (Half, before, let that list stop.)
        if fitting.count > 1 {
            let all = fitting.reduce(0) { $0 + $1.letters }
            let main = (latinGroups.indices.map { 1 << $0 } + [cyrillicGroup]).map { g in
                fitting.reduce(0) { $0 + ($1.groups & g != 0 ? $1.letters : 0) }
            }.max()!
            bad += all - main
        }
        // Cyrillic text has over a quarter vowels (42% on average; `Санкт-Петербург` 29%, `Невский пр., д.`
        // 20%: judged on 20 letters or more), and its ten most frequent letters make over a third of it.
        if cyrillicLetters.count >= 20 {
            let c = Double(cyrillicLetters.count)
            let vowels = Double(cyrillicLetters.count(where: { cyrillicVowels.contains($0) })) / c
            let frequent = Double(cyrillicLetters.count(where: { russianFrequent.contains($0) })) / c
            if vowels < 0.25 || vowels > 0.65 { bad += c * 0.3 }
            if frequent < 0.35 { bad += c * (0.35 - frequent) }
        }
        return (bad, total, words)
    }
}
