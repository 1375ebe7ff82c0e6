// Runs one test of this test binary in a child process (argument-parser's AssertExecuteCommand,
// applied to ourselves): for what a test process cannot do to itself — be killed by a signal in
// the middle of a render, or measure its own peak memory for one job only.

import Foundation
import XCTest

enum ChildProcess {
    /// The test binary (`…PackageTests.xctest`).
    static var testBinary: String { CommandLine.arguments[0] }

    /// Starts `ReportRenderersTests.CLASS/METHOD` in a child with `environment` added.
    static func start(test: String, environment: [String: String]) throws -> (Process, Pipe) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: testBinary)
        process.arguments = ["ReportRenderersTests." + test]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return (process, output)
    }

    /// Reads the child's output until a line starts with `prefix`; returns that line.
    static func readLine(startingWith prefix: String, from pipe: Pipe) -> String? {
        var text = ""
        while true {
            let data = pipe.fileHandleForReading.availableData
            if data.isEmpty { return nil }
            text += String(decoding: data, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix(prefix) }) { return String(line) }
        }
    }

    /// Writes a line to standard output at once (print is buffered when stdout is a pipe).
    static func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
}
