/// A set of taxon ids: a bit per id below `bitmapLimit` (iNaturalist's ids are below two
/// million: at most 0.5 MB, the bitmap grown by doubling up to the largest id), a hash set for
/// ids from there up (none in iNaturalist). Which taxa a taxon rule keeps, decided once per stage
/// (`ExportTaxa` in ingest, `ExportIDs.keptTaxa` in the bundle).
struct TaxonSet: Sendable {
    private var words: [UInt64] = []
    private var large: Set<Int64> = []

    static let bitmapLimit: Int64 = 1 << 27

    init() {}

    /// Whether `taxon` is in the set (false without one).
    @inline(__always)
    func contains(_ taxon: Int64?) -> Bool {
        guard let taxon, taxon > 0 else { return false }
        guard taxon < Self.bitmapLimit else { return large.contains(taxon) }
        let word = Int(taxon >> 6)
        return word < words.count && words[word] & (1 << UInt64(taxon & 63)) != 0
    }

    /// Adds a taxon id (a positive one).
    mutating func insert(_ taxon: Int64) {
        precondition(taxon > 0, "a taxon id is positive")
        guard taxon < Self.bitmapLimit else {
            large.insert(taxon)
            return
        }
        let word = Int(taxon >> 6)
        if word >= words.count {
            let count = min(max(word + 1, words.count * 2), Int(Self.bitmapLimit >> 6))
            words += repeatElement(0, count: count - words.count)
        }
        words[word] |= 1 << UInt64(taxon & 63)
    }
}
