/// The records files (`inat/records.jsonl`, `dedupe/records.jsonl`) hold one JSON array per
/// line, its first element naming the kind and the rest positional, to keep gigabytes of
/// intermediate data free of repeated key names. The ingest file ends each record with its
/// source (`"<input index>#<result>"` or `"<input index>:<line>"`); the deduped file drops it.
///
/// ```
/// ["obs", id, uuid, user, taxon, quality_grade, observed_on, time_observed_at, created_at,
///         updated_at, lat, lng, positional_accuracy, geoprivacy, obscured, place_guess,
///         license, [[photo, position], …], seen, source]
/// ["user", id, login, name, seen, source]
/// ["taxon", id, from ("taxa"|"obs"), name, rank, rank_level, ancestry, iconic_taxon_name,
///         preferred_common_name, wikipedia_url, is_active, default_photo, [photo, …] | null,
///         seen, source]
/// ["photo", id, taxon, ctx ("obs"|"default"|"taxon"), position, url, license, attribution,
///         width, height, type, hidden, attribution_name, seen, observation, source]
/// ["input", index, path, bytes, sha256, format, records, rejected]
/// ```
/// `seen` is the `updated_at` (Unix ms) of the record or of the observation it came in.
public enum RecordColumns {
    public enum Observation {
        public static let id = 1, uuid = 2, user = 3, taxon = 4, qualityGrade = 5, observedOn = 6
        public static let timeObservedAt = 7, createdAt = 8, updatedAt = 9, latitude = 10, longitude = 11
        public static let positionalAccuracy = 12, geoprivacy = 13, obscured = 14, placeGuess = 15
        public static let license = 16, photos = 17, seen = 18
    }

    public enum User {
        public static let id = 1, login = 2, name = 3, seen = 4
    }

    public enum Taxon {
        public static let id = 1, from = 2, name = 3, rank = 4, rankLevel = 5, ancestry = 6, iconicTaxonName = 7
        public static let preferredCommonName = 8, wikipediaURL = 9, isActive = 10, defaultPhoto = 11, photos = 12
        public static let seen = 13
    }

    public enum Photo {
        public static let id = 1, taxon = 2, context = 3, position = 4, url = 5, license = 6, attribution = 7
        public static let width = 8, height = 9, type = 10, hidden = 11, attributionName = 12, seen = 13
        public static let observation = 14
    }

    public enum Input {
        public static let index = 1, path = 2, bytes = 3, sha256 = 4, format = 5
    }
}

/// The elements of one positional record, loaded once so each column is a direct lookup.
/// Reuse one per thread: it keeps its storage between records.
public struct JSONColumns {
    private var values: [JSONValue] = []

    public init() {
        values.reserveCapacity(24)
    }

    /// Loads an array's elements; false if `record` is not an array.
    public mutating func load(_ record: JSONValue) -> Bool {
        values.removeAll(keepingCapacity: true)
        guard record.isArray else { return false }
        for value in record.elements { values.append(value) }
        return true
    }

    public var count: Int { values.count }

    /// The value at `index`, nil if absent or null.
    public subscript(index: Int) -> JSONValue? {
        guard index < values.count, !values[index].isNull else { return nil }
        return values[index]
    }

    public func int64(_ index: Int) -> Int64? { self[index]?.int64 }
    public func double(_ index: Int) -> Double? { self[index]?.double }
    public func bool(_ index: Int) -> Bool? { self[index]?.bool }
    public func text(_ index: Int) -> JSONText? { self[index]?.text }
    public func string(_ index: Int) -> String? { self[index]?.string }
}
