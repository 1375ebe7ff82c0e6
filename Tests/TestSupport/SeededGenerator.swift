/// SplitMix64: a small seeded generator, so random tests make the same cases on every run and a failure can be
/// run again from its seed.
public struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// 0..<n, by the remainder (the same numbers on every platform, unlike `Int.random(in:using:)`'s).
    public mutating func next(upTo n: Int) -> Int { Int(next() % UInt64(n)) }

    /// One of `items` (not empty).
    public mutating func pick<T>(_ items: [T]) -> T { items[next(upTo: items.count)] }
}
