/// A set of positive ids (taxa, users): a bit per id below `bitmapLimit` (iNaturalist's taxon ids
/// are below two million, its user ids below ten million: about 0.25 and 1.25 MB, up to twice
/// that, as the bitmap grows by doubling past the largest id), a hash set for ids from there up (none in
/// iNaturalist). Which taxa a taxon rule keeps, decided once per stage (`ExportTaxa` in ingest,
/// `ExportIDs.keptTaxa` in the bundle), and which taxa and users ingest writes of the export
/// (`ExportParents`).
struct IDSet: Sendable {
    private var words: [UInt64] = []
    private var large: Set<Int64> = []

    static let bitmapLimit: Int64 = 1 << 27

    init() {}

    /// Whether `id` is in the set (false without one).
    @inline(__always)
    func contains(_ id: Int64?) -> Bool {
        guard let id, id > 0 else { return false }
        guard id < Self.bitmapLimit else { return large.contains(id) }
        let word = Int(id >> 6)
        return word < words.count && words[word] & (1 << UInt64(id & 63)) != 0
    }

    /// Adds an id (a positive one).
    mutating func insert(_ id: Int64) {
        precondition(id > 0, "an id in an IDSet is positive")
        guard id < Self.bitmapLimit else {
            large.insert(id)
            return
        }
        let word = Int(id >> 6)
        if word >= words.count {
            let count = min(max(word + 1, words.count * 2), Int(Self.bitmapLimit >> 6))
            words += repeatElement(0, count: count - words.count)
        }
        words[word] |= 1 << UInt64(id & 63)
    }

    /// Whether the set holds no id.
    var isEmpty: Bool { large.isEmpty && words.allSatisfy { $0 == 0 } }

    /// Adds every id of `other`.
    mutating func formUnion(_ other: IDSet) {
        if other.words.count > words.count { words += repeatElement(0, count: other.words.count - words.count) }
        for index in other.words.indices { words[index] |= other.words[index] }
        large.formUnion(other.large)
    }

    /// How many ids of this set `other` does not hold.
    func count(notIn other: IDSet) -> Int {
        var count = 0
        for index in words.indices {
            let theirs = index < other.words.count ? other.words[index] : 0
            count += (words[index] & ~theirs).nonzeroBitCount
        }
        return count + large.reduce(0) { $0 + (other.large.contains($1) ? 0 : 1) }
    }
}
