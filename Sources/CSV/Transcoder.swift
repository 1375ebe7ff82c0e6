// Input in an encoding whose bytes are not ASCII where the reader looks for ASCII, transcoded to
// UTF-8 by iconv as it streams in, before the reader parses it.
//
// Why this file exists: the reader finds delimiters, quotes and line breaks as single ASCII bytes.
// In UTF-16 and UTF-32 every character has 0x00 bytes beside it, and in Shift_JIS, Big5 or GB18030
// the second byte of a character can be `|`, `\` or `;` ('ポ' is 0x83 0x7C in Shift_JIS). Parsing
// such bytes directly would split characters; parsing their UTF-8 cannot. Lines are the same in
// both, and columns are counted in characters, so the reader's positions still name the place in
// the original file; a byte iconv cannot convert is reported here with its own place, tracked over
// the UTF-8 handed out so far (only this slower path pays for that).

import Foundation
#if canImport(Glibc)
import Glibc
#endif

final class Transcoder {
    struct Failure {
        var bytes: [UInt8]
        var offset: Int64
        var line: Int
        var column: Int
        var atEnd: Bool
    }

    let encoding: CSVEncoding
    private var inner: ByteSource
    private let cd: iconv_t
    private static let chunk = 64 << 10
    private let input: UnsafeMutablePointer<UInt8>
    private var inStart = 0
    private var inEnd = 0
    private var innerEOF = false
    /// Offset in the original input of `input[inStart]`.
    private var inputOffset: Int64
    private let output: UnsafeMutablePointer<UInt8>
    private var outStart = 0
    private var outEnd = 0
    /// The place of the next character handed out (1-based line, column in characters).
    private var line = 1
    private var column = 1
    private var lastWasCR = false
    private(set) var failure: Failure?

    /// Reads `inner` as `iconvName`; `pending` are bytes already read from it (after any
    /// byte-order mark, which sits at `pendingOffset - marks`).
    init?(inner: ByteSource, encoding: CSVEncoding, iconvName: String, pending: UnsafeBufferPointer<UInt8>, pendingOffset: Int64) {
        guard let cd = openIconv(to: "UTF-8", from: iconvName) else { return nil }
        self.cd = cd
        self.inner = inner
        self.encoding = encoding
        input = .allocate(capacity: max(Transcoder.chunk, pending.count))
        if let base = pending.baseAddress, pending.count > 0 { input.update(from: base, count: pending.count) }
        inEnd = pending.count
        inputOffset = pendingOffset
        output = .allocate(capacity: Transcoder.chunk * 4)
    }

    deinit {
        iconv_close(cd)
        input.deallocate()
        output.deallocate()
    }

    func close() { inner.close() }

    /// Up to `count` bytes of UTF-8. Throws EILSEQ (with `failure` set) at bytes that are not the encoding.
    func read(into destination: UnsafeMutablePointer<UInt8>, count: Int) throws(Errno) -> Int {
        while outStart == outEnd {
            if failure != nil { throw Errno(code: EILSEQ) }
            if inStart == inEnd && innerEOF { return 0 }
            try convert()
        }
        let n = min(count, outEnd - outStart)
        destination.update(from: output + outStart, count: n)
        outStart += n
        return n
    }

    /// Converts what input there is (reading more when it is empty or ends inside a character).
    private func convert() throws(Errno) {
        if inStart == inEnd || failure == nil && inEnd - inStart < 8 && !innerEOF { try fill() }
        outStart = 0
        outEnd = 0
        var inPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(input + inStart).assumingMemoryBound(to: CChar.self)
        var inLeft = inEnd - inStart
        var outPtr: UnsafeMutablePointer<CChar>? = UnsafeMutableRawPointer(output).assumingMemoryBound(to: CChar.self)
        var outLeft = Transcoder.chunk * 4
        let result = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
        let code = errno
        let consumed = (inEnd - inStart) - inLeft
        inStart += consumed
        inputOffset += Int64(consumed)
        outEnd = Transcoder.chunk * 4 - outLeft
        track(output, outEnd)
        if result != -1 || code == E2BIG { return }
        if code == EINVAL {
            // A character cut by the end of what was read: read on, unless the input ends here.
            if innerEOF {
                setFailure(atEnd: true)
            } else if outEnd == 0 {
                try fill()
            }
            return
        }
        if code == EILSEQ {
            setFailure(atEnd: false)
            return
        }
        throw Errno(code: code)
    }

    private func setFailure(atEnd: Bool) {
        let shown = Array(UnsafeBufferPointer(start: input + inStart, count: min(4, inEnd - inStart)))
        failure = Failure(bytes: shown, offset: inputOffset, line: line, column: column, atEnd: atEnd)
    }

    /// Moves the unconverted bytes to the front and reads more after them.
    private func fill() throws(Errno) {
        let left = inEnd - inStart
        if inStart > 0 {
            if left > 0 { memmove(input, input + inStart, left) }
            inStart = 0
            inEnd = left
        }
        // One read that gives bytes (a pipe's records are not held back for a full chunk).
        while inEnd == left && inEnd < Transcoder.chunk && !innerEOF {
            let n = try inner.read(into: input + inEnd, count: Transcoder.chunk - inEnd)
            if n == 0 { innerEOF = true } else { inEnd += n }
        }
    }

    /// Follows line and column over the UTF-8 produced, for the place of a later failure.
    private func track(_ bytes: UnsafeMutablePointer<UInt8>, _ count: Int) {
        for i in 0..<count {
            let b = bytes[i]
            if b == 0x0A {
                if !lastWasCR { line += 1 }
                column = 1
                lastWasCR = false
            } else if b == 0x0D {
                line += 1
                column = 1
                lastWasCR = true
            } else {
                lastWasCR = false
                if b & 0xC0 != 0x80 { column += 1 }
            }
        }
    }
}
