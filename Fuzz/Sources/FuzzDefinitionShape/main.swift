import FuzzDriver
import FuzzHarness

// A libFuzzer target (see FuzzDriver): libFuzzer calls LLVMFuzzerTestOneInput for every input.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    FuzzHarness.definitionShape(fuzzInput(data, size))
    return 0
}

runLibFuzzer(fuzzOneInput)
