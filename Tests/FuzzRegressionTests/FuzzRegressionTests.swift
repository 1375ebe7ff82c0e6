// The fuzz targets' inputs in the normal test suite (issue 6, "every crash found becomes a regression
// test"): every input a fuzzer crashed on (Inputs/<target>/), and the seed corpus `make fuzz` starts from
// (SampleData/, Reports/, ../shared/datasets/csv-spectrum, Fuzz/Corpus/), through the same functions the
// libFuzzer executables call. A crash here is a crash there.

import FuzzHarness
import TestSupport
import Foundation
import XCTest

final class FuzzRegressionTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    func files(_ folder: String, _ extensions: Set<String>? = nil) -> [URL] {
        let url = Self.root.appendingPathComponent(folder)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
        return names.sorted().filter { $0 != "README.md" && (extensions == nil || extensions!.contains(($0 as NSString).pathExtension)) }
            .map { url.appendingPathComponent($0) }
    }

    func bytes(_ url: URL) -> [UInt8] { Array((try? Data(contentsOf: url)) ?? Data()) }

    /// Every saved crash input through its target's function. The folder must be there (a checkout without it would
    /// replay nothing), every file in it must be in the README's table and every file the table names must be there,
    /// so an input cannot drop out unnoticed; a crash ends the test process, which the runner reports as a failure.
    func testCrashInputs() throws {
        let targets: [String: ([UInt8]) -> FuzzHarness.Outcome] = [
            "csv": FuzzHarness.csv, "predicate": FuzzHarness.predicate, "report-definition": FuzzHarness.reportDefinition,
            "predicate-shape": FuzzHarness.predicateShape, "definition-shape": FuzzHarness.definitionShape,
        ]
        let inputs = Self.root.appendingPathComponent("Tests/FuzzRegressionTests/Inputs")
        let folders = try FileManager.default.contentsOfDirectory(atPath: inputs.path).filter { $0 != "README.md" }.sorted()
        let readme = try String(contentsOf: inputs.appendingPathComponent("README.md"), encoding: .utf8)
        // The table's first column names files as `target/name`, one or more per row.
        let listed = Set(readme.split(separator: "\n").filter { $0.hasPrefix("| `") }
            .flatMap { $0.split(separator: "|")[0].split(separator: "`").filter { $0.contains("/") }.map(String.init) })
        var replayed: [String] = []
        var outcomes: [FuzzHarness.Outcome: Int] = [:]
        for folder in folders {
            guard let target = targets[folder] else {
                XCTFail("Inputs/\(folder) is no fuzz target's folder (\(targets.keys.sorted()))")
                continue
            }
            for url in files("Tests/FuzzRegressionTests/Inputs/\(folder)") {
                outcomes[target(bytes(url)), default: 0] += 1
                replayed.append("\(folder)/\(url.lastPathComponent)")
            }
        }
        XCTAssertFalse(replayed.isEmpty, "no crash input was replayed")
        XCTAssertEqual(Set(replayed).subtracting(listed).sorted(), [], "inputs that the README's table does not list")
        XCTAssertEqual(listed.subtracting(replayed).sorted(), [], "inputs that the README's table lists but that are not there")
        print("fuzz regression inputs: \(replayed.count) run without a crash (\(outcomes.map { "\($0.value) \($0.key)" }.sorted().joined(separator: ", ")))")
    }

    /// The shape target's seeds, as `make fuzz` writes them: every shape at, just past and far past the nesting
    /// limit, and long (the harness itself checks what each must give).
    func testPredicateShapes() {
        var accepted = 0, total = 0
        for shape: UInt8 in 0..<11 {
            for size in [0, 5, 24, 25, 300, 5_000] {
                total += 1
                if FuzzHarness.predicateShape([shape, UInt8(size >> 8), UInt8(size & 255), 0, 3, 5]) == .accepted { accepted += 1 }
            }
        }
        XCTAssertGreaterThanOrEqual(accepted, 20, "\(accepted) of \(total)")
    }

    /// The definition-shape target's seeds, as `make fuzz` writes them: each predicate shape in a report's
    /// `where:` and a model rule, long column and sort lists in both, at and past the nesting limit and long.
    func testDefinitionShapes() {
        var accepted: [UInt8: Int] = [:], total = 0
        for container: UInt8 in 0..<5 {
            for shape: UInt8 in 0..<11 {
                // A chain of 3,000 in `make stress` only: those take most of the time in a debug build.
                for size in Trials.isStress ? [0, 24, 25, 3_000] : [0, 24, 25] {
                    total += 1
                    if FuzzHarness.definitionShape([container, shape, UInt8(size >> 8), UInt8(size & 255), 8, 9, 3]) == .accepted {
                        accepted[container, default: 0] += 1
                    }
                }
            }
        }
        // Every container reaches a report that runs, or a model, for most shapes (chains always).
        for container: UInt8 in 0..<5 { XCTAssertGreaterThanOrEqual(accepted[container] ?? 0, 10, "container \(container): \(accepted)") }
        print("definition shapes: \(accepted.values.reduce(0, +)) of \(total) accepted")
    }

    /// Every seed, as `make fuzz` gives it to the fuzzers (CSV files behind each of a few option bytes). Most
    /// must get through to the end (read and written back; bound and run both ways; loaded and run), or the
    /// fuzzers would start from inputs that stop early.
    func testSeedCorpus() {
        var csvFiles = files("SampleData", ["csv"]) + files("Fuzz/Corpus/csv")
        let spectrum = Self.root.deletingLastPathComponent().appendingPathComponent("shared/datasets/csv-spectrum/csvs")
        csvFiles += ((try? FileManager.default.contentsOfDirectory(atPath: spectrum.path)) ?? []).sorted().map { spectrum.appendingPathComponent($0) }
        var csvAccepted = 0
        for url in csvFiles where FuzzHarness.csv([0x00] + bytes(url)) == .accepted { csvAccepted += 1 }
        for url in csvFiles {
            for selector: UInt8 in [0x21, 0x4A, 0x93, 0xFF] { FuzzHarness.csv([selector] + bytes(url)) }
        }
        let predicates = files("Fuzz/Corpus/predicate")
        let predicatesAccepted = predicates.filter { FuzzHarness.predicate(bytes($0)) == .accepted }
        let reports = files("Reports", ["yaml"]) + files("Fuzz/Corpus/report-definition")
        let reportsAccepted = reports.filter { FuzzHarness.reportDefinition(bytes($0)) == .accepted }
        XCTAssertEqual(csvAccepted, csvFiles.count)
        XCTAssertEqual(predicatesAccepted.count, predicates.count, "\(Set(predicates).subtracting(predicatesAccepted).map(\.lastPathComponent).sorted())")
        XCTAssertEqual(reportsAccepted.count, reports.count, "\(Set(reports).subtracting(reportsAccepted).map(\.lastPathComponent).sorted())")
        print("fuzz seed corpus: \(csvFiles.count) CSV files × 5 option bytes, \(predicates.count) predicates, \(reports.count) report definitions")
    }
}
