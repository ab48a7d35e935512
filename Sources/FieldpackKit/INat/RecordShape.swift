/// What one iNaturalist result is, told by its fields: the one definition that ingest uses to
/// dispatch a record and to decide whether a file holds iNaturalist data at all.
enum RecordShape {
    /// An observation (API v1/v2, or a Rails-era `/observations/<id>.json` object).
    case observation
    /// A taxon (`/v1/taxa`, or a Rails-era `/taxa/<id>.json` object).
    case taxon
    /// An element of a `/v1/observations/species_counts` page: `{"count": 12, "taxon": {…}}`.
    case speciesCount

    /// The shape of `value`, or nil when it is none of them (not an object, or an object
    /// without the fields of any).
    static func of(_ value: JSONValue) -> RecordShape? {
        guard value.isObject else { return nil }
        if value["quality_grade"] != nil || value["observed_on"] != nil || value["user"] != nil
            || value["photos"] != nil || value["observation_photos"] != nil
        {
            return .observation
        }
        if value["rank"] != nil || value["rank_level"] != nil || value["taxon_photos"] != nil { return .taxon }
        // A species count has no id of its own: its identity is its taxon's.
        if value["id"] == nil, value["count"] != nil, value["taxon"] != nil { return .speciesCount }
        return nil
    }

    /// A value of no shape, for an error: its type, an object's first keys, and what it may be.
    static func describe(_ value: JSONValue) -> String {
        guard value.isObject else {
            var text = "the first record is \(RecordError.describe(value.kind))"
            var elements = value.elements.makeIterator()
            if value.isArray, let tag = elements.next()?.text, RecordKind(tag: tag) != nil {
                text += "; this looks like a fieldpack records file (give it to fieldpack-dedupe)"
            }
            return text
        }
        var keys: [String] = []
        var count = 0
        for (key, _) in value.members {
            if keys.count < 6 { keys.append("\"" + key.string + "\"") }
            count += 1
        }
        var text = count == 0 ? "the first record is an empty object"
            : "the first record is an object with keys \(keys.joined(separator: ", "))\(count > keys.count ? ", …" : "")"
        if value["article_body"] != nil || (value["identifier"] != nil && value["is_part_of"] != nil) {
            text += "; this looks like a Wikipedia article (give it to fieldpack-wiki)"
        } else if value["type"]?.text?.equals("FeatureCollection") ?? false || value["type"]?.text?.equals("Feature") ?? false {
            text += "; this looks like GeoJSON"
        } else if value["error"] != nil || value["errors"] != nil {
            text += "; this looks like an API error response"
        } else if ObservationUUID(value["uuid"]?.text) != nil {
            // `/v2/observations` gives the uuid alone unless `fields` names more.
            text += "; this looks like an API v2 response, which gives only the fields its request names: "
                + "request fields=all, or at least id, uuid, quality_grade, observed_on, user, taxon, location, observation_photos and photos"
        }
        return text
    }

    /// Why a value of no shape is refused.
    static let unrecognized = "record is neither an observation nor a taxon (no quality_grade, user, photos or rank)"

    /// Why `value`, of no shape, is refused: a species count's element that lost its count is
    /// said to be one (it was "neither an observation nor a taxon", although its taxon has a
    /// rank). Still of no shape, so a file of such objects is refused as not iNaturalist's (an
    /// object with a `taxon` and no `count` is also, say, a computer-vision result).
    static func unrecognized(_ value: JSONValue) -> String {
        if value.isObject, value["id"] == nil, let taxon = value["taxon"], taxon.isObject, taxon["id"] != nil {
            return "record has a taxon and no id of its own, as a species count has, but no count: rejected as a species count without its count"
        }
        return unrecognized
    }
}
