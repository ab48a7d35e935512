/// A photo, as ingest writes it (one per appearance: in an observation, as a taxon's default
/// photo, among a taxon's photos) and the bundle loads it into `photos` once it may ship.
public struct PhotoRecord {
    /// The largest side a photo's stored dimensions may give, in pixels: JPEG's and WebP's limit
    /// (65,535). A larger one, or zero, is not a size: the dimensions are dropped as unknown
    /// (a 4,000,000,000-pixel side overflowed the costs' arithmetic).
    public static let maximumSide: Int64 = 65_535

    public enum Column: Int, RecordColumnSet {
        /// The photo id: a photo's identity (never its URL).
        case id = 1
        /// The taxon whose photo it is (default and taxon photos).
        case taxon
        /// Where it appeared (`Context`).
        case context
        /// Its place among the observation's or the taxon's photos.
        case position
        /// As the dump gives it; the bundle keeps it, or the normalized form (see `PhotoURL`).
        case url
        case license, attribution, width, height, type, hidden, attributionName
        /// `updated_at` (Unix ms) of the observation or taxon it came in.
        case seen
        /// The observation it came in.
        case observation
        /// Who took it: the user of the observation it came in (API), the `observer_id` of its
        /// export row; none for a taxon's photo (dedupe fills a winner without one from an
        /// observation's copy of the photo). The bundle credits a photo without an attribution
        /// name to this user, so a photo's credit never depends on which observations are kept.
        case observer

        public static let kind = RecordKind.photo

        public var spec: ColumnSpec {
            switch self {
            case .id: .integer("id")
            case .taxon: .integer()
            case .context: .text()
            case .position: .integer()
            case .url: .text()
            case .license: .text("license_code")
            case .attribution: .text("attribution")
            case .width: .integer("width")
            case .height: .integer("height")
            case .type: .text("photo_type")
            case .hidden: .bool()
            case .attributionName: .text()
            case .seen: .integer(occurrence: true)
            case .observation: .integer(occurrence: true)
            case .observer: .integer(occurrence: true)
            }
        }
    }

    /// Where a photo appeared.
    public enum Context: Sendable {
        case observation, defaultPhoto, taxon

        public var tag: StaticString {
            switch self {
            case .observation: "obs"
            case .defaultPhoto: "default"
            case .taxon: "taxon"
            }
        }
    }

    public var id: Int64
    public var taxon: Int64? = nil
    public var context: Context
    public var position: Int64? = nil
    public var url: JSONText
    /// Written in lower case (the open-data export writes `CC-BY`, the API `cc-by`).
    public var license: JSONText? = nil
    public var attribution: JSONText? = nil
    public var width: Int64? = nil
    public var height: Int64? = nil
    public var type: JSONText? = nil
    public var hidden: Bool? = nil
    public var attributionName: JSONText? = nil
    public var seen: Int64? = nil
    public var observation: Int64? = nil
    public var observer: Int64? = nil

    public init(id: Int64, context: Context, url: JSONText) {
        self.id = id
        self.context = context
        self.url = url
    }

    /// Whether `other` is this copy of the photo again, as a record lists it twice (an API
    /// observation's `observation_photos` and `photos`): the same values but for its place in
    /// the record.
    func sameCopy(as other: PhotoRecord) -> Bool {
        func same(_ a: JSONText?, _ b: JSONText?) -> Bool {
            guard let a, let b else { return a == nil && b == nil }
            return a.bytes.elementsEqual(b.bytes)
        }
        return id == other.id && context == other.context && same(url, other.url) && same(license, other.license)
            && same(attribution, other.attribution) && width == other.width && height == other.height && same(type, other.type)
            && hidden == other.hidden && same(attributionName, other.attributionName) && seen == other.seen
            && observation == other.observation && observer == other.observer && taxon == other.taxon
    }

    /// Whether a record's `context` column says it appeared in an observation.
    public static func isObservationPhoto(_ record: JSONColumns) -> Bool {
        record.text(Column.context)?.equals(Context.observation.tag) ?? false
    }

    /// Writes the record as one ingest line ending with `source`.
    ///
    /// - Returns: where in `out` the occurrence columns begin (what `Satellites` leaves out).
    @discardableResult
    public func encode(into out: inout JSONWriter, source: String) -> Int {
        Column.encode(into: &out, source: source) { column, out in
            switch column {
            case .id: out.int(id)
            case .taxon: out.int(taxon)
            case .context: out.string(context.tag)
            case .position: out.int(position)
            case .url: out.string(url)
            case .license: out.lowercasedString(license)
            case .attribution: out.string(attribution)
            case .width: out.int(width)
            case .height: out.int(height)
            case .type: out.string(type)
            case .hidden: out.bool(hidden)
            case .attributionName: out.string(attributionName)
            case .seen: out.int(seen)
            case .observation: out.int(observation)
            case .observer: out.int(observer)
            }
        }
    }
}
