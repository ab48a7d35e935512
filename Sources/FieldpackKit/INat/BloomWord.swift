/// Ingest's well-mixed 64-bit keys (`ExportLinkPruning.Kept`, `ExportParents.Linked`,
/// `RepeatedKeys`), and the Bloom filter's probes: a key's probe bits all lie in one 64-bit word
/// (a blocked Bloom filter: one cache miss a lookup).
enum BloomWord {
    /// SplitMix64's finalizer: a well-mixed 64-bit hash of `value`.
    @inline(__always)
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value &+ 0x9E37_79B9_7F4A_7C15
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// The word (of `words`, a power of two, up to 2^34) and the `probes` bits in it (at most
    /// five) of the key whose hash is `hash`: the word from the low bits, each bit from six of
    /// the high ones.
    @inline(__always)
    static func probe(_ hash: UInt64, words: Int, probes: Int) -> (word: Int, mask: UInt64) {
        var mask: UInt64 = 0
        for index in 0..<probes { mask |= 1 << ((hash >> UInt64(34 + 6 * index)) & 63) }
        return (Int(hash & UInt64(words - 1)), mask)
    }

    /// The hash of an observation's key (`RecordKey.observation`: dedupe's identity of it).
    @inline(__always)
    static func hash(_ uuid: ObservationUUID) -> UInt64 {
        let key = RecordKey.observation(uuid)
        return mix(UInt64(bitPattern: key.high) ^ mix(key.low))
    }
}

/// A Bloom filter of 2^25 bits (4 MiB) and four probes, all in one 64-bit word, of keys given by
/// their well-mixed hash: it never misses a key inserted, and may answer yes for another. What
/// the hash is of is its user's (`ExportLinkPruning.Kept`, `ExportParents.Linked`).
///
/// Once its keys are in, it can be folded (`fold(toHold:)`): the upper half of its words OR-ed
/// into the lower half, as often as its keys allow, since a key's word is the low bits of its
/// hash. Still no key inserted is missed; more other keys are taken for inserted. A filter a
/// few keys fill is read for every row of a table: at 4 MiB each lookup was a cache miss.
struct BloomBits: Sendable {
    static let bits = 1 << 25
    /// The bits a key takes at least in a folded filter (`fold(toHold:)`; under twice that):
    /// with four probes in a word, at most about one other key in 5,000 is taken for inserted.
    static let foldedBitsPerKey = 64
    /// A power of two of words, `bits / 64` until folded.
    private var words = [UInt64](repeating: 0, count: bits / 64)

    mutating func insert(_ hash: UInt64) {
        let (word, mask) = BloomWord.probe(hash, words: words.count, probes: 4)
        words[word] |= mask
    }

    @inline(__always)
    func mayContain(_ hash: UInt64) -> Bool {
        words.withUnsafeBufferPointer { words in
            let (word, mask) = BloomWord.probe(hash, words: words.count, probes: 4)
            return words[word] & mask == mask
        }
    }

    /// Folds the filter down to about `foldedBitsPerKey` bits for each of `keys` keys (at least
    /// one cache line), once every key is in: none may be inserted or merged after.
    mutating func fold(toHold keys: Int) {
        let target = max(8, keys * Self.foldedBitsPerKey / 64)
        var count = words.count
        while count / 2 >= target {
            count /= 2
            for index in 0..<count { words[index] |= words[index + count] }
        }
        // A new array of the words kept: removing the others would keep the 4 MiB allocated.
        if count < words.count { words = Array(words[0..<count]) }
    }

    /// The filter's size in bytes.
    var byteCount: Int { words.count * 8 }

    mutating func formUnion(_ other: BloomBits) {
        precondition(words.count == other.words.count, "a folded filter is not merged")
        for index in words.indices { words[index] |= other.words[index] }
    }
}
