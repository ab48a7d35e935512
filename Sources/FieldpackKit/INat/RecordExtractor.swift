/// Turns one iNaturalist API record (an observation or a taxon) into normalized records, written
/// as JSON Lines: `obs`, `taxon`, `user` and `photo` records (see `RecordKind`).
///
/// A record is written whole or not at all: the first malformed field throws a `RecordError`
/// and the caller discards what was written.
struct RecordExtractor {
    var out = JSONWriter(capacity: 1 << 16)
    var counts = RecordCounts()
    /// Users, taxa and taxon photos: repeated in many observations, so collapsed (see `Satellites`).
    var satellites = Satellites()

    /// Extracts an observation or a taxon, told apart by their fields.
    mutating func extract(_ value: JSONValue, source: String) throws(RecordError) {
        guard value.isObject else { throw .wrongType("record", value, expected: "an object") }
        if value["quality_grade"] != nil || value["observed_on"] != nil || value["user"] != nil
            || value["photos"] != nil || value["observation_photos"] != nil
        {
            try observation(Fields(value, path: ""), source: source)
        } else if value["rank"] != nil || value["rank_level"] != nil || value["taxon_photos"] != nil {
            try taxon(Fields(value, path: ""), seen: nil, from: .taxa, source: source)
        } else {
            throw RecordError("record is neither an observation nor a taxon (no quality_grade, user, photos or rank)")
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

        out.beginObject()
        out.key("k"); out.string("obs")
        out.key("id"); out.int(id)
        out.key("seen"); out.int(seen)
        out.key("uuid"); out.string(try obs.text("uuid"))
        out.key("user"); out.int(userID)
        out.key("taxon"); out.int(taxonID)
        out.key("quality_grade"); out.string(try obs.text("quality_grade"))
        out.key("observed_on"); out.string(try obs.text("observed_on"))
        out.key("time_observed_at"); out.string(try obs.text("time_observed_at"))
        out.key("created_at"); out.string(try obs.text("created_at"))
        out.key("updated_at"); out.string(try obs.text("updated_at"))
        out.key("lat"); out.double(latitude)
        out.key("lng"); out.double(longitude)
        out.key("positional_accuracy"); out.int(try obs.int("positional_accuracy"))
        out.key("geoprivacy"); out.string(try obs.text("geoprivacy"))
        out.key("obscured"); out.bool(try obs.bool("obscured"))
        out.key("place_guess"); out.string(try obs.text("place_guess"))
        out.key("license"); lowercased(try obs.text("license_code"))
        out.key("photos")
        out.beginArray()
        for link in links {
            out.beginArray(); out.int(link.photo); out.int(link.position); out.endArray()
        }
        out.endArray()
        out.key("src"); out.string(source)
        out.endObject()
        out.newline()
        counts.observations += 1

        if let user, let userID {
            let start = out.count
            out.beginObject()
            out.key("k"); out.string("user")
            out.key("id"); out.int(userID)
            out.key("login"); out.string(try user.text("login"))
            out.key("name"); out.string(try user.text("name"))
            let dataEnd = out.count
            out.key("seen"); out.int(seen)
            out.key("src"); out.string(source)
            out.endObject()
            out.newline()
            satellites.stash(from: &out, start: start, dataEnd: dataEnd, kind: 1, id: userID, rank: (seen ?? Int64.min, 0))
            counts.users += 1
        }
        for (photo, position) in photoObjects {
            try self.photo(photo, seen: seen, observation: id, taxon: nil, context: "obs", position: position, source: source)
        }
        if let taxon {
            try self.taxon(taxon, seen: seen, from: .observation(id), source: source)
        }
    }

    enum TaxonOrigin {
        case taxa
        case observation(Int64)
    }

    private mutating func taxon(_ taxon: Fields, seen: Int64?, from origin: TaxonOrigin, source: String) throws(RecordError) {
        let id = try taxon.requiredID()
        guard let name = try taxon.text("name") else { throw RecordError("\(taxon.name("name")) is missing") }
        let defaultPhoto = try taxon.object("default_photo")
        let defaultPhotoID = try defaultPhoto?.requiredID()
        var ownSeen = seen
        var observationID: Int64? = nil
        switch origin {
        case .taxa: ownSeen = try taxon.timestamp("updated_at")
        case .observation(let obs): observationID = obs
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

        let start = out.count
        out.beginObject()
        out.key("k"); out.string("taxon")
        out.key("id"); out.int(id)
        out.key("from"); out.string(observationID == nil ? "taxa" : "obs")
        out.key("name"); out.string(name)
        out.key("rank"); out.string(try taxon.text("rank"))
        out.key("rank_level"); out.double(try taxon.double("rank_level"))
        out.key("ancestry"); out.string(ancestry)
        out.key("iconic_taxon_name"); out.string(try taxon.text("iconic_taxon_name"))
        out.key("preferred_common_name"); out.string(try taxon.text("preferred_common_name"))
        out.key("wikipedia_url"); out.string(try taxon.text("wikipedia_url"))
        out.key("is_active"); out.bool(try taxon.bool("is_active"))
        out.key("default_photo"); out.int(defaultPhotoID)
        out.key("photos")
        if observationID == nil {
            out.beginArray()
            for (photo, _) in taxonPhotos { out.int(try photo.requiredID()) }
            out.endArray()
        } else {
            out.null()
        }
        let dataEnd = out.count
        out.key("seen"); out.int(ownSeen)
        out.key("src"); out.string(source)
        out.endObject()
        out.newline()
        satellites.stash(from: &out, start: start, dataEnd: dataEnd, kind: 2, id: id, rank: (ownSeen ?? Int64.min, 0))
        counts.taxa += 1

        if let defaultPhoto {
            try photo(defaultPhoto, seen: ownSeen, observation: observationID, taxon: id, context: "default", position: nil, source: source)
        }
        for (photo, position) in taxonPhotos {
            try self.photo(photo, seen: ownSeen, observation: nil, taxon: id, context: "taxon", position: position, source: source)
        }
    }

    private mutating func photo(
        _ photo: Fields, seen: Int64?, observation: Int64?, taxon: Int64?, context: StaticString, position: Int64?,
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
        let start = out.count
        out.beginObject()
        out.key("k"); out.string("photo")
        out.key("id"); out.int(id)
        out.key("taxon"); out.int(taxon)
        out.key("ctx"); out.string(context)
        out.key("pos"); out.int(position)
        out.key("url"); out.string(url)
        out.key("license"); lowercased(try photo.text("license_code"))
        out.key("attribution"); out.string(try photo.text("attribution"))
        out.key("width"); out.int(width)
        out.key("height"); out.int(height)
        out.key("type"); out.string(try photo.text("type"))
        out.key("hidden"); out.bool(try photo.bool("hidden"))
        let dataEnd = out.count
        out.key("seen"); out.int(seen)
        out.key("obs"); out.int(observation)
        out.key("src"); out.string(source)
        out.endObject()
        out.newline()
        if context.utf8Start.pointee != UInt8(ascii: "o") {
            // Taxon photos repeat in every observation of the taxon: a satellite.
            satellites.stash(
                from: &out, start: start, dataEnd: dataEnd, kind: 3, id: id, rank: (seen ?? Int64.min, observation ?? 0))
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
            guard values.count == 2, let lng = number(values[0]), let lat = number(values[1]) else {
                throw RecordError("geojson.coordinates is not [lng, lat]")
            }
            return (lat, lng)
        }
        return (nil, nil)
    }

    /// Licence codes in lower case (the open-data export writes `CC-BY`, the API `cc-by`).
    private mutating func lowercased(_ text: JSONText?) {
        guard let text else { return out.null() }
        if !text.bytes.contains(where: { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") }) { return out.string(text) }
        out.string(text.string.lowercased())
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

extension Substring {
    var trimmingSpaces: Substring {
        var result = self
        while result.first == " " { result.removeFirst() }
        while result.last == " " { result.removeLast() }
        return result
    }
}
