import Dispatch

/// Loads deduped records into the bundle tables: a producer thread parses lines into
/// `RecordBatch`es (deciding which photos ship, see `PhotoShippingLoad`) while this thread inserts
/// them with reused prepared statements. The caller wraps the load in one transaction. Records
/// arrive sorted by kind and id, so rows go in key order.
final class RecordLoader {
    let database: Database
    private var statements: [RecordBatch.Table: Statement] = [:]
    private(set) var records = 0
    private(set) var newestSeen: Int64? = nil
    private(set) var report: CostReport? = nil
    private var inputs: [(path: String, bytes: Int64, sha256: String)] = []

    init(database: Database) throws {
        self.database = database
        statements[.users] = try database.prepare("INSERT INTO users (id, login, name) VALUES (?, ?, ?)")
        statements[.photos] = try database.prepare("""
            INSERT INTO photos (id, url, license_code, attribution, width, height, photo_type, remote, credit,
                                url_size_start, url_size_length)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        statements[.taxa] = try database.prepare("""
            INSERT INTO taxa (id, name, rank, rank_level, ancestry, iconic_taxon_name, preferred_common_name,
                              wikipedia_url, is_active, article_id)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        statements[.observations] = try database.prepare("""
            INSERT INTO observations (id, uuid, user_id, taxon_id, quality_grade, observed_on, time_observed_at,
                                      latitude, longitude, positional_accuracy, geoprivacy, obscured, place_guess,
                                      license_code, created_at, updated_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        statements[.observationPhotos] = try database.prepare(
            "INSERT INTO observation_photos (observation_id, photo_id, position) VALUES (?, ?, ?)")
        statements[.taxonPhotos] = try database.prepare(
            "INSERT INTO taxon_photos (taxon_id, position, photo_id) VALUES (?, ?, ?)")
        statements[.taxonPhotoChoice] = try database.prepare(
            "UPDATE taxa SET default_photo_id = ?, hero_photo_id = ? WHERE id = ?")
        statements[.displayTargets] = try database.prepare("""
            INSERT INTO display_targets (id, name, width_points, height_points, scale, mode, box_width, box_height)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        statements[.sizeCosts] = try database.prepare("""
            INSERT INTO size_costs (remote, original_width, original_height, target_id, tier, served_width, served_height,
                                    display_width, display_height, decoded_bytes, transient_bytes, download_bytes,
                                    upscaled, assumed_dimensions)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
    }

    /// - Parameter articles: each taxon's article id (from `ArticleLoader`).
    func load(path: String, policy: ShippingPolicy, measured: MeasuredSizes?, articles: [Int64: Int64]) throws {
        let channel = BatchChannel(capacity: 3)
        _ = try ReadableFile(path: path)  // fail here, with the path, if it cannot be opened
        DispatchQueue.global().async {
            do {
                try RecordParser(path: path, policy: policy, measured: measured, articles: articles).run(into: channel)
            } catch {
                channel.fail(error)
            }
        }
        while let batch = try channel.receive() {
            for row in batch.rows {
                let statement = statements[row.table]!
                do {
                    try batch.bind(row, to: statement)
                    try statement.run()
                } catch let error as SQLiteError {
                    throw FieldpackError(path: path, "\(error.description)")
                }
            }
            records += batch.records
            if let seen = batch.newestSeen { newestSeen = max(newestSeen ?? seen, seen) }
            inputs += batch.inputs
            if let report = batch.report { self.report = report }
        }
    }

    /// The input files as a JSON array sorted by path: `[{"path","bytes","sha256"}]`.
    func inputsJSON() -> String {
        let entries = inputs.map { Manifest.FileEntry(path: $0.path, bytes: Int($0.bytes), sha256: $0.sha256) }
        var writer = JSONWriter()
        Manifest.FileEntry.write(
            entries.sorted { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }, into: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }
}

/// The producer half of the load: deduped JSON Lines → row batches, in file order.
struct RecordParser {
    let path: String
    let policy: ShippingPolicy
    let measured: MeasuredSizes?
    let articles: [Int64: Int64]

    func run(into channel: BatchChannel) throws {
        let reader = LineReader(source: try RawFileSource(path: path))
        let parser = JSONParser()
        var columns = JSONColumns()
        var references = ReferenceCheck(path: path)
        var shipping = PhotoShippingLoad(policy: policy, measured: measured)
        let stream = BatchStream(channel: channel)
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            do {
                guard columns.load(try parser.parse(line.bytes)) else {
                    throw FieldpackError(path: path, line: line.number, "not a deduped record (a JSON array)")
                }
            } catch let error as JSONSyntaxError {
                throw FieldpackError(path: path, line: line.number, "not a deduped records line: \(error.message)")
            }
            guard let kind = columns.text(0) else {
                throw FieldpackError(path: path, line: line.number, "record has no kind")
            }
            if kind.equals("obs") {
                try observation(columns, into: stream, references: &references, shipping: &shipping, line: line.number)
            } else if kind.equals("photo") {
                try photo(columns, into: stream, references: &references, shipping: &shipping, line: line.number)
            } else if kind.equals("taxon") {
                try taxon(columns, into: stream, references: &references, shipping: &shipping, line: line.number)
            } else if kind.equals("user") {
                typealias C = RecordColumns.User
                let id = try requiredID(columns, line: line.number)
                try references.add(.users, id: id, line: line.number)
                let batch = stream.begin(.users)
                batch.int(id)
                batch.text(columns.text(C.login))
                batch.text(columns.text(C.name))
                shipping.user(id, name: columns.string(C.name) ?? columns.string(C.login))
            } else if kind.equals("input") {
                // The deduped input record: ["input", path, bytes, sha256, format].
                stream.batch.inputs.append((columns.string(1) ?? "", columns.int64(2) ?? 0, columns.string(3) ?? ""))
            } else {
                throw FieldpackError(path: path, line: line.number, "unknown record kind \"\(kind.string)\"")
            }
            stream.batch.records += 1
        }
        try shipping.finish(references: references, into: stream)
        stream.finish(report: shipping.report)
    }

    private func photo(
        _ record: JSONColumns, into stream: BatchStream, references: inout ReferenceCheck,
        shipping: inout PhotoShippingLoad, line: Int
    ) throws {
        let id = try requiredID(record, line: line)
        try references.add(.photos, id: id, line: line)
        try shipping.photo(record, id: id, references: references, into: stream)
    }

    private func observation(
        _ record: JSONColumns, into stream: BatchStream, references: inout ReferenceCheck,
        shipping: inout PhotoShippingLoad, line: Int
    ) throws {
        typealias C = RecordColumns.Observation
        let id = try requiredID(record, line: line)
        try references.add(.observations, id: id, line: line)
        try references.require(.users, record.int64(C.user), from: "observations.user_id", line: line)
        try references.require(.taxa, record.int64(C.taxon), from: "observations.taxon_id", line: line)
        let batch = stream.begin(.observations)
        if let seen = record.int64(C.seen) { batch.newestSeen = max(batch.newestSeen ?? seen, seen) }
        batch.int(id)
        batch.text(record.text(C.uuid))
        batch.int(record.int64(C.user))
        batch.int(record.int64(C.taxon))
        batch.text(record.text(C.qualityGrade))
        batch.text(record.text(C.observedOn))
        batch.text(record.text(C.timeObservedAt))
        batch.real(record.double(C.latitude))
        batch.real(record.double(C.longitude))
        batch.int(record.int64(C.positionalAccuracy))
        batch.text(record.text(C.geoprivacy))
        batch.bool(record.bool(C.obscured))
        batch.text(record.text(C.placeGuess))
        batch.text(record.text(C.license))
        batch.text(record.text(C.createdAt))
        batch.text(record.text(C.updatedAt))
        let researchGrade = record.text(C.qualityGrade)?.equals("research") ?? false
        shipping.observation(
            id, user: record.int64(C.user), taxon: record.int64(C.taxon),
            researchGradeUpdated: researchGrade ? (record.int64(C.seen) ?? Int64.min) : nil)
        guard let links = record[C.photos] else { return }
        for link in links.elements {
            var pair = link.elements.makeIterator()
            guard let photo = pair.next()?.int64, let position = pair.next()?.int64 else {
                throw FieldpackError(path: path, line: line, "photos must hold [photo id, position] pairs")
            }
            shipping.link(observation: id, photo: photo, position: position, line: line)
        }
    }

    private func taxon(
        _ record: JSONColumns, into stream: BatchStream, references: inout ReferenceCheck,
        shipping: inout PhotoShippingLoad, line: Int
    ) throws {
        typealias C = RecordColumns.Taxon
        let id = try requiredID(record, line: line)
        try references.add(.taxa, id: id, line: line)
        let batch = stream.begin(.taxa)
        batch.int(id)
        batch.text(record.text(C.name))
        batch.text(record.text(C.rank))
        batch.real(record.double(C.rankLevel))
        batch.text(record.text(C.ancestry))
        batch.text(record.text(C.iconicTaxonName))
        batch.text(record.text(C.preferredCommonName))
        batch.text(record.text(C.wikipediaURL))
        batch.bool(record.bool(C.isActive))
        batch.int(articles[id])
        // The default photo is set once it is known to ship.
        if let photo = record.int64(C.defaultPhoto) { shipping.defaultPhoto(taxon: id, photo: photo, line: line) }
        guard let photos = record[C.photos], photos.isArray else { return }
        for (position, photo) in photos.elements.enumerated() {
            guard let photoID = photo.int64 else {
                throw FieldpackError(path: path, line: line, "photos must hold photo ids")
            }
            shipping.taxonPhoto(taxon: id, position: Int64(position), photo: photoID, line: line)
        }
    }

    private func requiredID(_ record: JSONColumns, line: Int) throws -> Int64 {
        guard let id = record.int64(1) else { throw FieldpackError(path: path, line: line, "record has no integer id") }
        return id
    }
}
