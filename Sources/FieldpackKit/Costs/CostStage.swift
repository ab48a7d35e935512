/// The costs stage: deduped records in; for every photo the shipping decision, tier URLs, credit
/// and per-target costs out (`photos.jsonl`), plus the `costs-report.json` aggregates.
///
/// Credits need the photographer: a photo's own `attribution_name` if the API gave one, else, for
/// an observation photo, the observer's name or login. Photos arrive before users and
/// observations in the deduped file, so a first pass reads who observed what.
public struct CostStage {
    public struct Options: Sendable {
        public var input: String
        public var output: String
        public var report: String
        public var policy: ShippingPolicy

        public init(input: String, output: String, report: String, policy: ShippingPolicy) {
            self.input = input
            self.output = output
            self.report = report
            self.policy = policy
        }
    }

    public let options: Options

    public init(options: Options) {
        self.options = options
    }

    @discardableResult
    public func run() throws -> CostReport {
        let names = try observerNames()
        let output = try AtomicOutput(path: options.output)
        var report = CostReport(policy: options.policy)
        var writer = JSONWriter(capacity: 1 << 20)
        var columns = JSONColumns()
        let parser = JSONParser()
        let urls = PhotoURLParser()
        try eachRecord(parser: parser) { kind, record, line in
            guard kind == .photo else { return }
            _ = columns.load(record)
            typealias C = RecordColumns.Photo
            guard let id = columns.int64(C.id), let url = columns.string(C.url) else {
                throw FieldpackError(path: options.input, line: line, "photo record without an id and a URL")
            }
            var name = columns.string(C.attributionName)
            if name == nil, columns.text(C.context)?.equals("obs") ?? false, let observation = columns.int64(C.observation) {
                name = names.name(ofObserverOf: observation)
            }
            if name == nil, let observation = names.observation(linking: id) {
                // A taxon photo that is also an observation's photo: its observer took it.
                name = names.name(ofObserverOf: observation)
            }
            var original: PixelSize? = nil
            if let width = columns.int64(C.width), let height = columns.int64(C.height) {
                original = PixelSize(width: Int(width), height: Int(height))
            }
            let photo = PhotoShipping.decide(
                id: id, source: urls.classify(url), licenseCode: columns.string(C.license), attribution: columns.string(C.attribution),
                name: name, original: original, policy: options.policy)
            report.add(photo)
            Self.write(photo, into: &writer)
            if writer.count > 1 << 20 {
                try output.write(writer.buffer.bytes)
                writer.reset()
            }
        }
        try output.write(writer.buffer.bytes)
        try AtomicOutput.write(report.json, to: options.report)
        try output.commit()
        return report
    }

    /// `["photo", id, ships, exclusion, license, credit, attribution, source, url, width, height,
    /// [[target, tier, served w, h, display w, h, decoded, transient, download, upscaled, assumed], …]]`,
    /// where `url` is a template with `{size}` for iNaturalist photos, the URL itself for remote ones.
    static func write(_ photo: PhotoShipping, into writer: inout JSONWriter) {
        writer.beginArray()
        writer.string("photo")
        writer.int(photo.id)
        writer.bool(photo.ships)
        writer.string(photo.exclusion?.key)
        writer.string(photo.license?.rawValue)
        writer.string(photo.credit)
        writer.string(photo.originalAttribution)
        switch photo.source {
        case .inaturalist(let url):
            writer.string("inaturalist")
            writer.string(parts: url.pieces(size: PhotoURL.sizePlaceholder))
        case .remote(let url):
            writer.string("remote")
            writer.string(url)
        case .placeholder, .unusable:
            writer.string("none")
            writer.null()
        }
        writer.int(photo.original.map { Int64($0.width) })
        writer.int(photo.original.map { Int64($0.height) })
        writer.beginArray()
        for cost in photo.costs {
            writer.beginArray()
            writer.string(cost.target)
            writer.string(cost.tier.rawValue)
            writer.int(cost.served.width); writer.int(cost.served.height)
            writer.int(cost.display.width); writer.int(cost.display.height)
            writer.int(cost.decodedBytes); writer.int(cost.transientBytes); writer.int(cost.downloadBytes)
            writer.bool(cost.upscaled); writer.bool(cost.assumedDimensions)
            writer.endArray()
        }
        writer.endArray()
        writer.endArray()
        writer.newline()
    }

    /// Who observed each observation, by name (or login), and which observation shows each photo.
    struct ObserverNames {
        var observations: [Int64] = []
        var observers: [Int64] = []
        var users: [Int64: String] = [:]
        /// (photo, observation) links, sorted; a photo in several observations keeps the highest id.
        var links: [(photo: Int64, observation: Int64)] = []

        func observation(linking photo: Int64) -> Int64? {
            let low = links.partitionPoint { $0.photo < photo }
            return low < links.count && links[low].photo == photo ? links[low].observation : nil
        }

        func name(ofObserverOf observation: Int64) -> String? {
            let low = observations.partitionPoint { $0 < observation }
            guard low < observations.count, observations[low] == observation, observers[low] != 0 else { return nil }
            return users[observers[low]]
        }
    }

    private func observerNames() throws -> ObserverNames {
        var names = ObserverNames()
        var columns = JSONColumns()
        try eachRecord(parser: JSONParser()) { kind, record, _ in
            if kind == .user {
                _ = columns.load(record)
                typealias C = RecordColumns.User
                if let id = columns.int64(C.id), let name = columns.string(C.name) ?? columns.string(C.login) {
                    names.users[id] = name
                }
            } else if kind == .observation {
                _ = columns.load(record)
                typealias C = RecordColumns.Observation
                if let id = columns.int64(C.id) {
                    if let last = names.observations.last, last >= id {
                        throw FieldpackError(path: options.input, "observations are not sorted by id (\(id) after \(last))")
                    }
                    names.observations.append(id)
                    names.observers.append(columns.int64(C.user) ?? 0)
                    if let links = columns[C.photos] {
                        for link in links.elements {
                            var pair = link.elements.makeIterator()
                            if let photo = pair.next()?.int64 { names.links.append((photo, id)) }
                        }
                    }
                }
            }
        }
        // By photo; for a photo in several observations the highest observation id comes first.
        names.links.sort { $0.photo != $1.photo ? $0.photo < $1.photo : $0.observation > $1.observation }
        return names
    }

    /// Each photo, user and observation record with its kind and line number.
    private func eachRecord(parser: JSONParser, _ body: (Dedupe.Kind, JSONValue, Int) throws -> Void) throws {
        let reader = LineReader(source: try RawFileSource(path: options.input))
        while let line = try reader.next() {
            if line.bytes.isEmpty { continue }
            // The kind is the first string: a cheap look before a full parse.
            guard let kind = Dedupe.Kind.of(line.bytes) else {
                throw FieldpackError(path: options.input, line: line.number, "not a deduped record")
            }
            guard kind == .photo || kind == .user || kind == .observation else { continue }
            let record: JSONValue
            do {
                record = try parser.parse(line.bytes)
            } catch {
                throw FieldpackError(path: options.input, line: line.number, "not valid JSON: \(error)")
            }
            try body(kind, record, line.number)
        }
    }
}
