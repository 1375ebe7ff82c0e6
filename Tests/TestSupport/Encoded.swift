import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `text` in `encoding` (an iconv name), as an exporting system would write it: the bytes of files made the
/// way 1C, Excel and bank portals make them (issue 16).
public func encoded(_ text: String, _ encoding: String) -> [UInt8] {
    let cd = iconv_open(encoding, "UTF-8")!
    defer { iconv_close(cd) }
    var input = Array(text.utf8).map { CChar(bitPattern: $0) }
    var output = [UInt8](repeating: 0, count: input.count * 4 + 16)
    let count = output.count
    let produced: Int = input.withUnsafeMutableBufferPointer { inBuf in
        output.withUnsafeMutableBytes { outBuf in
            var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
            var inLeft = inBuf.count
            var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress!.assumingMemoryBound(to: CChar.self)
            var outLeft = count
            let r = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
            precondition(r != -1, "\(text) cannot be written in \(encoding)")
            return count - outLeft
        }
    }
    return Array(output[0..<produced])
}
