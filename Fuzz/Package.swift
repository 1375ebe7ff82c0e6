// swift-tools-version: 6.0
import PackageDescription

// libFuzzer targets for bookkeeper (issue 6): the CSV reader, the predicate parser and binder (against the
// bookkeeping model, run through SQL and the evaluator), deep and long predicates (FuzzPredicateShape), the same inside
// report definitions and model files (FuzzDefinitionShape), and the report-definition loader. A package of its
// own, so that the main package's `swift build` and `swift test` never see -sanitize=fuzzer. Build and run
// with `make fuzz` at the top (it passes -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library).
// Each target is a thin wrapper around a function of Tests/FuzzHarness (FuzzDriver hands over to libFuzzer), which the main package's
// FuzzRegressionTests also run on every input that ever crashed.
// Linux only, like the package it fuzzes (see ../Package.swift).
let harness: [Target.Dependency] = ["FuzzDriver", .product(name: "BookkeeperFuzzHarness", package: "Bookkeeper")]

let package = Package(
    name: "BookkeeperFuzz",
    dependencies: [
        .package(name: "Bookkeeper", path: ".."),
    ],
    targets: [
        .target(name: "FuzzDriver"),
        .executableTarget(name: "FuzzCSV", dependencies: harness),
        .executableTarget(name: "FuzzPredicate", dependencies: harness),
        .executableTarget(name: "FuzzPredicateShape", dependencies: harness),
        .executableTarget(name: "FuzzReportDefinition", dependencies: harness),
        .executableTarget(name: "FuzzDefinitionShape", dependencies: harness),
    ]
)
