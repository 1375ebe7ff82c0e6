// Runs `render-child` (Tests/RenderChild), a program of its own built beside the test binary, for what a test
// process cannot do to itself — be killed by a signal in the middle of a render, or measure its own peak memory for
// one job only (argument-parser's AssertExecuteCommand, applied to a helper rather than to ourselves).

import Foundation
import XCTest

enum ChildProcess {
    /// `render-child` beside the test bundle in the build folder.
    static var program: String {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("render-child").path
    }

    /// Starts `render-child ARGUMENTS`; its standard output is the returned pipe.
    static func start(_ arguments: [String]) throws -> (Process, Pipe) {
        guard FileManager.default.isExecutableFile(atPath: program) else {
            throw NSError(domain: "ChildProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(program) is not built (swift build builds it)"])
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: program)
        process.arguments = arguments
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
}
