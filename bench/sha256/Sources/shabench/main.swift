import CEVP
import Crypto
import Foundation

let size = 256 << 20, chunk = 1 << 20
nonisolated(unsafe) var bytes = [UInt8](repeating: 0, count: size)
var x: UInt64 = 0x9E3779B97F4A7C15
for i in 0..<size { x ^= x << 13; x ^= x >> 7; x ^= x << 17; bytes[i] = UInt8(truncatingIfNeeded: x) }

func hex(_ d: some Sequence<UInt8>) -> String { d.map { String(format: "%02x", $0) }.joined() }

func evp() -> String {
    let ctx = EVP_MD_CTX_new()!
    defer { EVP_MD_CTX_free(ctx) }
    EVP_DigestInit_ex(ctx, EVP_sha256(), nil)
    bytes.withUnsafeBytes { all in
        var o = 0
        while o < size { EVP_DigestUpdate(ctx, all.baseAddress! + o, chunk); o += chunk }
    }
    var d = [UInt8](repeating: 0, count: 32); var n: UInt32 = 0
    EVP_DigestFinal_ex(ctx, &d, &n)
    return hex(d)
}
func swiftCrypto() -> String {
    var h = Crypto.SHA256()
    bytes.withUnsafeBytes { all in
        var o = 0
        while o < size { h.update(bufferPointer: UnsafeRawBufferPointer(rebasing: all[o..<o + chunk])); o += chunk }
    }
    return hex(h.finalize())
}
func time(_ name: String, _ f: () -> String) -> String {
    var times: [Double] = []; var digest = ""
    for _ in 0..<7 {
        let t = DispatchTime.now().uptimeNanoseconds
        digest = f()
        times.append(Double(DispatchTime.now().uptimeNanoseconds - t) / 1e9)
    }
    times.sort()
    let gb = Double(size) / 1e9
    print("\(name): 256 MiB in 1 MiB updates, 7 runs: median \(String(format: "%.3f", times[3])) s (\(String(format: "%.2f", gb / times[3])) GB/s), best \(String(format: "%.3f", times[0])) s (\(String(format: "%.2f", gb / times[0])) GB/s)")
    return digest
}
let a = time("OpenSSL 3 EVP (libcrypto \(String(cString: OpenSSL_version(0))))", evp)
let b = time("swift-crypto SHA256 (BoringSSL)", swiftCrypto)
print("same digest: \(a == b)")
