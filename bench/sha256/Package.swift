// swift-tools-version: 6.0
// The measurement behind docs/design/sha256.md: OpenSSL 3 EVP against swift-crypto on the same bytes.
// swift run -c release --package-path bench/sha256   (a package of its own: the main one does not build swift-crypto)
import PackageDescription
let package = Package(
    name: "shabench",
    dependencies: [.package(url: "https://github.com/apple/swift-crypto", from: "3.12.0")],
    targets: [
        .systemLibrary(name: "CEVP", pkgConfig: "libcrypto"),
        .executableTarget(name: "shabench", dependencies: ["CEVP", .product(name: "Crypto", package: "swift-crypto")]),
    ]
)
