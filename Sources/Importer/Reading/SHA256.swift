// SHA-256 of an import's input, recorded in the import history.
//
// Why libcrypto: Foundation on Linux has no SHA-256, and the hash must not slow the import. Measured
// on the 63 MB bench file on this project's machines (x86-64 with SHA extensions): libcrypto's
// SHA256_Update (which uses the CPU's SHA instructions) hashes at ~1.5 GB/s, about 0.04 s for the file,
// while coreutils' portable C `sha256sum` takes ~0.17 s and a portable Swift loop would be slower
// still; and it runs on a second thread beside the import (see InputFile), so it costs no wall time.
// Debian's libssl-dev provides it (`make deps` installs it).

import CCrypto

package struct SHA256Hasher {
    private var context = SHA256_CTX()

    package init() {
        SHA256_Init(&context)
    }

    package mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        SHA256_Update(&context, base, bytes.count)
    }

    /// The digest as 64 lowercase hex digits.
    package mutating func finish() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        SHA256_Final(&digest, &context)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in digest {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
