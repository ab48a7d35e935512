/// Turns one iNaturalist API record (an observation or a taxon) into normalized records, written
/// as JSON Lines: `obs`, `taxon`, `user` and `photo` records (see `RecordKind` and the record types in `Records/`).
///
/// A record is written whole or not at all: the first malformed field throws a `RecordError`
/// and the caller discards what was written.
struct RecordExtractor {
    var out = JSONWriter(capacity: 1 << 16)
    var counts = RecordCounts()
    /// Users, taxa and taxon photos: repeated in many observations, so collapsed (see `Satellites`).
    var satellites = Satellites()

    /// Writes the collapsed satellites into `out`. (One mutating method: `satellites.flush(into:
    /// &out)` from outside would be two overlapping accesses to `extractor`.)
    mutating func flushSatellites() {
        satellites.flush(into: &out)
    }

    /// Extracts an observation, a taxon or a species count, told apart by their fields (`RecordShape`).
    mutating func extract(_ value: JSONValue, source: String) throws(RecordError) {
        guard value.isObject else { throw .wrongType("record", value, expected: "an object") }
        switch RecordShape.of(value) {
        case .observation: try observation(Fields(value, path: ""), source: source)
        case .taxon: try taxon(Fields(value, path: ""), seen: nil, from: .taxa, source: source)
        case .speciesCount: try speciesCount(Fields(value, path: ""), source: source)
        case nil: throw RecordError(RecordShape.unrecognized)
        }
    }

    private mutating func observation(_ obs: Fields, source: String) throws(RecordError) {
        let id = try obs.requiredID()
        let seen = try obs.timestamp("updated_at")
        _ = try obs.timestamp("created_at")
        let user = try obs.object("user")
        let userID = try user?.requiredID()
        let taxon = try obs.object("taxon")
        let taxonID = try taxon?.requiredID()
        let (latitude, longitude) = try coordinates(obs)

        // Photos: observation_photos carry positions; photos[] may list the same photos again.
        var links: [(photo: Int64, position: Int64)] = []
        var photoObjects: [(Fields, Int64)] = []
        if let observationPhotos = try obs.array("observation_photos") {
            for (index, element) in observationPhotos.elements.enumerated() {
                let path = "observation_photos[\(index)]"
                guard element.isObject else { throw .wrongType(path, element, expected: "an object") }
                let link = Fields(element, path: path)
                guard let photo = try link.object("photo") else { throw RecordError("\(path).photo is missing") }
                let photoID = try photo.requiredID()
                let position = try link.int("position") ?? Int64(index)
                if links.contains(where: { $0.photo == photoID }) { continue }
                links.append((photoID, position))
                photoObjects.append((photo, position))
            }
        }
        if let photos = try obs.array("photos") {
            for (index, element) in photos.elements.enumerated() {
                let path = "photos[\(index)]"
                guard element.isObject else { throw .wrongType(path, element, expected: "an object") }
                let photo = Fields(element, path: path)
                let photoID = try photo.requiredID()
                if links.contains(where: { $0.photo == photoID }) { continue }
                let position = (links.map(\.position).max() ?? -1) + 1
                links.append((photoID, position))
                photoObjects.append((photo, position))
            }
        }

        var record = ObservationRecord(id: id)
        record.uuid = try obs.text("uuid")
        record.user = userID
        record.taxon = taxonID
        record.qualityGrade = try obs.text("quality_grade")
        record.observedOn = try obs.text("observed_on")
        record.timeObservedAt = try obs.text("time_observed_at")
        record.createdAt = try obs.text("created_at")
        record.updatedAt = try obs.text("updated_at")
        record.latitude = latitude
        record.longitude = longitude
        record.positionalAccuracy = try obs.int("positional_accuracy")
        record.geoprivacy = try obs.text("geoprivacy")
        record.obscured = try obs.bool("obscured")
        record.placeGuess = try obs.text("place_guess")
        record.license = try obs.text("license_code")
        record.photos = links
        record.seen = seen
        record.encode(into: &out, source: source)
        counts.observations += 1

        if let user, let userID {
            var record = UserRecord(id: userID)
            record.login = try user.text("login")
            record.name = try user.text("name")
            record.seen = seen
            let start = out.count
            let dataEnd = record.encode(into: &out, source: source)
            satellites.stash(from: &out, start: start, dataEnd: dataEnd, kind: .user, id: userID, rank: (seen ?? Int64.min, 0))
            counts.users += 1
        }
        for (photo, position) in photoObjects {
            try self.photo(photo, seen: seen, observation: id, taxon: nil, context: .observation, position: position, source: source)
        }
        if let taxon {
            try self.taxon(taxon, seen: seen, from: .observation(id), source: source)
        }
    }

    enum TaxonOrigin {
        case taxa
        case observation(Int64)
        /// A `/v1/observations/species_counts` element, with its count.
        case speciesCount(Int64)
    }

    mutating func taxon(_ taxon: Fields, seen: Int64?, from origin: TaxonOrigin, source: String) throws(RecordError) {
        let id = try taxon.requiredID()
        guard let name = try taxon.text("name") else { throw RecordError("\(taxon.name("name")) is missing") }
        let defaultPhoto = try taxon.object("default_photo")
        let defaultPhotoID = try defaultPhoto?.requiredID()
        var ownSeen = seen
        var observationID: Int64? = nil
        var speciesCount: Int64? = nil
        switch origin {
        case .taxa: ownSeen = try taxon.timestamp("updated_at")
        case .observation(let obs): observationID = obs
        case .speciesCount(let count):
            ownSeen = try taxon.timestamp("updated_at")
            speciesCount = count
        }
        var taxonPhotos: [(Fields, Int64)] = []
        if let list = try taxon.array("taxon_photos") {
            for (index, element) in list.elements.enumerated() {
                let path = "\(taxon.name("taxon_photos"))[\(index)]"
                guard element.isObject else { throw .wrongType(path, element, expected: "an object") }
                guard let photo = try Fields(element, path: path).object("photo") else {
                    throw RecordError("\(path).photo is missing")
                }
                _ = try photo.requiredID()
                taxonPhotos.append((photo, Int64(index)))
            }
        }
        let ancestry: String?
        if let text = try taxon.text("ancestry") {
            ancestry = text.string
        } else if let ids = try taxon.array("ancestor_ids") {
            var parts: [String] = []
            for (index, element) in ids.elements.enumerated() {
                guard let ancestor = element.int64 else {
                    throw .wrongType("\(taxon.name("ancestor_ids"))[\(index)]", element, expected: "an integer id")
                }
                // ancestor_ids ends with the taxon itself; ancestry does not.
                if ancestor != id { parts.append(String(ancestor)) }
            }
            ancestry = parts.isEmpty ? nil : parts.joined(separator: "/")
        } else {
            ancestry = nil
        }

        var record = TaxonRecord(id: id, from: TaxonRecord.Origin(origin), name: name)
        record.speciesCount = speciesCount
        record.rank = try taxon.text("rank")
        record.rankLevel = try taxon.double("rank_level")
        record.ancestry = ancestry
        record.iconicTaxonName = try taxon.text("iconic_taxon_name")
        record.preferredCommonName = try taxon.text("preferred_common_name")
        record.wikipediaURL = try taxon.text("wikipedia_url")
        record.isActive = try taxon.bool("is_active")
        record.defaultPhoto = defaultPhotoID
        // A species count's taxon lists no photos unless it says so (it is a search copy).
        if observationID == nil && (speciesCount == nil || taxon.value("taxon_photos") != nil) {
            var ids: [Int64] = []
            for (photo, _) in taxonPhotos { ids.append(try photo.requiredID()) }
            record.photos = ids
        }
        record.seen = ownSeen
        let start = out.count
        let dataEnd = record.encode(into: &out, source: source)
        satellites.stash(from: &out, start: start, dataEnd: dataEnd, kind: .taxon, id: id, rank: (ownSeen ?? Int64.min, 0))
        counts.taxa += 1

        if let defaultPhoto {
            try photo(defaultPhoto, seen: ownSeen, observation: observationID, taxon: id, context: .defaultPhoto, position: nil, source: source)
        }
        for (photo, position) in taxonPhotos {
            try self.photo(photo, seen: ownSeen, observation: nil, taxon: id, context: .taxon, position: position, source: source)
        }
    }

    private mutating func photo(
        _ photo: Fields, seen: Int64?, observation: Int64?, taxon: Int64?, context: PhotoRecord.Context, position: Int64?,
        source: String
    ) throws(RecordError) {
        let id = try photo.requiredID()
        var width: Int64? = nil
        var height: Int64? = nil
        if let dimensions = try photo.object("original_dimensions") {
            width = try dimensions.int("width")
            height = try dimensions.int("height")
        }
        guard let url = try photo.text("url") else { throw RecordError("\(photo.name("url")) is missing") }
        var record = PhotoRecord(id: id, context: context, url: url)
        record.taxon = taxon
        record.position = position
        record.license = try photo.text("license_code")
        record.attribution = try photo.text("attribution")
        record.width = width
        record.height = height
        record.type = try photo.text("type")
        record.hidden = try photo.bool("hidden")
        record.attributionName = try photo.text("attribution_name")
        record.seen = seen
        record.observation = observation
        let start = out.count
        let dataEnd = record.encode(into: &out, source: source)
        if context != .observation {
            // Taxon photos repeat in every observation of the taxon: a satellite.
            satellites.stash(
                from: &out, start: start, dataEnd: dataEnd, kind: .photo, id: id, rank: (seen ?? Int64.min, observation ?? 0))
        }
        counts.photos += 1
    }

    /// `location` ("lat,lng" string or [lat, lng]) first, then GeoJSON `[lng, lat]` (numbers or strings).
    private func coordinates(_ obs: Fields) throws(RecordError) -> (Double?, Double?) {
        if let location = obs.value("location") {
            if let text = location.text {
                let parts = text.string.split(separator: ",", omittingEmptySubsequences: false)
                guard parts.count == 2, let lat = Double(parts[0].trimmingSpaces), let lng = Double(parts[1].trimmingSpaces),
                      abs(lat) <= 90, abs(lng) <= 180
                else { throw RecordError("location \"\(text.string)\" is not \"lat,lng\"") }
                return (lat, lng)
            }
            if location.isArray {
                let values = Array(location.elements)
                guard values.count == 2, let lat = values[0].double, let lng = values[1].double else {
                    throw RecordError("location is an array but not [lat, lng]")
                }
                return (lat, lng)
            }
            throw .wrongType("location", location, expected: "a \"lat,lng\" string")
        }
        if let geojson = try obs.object("geojson"), let coordinates = try geojson.array("coordinates") {
            let values = Array(coordinates.elements)
            func number(_ value: JSONValue) -> Double? { value.double ?? value.string.flatMap { Double($0) } }
            guard values.count == 2, let lng = number(values[0]), let lat = number(values[1]), abs(lat) <= 90,
                  abs(lng) <= 180
            else { throw RecordError("geojson.coordinates is not [lng, lat]") }
            return (lat, lng)
        }
        return (nil, nil)
    }
}

/// How many normalized records one input produced.
public struct RecordCounts: Sendable, Equatable {
    public var observations = 0
    public var taxa = 0
    public var users = 0
    public var photos = 0

    public static func += (lhs: inout RecordCounts, rhs: RecordCounts) {
        lhs.observations += rhs.observations
        lhs.taxa += rhs.taxa
        lhs.users += rhs.users
        lhs.photos += rhs.photos
    }
}
