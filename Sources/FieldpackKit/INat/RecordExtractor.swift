/// Turns one iNaturalist API record (an observation or a taxon) into normalized records, written
/// as JSON Lines: `obs`, `taxon`, `user` and `photo` records (see `RecordKind` and the record types in `Records/`).
///
/// A record keeps its good parts: an unusable part (a wrong-typed field, a photo without an id or
/// a URL, a user without an id, a taxon that is not an object) is dropped and noted in `dropped`,
/// and the rest is written. Only a record that loses its identity (no usable integer id, or not
/// an observation or a taxon at all) throws a `RecordError`; the caller then discards what was
/// written for it.
struct RecordExtractor {
    var out = RecordExtractor.writer()
    var counts = RecordCounts()
    /// Users, taxa and taxon photos: repeated in many observations, so collapsed (see `Satellites`).
    var satellites = Satellites()
    /// The parts dropped from the last record extracted, in the order met (salvage findings).
    private(set) var dropped: [RecordError] = []

    /// The records' writer: a NUL in the input's text is written U+FFFD (`replacesNUL`).
    static func writer() -> JSONWriter {
        var writer = JSONWriter(capacity: 1 << 16)
        writer.replacesNUL = true
        return writer
    }

    /// Writes the collapsed satellites into `out`. (One mutating method: `satellites.flush(into:
    /// &out)` from outside would be two overlapping accesses to `extractor`.)
    mutating func flushSatellites() {
        satellites.flush(into: &out)
    }

    /// Extracts an observation, a taxon or a species count, as `shape` (`RecordShape.of(value)`,
    /// which the caller has already looked at) says.
    mutating func extract(_ value: JSONValue, shape: RecordShape?, source: String) throws(RecordError) {
        dropped.removeAll(keepingCapacity: true)
        guard value.isObject else {
            throw RecordError(at: "", "record is \(RecordError.describe(value.kind)), expected an object")
        }
        switch shape {
        case .observation: try observation(Fields(value, path: .record), source: source)
        case .taxon:
            let fields = Fields(value, path: .record)
            write(try taxon(fields, seen: nil, from: .taxa), source: source)
            ancestors(of: fields, source: source)
        case .speciesCount: try speciesCount(Fields(value, path: .record), source: source)
        case nil: throw RecordError(at: "", RecordShape.unrecognized(value))
        }
    }

    /// Notes that `part` (a JSON path) was dropped because of `error`.
    private mutating func drop(_ error: RecordError, _ part: String) {
        var error = error
        error.reason += "; dropped \(part)"
        dropped.append(error)
    }

    /// The value `read` gives, or nil when it is unusable: then the field is dropped and noted.
    @inline(__always)
    private mutating func field<T>(_ read: () throws(RecordError) -> T?) -> T? {
        do throws(RecordError) {
            return try read()
        } catch {
            drop(error, error.field)
            return nil
        }
    }

    private mutating func observation(_ obs: Fields, source: String) throws(RecordError) {
        let id = try obs.requiredID()
        let updated = field { () throws(RecordError) in try obs.timestamp("updated_at") }
        let created = field { () throws(RecordError) in try obs.timestamp("created_at") }
        let seen = updated?.millis

        var user: UserRecord? = nil
        if let fields = field({ () throws(RecordError) in try obs.object("user") }) {
            do throws(RecordError) {
                var record = UserRecord(id: try fields.requiredID())
                record.login = field { () throws(RecordError) in try fields.text("login") }
                record.name = UserRecord.usableName(field { () throws(RecordError) in try fields.text("name") })
                record.seen = seen
                user = record
            } catch {
                drop(error, fields.path.text)
            }
        }

        // Photos: observation_photos carry positions; photos[] may list the same photos again.
        var photos: [PhotoRecord] = []
        // A photo listed again with another URL or licence (and then any other value that
        // differs, a field it leaves out taken from the first): an occurrence of its own, which
        // dedupe ranks against the first by its rules (a hosted copy over a remote one, the more
        // restrictive licence) and reports as a conflict, where the first listed won unsaid. The
        // observation links the photo once, at its first position.
        var variants: [PhotoRecord] = []
        // The API's second listing of a photo, its URL and licence as the first copy's, is that
        // copy: not read again (most photos of a page: reading them all cost ingest about 9%
        // more user CPU on 1,000 of the benchmark's pages).
        func listedAsFirst(_ fields: Fields, id: Int64) -> Bool {
            guard let first = photos.first(where: { $0.id == id }) else { return false }
            func same(_ key: StaticString, _ text: JSONText?) -> Bool {
                let given: JSONText?
                do throws(RecordError) { given = try fields.text(key) } catch { return false }
                guard let given, let text else { return given == nil && text == nil }
                return given.bytes.elementsEqual(text.bytes)
            }
            return same("url", first.url) && same("license_code", first.license)
        }
        // A photo read: the observation's, or a variant of one listed before. A copy listed
        // again says its findings once: those of a copy not kept as a variant (the same values,
        // or unusable) are taken back.
        func add(_ record: PhotoRecord?, id: Int64, findingsBefore: Int) {
            guard let record else {
                if photos.contains(where: { $0.id == id }) { dropped.removeSubrange(findingsBefore...) }
                return
            }
            guard let first = photos.first(where: { $0.id == record.id }) else {
                photos.append(record)
                return
            }
            var variant = record
            variant.position = first.position
            // What this listing leaves out is no other value: the first copy's (a sparse listing
            // without its licence was the more restrictive "none", and the photo did not ship).
            if variant.license == nil { variant.license = first.license }
            if variant.attribution == nil { variant.attribution = first.attribution }
            if variant.width == nil && variant.height == nil { (variant.width, variant.height) = (first.width, first.height) }
            if variant.type == nil { variant.type = first.type }
            if variant.hidden == nil { variant.hidden = first.hidden }
            if variant.attributionName == nil { variant.attributionName = first.attributionName }
            if !first.sameCopy(as: variant), !variants.contains(where: { $0.sameCopy(as: variant) }) {
                variants.append(variant)
            } else {
                dropped.removeSubrange(findingsBefore...)
            }
        }
        if let observationPhotos = field({ () throws(RecordError) in try obs.array("observation_photos") }) {
            for (index, element) in observationPhotos.elements.enumerated() {
                let path = FieldPath.record.element("observation_photos", index)
                let fields: Fields
                let photoID: Int64
                do throws(RecordError) {
                    guard element.isObject else { throw .wrongType(path.text, element, expected: "an object") }
                    let link = Fields(element, path: path)
                    guard let photo = try link.object("photo") else { throw .missing(link.name("photo")) }
                    fields = photo
                    photoID = try photo.requiredID()
                } catch {
                    drop(error, path.text)
                    continue
                }
                if listedAsFirst(fields, id: photoID) { continue }
                let findings = dropped.count
                let position = field { () throws(RecordError) in try Fields(element, path: path).int("position") } ?? Int64(index)
                var record = photo(fields, id: photoID, path: path, seen: seen, observation: id, taxon: nil,
                                   context: .observation, position: position)
                record?.observer = user?.id
                add(record, id: photoID, findingsBefore: findings)
            }
        }
        if let list = field({ () throws(RecordError) in try obs.array("photos") }) {
            for (index, element) in list.elements.enumerated() {
                let path = FieldPath.record.element("photos", index)
                let fields = Fields(element, path: path)
                let photoID: Int64
                do throws(RecordError) {
                    guard element.isObject else { throw .wrongType(path.text, element, expected: "an object") }
                    photoID = try fields.requiredID()
                } catch {
                    drop(error, path.text)
                    continue
                }
                if listedAsFirst(fields, id: photoID) { continue }
                let findings = dropped.count
                let position = (photos.compactMap(\.position).max() ?? -1) + 1
                var record = photo(fields, id: photoID, path: path, seen: seen, observation: id, taxon: nil,
                                   context: .observation, position: position)
                record?.observer = user?.id
                add(record, id: photoID, findingsBefore: findings)
            }
        }

        var taxon: TaxonParts? = nil
        if let fields = field({ () throws(RecordError) in try obs.object("taxon") }) {
            do throws(RecordError) {
                taxon = try self.taxon(fields, seen: seen, from: .observation(id))
            } catch {
                drop(error, fields.path.text)
            }
        }

        var record = ObservationRecord(id: id)
        record.uuid = field { () throws(RecordError) in
            // The uuid merges an observation with its export copy and is unique in the bundle:
            // `not-a-uuid` shipped, and two records with it would fail the bundle's index.
            guard let text = try obs.text("uuid") else { return nil }
            guard ObservationUUID(text) != nil else {
                throw RecordError(at: obs.name("uuid"), "\(obs.name("uuid")) is \"\(text.string.prefix(60))\", expected a uuid (8-4-4-4-12 hexadecimal digits)")
            }
            return text
        }
        record.user = user?.id
        record.taxon = taxon?.record.id
        record.qualityGrade = field { () throws(RecordError) in try obs.qualityGrade("quality_grade") }
        record.observedOn = field { () throws(RecordError) in try obs.date("observed_on") }
        record.timeObservedAt = field { () throws(RecordError) in try obs.timestampText("time_observed_at") }
        record.createdAt = created?.text
        record.updatedAt = updated?.text
        if let (latitude, longitude) = coordinates(obs) {
            record.latitude = latitude
            record.longitude = longitude
        }
        let droppedBeforePrivacy = dropped.count
        record.geoprivacy = field { () throws(RecordError) in try obs.text("geoprivacy") }
        record.obscured = field { () throws(RecordError) in try obs.bool("obscured") }
        record.taxonGeoprivacy = field { () throws(RecordError) in try obs.text("taxon_geoprivacy") }
        // A privacy field that is there but unusable may have said "obscured": assume it did.
        if dropped.count > droppedBeforePrivacy { record.obscured = true }
        // An obscured point was moved by up to tens of kilometres: its private accuracy never ships.
        let accuracy: StaticString = record.coordinatesObscured ? "public_positional_accuracy" : "positional_accuracy"
        record.positionalAccuracy = field { () throws(RecordError) in
            // As the export's reader: a negative accuracy shipped as it was.
            guard let metres = try obs.int(accuracy) else { return nil }
            guard metres >= 0 else { throw RecordError(at: obs.name(accuracy), "\(obs.name(accuracy)) is \(metres), expected a whole number of metres") }
            return metres
        }
        record.placeGuess = field { () throws(RecordError) in try obs.text("place_guess") }
        record.license = field { () throws(RecordError) in try obs.text("license_code") }
        record.photos = photos.map { ($0.id, $0.position ?? 0) }
        // What the response does not say: a key left out (the request's `fields` did not name it)
        // or there but unusable. A JSON null is the API's word (none), not unknown.
        for (index, (column, key)) in ObservationRecord.fillableFromOtherCopies.enumerated() where record.isNull(column) {
            guard let given = obs.object[key] else {
                record.unknown |= column.unknownBit
                counts.observationsLeavingOut[index] += 1
                continue
            }
            if !given.isNull { record.unknown |= column.unknownBit }
        }
        // Neither list (or neither usable): which photos the observation has is unknown, not none.
        record.photosListed = obs.value("observation_photos")?.isArray ?? false || obs.value("photos")?.isArray ?? false
        record.seen = seen
        record.encode(into: &out, source: source)
        counts.observations += 1
        if record.uuid == nil { counts.observationsWithoutUUID += 1 }
        if !record.photosListed { counts.observationsWithoutPhotoLists += 1 }

        if let user {
            let start = out.count
            let dataEnd = user.encode(into: &out, source: source)
            satellites.stash(from: &out, start: start, dataEnd: dataEnd, kind: .user, id: user.id, rank: (seen ?? Int64.min, 0),
                source: source)
            counts.users += 1
        }
        for photo in photos + variants { write(photo, source: source) }
        if let taxon { write(taxon, source: source) }
    }

    enum TaxonOrigin {
        case taxa
        case observation(Int64)
        /// An element of a taxon's `ancestors`: a copy embedded in another taxon's response, as
        /// one in an observation is (not a taxa-endpoint copy of its own), so that a search
        /// result or a by-id copy of the same date outranks it.
        case ancestor
        /// A `/v1/observations/species_counts` element, with its count.
        case speciesCount(Int64)
    }

    /// A taxon and the photos that come with it, checked and ready to write.
    struct TaxonParts {
        var record: TaxonRecord
        var defaultPhoto: PhotoRecord?
        var photos: [PhotoRecord]
    }

    /// Reads a taxon; its unusable parts are dropped and noted.
    ///
    /// - Throws: when the taxon has no usable id or name (the caller drops it, or rejects it when
    ///   it is the record).
    mutating func taxon(_ taxon: Fields, seen: Int64?, from origin: TaxonOrigin) throws(RecordError) -> TaxonParts {
        let id = try taxon.requiredID()
        guard let given = try taxon.text("name") else { throw .missing(taxon.name("name")) }
        // The export's rule (`OpenDataRow`): a name that shows nothing cannot be a taxon's, and a
        // newer copy of it would blank a species' name in the app.
        guard let name = UserRecord.usableName(given) else {
            throw RecordError(at: taxon.name("name"), "\(taxon.name("name")) \"\(given.string)\" is no usable name (empty, blank or None)")
        }
        var ownSeen = seen
        var observationID: Int64? = nil
        var speciesCount: Int64? = nil
        switch origin {
        case .taxa: ownSeen = field { () throws(RecordError) in try taxon.timestamp("updated_at") }?.millis
        case .observation(let obs): observationID = obs
        case .ancestor: break
        case .speciesCount(let count):
            ownSeen = field { () throws(RecordError) in try taxon.timestamp("updated_at") }?.millis
            speciesCount = count
        }
        var defaultPhoto: PhotoRecord? = nil
        if let fields = field({ () throws(RecordError) in try taxon.object("default_photo") }) {
            do throws(RecordError) {
                let photoID = try fields.requiredID()
                defaultPhoto = photo(fields, id: photoID, path: fields.path, seen: ownSeen, observation: observationID,
                                     taxon: id, context: .defaultPhoto, position: nil)
            } catch {
                drop(error, fields.path.text)
            }
        }
        var taxonPhotos: [PhotoRecord] = []
        if let list = field({ () throws(RecordError) in try taxon.array("taxon_photos") }) {
            for (index, element) in list.elements.enumerated() {
                let path = taxon.path.element("taxon_photos", index)
                let fields: Fields
                let photoID: Int64
                do throws(RecordError) {
                    guard element.isObject else { throw .wrongType(path.text, element, expected: "an object") }
                    let link = Fields(element, path: path)
                    guard let photo = try link.object("photo") else { throw .missing(link.name("photo")) }
                    fields = photo
                    photoID = try photo.requiredID()
                } catch {
                    drop(error, path.text)
                    continue
                }
                guard let record = photo(fields, id: photoID, path: path, seen: ownSeen, observation: nil, taxon: id,
                                         context: .taxon, position: Int64(index))
                else { continue }
                taxonPhotos.append(record)
            }
        }
        var ancestry: String? = nil
        if let text = field({ () throws(RecordError) in try taxon.text("ancestry") }) {
            // `1/x/3` shipped as it was; the export's reader drops such an ancestry, and so here.
            if TaxonRecord.isAncestry(text.bytes) {
                ancestry = text.string
            } else {
                drop(RecordError(at: taxon.name("ancestry"), "\(taxon.name("ancestry")) is \"\(text.string)\", expected taxon ids separated by /"), taxon.name("ancestry"))
            }
        } else if let ids = field({ () throws(RecordError) in try taxon.array("ancestor_ids") }) {
            var parts: [String] = []
            for (index, element) in ids.elements.enumerated() {
                guard let ancestor = element.int64 else {
                    drop(.wrongType("\(taxon.name("ancestor_ids"))[\(index)]", element, expected: "an integer id"), taxon.name("ancestor_ids"))
                    parts.removeAll()
                    break
                }
                // ancestor_ids ends with the taxon itself; ancestry does not.
                if ancestor != id { parts.append(String(ancestor)) }
            }
            ancestry = parts.isEmpty ? nil : parts.joined(separator: "/")
        }

        var record = TaxonRecord(id: id, from: TaxonRecord.Origin(origin), name: name)
        record.speciesCount = speciesCount
        record.rank = field { () throws(RecordError) in try taxon.text("rank") }
        record.rankLevel = field { () throws(RecordError) in try taxon.double("rank_level") }
        record.ancestry = ancestry
        record.iconicTaxonName = field { () throws(RecordError) in try taxon.text("iconic_taxon_name") }
        record.preferredCommonName = field { () throws(RecordError) in try taxon.text("preferred_common_name") }
        record.wikipediaURL = field { () throws(RecordError) in try taxon.text("wikipedia_url") }
        record.isActive = field { () throws(RecordError) in try taxon.bool("is_active") }
        record.defaultPhoto = defaultPhoto?.id
        // A taxon lists its photos only when it says so: `/v1/taxa/{id}` does; a search result of
        // `/v1/taxa` or a species count's taxon is a search copy without the list, and an empty
        // list from it won over the by-id copy's in dedupe, which then shipped the photos unlinked.
        if observationID == nil && taxon.value("taxon_photos") != nil {
            record.photos = taxonPhotos.map(\.id)
        }
        record.seen = ownSeen
        return TaxonParts(record: record, defaultPhoto: defaultPhoto, photos: taxonPhotos)
    }

    /// The whole taxa a `/v1/taxa/{id}` response gives in `ancestors` (each level's name, rank
    /// and common name, which the app's tree draws: a guide built from observation pages and
    /// taxa by id had its species and no named family or order), written as embedded copies of
    /// them (undated, as the API gives them, and not taxa-endpoint copies: any dated copy, and a
    /// search result or a by-id copy of the same date, outranks them); an unusable one is
    /// dropped and noted.
    private mutating func ancestors(of taxon: Fields, source: String) {
        guard let list = field({ () throws(RecordError) in try taxon.array("ancestors") }) else { return }
        for (index, element) in list.elements.enumerated() {
            let path = taxon.path.element("ancestors", index)
            do throws(RecordError) {
                guard element.isObject else { throw .wrongType(path.text, element, expected: "an object") }
                write(try self.taxon(Fields(element, path: path), seen: nil, from: .ancestor), source: source)
            } catch {
                drop(error, path.text)
            }
        }
    }

    mutating func write(_ taxon: TaxonParts, source: String) {
        let start = out.count
        let dataEnd = taxon.record.encode(into: &out, source: source)
        satellites.stash(
            from: &out, start: start, dataEnd: dataEnd, kind: .taxon, id: taxon.record.id, rank: (taxon.record.seen ?? Int64.min, 0),
            source: source)
        counts.taxa += 1
        if let photo = taxon.defaultPhoto { write(photo, source: source) }
        for photo in taxon.photos { write(photo, source: source) }
    }

    /// Reads a photo whose id is known; nil (noted) when it has no usable URL.
    private mutating func photo(
        _ photo: Fields, id: Int64, path: FieldPath, seen: Int64?, observation: Int64?, taxon: Int64?,
        context: PhotoRecord.Context, position: Int64?
    ) -> PhotoRecord? {
        let url: JSONText
        do throws(RecordError) {
            url = try Self.url(of: photo)
        } catch {
            drop(error, path.text)
            return nil
        }
        var record = PhotoRecord(id: id, context: context, url: url)
        if let dimensions = field({ () throws(RecordError) in try photo.object("original_dimensions") }) {
            do throws(RecordError) {
                let width = try dimensions.int("width")
                let height = try dimensions.int("height")
                // Zero (or below) and past the largest image are not sizes: unknown, as missing
                // ones are, so that dedupe fills them from another copy.
                func check(_ side: Int64?, _ key: StaticString) throws(RecordError) {
                    if let side, !(1...PhotoRecord.maximumSide).contains(side) {
                        throw RecordError(at: dimensions.name(key), "\(dimensions.name(key)) is \(side), expected 1 to \(PhotoRecord.maximumSide) pixels")
                    }
                }
                try check(width, "width")
                try check(height, "height")
                // One side without the other is no size (the export's reader says so too).
                if (width == nil) != (height == nil) {
                    let (given, missing): (StaticString, StaticString) = width == nil ? ("height", "width") : ("width", "height")
                    throw RecordError(at: dimensions.name(missing), "\(dimensions.path.text) has a \(given) and no \(missing)")
                }
                record.width = width
                record.height = height
            } catch {
                drop(error, dimensions.path.text)
            }
        }
        record.taxon = taxon
        record.position = position
        record.license = field { () throws(RecordError) in try photo.text("license_code") }
        record.attribution = field { () throws(RecordError) in try photo.text("attribution") }
        record.type = field { () throws(RecordError) in try photo.text("type") }
        // A hidden flag that is not a boolean is taken as hidden: a photo its owner may have
        // hidden never ships for a type its writer got wrong (`"hidden": "true"` shipped).
        do throws(RecordError) {
            record.hidden = try photo.bool("hidden")
        } catch {
            var taken = error
            taken.reason += "; taken as hidden (true), so that the photo does not ship"
            dropped.append(taken)
            record.hidden = true
        }
        record.attributionName = field { () throws(RecordError) in try photo.text("attribution_name") }
        record.seen = seen
        record.observation = observation
        return record
    }

    /// The photo's URL: `url` (the square tier), else, in Rails-era photos, the first of their
    /// tier URLs (`square_url`, `thumb_url`, `small_url`, `medium_url`, `large_url`,
    /// `original_url`); every other tier is derived from it as from `url` (see `PhotoURL`).
    /// A remote photo (Flickr, Wikimedia Commons) has no tiers to derive: it ships the one URL
    /// it is given, so a larger tier URL given with it is kept instead of the 75 px square:
    /// `medium_url` (500 px) first, which every v1 copy of a remote photo carries, so that its
    /// copies agree (a copy that also gives `large_url` is no conflict); else the largest other.
    private static func url(of photo: Fields) throws(RecordError) -> JSONText {
        var found = try photo.text("url")
        if found == nil {
            for key: StaticString in ["square_url", "thumb_url", "small_url", "medium_url", "large_url", "original_url"] {
                if let url = try photo.text(key) {
                    found = url
                    break
                }
            }
        }
        guard let url = found else { throw .missing(photo.name("url")) }
        guard !PhotoURL.isHosted(url) else { return url }
        for key: StaticString in ["medium_url", "original_url", "large_url", "small_url", "thumb_url"] {
            if let larger = try? photo.text(key), !PhotoURL.isHosted(larger), Self.isHTTPS(larger) { return larger }
        }
        return url
    }

    /// Whether `url` starts `https://` (in any case), as a remote photo that ships must.
    private static func isHTTPS(_ url: JSONText) -> Bool {
        let bytes = UnsafeRawBufferPointer(start: url.start, count: url.count)
        return bytes.count > 8 && zip(bytes.prefix(8), "https://".utf8).allSatisfy { ($0 | ($0 >= 0x41 && $0 <= 0x5A ? 0x20 : 0)) == $1 }
    }

    private mutating func write(_ photo: PhotoRecord, source: String) {
        let start = out.count
        let dataEnd = photo.encode(into: &out, source: source)
        if photo.context != .observation {
            // Taxon photos repeat in every observation of the taxon: a satellite.
            satellites.stash(
                from: &out, start: start, dataEnd: dataEnd, kind: .photo, id: photo.id,
                rank: (photo.seen ?? Int64.min, photo.observation ?? 0), source: source)
        }
        counts.photos += 1
    }

    /// `location` ("lat,lng" string or [lat, lng]) first, then GeoJSON `[lng, lat]` (numbers or
    /// decimal strings). Each must be finite and within ±90 / ±180; an unusable one is dropped
    /// (noted) and the next one is tried.
    private mutating func coordinates(_ obs: Fields) -> (Double, Double)? {
        if let location = obs.value("location") {
            var pair: (Double, Double)? = nil
            if let text = location.text {
                let bytes = text.bytes
                if let comma = bytes.firstIndex(of: UInt8(ascii: ",")),
                   let lat = Fields.decimal(UnsafeRawBufferPointer(rebasing: bytes[..<comma])),
                   let lng = Fields.decimal(UnsafeRawBufferPointer(rebasing: bytes[(comma + 1)...])),
                   abs(lat) <= 90, abs(lng) <= 180
                {
                    pair = (lat, lng)
                } else {
                    drop(RecordError(at: "location", "location \"\(text.string)\" is not \"lat,lng\" within ±90, ±180"), "location")
                }
            } else if location.isArray {
                let values = Array(location.elements)
                if values.count == 2, let lat = Fields.degrees(values[0], limit: 90), let lng = Fields.degrees(values[1], limit: 180) {
                    pair = (lat, lng)
                } else {
                    drop(RecordError(at: "location", "location is an array but not [lat, lng] within ±90, ±180"), "location")
                }
            } else {
                drop(.wrongType("location", location, expected: "a \"lat,lng\" string"), "location")
            }
            if let pair { return pair }
        }
        guard let geojson = field({ () throws(RecordError) in try obs.object("geojson") }),
              let coordinates = field({ () throws(RecordError) in try geojson.array("coordinates") })
        else { return nil }
        let values = Array(coordinates.elements)
        guard values.count == 2, let lng = Fields.degrees(values[0], limit: 180), let lat = Fields.degrees(values[1], limit: 90) else {
            drop(RecordError(at: "geojson.coordinates", "geojson.coordinates is not [lng, lat] within ±180, ±90"), "geojson.coordinates")
            return nil
        }
        return (lat, lng)
    }
}

/// How many normalized records one input produced.
public struct RecordCounts: Sendable, Equatable {
    public var observations = 0
    public var taxa = 0
    public var users = 0
    public var photos = 0
    /// Of the observations, those from API pages without their uuid (none given, or not one),
    /// which cannot merge with an export copy of the same observation.
    public var observationsWithoutUUID = 0
    /// Of the observations, those from API pages that list no photos (neither
    /// `observation_photos` nor `photos`: `ObservationRecord.photosListed`).
    public var observationsWithoutPhotoLists = 0
    /// Of the observations from API pages, those that leave out each of
    /// `ObservationRecord.fillableFromOtherCopies` (its key absent), in that order.
    public var observationsLeavingOut = [Int](repeating: 0, count: ObservationRecord.fillableFromOtherCopies.count)

    public static func += (lhs: inout RecordCounts, rhs: RecordCounts) {
        lhs.observations += rhs.observations
        for index in lhs.observationsLeavingOut.indices { lhs.observationsLeavingOut[index] += rhs.observationsLeavingOut[index] }
        lhs.observationsWithoutUUID += rhs.observationsWithoutUUID
        lhs.observationsWithoutPhotoLists += rhs.observationsWithoutPhotoLists
        lhs.taxa += rhs.taxa
        lhs.users += rhs.users
        lhs.photos += rhs.photos
    }
}
