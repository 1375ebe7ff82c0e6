// SHA-256 of an import's input, recorded in the import history, through OpenSSL 3's EVP digest interface (the
// maintained one; SHA256_Init and friends are deprecated). Why libcrypto and not swift-crypto, with the
// measurements: docs/design/sha256.md.

import CCrypto

/// OpenSSL 3 frees its providers in an atexit handler, and a failed import exits while its hash thread may still be
/// inside libcrypto (a crash in 1.5% of runs that failed at once); so that handler is never registered. The process's
/// memory goes with it anyway. This must be libcrypto's first initialisation, which the hasher's first use is.
private let libcryptoWithoutAtexitCleanup: Bool = OPENSSL_init_crypto(UInt64(OPENSSL_INIT_NO_ATEXIT), nil) == 1

package struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    package init() {
        // Fails only when memory cannot be had, or when libcrypto has no SHA-256 (a broken install).
        guard libcryptoWithoutAtexitCleanup, let context = EVP_MD_CTX_new(), EVP_DigestInit_ex(context, EVP_sha256(), nil) == 1 else {
            fatalError("libcrypto: cannot start a SHA-256 digest")
        }
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        // Cannot fail for a started SHA-256 context.
        _ = EVP_DigestUpdate(context, base, bytes.count)
    }

    /// The digest as 64 lowercase hex digits.
    package consuming func finish() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        _ = EVP_DigestFinal_ex(context, &digest, &length)
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for b in digest.prefix(Int(length)) {
            out.append(hex[Int(b >> 4)])
            out.append(hex[Int(b & 15)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
