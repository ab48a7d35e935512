/// Inserts deduped records into the bundle tables with reused prepared statements; the caller
/// wraps it in one transaction. Records arrive sorted by kind and id, so rows go in key order.
final class RecordLoader {
    let database: Database
    private let insertUser: Statement
    private let insertPhoto: Statement
    private let insertTaxon: Statement
    private let insertObservation: Statement
    private let insertObservationPhoto: Statement
    private let insertTaxonPhoto: Statement
    private(set) var records = 0
    private(set) var newestSeen: Int64? = nil
    private var inputs: [(path: String, bytes: Int64, sha256: String)] = []

    init(database: Database) throws {
        self.database = database
        insertUser = try database.prepare("INSERT INTO users (id, login, name) VALUES (?, ?, ?)")
        insertPhoto = try database.prepare(
            "INSERT INTO photos (id, url, license_code, attribution, width, height, photo_type) VALUES (?, ?, ?, ?, ?, ?, ?)")
        insertTaxon = try database.prepare("""
            INSERT INTO taxa (id, name, rank, rank_level, ancestry, iconic_taxon_name, preferred_common_name,
                              wikipedia_url, is_active, default_photo_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertObservation = try database.prepare("""
            INSERT INTO observations (id, uuid, user_id, taxon_id, quality_grade, observed_on, time_observed_at,
                                      latitude, longitude, positional_accuracy, geoprivacy, obscured, place_guess,
                                      license_code, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertObservationPhoto = try database.prepare(
            "INSERT INTO observation_photos (observation_id, photo_id, position) VALUES (?, ?, ?)")
        insertTaxonPhoto = try database.prepare("INSERT INTO taxon_photos (taxon_id, position, photo_id) VALUES (?, ?, ?)")
    }

    func load(path: String) throws {
        let reader = LineReader(source: try RawFileSource(path: path))
        let parser = JSONParser()
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            let record: JSONValue
            do {
                record = try parser.parse(line.bytes)
            } catch {
                throw FieldpackError(path: path, line: line.number, "not a deduped records line: \(error)")
            }
            guard let kind = record["k"]?.text else {
                throw FieldpackError(path: path, line: line.number, "record has no kind \"k\"")
            }
            do {
                if kind.equals("obs") {
                    try observation(record)
                } else if kind.equals("photo") {
                    try photo(record)
                } else if kind.equals("taxon") {
                    try taxon(record)
                } else if kind.equals("user") {
                    try user(record)
                } else if kind.equals("input") {
                    inputs.append((record["path"]?.string ?? "", record["bytes"]?.int64 ?? 0, record["sha256"]?.string ?? ""))
                } else {
                    throw FieldpackError(path: path, line: line.number, "unknown record kind \"\(kind.string)\"")
                }
            } catch let error as SQLiteError {
                throw FieldpackError(path: path, line: line.number, error.description)
            }
            records += 1
        }
    }

    /// The input files as a JSON array sorted by path: `[{"path","bytes","sha256"}]`.
    func inputsJSON() -> String {
        var writer = JSONWriter()
        writer.beginArray()
        for input in inputs.sorted(by: { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }) {
            writer.beginObject()
            writer.key("path"); writer.string(input.path)
            writer.key("bytes"); writer.int(input.bytes)
            writer.key("sha256"); writer.string(input.sha256)
            writer.endObject()
        }
        writer.endArray()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    private func observation(_ record: JSONValue) throws {
        let id = try requiredID(record)
        if let seen = record["seen"]?.int64 { newestSeen = max(newestSeen ?? seen, seen) }
        let s = insertObservation
        try s.bind(id, at: 1)
        try s.bind(record["uuid"]?.text, at: 2)
        try s.bind(record["user"]?.int64, at: 3)
        try s.bind(record["taxon"]?.int64, at: 4)
        try s.bind(record["quality_grade"]?.text, at: 5)
        try s.bind(record["observed_on"]?.text, at: 6)
        try s.bind(record["time_observed_at"]?.text, at: 7)
        try s.bind(record["lat"]?.double, at: 8)
        try s.bind(record["lng"]?.double, at: 9)
        try s.bind(record["positional_accuracy"]?.int64, at: 10)
        try s.bind(record["geoprivacy"]?.text, at: 11)
        try s.bind(record["obscured"]?.bool.map { Int64($0 ? 1 : 0) }, at: 12)
        try s.bind(record["place_guess"]?.text, at: 13)
        try s.bind(record["license"]?.text, at: 14)
        try s.bind(record["created_at"]?.text, at: 15)
        try s.bind(record["updated_at"]?.text, at: 16)
        try s.run()
        if let links = record["photos"] {
            for link in links.elements {
                var pair = link.elements.makeIterator()
                guard let photo = pair.next()?.int64, let position = pair.next()?.int64 else { continue }
                try insertObservationPhoto.bind(id, at: 1)
                try insertObservationPhoto.bind(photo, at: 2)
                try insertObservationPhoto.bind(position, at: 3)
                try insertObservationPhoto.run()
            }
        }
    }

    private func photo(_ record: JSONValue) throws {
        let s = insertPhoto
        try s.bind(try requiredID(record), at: 1)
        try s.bind(record["url"]?.text, at: 2)
        try s.bind(record["license"]?.text, at: 3)
        try s.bind(record["attribution"]?.text, at: 4)
        try s.bind(record["width"]?.int64, at: 5)
        try s.bind(record["height"]?.int64, at: 6)
        try s.bind(record["type"]?.text, at: 7)
        try s.run()
    }

    private func taxon(_ record: JSONValue) throws {
        let id = try requiredID(record)
        let s = insertTaxon
        try s.bind(id, at: 1)
        try s.bind(record["name"]?.text, at: 2)
        try s.bind(record["rank"]?.text, at: 3)
        try s.bind(record["rank_level"]?.double, at: 4)
        try s.bind(record["ancestry"]?.text, at: 5)
        try s.bind(record["iconic_taxon_name"]?.text, at: 6)
        try s.bind(record["preferred_common_name"]?.text, at: 7)
        try s.bind(record["wikipedia_url"]?.text, at: 8)
        try s.bind(record["is_active"]?.bool.map { Int64($0 ? 1 : 0) }, at: 9)
        try s.bind(record["default_photo"]?.int64, at: 10)
        try s.run()
        if let photos = record["photos"], photos.isArray {
            for (position, photo) in photos.elements.enumerated() {
                guard let photoID = photo.int64 else { continue }
                try insertTaxonPhoto.bind(id, at: 1)
                try insertTaxonPhoto.bind(Int64(position), at: 2)
                try insertTaxonPhoto.bind(photoID, at: 3)
                try insertTaxonPhoto.run()
            }
        }
    }

    private func user(_ record: JSONValue) throws {
        try insertUser.bind(try requiredID(record), at: 1)
        try insertUser.bind(record["login"]?.text, at: 2)
        try insertUser.bind(record["name"]?.text, at: 3)
        try insertUser.run()
    }

    private func requiredID(_ record: JSONValue) throws -> Int64 {
        guard let id = record["id"]?.int64 else { throw FieldpackError("record has no integer id") }
        return id
    }
}
