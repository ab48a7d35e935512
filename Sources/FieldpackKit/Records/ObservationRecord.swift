/// An observation, as ingest writes it and the bundle loads it into `observations`.
public struct ObservationRecord {
    public enum Column: Int, RecordColumnSet {
        case id = 1, uuid, user, taxon, qualityGrade, observedOn, timeObservedAt, createdAt, updatedAt, latitude
        /// The public accuracy when the coordinates are obscured (see `isObscured`).
        case longitude, positionalAccuracy, geoprivacy, obscured
        /// The taxon's geoprivacy (a threatened taxon's observations are obscured).
        case taxonGeoprivacy
        case placeGuess, license
        /// `[[photo id, position], …]`: the `observation_photos` rows.
        case photos
        /// The columns whose values this copy does not know, as a bit mask (`1 << rawValue`;
        /// null for none): an export row's value dropped as unusable, or its `observed_on` left
        /// blank (the export blanks an invalid date or one before 1800); an API copy's
        /// `fillableFromOtherCopies` left out of its response or unusable. An export copy that
        /// wins takes them from the best API copy (`Winners`), where it keeps its other values;
        /// an API copy that wins, from the best other copy that knows them.
        case unknown
        /// What part of an observation the record is: null for the observation, `links` for one
        /// open-data photo row's link to it (`[[photo id, position]]` in `photos`, nothing else),
        /// which dedupe folds into the observation's export copy (see `Part`).
        case part
        /// `updated_at` in Unix ms: which copy of the observation is newest (an export copy:
        /// its export's date).
        case seen

        public static let kind = RecordKind.observation

        public var spec: ColumnSpec {
            switch self {
            case .id: .integer("id")
            case .uuid: .text("uuid")
            case .user: .integer("user_id")
            case .taxon: .integer("taxon_id")
            case .qualityGrade: .text("quality_grade")
            case .observedOn: .text("observed_on")
            case .timeObservedAt: .text("time_observed_at")
            case .createdAt: .text("created_at")
            case .updatedAt: .text("updated_at")
            case .latitude: .real("latitude")
            case .longitude: .real("longitude")
            case .positionalAccuracy: .integer("positional_accuracy")
            case .geoprivacy: .text("geoprivacy")
            case .obscured: .bool("obscured")
            case .taxonGeoprivacy: .text("taxon_geoprivacy")
            case .placeGuess: .text("place_guess")
            case .license: .text("license_code")
            case .photos: .list
            case .unknown: .integer()
            case .part: .text()
            case .seen: .integer(occurrence: true)
            }
        }
    }

    /// What a record holds of an observation (the `part` column).
    public enum Part: Sendable, CaseIterable {
        /// One photo row's link from the open-data export, whose photos table is apart from its
        /// observations table: the export's copy of an observation lists its photos in these.
        case links
        /// An export copy that the selection's dedupe rules remove, by the rule that removes it
        /// (`removed:places`, …), marked by ingest (`ExportLinkPruning`) so that dedupe need not
        /// parse it (`RemovedObservationLine`). Otherwise the record as ingest writes any copy.
        case removedByPlaces, removedByTaxa, removedByQualityGrades, removedByObserved
        /// An export row whose fields could not be placed (a tab inside a field), kept for its
        /// uuid alone: its other columns are unknown, not empty, so dedupe ranks it below every
        /// copy with values (`RecordOccurrence.isKeyOnly`), and the selection's rules do not
        /// judge it in ingest.
        case keyOnly

        public var tag: StaticString {
            switch self {
            case .links: "links"
            case .removedByPlaces: "removed:places"
            case .removedByTaxa: "removed:taxa"
            case .removedByQualityGrades: "removed:quality_grades"
            case .removedByObserved: "removed:observed"
            case .keyOnly: "key-only"
            }
        }

        /// The mark of a copy removed by `rule` (one of `Selection.dedupeRules(taxaKnown:)`); nil
        /// for any other.
        public init?(removedBy rule: String) {
            guard let part = Self.allCases.first(where: { $0.tag.description == "removed:\(rule)" }) else { return nil }
            self = part
        }

    }

    public var id: Int64
    public var uuid: JSONText? = nil
    public var user: Int64? = nil
    public var taxon: Int64? = nil
    public var qualityGrade: JSONText? = nil
    public var observedOn: JSONText? = nil
    public var timeObservedAt: JSONText? = nil
    public var createdAt: JSONText? = nil
    public var updatedAt: JSONText? = nil
    public var latitude: Double? = nil
    public var longitude: Double? = nil
    public var positionalAccuracy: Int64? = nil
    public var geoprivacy: JSONText? = nil
    public var obscured: Bool? = nil
    public var taxonGeoprivacy: JSONText? = nil
    public var placeGuess: JSONText? = nil
    /// Written in lower case (the open-data export writes `CC-BY`, the API `cc-by`).
    public var license: JSONText? = nil
    public var photos: [(photo: Int64, position: Int64)] = []
    /// Whether the copy says which photos the observation has: an API copy fetched without
    /// `observation_photos` and `photos` (a request's `fields` left them out) says nothing, and
    /// is written with `null` photos, which dedupe fills from a copy that lists them.
    public var photosListed = true
    /// `Column.unknown`'s bit mask.
    public var unknown: Int64 = 0
    public var seen: Int64? = nil
    public var part: Part? = nil

    public init(id: Int64) {
        self.id = id
    }

    /// Writes `uuid` as the records (and so the bundle) hold it: a uuid with upper-case hex
    /// digits in lower case, its canonical form (RFC 9562 §4: output in lower case, read in
    /// either), so that the app addresses an observation by one text whichever copy won, and in
    /// every build; any other text as it came.
    private static func encode(uuid: JSONText?, into out: inout JSONWriter) {
        guard let uuid, uuid.bytes.contains(where: { $0 >= 0x41 && $0 <= 0x46 }), ObservationUUID(uuid) != nil else {
            out.string(uuid)
            return
        }
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: uuid.count) { lowered in
            for (index, byte) in uuid.bytes.enumerated() { lowered[index] = byte >= 0x41 && byte <= 0x46 ? byte | 0x20 : byte }
            out.string(JSONText(start: UnsafeRawPointer(lowered.baseAddress!), count: uuid.count))
        }
    }

    /// Writes the record as one ingest line ending with `source`.
    /// Whether the record has no value for `column`, one of `fillableFromOtherCopies`.
    func isNull(_ column: Column) -> Bool {
        switch column {
        case .user: user == nil
        case .taxon: taxon == nil
        case .qualityGrade: qualityGrade == nil
        case .observedOn: observedOn == nil
        case .license: license == nil
        default: preconditionFailure("\(column) is not filled from other copies")
        }
    }

    public func encode(into out: inout JSONWriter, source: String) {
        Column.encode(into: &out, source: source) { column, out in
            switch column {
            case .id: out.int(id)
            case .uuid: Self.encode(uuid: uuid, into: &out)
            case .user: out.int(user)
            case .taxon: out.int(taxon)
            case .qualityGrade: out.string(qualityGrade)
            case .observedOn: out.string(observedOn)
            case .timeObservedAt: out.string(timeObservedAt)
            case .createdAt: out.string(createdAt)
            case .updatedAt: out.string(updatedAt)
            case .latitude: out.double(latitude)
            case .longitude: out.double(longitude)
            case .positionalAccuracy: out.int(positionalAccuracy)
            case .geoprivacy: out.string(geoprivacy)
            case .obscured: out.bool(obscured)
            case .taxonGeoprivacy: out.string(taxonGeoprivacy)
            case .placeGuess: out.string(placeGuess)
            case .license: out.lowercasedString(license)
            case .photos:
                guard photosListed || !photos.isEmpty else {
                    out.null()
                    return
                }
                out.beginArray()
                for link in photos {
                    out.beginArray(); out.int(link.photo); out.int(link.position); out.endArray()
                }
                out.endArray()
            case .unknown: out.int(unknown == 0 ? nil : unknown)
            case .part: if let part { out.string(part.tag) } else { out.null() }
            case .seen: out.int(seen)
            }
        }
    }

    /// Whether a records line is an export photo row's link (`Part.links`).
    public static func isLinks(_ record: JSONColumns) -> Bool {
        record.text(Column.part)?.equals(Part.links.tag) ?? false
    }

    /// A links record's link when its photo list is exactly one `[photo id, position]` pair of
    /// integers (as ingest writes every photo row's); nil otherwise.
    public static func singleLink(_ record: JSONColumns) -> (photo: Int64, position: Int64)? {
        guard let list = record[Column.photos], list.isArray else { return nil }
        var links = list.elements.makeIterator()
        guard let link = links.next(), links.next() == nil, link.isArray else { return nil }
        var pair = link.elements.makeIterator()
        guard let photo = pair.next()?.int64, let position = pair.next()?.int64, pair.next() == nil else { return nil }
        return (photo, position)
    }

    /// The columns an open-data copy of an observation carries: when it wins, every other
    /// column comes from the best API copy of the same uuid (see `Dedupe`).
    public static let exportColumns: Set<Int> = [
        Column.uuid, .user, .taxon, .qualityGrade, .observedOn, .latitude, .longitude, .positionalAccuracy, .photos, .seen,
    ].reduce(into: []) { $0.insert($1.rawValue) }

    /// The columns an API copy marks unknown when its response leaves them out (a request whose
    /// `fields` do not name them) or gives them unusable, and that dedupe fills, when that copy
    /// wins, from the best other copy that knows them (`Winners`). Never the point, its accuracy,
    /// its privacy, the place guess or the time: an older copy's may be the exact ones of an
    /// observation obscured since.
    public static let fillableFromOtherCopies: [(column: Column, key: StaticString)] = [
        (.user, "user"), (.taxon, "taxon"), (.qualityGrade, "quality_grade"), (.observedOn, "observed_on"), (.license, "license_code"),
    ]

    /// Whether iNaturalist published obscured coordinates for this observation (see `isObscured`).
    public var coordinatesObscured: Bool {
        Self.isObscured(obscured: obscured, geoprivacy: geoprivacy, taxonGeoprivacy: taxonGeoprivacy)
    }

    /// Whether an observation's published coordinates are obscured: its `obscured` flag, or its
    /// own or its taxon's geoprivacy `obscured` or `private`, compared in either case (`Obscured`
    /// is read as `obscured`, as licence codes are). Its latitude and longitude are then a public
    /// point randomised within a cell of about 0.2° (or absent, when private), and only its
    /// public accuracy may ship. The one definition: ingest picks the accuracy by it, the
    /// bundle fills `observations.coordinates_obscured` with it.
    public static func isObscured(obscured: Bool?, geoprivacy: JSONText?, taxonGeoprivacy: JSONText?) -> Bool {
        func hides(_ value: JSONText?) -> Bool {
            guard let value else { return false }
            return value.equalsIgnoringASCIICase("obscured") || value.equalsIgnoringASCIICase("private")
        }
        return obscured == true || hides(geoprivacy) || hides(taxonGeoprivacy)
    }

    /// `isObscured` for a records line.
    public static func isObscured(_ record: JSONColumns) -> Bool {
        isObscured(
            obscured: record.bool(Column.obscured), geoprivacy: record.text(Column.geoprivacy),
            taxonGeoprivacy: record.text(Column.taxonGeoprivacy))
    }
}
