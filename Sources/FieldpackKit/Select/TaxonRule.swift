/// Which taxa a selection keeps: subtrees by taxon id, subtrees cut out of them, and ranks.
///
/// ```json
/// "taxa": {"include": [3], "exclude": [6912], "ranks": ["species", "subspecies"]}
/// ```
/// A taxon's lineage is its `ancestry` (`"48460/1/2/355675/3"`, root first) and itself. The
/// nearest taxon of the lineage named in `include` or `exclude` decides, so "all of Aves except
/// Anatidae" is `include [3]` and `exclude [6912]`, and `include` of a genus of ducks as well
/// brings that genus back. With no `include`, every taxon not excluded is in. With `ranks`, the
/// taxon's own rank must also be one of them.
public struct TaxonRule: Sendable, Equatable {
    public var include: Set<Int64> = []
    public var exclude: Set<Int64> = []
    public var ranks: Set<String> = []

    public init(include: Set<Int64> = [], exclude: Set<Int64> = [], ranks: Set<String> = []) {
        self.include = include
        self.exclude = exclude
        self.ranks = ranks
    }

    public var isEmpty: Bool { include.isEmpty && exclude.isEmpty && ranks.isEmpty }

    /// The ranks iNaturalist uses (`Taxon::RANK_LEVELS`), so a misspelt rank is an error.
    public static let knownRanks: Set<String> = [
        "stateofmatter", "kingdom", "phylum", "subphylum", "superclass", "class", "subclass", "infraclass",
        "subterclass", "superorder", "order", "suborder", "infraorder", "parvorder", "zoosection",
        "zoosubsection", "superfamily", "epifamily", "family", "subfamily", "supertribe", "tribe", "subtribe",
        "genus", "genushybrid", "subgenus", "section", "subsection", "complex", "species", "hybrid",
        "subspecies", "variety", "form", "infrahybrid",
    ]

    /// Whether the taxon is kept, from its id, its `ancestry` bytes (ids separated by `/`) and
    /// its rank's bytes.
    public func selects(id: Int64, ancestry: UnsafeRawBufferPointer?, rank: UnsafeRawBufferPointer?) -> Bool {
        if !ranks.isEmpty {
            guard let rank, ranks.contains(String(decoding: rank, as: UTF8.self)) else { return false }
        }
        if include.isEmpty && exclude.isEmpty { return true }
        if include.contains(id) { return true }
        if exclude.contains(id) { return false }
        // Walk the ancestry from its end (the parent) towards the root.
        var decided: Bool? = nil
        if let ancestry {
            var end = ancestry.count
            while end > 0, decided == nil {
                var start = end
                while start > 0, ancestry[start - 1] != UInt8(ascii: "/") { start -= 1 }
                if let ancestor = Self.integer(ancestry, start, end) {
                    if include.contains(ancestor) { decided = true } else if exclude.contains(ancestor) { decided = false }
                }
                end = start - 1
            }
        }
        return decided ?? include.isEmpty
    }

    /// Whether the taxon of a taxon record's columns (`TaxonRecord.Column`) is kept, as it loads.
    func selects(_ record: JSONColumns, id: Int64) -> Bool {
        typealias C = TaxonRecord.Column
        return selects(id: id, ancestry: record.text(C.ancestry)?.bytes, rank: record.text(C.rank)?.bytes)
    }

    /// The ids of an `ancestry` value, root first (anything not a decimal id is passed over).
    public static func ancestors(_ ancestry: UnsafeRawBufferPointer) -> [Int64] {
        var ids: [Int64] = []
        var start = 0
        for end in 0...ancestry.count where end == ancestry.count || ancestry[end] == UInt8(ascii: "/") {
            if let id = integer(ancestry, start, end) { ids.append(id) }
            start = end + 1
        }
        return ids
    }

    private static func integer(_ bytes: UnsafeRawBufferPointer, _ start: Int, _ end: Int) -> Int64? {
        guard start < end, end - start <= 18 else { return nil }
        var value: Int64 = 0
        for index in start..<end {
            let digit = bytes[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value * 10 + Int64(digit)
        }
        return value
    }
}
