import FieldpackKit

/// What a damaged dump (`Options.damage`) did, and the truncated page's cut: the parts of
/// `SyntheticDump` that only damage uses. The damage itself is `SyntheticDamage`.
extension SyntheticDump {
    /// Counts of each kind of damage written, and the truncated page.
    public struct DamageSummary: Sendable, Equatable {
        public var nonNumericIDs = 0
        public var photosNotAList = 0
        public var accuracyAsText = 0
        public var stringDimensions = 0
        public var unicodeText = 0
        public var relicensedRepeats = 0
        /// The page cut short (its file name), nil when the dump has fewer than 3 pages.
        public var truncatedPage: String? = nil
        /// Its records before the cut (complete, so a reader can keep them), the one cut, and
        /// the ones after it (lost).
        public var salvageable = 0
        public var cut = 0
        public var lost = 0

        /// `non_numeric_ids=… … truncated=page-000002.json salvageable=… cut=1 lost=…`
        public var text: String {
            "non_numeric_ids=\(nonNumericIDs) photos_not_a_list=\(photosNotAList) accuracy_as_text=\(accuracyAsText) "
                + "string_dimensions=\(stringDimensions) unicode_text=\(unicodeText) relicensed_repeats=\(relicensedRepeats) "
                + "truncated=\(truncatedPage ?? "none") salvageable=\(salvageable) cut=\(cut) lost=\(lost)"
        }
    }

    /// Where a damaged dump keeps, for checking readers, a valid page of the truncated page's
    /// complete records (`.damage/salvageable-page-….json`; hidden, so ingest skips it).
    public static let damageFolder = ".damage"

    /// `.damage/salvageable-page-000001.json`
    public static func salvageName(_ page: Int) -> String {
        "\(damageFolder)/salvageable-" + pageName(page)
    }

    /// Cuts a page in the middle of one of its records (`SyntheticDamage.cutElement`), and writes
    /// the records before the cut as a valid page to `salvage`.
    ///
    /// - Parameter ends: the byte offset where the results start, then where each record ends.
    static func truncate(_ page: [UInt8], ends: [Int], seed: UInt64, salvage: String) throws -> [UInt8] {
        let cut = SyntheticDamage.cutElement(seed: seed, elements: ends.count - 1)
        let complete = Array(page[..<ends[cut]]) + Array("]}\n".utf8)
        try AtomicOutput.write(String(decoding: complete, as: UTF8.self), to: salvage)
        return Array(page[..<((ends[cut] + ends[cut + 1]) / 2)])
    }

    /// Counts each kind of damage in the records the pages hold (not those lost after the cut).
    static func damageSummary(slots: [Int], perPage: Int, seed: UInt64, truncated: Int?) -> DamageSummary {
        var damage = DamageSummary()
        var cutAt = Int.max
        if let truncated {
            let elements = min(perPage, slots.count - truncated * perPage)
            let cut = SyntheticDamage.cutElement(seed: seed, elements: elements)
            damage.truncatedPage = pageName(truncated + 1)
            damage.salvageable = cut
            damage.cut = 1
            damage.lost = elements - cut - 1
            cutAt = truncated * perPage + cut
        }
        for (position, slot) in slots.enumerated() {
            if position >= cutAt && position < cutAt + 1 + damage.lost { continue }
            switch SyntheticDamage.kind(seed: seed, index: slot >= 0 ? slot : -slot - 1, olderCopy: slot < 0) {
            case .nonNumericID: damage.nonNumericIDs += 1
            case .photosNotAList: damage.photosNotAList += 1
            case .accuracyAsText: damage.accuracyAsText += 1
            case .stringDimensions: damage.stringDimensions += 1
            case .unicodeText: damage.unicodeText += 1
            case .relicensedRepeat: damage.relicensedRepeats += 1
            case nil: break
            }
        }
        return damage
    }
}
