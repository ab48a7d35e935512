import FieldpackKit
/// SplitMix64, the small fast generator from Steele, Lea and Flood (2014), written out here so
/// that synthetic data is the same on every machine and in every process.
///
/// Never use `SystemRandomNumberGenerator`, `hashValue` or dictionary order for synthetic data:
/// all three change between runs. Every stream is seeded from the dump's seed and a fixed
/// "stream" constant (see `SplitMix64.init(seed:stream:index:)`), so an observation's bytes
/// depend only on the seed and its index, never on which thread wrote it.
struct SplitMix64: RandomNumberGenerator {
    private(set) var state: UInt64

    init(state: UInt64) {
        self.state = state
    }

    /// An independent stream for one item (`index`) of one kind of thing (`stream`).
    init(seed: UInt64, stream: UInt64, index: UInt64) {
        state = Self.mix(Self.mix(seed &+ stream &* 0x9E37_79B9_7F4A_7C15) ^ (index &* 0xD1B5_4A32_D192_ED03))
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(state)
    }

    /// The SplitMix64 finalizer: a bijective scramble of 64 bits.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift; the tiny bias is irrelevant here).
    @inline(__always)
    mutating func below(_ bound: Int) -> Int {
        Int(truncatingIfNeeded: next().multipliedFullWidth(by: UInt64(bound)).high)
    }

    /// A uniform integer in `range`.
    @inline(__always)
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + below(range.upperBound - range.lowerBound + 1)
    }

    /// True with probability `numerator / denominator`.
    @inline(__always)
    mutating func chance(_ numerator: Int, in denominator: Int) -> Bool {
        below(denominator) < numerator
    }

    /// One element of a non-empty array.
    @inline(__always)
    mutating func pick<T>(_ items: [T]) -> T {
        items[below(items.count)]
    }
}

/// Draws indices `0..<count` with Zipf-like popularity: index `k` has weight `1 / (k + flatten)`.
///
/// Weights are fixed-point integers, so draws are identical on every platform (no `pow`, no
/// libm). A larger `flatten` gives the head less weight. A draw is a binary search: O(log count).
struct ZipfTable: Sendable {
    private let cumulative: [UInt64]

    init(count: Int, flatten: Int) {
        precondition(count > 0 && flatten > 0)
        var cumulative = [UInt64]()
        cumulative.reserveCapacity(count)
        var total: UInt64 = 0
        for k in 0..<count {
            total += (1 << 40) / UInt64(k + flatten)
            cumulative.append(total)
        }
        self.cumulative = cumulative
    }

    var count: Int { cumulative.count }

    func draw(_ rng: inout SplitMix64) -> Int {
        let target = rng.next() % cumulative[cumulative.count - 1]
        // The first bucket whose cumulative weight exceeds the target.
        return cumulative.partitionPoint { $0 <= target }
    }
}
