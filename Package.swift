// swift-tools-version: 6.2
import PackageDescription

// Linux is the one supported platform (Debian 12, x86-64): the code calls Glibc and reads /proc directly, and
// the system libraries come from apt. SwiftPM's `platforms:` names only Apple systems, so the
// manifest says it here instead.
#if !os(Linux)
#error("Bookkeeper builds and runs on Linux only")
#endif

// A clean build has no warnings, and every build keeps it so: the setting lives here rather than in a command-line
// -Xswiftc flag, so `make build`, `make run` and `make test` build with the same flags and share one debug build
// (a flag on one command but not another rebuilt everything). SwiftPM applies it to this package's targets only.
let strict: [SwiftSetting] = [.treatAllWarnings(as: .error)]

// Data flows one way: CSV -> Importer -> ObjectStore <- Reports -> renderers,
// with Bookkeeping declaring the domain model and the CLI on top.
let package = Package(
    name: "Bookkeeper",
    products: [
        .executable(name: "bookkeeper", targets: ["bookkeeper"]),
        // The engine as a library other packages depend on by URL or path (docs/library.md, Examples/Ledger).
        .library(name: "ObjectStore", targets: ["ObjectStore"]),
        // For the fuzz targets in Fuzz/ (a separate package, built with -sanitize=fuzzer; see `make fuzz`).
        .library(name: "BookkeeperFuzzHarness", targets: ["FuzzHarness"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.0.0"),
        // `make docs`: the ObjectStore DocC archive (swift package generate-documentation).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
    ],
    targets: [
        // The one module that writes files: the guard that refuses the store, the input and devices as replaceable
        // files, atomic replacement, the write loop, cleanup on failure and signals, side files beside the store.
        .target(name: "FileOutput"),
        // The time zone of a run: TZ read as glibc reads it (a zone name, :name, a zoneinfo path, a POSIX TZ string),
        // instants to local times and back. Below everything that reads or shows a date-time or today.
        .target(name: "LocalTime"),
        // The one text form of a value (decimals and doubles exactly, dates, date-times in a zone, booleans, bytes),
        // below the engine and the renderers: `fetch`, reports, `list`, `show` and messages write values with it.
        .target(name: "ValueText", dependencies: ["LocalTime"]),
        // The engine: model, validation, context, fetch + predicate -> SQL. Knows no domain.
        .target(
            name: "ObjectStore",
            dependencies: [
                "FileOutput",
                "LocalTime",
                "ValueText",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Yams", package: "Yams"),
                // The storage protocol's SQLite implementation binds and reads through the C API (SQL/SQLite/SQLiteConnection.swift).
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
                "CSQLiteConfig",
                // The storage protocol's PostgreSQL implementation (SQL/PostgreSQL/PostgreSQLConnection.swift).
                "CLibPQ",
            ]
        ),
        // sqlite3_db_config (variadic, so not callable from Swift) for the options a dry run's connection sets.
        .systemLibrary(name: "CSQLiteConfig"),
        // libpq (Debian's libpq-dev, the PostgreSQL 15 client library); only SQL/PostgreSQL/ imports it.
        .systemLibrary(name: "CLibPQ", pkgConfig: "libpq", providers: [.apt(["libpq-dev"])]),
        // A fast, streaming RFC 4180 reader and writer (see Sources/CSV/CSVReader.swift for why it is hand-written).
        .target(name: "CSV", dependencies: ["FileOutput"]),
        // SHA-256 from the system's libcrypto, for the import history (see Sources/Importer/Reading/SHA256.swift).
        .systemLibrary(name: "CCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // CSV import jobs: mapping, conversion, errors with places, summaries. Knows no SQL.
        .target(
            name: "Importer",
            dependencies: ["ObjectStore", "LocalTime", "CSV", "FileOutput", "CCrypto", .product(name: "Yams", package: "Yams")]
        ),
        // CSV export: the columns are the import's key paths (KeyPathResolver), so what it writes imports back.
        .target(name: "Exporter", dependencies: ["ObjectStore", "CSV", "Importer"]),
        // libxlsxwriter (Debian's libxlsxwriter-dev 1.1.4); only the XLSX renderer imports it.
        .systemLibrary(name: "CXLSXWriter", pkgConfig: "xlsxwriter", providers: [.apt(["libxlsxwriter-dev"])]),
        // Report renderers: text, CSV, JSON, XLSX from a document of typed cells. Know nothing of predicates or the store.
        .target(name: "ReportRenderers", dependencies: ["CSV", "FileOutput", "LocalTime", "ValueText", "CXLSXWriter"]),
        // Report definitions (YAML files in Reports/) and the engine that runs them: a fetch plan in, typed cells out
        // to the renderers. Knows no domain and no SQL: rows come from the store (one snapshot for count and rows).
        .target(
            name: "Reports",
            dependencies: ["ObjectStore", "ReportRenderers", "FileOutput", "LocalTime", .product(name: "Yams", package: "Yams")]
        ),
        // The domain: the bookkeeping model. Knows no SQL.
        .target(name: "Bookkeeping", dependencies: ["ObjectStore"]),
        // All command-line logic; the executable is a thin shell over it.
        .target(
            name: "BookkeeperCLI",
            dependencies: [
                "ObjectStore", "Bookkeeping", "Importer", "Exporter", "CSV", "FileOutput", "LocalTime",
                "Reports", "ReportRenderers", "ValueText",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .executableTarget(name: "bookkeeper", dependencies: ["BookkeeperCLI"]),
        .target(name: "TestSupport", dependencies: ["ObjectStore", .product(name: "GRDB", package: "GRDB.swift")], path: "Tests/TestSupport"),
        // What each fuzz target does with one input; Fuzz/ wraps it for libFuzzer, FuzzRegressionTests replays inputs.
        .target(name: "FuzzHarness", dependencies: ["CSV", "ObjectStore", "Bookkeeping", "Reports", "LocalTime"], path: "Tests/FuzzHarness"),
        .testTarget(name: "FuzzRegressionTests", dependencies: ["FuzzHarness", "TestSupport"], exclude: ["Inputs"]),
        .testTarget(name: "CSVTests", dependencies: ["CSV", "FileOutput", "TestSupport"]),
        .testTarget(name: "FileOutputTests", dependencies: ["FileOutput", "TestSupport"]),
        .testTarget(name: "ReportRenderersTests", dependencies: ["ReportRenderers", "ValueText", "CSV", "FileOutput", "LocalTime", "TestSupport"]),
        .testTarget(name: "ObjectStoreTests", dependencies: ["ObjectStore", "Bookkeeping", "LocalTime", "TestSupport"]),
        .testTarget(name: "LocalTimeTests", dependencies: ["LocalTime", "TestSupport"]),
        .testTarget(name: "ImporterTests", dependencies: ["Importer", "ObjectStore", "Bookkeeping", "CSV", "LocalTime", "TestSupport"]),
        .testTarget(name: "BookkeepingTests", dependencies: ["Bookkeeping", "ObjectStore", "TestSupport"]),
        .testTarget(name: "BookkeeperCLITests", dependencies: ["TestSupport"]),
        .testTarget(name: "ReportsTests", dependencies: ["Reports", "ReportRenderers", "ObjectStore", "Bookkeeping", "CSV", "LocalTime", "TestSupport"],
                    exclude: ["Expected"]),
        // The child process of the renderer tests that kill a render or measure its memory (a program, not a test).
        .executableTarget(name: "render-child", dependencies: ["ReportRenderers", "LocalTime"], path: "Tests/RenderChild"),
    ]
)

for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + strict
}
