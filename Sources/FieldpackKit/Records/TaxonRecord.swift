/// A taxon, as ingest writes it (from the taxa endpoint, or inside an observation) and the
/// bundle loads it into `taxa`.
public struct TaxonRecord {
    public enum Column: Int, RecordColumnSet {
        case id = 1
        /// Where the copy came from (`Origin`).
        case from
        case name, rank, rankLevel, ancestry, iconicTaxonName, preferredCommonName, wikipediaURL, isActive
        /// The default photo's id; the bundle sets `default_photo_id` once it knows the photo ships.
        case defaultPhoto
        /// `[photo id, …]` from the taxa endpoint's `taxon_photos`; null in an observation's copy.
        case photos
        /// Observations a `/v1/observations/species_counts` page counted for the taxon; null in
        /// other copies. Dedupe keeps the largest count of all copies (see `Winners`).
        case speciesCount
        /// The columns whose values this copy does not know, as a bit mask (`1 << rawValue`; null
        /// for none): an export taxa row's value dropped as unusable. An export copy that wins
        /// takes them from the best API copy (`Winners`), as an observation's.
        case unknown
        /// `updated_at` (Unix ms) of the taxon, or of the observation it came in.
        case seen

        public static let kind = RecordKind.taxon

        public var spec: ColumnSpec {
            switch self {
            case .id: .integer("id")
            case .from: .text()
            case .name: .text("name")
            case .rank: .text("rank")
            case .rankLevel: .real("rank_level")
            case .ancestry: .text("ancestry")
            case .iconicTaxonName: .text("iconic_taxon_name")
            case .preferredCommonName: .text("preferred_common_name")
            case .wikipediaURL: .text("wikipedia_url")
            case .isActive: .bool("is_active")
            case .defaultPhoto: .integer()
            case .photos: .list
            case .speciesCount: .integer("species_count")
            case .unknown: .integer()
            case .seen: .integer(occurrence: true)
            }
        }
    }

    /// Where a copy of a taxon came from: a copy from the taxa endpoint outranks one inside an
    /// observation or a species count of the same date, and only it lists the taxon's photos.
    public enum Origin: Sendable {
        case taxa, observation
        /// An element of a `/v1/observations/species_counts` page.
        case speciesCounts
        /// A row of the open-data export's `taxa` table.
        case openData

        public var tag: StaticString {
            switch self {
            case .taxa: "taxa"
            case .observation: "obs"
            case .speciesCounts: "counts"
            case .openData: "open-data"
            }
        }
    }

    public var id: Int64
    public var from: Origin
    public var name: JSONText
    public var rank: JSONText? = nil
    public var rankLevel: Double? = nil
    public var ancestry: String? = nil
    public var iconicTaxonName: JSONText? = nil
    public var preferredCommonName: JSONText? = nil
    public var wikipediaURL: JSONText? = nil
    public var isActive: Bool? = nil
    public var defaultPhoto: Int64? = nil
    /// nil in an observation's copy (written as null).
    public var photos: [Int64]? = nil
    public var speciesCount: Int64? = nil
    /// `Column.unknown`'s bit mask.
    public var unknown: Int64 = 0
    public var seen: Int64? = nil

    public init(id: Int64, from: Origin, name: JSONText) {
        self.id = id
        self.from = from
        self.name = name
    }

    /// Whether a deduped or ingest record's `from` column says it came from the taxa endpoint.
    public static func isFromTaxa(_ record: JSONColumns) -> Bool {
        record.text(Column.from)?.equals(Origin.taxa.tag) ?? false
    }

    /// Whether a record's `from` column says it is an open-data row.
    public static func isFromOpenData(_ record: JSONColumns) -> Bool {
        record.text(Column.from)?.equals(Origin.openData.tag) ?? false
    }

    /// The columns an open-data copy of a taxon carries: when it wins, every other column comes
    /// from the best API copy (see `Dedupe`).
    public static let exportColumns: Set<Int> = [Column.from, .name, .rank, .rankLevel, .ancestry, .isActive, .seen]
        .reduce(into: []) { $0.insert($1.rawValue) }

    /// Writes the record as one ingest line ending with `source`.
    ///
    /// - Returns: where in `out` the occurrence columns begin (what `Satellites` leaves out).
    @discardableResult
    public func encode(into out: inout JSONWriter, source: String) -> Int {
        Column.encode(into: &out, source: source) { column, out in
            switch column {
            case .id: out.int(id)
            case .from: out.string(from.tag)
            case .name: out.string(name)
            case .rank: out.string(rank)
            case .rankLevel: out.double(rankLevel)
            case .ancestry: out.string(ancestry)
            case .iconicTaxonName: out.string(iconicTaxonName)
            case .preferredCommonName: out.string(preferredCommonName)
            case .wikipediaURL: out.string(wikipediaURL)
            case .isActive: out.bool(isActive)
            case .defaultPhoto: out.int(defaultPhoto)
            case .photos:
                if let photos {
                    out.beginArray()
                    for photo in photos { out.int(photo) }
                    out.endArray()
                } else {
                    out.null()
                }
            case .speciesCount: out.int(speciesCount)
            case .unknown: out.int(unknown == 0 ? nil : unknown)
            case .seen: out.int(seen)
            }
        }
    }
}

extension TaxonRecord {
    /// `48460/1/2/355675`: ids separated by single slashes, as both sources write an ancestry.
    static func isAncestry(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var previousSlash = true
        for byte in bytes {
            if byte == UInt8(ascii: "/") {
                if previousSlash { return false }
                previousSlash = true
            } else if byte >= 0x30 && byte <= 0x39 {
                previousSlash = false
            } else {
                return false
            }
        }
        return !previousSlash
    }
}
