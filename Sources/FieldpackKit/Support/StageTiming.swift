/// One stage's run figures (time, records, bytes, peak memory), as `StageReport` prints them:
/// written to `<folder>/<stage>.json` for the run report, or by a shard of a sharded stage to
/// `<folder>/<stage>.shard-I-of-N.json`, so every shard's figures are kept. Never part of a
/// bundle: they differ from run to run.
public struct StageTiming: Sendable, Equatable {
    public var stage: String
    /// The shard whose figures these are; nil for a whole (unsharded) run.
    public var shard: Shard?
    public var seconds: Double
    public var records: Int?
    public var bytes: Int?
    public var peakResidentBytes: Int
    /// When the run ended (Unix seconds, UTC), for the run report to date its figures; nil in a
    /// timing written before 2026-12-07.
    public var finishedAt: Int64?

    public init(
        stage: String, shard: Shard? = nil, seconds: Double, records: Int?, bytes: Int?, peakResidentBytes: Int, finishedAt: Int64? = nil
    ) {
        self.stage = stage
        self.finishedAt = finishedAt
        self.shard = shard.flatMap { $0.isWhole ? nil : $0 }
        self.seconds = seconds
        self.records = records
        self.bytes = bytes
        self.peakResidentBytes = peakResidentBytes
    }

    /// `<stage>.json`, or `<stage>.shard-I-of-N.json` for a shard.
    public var fileName: String {
        shard.map { "\(stage).shard-\($0.index)-of-\($0.count).json" } ?? "\(stage).json"
    }

    public var json: String {
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("stage"); writer.string(stage)
        if let shard { writer.key("shard"); writer.string(shard.description) }
        writer.key("seconds"); writer.double(seconds)
        writer.key("records"); writer.int(records.map(Int64.init))
        writer.key("bytes"); writer.int(bytes.map(Int64.init))
        writer.key("peak_rss_bytes"); writer.int(peakResidentBytes)
        if let finishedAt { writer.key("finished_at"); writer.string(Timestamp.iso8601(seconds: finishedAt)) }
        writer.endObject()
        writer.newline()
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    public func write(into folder: String) throws {
        try FileSystem.makeDirectories(folder)
        // A stage killed while writing its timing leaves a temp file that its own rerun may
        // never come to (its outputs were already in place): any stage's write clears it.
        Leftovers.removeStale(inFolder: folder)
        // A run with another shard count (or unsharded) replaces this stage's earlier figures;
        // the other shards of this count are this run's (or still its outputs').
        let ownPrefix = shard == nil ? "\(stage).json" : "\(stage).shard-"
        let ownSuffix = shard.map { "-of-\($0.count).json" } ?? ""
        for name in try FileSystem.list(folder) where Self.isTiming(name, of: stage)
            && !(name.hasPrefix(ownPrefix) && name.hasSuffix(ownSuffix)) {
            FileSystem.remove("\(folder)/\(name)")
        }
        try AtomicOutput.write(json, to: "\(folder)/\(fileName)")
    }

    /// Whether `name` is a timing file of `stage`: `<stage>.json` or `<stage>.shard-….json`.
    static func isTiming(_ name: String, of stage: String) -> Bool {
        name == "\(stage).json" || (name.hasPrefix("\(stage).shard-") && name.hasSuffix(".json"))
    }

    /// Every timing file in `folder`, in pipeline order, then by shard (then by name).
    public static func read(folder: String) throws -> [StageTiming] {
        let order = ["inat", "dedupe", "wiki", "bundle", "report", "manifest", "verify", "manifest-bag", "verify-bag"]
        let names = try FileSystem.list(folder).filter { $0.hasSuffix(".json") }
        var timings: [StageTiming] = []
        let parser = JSONParser()
        for name in names {
            let path = "\(folder)/\(name)"
            let buffer = PaddedBuffer(copying: try ReadableFile.contents(of: path))
            let root: JSONValue
            do { root = try parser.parse(buffer) } catch {
                throw FieldpackError(path: path, "not a stage timing: \(error)")
            }
            guard let stage = root["stage"]?.string, let seconds = root["seconds"]?.double,
                  let peak = root["peak_rss_bytes"]?.int64 else {
                throw FieldpackError(path: path, "not a stage timing (stage, seconds, peak_rss_bytes)")
            }
            // A run's figures, in range: 1e300 seconds crashed the run report, -5 was added up.
            let yearOfSeconds = 366.0 * 86_400
            guard seconds.isFinite, seconds >= 0, seconds <= yearOfSeconds, peak >= 0,
                  (root["records"]?.int64 ?? 0) >= 0, (root["bytes"]?.int64 ?? 0) >= 0 else {
                throw FieldpackError(
                    path: path, "not a stage timing: seconds must be from 0 to a year (\(yearOfSeconds)), and records, bytes and peak_rss_bytes at least 0")
            }
            var finishedAt: Int64? = nil
            if let value = root["finished_at"] {
                guard let text = value.string, let millis = Timestamp.parse(text) else {
                    throw FieldpackError(path: path, "not a stage timing: finished_at is not a time (YYYY-MM-DDTHH:MM:SSZ)")
                }
                finishedAt = millis / 1000
            }
            var shard: Shard?
            if let text = root["shard"]?.string {
                do { shard = try Shard(parsing: text) } catch {
                    throw FieldpackError(path: path, "not a stage timing: shard \"\(text)\" is not I/N")
                }
            }
            timings.append(StageTiming(
                stage: stage, shard: shard, seconds: seconds, records: root["records"]?.int64.map { Int($0) },
                bytes: root["bytes"]?.int64.map { Int($0) }, peakResidentBytes: Int(peak), finishedAt: finishedAt))
        }
        func rank(_ stage: String) -> Int { order.firstIndex(of: stage) ?? order.count }
        func key(_ timing: StageTiming) -> (Int, String, Int, Int) {
            (rank(timing.stage), timing.stage, timing.shard?.count ?? 0, timing.shard?.index ?? 0)
        }
        return timings.sorted { key($0) < key($1) }
    }
}
