import FieldpackKit

/// What a damaged synthetic dump gets wrong, and where: the realistic damage the benchmark's
/// tools must cope with (`fieldpack-synth --damage`).
///
/// Every decision is a pure function of the seed and the record's slot (observation index and
/// copy), drawn from a stream of its own, so a damaged dump is the clean dump of the same seed
/// with only the damaged places changed, and the same whatever the number of workers.
///
/// Per record copy, out of 10,000: 20 have a non-numeric `id` (the record has no identity and is
/// rejected), 30 `photos: "n/a"` (the part is dropped; `observation_photos` still lists them),
/// 20 `positional_accuracy` as text, 50 a photo whose `original_dimensions` is `"2048x1536"`, 300
/// place names and descriptions in scripts and forms that test UTF-8 handling (right-to-left,
/// combining marks, emoji sequences, characters outside the BMP), and 50 a photo of an earlier
/// observation shown again under a changed licence. One page of three or more is cut short in
/// the middle of a record (`truncatedPage`). About 1 user in 25 gets such a name as well.
enum SyntheticDamage {
    /// The damage of one record copy; at most one kind each.
    enum Kind: Equatable {
        case nonNumericID
        case photosNotAList
        case accuracyAsText
        case stringDimensions
        case unicodeText
        case relicensedRepeat
    }

    static let stream: UInt64 = 9

    /// The damage, if any, of observation `index` (its older copy when `olderCopy`).
    static func kind(seed: UInt64, index: Int, olderCopy: Bool) -> Kind? {
        var rng = SplitMix64(seed: seed, stream: stream, index: UInt64(index) * 2 + (olderCopy ? 1 : 0))
        let roll = rng.below(10_000)
        switch roll {
        case ..<20: return .nonNumericID
        case ..<50: return .photosNotAList
        case ..<70: return .accuracyAsText
        case ..<120: return .stringDimensions
        case ..<420: return .unicodeText
        case ..<470: return index > 0 ? .relicensedRepeat : nil
        default: return nil
        }
    }

    /// A second draw for a damaged record: which unicode text, which earlier observation.
    static func detail(seed: UInt64, index: Int, olderCopy: Bool) -> SplitMix64 {
        SplitMix64(seed: seed, stream: stream, index: UInt64(index) * 2 + (olderCopy ? 1 : 0) | 1 << 62)
    }

    /// The page (0-based) cut short, or nil for dumps of fewer than 3 pages.
    static func truncatedPage(seed: UInt64, pageCount: Int) -> Int? {
        guard pageCount >= 3 else { return nil }
        var rng = SplitMix64(seed: seed, stream: stream, index: 1 << 63)
        return 1 + rng.below(pageCount - 2)
    }

    /// The element of the truncated page the cut falls in: between a quarter and three quarters.
    static func cutElement(seed: UInt64, elements: Int) -> Int {
        var rng = SplitMix64(seed: seed, stream: stream, index: 1 << 63 | 1)
        return elements / 4 + rng.below(max(1, elements / 2))
    }

    /// The size of wiki article `index` when it is one of the long tail of large articles (1 in
    /// 100, 1.2 to 6 MB of HTML, like the longest list and country articles), else nil.
    static func largeArticleBytes(seed: UInt64, index: Int) -> Int? {
        var rng = SplitMix64(seed: seed, stream: stream, index: UInt64(index) | 1 << 60)
        return rng.chance(1, in: 100) ? rng.int(in: 1_200_000...6_000_000) : nil
    }

    /// A name for user `index`, or nil to keep the clean one.
    static func userName(seed: UInt64, index: Int) -> String? {
        var rng = SplitMix64(seed: seed, stream: stream, index: UInt64(index) | 1 << 61)
        return rng.chance(1, in: 25) ? rng.pick(names) : nil
    }

    /// Names that exercise UTF-8: decomposed accents, right-to-left scripts, Indic and Thai
    /// clusters, an emoji sequence, characters outside the BMP, a zero-width joiner.
    static let names = [
        "Zoe\u{0308} Bronte\u{0308}", "محمد الأحمد", "שרה כהן", "अनन्या शर्मा", "สมชาย ใจดี", "Nguyễn Thị Hồng",
        "𠮷野 太郎", "Ólafur Þórðarson", "Łucja Żółkiewska", "Ἀλέξανδρος", "Mari 🦋 Tamm", "ᐃᓄᒃᑎᑐᑦ ᓄᓇᕗᑦ",
    ]

    static let places = [
        "القاهرة، مصر", "ירושלים, ישראל", "Reykjavík, Ísland", "Việt Nam, Hà Nội", "กรุงเทพมหานคร, ประเทศไทย",
        "मुंबई, महाराष्ट्र, भारत", "𠮷野川, 徳島県, 日本", "Chișinău, Moldova", "Ñuñoa, Región Metropolitana, Chile",
        "Tromsø, Norge — «Nordlys»", "Zu\u{0308}rich, Schweiz", "Iqaluit, ᓄᓇᕗᑦ, Canada",
    ]

    static let descriptions = [
        "Seen at dusk 🦇🌙 near the \u{200D}old bridge.", "على جذع شجرة بالقرب من النهر.", "ליד המעיין, בבוקר.",
        "नदी के किनारे पत्थर पर।", "พบบนใบไม้ใกล้ลำธาร", "👨\u{200D}👩\u{200D}👧 family walk — 3 individuals",
        "Cafe\u{0301} garden, «very common» here.", "𝔘𝔫𝔲𝔰𝔲𝔞𝔩 markings on the 𝔴𝔦𝔫𝔤𝔰.",
    ]
}
