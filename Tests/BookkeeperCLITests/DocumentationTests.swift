// The documents that promise what the binary does are checked against the built binary: the README's tour is run
// and its output compared, docs/cli-reference.md is what every --help prints (and every command and option has
// help), and `bookkeeper --version` is CHANGELOG.md's newest version.

import Foundation
import TestSupport
import XCTest

final class DocumentationTests: XCTestCase {
    func text(_ path: String) throws -> String {
        try String(contentsOf: packageRoot.appendingPathComponent(path), encoding: .utf8)
    }

    // MARK: CHANGELOG.md and --version

    func testVersionIsTheChangelogsNewest() throws {
        let heading = try XCTUnwrap(try text("CHANGELOG.md").split(separator: "\n").first { $0.hasPrefix("## ") })
        let version = try XCTUnwrap(heading.dropFirst(3).split(separator: " ").first.map(String.init))
        XCTAssertNotNil(version.range(of: #"^[0-9]+\.[0-9]+\.[0-9]+$"#, options: .regularExpression), String(heading))
        let printed = runCLI(["--version"])
        XCTAssertEqual(printed.status, 0, "\(printed)")
        XCTAssertEqual(printed.stdout, version + "\n", "bookkeeper --version and CHANGELOG.md's newest heading differ")
    }

    // MARK: make stress

    /// Every trial loop (`Trials.count` with a larger stress count) is in scripts/run-tests.py's STRESS list, so that
    /// `make stress` runs it at its full count: four loops (shared aggregates, cell bytes twice, canonical model JSON)
    /// were left out of it, and ran only `make test`'s counts.
    func testEveryTrialLoopRunsAtItsFullCountInMakeStress() throws {
        let runner = try text("scripts/run-tests.py")
        let list = try XCTUnwrap(runner.range(of: "STRESS = [").map { runner[$0.upperBound...] }.flatMap { $0.split(separator: "]").first })
        let entries = Set(list.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) })
        let tests = packageRoot.appendingPathComponent("Tests")
        let files = try XCTUnwrap(FileManager.default.enumerator(atPath: tests.path)).compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") }
        var loops = 0
        for file in files.sorted() {
            let module = String(file.split(separator: "/").first ?? "")
            var (type, function) = ("", "")
            if file.hasSuffix("DocumentationTests.swift") { continue }
            for line in try text("Tests/" + file).split(separator: "\n") {
                if line.drop(while: { $0 == " " }).hasPrefix("//") { continue }
                let words = line.split(whereSeparator: { " (:{<".contains($0) })
                if let i = words.firstIndex(of: "class"), i + 1 < words.count, words[i + 1].hasSuffix("Tests") { type = String(words[i + 1]) }
                if let i = words.firstIndex(of: "func"), i + 1 < words.count { function = String(words[i + 1]) }
                guard let call = line.range(of: "Trials.count(") else { continue }
                // quick: N, stress: M — a loop whose counts are equal runs whole in `make test` already.
                let arguments = line[call.upperBound...].split(separator: ")").first.map(String.init) ?? ""
                let numbers = arguments.split(separator: ",").dropFirst().map { $0.split(separator: ":").last.map { $0.trimmingCharacters(in: .whitespaces) } ?? "" }
                if numbers.count == 2, numbers[0] == numbers[1] { continue }
                loops += 1
                let named = function.hasPrefix("test") ? ["\(module).\(type)/\(function)", "\(module).\(type)"] : ["\(module).\(type)"]
                XCTAssertTrue(named.contains(where: entries.contains) || (!function.hasPrefix("test") && entries.contains { $0.hasPrefix("\(module).\(type)/") }),
                              "Tests/\(file): the trial loop of \(type).\(function) is not in scripts/run-tests.py's STRESS list")
            }
        }
        XCTAssertGreaterThan(loops, 30, "the trial loops were not found")
    }

    // MARK: docs/cli-reference.md

    func testCLIReferenceIsWhatEveryHelpPrints() throws {
        let r = try runTool(["/usr/bin/python3", packageRoot.appendingPathComponent("scripts/cli-reference.py").path,
                             bookkeeperBinary, "--check", packageRoot.appendingPathComponent("docs/cli-reference.md").path])
        XCTAssertEqual(r.status, 0, r.error)
        let reference = try text("docs/cli-reference.md")
        for command in ["init", "model", "add", "set", "show", "list", "delete", "fetch", "migrate", "backup", "check",
                        "import", "imports", "export", "reports", "report"] {
            XCTAssertTrue(reference.contains("\n## bookkeeper \(command)\n"), command)
        }
    }

    /// The check fails on a stale page and on a command or option without help, seen through a stand-in binary.
    func testCLIReferenceCheckCatchesStalePagesAndUndocumentedOptions() throws {
        let dir = TemporaryDirectory()
        let dump = #"{"command":{"commandName":"tool","abstract":"A tool.","arguments":[{"kind":"option","names":[{"kind":"long","name":"color"}],"preferredName":{"kind":"long","name":"color"},"shouldDisplay":true}],"subcommands":[{"commandName":"run","abstract":"","arguments":[]}]}}"#
        let fake = dir.write("tool", "#!/bin/sh\nif [ \"$1\" = --experimental-dump-help ]; then echo '\(dump)'; else echo \"help of $*\"; fi\n")
        chmod(fake, 0o755)
        let page = dir.write("page.md", "stale\n")
        let r = try runTool(["/usr/bin/python3", packageRoot.appendingPathComponent("scripts/cli-reference.py").path, fake, "--check", page])
        XCTAssertEqual(r.status, 1)
        XCTAssertTrue(r.error.contains("bookkeeper: color has no help text"), r.error)
        XCTAssertTrue(r.error.contains("bookkeeper run: no abstract"), r.error)
        XCTAssertTrue(r.error.contains("page.md is out of date: run `make cli-reference`"), r.error)
    }

    // MARK: README's tour

    /// Timings in an import's summary differ from run to run; everything else is compared as written.
    static func maskingTimings(_ text: String) -> String {
        text.replacingOccurrences(of: #"in [0-9]+\.[0-9]+ s \([0-9]+ records/s\)"#, with: "in … s (… records/s)",
                                  options: .regularExpression)
    }

    /// The tour's `$ command` lines with the output written under each, from README's "A five-minute tour".
    func tour() throws -> [(command: String, output: String)] {
        let readme = try text("README.md")
        let start = try XCTUnwrap(readme.range(of: "\n## A five-minute tour\n"), "README has no tour")
        let section = readme[start.upperBound...].components(separatedBy: "\n## ")[0]
        var steps: [(command: String, output: String)] = []
        for block in section.components(separatedBy: "```console\n").dropFirst() {
            let body = block.components(separatedBy: "\n```")[0]
            for line in body.split(separator: "\n", omittingEmptySubsequences: false) {
                if line.hasPrefix("$ ") {
                    steps.append((String(line.dropFirst(2)), ""))
                } else if !steps.isEmpty {
                    steps[steps.count - 1].output += line + "\n"
                }
            }
        }
        return steps
    }

    func testReadmeTourPrintsWhatTheReadmeShows() throws {
        let steps = try tour()
        XCTAssertGreaterThanOrEqual(steps.count, 8, "the tour has too few steps to be one")
        // A fresh folder with the sample data, the built binary first on PATH, one shell for the whole tour (so its
        // `export` holds for the commands after it); a marker line separates what each command printed.
        let dir = TemporaryDirectory("bookkeeper-tour")
        try FileManager.default.copyItem(at: packageRoot.appendingPathComponent("SampleData"),
                                         to: dir.url.appendingPathComponent("SampleData"))
        let marker = "--- tour step ---"
        var script = "cd '\(dir.path)'\nexec 2>&1\n"
        for step in steps { script += "echo '\(marker)'\n\(step.command)\n" }
        let path = dir.write("tour.sh", script)
        let binDirectory = URL(fileURLWithPath: bookkeeperBinary).deletingLastPathComponent().path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--noprofile", "--norc", path]
        process.environment = ["PATH": "\(binDirectory):/usr/bin:/bin", "HOME": dir.path, "TZ": "UTC", "LANG": "C.UTF-8"]
        let out = Pipe()
        process.standardOutput = out
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let printed = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let outputs = printed.components(separatedBy: marker + "\n").dropFirst()
        XCTAssertEqual(outputs.count, steps.count, printed)
        for (step, output) in zip(steps, outputs) {
            XCTAssertEqual(Self.maskingTimings(output), Self.maskingTimings(step.output), "$ \(step.command)")
        }
    }
}
