import Synchronization

/// Which keys a stream may hold more than once, in a fixed number of bits: a Bloom filter whose
/// bits remember being set twice.
///
/// Each key sets its three probe bits in `seen` (an atomic or, so any number of threads may
/// insert at once); a probe bit that was already set is set in `again` too. A key inserted twice,
/// by any threads in any order, finds each of its bits already set the second time, so all three
/// are in `again`: `mayRepeat` never answers no for it. A key inserted once answers yes only when
/// other keys set each of its bits, at a Bloom filter's false-positive rate (about 5% at 7 bits
/// a key, under 1% at 16). Read `mayRepeat` once every insert is done (after the threads join).
///
/// Owns its two bit arrays (`bits` / 8 bytes each), freed with it.
final class RepeatFilter: @unchecked Sendable {
    // Unchecked: the words are atomics, written only through `bitwiseOr`; the pointers never change.
    let bits: Int
    private let seen: UnsafeMutablePointer<Atomic<UInt64>>
    private let again: UnsafeMutablePointer<Atomic<UInt64>>
    private let words: Int

    /// A filter of `bits` bits (a power of two of at least 64) in each array.
    init(bits: Int) {
        precondition(bits >= 64 && bits & (bits - 1) == 0, "a power of two of at least 64")
        self.bits = bits
        words = bits / 64
        seen = .allocate(capacity: words)
        again = .allocate(capacity: words)
        for index in 0..<words {
            (seen + index).initialize(to: Atomic(0))
            (again + index).initialize(to: Atomic(0))
        }
    }

    deinit {
        seen.deinitialize(count: words)
        again.deinitialize(count: words)
        seen.deallocate()
        again.deallocate()
    }

    /// The bits for about `keys` keys at 12 to 24 bits each, within `1 << 20 ... maximumBits`.
    static func bits(forKeys keys: Int, maximumBits: Int = 1 << 27) -> Int {
        var bits = 1 << 20
        while bits < keys * 12 && bits < maximumBits { bits <<= 1 }
        return bits
    }

    /// Notes one occurrence of the key whose two independent 64-bit hashes are `first`, `second`.
    @inline(__always)
    func insert(_ first: UInt64, _ second: UInt64) {
        let mask = UInt64(bits - 1)
        let step = second | 1
        for probe in 0..<UInt64(3) {
            let bit = (first &+ probe &* step) & mask
            let word = Int(bit >> 6)
            let flag: UInt64 = 1 << (bit & 63)
            if seen[word].bitwiseOr(flag, ordering: .relaxed).oldValue & flag != 0 {
                again[word].bitwiseOr(flag, ordering: .relaxed)
            }
        }
    }

    /// False only for a key inserted at most once.
    @inline(__always)
    func mayRepeat(_ first: UInt64, _ second: UInt64) -> Bool {
        let mask = UInt64(bits - 1)
        let step = second | 1
        for probe in 0..<UInt64(3) {
            let bit = (first &+ probe &* step) & mask
            if again[Int(bit >> 6)].load(ordering: .relaxed) & (1 << (bit & 63)) == 0 { return false }
        }
        return true
    }
}
