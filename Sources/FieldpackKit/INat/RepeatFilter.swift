import Synchronization

/// Which keys a stream may hold more than once, in a fixed number of bits: a Bloom filter whose
/// bits remember being set twice.
///
/// A key's three probe bits lie in one 64-bit word (`BloomWord`: one cache miss per key, not
/// three). Inserting a key sets its bits in `seen` with one atomic or, so any number of
/// threads may insert at once; those of its bits that were already set are set in `again` too.
/// The second insert of a key, by any thread in any order, finds all its bits set, so they are
/// all in `again`: `mayRepeat` never answers no for it. A key inserted once answers yes only when
/// other keys set each of its bits (about 1 in 60 at 12 bits a key, 1 in 10 at 6). Read
/// `mayRepeat` once every insert is done (after the threads join).
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

    /// The bits for about `keys` keys at 12 to 24 bits each, a power of two from 2^20, at most
    /// `maximumBits` when that is larger.
    static func bits(forKeys keys: Int, maximumBits: Int = 1 << 27) -> Int {
        var bits = 1 << 20
        while bits < keys * 12 && bits * 2 <= maximumBits { bits <<= 1 }
        return bits
    }

    /// The word and the three bits in it of the key whose 64-bit hash is `hash` (well mixed).
    @inline(__always)
    private func probes(_ hash: UInt64) -> (word: Int, mask: UInt64) { BloomWord.probe(hash, words: words, probes: 3) }

    /// Notes one occurrence of the key whose hash is `hash`.
    @inline(__always)
    func insert(_ hash: UInt64) {
        let (word, mask) = probes(hash)
        let already = seen[word].bitwiseOr(mask, ordering: .relaxed).oldValue & mask
        if already != 0 { again[word].bitwiseOr(already, ordering: .relaxed) }
    }

    /// Keys inserted a few dozen at a time: their words are loaded first, side by side, so that
    /// their cache misses overlap; one by one, each insert's atomic or waits for the miss before
    /// it. The filter is the same either way. Made only by `inserting`, which inserts the last
    /// ones however `body` ends.
    struct Batch {
        let filter: RepeatFilter
        private var hashes: [UInt64] = []

        fileprivate init(_ filter: RepeatFilter) {
            self.filter = filter
            hashes.reserveCapacity(Self.size)
        }

        static var size: Int { 32 }

        @inline(__always)
        mutating func insert(_ hash: UInt64) {
            hashes.append(hash)
            if hashes.count == Self.size { flush() }
        }

        fileprivate mutating func flush() {
            // The loads are for their effect on the cache, not their values.
            for hash in hashes { _ = filter.seen[filter.probes(hash).word].load(ordering: .relaxed) }
            for hash in hashes { filter.insert(hash) }
            hashes.removeAll(keepingCapacity: true)
        }
    }

    /// Runs `body` with a batch of inserts into `filter` (nil without one), and inserts what it
    /// holds when `body` returns or throws.
    static func inserting<R>(into filter: RepeatFilter?, _ body: (inout Batch?) throws -> R) rethrows -> R {
        var batch = filter.map(Batch.init)
        defer { batch?.flush() }
        return try body(&batch)
    }

    /// False only for a key inserted at most once.
    @inline(__always)
    func mayRepeat(_ hash: UInt64) -> Bool {
        let (word, mask) = probes(hash)
        return again[word].load(ordering: .relaxed) & mask == mask
    }
}
