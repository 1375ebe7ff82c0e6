import Foundation
import FuzzHarness

// A libFuzzer target: libFuzzer calls LLVMFuzzerTestOneInput for every input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.predicate(data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? [])
    return 0
}

// SwiftPM links an executable's main under the module's name (main=FuzzPredicate_main), so this top-level code is
// what runs: it hands over to libFuzzer's driver, as libFuzzer's own main would.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

var argc = CommandLine.argc
var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv, fuzzOneInput))
