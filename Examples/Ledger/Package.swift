// swift-tools-version: 6.2
import PackageDescription

// An example of Bookkeeper's engine used as a library (docs/library.md): it depends on this repository by path,
// as another package would by URL (`.package(url: "https://…/bookkeeper", from: "0.9.0")`), and uses its
// ObjectStore product. `make test-examples` builds it in Examples/Ledger/.build, runs `Ledger` and compares what it
// prints with expected-output.txt.
let package = Package(
    name: "Ledger",
    dependencies: [
        .package(name: "Bookkeeper", path: "../.."),
    ],
    targets: [
        // A small model in code, a store in a temporary folder, objects related, saved and fetched.
        .executableTarget(
            name: "Ledger",
            dependencies: [.product(name: "ObjectStore", package: "Bookkeeper")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
        // The compile test: Foundation and the library imported together, every public type named unqualified
        // (PublicAPITests checks that it names each one). Compiling it is the test; it is never run.
        .target(
            name: "CompileTest",
            dependencies: [.product(name: "ObjectStore", package: "Bookkeeper")],
            swiftSettings: [.treatAllWarnings(as: .error)]
        ),
    ]
)
