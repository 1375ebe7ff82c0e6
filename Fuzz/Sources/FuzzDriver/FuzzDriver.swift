// libFuzzer's hand-over, once for every fuzz target.
//
// A target executable defines `LLVMFuzzerTestOneInput` itself (libFuzzer looks it up by that name, so there is one
// per executable) and then calls `runLibFuzzer`. SwiftPM links an executable's main under the module's name
// (main=FuzzCSV_main), so libFuzzer's own `main` never runs: the target's top-level code hands over to libFuzzer's
// driver instead, with the process's arguments, as that `main` would. The driver is linked only into the
// -sanitize=fuzzer build, which is why this lives here and not in FuzzHarness (the main package's tests link that).

import Foundation

public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32

@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                                 _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                                 _ callback: FuzzTarget) -> Int32

/// Runs libFuzzer's driver on `target`, with this process's arguments, and exits with its status.
public func runLibFuzzer(_ target: FuzzTarget) -> Never {
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}

/// The bytes libFuzzer passes to `LLVMFuzzerTestOneInput`.
public func fuzzInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
}
