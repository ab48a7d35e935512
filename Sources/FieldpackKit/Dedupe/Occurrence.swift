/// One occurrence of a photo in the records file, reduced to what picking a winner needs
/// (64 bytes). The record's bytes stay in the file (`offset`, `length`) and are read back only
/// for winners and conflict examples.
struct PhotoOccurrence {
    var id: Int64
    /// `updated_at` of the observation it came in (or of its taxon), Unix ms; `Int64.min` if unknown.
    var seen: Int64
    /// The observation it came in (0 if none): on a tie the higher id wins.
    var observation: Int64
    /// Hash of the record's content (without its source), the last deterministic tie-break; its
    /// lowest bit is whether the copy names a usable `attribution_name` (`namesCredit`), a
    /// function of the content too, held here rather than in 8 bytes more per occurrence.
    var content: UInt64
    var offset: Int64
    /// Observation photos beat taxon photos, then the lower position wins: higher is better.
    var rank: Int32
    var length: Int32
    var width: Int32
    var height: Int32
    /// The licence (`licenseField`, 21 bits), a hash of the attribution (21 bits) and of the
    /// URL (query string dropped, 16 bits); bit 58 is set for a hosted URL whose host is the one
    /// its licence is served from (`hostAgrees`), bit 59 for a URL with a query (`isDated`), bit
    /// 60 for a copy a moderator hid (`isHidden`), bit 61 for iNaturalist's still-processing
    /// stand-in, bit 62 for a taken-down one (`isProcessing`, `isTakenDown`), the top bit for a
    /// remote URL (`isRemote`).
    var fields: UInt64

    static let remoteBit: UInt64 = 1 << 63
    static let takenDownBit: UInt64 = 1 << 62
    static let processingBit: UInt64 = 1 << 61
    static let hiddenBit: UInt64 = 1 << 60
    static let datedBit: UInt64 = 1 << 59
    static let hostAgreesBit: UInt64 = 1 << 58

    /// The fields of a photo copy with these licence, attribution, URL and `hidden` flag.
    static func fields(license: JSONText?, attribution: JSONText?, url: JSONText?, urlWithoutQuery: JSONText?, hidden: Bool = false) -> UInt64 {
        var fields = licenseField(license) | fieldHash(attribution) << 21 | (fieldHash(urlWithoutQuery) & 0xFFFF) << 42
        if hidden { fields |= hiddenBit }
        guard let url else { return fields }
        if url.count != urlWithoutQuery?.count { fields |= datedBit }
        let hosting = PhotoURL.hosting(url)
        if !hosting.hosted { return fields | remoteBit }
        // INAT.md §1.4: an openly licensed photo (any CC licence, CC0, PD) is served from the
        // open-data bucket, any other from iNaturalist's static host; the host moves with the
        // licence, so of two copies that tie the one whose host agrees is the current URL.
        let openData = PhotoURL.isOpenDataHost(url)
        if let known = License.parse(license), known.isServedFromOpenData == openData { fields |= hostAgreesBit }
        switch hosting.placeholder {
        case .stillProcessing?: fields |= processingBit
        case _?: fields |= takenDownBit
        case nil: break
        }
        return fields
    }

    /// A licence as a field: a known licence's place in `License`'s order plus one (so two
    /// spellings of one licence agree, and the higher is the more restrictive: all rights
    /// reserved for none), an unknown code's hash with bit 20 set (above every known one: it
    /// never ships).
    static func licenseField(_ text: JSONText?) -> UInt64 {
        if let license = License.parse(text) { return UInt64(license.ordinal + 1) }
        return (text.map { stableHash($0.bytes) } ?? 0) & 0xF_FFFF | 1 << 20
    }

    /// A copy on iNaturalist's hosts beats a remote one (a Wikimedia or Flickr URL), whatever
    /// their dates: iNaturalist turns remote photos into hosted ones, never back (INAT.md §1.4:
    /// photo 33535972 is a Wikimedia `75px-…` thumbnail in `v1/get_taxa.json` and hosted in
    /// `v2/get_taxa_full.json`), and only the hosted copy gives every tier and the photo's size.
    /// iNaturalist's placeholders (a photo hidden or taken down) are on its hosts too, so they
    /// beat a remote copy as well: a remote photo flagged and later restored stays out until
    /// iNaturalist hosts it, the safe side of the rule (it is one key, so the order stays total).
    /// Then the newest, the higher observation, the better rank. Copies that tie on all of
    /// those (two snapshots of one observation that did not change its `updated_at`: moving a
    /// photo between hosts or hiding it does not) are settled on the safe side, not by their
    /// bytes: a taken-down stand-in first (it never ships), then a copy a moderator hid (it never
    /// ships; half of such ties shipped the photo), then the more restrictive licence (a photo
    /// relicensed `cc-by-nc` never ships as `cc-by`), then a photo over its still-processing
    /// stand-in; then the current URL: one on the host its licence is served from (an openly
    /// licensed photo's old `static.inaturalist.org` address lost to the open-data bucket's only
    /// by its content hash, and the app fetched it again when another copy came), and one without
    /// an old response's `?timestamp`; only then the content.
    @inline(__always)
    func outranks(_ other: PhotoOccurrence) -> Bool {
        if isRemote != other.isRemote { return !isRemote }
        if seen != other.seen { return seen > other.seen }
        if observation != other.observation { return observation > other.observation }
        if rank != other.rank { return rank > other.rank }
        if isTakenDown != other.isTakenDown { return isTakenDown }
        if isHidden != other.isHidden { return isHidden }
        if license != other.license { return license > other.license }
        if isProcessing != other.isProcessing { return !isProcessing }
        if hostAgrees != other.hostAgrees { return hostAgrees }
        if isDated != other.isDated { return !isDated }
        return content > other.content
    }

    /// It came in an observation (`rank` is positive), not as a taxon's photo.
    var isObservationPhoto: Bool { rank > 0 }

    /// Whether the copy names a usable `attribution_name` (`UserRecord.usableName`): a winner
    /// without one takes the best-ranked copy's that has one (`Winners.writePhoto`).
    var namesCredit: Bool { content & 1 != 0 }

    /// `content`, a content hash with its lowest bit standing for `namesCredit`.
    static func content(hash: UInt64, namesCredit: Bool) -> UInt64 { hash & ~1 | (namesCredit ? 1 : 0) }

    var license: UInt64 { fields & 0x1F_FFFF }
    var attribution: UInt64 { (fields >> 21) & 0x1F_FFFF }
    var url: UInt64 { (fields >> 42) & 0xFFFF }
    var isRemote: Bool { fields & Self.remoteBit != 0 }
    var isTakenDown: Bool { fields & Self.takenDownBit != 0 }
    var isProcessing: Bool { fields & Self.processingBit != 0 }
    var isHidden: Bool { fields & Self.hiddenBit != 0 }
    var isDated: Bool { fields & Self.datedBit != 0 }
    var hostAgrees: Bool { fields & Self.hostAgreesBit != 0 }
}

/// One occurrence of an observation, taxon or user (48 bytes).
struct RecordOccurrence {
    /// The key: the id; for an observation with a uuid, the uuid's high word (and `low` its low
    /// word), 0 in `low` for one without.
    var id: Int64
    var low: UInt64
    var seen: Int64
    var content: UInt64
    var offset: Int64
    var length: Int32
    /// Taxa: 2 for a copy from the taxa endpoint, plus 1 if it lists taxon photos, plus 4 if it
    /// carries a species count (which does not rank it). Taxa and observations: 16 for a copy
    /// from the API (not the open-data export). Observations: 8 for an export photo row's link
    /// (`ObservationRecord.Part.links`), which is never the winner; plus 64 (`heldLink`) when
    /// that row's one link is held here instead of read back from the file: its photo id in
    /// `content` and its position in `offset` (a link's content ranks nothing: it never wins).
    var rank: Int32

    static let heldLink: Int32 = 64
    /// Observations: an API copy that marks values unknown (`ObservationRecord.Column.unknown`),
    /// which dedupe fills from the other copies when it wins.
    static let hasUnknown: Int32 = 128
    /// Observations: an export row kept for its uuid alone (`ObservationRecord.Part.keyOnly`).
    static let keyOnly: Int32 = 32
    /// Bits 8–11: an export copy (no API id) that the selection's dedupe rules remove, judged on
    /// its own columns when it was collected: 1 + the rule's index in `DedupeSelection.rules`.
    static let removedShift: Int32 = 8

    /// Whole copies first, copies with values before one kept for its key alone; then the newest (an export copy is as new as its export); on the same
    /// date an API copy before an export copy, a taxa-endpoint copy before others; then content.
    @inline(__always)
    func outranks(_ other: RecordOccurrence) -> Bool {
        if isLinks != other.isLinks { return !isLinks }
        // A copy whose values are unknown never outranks one that has them, whatever its date.
        if isKeyOnly != other.isKeyOnly { return !isKeyOnly }
        if seen != other.seen { return seen > other.seen }
        if fromAPI != other.fromAPI { return fromAPI }
        if fromTaxa != other.fromTaxa { return fromTaxa }
        return content > other.content
    }

    var isLinks: Bool { rank & 8 != 0 }
    /// An export photo row's one link, `(photo id, position)`, when the occurrence holds it.
    var heldLink: (photo: Int64, position: Int64)? {
        rank & Self.heldLink != 0 ? (Int64(bitPattern: content), offset) : nil
    }
    var fromAPI: Bool { rank & 16 != 0 }
    var isKeyOnly: Bool { rank & Self.keyOnly != 0 }
    /// The index of the rule that removes this export copy on its own columns, or that ingest
    /// marked it with (the taxon rule's mark read from the export's taxa) (`removedShift`).
    var removedBy: Int? {
        let rule = (rank >> Self.removedShift) & 0xF
        return rule == 0 ? nil : Int(rule) - 1
    }

    var fromTaxa: Bool { rank & 2 != 0 }
    /// A taxon copy with its photo list, an API observation copy that lists its photos.
    var hasList: Bool { rank & 1 != 0 }
    var hasSpeciesCount: Bool { rank & 4 != 0 }
    var hasUnknown: Bool { rank & Self.hasUnknown != 0 }
}

/// A 21-bit hash of a field (0 only for null), for conflict detection.
func fieldHash(_ text: JSONText?) -> UInt64 {
    guard let text else { return 0 }
    return (stableHash(text.bytes) & 0x1F_FFFF) | 1
}
