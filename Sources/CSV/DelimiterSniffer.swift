// Guessing the delimiter of a CSV file from its first records.
//
// Why this file exists: exports from other systems use `,` `;` tab or `|` (`;` wherever the decimal
// separator is a comma), and nightly jobs should not need a flag per source. The guess counts fields
// per record for each candidate with the same quoting rules as the reader — a delimiter inside
// quotes does not count — and prefers a candidate that splits every sampled record into the same
// number (> 1) of fields.

enum DelimiterSniffer {
    /// Candidates in order of preference when several fit equally well.
    static let candidates: [UInt8] = [UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "\t"), UInt8(ascii: "|")]

    /// The delimiter for `sample`, the first bytes of the input (after any byte-order mark).
    /// `isComplete` tells whether the sample is the whole input; if not, its last record may be cut
    /// and is not counted. Looks at no more than `maxRecords` records. Returns `,` when nothing fits.
    ///
    /// Rule: among candidates whose every sampled record has the same field count > 1, take the one
    /// with the most fields (ties: order of `candidates`). If none is consistent (rows with a stray
    /// delimiter, as in hand-edited files), take the candidate whose header has > 1 fields and which
    /// the most records agree with.
    static func sniff(_ sample: UnsafeBufferPointer<UInt8>, isComplete: Bool, maxRecords: Int = 20) -> UInt8 {
        var bestConsistent: (delimiter: UInt8, fields: Int)?
        var bestAgreeing: (delimiter: UInt8, agreeing: Int)?
        for candidate in candidates {
            let counts = fieldCounts(sample, delimiter: candidate, isComplete: isComplete, maxRecords: maxRecords)
            guard let header = counts.first, header > 1 else { continue }
            if counts.allSatisfy({ $0 == header }) {
                if bestConsistent == nil || header > bestConsistent!.fields {
                    bestConsistent = (candidate, header)
                }
            }
            let agreeing = counts.count(where: { $0 == header })
            if bestAgreeing == nil || agreeing > bestAgreeing!.agreeing {
                bestAgreeing = (candidate, agreeing)
            }
        }
        return bestConsistent?.delimiter ?? bestAgreeing?.delimiter ?? UInt8(ascii: ",")
    }

    /// Field count of each non-blank record in `sample` when split by `delimiter`.
    static func fieldCounts(_ sample: UnsafeBufferPointer<UInt8>, delimiter: UInt8, isComplete: Bool, maxRecords: Int) -> [Int] {
        let quote = UInt8(ascii: "\""), lf = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
        var counts: [Int] = []
        var i = 0
        let n = sample.count
        while i < n, counts.count < maxRecords {
            // Skip blank lines.
            if sample[i] == lf || sample[i] == cr { i += 1; continue }
            var fields = 1
            var atFieldStart = true
            var inQuotes = false
            var ended = false
            while i < n {
                let byte = sample[i]
                i += 1
                if inQuotes {
                    if byte == quote {
                        if i < n, sample[i] == quote { i += 1 } else { inQuotes = false }
                    }
                } else if byte == delimiter {
                    fields += 1
                    atFieldStart = true
                    continue
                } else if byte == lf || byte == cr {
                    ended = true
                    break
                } else if byte == quote, atFieldStart {
                    inQuotes = true
                }
                atFieldStart = false
            }
            if ended || isComplete { counts.append(fields) }
        }
        return counts
    }
}
