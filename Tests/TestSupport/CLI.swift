import Foundation

/// What a run of the `bookkeeper` binary printed and how it exited.
public struct CLIResult: CustomStringConvertible {
    public let status: Int32
    public let stdout: String
    public let stderr: String

    public init(status: Int32, stdout: String, stderr: String) {
        self.status = status
        self.stdout = stdout
        self.stderr = stderr
    }

    public var description: String { "exit \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
}

/// The built `bookkeeper` binary: $BOOKKEEPER_BIN, else beside the test bundle in the build folder.
public var bookkeeperBinary: String {
    if let path = ProcessInfo.processInfo.environment["BOOKKEEPER_BIN"] { return path }
    var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    for _ in 0..<4 {
        let candidate = dir.appendingPathComponent("bookkeeper").path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        dir = dir.deletingLastPathComponent()
    }
    return packageRoot.appendingPathComponent(".build/debug/bookkeeper").path
}

/// Runs `bookkeeper` with `arguments` in `directory`, with `BOOKKEEPER_STORE` unset unless given in `environment`.
@discardableResult
public func runCLI(_ arguments: [String], in directory: String? = nil, environment: [String: String] = [:],
                   stdin: String? = nil) -> CLIResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: bookkeeperBinary)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var env = ProcessInfo.processInfo.environment
    env["BOOKKEEPER_STORE"] = nil
    env["NO_COLOR"] = "1"
    env["TZ"] = env["TZ"] ?? "UTC"
    for (k, v) in environment { env[k] = v }
    process.environment = env
    return collect(process, stdin: stdin)
}

/// Runs `process` with `stdin` (or an empty input) and collects what it printed and how it exited; both pipes are
/// read at once, so a full pipe cannot block the child.
public func collect(_ process: Process, stdin: String? = nil) -> CLIResult {
    let out = Pipe(), err = Pipe(), input = Pipe()
    process.standardOutput = out
    process.standardError = err
    process.standardInput = input
    do {
        try process.run()
    } catch {
        return CLIResult(status: -1, stdout: "", stderr: "could not run \(process.executableURL?.path ?? "?"): \(error)")
    }
    if let stdin { input.fileHandleForWriting.write(Data(stdin.utf8)) }
    try? input.fileHandleForWriting.close()
    nonisolated(unsafe) var errData = Data()
    let group = DispatchGroup()
    group.enter()
    DispatchQueue.global().async {
        errData = err.fileHandleForReading.readDataToEndOfFile()
        group.leave()
    }
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    group.wait()
    process.waitUntilExit()
    return CLIResult(status: process.terminationStatus, stdout: String(decoding: outData, as: UTF8.self),
                     stderr: String(decoding: errData, as: UTF8.self))
}

/// Runs any other program (`arguments[0]` is its path) and collects what it printed and how it exited.
public func runTool(_ arguments: [String]) throws -> (status: Int32, output: Data, error: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: arguments[0])
    process.arguments = Array(arguments.dropFirst())
    let output = Pipe()
    let error = Pipe()
    process.standardOutput = output
    process.standardError = error
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    let errorData = error.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, data, String(decoding: errorData, as: UTF8.self))
}
